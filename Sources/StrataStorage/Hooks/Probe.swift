/// Named rare paths (coverage marks, Docs/style.md rule 17). A probe is reported through
/// `EngineHooks.probe` when the engine takes that path; the harness keeps a must-hit list.
package enum Probe: String, Sendable, Hashable, CaseIterable {
    /// Open found the newer slot invalid (torn or corrupt) and recovered from the other slot.
    case tornSlotRecoveredFromOtherSlot
    /// Open found the newest slot's pages beyond the durable file end (growth not durable).
    case slotBeyondFileEnd
    /// A commit could not reuse freed pages because a reader still pins an older version.
    case pageReuseWaitedForPin
    /// A commit reused pages that became reusable when the last pin on their version dropped.
    case pageReuseAfterLastPinDropped
    /// A B+tree root split (the tree grew a level).
    case treeRootSplit
    /// An insert went straight into the remembered rightmost leaf (`TreeWriter`'s append
    /// path), without a descent.
    case treeAppendPath
    /// A B+tree root collapsed (the tree lost a level).
    case treeRootCollapse
    /// Two B+tree nodes merged after deletes.
    case treeNodeMerge
    /// Entries moved between sibling nodes after deletes.
    case treeNodeBorrow
    /// A writer had to wait for the write lock held by another process.
    case writerBlockedByOtherProcess
    /// A writer had to wait for the write lock held by another thread of this process.
    case writerBlockedByOtherThread
    /// The phase-1 sync of a commit's pages failed (the commit fails and the file is poisoned).
    case phaseOneSyncFailed
    /// The phase-2 sync of the commit slot failed.
    case phaseTwoSyncFailed
    /// Writing a commit's pages failed.
    case pageWriteFailed
    /// Writing the commit slot failed.
    case slotWriteFailed
    /// The file grew while a reader of this process held a version.
    case growthWhileReaderActive
    /// A reader slot of a dead process was reclaimed.
    case deadReaderSlotReclaimed
    /// A writer found a durable commit newer than the published version (its writer died after
    /// the slot sync) and adopted it.
    case adoptedDurableCommitOfDeadWriter
    /// A reader raced a commit while pinning and retried.
    case pinRetriedAfterRace
    /// The lock file was initialised by this opener (no other process had the file open).
    case lockFileInitialised
    /// A write began on a newest slot no sync was seen to make durable and wrote it again (Spec D7).
    case unconfirmedSlotRewritten
}
