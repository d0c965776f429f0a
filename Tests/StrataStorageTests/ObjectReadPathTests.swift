import Foundation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// The engine reads the Realm API's fast paths stand on: a table's keys known from its ends
/// (`consecutiveKeys`), an object's identity and row in one call (`withObjectRow`), rows kept
/// outside the file as bytes and read there (`InlineRow.detached`), a read's rows
/// found one at a time by ascending key (`PinnedRowCursor`), and the count of tables a write
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

    @Test func withObjectRowFindsIdentityAndRowInOneCall() throws {
        let store = try Self.store("object-row")
        let write = try store.beginWrite()
        let ints = try write.createTable("ints", primaryKey: .int(column: 0))
        let strings = try write.createTable("strings", primaryKey: .string(column: 0))
        _ = try write.insert(ints.id, values: [.int(7), .string("seven")])
        _ = try write.insert(ints.id, values: [.int(8), .string(Self.long)])
        _ = try write.insert(strings.id, values: [.string("a"), .int(1)])

        let seven = try #require(try write.withObjectRow(ints, primaryKey: .int(7)) { ($0, try $1.values()) })
        #expect(seven.0 == (try write.objectIdentity(ints, primaryKey: .int(7))))
        #expect(seven.1 == [.int(7), .string("seven")])
        // A value in overflow pages is read through the row view the call hands over.
        let eight = try #require(
            try write.withObjectRow(ints, primaryKey: .int(8)) { ($0, try $1.hasOverflowValues(), try $1.values()) })
        #expect(eight.1 == true)
        #expect(eight.2 == [.int(8), .string(Self.long)])
        #expect(try write.withObjectRow(ints, primaryKey: .int(9)) { _, _ in true } == nil)

        let a = try #require(try write.withObjectRow(strings, primaryKey: .string("a")) { ($0, try $1.values()) })
        #expect(a.0 == (try write.objectIdentity(strings, primaryKey: .string("a"))))
        #expect(a.1 == [.string("a"), .int(1)])
        #expect(try write.withObjectRow(strings, primaryKey: .string("b")) { _, _ in true } == nil)
        write.rollback()
    }

    @Test func aDetachedRowReadsItsInlineValuesAndRefusesOverflow() throws {
        let store = try Self.store("detached")
        let write = try store.beginWrite()
        let table = try write.createTable("rows")
        let short = try write.insert(table.id, values: [.int(1), .string("s"), .null, .double(2.5)])
        let long = try write.insert(table.id, values: [.int(2), .string(Self.long)])
        let copied = try #require(try write.withRow(table, key: short) { Array($0.inlineRowBytes) })
        try copied.withUnsafeBytes { raw in
            let row = try InlineRow.detached(raw)
            #expect(row.columnCount == 4)
            #expect(try row.values() == [.int(1), .string("s"), .null, .double(2.5)])
            #expect(try row.int(at: 0) == 1)
            #expect(try row.int(at: 1) == nil)  // not an integer
            #expect(try row.inlineString(at: 1) == "s")
            #expect(try row.inlineString(at: 0) == nil)
            #expect(try row.inlineString(at: 2) == nil)  // null
            #expect(try row.value(at: 9) == .null)  // beyond the stored columns
        }
        #expect(try write.withRow(table, key: short) { try $0.hasOverflowValues() } == false)
        // A copied row whose value lies in overflow pages cannot read it: it answers nil.
        let longBytes = try #require(try write.withRow(table, key: long) { Array($0.inlineRowBytes) })
        #expect(try write.withRow(table, key: long) { try $0.hasOverflowValues() } == true)
        try longBytes.withUnsafeBytes { raw in
            let row = try InlineRow.detached(raw)
            #expect(try row.int(at: 0) == 2)
            #expect(try row.value(at: 1) == nil)  // in overflow pages: not readable from here
            #expect(try row.values() == nil)
        }
        write.rollback()
    }

    @Test func withObjectRowInAReadFindsTheIncarnationOfAReusedKey() throws {
        let store = try Self.store("object-row-read")
        let write = try store.beginWrite()
        let ints = try write.createTable("ints", primaryKey: .int(column: 0))
        let strings = try write.createTable("strings", primaryKey: .string(column: 0))
        _ = try write.insert(ints.id, values: [.int(7), .string("first")])
        _ = try write.insert(strings.id, values: [.string("a"), .int(1)])
        _ = try write.commit()
        // The key of 7 goes to a second object: its incarnation tells the two apart.
        let again = try store.beginWrite()
        #expect(try again.delete(ints.id, key: ObjectKey(7)))
        _ = try again.insert(ints.id, values: [.int(7), .string("second")])
        _ = try again.commit()

        let read = try store.beginRead()
        defer { read.end() }
        let seven = try #require(try read.withObjectRow(ints, primaryKey: .int(7)) { ($0, try $1.values()) })
        #expect(seven.0 == (try read.objectIdentity(ints, primaryKey: .int(7))))
        #expect(seven.0.incarnation != .keyIsIdentity)
        #expect(seven.1 == [.int(7), .string("second")])
        #expect(try read.withObjectRow(ints, primaryKey: .int(8)) { _, _ in true } == nil)
        #expect(throws: StorageError.self) {
            _ = try read.withObjectRow(ints, primaryKey: .string("7")) { _, _ in true }
        }
        let a = try #require(try read.withObjectRow(strings, primaryKey: .string("a")) { ($0, try $1.values()) })
        #expect(a.1 == [.string("a"), .int(1)])

        // A descriptor of a table this version does not have is refused, not followed.
        let drop = try store.beginWrite()
        try drop.dropTable("ints")
        _ = try drop.commit()
        let later = try store.beginRead()
        defer { later.end() }
        #expect(throws: StorageError.self) { _ = try later.withObjectRow(ints, primaryKey: .int(7)) { _, _ in true } }
    }

    @Test func aPinnedRowCursorFindsRowsByAscendingKey() throws {
        let store = try Self.store("pinned-cursor")
        let write = try store.beginWrite()
        let table = try write.createTable("rows")
        for index in 0..<3000 { _ = try write.insert(table.id, values: [.int(Int64(index) * 3)]) }
        for key in [5, 6, 1000, 2999] { #expect(try write.delete(table.id, key: ObjectKey(Int64(key)))) }
        _ = try write.commit()

        let read = try store.beginRead()
        defer { read.end() }
        let cursor = try read.pinnedRowCursor(table, from: ObjectKey(4))
        // Neighbours, a deleted key, keys far apart (more than a leaf's worth: a new descent).
        for key in [4, 7, 8, 9, 500, 999, 1001, 2500, 2998] {
            let row = try #require(try cursor.row(at: ObjectKey(Int64(key))), "key \(key)")
            #expect(try row.int(at: 0) == Int64(key) * 3)
            #expect(row.incarnation == .keyIsIdentity)
        }
        #expect(try cursor.row(at: ObjectKey(2999)) == nil)  // deleted, and the last key
        #expect(try cursor.row(at: ObjectKey(5000)) == nil)  // beyond the table

        // Every key in turn, from the first: each leaf's end is crossed, deleted keys are nil.
        let walk = try read.pinnedRowCursor(table, from: nil)
        for key in 0..<3000 {
            let row = try walk.row(at: ObjectKey(Int64(key)))
            if [5, 6, 1000, 2999].contains(key) {
                #expect(row == nil, "key \(key)")
            } else {
                #expect(try row?.int(at: 0) == Int64(key) * 3, "key \(key)")
            }
        }
        #expect(try walk.row(at: ObjectKey(3000)) == nil)

        // Forward only: a key before the cursor's position is not found again.
        let forward = try read.pinnedRowCursor(table, from: nil)
        #expect(try forward.row(at: ObjectKey(100)) != nil)
        #expect(try forward.row(at: ObjectKey(99)) == nil)
        let fromDeleted = try read.pinnedRowCursor(table, from: ObjectKey(5))
        #expect(try fromDeleted.row(at: ObjectKey(5)) == nil)  // deleted
    }

    @Test func anInlineRowLeavesOverflowValuesToItsRowView() throws {
        let store = try Self.store("inline-row")
        let write = try store.beginWrite()
        let table = try write.createTable("rows")
        let long = try write.insert(table.id, values: [.int(2), .string(Self.long), .bool(true)])
        _ = try write.commit()
        let read = try store.beginRead()
        defer { read.end() }
        try read.withRow(table, key: long) { row in
            let inline = try #require(row.pinned?.inline)
            #expect(try inline.int(at: 0) == 2)
            #expect(try inline.value(at: 2) == .bool(true))
            #expect(try inline.value(at: 1) == nil)  // in overflow pages
            #expect(try inline.values() == nil)
            #expect(try inline.hasOverflowValues())
            #expect(try row.value(at: 1) == .string(Self.long))
        }
    }

    /// The incarnation is read in place for one varint byte and decoded beyond; the literals
    /// the inlinable readers use are the codec's.
    @Test func anInlineRowReadsItsIncarnationOfEveryLength() throws {
        // Format, [incarnation varint,] column count 1, offset 0x00NN of the value, int 5.
        let rows: [([UInt8], Incarnation)] = [
            ([0x01, 0x01, 0x04, 0x00, 0x03, 0x0A], .keyIsIdentity),
            ([0x03, 0x05, 0x01, 0x05, 0x00, 0x03, 0x0A], Incarnation(5)),
            ([0x03, 0x7F, 0x01, 0x05, 0x00, 0x03, 0x0A], Incarnation(127)),
            ([0x03, 0xAC, 0x02, 0x01, 0x06, 0x00, 0x03, 0x0A], Incarnation(300)),
        ]
        for (bytes, incarnation) in rows {
            try bytes.withUnsafeBytes { raw in
                let row = try InlineRow.detached(raw)
                #expect(row.incarnation == incarnation, "\(bytes)")
                #expect(try row.int(at: 0) == 5, "\(bytes)")
            }
        }
        #expect(InlineRow._identifiedFormat == RowCodec.identifiedFormat)
        #expect(InlineRow._intTag == RowCodec.Tag.int.rawValue)
        #expect(InlineRow._nullTag == RowCodec.Tag.null.rawValue)
        #expect(InlineRow._stringTag == RowCodec.Tag.string.rawValue)
        #expect(InlineRow._binaryTag == RowCodec.Tag.binary.rawValue)
    }

    /// The readers' fast path answers nil wherever the throwing readers would answer nil or
    /// throw: its caller then reads the column the general way, which reports the damage.
    @Test func theFastReadersAnswerNilWhereTheGeneralOnesWouldNotReadAValue() throws {
        // Format 0x01, one column at offset 4: int 5, a string "ab", then damaged values.
        let int5: [UInt8] = [0x01, 0x01, 0x04, 0x00, 0x03, 0x0A]
        let stringAB: [UInt8] = [0x01, 0x01, 0x04, 0x00, 0x05, 0x02, 0x61, 0x62]
        let truncatedInt: [UInt8] = [0x01, 0x01, 0x04, 0x00, 0x03, 0x80]
        let longString: [UInt8] = [0x01, 0x01, 0x04, 0x00, 0x05, 0x10, 0x61]
        let offsetBeyond: [UInt8] = [0x01, 0x01, 0x09, 0x00, 0x03]
        try int5.withUnsafeBytes { raw in
            let row = try InlineRow.detached(raw)
            #expect(row.intIfWellFormed(at: 0) == 5)
            #expect(row.stringIfWellFormed(at: 0) == nil)  // another type
            #expect(row.intIfWellFormed(at: 1) == nil)  // a column the row lacks
            #expect(row.intIfWellFormed(at: -1) == nil)
            #expect(throws: StorageError.self) { _ = try row.int(at: -1) }
        }
        try stringAB.withUnsafeBytes { raw in
            let row = try InlineRow.detached(raw)
            #expect(row.stringIfWellFormed(at: 0) == "ab")
            #expect(row.intIfWellFormed(at: 0) == nil)
        }
        for bytes in [truncatedInt, offsetBeyond] {
            try bytes.withUnsafeBytes { raw in
                let row = try InlineRow.detached(raw)
                #expect(row.intIfWellFormed(at: 0) == nil, "\(bytes)")
                #expect(throws: StorageError.self) { _ = try row.int(at: 0) }
            }
        }
        try longString.withUnsafeBytes { raw in
            let row = try InlineRow.detached(raw)
            #expect(row.stringIfWellFormed(at: 0) == nil)
            #expect(throws: StorageError.self) { _ = try row.inlineString(at: 0) }
        }
    }

    @Test func aDetachedRowRejectsBytesThatAreNoRow() throws {
        for bytes: [UInt8] in [[], [0x01], [0x07, 0x00], [0x01, 0x05, 0x00], [0x03, 0x00, 0x00]] {
            bytes.withUnsafeBytes { raw in
                _ = #expect(throws: StorageError.self) { _ = try InlineRow.detached(raw) }
            }
        }
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
