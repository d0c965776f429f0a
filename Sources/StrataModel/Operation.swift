// Everything a caller (or the engine, where it may choose) can do, as data. An operation runs
// in a context (`Step.context`): the thread, queue or actor that makes the call. Where the engine
// may legally choose (when a loop turns, when a background sync finishes, which crash window),
// the choice is an operation or an argument, so an engine history replays exactly.

/// `Realm.UpdatePolicy`.
public enum UpdatePolicy: Hashable, Sendable {
    case error, modified, all
}

/// How the engine's commit goes; the harness passes what happened to the engine.
public enum CommitFate: Hashable, Sendable {
    case success
    /// The commit fails and the call throws (Spec W17, D6, L8).
    case failure(CommitFailure)
    /// The machine crashes in this window of the commit (Spec D2, D3).
    case machineCrash(CommitWindow)
    /// The committing process is killed in this window (Spec W8).
    case processKilled(CommitWindow)
}

/// The windows of Docs/architecture.md §2's commit where a crash can strike.
public enum CommitWindow: Hashable, Sendable, CaseIterable {
    case duringPageWrites
    case afterPhaseOneSync
    /// During the slot write; reopen finds the new version only if the slot reached the disk.
    case duringSlotWriteSlotLost
    case duringSlotWriteSlotWritten
    case afterSlotSync
    case beforePublish

    /// Whether the new version's slot is in the file (page cache or disk).
    var slotWritten: Bool {
        switch self {
        case .duringPageWrites, .afterPhaseOneSync, .duringSlotWriteSlotLost: return false
        case .duringSlotWriteSlotWritten, .afterSlotSync, .beforePublish: return true
        }
    }

    /// Whether phase 2's sync returned, so the new version survives power loss (Spec D3).
    var slotSynced: Bool { self == .afterSlotSync || self == .beforePublish }
}

/// An aggregate of the `value` property (Spec V21).
public enum Aggregate: String, Hashable, Sendable, CaseIterable {
    case min, max, sum, average

    /// The answer over `values`: nils are skipped; `min`, `max` and `average` of no value are
    /// nil, `sum` of none is zero; the sum wraps at 64 bits; the average adds the values as
    /// doubles, in order, and divides by their count.
    public func answer(_ values: [Int?]) -> AggregateAnswer? {
        let present = values.compactMap { $0 }
        switch self {
        case .min: return present.min().map(AggregateAnswer.int)
        case .max: return present.max().map(AggregateAnswer.int)
        case .sum: return .int(present.reduce(0, &+))
        case .average:
            guard !present.isEmpty else { return nil }
            return .double(present.reduce(0.0) { $0 + Double($1) } / Double(present.count))
        }
    }
}

/// What an aggregate returned: an integer (`min`, `max`, `sum` of integers) or a double (an
/// average).
public enum AggregateAnswer: Hashable, Sendable, CustomStringConvertible {
    case int(Int)
    case double(Double)

    public var description: String {
        switch self {
        case .int(let number): return "\(number)"
        case .double(let number): return "\(number)"
        }
    }
}

/// The key a sectioned read gives each object from its `value` (generation 15, Spec V27): the
/// quotient by `divisor` follows the sort by value; the remainder by `modulus` does not, so
/// a key comes back after others and joins its first section. A null value has a null key.
public enum SectionKey: Hashable, Sendable, CustomStringConvertible {
    case quotient(Int)
    case remainder(Int)

    public func key(of value: Int?) -> Int? {
        guard let value else { return nil }
        switch self {
        case .quotient(let divisor): return divisor == 0 ? value : value / divisor
        case .remainder(let modulus): return modulus == 0 ? value : value % modulus
        }
    }

    public var description: String {
        switch self {
        case .quotient(let divisor): return "value / \(divisor)"
        case .remainder(let modulus): return "value % \(modulus)"
        }
    }
}

/// One section of a sectioned read: its key and its objects' primary keys, in order.
public struct SectionReading: Hashable, Sendable, CustomStringConvertible {
    public var key: Int?
    public var primaryKeys: [Int]
    public init(key: Int?, primaryKeys: [Int]) {
        self.key = key
        self.primaryKeys = primaryKeys
    }
    public var description: String { "\(key.map(String.init) ?? "nil"): \(primaryKeys)" }
}

/// How a `write {}` block ends.
public enum WriteBlockEnding: Hashable, Sendable {
    case commit
    /// `cancelWrite()` inside the block (Spec W5).
    case cancelInBlock
    /// The block throws (Spec W6).
    case throwError(code: Int)
}

public enum Operation: Hashable, Sendable {
    // Setup
    case addContext(ContextID, process: ProcessID, kind: ContextKind)
    case setPathCondition(String, PathCondition)

    // Realms
    case open(Configuration, confinement: Confinement, as: RealmID)
    case asyncOpen(Configuration, as: RealmID)
    case release(RealmID)
    case close(RealmID)
    case setAutorefresh(RealmID, Bool)
    case getAutorefresh(RealmID)
    case refresh(RealmID)
    case asyncRefresh(RealmID)
    /// `asyncRefresh()` from a task that is cancelled before the refresh completes (Spec V17).
    case asyncRefreshInCancelledTask(RealmID)
    case invalidate(RealmID)
    case freezeRealm(RealmID, as: RealmID)
    case thawRealm(RealmID, as: RealmID)
    case isEmpty(RealmID)
    case isInWriteTransaction(RealmID)
    case readConfiguration(RealmID)

    // Reads
    case objects(RealmID, Query, as: HandleID)
    case objectForPrimaryKey(RealmID, type: String, primaryKey: Int, as: HandleID)
    case listOf(HandleID, as: HandleID)
    /// `item.listedByItems` or `item.listedByOthers` (generation 14, Spec V26): the
    /// LinkingObjects of an Item through the `list` of `ownerType`, as a Results handle.
    case linkingObjectsOf(HandleID, ownerType: String, as: HandleID)
    case read(HandleID)
    case element(HandleID, at: Int, as: HandleID)
    case isInvalidated(HandleID)
    /// `object.realm`: the realm instance of an accessor, nil when unmanaged or deleted.
    case realmOf(HandleID)
    case releaseHandle(HandleID)
    case iterate(HandleID, as: IteratorID)
    case iteratorNext(IteratorID, as: HandleID)
    /// `min`, `max`, `sum` or `average` of `value` over a collection's elements (Spec V21).
    case aggregate(HandleID, Aggregate)
    /// `collection.sectioned(sortDescriptors: [value, ascending]) { key(of: $0.value) }` read
    /// whole: each section's key and objects (generation 15, Spec V27).
    case sectioned(HandleID, by: SectionKey, ascending: Bool)

    // Writes
    case beginWrite(RealmID)
    case commitWrite(RealmID, withoutNotifying: [ObserverID], fate: CommitFate)
    case cancelWrite(RealmID)
    case writeBlock(
        RealmID, [Mutation], ending: WriteBlockEnding, withoutNotifying: [ObserverID],
        fate: CommitFate)
    case apply(RealmID, [Mutation])
    case makeUnmanaged(type: String, primaryKey: Int, value: Int?, as: HandleID)
    case add(RealmID, HandleID, update: UpdatePolicy)
    /// `create(T, value: o)` with `o` managed by another realm: a deep copy (Spec W14).
    case createCopy(RealmID, of: HandleID, as: HandleID)
    case create(
        RealmID, type: String, primaryKey: Int, value: Int?, update: UpdatePolicy,
        as: HandleID)
    case setValue(HandleID, Int?)
    /// `object.link = target` (nil: no target): the to-one link of a type that has one, to an
    /// Item of the same realm instance (Spec V20, W9, W12).
    case setLink(HandleID, target: HandleID?)
    case append(list: HandleID, element: HandleID)
    case removeFromList(HandleID, at: Int)
    /// `owner.set.insert(element)` on a Linker's set of Items (generation 11, Spec V24, W9).
    case insertIntoSet(HandleID, element: HandleID)
    /// `owner.set.remove(element)` (Spec V24: an element the set does not hold changes nothing).
    case removeFromSet(HandleID, element: HandleID)
    /// `owner.map[key] = element`, or `owner.map.updateValue(nil, forKey: key)` for nil, on a
    /// Linker's Map of Items (generation 12, Spec V25, W9): a null value keeps its key.
    case setMapValue(HandleID, key: String, element: HandleID?)
    /// `owner.map.removeObject(for: key)` (Spec V25: a key the map lacks changes nothing).
    case removeMapKey(HandleID, key: String)
    case delete(RealmID, HandleID)
    case deleteAll(RealmID)

    // Freeze and thaw of accessors
    case freezeHandle(HandleID, as: HandleID)
    case thawHandle(HandleID, as: HandleID)
    case frozenEqual(HandleID, HandleID)

    // Thread-safe references
    case makeReference(HandleID, as: ReferenceID)
    case resolve(ReferenceID, in: RealmID, as: HandleID)
    case releaseReference(ReferenceID)
    case assignThreadSafe(CellID, HandleID?)
    case readThreadSafe(CellID, in: RealmID, as: HandleID)

    // Notifications
    case observeRealm(RealmID, action: CallbackAction, as: ObserverID)
    case observeCollection(
        HandleID, action: CallbackAction, on: ContextID?,
        inCancelledTask: Bool, as: ObserverID)
    case observeObject(HandleID, keyPaths: [String]?, as: ObserverID)
    case invalidateToken(ObserverID)
    /// One turn of the context's event loop: the engine chooses when (Spec V7, N7, A18).
    case turnLoop

    // Async writes
    case writeAsync(RealmID, [Mutation], as: AsyncWriteID)
    case beginAsyncWrite(RealmID, [Mutation], ending: AsyncBlockEnding, as: AsyncWriteID)
    case asyncWrite(
        RealmID, [Mutation], ending: AsyncBlockEnding, taskCancelled: Bool,
        as: AsyncWriteID)
    case commitAsyncWrite(RealmID, allowGrouping: Bool, as: AsyncWriteID)
    case cancelAsyncWrite(RealmID, AsyncWriteID)
    case isPerformingAsynchronousWriteOperations(RealmID)
    /// The background thread finishes the durable commit of the realm's oldest ended group;
    /// `fails` says whether its write or sync failed. The engine chooses when (Spec A18).
    case syncAsyncGroup(RealmID, fails: Bool)

    // Crashes
    /// Power loss with no commit in progress. `keepUnsyncedSlots`: whether a slot written but
    /// not synced reached the disk (Spec D2).
    case crashMachine(keepUnsyncedSlots: Bool)
    case killProcess(ProcessID)

    // Files
    case fileExists(Configuration)
    case deleteFiles(Configuration)
    case writeCopy(RealmID, toPath: String)
}

/// One operation and the context it runs in.
public struct Step: Hashable, Sendable, CustomStringConvertible {
    public var context: ContextID
    public var operation: Operation
    public init(_ context: ContextID, _ operation: Operation) {
        self.context = context
        self.operation = operation
    }
    public var description: String { "\(context): \(operation)" }
}
