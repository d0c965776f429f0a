/// Deliberate bugs for measuring the harness (Docs/architecture.md §5 "Probes and seeded bugs").
///
/// Each member switches one wrong behaviour on. All are off in production (`EngineHooks.none`);
/// a switch is read only at commit, open and lock granularity, so it costs nothing when off.
/// Bits 0-15 are the storage layer's bugs, bits 16 and up the Realm API layer's (read there
/// through `Store.seededBugs`); `SeededBugCatalog` (StrataCheck) names them with their rules.
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
    /// Two writers in one process do not exclude each other: a write begun while another is
    /// open goes ahead on the same base, and one commit's changes are lost (W1, W16).
    public static let writersDoNotExclude = SeededBugs(rawValue: 1 << 11)
    /// Readers and the writer follow page references without checking the version and checksum
    /// the reference expects, so a lost or misdirected write of an older page reads as data
    /// (D19).
    public static let skipReferenceCheck = SeededBugs(rawValue: 1 << 12)

    // The Realm API layer's bugs.

    /// `refresh()` reports a move and notifies, but the realm keeps reading its old version
    /// (V3, V4).
    public static let refreshStaysStale = SeededBugs(rawValue: 1 << 16)
    /// `beginWrite` does not move the realm's read to the write's base, so a cancel goes back
    /// to the old version (V11, W5).
    public static let beginWriteWithoutAdvancing = SeededBugs(rawValue: 1 << 17)
    /// Live realms and their accessors answer any thread (C5).
    public static let skipThreadCheck = SeededBugs(rawValue: 1 << 18)
    /// A thread-safe reference can be resolved again (T2).
    public static let resolveTwice = SeededBugs(rawValue: 1 << 19)
    /// `thaw()` refreshes the live realm first (F8).
    public static let thawRefreshes = SeededBugs(rawValue: 1 << 20)
    /// A frozen realm reads the newest version at each read (F1, F2).
    public static let frozenFollowsCommits = SeededBugs(rawValue: 1 << 21)
    /// A reference to Results pins nothing and resolves at the newest version (T4, T8).
    public static let resultsReferenceDoesNotPin = SeededBugs(rawValue: 1 << 22)
    /// `beginWrite` ignores the configured active-version limit (L2).
    public static let activeVersionLimitIgnored = SeededBugs(rawValue: 1 << 23)
    /// `invalidate()` forgets its read version without ending its pin (V13, L1, L5).
    public static let invalidateKeepsPin = SeededBugs(rawValue: 1 << 24)
    /// Collection notifications report modifications at the elements' new indices (N13: old).
    public static let modificationsAtNewIndices = SeededBugs(rawValue: 1 << 25)
    /// `commitWrite(withoutNotifying:)` skips no collection observer: each hears of the commit
    /// (N4).
    public static let skippedTokenStillNotified = SeededBugs(rawValue: 1 << 26)
    /// `refresh()` moves the realm without running the pending collection callbacks (N12).
    public static let refreshSkipsCallbacks = SeededBugs(rawValue: 1 << 27)
    /// `observe` runs the pending callbacks before it returns: the new observer's initial
    /// callback is re-entrant, inside the `observe` call (N8: on a later turn).
    public static let callbackInsideObserve = SeededBugs(rawValue: 1 << 28)
    /// Free space ignores the durable version while an async group waits for its sync, so a
    /// group's commits overwrite pages a crash would recover (D10, D5): the group is durable in
    /// part. Caught by `DeferredDurabilityTests`' crash images and by the harness's power
    /// losses and crash images during async groups (generation 4).
    public static let reuseDurablePages = SeededBugs(rawValue: 1 << 40)
    /// The group sync writes the slot of the group's first commit, not its last: the group is
    /// durable in part, a version in its middle survives a crash (D10) and the later commits'
    /// completions run before they are durable (D11).
    public static let groupDurableInPart = SeededBugs(rawValue: 1 << 41)
    /// An async commit's completion is owed at once, not after its group's sync: it runs on the
    /// next turn, before the commit is durable (D11).
    public static let completionBeforeDurable = SeededBugs(rawValue: 1 << 42)
    /// Queued async blocks run newest first (A2).
    public static let asyncBlocksOutOfOrder = SeededBugs(rawValue: 1 << 43)
    /// `cancelAsyncWrite` of a queued block leaves it queued: it still runs (A4).
    public static let cancelledBlockStillRuns = SeededBugs(rawValue: 1 << 44)
    /// A reference to an object or a List pins nothing: a realm that has not read resolves it at
    /// the newest version, where the object may be gone (T4, T8).
    public static let objectReferenceDoesNotPin = SeededBugs(rawValue: 1 << 45)
    /// Test-only, not a bug of the catalog: the commit dereferences a bad pointer before it
    /// writes anything, so the process dies of SIGSEGV inside the engine. It proves that a crash
    /// inside a run is reported by `strata-fuzz run` as a failure with a replay token
    /// (Docs/harness.md "A crash inside a run"); only the harness sets engine bugs
    /// (`EngineHooks`), and only `strata-fuzz run --defect plantedCrashInCommit` sets this one.
    public static let plantedCrashInCommit = SeededBugs(rawValue: 1 << 63)
    /// A `beginAsyncWrite` block that returns with its write open is committed, not rolled
    /// back (A19).
    public static let unfinishedAsyncBlockCommits = SeededBugs(rawValue: 1 << 46)
    /// A realm in a write (or with async work) is not held by its context: dropping the last
    /// reference ends it and rolls the write back, so `Realm()` again gets a new instance (C1).
    public static let releasedWriterNotHeld = SeededBugs(rawValue: 1 << 47)
    /// `invalidate()` returns before the completions of the async commits it made durable ran
    /// (they run on a later turn; A13).
    public static let invalidateDefersCompletions = SeededBugs(rawValue: 1 << 48)
    /// `writeCopy` inside a write transaction copies the version the write began at, not the
    /// write's data (X3).
    public static let writeCopyIgnoresOpenWrite = SeededBugs(rawValue: 1 << 49)
    /// `commitWrite(withoutNotifying:)` accepts tokens of other realms (N4).
    public static let skipAcceptsForeignTokens = SeededBugs(rawValue: 1 << 50)
    /// A sort through a to-one link puts objects whose link is null first ascending and last
    /// descending, as if a null link were the lowest value (V20).
    public static let nullLinksSortFirst = SeededBugs(rawValue: 1 << 51)
}
