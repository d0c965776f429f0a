import StrataModel

/// Makes the next operation of a context from the choice stream and the model's state. The
/// model decides what each operation should do, errors included, so the generator does not
/// have to avoid invalid operations; it only keeps most of them meaningful.
struct Generator {
    let swarm: Swarm
    let configuration: StrataModel.Configuration
    private(set) var nextRealm = 1
    private(set) var nextHandle = 1
    private(set) var nextReference = 1
    private(set) var nextObserver = 1
    var nextAsyncWrite = 1
    /// Generation 5: the next `writeCopy` destination's number, and the contexts dropping their
    /// realm's accessors one a step before they release it (`letGo`).
    var nextCopy = 1
    var lettingGo: Set<ContextID> = []
    /// Generation 7: the next iterator's number, and the iteration each context is going
    /// through (`Generator+Generation7`).
    var nextIterator = 1
    var scans: [ContextID: Scan] = [:]

    init(swarm: Swarm, configuration: StrataModel.Configuration) {
        self.swarm = swarm
        self.configuration = configuration
    }

    /// The live realm the context holds, if any (the one its `open` returned). Not one the
    /// model made for a thaw (negative identifiers): the engine side names no such realm, and
    /// in a queue context it is a thread realm beside the queue's own.
    static func liveRealm(of context: ContextID, in model: ModelState) -> RealmID? {
        model.realms.keys.sorted().first { id in
            guard id.rawValue > 0, let realm = model.realms[id] else { return false }
            return realm.owner == context && !realm.isFrozen && !realm.isClosed && realm.holders > 0
        }
    }

    mutating func next(for context: ContextID, model: ModelState, stream: inout ChoiceStream) -> StrataModel.Operation {
        let own = Self.liveRealm(of: context, in: model)
        guard let own else {
            lettingGo.remove(context)
            return open(in: context, model: model, stream: &stream)
        }
        if swarm.generation >= 5, let operation = generation5Sequence(context, own: own, model: model, stream: &stream)
        {
            return operation
        }
        if swarm.generation >= 7, let operation = iterationSequence(context, own: own, model: model, stream: &stream) {
            return operation
        }
        var weights = swarm.weights
        if model.realms[own]?.write != nil {
            // Inside a write: mostly mutations and the end of the write.
            for kind in [OperationKind.create, .setValue, .delete, .append, .commitWrite, .bulkWrite] {
                weights[kind.rawValue] *= 3
            }
            if swarm.generation >= 6 {
                weights[OperationKind.setLink.rawValue] *= 3  // Spec V20: links are set in writes
            }
            if swarm.generation >= 11 {
                weights[OperationKind.insertIntoSet.rawValue] *= 3  // Spec V24: sets change in writes
                weights[OperationKind.removeFromSet.rawValue] *= 3
            }
            if swarm.generation >= 12 {
                weights[OperationKind.setMapValue.rawValue] *= 3  // Spec V25: Maps change in writes
                weights[OperationKind.removeMapKey.rawValue] *= 3
            }
            if swarm.generation >= 5 {
                // Spec X3: a copy holds the write's data; Spec C1, W7: a realm let go inside its
                // write is still its context's, write and all, when the context opens it again.
                weights[OperationKind.writeCopy.rawValue] *= 3
                weights[OperationKind.release.rawValue] *= 3
            }
        }
        if swarm.generation >= 5, model.contexts[context]?.kind != .thread(hasEventLoop: false) {
            // A `@ThreadSafe` read resolves in `Realm()` of the calling thread: a queue context's
            // block runs on a thread whose realm is not the queue's (Spec C3).
            weights[OperationKind.readThreadSafe.rawValue] = 0
        }
        if model.realms[own]?.write == nil, model.files.values.contains(where: { $0.writer != nil }) {
            weights[OperationKind.beginWrite.rawValue] = max(1, weights[OperationKind.beginWrite.rawValue] / 3)
        }
        if model.contexts[context]?.kind.hasScheduler != true {
            // Spec C11: a thread without a loop cannot observe; one try in four checks that.
            weights[OperationKind.observeCollection.rawValue] /= 4
            weights[OperationKind.observeObject.rawValue] /= 4
        }
        if case .serialQueue = model.contexts[context]?.kind {
            if model.realms[own]?.write != nil {
                weights[OperationKind.commitAsyncWrite.rawValue] *= 3
            }
        } else {
            // A controlled thread runs no loop that would run the blocks (Spec A12's "where no
            // turn would run them"): async writes are a queue context's. Generation 5 tries one
            // now and then, which must be refused (A12).
            for kind in OperationKind.asyncKinds {
                let tries = kind == .writeAsync || kind == .beginAsyncWrite
                weights[kind.rawValue] =
                    swarm.generation >= 5 && tries && weights[kind.rawValue] > 0
                    ? max(1, weights[kind.rawValue] / 12) : 0
            }
        }
        let kind = OperationKind(rawValue: stream.weighted(weights)) ?? .read
        let realm = pickRealm(own: own, model: model, stream: &stream)
        switch kind {
        case .open:
            return open(in: context, model: model, stream: &stream)
        case .refresh: return .refresh(realm)
        case .beginWrite: return .beginWrite(own)
        case .commitWrite: return commitWrite(own, model: model, stream: &stream)
        case .cancelWrite: return .cancelWrite(own)
        case .create:
            let type = drawType(&stream)
            let policy: UpdatePolicy = [.error, .modified, .all][stream.draw(3)]
            return .create(
                realm, type: type, primaryKey: stream.draw(swarm.keySpace),
                value: drawValue(&stream), update: policy, as: allocateHandle())
        case .objectForPrimaryKey:
            return .objectForPrimaryKey(
                realm, type: drawType(&stream),
                primaryKey: stream.draw(swarm.keySpace), as: allocateHandle())
        case .objects:
            var type = drawType(&stream)
            var minimum: Int? = stream.chance(30) ? stream.draw(8) : nil
            var sort: SortKey = stream.chance(40) ? .value : .sourceOrder
            // Generation 6 (Spec V20): Linkers mostly sort through their link, either way; now
            // and then another type tries to, which Realm refuses.
            if swarm.links, type == "Linker" ? stream.chance(60) : stream.draw(8) == 0 {
                sort = .linkValue(ascending: stream.draw(2) == 0)
            }
            // Generation 8 (Spec W26): one query in three an equality on `value`, indexed for
            // Item and Linker; drawn last, so older streams mean what they meant.
            var equal: Int? = swarm.generation >= 8 && stream.chance(33) ? stream.draw(8) : nil
            // Generation 9 (Spec V22): one query in four distinct by `value`, or for Linkers
            // now and then by `link.value` (null links left out); drawn last as well.
            var distinct: DistinctKey?
            if swarm.generation >= 9, stream.chance(25) {
                distinct = type == "Linker" && swarm.links && stream.chance(50) ? .linkValue : .value
            }
            // Generation 10 (Spec V23): half the filters spelled as a predicate format, in one of
            // FilterFormat's equivalent spellings; drawn last.
            // A Linker's query now and then also filters through its link (`link.value >= m`),
            // typed or spelled.
            var linkMinimum: Int?
            if swarm.generation >= 10, type == "Linker", swarm.links, stream.chance(30) {
                linkMinimum = stream.draw(8)
            }
            var spelling: UInt8?
            if swarm.generation >= 10, minimum != nil || equal != nil || linkMinimum != nil, stream.chance(50) {
                spelling = UInt8(stream.draw(FilterFormat.count * FilterFormat.count))
            }
            // Generation 13 (Spec V23): one query in four also filters through a collection,
            // `ANY list.value >= m` (a Linker's set or Map in linking runs too), only ever spelled
            // as a format; drawn last.
            var collectionMinimum: CollectionMinimum?
            if swarm.generation >= 13, stream.chance(25) {
                // Linking runs fill Linkers' sets and Maps far more than any List: three of their
                // collection queries in four are on Linkers.
                if swarm.links, stream.chance(75) { type = "Linker" }
                let collections: [PropertyName] =
                    type == "Linker" && swarm.links ? [.set, .map, .list] : [.list]
                collectionMinimum = CollectionMinimum(
                    collection: collections[stream.draw(collections.count)], minimum: stream.draw(4))
                // Generation 14 (Spec V26): one Item query through a collection in two goes
                // through an Item's LinkingObjects, of Items' or Others' Lists.
                if swarm.generation >= 14, type == "Item", stream.chance(50) {
                    collectionMinimum = CollectionMinimum(
                        collection: .list, minimum: stream.draw(4), backlinksOf: stream.chance(50) ? "Item" : "Other")
                }
                // Generation 15 (Spec V23): half of these spellings count through a SUBQUERY.
                let spellings = FilterFormat.count * FilterFormat.count * (swarm.generation >= 15 ? 2 : 1)
                if spelling == nil { spelling = UInt8(stream.draw(spellings)) }
                // One in two stands alone, so that it finds objects more often than behind the
                // other filters too.
                if stream.chance(50) {
                    minimum = nil
                    equal = nil
                    linkMinimum = nil
                }
            }
            return .objects(
                realm,
                Query(
                    source: .table(type), minimumValue: minimum, equalValue: equal, sort: sort, distinct: distinct,
                    formatSpelling: spelling, linkMinimumValue: linkMinimum, collectionMinimum: collectionMinimum),
                as: allocateHandle())
        case .read:
            if swarm.links, let sorted = linkSortedResults(own, model: model, stream: &stream) {
                return .read(sorted)
            }
            guard let handle = pickHandle(context, model: model, stream: &stream) else { return .refresh(realm) }
            return .read(handle)
        case .setValue:
            guard let handle = pickHandle(context, model: model, stream: &stream, objectsOnly: true) else {
                return .refresh(realm)
            }
            return .setValue(handle, drawValue(&stream))
        case .delete:
            guard let handle = pickHandle(context, model: model, stream: &stream, objectsOnly: true) else {
                return .refresh(realm)
            }
            return .delete(realm, handle)
        case .listOf:
            guard let handle = pickHandle(context, model: model, stream: &stream, objectsOnly: true) else {
                return .refresh(realm)
            }
            return .listOf(handle, as: allocateHandle())
        case .linkingObjectsOf:
            return linkingObjects(context, own: realm, model: model, stream: &stream)
        case .append where swarm.generation >= 14:
            return appendToList(context, own: own, model: model, stream: &stream)
        case .append:
            guard let list = pickHandle(context, model: model, stream: &stream, listsOnly: true),
                let element = pickHandle(context, model: model, stream: &stream, objectsOnly: true, type: "Item")
            else { return .refresh(realm) }
            return .append(list: list, element: element)
        case .removeFromList:
            guard let list = pickHandle(context, model: model, stream: &stream, listsOnly: true) else {
                return .refresh(realm)
            }
            return .removeFromList(list, at: stream.draw(3))
        case .invalidate: return .invalidate(realm)
        case .freezeRealm: return .freezeRealm(realm, as: allocateRealm())
        case .freezeHandle:
            guard let handle = pickHandle(context, model: model, stream: &stream) else { return .refresh(realm) }
            return .freezeHandle(handle, as: allocateHandle())
        case .thawHandle:
            guard let handle = pickHandle(context, model: model, stream: &stream) else { return .refresh(realm) }
            return .thawHandle(handle, as: allocateHandle())
        case .makeReference:
            guard let handle = pickHandle(context, model: model, stream: &stream) else { return .refresh(realm) }
            let id = ReferenceID(nextReference)
            nextReference += 1
            return .makeReference(handle, as: id)
        case .resolve:
            // Not a released reference (generation 5): the caller no longer has it.
            let references = model.references.keys.sorted().filter { model.references[$0]?.isReleased != true }
            guard !references.isEmpty else { return .refresh(realm) }
            return .resolve(references[stream.draw(references.count)], in: own, as: allocateHandle())
        case .release:
            // Spec C1: an observer's token keeps its collection or object, and so its realm,
            // alive (the engine's notifier holds them), where the model closes a realm no
            // caller holds; a run never lets go of an observed realm.
            if Self.isObserved(own, in: model) { return .refresh(realm) }
            // Generation 5: inside a write or with async work, one release in two drops the
            // realm's accessors first, so that nothing but its context holds it (Spec C1, W7,
            // A21); the context's next step opens it again.
            if swarm.generation >= 5, let state = model.realms[own], state.write != nil || state.hasAsyncWork,
                stream.chance(50)
            {
                lettingGo.insert(context)
                return letGo(own, context: context, model: model)
            }
            return .release(own)
        case .releaseHandle:
            guard let handle = pickHandle(context, model: model, stream: &stream) else { return .refresh(realm) }
            if let held = model.handles[handle]?.realm, model.realms[held]?.holders == 0,
                Self.isObserved(held, in: model)
            {
                return .refresh(realm)
            }
            return .releaseHandle(handle)
        case .crashMachine:
            return .crashMachine(keepUnsyncedSlots: false)
        case .bulkWrite:
            guard let write = model.realms[own]?.write else { return .beginWrite(own) }
            return bulkWrite(own, snapshot: write.snapshot, stream: &stream)
        case .observeCollection:
            // Not inside a write: Strata's delivery turn finds the realm in the write and drops
            // the initial callback until the realm's next commit, refresh() or beginWrite (a
            // cancelled write leaves it owed; `Docs/harness-findings.md`), where the model
            // delivers it on the next turn and, the realm invalidated meanwhile, begins a read.
            guard model.realms[own]?.write == nil,
                let handle = pickHandle(context, model: model, stream: &stream, observable: true)
            else {
                return .refresh(realm)
            }
            return observing(handle)
        case .observeObject:
            // Not inside a write, as for collections.
            guard model.realms[own]?.write == nil,
                let handle = pickHandle(
                    context, model: model, stream: &stream, objectsOnly: true,
                    observable: true)
            else {
                return .refresh(realm)
            }
            // Spec N21: all properties (and linked objects' changes), or one of them.
            let keyPaths = [nil, nil, ["value"], ["list"]][stream.draw(4)]
            return .observeObject(handle, keyPaths: keyPaths, as: allocateObserver())
        case .invalidateToken:
            // Spec C13: any context may invalidate any token; mostly live ones.
            let live = model.observers.keys.sorted().filter { model.observers[$0]?.isActive == true }
            guard !live.isEmpty else { return .refresh(realm) }
            return .invalidateToken(live[stream.draw(live.count)])
        case .turnLoop:
            return .turnLoop
        case .writeAsync, .beginAsyncWrite, .commitAsyncWrite, .cancelAsyncWrite, .asyncStatus, .syncAsyncGroup:
            return asyncWrite(kind, own: own, model: model, stream: &stream)
        case .releaseReference, .assignThreadSafe, .readThreadSafe, .writeCopy:
            return generation5(kind, context: context, own: own, realm: realm, model: model, stream: &stream)
        case .setLink:
            return setLink(context, own: own, realm: realm, model: model, stream: &stream)
        case .iterate, .iteratorNext:
            return iteration(kind, context: context, own: own, model: model, stream: &stream)
        case .insertIntoSet, .removeFromSet:
            return setWrite(kind, context: context, own: own, model: model, stream: &stream)
        case .setMapValue, .removeMapKey:
            return mapWrite(kind, context: context, own: own, model: model, stream: &stream)
        case .aggregate:
            // Spec V21: over Results or a List, of the caller's or (crossing contexts) another's;
            // a List one time in three where there is one (runs hold fewer Lists than Results).
            let list = stream.draw(3) == 0 ? pickHandle(context, model: model, stream: &stream, listsOnly: true) : nil
            guard let handle = list ?? pickHandle(context, model: model, stream: &stream, collectionsOnly: true) else {
                return .refresh(realm)
            }
            return .aggregate(handle, Aggregate.allCases[stream.draw(Aggregate.allCases.count)])
        case .sectioned:
            return sectioned(context, realm: realm, model: model, stream: &stream)
        }
    }

    /// A commit; now and then (generation 3) one that skips a live observer of the realm
    /// (Spec N4: `commitWrite(withoutNotifying:)`). Runs without observers draw nothing here.
    private func commitWrite(
        _ own: RealmID, model: ModelState,
        stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        let observers = model.observers.keys.sorted().filter { id in
            model.observers[id].map { $0.isActive && $0.realm == own } ?? false
        }
        guard !observers.isEmpty, stream.chance(25) else {
            return .commitWrite(own, withoutNotifying: [], fate: .success)
        }
        return .commitWrite(own, withoutNotifying: [observers[stream.draw(observers.count)]], fate: .success)
    }

    /// Whether a live observer watches something of `realm` (its token keeps the realm alive).
    static func isObserved(_ realm: RealmID, in model: ModelState) -> Bool {
        model.observers.values.contains { $0.realm == realm && $0.isActive }
    }

    /// Keys of bulk creates lie in `0..<bulkKeySpace`: far more than a leaf holds, and they
    /// overlap the single operations' keys, so a row a split lost is also one they look up.
    static let bulkKeySpace = 4096

    /// Creates of keys absent from the write (in a scattered order, so leaves split in the
    /// middle, not only at the right edge), or deletes of a run of neighbouring present keys
    /// (which empties leaves and merges them). Both succeed when generated; a shrunk run may
    /// make them fail part way, which the model and the engine must agree on.
    private func bulkWrite(_ realm: RealmID, snapshot: Snapshot, stream: inout ChoiceStream) -> StrataModel.Operation {
        let type = stream.draw(4) == 3 ? "Other" : "Item"
        let present = snapshot.objectIDs(ofType: type).compactMap { snapshot.objects[$0]?.primaryKey }.sorted()
        if present.count >= 40 && stream.chance(40) {
            let count = min(present.count, [20, 80, 400][stream.draw(3)])
            let start = stream.draw(present.count - count + 1)
            return .apply(realm, present[start..<(start + count)].map { .delete(type: type, primaryKey: $0) })
        }
        let taken = Set(present)
        let count = [40, 120, 300][stream.draw(3)]
        // An odd stride walks every residue of the power-of-two key space once.
        let stride = 2 * stream.draw(Self.bulkKeySpace / 2) + 1
        var key = stream.draw(Self.bulkKeySpace)
        var mutations: [Mutation] = []
        for _ in 0..<Self.bulkKeySpace where mutations.count < count {
            if !taken.contains(key) {
                mutations.append(.create(type: type, primaryKey: key, value: drawValue(&stream)))
            }
            key = (key + stride) % Self.bulkKeySpace
        }
        return .apply(realm, mutations)
    }

    /// An `open` from `context`: a queue context confines the realm to its queue; now and then
    /// a context names another context's queue, which the engine must reject (Spec C3, C4).
    private mutating func open(in context: ContextID, model: ModelState, stream: inout ChoiceStream)
        -> StrataModel.Operation
    {
        let queues = model.contexts.keys.sorted().filter { id in
            if case .serialQueue = model.contexts[id]?.kind { return true }
            return false
        }
        var confinement: Confinement = queues.contains(context) ? .queue(context) : .callingContext
        if !queues.isEmpty && stream.draw(100) < swarm.crossContextPercent {
            confinement = .queue(queues[stream.draw(queues.count)])
        }
        return .open(configuration, confinement: confinement, as: allocateRealm())
    }

    private mutating func allocateRealm() -> RealmID {
        defer { nextRealm += 1 }
        return RealmID(nextRealm)
    }

    mutating func allocateHandle() -> HandleID {
        defer { nextHandle += 1 }
        return HandleID(nextHandle)
    }

    mutating func allocateObserver() -> ObserverID {
        defer { nextObserver += 1 }
        return ObserverID(nextObserver)
    }

    /// A plain collection observer of `handle` (no callback action, on the calling context).
    mutating func observing(_ handle: HandleID) -> StrataModel.Operation {
        .observeCollection(handle, action: .none, on: nil, inCancelledTask: false, as: allocateObserver())
    }

    func drawValue(_ stream: inout ChoiceStream) -> Int? {
        stream.draw(8) == 7 ? nil : stream.draw(10)
    }

    /// The context's own live realm, or now and then another realm: a frozen one, or another
    /// context's (which the engine must reject, Spec C5).
    func pickRealm(own: RealmID, model: ModelState, stream: inout ChoiceStream) -> RealmID {
        guard stream.draw(100) < swarm.crossContextPercent + 5 else { return own }
        // A realm the caller dropped cannot be named again (`holders` counts the caller's).
        let others = model.realms.keys.sorted().filter { id in
            id != own && id.rawValue > 0 && (model.realms[id]?.holders ?? 0) > 0
        }
        guard !others.isEmpty else { return own }
        let other = others[stream.draw(others.count)]
        if model.realms[other]?.isFrozen == true { return other }
        return stream.draw(100) < swarm.crossContextPercent * 5 ? other : own
    }

    /// An accessor to use: mostly one made through the context's own realms. `observable`: one
    /// to observe (a collection; an object with `objectsOnly`).
    func pickHandle(
        _ context: ContextID, model: ModelState, stream: inout ChoiceStream,
        objectsOnly: Bool = false, listsOnly: Bool = false, observable: Bool = false,
        collectionsOnly: Bool = false, type: String? = nil
    ) -> HandleID? {
        let all = model.handles.keys.sorted().filter { id in
            guard let handle = model.handles[id] else { return false }
            if observable {
                // Valid accessors of the caller's realms, not of a realm the model made for a
                // thaw (negative identifiers, which the engine side does not name): an
                // invalidated accessor's rejection is what every other operation checks already.
                guard let realm = handle.realm, realm.rawValue > 0,
                    model.realms[realm]?.epoch == handle.epoch
                else { return false }
                if case .object = handle.target, !objectsOnly { return false }
            }
            switch handle.target {
            case .object(let object):
                guard !listsOnly && !collectionsOnly else { return false }
                guard let type else { return true }
                return model.realms[handle.realm ?? RealmID(0)].flatMap { realm in
                    model.files[realm.configuration.location]?.versions.values.first { $0.objects[object] != nil }?
                        .objects[object]?.type
                } == type
            case .list: return !objectsOnly
            case .results: return !objectsOnly && !listsOnly
            case .unmanaged: return false
            }
        }
        guard !all.isEmpty else { return nil }
        let mine = all.filter { id in
            guard let realm = model.handles[id]?.realm, let state = model.realms[realm] else { return false }
            return state.owner == context || state.isFrozen
        }
        // Crossing contexts picks another context's accessor, not any: a rare choice that
        // names exactly what it means survives shrinking, which deletes what came before.
        let pool: [HandleID]
        if mine.isEmpty {
            pool = all
        } else if stream.draw(100) >= swarm.crossContextPercent {
            pool = mine
        } else {
            let theirs = all.filter { !mine.contains($0) }
            pool = theirs.isEmpty ? all : theirs
        }
        // Recent accessors are the interesting ones: favour the newest few.
        let recent = pool.suffix(6)
        return Array(recent)[stream.draw(recent.count)]
    }
}
