import StrataTestSupport
import Testing

@testable import StrataStorage

@Suite struct SmokeTests {
    @Test func createInsertCommitRead() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("smoke.strata")
        let store = try Store.open(.file(path))
        #expect(store.newestVersion == Version(1))
        let write = try store.beginWrite()
        let people = try write.createTable("Person", primaryKey: .int(column: 0))
        for id in 0..<1000 {
            try write.insert(people.id, values: [.int(Int64(id)), .string("name\(id)"), .int(Int64(18 + id % 80))])
        }
        let version = try write.commit()
        #expect(version == Version(2))
        let read = try store.beginRead()
        let table = try #require(read.table(named: "Person"))
        #expect(table.rowCount == 1000)
        #expect(try read.row(table, key: ObjectKey(7)) == [.int(7), .string("name7"), .int(25)])
        var sum: Int64 = 0
        var count = 0
        try read.forEachRow(table) { _, row in
            sum += try row.int(at: 2) ?? 0
            count += 1
            return true
        }
        #expect(count == 1000)
        #expect(sum == (0..<1000).reduce(0) { $0 + Int64(18 + $1 % 80) })
        read.end()
    }
}
