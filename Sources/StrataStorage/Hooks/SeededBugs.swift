/// Deliberate bugs of the engine for measuring the harness (Docs/architecture.md §5 "Probes and
/// seeded bugs"); the Realm API layer's are `APISeededBugs` (Sources/Strata), and
/// `SeededBugCatalog` (StrataCheck) names both with their rules.
///
/// Each member switches one wrong behaviour on. All are off in production (`EngineHooks.none`);
/// a switch is read only at commit, open and lock granularity, so it costs nothing when off.
/// The harness names a run's bugs of both layers by one raw value, so no bit here may be one of
/// `APISeededBugs`.
package struct SeededBugs: OptionSet, Sendable, Hashable {
    package let rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Phase 1 writes pages but skips its sync (Spec D: pages durable before the slot).
    package static let skipPhaseOneSync = SeededBugs(rawValue: 1 << 0)
    /// The commit slot is written and synced before the data pages.
    package static let slotBeforeData = SeededBugs(rawValue: 1 << 1)
    /// Every commit overwrites slot 0 instead of the inactive slot.
    package static let singleCommitSlot = SeededBugs(rawValue: 1 << 2)
    /// Open trusts a slot without checking its checksum.
    package static let skipSlotChecksum = SeededBugs(rawValue: 1 << 3)
    /// Free pages are reused regardless of the versions readers pin.
    package static let reusePinnedPages = SeededBugs(rawValue: 1 << 4)
    /// A commit reuses pages it freed itself (still part of the version on disk).
    package static let reuseOwnFrees = SeededBugs(rawValue: 1 << 5)
    /// The new version is published to readers before the slot sync.
    package static let publishBeforeSlotSync = SeededBugs(rawValue: 1 << 6)
    /// A failed phase-1 sync is retried; the retry "succeeds" and the commit goes on.
    package static let retrySyncAfterEIO = SeededBugs(rawValue: 1 << 7)
    /// Leaf splits move one entry too few into the new right node, dropping it.
    package static let treeSplitOffByOne = SeededBugs(rawValue: 1 << 8)
    /// Slots of dead reader processes are never reclaimed.
    package static let neverReclaimDeadReaders = SeededBugs(rawValue: 1 << 9)
    /// Phase 1 uses fdatasync even when the file grew, so the new size may not be durable.
    package static let dataSyncAfterGrowth = SeededBugs(rawValue: 1 << 10)
    /// Two writers in one process do not exclude each other: a write begun while another is
    /// open goes ahead on the same base, and one commit's changes are lost (W1, W16).
    package static let writersDoNotExclude = SeededBugs(rawValue: 1 << 11)
    /// Readers and the writer follow page references without checking the version and checksum
    /// the reference expects, so a lost or misdirected write of an older page reads as data
    /// (D19).
    package static let skipReferenceCheck = SeededBugs(rawValue: 1 << 12)
    /// An update that changes an indexed column removes the object's old index entry but never
    /// writes the new one, so an equality query on the new value misses the object (W26).
    package static let indexEntryLostOnUpdate = SeededBugs(rawValue: 1 << 13)
    /// A write trusts the newest slot in the file as durable though no sync of it was seen (its
    /// writer failed at phase 2's sync): it reuses the pages of the version before it, which a
    /// power loss then recovers damaged (D7, D5).
    package static let trustUnconfirmedSlot = SeededBugs(rawValue: 1 << 14)

    /// Free space ignores the durable version while an async group waits for its sync, so a
    /// group's commits overwrite pages a crash would recover (D10, D5): the group is durable in
    /// part. Caught by `DeferredDurabilityTests`' crash images and by the harness's power
    /// losses and crash images during async groups (generation 4).
    package static let reuseDurablePages = SeededBugs(rawValue: 1 << 40)
    /// The group sync writes the slot of the group's first commit, not its last: the group is
    /// durable in part, a version in its middle survives a crash (D10) and the later commits'
    /// completions run before they are durable (D11).
    package static let groupDurableInPart = SeededBugs(rawValue: 1 << 41)
    /// Test-only, not a bug of the catalog: the commit dereferences a bad pointer before it
    /// writes anything, so the process dies of SIGSEGV inside the engine. It proves that a crash
    /// inside a run is reported by `strata-fuzz run` as a failure with a replay token
    /// (Docs/harness.md "A crash inside a run"); only the harness sets engine bugs
    /// (`EngineHooks`), and only `strata-fuzz run --defect plantedCrashInCommit` sets this one.
    package static let plantedCrashInCommit = SeededBugs(rawValue: 1 << 63)
}
