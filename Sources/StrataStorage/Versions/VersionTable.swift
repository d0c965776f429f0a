import CStrataSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The shared version state of one database file: the newest published version, the records
/// of recent versions, and the reader slots that pin versions. It lives in the memory map of
/// `<file>.lock` (shared by every process that has the file open) or, for in-memory and
/// simulated stores, in anonymous memory of this process.
///
/// Layout (little-endian, every field naturally aligned; all shared words are accessed
/// through `CStrataSupport` atomics):
///
/// | offset | size      | meaning                                                        |
/// |-------:|----------:|----------------------------------------------------------------|
/// |      0 |         8 | magic "STRLOCK1"                                               |
/// |      8 |         4 | layout version                                                 |
/// |     12 |         4 | reader slot count S                                            |
/// |     16 |         8 | file identity of the database                                  |
/// |     24 |         8 | page size                                                      |
/// |     32 |         8 | newest published version                                       |
/// |     40 |         8 | newest version whose slot a sync was seen to make durable (0: none) |
/// |     48 |        16 | zero                                                           |
/// |     64 |   16 × 64 | version records, ring indexed by version mod 16 (sequence u64, then the seven words of `VersionRecord`; seqlock) |
/// |   1088 |    S × 32 | reader slots {pid u64, start time u64, version u64, pins u64 (live low 32, frozen high 32)} |
///
/// Pin protocol (Spec D, "a page released by commit R is reused only when R ≤ the oldest
/// pinned version"): a reader stores its pin, then re-reads the newest version; if it moved,
/// the pin may have come too late for a writer that was computing the oldest pin, so the
/// reader retries on the new newest version. Writers compute the oldest pin only after
/// publishing the version that released the pages, so a pin that passed its re-check is always
/// seen. The pin's store and the re-read are sequentially consistent (a store then a load of
/// another word: only a total order makes the writer's "publish, then read the slots" and the
/// reader's "store the pin, then read the newest version" see each other); see `repinSlot`,
/// `unpinSlot` and `record(of:)` for the weaker orderings used where nothing is re-checked.
///
/// Idle slots: a process may keep a slot it owns with zero pins (`unpinSlot`), to reuse it for
/// its next pin without a compare-and-swap and four stores. A slot with zero pins pins nothing:
/// `pinningSlots` skips it, so idle slots never hold back page reuse. They only occupy a slot;
/// each process keeps at most one per file, `claimSlot` reclaims those of dead processes before
/// it gives up, and the owner releases its own when it closes the file.
///
/// Slot ownership: a free slot has pid 0; a process claims one with compare-and-swap, fills
/// it, and frees it by clearing pins then pid. A slot of a dead process (pid gone or its start
/// time changed) is reclaimed by compare-and-swapping its pid to a reserved marker, so that
/// two reclaimers, or a reclaimer and a new owner, never interfere.
final class VersionTable: @unchecked Sendable {
    static let magic: [UInt8] = Array("STRLOCK1".utf8)
    static let layoutVersion: UInt32 = 2
    static let ringCapacity = 16
    static let recordByteCount = 64
    static let ringOffset = 64
    static let slotsOffset = ringOffset + ringCapacity * recordByteCount
    static let slotByteCount = 32
    static let defaultSlotCount = 1024
    static let reclaimingMarker: UInt64 = UInt64.max

    static func byteCount(slotCount: Int) -> Int { slotsOffset + slotCount * slotByteCount }

    let base: UnsafeMutableRawPointer
    let slotCount: Int
    let processID: UInt64
    let processStartTime: UInt64

    init(base: UnsafeMutableRawPointer, slotCount: Int) {
        self.base = base
        self.slotCount = slotCount
        let pid = getpid()
        processID = UInt64(pid)
        processStartTime = SystemCalls.processIdentity(pid: pid) ?? 0
    }

    // MARK: header

    /// Fills a zeroed region as a fresh table whose newest version is `record`.
    func initialise(fileIdentity: UInt64, pageSizeBytes: Int, record: VersionRecord) {
        memset(base, 0, Self.byteCount(slotCount: slotCount))
        for (index, byte) in Self.magic.enumerated() { base.storeBytes(of: byte, toByteOffset: index, as: UInt8.self) }
        storeUInt32(base, 8, Self.layoutVersion)
        storeUInt32(base, 12, UInt32(slotCount))
        storeUInt64(base, 16, fileIdentity)
        storeUInt64(base, 24, UInt64(pageSizeBytes))
        writeRecord(record)
        strata_atomic_store_u64(base + 32, record.version.rawValue)
    }

    /// Checks that an existing table belongs to this database and this layout.
    func validate(fileIdentity: UInt64, pageSizeBytes: Int) throws(StorageError) {
        let magicMatches = (0..<8).allSatisfy { base.load(fromByteOffset: $0, as: UInt8.self) == Self.magic[$0] }
        guard magicMatches else { throw StorageError.incompatibleLockFile(reason: "bad magic") }
        guard loadUInt32(base, 8) == Self.layoutVersion else {
            throw StorageError.incompatibleLockFile(reason: "layout version \(loadUInt32(base, 8))")
        }
        guard Int(loadUInt32(base, 12)) == slotCount else {
            throw StorageError.incompatibleLockFile(reason: "slot count \(loadUInt32(base, 12))")
        }
        guard loadUInt64(base, 16) == fileIdentity else {
            throw StorageError.incompatibleLockFile(reason: "lock file belongs to another database file")
        }
        guard loadUInt64(base, 24) == UInt64(pageSizeBytes) else {
            throw StorageError.incompatibleLockFile(reason: "page size \(loadUInt64(base, 24))")
        }
    }

    // MARK: durability of the slots

    /// The newest version whose commit slot a process of this table's life saw a sync make
    /// durable (0 when none did yet: a fresh table, or a lock file of a Strata that does not
    /// record it). A slot found in the file is not durable by being there: its writer may have
    /// failed at phase 2's sync (Linux then reports the pages clean, and no later sync writes
    /// them) or died before it, and the mapping shows what the disk may not hold (Spec D7).
    var confirmedSlotVersion: Version { Version(strata_atomic_load_u64(base + 40)) }

    /// Records that the slot naming `version` is durable. Only the writer calls this.
    func confirmSlot(_ version: Version) {
        strata_atomic_store_u64(base + 40, version.rawValue)
    }

    // MARK: versions

    var newestVersion: Version { Version(strata_atomic_load_u64(base + 32)) }

    /// The newest version, loaded with acquire only: enough to read its ring record (published
    /// before it), not for the pin protocol's re-check, which needs `newestVersion`.
    var newestVersionAcquiring: Version { Version(strata_atomic_load_u64_acquire(base + 32)) }

    /// Makes `record` the newest version (Spec W: publish). Only the writer calls this.
    func publish(_ record: VersionRecord) {
        invariant(record.version > newestVersion, "published versions grow")
        writeRecord(record)
        strata_atomic_store_u64(base + 32, record.version.rawValue)
    }

    func recordBase(_ version: Version) -> UnsafeMutableRawPointer {
        base + Self.ringOffset + Int(version.rawValue % UInt64(Self.ringCapacity)) * Self.recordByteCount
    }

    func writeRecord(_ record: VersionRecord) {
        let slot = recordBase(record.version)
        // Rounded down to even: a writer killed between its two stores left the sequence odd,
        // and counting on from there would end this write odd too, so that the record read as
        // "being written" for ever and no process could pin the newest version or begin a
        // write (Spec W8; found by `strata-fuzz run --mode process`).
        let sequence = strata_atomic_load_u64(slot) & ~1
        strata_atomic_store_u64(slot, sequence &+ 1)  // odd: being written
        let fields = record.fields
        for (index, value) in fields.enumerated() { strata_atomic_store_u64(slot + 8 + 8 * index, value) }
        strata_atomic_store_u64(slot, sequence &+ 2)
    }

    /// The record of `version` if the ring still holds it.
    ///
    /// Seqlock read: the sequence is loaded with acquire, the fields relaxed, then an acquire
    /// fence before the sequence is loaded again. If any field load saw a store of a writer
    /// that began after the first sequence load, the fence makes that writer's odd sequence
    /// store visible to the second load, so the two differ and the read is retried. (The
    /// writer's stores are sequentially consistent, hence releases.)
    func record(of version: Version) -> VersionRecord? {
        let slot = recordBase(version)
        for _ in 0..<1000 {
            let before = strata_atomic_load_u64_acquire(slot)
            if before & 1 == 1 { continue }
            let catalogWord = strata_atomic_load_u64_relaxed(slot + 16)
            let freeListWord = strata_atomic_load_u64_relaxed(slot + 24)
            let record = VersionRecord(
                version: Version(strata_atomic_load_u64_relaxed(slot + 8)),
                catalogRoot: UInt32(truncatingIfNeeded: catalogWord),
                freeListHead: UInt32(truncatingIfNeeded: freeListWord),
                pageCount: UInt32(truncatingIfNeeded: strata_atomic_load_u64_relaxed(slot + 32)),
                schemaVersion: strata_atomic_load_u64_relaxed(slot + 40),
                freeListEntryCount: strata_atomic_load_u64_relaxed(slot + 48),
                catalogRootExpectation: PageExpectation(
                    checksum: UInt32(truncatingIfNeeded: catalogWord >> 32),
                    version: strata_atomic_load_u64_relaxed(slot + 56)),
                freeListHeadChecksum: UInt32(truncatingIfNeeded: freeListWord >> 32))
            strata_atomic_fence_acquire()
            let after = strata_atomic_load_u64_relaxed(slot)
            guard before == after else { continue }
            return record.version == version ? record : nil
        }
        return nil
    }

    // MARK: reader slots

    private func slotBase(_ index: Int) -> UnsafeMutableRawPointer {
        base + Self.slotsOffset + index * Self.slotByteCount
    }

    /// Claims a free slot for `version` with the given pin counts. Does not re-check the
    /// newest version: `PinRegistry` does.
    /// When every slot is taken, the slots of dead processes (idle ones included) are reclaimed
    /// once before `tooManyReaders` is thrown.
    func claimSlot(version: Version, live: UInt32, frozen: UInt32) throws(StorageError) -> Int {
        for attempt in 0..<2 {
            if attempt == 1 && reclaimDeadSlots() == 0 { break }
            for index in 0..<slotCount {
                let slot = slotBase(index)
                guard strata_atomic_load_u64(slot) == 0 else { continue }
                guard strata_atomic_cas_u64(slot, 0, processID) != 0 else { continue }
                strata_atomic_store_u64(slot + 8, processStartTime)
                strata_atomic_store_u64(slot + 16, version.rawValue)
                strata_atomic_store_u64(slot + 24, Self.pins(live: live, frozen: frozen))
                return index
            }
        }
        throw StorageError.tooManyReaders(slotCount: slotCount)
    }

    /// Changes the pin counts of an owned slot that already pins its version (neither count
    /// old nor new is all zero). Release: the slot stays visible throughout, so nothing is
    /// re-checked, and a writer that sees the new counts also sees this process's earlier work.
    func updateSlot(_ index: Int, live: UInt32, frozen: UInt32) {
        invariant(strata_atomic_load_u64_relaxed(slotBase(index)) == processID, "a process only updates its own slots")
        invariant(live != 0 || frozen != 0, "an update keeps the slot pinning; unpinSlot empties it")
        strata_atomic_store_u64_release(slotBase(index) + 24, Self.pins(live: live, frozen: frozen))
    }

    /// Pins `version` in an owned idle slot (zero pins). The version is stored with release
    /// while the slot still has zero pins (so no writer takes it for a pin yet), then the
    /// counts sequentially consistent: the caller re-reads the newest version afterwards
    /// (Spec D), exactly as after `claimSlot`. A writer that sees the counts also sees the
    /// version, which was stored before them.
    func repinSlot(_ index: Int, version: Version, live: UInt32, frozen: UInt32) {
        let slot = slotBase(index)
        invariant(strata_atomic_load_u64_relaxed(slot) == processID, "a process only pins its own slots")
        invariant(strata_atomic_load_u64_relaxed(slot + 24) == 0, "only an idle slot changes its version")
        if strata_atomic_load_u64_relaxed(slot + 16) != version.rawValue {
            strata_atomic_store_u64_release(slot + 16, version.rawValue)
        }
        strata_atomic_store_u64(slot + 24, Self.pins(live: live, frozen: frozen))
    }

    /// Drops every pin of an owned slot but keeps the slot (idle). Release: a writer that sees
    /// zero pins also sees that this process finished reading the version; a writer that
    /// still sees the old counts merely keeps pages a little longer.
    func unpinSlot(_ index: Int) {
        let slot = slotBase(index)
        invariant(strata_atomic_load_u64_relaxed(slot) == processID, "a process only unpins its own slots")
        strata_atomic_store_u64_release(slot + 24, 0)
    }

    func releaseSlot(_ index: Int) {
        let slot = slotBase(index)
        invariant(strata_atomic_load_u64(slot) == processID, "a process only releases its own slots")
        strata_atomic_store_u64(slot + 24, 0)
        strata_atomic_store_u64(slot + 16, 0)
        strata_atomic_store_u64(slot + 8, 0)
        strata_atomic_store_u64(slot, 0)
    }

    private static func pins(live: UInt32, frozen: UInt32) -> UInt64 {
        UInt64(live) | (UInt64(frozen) << 32)
    }

    /// A reader slot as seen by another process.
    struct SlotState: Sendable, Equatable {
        let index: Int
        let pid: UInt64
        let startTime: UInt64
        let version: Version
        let livePins: UInt32
        let frozenPins: UInt32
    }

    /// Every slot currently pinning a version.
    func pinningSlots() -> [SlotState] {
        var result: [SlotState] = []
        for index in 0..<slotCount {
            let slot = slotBase(index)
            let pid = strata_atomic_load_u64(slot)
            guard pid != 0 && pid != Self.reclaimingMarker else { continue }
            let pins = strata_atomic_load_u64(slot + 24)
            guard pins != 0 else { continue }
            result.append(
                SlotState(
                    index: index, pid: pid, startTime: strata_atomic_load_u64(slot + 8),
                    version: Version(strata_atomic_load_u64(slot + 16)),
                    livePins: UInt32(truncatingIfNeeded: pins),
                    frozenPins: UInt32(truncatingIfNeeded: pins >> 32)))
        }
        return result
    }

    /// The oldest version any live slot pins, or nil when nothing is pinned.
    func oldestPinnedVersion() -> Version? {
        pinningSlots().map(\.version).min()
    }

    /// Frees the slots of processes that no longer exist. Returns how many were reclaimed.
    /// Idle slots (owned, zero pins) count too: they pin nothing but occupy a slot.
    func reclaimDeadSlots() -> Int {
        var reclaimed = 0
        for index in 0..<slotCount {
            let slot = slotBase(index)
            let pid = strata_atomic_load_u64(slot)
            guard pid != 0 && pid != Self.reclaimingMarker && pid != processID else { continue }
            guard pid <= UInt64(Int32.max) else { continue }
            // A start time of 0 is a claim in progress (the pid is stored first) or an owner
            // whose start time is unknown: only a pid that no longer exists counts as dead.
            let startTime = strata_atomic_load_u64(slot + 8)
            let alive =
                startTime == 0
                ? !(kill(Int32(pid), 0) != 0 && errno == ESRCH)
                : SystemCalls.processIsAlive(pid: Int32(pid), startTime: startTime)
            if alive { continue }
            guard strata_atomic_cas_u64(slot, pid, Self.reclaimingMarker) != 0 else { continue }
            strata_atomic_store_u64(slot + 24, 0)
            strata_atomic_store_u64(slot + 16, 0)
            strata_atomic_store_u64(slot + 8, 0)
            strata_atomic_store_u64(slot, 0)
            reclaimed += 1
        }
        return reclaimed
    }
}

/// What a reader needs to open a version: the contents of its commit slot.
///
/// Stored as seven words: the version; the catalog root (low 32 bits) and its checksum (high);
/// the free-list head (low) and its checksum (high); the page count; the schema version; the
/// free-list entry count; the catalog root's version (Spec D19).
struct VersionRecord: Sendable, Equatable {
    static let fieldCount = 7

    var version: Version
    var catalogRoot: UInt32
    var freeListHead: UInt32
    var pageCount: UInt32
    var schemaVersion: UInt64
    var freeListEntryCount: UInt64
    /// What the version expects of its catalog root and free-list head (Spec D19).
    var catalogRootExpectation: PageExpectation
    var freeListHeadChecksum: UInt32

    var catalogRootRef: PageRef { PageRef(page: catalogRoot, expectation: catalogRootExpectation) }
    var freeListHeadRef: PageRef {
        PageRef(
            page: freeListHead,
            expectation: freeListHead == 0
                ? .none
                : PageExpectation(checksum: freeListHeadChecksum, version: version.rawValue))
    }

    init(
        version: Version, catalogRoot: UInt32, freeListHead: UInt32, pageCount: UInt32,
        schemaVersion: UInt64, freeListEntryCount: UInt64,
        catalogRootExpectation: PageExpectation = .none, freeListHeadChecksum: UInt32 = 0
    ) {
        self.catalogRootExpectation = catalogRootExpectation
        self.freeListHeadChecksum = freeListHeadChecksum
        self.version = version
        self.catalogRoot = catalogRoot
        self.freeListHead = freeListHead
        self.pageCount = pageCount
        self.schemaVersion = schemaVersion
        self.freeListEntryCount = freeListEntryCount
    }

    init(slot: CommitSlot) {
        self.init(
            version: slot.version, catalogRoot: slot.catalogRoot.rawValue, freeListHead: slot.freeListHead.rawValue,
            pageCount: slot.pageCount, schemaVersion: slot.schemaVersion, freeListEntryCount: slot.freeListEntryCount,
            catalogRootExpectation: slot.catalogRootExpectation, freeListHeadChecksum: slot.freeListHeadChecksum)
    }

    init(fields: [UInt64]) {
        version = Version(fields[0])
        catalogRoot = UInt32(truncatingIfNeeded: fields[1])
        freeListHead = UInt32(truncatingIfNeeded: fields[2])
        pageCount = UInt32(truncatingIfNeeded: fields[3])
        schemaVersion = fields[4]
        freeListEntryCount = fields[5]
        catalogRootExpectation = PageExpectation(
            checksum: UInt32(truncatingIfNeeded: fields[1] >> 32), version: fields[6])
        freeListHeadChecksum = UInt32(truncatingIfNeeded: fields[2] >> 32)
    }

    var fields: [UInt64] {
        [
            version.rawValue, UInt64(catalogRoot) | UInt64(catalogRootExpectation.checksum) << 32,
            UInt64(freeListHead) | UInt64(freeListHeadChecksum) << 32, UInt64(pageCount), schemaVersion,
            freeListEntryCount,
            catalogRootExpectation.version,
        ]
    }
}

extension CommitSlot {
    /// The slot naming `record`'s version in the file `fileIdentity` (what a commit writes).
    init(record: VersionRecord, fileIdentity: UInt64) {
        self.init(
            version: record.version, catalogRoot: PageNumber(record.catalogRoot),
            freeListHead: PageNumber(record.freeListHead), pageCount: record.pageCount,
            schemaVersion: record.schemaVersion, fileIdentity: fileIdentity,
            freeListEntryCount: record.freeListEntryCount,
            catalogRootExpectation: record.catalogRootExpectation,
            freeListHeadChecksum: record.freeListHeadChecksum)
    }
}
