/// Deliberate bugs for measuring the harness (DESIGN §5 "Probes and seeded bugs").
///
/// Each member switches one wrong behaviour on. All are off in production (`EngineHooks.none`);
/// a switch is read only at commit, open and lock granularity, so it costs nothing when off.
/// This file is the engine layer's part of the catalog; the API layer adds its own.
public struct SeededBugs: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Phase 1 writes pages but skips its sync (Spec D: pages durable before the slot).
    public static let skipPhaseOneSync = SeededBugs(rawValue: 1 << 0)
    /// The commit slot is written and synced before the data pages.
    public static let slotBeforeData = SeededBugs(rawValue: 1 << 1)
    /// Every commit overwrites slot 0 instead of the inactive slot.
    public static let singleCommitSlot = SeededBugs(rawValue: 1 << 2)
    /// Open trusts a slot without checking its checksum.
    public static let skipSlotChecksum = SeededBugs(rawValue: 1 << 3)
    /// Free pages are reused regardless of the versions readers pin.
    public static let reusePinnedPages = SeededBugs(rawValue: 1 << 4)
    /// A commit reuses pages it freed itself (still part of the version on disk).
    public static let reuseOwnFrees = SeededBugs(rawValue: 1 << 5)
    /// The new version is published to readers before the slot sync.
    public static let publishBeforeSlotSync = SeededBugs(rawValue: 1 << 6)
    /// A failed phase-1 sync is retried; the retry "succeeds" and the commit goes on.
    public static let retrySyncAfterEIO = SeededBugs(rawValue: 1 << 7)
    /// Leaf splits move one entry too few into the new right node, dropping it.
    public static let treeSplitOffByOne = SeededBugs(rawValue: 1 << 8)
    /// Slots of dead reader processes are never reclaimed.
    public static let neverReclaimDeadReaders = SeededBugs(rawValue: 1 << 9)
    /// Phase 1 uses fdatasync even when the file grew, so the new size may not be durable.
    public static let dataSyncAfterGrowth = SeededBugs(rawValue: 1 << 10)
}
