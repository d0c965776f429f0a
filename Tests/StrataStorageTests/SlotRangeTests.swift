import Foundation
import Testing

@testable import StrataStorage

#if canImport(Glibc)
    import Glibc
    import StrataTestSupport
#endif

/// Commit slots whose fields are out of range (Spec D16), and a fallback to the older slot
/// reported (Spec D15). Slots are forged with a good checksum, as a buggy writer or an
/// attacker would write them, so only the range checks stand between them and the engine.
@Suite struct SlotRangeTests {
    /// The byte offsets of a slot's fields (`CommitSlot`'s layout table).
    enum Field: Int, CaseIterable, CustomStringConvertible {
        case version = 8
        case catalogRoot = 16
        case freeListHead = 24
        case pageCount = 32
        case schemaVersion = 40
        case
            fileIdentity = 48
        case freeListEntryCount = 56
        var description: String { "field at \(rawValue)" }
    }

    /// A file with three commits (slots at versions 3 and 4 after the last two), closed.
    static func makeFile(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.file("slots.strata")
        let store = try Store.open(.file(path))
        defer { store.close() }
        var tableID: TableID?
        for round in 0..<3 {
            let write = try store.beginWrite()
            let table =
                try tableID.flatMap { write.table(id: $0) } ?? write.createTable("items", primaryKey: .int(column: 0))
            tableID = table.id
            for id in 0..<40 {
                try write.insert(
                    table.id, values: [.int(Int64(round * 100 + id)), .string(String(repeating: "x", count: 90))])
            }
            try write.commit()
        }
        return path
    }

    static func readSlot(_ path: String, _ index: Int) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return Array(bytes[FileHeader.slotOffsets[index]..<FileHeader.slotOffsets[index] + FileHeader.sectorByteCount])
    }

    static func field(_ sector: [UInt8], _ field: Field) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(sector[field.rawValue + $1]) << (8 * UInt64($1)) }
    }

    /// The slot holding the higher version.
    static func newestSlot(_ path: String) throws -> Int {
        try field(readSlot(path, 0), .version) > field(readSlot(path, 1), .version) ? 0 : 1
    }

    /// Sets `field` of slot `index` to `value` and gives the slot a good checksum again.
    static func forge(_ path: String, slot index: Int, _ field: Field, _ value: UInt64) throws {
        var sector = try readSlot(path, index)
        for byte in 0..<8 { sector[field.rawValue + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(byte))) }
        // A forger computes the version field's own checksum as well as the slot's.
        sector.withUnsafeMutableBytes { CommitSlot.seal($0.baseAddress!) }
        try writeSlot(path, index, sector)
    }

    /// Writes `sector` over slot `index`, checksums as they are.
    static func writeSlot(_ path: String, _ index: Int, _ sector: [UInt8]) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(FileHeader.slotOffsets[index]))
        try handle.write(contentsOf: sector)
    }

    @Test("Spec D16: a slot naming version 2^64-1 is rejected as damaged; the file falls back and writes go on")
    func forgedMaximumVersionFallsBack() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let newest = try Self.newestSlot(path)
        let older = Self.field(try Self.readSlot(path, 1 - newest), .version)
        try Self.forge(path, slot: newest, .version, UInt64.max)
        let store = try Store.open(.file(path))
        defer { store.close() }
        #expect(store.newestVersion == Version(older))
        let fallback = try #require(try store.slotFallback())
        #expect(fallback.damagedSlot == newest)
        #expect(fallback.claimedVersion == UInt64.max)
        #expect(fallback.recoveredVersion == Version(older))
        #expect(fallback.reason.contains("version 18446744073709551615 above the largest"), "\(fallback)")
        #expect(try store.statistics().slotFallback == fallback)
        // Pages are intact: verify's pages are clean, and the report carries the fallback.
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems)")
        #expect(report.slotFallback == fallback)
        // The next commit overwrites the damaged slot: the fallback is gone.
        let write = try store.beginWrite()
        #expect(try write.commit() == Version(older + 1))
        #expect(try store.slotFallback() == nil)
        #expect(try store.verify().slotFallback == nil)
    }

    @Test("Spec D16: both slots naming version 2^64-1 fail the open with a typed error, read-only or not")
    func forgedMaximumVersionInBothSlotsIsATypedError() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeFile(directory)
        try Self.forge(path, slot: 0, .version, UInt64.max)
        try Self.forge(path, slot: 1, .version, UInt64.max)
        for readOnly in [false, true] {
            #expect {
                _ = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: readOnly))
            } throws: { error in
                guard case StorageError.noValidCommitSlot(let reason) = error else { return false }
                return reason.contains("impossible values: version 18446744073709551615")
            }
        }
    }

    @Test("Spec D16: a slot at Version.maximum opens, and a write refuses to begin rather than overflow")
    func versionAtTheLimitRefusesTheNextCommit() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeFile(directory)
        try Self.forge(path, slot: try Self.newestSlot(path), .version, Version.maximum.rawValue)
        let store = try Store.open(.file(path))
        defer { store.close() }
        #expect(store.newestVersion == .maximum)
        #expect(try store.slotFallback() == nil)
        #expect {
            _ = try store.beginWrite()
        } throws: { error in
            guard case StorageError.corruptRecord(let reason) = error else { return false }
            return reason.contains("no commit can follow it")
        }
    }

    @Test("Spec D15: a damaged newest slot is reported: damaged slot, version recovered, version lost")
    func damagedNewestSlotIsReported() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let newest = try Self.newestSlot(path)
        let lost = Self.field(try Self.readSlot(path, newest), .version)
        let older = Self.field(try Self.readSlot(path, 1 - newest), .version)
        // A bit flipped in the slot's zero padding: the checksum fails, the fields read fine.
        var sector = try Self.readSlot(path, newest)
        sector[200] ^= 0x10
        try Self.writeSlot(path, newest, sector)
        let store = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true))
        defer { store.close() }
        let fallback = try #require(try store.verify().slotFallback)
        #expect(
            fallback
                == SlotFallback(
                    damagedSlot: newest, reason: "checksum mismatch", claimedVersion: lost,
                    recoveredVersion: Version(older)))
        #expect(
            fallback.description.contains(
                "commit slot \(newest) is damaged (checksum mismatch) and names version \(lost)"))
        #expect(fallback.description.contains("fell back to version \(older) in slot \(1 - newest)"))
    }

    @Test(
        "Spec D15: damage to the newest slot's version field that makes it read older than the other slot is still reported"
    )
    func flippedVersionFieldOfTheNewestSlotIsReported() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let newest = try Self.newestSlot(path)
        let older = Self.field(try Self.readSlot(path, 1 - newest), .version)
        var sector = try Self.readSlot(path, newest)
        // Damage that leaves the field naming a version below the other slot's, neither
        // checksum mended: only the field's own checksum can tell it held the newer version.
        let misread = older - 1
        #expect(misread > 0)
        for byte in 0..<8 {
            sector[Field.version.rawValue + byte] = UInt8(truncatingIfNeeded: misread >> (8 * UInt64(byte)))
        }
        try Self.writeSlot(path, newest, sector)
        let store = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true))
        defer { store.close() }
        let fallback = try #require(try store.verify().slotFallback)
        #expect(fallback.damagedSlot == newest && fallback.claimedVersion == 0, "\(fallback)")
        #expect(fallback.recoveredVersion == Version(older))
        #expect(fallback.description.contains("its version cannot be read"), "\(fallback)")
    }

    /// Zeroes slot `index` whole, as a lost sector or a zeroing fault would.
    static func zero(_ path: String, slot index: Int) throws {
        try writeSlot(path, index, [UInt8](repeating: 0, count: FileHeader.sectorByteCount))
    }

    @Test("Spec D15: a zeroed slot in a file that committed since its creation is reported, whichever slot it was")
    func zeroedSlotAfterCommitsIsReported() throws {
        for zeroNewest in [true, false] {
            let directory = TemporaryDirectory()
            let path = try Self.makeFile(directory)
            let newest = try Self.newestSlot(path)
            let zeroed = zeroNewest ? newest : 1 - newest
            let kept = Self.field(try Self.readSlot(path, 1 - zeroed), .version)
            try Self.zero(path, slot: zeroed)
            let store = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true))
            defer { store.close() }
            // An all-zero slot carries no version: the file cannot tell whether it held the newer
            // one, so the open at the other slot is reported either way.
            let fallback = try #require(try store.verify().slotFallback, "zeroed slot \(zeroed)")
            #expect(fallback.damagedSlot == zeroed && fallback.claimedVersion == 0)
            #expect(fallback.recoveredVersion == Version(kept))
            #expect(fallback.description.contains("its version cannot be read"), "\(fallback)")
        }
    }

    @Test("Spec D15: after commits without a slot write (durable: false), a damaged older slot is no fallback")
    func damagedOlderSlotAfterNonDurableCommitsIsNoFallback() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeFile(directory)
        do {
            // Versions the slots skip: two commits that write no slot, then a durable one.
            let store = try Store.open(.file(path))
            defer { store.close() }
            for round in 0..<3 {
                let write = try store.beginWrite()
                let table = try #require(write.table(named: "items"))
                try write.insert(table.id, values: [.int(Int64(5_000 + round)), .string("z")])
                _ = try write.commit(durable: round == 2)
            }
        }
        let newest = try Self.newestSlot(path)
        let newestVersion = Self.field(try Self.readSlot(path, newest), .version)
        let olderVersion = Self.field(try Self.readSlot(path, 1 - newest), .version)
        #expect(newestVersion > olderVersion + 1, "the slots must skip versions for this test")
        var sector = try Self.readSlot(path, 1 - newest)
        sector[200] ^= 0x10
        try Self.writeSlot(path, 1 - newest, sector)
        let store = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true))
        defer { store.close() }
        #expect(try store.verify().slotFallback == nil)
    }

    @Test("Spec D15: a new file's empty second slot is no fallback")
    func emptySlotOfANewFileIsNoFallback() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("new.strata")
        do {
            let store = try Store.open(.file(path))
            store.close()
        }
        #expect(Self.field(try Self.readSlot(path, 1), .version) == 0)
        let store = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true))
        defer { store.close() }
        #expect(try store.verify().slotFallback == nil)
        #expect(try store.slotFallback() == nil)
    }

    @Test("Spec D15: an intact pair of slots reports no fallback, nor does a damaged older slot")
    func noFallbackWhenTheNewestSlotIsSound() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeFile(directory)
        do {
            let store = try Store.open(.file(path))
            defer { store.close() }
            #expect(try store.slotFallback() == nil)
            #expect(try store.verify().slotFallback == nil)
        }
        let older = 1 - (try Self.newestSlot(path))
        try Self.forge(path, slot: older, .pageCount, 0)
        let store = try Store.open(.file(path))
        defer { store.close() }
        #expect(try store.slotFallback() == nil)
    }

    @Test(
        "Spec D4: a sound newer slot past the end of a stale map is read again once the file has grown, not called truncated"
    )
    func slotsReadAfterTheFileGrewAreNotTruncation() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeFile(directory)
        // This process's view of the file: its size and map before another writer's commit.
        let stale = try FileStore(path: path, readOnly: true, reservationBytes: 1 << 30, hooks: .none)
        let header = try FileHeader.decode(stale.base, fileByteCount: stale.mappedByteCount, path: path)
        let sizeBefore = stale.mappedByteCount
        let writer = try Store.open(.file(path))
        defer { writer.close() }
        let write = try writer.beginWrite()
        let table = try #require(write.table(named: "items"))
        for id in 0..<2000 {
            try write.insert(table.id, values: [.int(Int64(10_000 + id)), .string(String(repeating: "y", count: 200))])
        }
        let committed = try write.commit()
        #expect(try stale.fileByteCount() > sizeBefore)
        #expect(throws: StorageError.self) {
            _ = try SlotChoice.choose(base: stale.base, header: header, fileByteCount: sizeBefore, checkChecksum: true)
        }
        let choice = try SlotChoice.choose(store: stale, header: header, checkChecksum: true)
        #expect(choice.newest.version == committed)
        #expect(stale.mappedByteCount > sizeBefore)
    }

    /// Every field of the newest slot (or of both) set to each extreme value, with a good
    /// checksum: the open, `verify`, `statistics`, a read of every row and a commit either
    /// work or throw a `StorageError`; none traps (a trap ends the test process).
    @Test("Spec D16: every slot field at every extreme value is rejected or handled, never a trap")
    func everySlotFieldAtExtremeValues() throws {
        let directory = TemporaryDirectory()
        let pristine = try Self.makeFile(directory)
        let original = try Data(contentsOf: URL(fileURLWithPath: pristine))
        let newest = try Self.newestSlot(pristine)
        let pageCount = Self.field(try Self.readSlot(pristine, newest), .pageCount)
        let values: [UInt64] = [
            0, 1, 2, pageCount - 1, pageCount, pageCount + 1, UInt64(UInt32.max), UInt64(UInt32.max) + 1,
            UInt64(Int64.max) - 1, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max - 1, UInt64.max,
        ]
        var outcomes: [String: Int] = [:]
        var caseNumber = 0
        for field in Field.allCases {
            for value in values {
                for both in [false, true] {
                    caseNumber += 1
                    let path = directory.file("case-\(caseNumber).strata")
                    try original.write(to: URL(fileURLWithPath: path))
                    for slot in both ? [0, 1] : [newest] { try Self.forge(path, slot: slot, field, value) }
                    let outcome = Self.exercise(path)
                    outcomes[outcome, default: 0] += 1
                    // Rejected fields never reach the engine: open falls back or fails.
                    _ = try? Store.deleteFiles(path: path)
                }
            }
        }
        #expect(caseNumber == Field.allCases.count * values.count * 2)
        // Both kinds occur: forged slots rejected at open, and harmless values (schema
        // version, a lower version) that open.
        #expect(outcomes.keys.contains { $0.hasPrefix("open failed") }, "\(outcomes)")
        #expect(outcomes.keys.contains { $0.hasPrefix("opened") }, "\(outcomes)")
    }

    /// Opens `path` and uses it every way; returns a short outcome. Errors are fine; traps end
    /// the process and so fail the suite.
    static func exercise(_ path: String) -> String {
        let store: Store
        do {
            store = try Store.open(.file(path), options: StoreOptions(create: false))
        } catch {
            return "open failed: \(error)".prefix(40).description
        }
        defer { store.close() }
        _ = try? store.statistics()
        _ = try? store.verify()
        _ = try? store.slotFallback()
        if let read = try? store.beginRead() {
            for table in read.tables() {
                try? read.forEachRow(table) { _, row in
                    _ = try row.values()
                    return true
                }
            }
            read.end()
        }
        if let write = try? store.beginWrite() {
            if let table = write.table(named: "items") {
                _ = try? write.insert(table.id, values: [.int(9999), .string("after")])
            }
            _ = try? write.commit()
        }
        return "opened"
    }
}
