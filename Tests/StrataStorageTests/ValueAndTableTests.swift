import Foundation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// Values, rows and tables through the engine API: every value kind round-trips (inline, in
/// overflow pages, in lists), column limits, integer and string primary keys, ordered range
/// scans, the table catalog, and space after deleting everything.
@Suite struct ValueAndTableTests {
    // MARK: helpers

    static let options = StoreOptions(
        maximumFileSizeBytes: 256 << 20, readerSlotCount: 16, growthChunkBytesMin: 64 << 10)

    /// Values compared bit for bit: `Value ==` follows `Double ==`, for which NaN ≠ NaN and
    /// -0.0 == 0.0, so a round trip must compare doubles by bit pattern.
    static func identical(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.list(let xs), .list(let ys)): return identical(xs, ys)
        default: return a == b
        }
    }

    static func identical(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
    }

    /// The name of an error's case ("valueTooLarge"), for cases with payloads.
    static func caseName(_ error: StorageError?) -> String {
        guard let error else { return "no error" }
        return Mirror(reflecting: error).children.first?.label ?? error.description
    }

    static func uniqueMemory(_ base: String) -> StoreLocation {
        .memory(identifier: "\(base)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
    }

    static let doubles: [Double] = [
        0, -0.0, 1.5, -1e300, .pi, .nan, -.nan, Double(bitPattern: 0x7FF0_0000_0000_0001),
        .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
    ]

    /// One sample of every value kind, including the edges.
    static func samples() -> [Value] {
        var random = SplitMix64(seed: 5)
        let bigBinary = (0..<100_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var values: [Value] = [
            .null, .bool(false), .bool(true),
            .int(0), .int(-1), .int(1), .int(Int64.min), .int(Int64.max), .int(Int64.min + 1),
            .int(1 << 35),
        ]
        values += doubles.map { .double($0) }
        values += [
            .string(""), .string("a"), .string("héllo wörld ✓ 日本語 🇺🇦 e\u{301}"),
            .string("\u{0}nul inside\u{0}"),
            // ~60 KB: many overflow pages.
            .string(String(repeating: "long 🌍 text ", count: 4000)),
            .binary([]), .binary([0]), .binary([0xFF, 0, 0x80]), .binary(bigBinary),
            .timestamp(Timestamp(seconds: 0, nanoseconds: 0)),
            .timestamp(Timestamp(seconds: -1, nanoseconds: -500_000_000)),
            .timestamp(Timestamp(seconds: Int64.max, nanoseconds: 999_999_999)),
            .timestamp(Timestamp(seconds: Int64.min, nanoseconds: -999_999_999)),
            .link(Link(table: TableID(1), key: ObjectKey(42))),
            .link(Link(table: TableID(UInt32.max), key: ObjectKey(Int64.min))),
            .list([]),
        ]
        let scalars = values.filter {
            if case .list = $0 { return false }
            return true
        }
        values.append(
            .list(
                scalars.filter { value in
                    // Lists keep their elements inline: leave out the values that need many pages.
                    if case .string(let text) = value { return text.utf8.count < 1000 }
                    if case .binary(let bytes) = value { return bytes.count < 1000 }
                    return true
                }))
        values.append(.list((0..<5000).map { .int(Int64($0) * 7919) }))  // a list in overflow pages
        values.append(.list((0..<300).map { .string("element \($0)") }))
        values.append(.list([.null, .null]))
        return values
    }

    // MARK: values

    /// Every value kind round-trips: inside the writing transaction, in a read after the
    /// commit, and after reopening the file; alone in a row and all in one row.
    @Test func everyValueKindRoundTrips() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("values.strata")
        let samples = Self.samples()
        var keys: [ObjectKey] = []
        do {
            let store = try Store.open(.file(path), options: Self.options)
            try store.write { write in
                let table = try write.createTable("values")
                for value in samples {
                    keys.append(
                        try write.insert(table.id, values: [.int(Int64(keys.count)), value]))
                }
                keys.append(try write.insert(table.id, values: samples))
                for (index, key) in keys.enumerated() {
                    let expected =
                        index < samples.count ? [.int(Int64(index)), samples[index]] : samples
                    let stored = try #require(try write.row(table, key: key))
                    #expect(
                        Self.identical(stored, expected),
                        "in the write: \(stored.prefix(3)) vs \(expected.prefix(3))")
                }
            }
            let read = try store.beginRead()
            try Self.expectSamples(read, keys: keys, samples: samples, "after commit")
            read.end()
            #expect(try store.verify().isClean)
            store.close()
        }
        let reopened = try Store.open(.file(path), options: Self.options)
        let read = try reopened.beginRead()
        try Self.expectSamples(read, keys: keys, samples: samples, "after reopen")
        read.end()
    }

    static func expectSamples(
        _ read: ReadTransaction, keys: [ObjectKey], samples: [Value], _ when: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let table = try #require(read.table(named: "values"), sourceLocation: sourceLocation)
        #expect(table.rowCount == samples.count + 1, sourceLocation: sourceLocation)
        for (index, key) in keys.enumerated() {
            let expected = index < samples.count ? [.int(Int64(index)), samples[index]] : samples
            let stored = try #require(try read.row(table, key: key), sourceLocation: sourceLocation)
            #expect(
                Self.identical(stored, expected), "\(when): row \(index) \(stored.prefix(3))",
                sourceLocation: sourceLocation)
            // Column by column through the row view's accessors.
            try read.withRow(table, key: key) { row in
                #expect(row.columnCount == expected.count, sourceLocation: sourceLocation)
                for (column, value) in expected.enumerated() {
                    #expect(
                        Self.identical(try row.value(at: column), value),
                        sourceLocation: sourceLocation)
                    let number = try row.int(at: column)
                    if case .int(let n) = value {
                        #expect(number == n, sourceLocation: sourceLocation)
                    } else {
                        #expect(number == nil)
                    }
                    #expect(
                        try row.isNull(at: column) == (value == .null),
                        sourceLocation: sourceLocation)
                }
                // Columns beyond the stored ones read as null.
                #expect(try row.value(at: expected.count) == .null, sourceLocation: sourceLocation)
                #expect(try row.isNull(at: expected.count + 5), sourceLocation: sourceLocation)
            }
        }
    }

    /// Lists do not nest, and timestamps keep their nanoseconds in range: both are typed
    /// errors that leave the transaction usable.
    @Test func nestedListsAndBadTimestampsAreRejected() throws {
        let store = try Store.open(Self.uniqueMemory("rejects"), options: Self.options)
        let write = try store.beginWrite()
        let table = try write.createTable("T")
        let nested = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.list([.list([.int(1)])])])
        }
        #expect(Self.caseName(nested) == "invalidArgument")
        for nanoseconds: Int32 in [1_000_000_000, -1_000_000_000, Int32.max] {
            let bad = #expect(throws: StorageError.self) {
                _ = try write.insert(
                    table.id, values: [.timestamp(Timestamp(seconds: 1, nanoseconds: nanoseconds))])
            }
            #expect(Self.caseName(bad) == "invalidArgument")
        }
        let key = try write.insert(table.id, values: [.list([.int(1), .string("flat")])])
        try write.commit()
        let read = try store.beginRead()
        #expect(
            try read.row(try #require(read.table(named: "T")), key: key) == [
                .list([.int(1), .string("flat")])
            ])
        #expect(read.table(named: "T")?.rowCount == 1)
        read.end()
    }

    /// Rows up to `RowCodec.columnCountMax` columns (a row this wide goes to overflow pages);
    /// one more column is a typed `.valueTooLarge` that changes nothing.
    @Test func rowsWithManyColumnsUpToTheLimit() throws {
        let limit = RowCodec.columnCountMax
        #expect(limit == 2048)
        let store = try Store.open(Self.uniqueMemory("columns"), options: Self.options)
        let wide: [Value] = (0..<limit).map { column in
            switch column % 4 {
            case 0: return .int(Int64(column) * 1_000_003)
            case 1: return .string("c\(column)")
            case 2: return .double(Double(column) / 3)
            default: return .null
            }
        }
        let strings: [Value] = (0..<limit).map {
            .string(String(repeating: "s", count: 30) + "\($0)")
        }
        let (wideKey, stringsKey) = try store.write { write -> (ObjectKey, ObjectKey) in
            let table = try write.createTable("wide")
            let first = try write.insert(table.id, values: wide)
            let second = try write.insert(table.id, values: strings)
            let tooWide = #expect(throws: StorageError.self) {
                _ = try write.insert(table.id, values: wide + [.int(1)])
            }
            #expect(Self.caseName(tooWide) == "valueTooLarge")
            let tooWideUpdate = #expect(throws: StorageError.self) {
                try write.update(table.id, key: first, values: wide + [.null])
            }
            #expect(Self.caseName(tooWideUpdate) == "valueTooLarge")
            #expect(try write.row(table, key: first) == wide)
            return (first, second)
        }
        let read = try store.beginRead()
        let table = try #require(read.table(named: "wide"))
        #expect(table.rowCount == 2)
        #expect(try read.row(table, key: wideKey) == wide)
        #expect(try read.row(table, key: stringsKey) == strings)
        try read.withRow(table, key: wideKey) { row in
            #expect(row.columnCount == limit)
            let number = try row.int(at: limit - 4)
            let text = try row.value(at: limit - 3)
            #expect(number == Int64(limit - 4) * 1_000_003)
            #expect(text == .string("c\(limit - 3)"))
        }
        read.end()
        #expect(try store.verify().isClean)
    }

    // MARK: primary keys

    /// Integer primary keys: the object key is the primary key; duplicates, the reserved
    /// `Int64.min`, lookups, upsert, and updates that would change the key.
    @Test func integerPrimaryKeys() throws {
        let store = try Store.open(Self.uniqueMemory("int-pk"), options: Self.options)
        let write = try store.beginWrite()
        let table = try write.createTable("people", primaryKey: .int(column: 1))
        for id: Int64 in [5, -3, Int64.max, Int64.min + 1, 0] {
            #expect(
                try write.insert(table.id, values: [.string("p\(id)"), .int(id)]) == ObjectKey(id))
        }
        let duplicate = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.string("again"), .int(5)])
        }
        #expect(duplicate == .duplicateKey(table: "people", key: "5"))
        let reserved = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.string("min"), .int(Int64.min)])
        }
        #expect(Self.caseName(reserved) == "invalidArgument")
        let wrongType = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.string("s"), .string("5")])
        }
        #expect(Self.caseName(wrongType) == "invalidArgument")
        // A null primary key is stored under Int64.min, once.
        #expect(
            try write.insert(table.id, values: [.string("nobody"), .null]) == ObjectKey(Int64.min))
        let secondNull = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.string("nobody 2")])
        }
        #expect(Self.caseName(secondNull) == "duplicateKey")

        #expect(try write.objectKey(table, primaryKey: .int(-3)) == ObjectKey(-3))
        #expect(try write.objectKey(table, primaryKey: .int(6)) == nil)
        #expect(try write.objectKey(table, primaryKey: .null) == ObjectKey(Int64.min))
        #expect(throws: StorageError.self) {
            _ = try write.objectKey(table, primaryKey: .string("5"))
        }

        // Upsert: replaces the object with that key, or inserts.
        #expect(try write.upsert(table.id, values: [.string("five"), .int(5)]) == ObjectKey(5))
        #expect(try write.upsert(table.id, values: [.string("six"), .int(6)]) == ObjectKey(6))
        #expect(try write.row(table, key: ObjectKey(5)) == [.string("five"), .int(5)])
        // The primary key of an object cannot change: a typed error, the object untouched.
        let changed = #expect(throws: StorageError.self) {
            try write.update(table.id, key: ObjectKey(5), values: [.string("x"), .int(50)])
        }
        #expect(Self.caseName(changed) == "invalidArgument")
        #expect(try write.row(table, key: ObjectKey(5)) == [.string("five"), .int(5)])
        #expect(try write.objectKey(table, primaryKey: .int(50)) == nil)
        try write.update(table.id, key: ObjectKey(5), values: [.string("five again"), .int(5)])
        let missing = #expect(throws: StorageError.self) {
            try write.update(table.id, key: ObjectKey(77), values: [.string("x"), .int(77)])
        }
        #expect(missing == .objectNotFound(table: "people", key: ObjectKey(77)))
        #expect(throws: StorageError.self) {
            try write.insert(table.id, key: ObjectKey(9), values: [.string("x"), .int(9)])
        }
        try write.commit()

        let read = try store.beginRead()
        let people = try #require(read.table(named: "people"))
        #expect(people.rowCount == 7)
        var keys: [Int64] = []
        try read.forEachRow(people) { key, row in
            keys.append(key.rawValue)
            let id = try row.int(at: 1)
            if key.rawValue != Int64.min { #expect(id == key.rawValue) }
            return true
        }
        #expect(keys == [Int64.min, Int64.min + 1, -3, 0, 5, 6, Int64.max])
        #expect(try read.row(people, key: ObjectKey(5)) == [.string("five again"), .int(5)])
        #expect(try read.objectKey(people, primaryKey: .int(Int64.max)) == ObjectKey(Int64.max))
        read.end()
        #expect(try store.verify().isClean)
    }

    /// String primary keys: kept unique by the index, looked up, upserted, freed on delete;
    /// the longest accepted key and one byte more.
    @Test func stringPrimaryKeys() throws {
        let store = try Store.open(Self.uniqueMemory("string-pk"), options: Self.options)
        let maximumBytes = PageLayout.keyByteCountMax(pageSizeBytes: store.pageSizeBytes) - 1
        let write = try store.beginWrite()
        let table = try write.createTable("cities", primaryKey: .string(column: 0))
        let paris = try write.insert(table.id, values: [.string("Paris"), .int(2_100_000)])
        let kyiv = try write.insert(table.id, values: [.string("Київ"), .int(2_900_000)])
        #expect(paris != kyiv)
        let duplicate = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.string("Paris"), .int(1)])
        }
        #expect(duplicate == .duplicateKey(table: "cities", key: "Paris"))
        #expect(try write.objectKey(table, primaryKey: .string("Paris")) == paris)
        #expect(try write.objectKey(table, primaryKey: .string("paris")) == nil)
        #expect(try write.objectKey(table, primaryKey: .string("Київ")) == kyiv)
        let wrongType = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.int(3)])
        }
        #expect(Self.caseName(wrongType) == "invalidArgument")

        // The longest key (in UTF-8 bytes, not characters) and one byte more.
        let longest = String(repeating: "k", count: maximumBytes)
        let longestKey = try write.insert(table.id, values: [.string(longest), .int(0)])
        #expect(try write.objectKey(table, primaryKey: .string(longest)) == longestKey)
        let tooLong = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.string(longest + "k")])
        }
        #expect(Self.caseName(tooLong) == "valueTooLarge")
        let tooLongUnicode = String(repeating: "é", count: maximumBytes / 2 + 1)  // two bytes each
        let unicodeError = #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.string(tooLongUnicode)])
        }
        #expect(Self.caseName(unicodeError) == "valueTooLarge")
        let lookupTooLong = #expect(throws: StorageError.self) {
            _ = try write.objectKey(table, primaryKey: .string(longest + "k"))
        }
        #expect(Self.caseName(lookupTooLong) == "valueTooLarge")

        // Upsert by string key; the key cannot change in an update.
        #expect(try write.upsert(table.id, values: [.string("Paris"), .int(2_200_000)]) == paris)
        let lyon = try write.upsert(table.id, values: [.string("Lyon"), .int(500_000)])
        #expect(try write.objectKey(table, primaryKey: .string("Lyon")) == lyon)
        let changed = #expect(throws: StorageError.self) {
            try write.update(table.id, key: paris, values: [.string("Lutetia"), .int(1)])
        }
        #expect(Self.caseName(changed) == "invalidArgument")
        #expect(try write.objectKey(table, primaryKey: .string("Lutetia")) == nil)

        // Delete frees the key for a new object.
        #expect(try write.delete(table.id, key: kyiv))
        #expect(try write.objectKey(table, primaryKey: .string("Київ")) == nil)
        let kyivAgain = try write.insert(table.id, values: [.string("Київ"), .int(3_000_000)])
        #expect(kyivAgain != kyiv)
        // A null key is a key too, once.
        let nobody = try write.insert(table.id, values: [.null, .int(0)])
        #expect(try write.objectKey(table, primaryKey: .null) == nobody)
        #expect(throws: StorageError.self) {
            _ = try write.insert(table.id, values: [.null, .int(1)])
        }
        try write.commit()

        let read = try store.beginRead()
        let cities = try #require(read.table(named: "cities"))
        #expect(cities.rowCount == 5)
        #expect(try read.objectKey(cities, primaryKey: .string("Paris")) == paris)
        #expect(try read.row(cities, key: paris) == [.string("Paris"), .int(2_200_000)])
        #expect(try read.objectKey(cities, primaryKey: .string("Київ")) == kyivAgain)
        #expect(try read.contains(cities, key: kyiv) == false)
        read.end()
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
    }

    /// Tables without a primary key: engine-assigned ascending keys, chosen keys, and the
    /// primary-key operations rejected with typed errors.
    @Test func tablesWithoutPrimaryKey() throws {
        let store = try Store.open(Self.uniqueMemory("no-pk"), options: Self.options)
        try store.write { write in
            let table = try write.createTable("log")
            #expect(try write.insert(table.id, values: [.int(0)]) == ObjectKey(0))
            #expect(try write.insert(table.id, values: [.int(1)]) == ObjectKey(1))
            try write.insert(table.id, key: ObjectKey(100), values: [.int(100)])
            #expect(try write.insert(table.id, values: [.int(101)]) == ObjectKey(101))
            try write.insert(table.id, key: ObjectKey(-5), values: [.int(-5)])
            let duplicate = #expect(throws: StorageError.self) {
                try write.insert(table.id, key: ObjectKey(100), values: [])
            }
            #expect(duplicate == .duplicateKey(table: "log", key: "100"))
            let upsert = #expect(throws: StorageError.self) {
                _ = try write.upsert(table.id, values: [.int(1)])
            }
            #expect(Self.caseName(upsert) == "invalidArgument")
            let lookup = #expect(throws: StorageError.self) {
                _ = try write.objectKey(table, primaryKey: .int(1))
            }
            #expect(Self.caseName(lookup) == "invalidArgument")
            #expect(try write.delete(table.id, key: ObjectKey(55)) == false)
            #expect(try write.delete(table.id, key: ObjectKey(101)))
        }
        let read = try store.beginRead()
        let log = try #require(read.table(named: "log"))
        var keys: [Int64] = []
        try read.forEachRow(log) { key, row in
            let number = try row.int(at: 0)
            #expect(number == key.rawValue)
            keys.append(key.rawValue)
            return true
        }
        #expect(keys == [-5, 0, 1, 100])
        read.end()
        // Keys are not reused after a delete of the highest key.
        try store.write { write in
            let key = try write.insert(
                try #require(write.table(named: "log")).id, values: [.int(102)])
            #expect(key == ObjectKey(102))
        }
    }

    // MARK: range scans

    /// `forEachRow(from:)` starts at the first key ≥ `from` and stops when the body returns
    /// false, in a read and inside a write with uncommitted changes, across many leaves.
    @Test func orderedRangeScans() throws {
        let store = try Store.open(Self.uniqueMemory("scan"), options: Self.options)
        // 2000 keys: many leaves.
        let keys = stride(from: Int64(-5000), to: 15000, by: 10).map { $0 }
        try store.write { write in
            let table = try write.createTable("T", primaryKey: .int(column: 0))
            for key in keys {
                try write.insert(table.id, values: [.int(key), .string("row \(key)")])
            }
        }
        func scan(
            _ visit: (TableInfo, ObjectKey?, (ObjectKey, RowView) throws -> Bool) throws -> Void,
            _ table: TableInfo, from: ObjectKey?, limit: Int
        ) throws -> [Int64] {
            var seen: [Int64] = []
            try visit(table, from) { key, row in
                let number = try row.int(at: 0)
                #expect(number == key.rawValue)
                seen.append(key.rawValue)
                return seen.count < limit
            }
            return seen
        }
        let read = try store.beginRead()
        let table = try #require(read.table(named: "T"))
        let readScan = {
            (table: TableInfo, from: ObjectKey?, body: (ObjectKey, RowView) throws -> Bool) throws
            in
            try read.forEachRow(table, from: from, body)
        }
        #expect(try scan(readScan, table, from: nil, limit: .max) == keys)
        #expect(try scan(readScan, table, from: ObjectKey(55), limit: 3) == [60, 70, 80])
        #expect(try scan(readScan, table, from: ObjectKey(60), limit: 3) == [60, 70, 80])
        #expect(try scan(readScan, table, from: ObjectKey(-5001), limit: 2) == [-5000, -4990])
        #expect(try scan(readScan, table, from: ObjectKey(Int64.min), limit: 1) == [-5000])
        #expect(try scan(readScan, table, from: ObjectKey(14_990), limit: 10) == [14_990])
        #expect(try scan(readScan, table, from: ObjectKey(14_991), limit: 10) == [])
        #expect(try scan(readScan, table, from: ObjectKey(Int64.max), limit: 10) == [])
        #expect(
            try scan(readScan, table, from: ObjectKey(3), limit: 1000)
                == Array(keys.filter { $0 >= 3 }.prefix(1000)))
        read.end()

        let write = try store.beginWrite()
        let writeTable = try #require(write.table(named: "T"))
        try write.insert(writeTable.id, values: [.int(65), .string("new")])
        #expect(try write.delete(writeTable.id, key: ObjectKey(70)))
        let writeScan = {
            (table: TableInfo, from: ObjectKey?, body: (ObjectKey, RowView) throws -> Bool) throws
            in
            try write.forEachRow(table, from: from, body)
        }
        #expect(try scan(writeScan, writeTable, from: ObjectKey(61), limit: 3) == [65, 80, 90])
        write.rollback()
    }

    // MARK: the catalog

    /// createTable, dropTable, setSchema and the schema version: typed errors, persistence.
    @Test func tablesAreCreatedDroppedAndKeepTheirSchemas() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("catalog.strata")
        let bigSchema = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }  // overflow pages
        do {
            let store = try Store.open(.file(path), options: Self.options)
            try store.write { write in
                let a = try write.createTable("A", primaryKey: .int(column: 0), schema: [1, 2, 3])
                try write.insert(a.id, values: [.int(1)])
                try write.createTable("B", primaryKey: .string(column: 0))
                #expect(throws: StorageError.tableExists("A")) { _ = try write.createTable("A") }
                let emptyName = #expect(throws: StorageError.self) { _ = try write.createTable("") }
                #expect(Self.caseName(emptyName) == "invalidArgument")
                let badColumn = #expect(throws: StorageError.self) {
                    _ = try write.createTable("C", primaryKey: .int(column: -1))
                }
                #expect(Self.caseName(badColumn) == "invalidArgument")
                write.storedSchemaVersion = 7
            }
            try store.write { write in
                #expect(throws: StorageError.tableExists("B")) { _ = try write.createTable("B") }
                try write.setSchema(bigSchema, forTable: "B")
                #expect(throws: StorageError.tableNotFound("Z")) {
                    try write.setSchema([1], forTable: "Z")
                }
                #expect(throws: StorageError.tableNotFound("Z")) { try write.dropTable("Z") }
                let b = try #require(write.table(named: "B"))
                try write.insert(b.id, values: [.string("x")])
            }
            store.close()
        }
        let store = try Store.open(.file(path), options: Self.options)
        let beforeDrop = try store.beginRead()
        #expect(beforeDrop.schemaVersion == 7)
        #expect(beforeDrop.table(named: "A")?.schema == [1, 2, 3])
        #expect(beforeDrop.table(named: "B")?.schema == bigSchema)
        #expect(beforeDrop.tables().map(\.name) == ["A", "B"])
        let staleA = try #require(beforeDrop.table(named: "A"))

        try store.write { write in
            try write.dropTable("A")
            #expect(write.table(named: "A") == nil)
            #expect(throws: StorageError.noSuchTableID(staleA.id)) {
                _ = try write.insert(staleA.id, values: [.int(2)])
            }
            #expect(throws: StorageError.noSuchTableID(staleA.id)) {
                _ = try write.row(staleA, key: ObjectKey(1))
            }
            #expect(throws: StorageError.tableNotFound("A")) { try write.dropTable("A") }
            #expect(throws: StorageError.tableNotFound("A")) {
                try write.setSchema([], forTable: "A")
            }
        }
        // The old read still sees A; a new read does not, and the name can be used again.
        #expect(try beforeDrop.row(staleA, key: ObjectKey(1)) == [.int(1)])
        beforeDrop.end()
        let afterDrop = try store.beginRead()
        #expect(afterDrop.table(named: "A") == nil)
        #expect(afterDrop.table(id: staleA.id) == nil)
        #expect(afterDrop.schemaVersion == 7)
        afterDrop.end()
        try store.write { write in
            let again = try write.createTable("A")
            #expect(again.id != staleA.id, "a dropped table's id was reused")
            #expect(again.schema.isEmpty)
            #expect(again.rowCount == 0)
        }
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
        #expect(report.tables.map(\.name) == ["A", "B"])
    }

    /// Table names up to the limit; hundreds of tables with schemas of up to several pages
    /// (the catalog tree splits, schemas go to overflow pages); replacing and dropping large
    /// schemas frees their pages (verify reports leaks).
    @Test func manyTablesWithLargeSchemasAndTheirSpace() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("tables.strata")
        let nameByteCountMax = PageLayout.keyByteCountMax(pageSizeBytes: 4096) - 1
        func schema(_ index: Int, generation: Int) -> [UInt8] {
            (0..<(index % 7 == 0 ? 9000 + index : 50 + index)).map {
                UInt8(truncatingIfNeeded: $0 &+ index &+ generation)
            }
        }
        do {
            let store = try Store.open(.file(path), options: Self.options)
            try store.write { write in
                let longest = String(repeating: "n", count: nameByteCountMax)
                try write.createTable(longest)
                let tooLong = #expect(throws: StorageError.self) {
                    _ = try write.createTable(longest + "n")
                }
                #expect(Self.caseName(tooLong) == "invalidArgument")
                for index in 0..<300 {
                    let table = try write.createTable(
                        "table \(index)", primaryKey: .int(column: 0),
                        schema: schema(index, generation: 0))
                    try write.insert(table.id, values: [.int(Int64(index))])
                }
            }
            let report = try store.verify()
            #expect(report.isClean, "\(report.problems.prefix(3))")
            #expect(report.tables.count == 301)
            try store.write { write in
                for index in stride(from: 0, to: 300, by: 3) {
                    try write.setSchema(schema(index, generation: 1), forTable: "table \(index)")
                }
                for index in stride(from: 1, to: 300, by: 3) {
                    try write.dropTable("table \(index)")
                }
            }
            store.close()
        }
        let store = try Store.open(.file(path), options: Self.options)
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
        let read = try store.beginRead()
        #expect(read.tables().count == 201)
        for index in 0..<300 {
            let table = read.table(named: "table \(index)")
            switch index % 3 {
            case 1: #expect(table == nil)
            case 0: #expect(table?.schema == schema(index, generation: 1))
            default: #expect(table?.schema == schema(index, generation: 0))
            }
            if let table {
                #expect(try read.row(table, key: ObjectKey(Int64(index))) == [.int(Int64(index))])
            }
        }
        read.end()
        // Dropping everything returns the space: the same tables again do not grow the file.
        try store.write { write in for table in write.tables() { try write.dropTable(table.name) } }
        let pagesAfterDrop = try store.statistics().pageCount
        try store.write { write in
            for index in 0..<300 {
                try write.createTable("again \(index)", schema: schema(index, generation: 2))
            }
        }
        #expect(
            try store.statistics().pageCount <= pagesAfterDrop,
            "dropped tables' pages were not reused")
        let final = try store.verify()
        #expect(final.isClean, "\(final.problems.prefix(3))")
    }

    /// A `TableInfo` from an older version names that version's tree. Using it with a read
    /// of a later version in which the table was dropped (and its pages reused) must not
    /// return another table's rows as if they were the dropped table's.
    @Test func staleTableInfoFromADroppedTableIsNotReadAsData() throws {
        let store = try Store.open(Self.uniqueMemory("stale"), options: Self.options)
        let stale = try store.write { write -> TableInfo in
            let table = try write.createTable("old", primaryKey: .int(column: 0))
            for key in Int64(0)..<50 {
                try write.insert(table.id, values: [.int(key), .string("old \(key)")])
            }
            return try #require(write.table(named: "old"))
        }
        try store.write { write in try write.dropTable("old") }
        // Two commits later the dropped table's pages are reusable; fill them with another table.
        for round in 0..<3 {
            try store.write { write in
                let table =
                    try write.table(named: "new")
                    ?? write.createTable("new", primaryKey: .int(column: 0))
                for key in Int64(0)..<50 {
                    try write.upsert(table.id, values: [.int(key), .string("new \(key) \(round)")])
                }
            }
        }
        let read = try store.beginRead()
        #expect(read.table(named: "old") == nil)
        var outcome: String
        do {
            let row = try read.row(stale, key: ObjectKey(3))
            outcome = "returned \(String(describing: row))"
        } catch let error as StorageError {
            outcome = Self.caseName(error)
        }
        read.end()
        #expect(
            ["tableNotFound", "noSuchTableID"].contains(outcome),
            "stale TableInfo read: \(outcome)")
    }

    /// deleteAll removes every object and its overflow pages and index entries; the table
    /// stays and takes new objects.
    @Test func deleteAllEmptiesATableAndItsIndex() throws {
        let store = try Store.open(Self.uniqueMemory("delete-all"), options: Self.options)
        try store.write { write in
            let names = try write.createTable("names", primaryKey: .string(column: 0))
            let log = try write.createTable("log")
            for index in 0..<500 {
                try write.insert(
                    names.id,
                    values: [
                        .string("name \(index)"),
                        .binary([UInt8](repeating: 1, count: index % 50 == 0 ? 9000 : 10)),
                    ])
                try write.insert(log.id, values: [.int(Int64(index))])
            }
        }
        try store.write { write in
            let names = try #require(write.table(named: "names"))
            let log = try #require(write.table(named: "log"))
            #expect(try write.deleteAll(names.id) == 500)
            #expect(try write.deleteAll(log.id) == 500)
            #expect(try write.deleteAll(log.id) == 0)
            #expect(try write.objectKey(names, primaryKey: .string("name 7")) == nil)
            _ = try write.insert(names.id, values: [.string("name 7"), .null])
            #expect(try write.objectKey(names, primaryKey: .string("name 7")) != nil)
            // Keys of a table without a primary key keep ascending after deleteAll.
            #expect(try write.insert(log.id, values: [.int(-1)]) == ObjectKey(500))
        }
        let read = try store.beginRead()
        #expect(read.table(named: "names")?.rowCount == 1)
        #expect(read.table(named: "log")?.rowCount == 1)
        var visited = 0
        try read.forEachRow(try #require(read.table(named: "names"))) { _, _ in
            visited += 1
            return true
        }
        #expect(visited == 1)
        read.end()
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
    }

    /// 20k rows inserted and all deleted, three times: after the first round the file stops
    /// growing (the freed pages are reused) and verify finds nothing leaked.
    @Test func twentyThousandRowsDeletedRepeatedlyStopGrowingTheFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("twenty.strata")
        let store = try Store.open(.file(path), options: Self.options)
        var sizes: [Int] = []
        var pageCounts: [Int] = []
        for round in 0..<3 {
            try store.write { write in
                let table =
                    try write.table(named: "T")
                    ?? write.createTable("T", primaryKey: .int(column: 0))
                for key in Int64(0)..<20_000 {
                    try write.insert(
                        table.id,
                        values: [
                            .int(key), .string("row \(key) of round \(round)"),
                            .double(Double(key)),
                        ])
                }
            }
            #expect(try store.beginRead().table(named: "T")?.rowCount == 20_000)
            try store.write { write in
                let table = try #require(write.table(named: "T"))
                if round == 1 {
                    // One round deletes row by row (merges and collapses), the others all at once.
                    for key in Int64(0)..<20_000 {
                        #expect(try write.delete(table.id, key: ObjectKey(key)))
                    }
                } else {
                    #expect(try write.deleteAll(table.id) == 20_000)
                }
            }
            let report = try store.verify()
            #expect(report.isClean, "round \(round): \(report.problems.prefix(3))")
            #expect(report.tables == [.init(name: "T", rowCount: 0)])
            sizes.append(try store.statistics().fileByteCount)
            pageCounts.append(try store.statistics().pageCount)
        }
        #expect(sizes[2] == sizes[1], "the file kept growing: \(sizes)")
        #expect(
            pageCounts[2] == pageCounts[1], "the logical page count kept growing: \(pageCounts)")
        #expect(
            pageCounts[1] <= pageCounts[0] + pageCounts[0] / 10,
            "the second round did not reuse the first's pages: \(pageCounts)")
    }
}

/// `Timestamp.description` is what `strata-tool dump` prints: nine fraction digits, one sign.
@Suite struct TimestampDescriptionTests {
    @Test func fractionKeepsLeadingZerosAndSign() {
        #expect(Timestamp(seconds: 1, nanoseconds: 50_000_000).description == "@1.050000000")
        #expect(Timestamp(seconds: 0, nanoseconds: -500_000_000).description == "@-0.500000000")
        #expect(Timestamp(seconds: -3, nanoseconds: -7).description == "@-3.000000007")
        #expect(Timestamp(seconds: 12, nanoseconds: 0).description == "@12.000000000")
    }
}
