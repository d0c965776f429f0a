import StrataModel

/// The kinds of operation the generator makes; a run's swarm settings weight them.
public enum OperationKind: Int, CaseIterable, Sendable {
    case open, refresh, beginWrite, commitWrite, cancelWrite, create, objectForPrimaryKey,
        objects, read, setValue, delete, listOf, append, removeFromList, invalidate,
        freezeRealm, freezeHandle, thawHandle, makeReference, resolve, release, releaseHandle,
        crashMachine,
        /// Many creates or deletes in one step of an open write (`apply`): enough rows to split
        /// and merge B+tree nodes, which single creates over a few dozen keys never reach.
        bulkWrite,
        /// Collection observers (generation 3): `observe` on Results or a List, any token's
        /// `invalidate()`, and a turn of the context's event loop (its queue runs what is
        /// pending). One run in two, never with an active-version limit (`Swarm.draw`).
        observeCollection, invalidateToken, turnLoop,
        /// Object observers (generation 3): `observe(keyPaths:)` on an object, with no key
        /// paths, `value` or `list`.
        observeObject,
        /// Async writes (generation 4) on a queue context's own realm: `writeAsync` and
        /// `beginAsyncWrite` blocks of creates (the latter ending in `commitAsyncWrite` with or
        /// without grouping, or in `cancelWrite`), `commitAsyncWrite` of a synchronous write,
        /// `cancelAsyncWrite` of a queued block or a commit's completion,
        /// `isPerformingAsynchronousWriteOperations`, and the background sync of an ended group
        /// (which the harness holds until this step lets it go). One run in two without
        /// observers or an active-version limit (`Swarm.draw`).
        writeAsync, beginAsyncWrite, commitAsyncWrite, cancelAsyncWrite, asyncStatus, syncAsyncGroup,
        /// Generation 5: a `ThreadSafeReference` released unresolved (Spec T8, L5: its pin
        /// ends); `@ThreadSafe` properties assigned from any context and read in a thread
        /// context's realm (T9, T10, T8); `writeCopy(toFile:)`, also inside a write, whose copy
        /// is opened and read in the step (X3). Drawn after the others (`Swarm.draw`).
        releaseReference, assignThreadSafe, readThreadSafe, writeCopy,
        /// Generation 6: a Linker's to-one link set to an Item or cleared (Spec V20, W9, W12),
        /// in runs whose schema has Linkers (`Swarm.links`); those runs also create Linkers and
        /// sort Results through the link.
        setLink,
        /// Generation 7: iteration over Results (Spec V15, V16): `iterate` begins one over a
        /// Results accessor, `iteratorNext` asks an iterator for its next element. A context
        /// that began an iteration mostly goes on with it (`Generator+Generation7`).
        iterate, iteratorNext,
        /// Generation 9: `min`, `max`, `sum` or `average` of `value` over Results or a List
        /// (Spec V21).
        aggregate,
        /// Generation 11: a Linker's set of Items (Spec V24), `insert` and `remove` of an Item,
        /// in runs whose schema has Linkers.
        insertIntoSet, removeFromSet,
        /// Generation 12: a Linker's Map of Items (Spec V25), a key set to an Item or to null
        /// (`updateValue(nil, forKey:)`) and a key removed, in runs whose schema has Linkers.
        setMapValue, removeMapKey,
        /// Generation 14: an Item's LinkingObjects through the `list` of Items or of Others
        /// (Spec V26), kept as Results every Results operation then reads, observes, freezes
        /// and hands over.
        linkingObjectsOf,
        /// Generation 15: a collection sectioned by a key of `value` and read whole (Spec V27).
        sectioned

    /// The kinds of the notification swarm, drawn apart from the others (generation 3).
    static let notificationKinds: [OperationKind] = [
        .observeCollection, .invalidateToken, .turnLoop,
        .observeObject,
    ]
    /// The kinds of the async-write swarm, drawn apart from the others (generation 4).
    static let asyncKinds: [OperationKind] = [
        .writeAsync, .beginAsyncWrite, .commitAsyncWrite, .cancelAsyncWrite,
        .asyncStatus, .syncAsyncGroup,
    ]
    /// The kinds generation 5 added, drawn after the others.
    static let generation5Kinds: [OperationKind] = [.releaseReference, .assignThreadSafe, .readThreadSafe, .writeCopy]
    /// The kinds generation 6 added, drawn after generation 5's.
    static let generation6Kinds: [OperationKind] = [.setLink]
    /// The kinds generation 7 added, drawn after generation 6's.
    static let generation7Kinds: [OperationKind] = [.iterate, .iteratorNext]
    /// The kinds generation 9 added, drawn after generation 7's (generation 8 added no kind).
    static let generation9Kinds: [OperationKind] = [.aggregate]
    /// The kinds generation 11 added, drawn after generation 9's (generation 10 added no kind).
    static let generation11Kinds: [OperationKind] = [.insertIntoSet, .removeFromSet]
    /// The kinds generation 12 added, drawn after generation 11's.
    static let generation12Kinds: [OperationKind] = [.setMapValue, .removeMapKey]
    /// The kinds generation 14 added, drawn after generation 12's (generation 13 added no kind).
    static let generation14Kinds: [OperationKind] = [.linkingObjectsOf]
    /// The kinds generation 15 added, drawn after generation 14's.
    static let generation15Kinds: [OperationKind] = [.sectioned]
}
