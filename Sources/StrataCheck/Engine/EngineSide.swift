import Foundation
import Strata
import StrataModel
import StrataStorage

/// The engine side of a lockstep run: performs model operations through the Realm API (its
/// throwing `package` entry points, so that a rejection is an observation rather
/// than a trap) and reports what happened as an `Observation`.
///
/// The tables map the model's identifiers to live Strata values. Live values are confined to
/// their thread, which the harness respects except where an operation deliberately uses one
/// from another thread (the engine must reject that, Spec C5 to C8): hence `@unchecked`.
/// Only one controlled thread runs at a time; `lock` orders the table accesses for TSan.
final class EngineSide: @unchecked Sendable {
    /// A `HarnessLock`, not an NSLock: values released inside it may unpin, and the controlled
    /// threads must not park while holding it.
    let lock = HarnessLock<Void>(())
    private var realms = RealmTable()
    var accessors = AccessorTable()
    /// Generation 5 (`EngineSide+Generation5`): the `@ThreadSafe` cells by the model's
    /// identifiers, the copies `writeCopy` made (deleted when the run ends), what each step read
    /// back from its copy, and where copies go.
    var cells: [CellID: EngineCell] = [:]
    var copies: [String] = []
    var copyContents: [String: Observation] = [:]
    var copyDirectory = CheckSettings.defaultScratchDirectory
    var copyStem = "strata-check"
    /// The tokens of the observers registered, by the model's identifiers.
    var tokens: [ObserverID: NotificationToken] = [:]
    /// Every callback the observers received, in order (`EngineSide+Notifications`).
    let deliveries = DeliveryLog()
    /// The configuration of the current boot (a crash moves to a new simulated disk); every
    /// model `open` means this.
    private(set) var configuration: Realm.Configuration
    /// The serial queue of each context that is one: every operation of such a context runs
    /// in a block on its queue (`perform(_:)`), as an app's would.
    private var queues: [ContextID: DispatchQueue] = [:]
    /// Async writes (`EngineSide+AsyncWrites`): what blocks and completions did, the held
    /// group sync, the realms each context queued work on, the engine's ids for the model's,
    /// and the contexts whose last step let a held sync go.
    let asyncLog = AsyncWriteLog()
    let groupSyncGate = GroupSyncGate()
    var asyncRealms: [ContextID: Set<RealmID>] = [:]
    var asyncIDs: [AsyncWriteID: (realm: RealmID, engineID: AsyncTransactionId)] = [:]
    var lastReleased: Set<ContextID> = []
    /// A problem the last drain of a queue's async work found (`drainAsync`).
    private(set) var asyncProblem: String?
    /// Where the engine side marks the harness's probes it alone sees (an iterator reusing an
    /// object, `EngineSide+Iteration`).
    let probes: ProbeCounter

    init(configuration: Realm.Configuration, probes: ProbeCounter = ProbeCounter()) {
        self.configuration = configuration
        self.probes = probes
    }

    /// Drops every value (after a crash every instance of the old boot is gone) and uses
    /// `configuration` from now on. A held group sync is let go and, when `awaitingSyncs`,
    /// waited for: not while a controlled thread may be parked with the write lock, which that
    /// sync needs (`Runner.settleAllThreads`); the next reset waits for it then.
    func reset(to configuration: Realm.Configuration, awaitingSyncs: Bool = true) {
        // The run's contexts end here without their threads or queues ending: the realms they
        // hold for unfinished work (an open write, async blocks; Spec C1, A21) are let go too,
        // so dropping every value below ends them and frees the write lock (W7).
        Realm._releaseContextHolds(of: lock.withLock { _ in self.configuration })
        let dropped = lock.withLock { _ -> [NotificationToken] in
            realms = RealmTable()
            accessors = AccessorTable()
            cells = [:]
            copyContents = [:]
            self.configuration = configuration
            defer { tokens = [:] }
            return Array(tokens.values)
        }
        // An observer keeps its collection and realm alive until its token is invalidated (the
        // realm's scheduler then drops it): the old boot's realms must not call back, nor live on.
        for token in dropped { token.invalidate() }
        deliveries.clear()
        // A group sync held for the old boot goes on against the old disk, which nothing reads
        // any more; the old realms' later blocks and completions are not recorded.
        let holds = groupSyncGate.holdsSyncs
        if awaitingSyncs { releaseHeldSyncs() } else { groupSyncGate.setHolding(false) }
        asyncLog.reset()
        lock.withLock { _ in
            asyncRealms = [:]
            asyncIDs = [:]
            lastReleased = []
        }
        groupSyncGate.setHolding(holds)
    }

    /// The engine version each realm reads, for the version-stamp checks.
    func readVersion(of realm: RealmID) -> UInt64? {
        lock.withLock { _ in realms[realm] }?._readVersion
    }

    private func realm(_ id: RealmID) -> Realm? { lock.withLock { _ in realms[id] } }
    /// The realm `id`, also after the caller let go of it while its instance lives on (Spec C1,
    /// A21: its context holds it for its async work).
    func heldOrReleased(_ id: RealmID) -> Realm? { lock.withLock { _ in realms.instance(id) } }
    func handle(_ id: HandleID) -> EngineHandle? { lock.withLock { _ in accessors.handles[id] } }
    private func store(_ handle: EngineHandle, as id: HandleID) {
        lock.withLock { _ in accessors.handles[id] = handle }
    }

    /// Makes `context` a serial queue context running its operations on `queue`.
    func setQueue(_ queue: DispatchQueue, of context: ContextID) {
        lock.withLock { _ in queues[context] = queue }
    }

    /// Performs `step` on the calling (controlled) thread, inside a block on the context's
    /// queue when it has one (`DispatchQueue.sync` runs the block on the calling thread, so the
    /// controlled thread still parks at its switch points).
    ///
    /// Once the run has observers, a queue context's operation is followed by an empty block
    /// on its queue, which waits for the blocks the operation left there (the delivery turn a
    /// commit or an `observe` schedules, Spec N7, N8): they run now, in this step, rather than
    /// at a moment no schedule orders. A `turnLoop` step is that wait alone.
    func perform(_ step: Step) -> Observation {
        guard let queue = lock.withLock({ _ in queues[step.context] }) else {
            return perform(step.operation, in: step.context)
        }
        let observation = queue.sync {
            // Let go inside the block: the turn the sync's end schedules then comes after it.
            releaseHeldSyncIfNeeded(for: step)
            let observation = perform(step.operation, in: step.context)
            // Inside the block: once it ends, the turns the operation left may run at once.
            asyncLog.markOperationEnd(of: step.context)
            return observation
        }
        if deliveries.isActive { queue.sync {} }
        if asyncLog.isActive, let problem = drainAsync(on: queue, context: step.context) {
            lock.withLock { _ in asyncProblem = problem }
        }
        return observation
    }

    /// The problem the last drain found, once.
    func takeAsyncProblem() -> String? {
        lock.withLock { _ in
            defer { asyncProblem = nil }
            return asyncProblem
        }
    }

    private func perform(_ operation: StrataModel.Operation, in context: ContextID) -> Observation {
        do throws(Realm.Error) {
            if let observation = try dispatchNotification(operation, in: context) { return observation }
            if let observation = try dispatchAsync(operation, in: context) { return observation }
            if let observation = try dispatchGeneration5(operation) { return observation }
            if let observation = try dispatchIteration(operation) { return observation }
            return try dispatch(operation)
        } catch {
            return .failure(code: error.modelCode, message: error.message)
        }
    }

    /// The queue number (`QueuePool.numberKey`) of `context`'s queue, if it is a queue context.
    func queueNumber(of context: ContextID) -> Int? {
        lock.withLock { _ in queues[context] }?.getSpecific(key: QueuePool.numberKey)
    }

    private func dispatch(_ operation: StrataModel.Operation) throws(Realm.Error) -> Observation {
        switch operation {
        case .open(_, let confinement, let id):
            var queue: DispatchQueue?
            if case .queue(let context) = confinement {
                queue = lock.withLock { _ in queues[context] }
                guard queue != nil else { return unsupported(operation) }
            }
            let opened = try Realm._open(configuration: lock.withLock { _ in configuration }, queue: queue)
            // A queue realm's autorefresh turns are blocks its queue runs whenever another
            // thread commits, at moments the schedule does not order; the harness switches it
            // off in the same block as the open, and the model takes the same step
            // (`Runner.queueRealmOpened`).
            if queue != nil { try opened._setAutorefresh(false) }
            return .realm(lock.withLock { _ in realms.hold(opened, openedAs: id) })
        case .release(let id):
            lock.withLock { _ in realms.release(id) }
            return .done
        case .refresh(let id):
            return .bool(try required(id)._refresh())
        case .invalidate(let id):
            try required(id)._invalidate()
            return .done
        case .isInWriteTransaction(let id):
            return .bool(try required(id).isInWriteTransaction)
        case .beginWrite(let id):
            try required(id)._beginWrite()
            return .done
        case .commitWrite(let id, let skipped, _):
            try commit(try required(id), skipping: skipped)
            return .done
        case .cancelWrite(let id):
            try required(id)._cancelWrite()
            return .done
        case .freezeRealm(let id, let frozenID):
            let source = try required(id)
            let frozen = try source._freeze()
            // Spec F5: a frozen realm freezes to itself. Whether two freezes of a live realm
            // share an instance, the Spec leaves open; the harness names each its own.
            if source.isFrozen { return .realm(frozen == source ? id : frozenID) }
            lock.withLock { _ in realms.hold(frozen: frozen, as: frozenID) }
            return .realm(frozenID)
        case .objects(let realmID, let query, let id):
            let realm = try required(realmID)
            guard case .table(let type) = query.source else { return unsupported(operation) }
            switch type {
            case "Item": store(.itemResults(try Self.shape(try realm._objects(Item.self), query)), as: id)
            case "Linker": store(.linkerResults(try Self.shape(try realm._objects(Linker.self), query)), as: id)
            default: store(.otherResults(try Self.shape(try realm._objects(Other.self), query)), as: id)
            }
            return .handle(id)
        case .objectForPrimaryKey(let realmID, let type, let primaryKey, let id):
            let realm = try required(realmID)
            let object = try realm._object(ofType: CheckTypes.type(named: type), forPrimaryKey: primaryKey)
            guard let object else { return .handle(nil) }
            store(.object(object), as: id)
            return .handle(id)
        case .create(let realmID, let type, let primaryKey, let value, let policy, let id):
            let realm = try required(realmID)
            let fields: [String: Any] = ["primaryKey": primaryKey, "value": value as Any]
            let update = Self.updatePolicy(policy)
            let object = try realm._create(CheckTypes.type(named: type), value: fields, update: update)
            store(.object(object), as: id)
            return .handle(id)
        case .read(let id):
            guard let handle = handle(id) else { return unsupported(operation) }
            switch handle {
            case .object(let object): return .object(try Self.reading(object))
            case .itemResults(let results): return .elements(try Self.readings(results))
            case .otherResults(let results): return .elements(try Self.readings(results))
            case .linkerResults(let results): return .elements(try Self.readings(results))
            case .list(let list): return .elements(try Self.readings(list))
            }
        case .aggregate(let id, let function):
            guard let handle = handle(id) else { return unsupported(operation) }
            switch handle {
            case .object: return unsupported(operation)
            case .itemResults(let results): return .aggregate(try Self.aggregate(function, of: results))
            case .otherResults(let results): return .aggregate(try Self.aggregate(function, of: results))
            case .linkerResults(let results): return .aggregate(try Self.aggregate(function, of: results))
            case .list(let list): return .aggregate(try Self.aggregate(function, of: list))
            }
        case .sectioned(let id, let key, let ascending):
            guard let handle = handle(id) else { return unsupported(operation) }
            switch handle {
            case .object: return unsupported(operation)
            case .itemResults(let results):
                return .sections(try Self.sections(of: results, by: key, ascending: ascending))
            case .otherResults(let results):
                return .sections(try Self.sections(of: results, by: key, ascending: ascending))
            case .linkerResults(let results):
                return .sections(try Self.sections(of: results, by: key, ascending: ascending))
            case .list(let list): return .sections(try Self.sections(of: list, by: key, ascending: ascending))
            }
        case .setValue(let id, let value):
            guard case .object(let object) = handle(id) else { return unsupported(operation) }
            try object._setValue(value, forKey: "value")
            return .done
        case .setLink(let ownerID, let targetID):
            // Spec V20, W9, W12: `owner.link = target` as an app sets it, by key.
            guard case .object(let owner) = handle(ownerID) else { return unsupported(operation) }
            var target: Object?
            if let targetID {
                guard case .object(let object) = handle(targetID) else { return unsupported(operation) }
                target = object
            }
            try owner._setValue(target, forKey: "link")
            return .done
        case .delete(let realmID, let id):
            let realm = try required(realmID)
            guard case .object(let object) = handle(id) else { return unsupported(operation) }
            try realm._delete(object)
            return .done
        case .listOf(let ownerID, let id):
            guard case .object(let owner) = handle(ownerID), let checked = owner as? any CheckObject else {
                return unsupported(operation)
            }
            _ = try owner._value(forKey: "primaryKey")  // the checks (thread, invalidation) that throw
            store(.list(checked.list), as: id)
            return .handle(id)
        case .linkingObjectsOf(let targetID, let ownerType, let id):
            guard case .object(let object) = handle(targetID), let item = object as? Item else {
                return unsupported(operation)
            }
            _ = try item._value(forKey: "primaryKey")  // the checks (thread, invalidation) that throw
            // Spec V26: the property as an app reads it; its Results are what the harness keeps.
            if ownerType == "Item", let results = item.listedByItems._results {
                store(.itemResults(results), as: id)
            } else if ownerType == "Other", let results = item.listedByOthers._results {
                store(.otherResults(results), as: id)
            } else {
                return unsupported(operation)
            }
            return .handle(id)
        case .append(let listID, let elementID):
            guard case .list(let list) = handle(listID), case .object(let element) = handle(elementID),
                let item = element as? Item
            else { return unsupported(operation) }
            try list._append(item)
            return .done
        case .removeFromList(let listID, let index):
            guard case .list(let list) = handle(listID) else { return unsupported(operation) }
            _ = try list._remove(at: index)
            return .done
        case .insertIntoSet(let ownerID, let elementID), .removeFromSet(let ownerID, let elementID):
            // Spec V24: `owner.set.insert(item)` / `.remove(item)`, the owner read first as an
            // app's property read reads it (its checks throw here rather than trap).
            guard case .object(let owner) = handle(ownerID), let linker = owner as? Linker,
                case .object(let element) = handle(elementID), let item = element as? Item
            else { return unsupported(operation) }
            _ = try owner._value(forKey: "primaryKey")
            if case .insertIntoSet = operation {
                try linker.set._insert(item)
            } else {
                try linker.set._remove(item)
            }
            return .done
        case .setMapValue(let ownerID, let key, let elementID):
            // Spec V25: `owner.map[key] = item`, or `updateValue(nil, forKey:)` for nil.
            guard case .object(let owner) = handle(ownerID), let linker = owner as? Linker else {
                return unsupported(operation)
            }
            var item: Item?
            if let elementID {
                guard case .object(let element) = handle(elementID), let target = element as? Item else {
                    return unsupported(operation)
                }
                item = target
            }
            _ = try owner._value(forKey: "primaryKey")
            if let item, Self.keyValueCodedMapKeys.contains(key) {
                try linker.map._setValue(item, forKey: key)  // Spec V25: the same write by key-value coding
            } else {
                try linker.map._updateValue(item, forKey: key)
            }
            return .done
        case .removeMapKey(let ownerID, let key):
            guard case .object(let owner) = handle(ownerID), let linker = owner as? Linker else {
                return unsupported(operation)
            }
            _ = try owner._value(forKey: "primaryKey")
            if Self.keyValueCodedMapKeys.contains(key) {
                try linker.map._setValue(nil, forKey: key)  // Spec V25: nil removes the key
            } else {
                try linker.map._removeObject(for: key)
            }
            return .done
        case .freezeHandle(let id, let frozenID):
            guard let handle = handle(id) else { return unsupported(operation) }
            switch handle {
            case .object(let object):
                return identified(.object(try object._freeze()), as: frozenID)
            case .itemResults(let results):
                return collection(
                    .itemResults(try results._freeze()), from: id, sourceWasTarget: results.isFrozen, as: frozenID)
            case .otherResults(let results):
                return collection(
                    .otherResults(try results._freeze()), from: id, sourceWasTarget: results.isFrozen, as: frozenID)
            case .linkerResults(let results):
                return collection(
                    .linkerResults(try results._freeze()), from: id, sourceWasTarget: results.isFrozen, as: frozenID)
            case .list(let list):
                return collection(.list(try list._freeze()), from: id, sourceWasTarget: list.isFrozen, as: frozenID)
            }
        case .thawHandle(let id, let thawedID):
            guard let handle = handle(id) else { return unsupported(operation) }
            switch handle {
            case .object(let object):
                guard let thawed = try object._thaw() else { return .handle(nil) }
                return identified(.object(thawed), as: thawedID)
            case .itemResults(let results):
                guard let thawed = try results._thaw() else { return .handle(nil) }
                return collection(.itemResults(thawed), from: id, sourceWasTarget: !results.isFrozen, as: thawedID)
            case .otherResults(let results):
                guard let thawed = try results._thaw() else { return .handle(nil) }
                return collection(.otherResults(thawed), from: id, sourceWasTarget: !results.isFrozen, as: thawedID)
            case .linkerResults(let results):
                guard let thawed = try results._thaw() else { return .handle(nil) }
                return collection(.linkerResults(thawed), from: id, sourceWasTarget: !results.isFrozen, as: thawedID)
            case .list(let list):
                guard let thawed = try list._thaw() else { return .handle(nil) }
                return collection(.list(thawed), from: id, sourceWasTarget: !list.isFrozen, as: thawedID)
            }
        case .makeReference(let id, let referenceID):
            guard let handle = handle(id) else { return unsupported(operation) }
            let reference: EngineReference
            switch handle {
            case .object(let object): reference = .object(try ThreadSafeReference._make(to: object))
            case .itemResults(let results): reference = .itemResults(try ThreadSafeReference._make(to: results))
            case .otherResults(let results): reference = .otherResults(try ThreadSafeReference._make(to: results))
            case .linkerResults(let results): reference = .linkerResults(try ThreadSafeReference._make(to: results))
            case .list(let list): reference = .list(try ThreadSafeReference._make(to: list))
            }
            lock.withLock { _ in accessors.references[referenceID] = reference }
            return .done
        case .resolve(let referenceID, let realmID, let id):
            let realm = try required(realmID)
            guard let reference = lock.withLock({ _ in accessors.references[referenceID] }) else {
                return unsupported(operation)
            }
            let resolved: EngineHandle?
            switch reference {
            case .object(let reference): resolved = try realm._resolve(reference).map { .object($0) }
            case .itemResults(let reference): resolved = try realm._resolve(reference).map { .itemResults($0) }
            case .otherResults(let reference): resolved = try realm._resolve(reference).map { .otherResults($0) }
            case .linkerResults(let reference): resolved = try realm._resolve(reference).map { .linkerResults($0) }
            case .list(let reference): resolved = try realm._resolve(reference).map { .list($0) }
            }
            guard let resolved else { return .handle(nil) }
            store(resolved, as: id)
            return .handle(id)
        case .releaseHandle(let id):
            lock.withLock { _ in accessors.handles[id] = nil }
            return .done
        case .apply(let realmID, let mutations):
            let realm = try required(realmID)
            for mutation in mutations { try Self.apply(mutation, in: realm) }
            return .done
        default:
            return unsupported(operation)
        }
    }

    /// Map keys the engine side writes by key-value coding (`setValue(_:forKey:)`, nil to remove:
    /// Spec V25) rather than by `updateValue` and `removeObject`, so that both ways are checked
    /// against the one model operation (a null value is always stored by `updateValue`).
    static let keyValueCodedMapKeys: Set<String> = ["d", "e"]

    /// One `Mutation` as an app writes it: objects named by primary key.
    static func apply(_ mutation: Mutation, in realm: Realm) throws(Realm.Error) {
        switch mutation {
        case .create(let type, let primaryKey, let value):
            let fields: [String: Any] = ["primaryKey": primaryKey, "value": value as Any]
            _ = try realm._create(CheckTypes.type(named: type), value: fields, update: .error)
        case .setValue(let type, let primaryKey, let value):
            try existing(CheckTypes.type(named: type), primaryKey, in: realm)
                ._setValue(value, forKey: "value")
        case .delete(let type, let primaryKey):
            try realm._delete(existing(CheckTypes.type(named: type), primaryKey, in: realm))
        case .append, .setMapValue:
            throw Realm.Error(.programmerError, "strata-check: the engine side does not apply \(mutation)")
        }
    }

    /// The object a mutation names by primary key. The model rejects a key that is not there
    /// as an invalidated object, after it has checked for a write (Spec W9); an app would
    /// find nil. The lookup makes the realm's own checks (thread, closed, poisoned) first.
    static func existing(_ type: Object.Type, _ primaryKey: Int, in realm: Realm) throws(Realm.Error) -> Object {
        if let object = try realm._object(ofType: type, forPrimaryKey: primaryKey) { return object }
        let error: ModelError = realm.isInWriteTransaction ? .objectInvalidated : .notInWrite
        throw Realm.Error(.programmerError, error.message)
    }

    private func identified(_ handle: EngineHandle, as id: HandleID) -> Observation {
        .handle(lock.withLock { _ in accessors.identify(handle, as: id) })
    }

    private func collection(
        _ handle: EngineHandle, from source: HandleID, sourceWasTarget: Bool,
        as id: HandleID
    ) -> Observation {
        .handle(
            lock.withLock { _ in
                accessors.collection(handle, from: source, sourceWasTarget: sourceWasTarget, as: id)
            })
    }

    func required(_ id: RealmID) throws(Realm.Error) -> Realm {
        guard let realm = realm(id) else {
            throw Realm.Error(.programmerError, "strata-check: no engine realm \(id)")
        }
        return realm
    }

    func unsupported(_ operation: StrataModel.Operation) -> Observation {
        .failure(code: "harness", message: "the engine side cannot perform \(operation)")
    }

    private static func updatePolicy(_ policy: StrataModel.UpdatePolicy) -> Realm.UpdatePolicy {
        switch policy {
        case .error: return .error
        case .modified: return .modified
        case .all: return .all
        }
    }

    /// The model's query on engine Results: `value >= minimum`, then value order with ties by
    /// primary key (nil first), the order of the linked Item's value (Spec V20: the key path
    /// "link.value" as an app writes it, refused for a type without a link), or the table's
    /// primary-key order.
    private static func shape<T: CheckObject>(_ results: Results<T>, _ query: StrataModel.Query)
        throws(Realm.Error) -> Results<T>
    {
        var shaped = results
        if let format = FilterFormat(query) {
            // Generation 10 (Spec V23): the same filter in a predicate format.
            shaped = try shaped._filter(format.format, arguments: format.arguments.map(\.value))
        } else {
            if let minimum = query.minimumValue {
                shaped = shaped.where { $0.value >= minimum }
            }
            if let equal = query.equalValue {
                shaped = shaped.where { $0.value == equal }  // Spec W26: Item's and Linker's value is indexed
            }
            if let linkMinimum = query.linkMinimumValue {
                shaped = try Self.throughLink(shaped, atLeast: linkMinimum)  // Spec V23
            }
        }
        switch query.sort {
        case .sourceOrder: break
        case .value:
            shaped = shaped.sorted(by: [
                SortDescriptor(keyPath: "value", ascending: true),
                SortDescriptor(keyPath: "primaryKey", ascending: true),
            ])
        case .linkValue(let ascending):
            shaped = try shaped._sorted(by: [
                SortDescriptor(keyPath: "link.value", ascending: ascending),
                SortDescriptor(keyPath: "primaryKey", ascending: true),
            ])
        }
        switch query.distinct {
        case nil: return shaped
        case .value?: return try shaped._distinct(by: ["value"])  // Spec V22
        case .linkValue?: return try shaped._distinct(by: ["link.value"])
        }
    }

    /// `where { $0.link.value >= minimum }` of Linker Results (Spec V23: the typed query
    /// through a to-one link); no other type has the link.
    private static func throughLink<T: CheckObject>(_ results: Results<T>, atLeast minimum: Int)
        throws(Realm.Error) -> Results<T>
    {
        guard let linkers = results as? Results<Linker> else {
            throw Realm.Error(.programmerError, "strata-check: only Linkers filter through a link")
        }
        guard let filtered = linkers.where({ $0.link.value >= minimum }) as? Results<T> else {
            throw Realm.Error(.programmerError, "strata-check: Linker Results are Results of Linkers")
        }
        return filtered
    }

    static func reading(_ object: Object) throws(Realm.Error) -> Reading? {
        guard let primaryKey = try object._value(forKey: "primaryKey") as? Int else { return nil }
        let value = try object._value(forKey: "value") as? Int
        var listKeys: [Int] = []
        if let checked = object as? any CheckObject {
            let list = checked.list
            let count = try list._count()
            for index in 0..<count {
                listKeys.append(try list._element(at: index).primaryKey)
            }
        }
        var linkKey: Int?
        var setKeys: [Int] = []
        var mapEntries: [MapEntryReading] = []
        if let linker = object as? Linker {
            // Spec V24: the set's Items in set order.
            let set = linker.set
            for index in 0..<(try set._count()) { setKeys.append(try set._element(at: index).primaryKey) }
            // Spec V25: the Map's entries as its iteration gives them.
            for (key, item) in try linker.map.entries() {
                mapEntries.append(
                    MapEntryReading(
                        key: key,
                        primaryKey: try item.map { item throws(Realm.Error) in
                            try item._value(forKey: "primaryKey") as? Int
                        }
                            ?? nil))
            }
            // Spec V20: the Item the link reaches, read through the property as an app reads it.
            linkKey =
                try (linker._value(forKey: "link") as? Item).map { item throws(Realm.Error) in
                    try item._value(forKey: "primaryKey") as? Int
                } ?? nil
        }
        return Reading(
            type: CheckTypes.name(of: object), primaryKey: primaryKey, value: value, listKeys: listKeys,
            isFrozen: object.isFrozen, linkKey: linkKey, setKeys: setKeys, mapEntries: mapEntries)
    }

    /// Every object `realm` holds, by type then primary key: Items, Others, and the Linkers of
    /// a linking schema (generation 6).
    static func allReadings(in realm: Realm) throws(Realm.Error) -> [Reading] {
        var all = try readings(try realm._objects(Item.self)) + readings(try realm._objects(Other.self))
        if realm.configuration.objectTypes?.contains(where: { $0 == Linker.self }) == true {
            all += try readings(try realm._objects(Linker.self))
        }
        return all.sorted { ($0.type, $0.primaryKey) < ($1.type, $1.primaryKey) }
    }

    /// The elements of `results`: element 0 read through `isEmpty` and `first` before anything
    /// evaluates the Results, so that their early exit (a walk stopped at the first match,
    /// through the index or the scan) answers what the model checks; the rest by position.
    /// Spec V21: the aggregate of `value` as an app asks for it: the integer aggregates as
    /// `Int?`, the average as `Double?`.
    static func aggregate<T: Object>(_ function: Aggregate, of results: Results<T>) throws(Realm.Error)
        -> AggregateAnswer?
    {
        switch function {
        case .min: return (try results._aggregate(.min, "value") as Int?).map(AggregateAnswer.int)
        case .max: return (try results._aggregate(.max, "value") as Int?).map(AggregateAnswer.int)
        case .sum: return .int(try results._sum("value") as Int)
        case .average: return (try results._aggregate(.average, "value") as Double?).map(AggregateAnswer.double)
        }
    }

    /// The same over a List of Items.
    static func aggregate(_ function: Aggregate, of list: List<Item>) throws(Realm.Error) -> AggregateAnswer? {
        switch function {
        case .min: return (try list._aggregate(.min, "value") as Int?).map(AggregateAnswer.int)
        case .max: return (try list._aggregate(.max, "value") as Int?).map(AggregateAnswer.int)
        case .sum: return (try list._aggregate(.sum, "value") as Int?).map(AggregateAnswer.int)
        case .average: return (try list._aggregate(.average, "value") as Double?).map(AggregateAnswer.double)
        }
    }

    /// Spec V27: `sectioned` by the key of `value`, sorted by `value`, read whole as an app
    /// iterates it: each section's key and its objects' primary keys.
    static func sections<T: CheckObject>(of results: Results<T>, by key: SectionKey, ascending: Bool)
        throws(Realm.Error) -> [SectionReading]
    {
        let sort = [SortDescriptor(keyPath: "value", ascending: ascending)]
        return try readings(of: try results._sectioned(sortDescriptors: sort) { key.key(of: $0.value) })
    }

    static func sections(of list: List<Item>, by key: SectionKey, ascending: Bool) throws(Realm.Error)
        -> [SectionReading]
    {
        let sort = [SortDescriptor(keyPath: "value", ascending: ascending)]
        return try readings(of: try list._sectioned(sortDescriptors: sort) { key.key(of: $0.value) })
    }

    private static func readings<T: CheckObject>(of sectioned: SectionedResults<Int?, T>) throws(Realm.Error)
        -> [SectionReading]
    {
        try sectioned._sections().map { SectionReading(key: $0.key, primaryKeys: $0.elements.map(\.primaryKey)) }
    }

    static func readings<T: Object>(_ results: Results<T>) throws(Realm.Error) -> [Reading] {
        guard try !results._isEmpty(), let first = try results._first() else { return [] }
        var readings: [Reading] = []
        if let reading = try reading(first) { readings.append(reading) }
        let count = try results._count()
        for index in 1..<max(count, 1) {
            if let reading = try reading(try results._element(at: index)) { readings.append(reading) }
        }
        return readings
    }

    static func readings(_ list: List<Item>) throws(Realm.Error) -> [Reading] {
        let count = try list._count()
        var readings: [Reading] = []
        for index in 0..<count {
            if let reading = try reading(try list._element(at: index)) { readings.append(reading) }
        }
        return readings
    }
}
