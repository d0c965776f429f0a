// The whole state of the reference model: files with their versions, processes' contexts,
// realms, the accessors and references callers hold, observers and async work. A value type:
// `step` (ModelState+Step.swift) is the only way it changes, and it is deterministic, so the
// model can be replayed, compared and explored exhaustively (Spec README, "The model").
//
// Which fields can be trusted when:
// - `files[l]` exists exactly while the file exists: for a path from its creation until
//   `deleteFiles`, for an in-memory identifier while some realm of it is open (Spec X1, X8).
// - `FileState.versions` holds every version that is the newest, the durable one, adoptable, or
//   pinned (Spec D5, L1); any other version is dropped after each step (`collectGarbage`).
// - `realms[r]` exists while the instance can still be reached; `isClosed` realms are kept so
//   that use after close is rejected (Spec A12).

/// One file: its retained versions and what is durable.
public struct FileState: Hashable, Sendable {
    public var location: FileLocation
    /// Every retained version's data.
    public var versions: [Version: Snapshot]
    /// The newest published version (Spec V3: "newest").
    public var newest: Version
    /// The newest version whose commit slot was synced: a machine crash recovers it (Spec D3).
    public var durable: Version
    /// A version whose slot reached the file but was never published (its writer died or failed
    /// at phase 2): the next write or fresh open adopts it (Spec D2, D7, W8).
    public var adoptable: Version?
    /// An adopted version whose slot no sync was seen to make durable (its writer failed at
    /// phase 2's sync or died before it): the next write begin writes that slot again and syncs
    /// it, making it durable (Spec D7). Until then a power loss recovers `durable`.
    public var unconfirmedSlot: Version?
    /// The realm holding the write lock (Spec W1).
    public var writer: RealmID?
    /// Processes in which the file is poisoned by a failed write or sync (Spec D6).
    public var poisoned: Set<ProcessID>
    /// How many reader slots the lock file has (Spec L6).
    public var readerSlotCount: Int
    /// The identity the next created object gets. Spec W12: identities are never reused, not
    /// even those of a write that was rolled back (W5), so the counter lives here and not in a
    /// version's data, and a rollback does not restore it.
    public var nextObjectID: Int

    public init(location: FileLocation, first: Snapshot, readerSlotCount: Int) {
        self.location = location
        self.versions = [Version(1): first]
        self.newest = Version(1)
        self.durable = Version(1)
        self.adoptable = nil
        self.unconfirmedSlot = nil
        self.writer = nil
        self.poisoned = []
        self.readerSlotCount = readerSlotCount
        // A copy or a seed starts with objects: new identities come after theirs.
        self.nextObjectID = (first.objects.keys.map(\.rawValue).max() ?? 0) + 1
    }
}

/// A confinement context and the process it lives in.
public struct ContextState: Hashable, Sendable {
    public var process: ProcessID
    public var kind: ContextKind
}

/// An open write transaction.
public struct WriteTransaction: Hashable, Sendable {
    /// The version the transaction began at (the newest, Spec V11).
    public var startVersion: Version
    /// The transaction's working data: the start version plus its own changes (Spec V1, W4).
    public var snapshot: Snapshot
    /// Objects created in this transaction (Spec F11).
    public var createdObjects: Set<ObjectID>
    /// The async block this transaction runs for, if any (Spec A3).
    public var asyncBlock: AsyncWriteID?
    /// Whether a mutation was made in it (Spec N25: no observer may be added then).
    public var hasChanges = false
}

/// A `Realm` instance.
public struct RealmState: Hashable, Sendable {
    public var process: ProcessID
    /// The confining context; nil for a frozen realm, which any context may use (Spec C10).
    public var owner: ContextID?
    /// Opened with `Realm(queue:)` for a queue other than main (Spec C3).
    public var viaQueue: Bool
    public var configuration: Configuration
    public var isFrozen: Bool
    /// The version every read sees (Spec V1); nil before the first read and after
    /// `invalidate()` (Spec V10, V13).
    public var readVersion: Version?
    /// A frozen realm that was invalidated (Spec F6).
    public var frozenInvalidated: Bool
    public var write: WriteTransaction?
    public var autorefresh: Bool
    /// References to this instance the callers hold (Spec V6, F17).
    public var holders: Int
    public var isClosed: Bool
    /// Bumped by `invalidate()`: accessors from an earlier epoch are invalid for good (V13).
    public var epoch: Int
    /// Another realm committed while autorefresh was off: `.refreshRequired` is owed (N3); or
    /// while the realm was invalidated with autorefresh on: `.didChange` is owed (V14).
    public var refreshRequiredOwed: Bool
    /// Async blocks queued and not started, in FIFO order (Spec A2).
    public var asyncQueue: [AsyncBlock]
    /// Async commits published but not yet durable, grouped (Spec D10, A9).
    public var asyncGroups: [AsyncGroup]
    /// Completions whose commits are durable (or failed), waiting for a loop turn (Spec A9).
    public var completionsOwed: [AsyncCompletion]

    /// Spec C1, A21: work only this instance can finish, for which its context holds it.
    public var hasUnfinishedWork: Bool {
        write != nil || !asyncQueue.isEmpty || !asyncGroups.isEmpty || !completionsOwed.isEmpty
    }
}

/// What an accessor designates.
public enum HandleTarget: Hashable, Sendable {
    case object(ObjectID)
    case results(Query)
    case list(owner: ObjectID)
    /// An object that is not (yet) in a realm; `add` makes it managed (Spec W10).
    case unmanaged(type: String, primaryKey: Int, value: Int?)
}

/// An accessor a caller holds.
public struct HandleState: Hashable, Sendable {
    /// The realm the accessor reads through; nil for an unmanaged object.
    public var realm: RealmID?
    public var target: HandleTarget
    /// The realm's epoch when the accessor was made (Spec V13).
    public var epoch: Int
    /// Deleted through this accessor (`realm.delete(object)`): its `realm` is nil from then on,
    /// also when the write is cancelled, so it cannot be observed (Spec N19).
    public var detachedByDelete = false
}

/// What a thread-safe reference designates.
public enum ReferenceTarget: Hashable, Sendable {
    case object(ObjectID)
    case results(Query)
    case list(owner: ObjectID)
}

/// A `ThreadSafeReference`.
public struct ReferenceState: Hashable, Sendable {
    public var process: ProcessID
    public var location: FileLocation
    public var target: ReferenceTarget
    /// Spec T4: the version the reference was made at (after the commit when it was made inside a
    /// write that then committed).
    public var sourceVersion: Version
    /// The realm whose open write the reference was made in, until that write ends.
    public var madeInWriteOf: RealmID?
    public var isResolved: Bool
    public var isReleased: Bool

    /// Spec T8: every unresolved, unreleased reference pins its source version.
    public var pinsSourceVersion: Bool { !isResolved && !isReleased }
}

/// Something an observer's callback does when it runs, so that the model can state what
/// happens inside callbacks (Spec V5, N2, N5, N9, N17) without running caller code.
public enum CallbackAction: Hashable, Sendable {
    case none
    /// Calls `refresh()` on the observed realm.
    case refresh
    /// Invalidates a token (possibly its own).
    case invalidateToken(ObserverID)
    /// Runs `write { ... }` on the observed realm with these mutations.
    case write([Mutation])
    /// Adds a collection observer on the observed realm.
    case observeCollection(Query, as: ObserverID)
}

/// What an observer watches.
public enum ObserverTarget: Hashable, Sendable {
    case realm
    case collection(Query)
    case object(ObjectID)
}

/// A registered observer and what has been delivered to it.
public struct ObserverState: Hashable, Sendable {
    public var realm: RealmID
    public var target: ObserverTarget
    /// Object observers: the observed properties (nil: all). Spec N21.
    public var keyPaths: Set<PropertyName>?
    public var action: CallbackAction
    /// Where callbacks run: the realm's owner, or the context given to `observe(on:)` (N6, N18).
    public var deliveryContext: ContextID
    public var isActive: Bool
    /// Registered in an already-cancelled task: never called (Spec N23).
    public var isDead: Bool
    public var initialDelivered: Bool
    /// The version and contents the last delivery described (Spec N7).
    public var baselineVersion: Version
    public var baselineContents: [ObjectID]
    /// Object observers: the object as last delivered.
    public var baselineObject: StoredObject?
    /// Added during a delivery pass of its context: waits for the next pass (Spec N9).
    public var waitsForNextPass: Bool
    /// Object observers: properties of the List's elements named by nested key paths such as
    /// "list.value"; a change of one reports as `list` (Spec N21).
    public var nestedListPaths: Set<PropertyName> = []
    /// Object observers: properties of the link's target named by nested key paths such as
    /// "link.value"; a change of one reports as `link` (Spec N21).
    public var nestedLinkPaths: Set<PropertyName> = []
    /// Object observers: the primary key of the Item the object's link reached as last
    /// delivered (a link's old value, Spec N20).
    public var baselineLinkKey: Int?
}

/// An iteration over Results (Spec V15, V16).
public struct IteratorState: Hashable, Sendable {
    public var realm: RealmID
    public var epoch: Int
    public var elements: [ObjectID]
    public var position: Int
}

/// A write described without accessors: objects addressed by type and primary key. Async blocks
/// and callbacks carry their writes this way.
public enum Mutation: Hashable, Sendable {
    case create(type: String, primaryKey: Int, value: Int?)
    case setValue(type: String, primaryKey: Int, value: Int?)
    case delete(type: String, primaryKey: Int)
    case append(ownerType: String, ownerKey: Int, elementType: String, elementKey: Int)
    case setMapValue(
        ownerType: String, ownerKey: Int, key: String, elementType: String,
        elementKey: Int?)
}

/// How an async block ends.
public enum AsyncBlockEnding: Hashable, Sendable {
    /// `commitAsyncWrite(allowGrouping:)`.
    case commit(allowGrouping: Bool)
    /// `cancelWrite()` (Spec A3).
    case cancel
    /// The block throws (an `asyncWrite` block, Spec A14, A15).
    case throwError(code: Int)
    /// The block returns with its write still open: it is rolled back (Spec A19).
    case leaveOpen
}

/// A queued async block.
public struct AsyncBlock: Hashable, Sendable {
    public var id: AsyncWriteID
    public var mutations: [Mutation]
    public var ending: AsyncBlockEnding
    /// Whether a completion (or an awaiting `asyncWrite` caller) is told the result.
    public var hasCompletion: Bool
    /// Whether `cancelAsyncWrite` with the block's id reaches its commit's completion once the
    /// block has run (Spec A4: only the id `commitAsyncWrite` returned does). False for
    /// `writeAsync`, whose id names the block: the commit after it gets an id of its own, which
    /// the caller never sees.
    public var commitTakesBlockID = true
}

/// An async commit published and not yet durable.
public struct AsyncCommit: Hashable, Sendable {
    public var id: AsyncWriteID
    public var version: Version
    public var completionCancelled: Bool
    public var hasCompletion: Bool
    /// Whether `cancelAsyncWrite(id)` drops this completion (Spec A4; see `AsyncBlock`).
    public var isCancellable = true
}

/// Async commits made durable together (Spec D10, A9).
public struct AsyncGroup: Hashable, Sendable {
    public var commits: [AsyncCommit]
    public var isEnded: Bool
}

/// A completion waiting to run on the realm's scheduler.
public struct AsyncCompletion: Hashable, Sendable {
    public var id: AsyncWriteID
    public var error: ModelError?
    public var isCancellable = true
}

public struct ModelState: Hashable, Sendable {
    public var files: [FileLocation: FileState] = [:]
    public var contexts: [ContextID: ContextState] = [:]
    public var realms: [RealmID: RealmState] = [:]
    public var handles: [HandleID: HandleState] = [:]
    public var references: [ReferenceID: ReferenceState] = [:]
    /// `@ThreadSafe` cells: the value last assigned (Spec T10).
    public var cells: [CellID: ThreadSafeValue] = [:]
    public var observers: [ObserverID: ObserverState] = [:]
    public var iterators: [IteratorID: IteratorState] = [:]
    /// Facts about paths outside the model (Spec X4, X6, X12).
    public var pathConditions: [String: Set<PathCondition>] = [:]
    /// Realms that the model creates itself (frozen realms of frozen accessors) take identifiers
    /// counting down from -1, so they never collide with the caller's.
    public var nextInternalRealm: Int = -1
    /// Observers whose callbacks are running, innermost last (Spec N5, V5).
    public var callbackStack: [ObserverID] = []
    /// Reader slots per file for new files (Spec L6).
    public var readerSlotCount: Int
    /// The callbacks that ran during the step in progress; empty between steps.
    var eventLog: [Event] = []
    /// Commits per file and version: which realm made each (Spec N20: a realm's own commits
    /// report no old values).
    public var committers: [FileLocation: [Version: RealmID]] = [:]

    public init(readerSlotCount: Int = 64) {
        self.readerSlotCount = readerSlotCount
    }
}

/// The value of a `@ThreadSafe` cell.
public struct ThreadSafeValue: Hashable, Sendable {
    /// The process holding the value: a cell's reference pins its source version there (T8).
    public var process: ProcessID
    public var location: FileLocation
    public var target: ReferenceTarget
    public var sourceVersion: Version
    /// Spec T10, T4: assigned inside this realm's open write; its commit becomes the source.
    public var madeInWriteOf: RealmID? = nil
}
