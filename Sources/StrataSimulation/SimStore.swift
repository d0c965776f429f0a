import StrataStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A deterministic simulated disk: a durable image plus the writes made since the last sync
/// (Docs/architecture.md §5 "Storage seam"; TigerBeetle keeps truth and faults apart the same way).
/// Test-only: the engine reaches it through `ProcessLocalStore` and `StoreLocation.simulated`.
///
/// What the engine sees (the visible image, read through `base`) is what the OS page cache
/// would show: the durable image with every pending write applied. `crash(_:)` builds the next
/// durable image from a caller-chosen fate for each pending write (lost, applied, torn at
/// 512-byte sectors, or garbled), optionally drops an unsynced size change, and starts a new
/// boot: every engine handle of the previous boot fails with `.crashed` from then on.
///
/// Fault classes, all chosen by the caller so that the harness can drive
/// them from its choice stream:
/// - write EIO / ENOSPC and sync EIO: `EngineHooks.fault` answers for each `FaultSite`; a
///   failed sync follows Linux "fsyncgate" semantics (`syncFailureFates` says which pending
///   writes reached the disk; all are then considered clean, so a retried sync "succeeds");
/// - file-size change not durable: `.data` syncs never make a size change durable, only
///   `.full` syncs do; a crash keeps or drops the unsynced size (`CrashPlan.keepsUnsyncedSize`);
/// - bit flip or misdirected write on the durable image: `corruptDurableImage(_:)`;
/// - lost write of a page already durable (the device acknowledged it, then an older copy
///   comes back): `CrashPlan.revertedOffsets`, from the older copies the disk keeps of each
///   written region (`State.olderCopyOffsets`);
/// - misdirected write of a pending page: `WriteFate.misdirected(toOffset:)` (the page's own
///   address keeps its older copy, another page's address gets this page's image).
/// Reading these back must end in a detected error, never in wrong data (Spec D19).
///
/// Thread safety: all state is behind `state`; the visible image is written only by the
/// engine's single writer.
package final class SimStore: ProcessLocalStore, @unchecked Sendable {
    package static let sectorSizeBytes = 512

    /// A write made since the last sync, as the crash planner sees it.
    package struct PendingWrite: Sendable, Hashable {
        package let offset: Int
        package let byteCount: Int
        package let site: FaultSite
    }

    /// What happens to one pending write in a crash.
    package enum WriteFate: Sendable, Hashable {
        case lost
        case applied
        /// Sectors whose bit is set in `newSectorMask` hold the new data, the rest the old.
        case tornSectors(newSectorMask: UInt64)
        /// The first `byteCount` bytes hold the new data, the rest the old (byte-granular
        /// tearing, for devices without sector atomicity).
        case tornPrefix(byteCount: Int)
        /// Sectors set in `garbageSectorMask` hold pseudo-random garbage, the rest the new data.
        case garbled(garbageSectorMask: UInt64, seed: UInt64)
        /// The write landed at `toOffset` instead: its own address keeps the older copy (a lost
        /// write) and `toOffset` holds an image of another page.
        case misdirected(toOffset: Int)

        /// Whether any of the write's bytes reach its own offset.
        var writesItsOwnRegion: Bool {
            switch self {
            case .lost, .misdirected: return false
            case .applied, .tornSectors, .tornPrefix, .garbled: return true
            }
        }
    }

    /// How to build the next durable image.
    package struct CrashPlan: Sendable, Hashable {
        /// One fate per pending write, in `pendingWrites` order; missing entries are `.lost`.
        package var fates: [WriteFate]
        /// Whether a file-size change not yet made durable by a `.full` sync survives.
        package var keepsUnsyncedSize: Bool
        /// Regions (by the offset they were written at) whose durable content reverts to the
        /// copy they held before their latest write: a lost write the device had acknowledged.
        /// Applied after the fates; an offset without an older copy is left alone.
        package var revertedOffsets: [Int]

        package init(fates: [WriteFate], keepsUnsyncedSize: Bool = true, revertedOffsets: [Int] = []) {
            self.fates = fates
            self.keepsUnsyncedSize = keepsUnsyncedSize
            self.revertedOffsets = revertedOffsets
        }

        package static let allLost = CrashPlan(fates: [], keepsUnsyncedSize: false)
        package static func allApplied(count: Int) -> CrashPlan {
            CrashPlan(fates: Array(repeating: .applied, count: count), keepsUnsyncedSize: true)
        }
    }

    /// Damage done to the durable image after the fact (shown after the next crash / reboot).
    package enum DurableCorruption: Sendable, Hashable {
        case flipBit(byteOffset: Int, bit: Int)
        /// The bytes meant for `intendedOffset` landed at `actualOffset` instead.
        case misdirectedWrite(intendedOffset: Int, actualOffset: Int, byteCount: Int)
        /// A lost write: the region written at `offset` holds its older copy again (see
        /// `State.olderCopyOffsets`; nothing happens without one).
        case revertToOlderCopy(offset: Int)
        /// A misdirected write of an older page: the older copy of the region written at
        /// `sourceOffset` lands at `targetOffset`.
        case olderCopyMisdirected(sourceOffset: Int, targetOffset: Int)
    }

    /// Offsets with an older durable copy (`DurableCorruption.revertToOlderCopy`).
    package var olderCopyOffsets: [Int] { state.withLock { $0.olderCopies.keys.sorted() } }

    /// Everything needed to rebuild this disk: used to branch many crash images from one state.
    package struct State: Sendable {
        fileprivate var durable: [UInt8]
        fileprivate var durableSize: Int
        fileprivate var visibleSize: Int
        fileprivate var pending: [PendingRecord]
        fileprivate var olderCopies: [Int: [UInt8]]
        package var pendingWrites: [PendingWrite] { pending.map(\.info) }
        /// Offsets with an older durable copy that `CrashPlan.revertedOffsets` can bring back.
        package var olderCopyOffsets: [Int] { olderCopies.keys.sorted() }
        package var durableByteCount: Int { durableSize }
    }

    fileprivate struct PendingRecord: Sendable {
        let info: PendingWrite
        let bytes: [UInt8]
    }

    private struct Mutable {
        var durable: [UInt8] = []
        var durableSize = 0
        var visibleSize = 0
        var pending: [PendingRecord] = []
        /// For each written region, the durable bytes it held before its latest durable write.
        var olderCopies: [Int: [UInt8]] = [:]
        var hooks = EngineHooks.none
        var writeCount = 0
        var syncCount = 0
        var crashCount = 0
    }

    package let name: String
    private let image: AnonymousImage
    private let state = Lock(Mutable())
    /// The current boot; read on every read-path entry, so kept outside `state`.
    private let bootGeneration = Atomic<UInt64>(1)
    /// Decides which pending writes reached the disk when a sync fails (default: none did).
    package let syncFailureFates: (@Sendable ([PendingWrite]) -> [WriteFate])?

    package init(
        name: String = "sim", reservationBytes: Int = 1 << 30,
        syncFailureFates: (@Sendable ([PendingWrite]) -> [WriteFate])? = nil
    ) throws(StorageError) {
        self.name = name
        self.syncFailureFates = syncFailureFates
        image = try AnonymousImage(reservationBytes: reservationBytes)
    }

    /// A disk in `state` (the pending writes visible, as before the crash that `state` awaits).
    package convenience init(
        state: State, name: String = "sim", reservationBytes: Int = 1 << 30,
        syncFailureFates: (@Sendable ([PendingWrite]) -> [WriteFate])? = nil
    ) throws(StorageError) {
        try self.init(name: name, reservationBytes: reservationBytes, syncFailureFates: syncFailureFates)
        var visible = state.durable
        Self.resize(&visible, to: state.visibleSize)
        for record in state.pending {
            Self.copy(record.bytes, from: 0..<record.info.byteCount, into: &visible, at: record.info.offset)
        }
        try image.replace(with: visible)
        self.state.withLock { mutable in
            mutable.durable = state.durable
            mutable.durableSize = state.durableSize
            mutable.visibleSize = state.visibleSize
            mutable.pending = state.pending
            mutable.olderCopies = state.olderCopies
        }
    }

    /// The disk after `state` crashes per `plan`: what `init(state:)` then `crash(plan)` give,
    /// built with one copy of the image (crash campaigns build thousands of these).
    package convenience init(
        crashing state: State, plan: CrashPlan, name: String = "sim",
        reservationBytes: Int = 1 << 30
    ) throws(StorageError) {
        try self.init(name: name, reservationBytes: reservationBytes)
        var durable = state.durable
        var olderCopies = state.olderCopies
        Self.apply(state.pending, plan: plan, to: &durable, olderCopies: &olderCopies)
        let newSize = plan.keepsUnsyncedSize ? state.visibleSize : state.durableSize
        Self.resize(&durable, to: newSize)
        try image.replace(with: durable)
        self.state.withLock { mutable in
            mutable.durable = durable
            mutable.durableSize = newSize
            mutable.visibleSize = newSize
            mutable.olderCopies = olderCopies
            mutable.crashCount = 1
        }
        bootGeneration.add(1, ordering: .acquiringAndReleasing)
    }

    // MARK: inspection

    package func captureState() -> State {
        state.withLock { m in
            State(
                durable: m.durable, durableSize: m.durableSize, visibleSize: m.visibleSize, pending: m.pending,
                olderCopies: m.olderCopies)
        }
    }

    package var pendingWrites: [PendingWrite] { state.withLock { $0.pending.map(\.info) } }
    package var durableBytes: [UInt8] { state.withLock { Array($0.durable.prefix($0.durableSize)) } }
    package var visibleBytes: [UInt8] { image.copyBytes() }
    package var statistics: (writes: Int, syncs: Int, crashes: Int) {
        state.withLock { ($0.writeCount, $0.syncCount, $0.crashCount) }
    }

    // MARK: faults

    /// Installs the hooks of the engine booting on this disk (called by `Store.open`).
    package func boot(hooks: EngineHooks) -> UInt64 {
        state.withLock { m in m.hooks = hooks }
        return bootGeneration.load(ordering: .acquiring)
    }

    /// Ends the current boot: the durable image becomes the disk, built per `plan`.
    package func crash(_ plan: CrashPlan) throws(StorageError) {
        let visible = try state.withLock { m throws(StorageError) -> [UInt8] in
            Self.apply(m.pending, plan: plan, to: &m.durable, olderCopies: &m.olderCopies)
            let newSize = plan.keepsUnsyncedSize ? m.visibleSize : m.durableSize
            Self.resize(&m.durable, to: newSize)
            m.durableSize = newSize
            m.visibleSize = newSize
            m.pending = []
            m.crashCount += 1
            bootGeneration.add(1, ordering: .acquiringAndReleasing)
            return m.durable
        }
        try image.replace(with: visible)
    }

    /// A clean restart after everything was synced: the same as a crash that loses nothing
    /// because nothing is pending (pending writes, if any, are lost).
    package func reboot() throws(StorageError) {
        try crash(.allLost)
    }

    package func corruptDurableImage(_ corruption: DurableCorruption) {
        state.withLock { m in
            switch corruption {
            case .flipBit(let offset, let bit):
                guard offset >= 0 && offset < m.durableSize else { return }
                m.durable[offset] ^= UInt8(1) << UInt8(bit & 7)
            case .misdirectedWrite(let intended, let actual, let count):
                guard intended >= 0, actual >= 0, intended + count <= m.durableSize,
                    actual + count <= m.durableSize
                else { return }
                let moved = Array(m.durable[intended..<(intended + count)])
                m.durable.replaceSubrange(actual..<(actual + count), with: moved)
            case .revertToOlderCopy(let offset):
                guard let older = m.olderCopies[offset], offset + older.count <= m.durableSize else { return }
                m.durable.replaceSubrange(offset..<(offset + older.count), with: older)
            case .olderCopyMisdirected(let source, let target):
                guard let older = m.olderCopies[source], target >= 0, target + older.count <= m.durableSize else {
                    return
                }
                m.durable.replaceSubrange(target..<(target + older.count), with: older)
            }
        }
    }

    // MARK: PageStore

    package var base: UnsafeRawPointer { UnsafeRawPointer(image.base) }
    package var mappedByteCount: Int { image.byteCount }
    package var isDurable: Bool { true }
    package var displayName: String { "sim '\(name)'" }
    package var generation: UInt64 { bootGeneration.load(ordering: .acquiring) }

    package func checkAlive(generation: UInt64) throws(StorageError) {
        if bootGeneration.load(ordering: .acquiring) != generation { throw StorageError.crashed }
    }

    package func fileByteCount() throws(StorageError) -> Int { image.byteCount }

    package func setFileByteCount(_ byteCount: Int, site: FaultSite) throws(StorageError) {
        let hooks = state.withLock { $0.hooks }
        if let fault = hooks.injectedFault(site) { throw fault.storageError(operation: "grow") }
        try image.resize(to: byteCount)
        state.withLock { m in
            m.visibleSize = byteCount
            if m.durable.count < byteCount { Self.resize(&m.durable, to: byteCount) }
        }
    }

    package func extendMap(toByteCount byteCount: Int) throws(StorageError) {}

    package func write(_ pieces: [WritePiece]) throws(StorageError) {
        let hooks = state.withLock { $0.hooks }
        for piece in pieces {
            if let fault = hooks.injectedFault(piece.site) {
                throw fault.storageError(operation: "pwrite")
            }
            image.write(offset: piece.offset, bytes: piece.bytes, count: piece.byteCount)
            let bytes = [UInt8](UnsafeRawBufferPointer(start: piece.bytes, count: piece.byteCount))
            let info = PendingWrite(offset: piece.offset, byteCount: piece.byteCount, site: piece.site)
            state.withLock { m in
                m.pending.append(PendingRecord(info: info, bytes: bytes))
                m.writeCount += 1
            }
        }
    }

    package func sync(_ kind: SyncKind, site: FaultSite) throws(StorageError) {
        let hooks = state.withLock { $0.hooks }
        if hooks.injectedFault(site) != nil {
            // fsyncgate: some writes may have reached the disk, the rest are lost, and all are
            // now "clean", so nothing would be written again by a retry.
            let pending = state.withLock { $0.pending }
            let fates = syncFailureFates?(pending.map(\.info)) ?? []
            state.withLock { m in
                Self.apply(m.pending, plan: CrashPlan(fates: fates), to: &m.durable, olderCopies: &m.olderCopies)
                m.pending = []
                m.syncCount += 1
            }
            throw StorageError.io(operation: kind == .data ? "fdatasync" : "fsync", errno: EIO)
        }
        state.withLock { m in
            Self.apply(
                m.pending, plan: .allApplied(count: m.pending.count), to: &m.durable, olderCopies: &m.olderCopies)
            m.pending = []
            if kind == .full { m.durableSize = m.visibleSize }
            m.syncCount += 1
        }
    }

    // MARK: building images

    private static func resize(_ bytes: inout [UInt8], to count: Int) {
        if bytes.count < count {
            // An array of zeros, not a lazy sequence: this runs per crash image, in debug too.
            bytes.append(contentsOf: [UInt8](repeating: 0, count: count - bytes.count))
        } else if bytes.count > count {
            bytes.removeLast(bytes.count - count)
        }
    }

    /// Applies each pending write per its fate in `plan` (missing fates: lost). The image
    /// grows once to the furthest write first: growing per write copied it again each time.
    private static func apply(
        _ pending: [PendingRecord], plan: CrashPlan, to durable: inout [UInt8],
        olderCopies: inout [Int: [UInt8]]
    ) {
        let end = pending.reduce(durable.count) { max($0, $1.info.offset + $1.info.byteCount) }
        resize(&durable, to: end)
        for (index, record) in pending.enumerated() {
            let fate = index < plan.fates.count ? plan.fates[index] : .lost
            let offset = record.info.offset
            let count = record.info.byteCount
            if fate.writesItsOwnRegion, offset + count <= durable.count {
                // Keep what the region held, unless this write changes nothing there.
                let old = Array(durable[offset..<(offset + count)])
                if old != record.bytes { olderCopies[offset] = old }
            }
            apply(record, fate: fate, to: &durable)
        }
        for offset in plan.revertedOffsets {
            guard let older = olderCopies[offset], offset >= 0 else { continue }
            if durable.count < offset + older.count { resize(&durable, to: offset + older.count) }
            copy(older, from: 0..<older.count, into: &durable, at: offset)
        }
    }

    private static func apply(_ record: PendingRecord, fate: WriteFate, to durable: inout [UInt8]) {
        let offset = record.info.offset
        let count = record.info.byteCount
        if durable.count < offset + count { resize(&durable, to: offset + count) }
        switch fate {
        case .lost:
            return
        case .misdirected(let target):
            guard target >= 0 else { return }
            if durable.count < target + count { resize(&durable, to: target + count) }
            copy(record.bytes, from: 0..<count, into: &durable, at: target)
        case .applied:
            copy(record.bytes, from: 0..<count, into: &durable, at: offset)
        case .tornSectors(let mask):
            forEachSector(count: count) { sector, range in
                if mask & (1 << UInt64(sector)) != 0 {
                    copy(record.bytes, from: range, into: &durable, at: offset + range.lowerBound)
                }
            }
        case .tornPrefix(let prefix):
            copy(record.bytes, from: 0..<max(0, min(prefix, count)), into: &durable, at: offset)
        case .garbled(let mask, let seed):
            copy(record.bytes, from: 0..<count, into: &durable, at: offset)
            var generator = seed
            forEachSector(count: count) { sector, range in
                guard mask & (1 << UInt64(sector)) != 0 else { return }
                for index in range {
                    generator = generator &+ 0x9E37_79B9_7F4A_7C15
                    var z = generator
                    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                    durable[offset + index] = UInt8(truncatingIfNeeded: z ^ (z >> 31))
                }
            }
        }
    }

    /// `target[at...] = source[range]` as one memcpy (the crash tests build thousands of images).
    private static func copy(_ source: [UInt8], from range: Range<Int>, into target: inout [UInt8], at offset: Int) {
        precondition(
            range.lowerBound >= 0 && range.upperBound <= source.count && offset >= 0
                && offset + range.count <= target.count, "copy out of bounds")
        guard !range.isEmpty else { return }
        source.withUnsafeBytes { from in
            target.withUnsafeMutableBytes { to in
                guard let fromBase = from.baseAddress, let toBase = to.baseAddress else { return }
                memcpy(toBase + offset, fromBase + range.lowerBound, range.count)
            }
        }
    }

    private static func forEachSector(count: Int, _ body: (Int, Range<Int>) -> Void) {
        var sector = 0
        var start = 0
        while start < count {
            let end = min(count, start + sectorSizeBytes)
            body(sector, start..<end)
            sector += 1
            start = end
        }
    }
}

extension StoreLocation {
    /// The simulated disk `sim`: every handle opened on it during one boot shares one file.
    package static func simulated(_ sim: SimStore) -> StoreLocation { .processLocal(sim) }
}
