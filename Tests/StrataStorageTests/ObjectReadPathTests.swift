import Foundation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// The engine reads the Realm API's fast paths stand on: a table's keys known from its ends
/// (`consecutiveKeys`), an object's identity and values in one call (`objectValues`), rows read
/// ahead only when self-contained (`appendInlineValues`), and the count of tables a write
/// created or dropped (`tableSetGeneration`).
@Suite struct ObjectReadPathTests {
    static let options = StoreOptions(
        maximumFileSizeBytes: 256 << 20, readerSlotCount: 16, growthChunkBytesMin: 64 << 10)

    static func store(_ name: String) throws -> Store {
        try Store.open(
            .memory(identifier: "\(name)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"), options: options)
    }

    /// A string longer than a page: stored in overflow pages.
    static let long = String(repeating: "overflow ", count: 1200)

    @Test func consecutiveKeysAreKnownFromTheTablesEnds() throws {
        let store = try Self.store("consecutive")
        let write = try store.beginWrite()
        let plain = try write.createTable("plain")
        let keyed = try write.createTable("keyed", primaryKey: .int(column: 0))
        #expect(try write.consecutiveKeys(plain) == nil)  // empty
        for index in 0..<3000 {
            _ = try write.insert(plain.id, values: [.int(Int64(index))])
            _ = try write.insert(keyed.id, values: [.int(Int64(index) + 10)])
        }
        #expect(try write.consecutiveKeys(plain) == ObjectKey(0)...ObjectKey(2999))
        #expect(try write.consecutiveKeys(keyed) == ObjectKey(10)...ObjectKey(3009))
        _ = try write.commit()

        let gap = try store.beginWrite()
        #expect(try gap.delete(plain.id, key: ObjectKey(1500)))
        #expect(try gap.consecutiveKeys(plain) == nil)  // a gap: a walk must find the keys
        // Deleting the last key and inserting it again gives the key to a second object.
        #expect(try gap.delete(keyed.id, key: ObjectKey(3009)))
        _ = try gap.insert(keyed.id, values: [.int(3009)])
        #expect(try gap.consecutiveKeys(keyed) == nil)
        gap.rollback()

        let read = try store.beginRead()
        defer { read.end() }
        #expect(try read.consecutiveKeys(plain) == ObjectKey(0)...ObjectKey(2999))
        #expect(try read.consecutiveKeys(keyed) == ObjectKey(10)...ObjectKey(3009))
    }

    @Test func objectValuesFindsIdentityAndValuesInOneCall() throws {
        let store = try Self.store("object-values")
        let write = try store.beginWrite()
        let ints = try write.createTable("ints", primaryKey: .int(column: 0))
        let strings = try write.createTable("strings", primaryKey: .string(column: 0))
        _ = try write.insert(ints.id, values: [.int(7), .string("seven")])
        _ = try write.insert(ints.id, values: [.int(8), .string(Self.long)])
        _ = try write.insert(strings.id, values: [.string("a"), .int(1)])

        let seven = try #require(try write.objectValues(ints, primaryKey: .int(7)))
        #expect(seven.identity == (try write.objectIdentity(ints, primaryKey: .int(7))))
        #expect(seven.values == [.int(7), .string("seven")])
        // A value in overflow pages is left to the caller's reads of the row.
        let eight = try #require(try write.objectValues(ints, primaryKey: .int(8)))
        #expect(eight.values == nil)
        #expect(try write.row(ints, key: eight.identity.key) == [.int(8), .string(Self.long)])
        #expect(try write.objectValues(ints, primaryKey: .int(9)) == nil)

        let a = try #require(try write.objectValues(strings, primaryKey: .string("a")))
        #expect(a.identity == (try write.objectIdentity(strings, primaryKey: .string("a"))))
        #expect(a.values == [.string("a"), .int(1)])
        #expect(try write.objectValues(strings, primaryKey: .string("b")) == nil)
        write.rollback()
    }

    @Test func rowsAreAppendedOnlyWhenSelfContained() throws {
        let store = try Self.store("inline-values")
        let write = try store.beginWrite()
        let table = try write.createTable("rows")
        let short = try write.insert(table.id, values: [.int(1), .string("s"), .null])
        let long = try write.insert(table.id, values: [.int(2), .string(Self.long)])
        var values: [Value] = [.bool(true)]
        let appended = try write.withRow(table, key: short) { try $0.appendInlineValues(to: &values) }
        #expect(appended == true)
        #expect(values == [.bool(true), .int(1), .string("s"), .null])
        #expect(try write.withRow(table, key: short) { try $0.hasOverflowValues() } == false)
        let refused = try write.withRow(table, key: long) { try $0.appendInlineValues(to: &values) }
        #expect(refused == false)
        #expect(values.count == 4)  // nothing appended
        #expect(try write.withRow(table, key: long) { try $0.hasOverflowValues() } == true)
        write.rollback()
    }

    @Test func tableSetGenerationCountsCreatedAndDroppedTables() throws {
        let store = try Self.store("generation")
        let write = try store.beginWrite()
        #expect(write.tableSetGeneration == 0)
        let table = try write.createTable("a")
        _ = try write.insert(table.id, values: [.int(1)])
        #expect(write.tableSetGeneration == 1)
        try write.dropTable("a")
        #expect(write.tableSetGeneration == 2)
        write.rollback()
    }
}
