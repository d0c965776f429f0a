import Foundation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// Secondary indexes (Spec W26): one entry per object and indexed column in the table's index
/// tree, kept through inserts, updates, deletes, rollbacks, index changes and compaction, and
/// checked by `verify()`. The reference is a dictionary of the committed rows: the index must
/// name exactly the objects holding a value (after the caller's check of long values).
@Suite struct SecondaryIndexTests {
    static let options = StoreOptions(
        maximumFileSizeBytes: 256 << 20, readerSlotCount: 16, growthChunkBytesMin: 64 << 10)

    static func memory(_ base: String) -> StoreLocation {
        .memory(identifier: "\(base)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
    }

    /// Columns: 0 the integer primary key, 1 a small int, 2 a string (short, long or null),
    /// 3 a bool, 4 an unindexed int.
    static let indexed: UInt64 = 0b1110

    static func values(_ id: Int64, _ random: inout SplitMix64) -> [Value] {
        let strings: [Value] = [
            .string("a"), .string("b"), .null, .string(""),
            .string(String(repeating: "long shared prefix ", count: 8) + "1"),
            .string(String(repeating: "long shared prefix ", count: 8) + "2"),
        ]
        return [
            .int(id), .int(Int64(random.next() % 5)), strings[Int(random.next() % UInt64(strings.count))],
            .bool(random.next() % 2 == 0), .int(Int64(random.next() % 3)),
        ]
    }

    /// The keys the index names for `value` in `column` whose row holds it (the caller's check).
    static func found(
        _ read: ReadTransaction, _ table: TableInfo, column: Int, _ value: Value
    ) throws -> [Int64]? {
        guard let keys = try read.indexedKeys(table, column: column, equalTo: value) else { return nil }
        var matching: [Int64] = []
        for key in keys {
            let stored = try read.withRow(table, key: key) { row in try row.value(at: column) }
            if stored == value { matching.append(key.rawValue) }
        }
        return matching
    }

    // Spec W26: a random mix of inserts, updates (changing indexed and unindexed columns),
    // deletes, rolled-back writes and index changes; after every commit each value's index
    // lookup names exactly the committed objects holding it, ascending, and verify() is clean.
    @Test func indexLookupsMatchTheRowsThroughRandomWrites() throws {
        let store = try Store.open(Self.memory("secondary"), options: Self.options)
        defer { store.close() }
        var random = SplitMix64(seed: 14)
        var rows: [Int64: [Value]] = [:]
        var mask = Self.indexed
        let setup = try store.beginWrite()
        let tableID = try setup.createTable("T", primaryKey: .int(column: 0), indexedColumns: mask).id
        _ = try setup.commit()
        for round in 0..<60 {
            let write = try store.beginWrite()
            var pending = rows
            for _ in 0..<(1 + Int(random.next() % 12)) {
                let id = Int64(random.next() % 40)
                switch random.next() % 4 {
                case 0, 1:
                    let values = Self.values(id, &random)
                    if pending[id] == nil {
                        try write.insert(tableID, values: values)
                    } else {
                        try write.update(tableID, key: ObjectKey(id), values: values)
                    }
                    pending[id] = values
                case 2:
                    #expect(try write.delete(tableID, key: ObjectKey(id)) == (pending[id] != nil))
                    pending[id] = nil
                default:
                    if round % 7 == 3 {
                        // Index changes: drop the string index, later restore it.
                        mask = mask == Self.indexed ? 0b1010 : Self.indexed
                        try write.setIndexedColumns(mask, forTable: "T")
                    }
                }
            }
            if random.next() % 5 == 0 {
                write.rollback()
                let read = try store.beginRead()
                mask = try #require(read.table(named: "T")).indexedColumns
                read.end()
                continue
            }
            _ = try write.commit()
            rows = pending
            let read = try store.beginRead()
            let table = try #require(read.table(named: "T"))
            #expect(table.indexedColumns == mask)
            for column in 1...4 {
                let candidates = Set(rows.values.map { $0[column] }).union([.int(1), .string("a"), .null])
                for value in candidates {
                    let expected = rows.filter { $0.value[column] == value }.keys.sorted()
                    let answer = try Self.found(read, table, column: column, value)
                    if mask & (1 << UInt64(column)) == 0 {
                        #expect(answer == nil, "column \(column) has no index")
                    } else {
                        #expect(answer == expected, "round \(round): column \(column) = \(value)")
                    }
                }
            }
            read.end()
            let report = try store.verify()
            #expect(report.isClean, "round \(round): \(report.problems)")
        }
    }

    // Spec W26: the entries of long strings sharing their first bytes and length are one
    // image: the lookup names all of them (the caller checks each), never fewer.
    @Test func longValuesSharingAPrefixAreCandidatesOfEachOther() throws {
        let store = try Store.open(Self.memory("long"), options: Self.options)
        defer { store.close() }
        let prefix = String(repeating: "x", count: 200)
        let write = try store.beginWrite()
        let table = try write.createTable("T", indexedColumns: 0b1)
        for suffix in ["a", "b", "cc"] { try write.insert(table.id, values: [.string(prefix + suffix)]) }
        _ = try write.commit()
        let read = try store.beginRead()
        defer { read.end() }
        let current = try #require(read.table(named: "T"))
        let candidates = try #require(try read.indexedKeys(current, column: 0, equalTo: .string(prefix + "a")))
        #expect(candidates.map(\.rawValue) == [0, 1], "same length and first bytes: both; 'cc' is longer")
        #expect(try read.indexedKeys(current, column: 0, equalTo: .string(prefix + "cc"))?.map(\.rawValue) == [2])
    }

    // Spec W26: a compacted copy keeps the indexes, entry for entry.
    @Test func compactionKeepsTheIndexes() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("source.strata")
        let copy = directory.file("copy.strata")
        do {
            let store = try Store.open(.file(path), options: Self.options)
            defer { store.close() }
            let write = try store.beginWrite()
            let table = try write.createTable("T", primaryKey: .string(column: 0), indexedColumns: 0b10)
            for index in 0..<300 { try write.insert(table.id, values: [.string("k\(index)"), .int(Int64(index % 7))]) }
            _ = try write.commit()
            try store.writeCompactedCopy(toPath: copy)
        }
        let store = try Store.open(.file(copy), options: Self.options)
        defer { store.close() }
        #expect(try store.verify().isClean)
        let read = try store.beginRead()
        defer { read.end() }
        let table = try #require(read.table(named: "T"))
        #expect(table.indexedColumns == 0b10)
        #expect(try read.indexedKeys(table, column: 1, equalTo: .int(3))?.count == 43)
    }

    // Spec W26: the primary key's column has its own index; asking for a second is refused.
    @Test func thePrimaryKeyColumnIsNotIndexedTwice() throws {
        let store = try Store.open(Self.memory("pk"), options: Self.options)
        defer { store.close() }
        let write = try store.beginWrite()
        defer { write.rollback() }
        #expect(throws: StorageError.self) {
            try write.createTable("T", primaryKey: .int(column: 0), indexedColumns: 0b1)
        }
        try write.createTable("U", primaryKey: .string(column: 1))
        #expect(throws: StorageError.self) { try write.setIndexedColumns(0b10, forTable: "U") }
    }

    // Spec W26 (seeded bug `indexEntryLostOnUpdate`): an update that loses its new entry is
    // found by verify(), which compares every row's entries with the index.
    @Test func verifyFindsAnEntryLostOnUpdate() throws {
        let options = StoreOptions(
            maximumFileSizeBytes: 256 << 20, readerSlotCount: 16, growthChunkBytesMin: 64 << 10,
            hooks: EngineHooks(bugs: .indexEntryLostOnUpdate))
        let store = try Store.open(Self.memory("bug"), options: options)
        defer { store.close() }
        let write = try store.beginWrite()
        let table = try write.createTable("T", primaryKey: .int(column: 0), indexedColumns: 0b10)
        try write.insert(table.id, values: [.int(1), .int(5)])
        try write.update(table.id, key: ObjectKey(1), values: [.int(1), .int(6)])
        _ = try write.commit()
        let report = try store.verify()
        #expect(!report.isClean)
        #expect(
            report.problems.contains { "\($0)".contains("missing from the secondary indexes") }, "\(report.problems)")
    }

    // A string primary key's entry missing when its object is deleted is damage found after the
    // row was removed: the write reports it and can no longer commit (rows and index out of
    // step), as after any failed index maintenance.
    @Test func aDeleteMissingItsPrimaryKeyEntryFailsTheWrite() throws {
        let store = try Store.open(Self.memory("pkentry"), options: Self.options)
        defer { store.close() }
        let setup = try store.beginWrite()
        let created = try setup.createTable("T", primaryKey: .string(column: 0))
        let key = try setup.insert(created.id, values: [.string("a"), .int(1)])
        _ = try setup.commit()

        let write = try store.beginWrite()
        defer { write.rollback() }
        var table = try write.info(created.id)
        let entry = try IndexKeys.stringIndexKey(
            for: .string("a"), table: table, pageSizeBytes: write.file.pageSizeBytes)
        let removed = try entry.withUnsafeBytes { bytes in
            try TreeWriter(space: write.space, byteKeys: true).remove(root: &table.indexRoot, key: .bytes(bytes))
        }
        #expect(removed)
        write.storeTable(table)
        #expect(throws: StorageError.self) { try write.delete(created.id, key: key) }
        #expect(write.state == .failed)
        #expect(throws: StorageError.self) { _ = try write.commit() }
        #expect(try store.verify().isClean)  // nothing of the failed write reached the file
    }

    // A descriptor written before secondary indexes (eleven values) reads as no index.
    @Test func aDescriptorWithoutTheMaskHasNoIndex() throws {
        var table = TableInfo(
            id: TableID(3), name: "T", primaryKey: .none, rowCount: 0, schema: [], rowRoot: 0, indexRoot: 0, nextKey: 0)
        table.indexedColumns = 0b100
        let values = CatalogCodec.descriptorValues(table)
        #expect(values.count == 12)
        #expect(CatalogCodec.table(name: "T", values: values, schema: [])?.indexedColumns == 0b100)
        #expect(CatalogCodec.table(name: "T", values: Array(values.prefix(11)), schema: [])?.indexedColumns == 0)
        #expect(CatalogCodec.table(name: "T", values: Array(values.prefix(11)) + [.string("x")], schema: []) == nil)
    }
}
