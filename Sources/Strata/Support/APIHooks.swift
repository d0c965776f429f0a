/// The API layer's test seam, as `EngineHooks` is the engine's (Docs/architecture.md §5 "Probes
/// and seeded bugs"): what the harness switches on in the Realm API. It reaches a realm through
/// `Realm.Configuration._api`; production leaves it at `.none`, and a realm file reads it once,
/// when it opens (`RealmFile.bugs`).
package struct APIHooks: Sendable {
    /// Deliberate bugs of the API layer switched on for harness validation. Empty in production.
    package var bugs: APISeededBugs

    package init(bugs: APISeededBugs = []) {
        self.bugs = bugs
    }

    package static let none = APIHooks()
}

/// Deliberate bugs of the Realm API layer for measuring the harness; the engine's are
/// `SeededBugs` (StrataStorage), and `SeededBugCatalog` (StrataCheck) names both with their rules.
///
/// Each member switches one wrong behaviour on, read where the API decides, so it costs nothing
/// when off. Each keeps the bit it had when the engine's `SeededBugs` held both layers: replay
/// tokens and generated scripts name a run's bugs by one raw value, which the harness splits
/// between the layers (`SeededBugSet`), so no bit here may be one of `SeededBugs`.
package struct APISeededBugs: OptionSet, Sendable, Hashable {
    package let rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    /// `refresh()` reports a move and notifies, but the realm keeps reading its old version
    /// (V3, V4).
    package static let refreshStaysStale = APISeededBugs(rawValue: 1 << 16)
    /// `beginWrite` does not move the realm's read to the write's base, so a cancel goes back
    /// to the old version (V11, W5).
    package static let beginWriteWithoutAdvancing = APISeededBugs(rawValue: 1 << 17)
    /// Live realms and their accessors answer any thread (C5).
    package static let skipThreadCheck = APISeededBugs(rawValue: 1 << 18)
    /// A thread-safe reference can be resolved again (T2).
    package static let resolveTwice = APISeededBugs(rawValue: 1 << 19)
    /// `thaw()` refreshes the live realm first (F8).
    package static let thawRefreshes = APISeededBugs(rawValue: 1 << 20)
    /// A frozen realm reads the newest version at each read (F1, F2).
    package static let frozenFollowsCommits = APISeededBugs(rawValue: 1 << 21)
    /// A reference to Results pins nothing and resolves at the newest version (T4, T8).
    package static let resultsReferenceDoesNotPin = APISeededBugs(rawValue: 1 << 22)
    /// `beginWrite` ignores the configured active-version limit (L2).
    package static let activeVersionLimitIgnored = APISeededBugs(rawValue: 1 << 23)
    /// `invalidate()` forgets its read version without ending its pin (V13, L1, L5).
    package static let invalidateKeepsPin = APISeededBugs(rawValue: 1 << 24)
    /// Collection notifications report modifications at the elements' new indices (N13: old).
    package static let modificationsAtNewIndices = APISeededBugs(rawValue: 1 << 25)
    /// `commitWrite(withoutNotifying:)` skips no collection observer: each hears of the commit
    /// (N4).
    package static let skippedTokenStillNotified = APISeededBugs(rawValue: 1 << 26)
    /// `refresh()` moves the realm without running the pending collection callbacks (N12).
    package static let refreshSkipsCallbacks = APISeededBugs(rawValue: 1 << 27)
    /// `observe` runs the pending callbacks before it returns: the new observer's initial
    /// callback is re-entrant, inside the `observe` call (N8: on a later turn).
    package static let callbackInsideObserve = APISeededBugs(rawValue: 1 << 28)
    /// An async commit's completion is owed at once, not after its group's sync: it runs on the
    /// next turn, before the commit is durable (D11).
    package static let completionBeforeDurable = APISeededBugs(rawValue: 1 << 42)
    /// Queued async blocks run newest first (A2).
    package static let asyncBlocksOutOfOrder = APISeededBugs(rawValue: 1 << 43)
    /// `cancelAsyncWrite` of a queued block leaves it queued: it still runs (A4).
    package static let cancelledBlockStillRuns = APISeededBugs(rawValue: 1 << 44)
    /// A reference to an object or a List pins nothing: a realm that has not read resolves it at
    /// the newest version, where the object may be gone (T4, T8).
    package static let objectReferenceDoesNotPin = APISeededBugs(rawValue: 1 << 45)
    /// A `beginAsyncWrite` block that returns with its write open is committed, not rolled
    /// back (A19).
    package static let unfinishedAsyncBlockCommits = APISeededBugs(rawValue: 1 << 46)
    /// A realm in a write (or with async work) is not held by its context: dropping the last
    /// reference ends it and rolls the write back, so `Realm()` again gets a new instance (C1).
    package static let releasedWriterNotHeld = APISeededBugs(rawValue: 1 << 47)
    /// `invalidate()` returns before the completions of the async commits it made durable ran
    /// (they run on a later turn; A13).
    package static let invalidateDefersCompletions = APISeededBugs(rawValue: 1 << 48)
    /// `writeCopy` inside a write transaction copies the version the write began at, not the
    /// write's data (X3).
    package static let writeCopyIgnoresOpenWrite = APISeededBugs(rawValue: 1 << 49)
    /// `commitWrite(withoutNotifying:)` accepts tokens of other realms (N4).
    package static let skipAcceptsForeignTokens = APISeededBugs(rawValue: 1 << 50)
    /// A sort through a to-one link puts objects whose link is null first ascending and last
    /// descending, as if a null link were the lowest value (V20).
    package static let nullLinksSortFirst = APISeededBugs(rawValue: 1 << 51)
    /// Iterating Results reuses the previous element's object for the next one even when the
    /// caller still holds it strongly: a held element turns into a later one (V15).
    package static let iteratorReusesHeldObject = APISeededBugs(rawValue: 1 << 52)
    /// `first` and `isEmpty` of Results not yet evaluated at the realm's view step over the
    /// first match: `first` is the second matching object, and one match reads as empty (V1).
    package static let firstSkipsFirstMatch = APISeededBugs(rawValue: 1 << 53)
    /// An average divides by every element, nulls included, not by the values it summed (V21).
    package static let averageCountsNulls = APISeededBugs(rawValue: 1 << 54)
    /// A distinct keeps the last object of each group instead of the first (V22).
    package static let distinctKeepsLast = APISeededBugs(rawValue: 1 << 55)
    /// A predicate format with the constant on the left keeps its operator instead of
    /// mirroring it: `3 <= value` is read as `value <= 3` (V23).
    package static let predicateMirrorsWrongly = APISeededBugs(rawValue: 1 << 56)
    /// A set's `insert` of an element it holds stores it again (V24).
    package static let setKeepsDuplicates = APISeededBugs(rawValue: 1 << 57)
    /// Deleting an object leaves it in the sets that hold it (the links dangle), while Lists
    /// lose it (V24, W13).
    package static let setKeepsDeletedObject = APISeededBugs(rawValue: 1 << 58)
    /// Deleting an object leaves Map values linking to it (the links dangle) instead of making
    /// them null (V25, W13).
    package static let mapKeepsDeletedObject = APISeededBugs(rawValue: 1 << 59)
    /// A Map's `removeObject(for:)` stores a null value under the key instead of removing it
    /// (V25).
    package static let mapRemoveKeepsKey = APISeededBugs(rawValue: 1 << 60)
    /// A query through a collection (ANY, NONE, `@sum` and the others) never reads the
    /// collection's last element (V23).
    package static let collectionQuerySkipsLast = APISeededBugs(rawValue: 1 << 61)
    /// LinkingObjects name an owner once however many links it holds to the target (V26).
    package static let backlinksOncePerOwner = APISeededBugs(rawValue: 1 << 62)
    /// Sectioned results start a new section each time the key changes, so a key that comes
    /// back after another has two sections instead of joining its first (V27). Bit 29: the
    /// bits from 62 up are taken (63 is the engine's `plantedCrashInCommit`).
    package static let sectionPerKeyRun = APISeededBugs(rawValue: 1 << 29)

    /// Every bug of the layer: the bits a harness's raw value gives this layer.
    package static let all: APISeededBugs = [
        .refreshStaysStale, .beginWriteWithoutAdvancing, .skipThreadCheck, .resolveTwice, .thawRefreshes,
        .frozenFollowsCommits, .resultsReferenceDoesNotPin, .activeVersionLimitIgnored, .invalidateKeepsPin,
        .modificationsAtNewIndices, .skippedTokenStillNotified, .refreshSkipsCallbacks, .callbackInsideObserve,
        .completionBeforeDurable, .asyncBlocksOutOfOrder, .cancelledBlockStillRuns, .objectReferenceDoesNotPin,
        .unfinishedAsyncBlockCommits, .releasedWriterNotHeld, .invalidateDefersCompletions,
        .writeCopyIgnoresOpenWrite, .skipAcceptsForeignTokens, .nullLinksSortFirst, .iteratorReusesHeldObject,
        .firstSkipsFirstMatch, .averageCountsNulls, .distinctKeepsLast, .predicateMirrorsWrongly,
        .setKeepsDuplicates, .setKeepsDeletedObject, .mapKeepsDeletedObject, .mapRemoveKeepsKey,
        .collectionQuerySkipsLast, .backlinksOncePerOwner, .sectionPerKeyRun,
    ]
}
