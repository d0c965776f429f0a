import Synchronization

/// How a version is pinned; the counts are kept apart in the reader slots (Docs/architecture.md §2).
public enum PinKind: Sendable, Hashable {
    /// A read transaction of a live realm.
    case live
    /// A frozen realm, or anything else holding a version independent of a thread
    /// (an unresolved thread-safe reference to Results, a `ReadTransaction` kept for later).
    case frozen
}

/// This process's pins of one database file, aggregated per version: the shared reader slot
/// of a version is claimed when this process's first pin of it appears and emptied when the
/// last one goes, so pinning a version already pinned here touches only this process's table.
///
/// The idle slot: when the last pin of a version goes, its slot keeps this process's pid with
/// zero pins (`VersionTable.unpinSlot`) unless an idle slot is already kept, and the next pin
/// of a version not pinned here reuses it (`VersionTable.repinSlot`) instead of claiming one.
/// A begin/end pair of reads then costs two stores to the shared map instead of a scan, a
/// compare-and-swap and eight stores. Zero pins pin nothing, so the idle slot never holds
/// back page reuse in any process (pins never under-report, and idle slots never
/// over-report); it is released when the file closes (`releaseIdleSlot`).
///
/// Lock order: `PinRegistry.state` is a leaf lock; nothing else is taken while it is held
/// except the shared slot atomics.
final class PinRegistry: @unchecked Sendable {
    fileprivate struct Entry {
        var live: UInt32
        var frozen: UInt32
        let slot: Int
        let record: VersionRecord
    }

    private let table: VersionTable
    private let hooks: EngineHooks
    /// Pinned versions of this process. A few at most (readers pin the newest version, which
    /// moves only with commits), so a small array searched linearly from the newest end: the
    /// begin/end of every read transaction looks its version up here, and a `Dictionary`
    /// hashed the version with SipHash on each.
    private let state = Lock<PinEntries>(PinEntries())
    static let pinAttemptsMax = 10_000

    init(table: VersionTable, hooks: EngineHooks) {
        self.table = table
        self.hooks = hooks
    }

    /// Pins the newest published version and returns its record.
    func pinNewest(_ kind: PinKind) throws(StorageError) -> VersionRecord {
        let record = try state.withLock { entries throws(StorageError) -> VersionRecord in
            for _ in 0..<Self.pinAttemptsMax {
                let newest = table.newestVersionAcquiring
                if var entry = entries[newest.rawValue] {
                    // Already pinned by this process, hence visible to every writer.
                    Self.add(kind, to: &entry)
                    table.updateSlot(entry.slot, live: entry.live, frozen: entry.frozen)
                    entries[newest.rawValue] = entry
                    return entry.record
                }
                // A version's record never changes, so the last one read is reused.
                let record: VersionRecord
                if let last = entries.lastRecord, last.version == newest {
                    record = last
                } else {
                    guard let read = table.record(of: newest) else { continue }
                    record = read
                    entries.lastRecord = read
                }
                let live: UInt32 = kind == .live ? 1 : 0
                let slot: Int
                if let idle = entries.idleSlot {
                    table.repinSlot(idle, version: newest, live: live, frozen: 1 - live)
                    entries.idleSlot = nil
                    slot = idle
                } else {
                    slot = try table.claimSlot(version: newest, live: live, frozen: 1 - live)
                }
                // Spec D (pin protocol): the pin counts only if the newest version did not move
                // while it was being stored; otherwise a writer may not have seen it.
                if table.newestVersion == newest {
                    entries[newest.rawValue] = Entry(live: live, frozen: 1 - live, slot: slot, record: record)
                    return record
                }
                table.unpinSlot(slot)
                entries.idleSlot = slot
                hooks.mark(.pinRetriedAfterRace)
            }
            throw StorageError.io(operation: "pin the newest version (commits kept racing)", errno: 11)
        }
        hooks.at(.pinNewest(record.version))
        return record
    }

    /// Adds a pin to a version this process already pins (duplicating a snapshot).
    /// `callerHoldsLock`: the caller holds a lock of its own (the yield point says so).
    func pin(
        existing version: Version, _ kind: PinKind,
        callerHoldsLock: Bool = false
    ) throws(StorageError) -> VersionRecord {
        let record = try state.withLock { entries throws(StorageError) -> VersionRecord in
            guard var entry = entries[version.rawValue] else { throw StorageError.versionNotPinned(version) }
            Self.add(kind, to: &entry)
            table.updateSlot(entry.slot, live: entry.live, frozen: entry.frozen)
            entries[version.rawValue] = entry
            return entry.record
        }
        hooks.at(.pin(version, callerHoldsLock: callerHoldsLock))
        return record
    }

    /// `callerHoldsLock`: the caller holds a lock of its own (the yield point says so).
    func unpin(_ version: Version, _ kind: PinKind, callerHoldsLock: Bool = false) {
        state.withLock { entries in
            guard var entry = entries[version.rawValue] else {
                invariant(false, "unpin of a version this process does not pin")
                return
            }
            switch kind {
            case .live:
                invariant(entry.live > 0, "live pins never go negative")
                entry.live -= 1
            case .frozen:
                invariant(entry.frozen > 0, "frozen pins never go negative")
                entry.frozen -= 1
            }
            if entry.live == 0 && entry.frozen == 0 {
                table.unpinSlot(entry.slot)
                if entries.idleSlot == nil {
                    entries.idleSlot = entry.slot
                } else {
                    table.releaseSlot(entry.slot)
                }
                entries[version.rawValue] = nil
            } else {
                table.updateSlot(entry.slot, live: entry.live, frozen: entry.frozen)
                entries[version.rawValue] = entry
            }
        }
        hooks.at(.unpin(version, callerHoldsLock: callerHoldsLock))
    }

    /// Releases the idle slot, if any (the file is closing, or a test wants every slot free).
    func releaseIdleSlot() {
        state.withLock { entries in
            if let idle = entries.idleSlot {
                table.releaseSlot(idle)
                entries.idleSlot = nil
            }
        }
    }

    /// The versions this process pins, with their counts.
    func pinnedInProcess() -> [(version: Version, live: UInt32, frozen: UInt32)] {
        state.withLock { entries in
            entries.map { (Version($0.key), $0.value.live, $0.value.frozen) }.sorted { $0.version < $1.version }
        }
    }

    var isEmpty: Bool { state.withLock { $0.isEmpty } }

    /// The records of every version this process pins.
    func pinnedRecords() -> [VersionRecord] {
        state.withLock { entries in entries.values.map(\.record).sorted { $0.version < $1.version } }
    }

    private static func add(_ kind: PinKind, to entry: inout Entry) {
        switch kind {
        case .live: entry.live += 1
        case .frozen: entry.frozen += 1
        }
    }
}

/// `PinRegistry`'s per-version entries, keyed by version, in a small array (see `state`).
private struct PinEntries {
    private(set) var entries: [(version: UInt64, entry: PinRegistry.Entry)] = []
    /// A reader slot this process owns with zero pins, kept for the next pin (see the class).
    var idleSlot: Int?
    /// The record of the version most recently pinned afresh.
    var lastRecord: VersionRecord?

    var isEmpty: Bool { entries.isEmpty }

    private func index(of version: UInt64) -> Int? {
        var index = entries.count - 1
        while index >= 0 {
            if entries[index].version == version { return index }
            index -= 1
        }
        return nil
    }

    subscript(version: UInt64) -> PinRegistry.Entry? {
        get {
            guard let index = index(of: version) else { return nil }
            return entries[index].entry
        }
        set {
            if let index = index(of: version) {
                if let newValue { entries[index].entry = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((version, newValue))
            }
        }
    }

    func map<T>(_ transform: ((key: UInt64, value: PinRegistry.Entry)) -> T) -> [T] {
        entries.map { transform((key: $0.version, value: $0.entry)) }
    }

    var values: [PinRegistry.Entry] { entries.map(\.entry) }
}
