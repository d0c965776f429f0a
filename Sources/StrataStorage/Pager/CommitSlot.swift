/// A commit slot: the root of one committed version (Docs/architecture.md §2). Two live in page 0, at
/// sectors 1 and 2. A commit writes the *inactive* slot (the one not holding the newest durable
/// version), so a torn slot write can only lose the commit in flight, never the previous one.
///
/// | offset | size | meaning                                                      |
/// |-------:|-----:|--------------------------------------------------------------|
/// |      0 |    8 | magic "STRSLOT1"                                             |
/// |      8 |    8 | version                                                      |
/// |     16 |    8 | catalog root page (0: no tables)                             |
/// |     24 |    8 | free-list first page (0: empty free list)                    |
/// |     32 |    8 | logical page count (pages [0, count) are reachable or free)  |
/// |     40 |    8 | schema version                                               |
/// |     48 |    8 | file identity (must equal the header's)                      |
/// |     56 |    8 | free-list entry count                                        |
/// |     64 |    8 | catalog root's version (Spec D19; 0 with no catalog root)    |
/// |     72 |    4 | catalog root's checksum (0 with no catalog root)             |
/// |     76 |    4 | free-list head's checksum (its version is the slot's)        |
/// |     80 |  420 | zero                                                         |
/// |    500 |    4 | CRC32C of the version field, bytes [8, 16) (Spec D15)        |
/// |    504 |    4 | zero                                                         |
/// |    508 |    4 | CRC32C of bytes [0, 508)                                     |
public struct CommitSlot: Equatable, Sendable {
    static let magic: [UInt8] = Array("STRSLOT1".utf8)
    /// Where the version field's own checksum lives: far from the field, so one damaged run
    /// of bytes rarely reaches both.
    static let versionGuardOffset = 500

    /// The checksum of the version field alone, which lets a slot that fails its whole
    /// checksum still say which version it held (Spec D15).
    static func versionGuard(_ sector: UnsafeRawPointer) -> UInt32 {
        CRC32C.checksum(sector + 8, count: 8)
    }

    /// The version field of a slot, whatever its other checks say, if the field is intact by its
    /// own checksum; nil when the damage reached the field (or its checksum), or the slot was
    /// written before the field had one.
    static func readableVersion(_ sector: UnsafeRawPointer) -> UInt64? {
        guard loadUInt32(sector, versionGuardOffset) == versionGuard(sector) else { return nil }
        return loadUInt64(sector, 8)
    }

    /// The version this slot commits (Spec D4: the valid slot with the higher one is used).
    public var version: Version
    /// The root of the catalog tree of table descriptors; `.header` when there are no tables.
    public var catalogRoot: PageNumber
    /// The first page of the free-list chain; `.header` when nothing is free.
    public var freeListHead: PageNumber
    /// The logical page count: pages below it are reachable or free at this version.
    public var pageCount: UInt32
    /// The schema version the Realm API stored with this commit.
    public var schemaVersion: UInt64
    /// The file's random identity, which must equal the header's (a slot of another file is
    /// damage).
    public var fileIdentity: UInt64
    /// How many runs the free list holds (range-checked on open, Spec D16).
    public var freeListEntryCount: UInt64
    /// What the slot expects of the catalog root (Spec D19).
    var catalogRootExpectation = PageExpectation.none
    /// The free-list head's checksum; every commit writes the free list, so the head's
    /// version is the slot's version (Spec D19).
    var freeListHeadChecksum: UInt32 = 0

    func encode(into sector: UnsafeMutableRawPointer) {
        for index in 0..<FileHeader.sectorByteCount { sector.storeBytes(of: 0, toByteOffset: index, as: UInt8.self) }
        for (index, byte) in Self.magic.enumerated() {
            sector.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
        }
        storeUInt64(sector, 8, version.rawValue)
        storeUInt64(sector, 16, UInt64(catalogRoot.rawValue))
        storeUInt64(sector, 24, UInt64(freeListHead.rawValue))
        storeUInt64(sector, 32, UInt64(pageCount))
        storeUInt64(sector, 40, schemaVersion)
        storeUInt64(sector, 48, fileIdentity)
        storeUInt64(sector, 56, freeListEntryCount)
        storeUInt64(sector, 64, catalogRootExpectation.version)
        storeUInt32(sector, 72, catalogRootExpectation.checksum)
        storeUInt32(sector, 76, freeListHeadChecksum)
        Self.seal(sector)
    }

    /// Stores the version field's checksum and the slot's over the fields as they stand.
    static func seal(_ sector: UnsafeMutableRawPointer) {
        storeUInt32(sector, versionGuardOffset, versionGuard(sector))
        let checksum = CRC32C.checksum(UnsafeRawPointer(sector), count: FileHeader.checksumOffset)
        storeUInt32(sector, FileHeader.checksumOffset, checksum)
    }

    func encode() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: FileHeader.sectorByteCount)
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { encode(into: base) }
        }
        return bytes
    }

    /// Why a slot was rejected (recorded for error messages and `stat`).
    enum Rejection: Equatable, Sendable, CustomStringConvertible {
        case empty
        case badMagic
        case badChecksum
        case wrongFile
        case referencesBeyondFile(pageCount: UInt32, filePageCount: Int)
        case impossibleValues(String)

        var description: String {
            switch self {
            case .empty: return "empty"
            case .badMagic: return "bad magic"
            case .badChecksum: return "checksum mismatch"
            case .wrongFile: return "belongs to another file"
            case .referencesBeyondFile(let count, let filePages):
                return "needs \(count) pages, file has \(filePages)"
            case .impossibleValues(let detail): return "impossible values: \(detail)"
            }
        }
    }

    /// Decodes and validates the slot at `sector`: checksum good and every reference within the
    /// file (Docs/architecture.md §2 "Open picks the valid slot").
    static func decode(
        _ sector: UnsafeRawPointer, fileIdentity: UInt64, filePageCount: Int,
        checkChecksum: Bool
    ) -> Result<CommitSlot, RejectionError> {
        let allZero = (0..<FileHeader.sectorByteCount).allSatisfy {
            sector.load(fromByteOffset: $0, as: UInt8.self) == 0
        }
        if allZero { return .failure(RejectionError(rejection: .empty)) }
        let magicMatches = (0..<8).allSatisfy { sector.load(fromByteOffset: $0, as: UInt8.self) == magic[$0] }
        guard magicMatches else { return .failure(RejectionError(rejection: .badMagic)) }
        if checkChecksum {
            let stored = loadUInt32(sector, FileHeader.checksumOffset)
            guard stored == CRC32C.checksum(sector, count: FileHeader.checksumOffset) else {
                return .failure(RejectionError(rejection: .badChecksum))
            }
        }
        let slot = CommitSlot(
            version: Version(loadUInt64(sector, 8)),
            catalogRoot: PageNumber(UInt32(truncatingIfNeeded: loadUInt64(sector, 16))),
            freeListHead: PageNumber(UInt32(truncatingIfNeeded: loadUInt64(sector, 24))),
            pageCount: UInt32(truncatingIfNeeded: loadUInt64(sector, 32)),
            schemaVersion: loadUInt64(sector, 40),
            fileIdentity: loadUInt64(sector, 48),
            freeListEntryCount: loadUInt64(sector, 56),
            catalogRootExpectation: PageExpectation(checksum: loadUInt32(sector, 72), version: loadUInt64(sector, 64)),
            freeListHeadChecksum: loadUInt32(sector, 76))
        guard slot.fileIdentity == fileIdentity else { return .failure(RejectionError(rejection: .wrongFile)) }
        // Spec D16: every field is range-checked before anything uses it. A version is in
        // 1...Version.maximum; the logical page count fits 32 bits and covers the header page;
        // the catalog root and the free-list head lie within it and are never the header
        // page (0 means none); the free list has no more entries than there are pages (each
        // entry names at least one page).
        let rawPageCount = loadUInt64(sector, 32)
        let rawCatalogRoot = loadUInt64(sector, 16)
        let rawFreeListHead = loadUInt64(sector, 24)
        func impossible(_ detail: String) -> Result<CommitSlot, RejectionError> {
            .failure(RejectionError(rejection: .impossibleValues(detail)))
        }
        guard slot.version > .none else { return impossible("version 0") }
        guard slot.version <= .maximum else {
            return impossible("version \(slot.version.rawValue) above the largest, \(Version.maximum.rawValue)")
        }
        guard rawPageCount >= 1, rawPageCount <= UInt64(UInt32.max) else {
            return impossible("page count \(rawPageCount)")
        }
        guard rawCatalogRoot < rawPageCount else {
            return impossible("catalog root \(rawCatalogRoot) outside \(rawPageCount) pages")
        }
        guard rawFreeListHead < rawPageCount else {
            return impossible("free-list head \(rawFreeListHead) outside \(rawPageCount) pages")
        }
        guard slot.freeListEntryCount < rawPageCount else {
            return impossible("\(slot.freeListEntryCount) free-list entries in \(rawPageCount) pages")
        }
        guard Int(slot.pageCount) <= filePageCount else {
            return .failure(
                RejectionError(
                    rejection: .referencesBeyondFile(
                        pageCount: slot.pageCount,
                        filePageCount: filePageCount)))
        }
        return .success(slot)
    }

    struct RejectionError: Error, Equatable {
        let rejection: Rejection
    }
}

/// The result of reading both slots at open: the newest valid one, and what the other was.
struct SlotChoice: Sendable {
    let newest: CommitSlot
    let newestIndex: Int
    /// The other slot, if valid.
    let other: CommitSlot?
    /// Why the other slot was rejected, if it was.
    let otherRejection: CommitSlot.Rejection?
    /// True when the slot with the higher version was rejected and the older one chosen; that
    /// can only come from a torn or corrupt slot write.
    let recoveredFromOlderSlot: Bool

    /// What a fallback to the older slot gave up (Spec D15), nil when none happened.
    var fallback: SlotFallback? {
        guard recoveredFromOlderSlot, let otherRejection else { return nil }
        return SlotFallback(
            damagedSlot: inactiveIndex, reason: otherRejection.description,
            claimedVersion: claimedVersions[inactiveIndex], recoveredVersion: newest.version)
    }
    /// The version field of each slot where its own checksum vouches for it, else 0.
    let claimedVersions: [UInt64]

    /// Whether a rejected slot may have held a version newer than the chosen `slot` (Spec D15).
    /// Every slot write goes to the slot not holding the newest durable version, so the rejected
    /// slot held an older version or the newer one. Its version field tells which when the
    /// field's own checksum vouches for it (`readableVersion`, 0 when it does not): a bit flipped
    /// in the field could otherwise turn the newer version into an older one. A field that
    /// cannot be read is reported. An empty (all-zero) slot is sound only beside version 1:
    /// creation writes version 1 to slot 0, and the first slot write after it goes to slot 1.
    static func mayHaveHeldNewer(_ rejection: CommitSlot.Rejection, _ readableVersion: UInt64, than slot: CommitSlot)
        -> Bool
    {
        let version = slot.version.rawValue
        if rejection == .empty { return version > FileCreation.initialVersion.rawValue }
        return readableVersion == 0 || readableVersion > version
    }

    /// The slot a new commit must write: never the one holding the newest durable version.
    var inactiveIndex: Int { 1 - newestIndex }

    /// `choose` on `store`'s map, where another process may grow the file and commit between
    /// this one reading the file's size and reading the slots: a sound newer slot past the
    /// end of the map is truncation only if the file is still that short. When it has grown,
    /// the map is extended and the slots read again (Spec D4).
    static func choose(store: PageStore, header: FileHeader, checkChecksum: Bool) throws(StorageError) -> SlotChoice {
        var attempt = 0
        while true {
            do {
                return try choose(
                    base: store.base, header: header, fileByteCount: store.mappedByteCount,
                    checkChecksum: checkChecksum)
            } catch {
                guard case .truncated = error, attempt < 8 else { throw error }
                let fileBytes = try store.fileByteCount()
                guard fileBytes > store.mappedByteCount else { throw error }
                try store.extendMap(toByteCount: fileBytes)
                attempt += 1
            }
        }
    }

    /// Reads both slots of the header page at `base` and picks the valid one with the highest
    /// version.
    static func choose(
        base: UnsafeRawPointer, header: FileHeader, fileByteCount: Int,
        checkChecksum: Bool
    ) throws(StorageError) -> SlotChoice {
        let filePageCount = fileByteCount / header.pageSizeBytes
        var decoded: [Result<CommitSlot, CommitSlot.RejectionError>] = []
        for offset in FileHeader.slotOffsets {
            decoded.append(
                CommitSlot.decode(
                    base + offset, fileIdentity: header.fileIdentity,
                    filePageCount: filePageCount, checkChecksum: checkChecksum))
        }
        // A slot rejected for a bad checksum or magic might have held a higher version (a torn
        // write of the newer commit): detect that case for the probe from its raw version field.
        let rawVersions = FileHeader.slotOffsets.map { loadUInt64(base + $0, 8) }
        let readableVersions = FileHeader.slotOffsets.map { CommitSlot.readableVersion(base + $0) ?? 0 }
        // A slot with a good checksum is only written after the file size it needs was made
        // durable (phase 1 syncs with fsync when the file grew). So a newer sound slot that
        // points past the end means the file was cut short: report it, never fall back
        // silently to the older version.
        for (index, result) in decoded.enumerated() {
            guard case .failure(let rejected) = result,
                case .referencesBeyondFile(let pageCount, _) = rejected.rejection
            else { continue }
            let other = decoded[1 - index]
            let otherVersion: UInt64 = if case .success(let slot) = other { slot.version.rawValue } else { 0 }
            if rawVersions[index] > otherVersion {
                throw StorageError.truncated(
                    expectedBytes: Int(pageCount) * header.pageSizeBytes, foundBytes: fileByteCount)
            }
        }
        switch (decoded[0], decoded[1]) {
        case (.success(let a), .success(let b)):
            let newestIndex = a.version >= b.version ? 0 : 1
            return SlotChoice(
                newest: newestIndex == 0 ? a : b, newestIndex: newestIndex,
                other: newestIndex == 0 ? b : a, otherRejection: nil,
                recoveredFromOlderSlot: false, claimedVersions: readableVersions)
        case (.success(let a), .failure(let rejected)):
            return SlotChoice(
                newest: a, newestIndex: 0, other: nil, otherRejection: rejected.rejection,
                recoveredFromOlderSlot: mayHaveHeldNewer(rejected.rejection, readableVersions[1], than: a),
                claimedVersions: readableVersions)
        case (.failure(let rejected), .success(let b)):
            return SlotChoice(
                newest: b, newestIndex: 1, other: nil, otherRejection: rejected.rejection,
                recoveredFromOlderSlot: mayHaveHeldNewer(rejected.rejection, readableVersions[0], than: b),
                claimedVersions: readableVersions)
        case (.failure(let first), .failure(let second)):
            // Both slots otherwise sound but pointing past the end: the file was cut short.
            for rejection in [first.rejection, second.rejection] {
                if case .referencesBeyondFile(let pageCount, _) = rejection {
                    throw StorageError.truncated(
                        expectedBytes: Int(pageCount) * header.pageSizeBytes,
                        foundBytes: fileByteCount)
                }
            }
            throw StorageError.noValidCommitSlot(reason: "slot 0: \(first.rejection); slot 1: \(second.rejection)")
        }
    }
}

/// A fallback to the older commit slot (Spec D15): the slot with the higher version was
/// damaged, so the file opened at the older slot's version, and the commit the damaged slot
/// named is gone. A crash while that slot was being written loses only a commit that never
/// returned to its caller; damage to a slot already written loses an acknowledged one, and
/// the file alone cannot tell which.
public struct SlotFallback: Sendable, Equatable, CustomStringConvertible {
    /// The damaged slot (0 or 1).
    public let damagedSlot: Int
    /// Why it was rejected ("checksum mismatch", ...).
    public let reason: String
    /// The version its version field holds, 0 when the field's own checksum says the damage
    /// reached it.
    public let claimedVersion: UInt64
    /// The version the file opened at, from the other slot.
    public let recoveredVersion: Version

    public var description: String {
        let fellBack = "the file fell back to version \(recoveredVersion.rawValue) in slot \(1 - damagedSlot), "
        guard claimedVersion != 0 else {
            return
                "commit slot \(damagedSlot) is damaged (\(reason), though the file has committed since its creation) "
                + "and its version cannot be read; " + fellBack
                + "losing the commit after it if the damaged slot held it (acknowledged or not, the file cannot tell)"
        }
        return "commit slot \(damagedSlot) is damaged (\(reason)) and names version \(claimedVersion); " + fellBack
            + "losing every commit after it (acknowledged ones too, unless a crash tore the slot while it was written)"
    }
}
