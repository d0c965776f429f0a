// Reads through accessors (V1, W4, T5, X14), iteration over a snapshot (V15, V16) and freezing
// and thawing of accessors (the F rules).

extension ModelState {
    mutating func dispatchReadOperation(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .objects(let realmID, let query, let id):
            _ = try usableRealm(realmID, in: context)
            let snapshot = try readableView(of: realmID)
            // Spec V20: a sort through `link` needs a type that has one (realm-core's
            // parse_keypath, checked when the sort is made, after `objects` began the read,
            // which stands).
            if let keyPath = query.sort.linkKeyPath, case .table(let type) = query.source,
                !snapshot.schema.hasLink(type)
            {
                throw .failedAfterEffects(
                    .cannotSort(
                        keyPath: keyPath,
                        reason: "property '\(type).link' does not exist"))
            }
            // Spec X14: a type the file lacks reads as empty Results.
            return .handle(try newHandle(id, realm: realmID, target: .results(query)))
        case .objectForPrimaryKey(let realmID, let type, let primaryKey, let id):
            _ = try usableRealm(realmID, in: context)
            // Spec W20: the object with that key at the read version (with the write's own
            // changes inside a write), or nil. Spec F18: through a frozen realm, a frozen one.
            let snapshot = try readableView(of: realmID)
            guard let object = snapshot.objectID(type: type, primaryKey: primaryKey) else {
                return .handle(nil)
            }
            return .handle(try newHandle(id, realm: realmID, target: .object(object)))
        case .listOf(let ownerID, let id):
            let handle = try handleState(ownerID)
            try checkOwner(of: handle, in: context)
            guard let realmID = handle.realm, case .object(let owner) = handle.target else {
                throw .rejected(.invalidStep("\(ownerID) is not a managed object"))
            }
            _ = try readable(handle)
            return .handle(try newHandle(id, realm: realmID, target: .list(owner: owner)))
        case .linkingObjectsOf(let targetID, let ownerType, let id):
            // Spec V26: reading the property reads the object (C5, V13, W12, F6: its checks);
            // the LinkingObjects are Results of the owners, live at the realm's version.
            let handle = try handleState(targetID)
            try checkOwner(of: handle, in: context)
            guard let realmID = handle.realm, case .object(let target) = handle.target else {
                throw .rejected(.invalidStep("\(targetID) is not a managed object"))
            }
            let snapshot = try readable(handle)
            guard snapshot.objects[target]?.type == "Item" else {
                throw .rejected(.invalidStep("only Items have LinkingObjects"))
            }
            let query = Query(source: .linkingObjects(target: target, ownerType: ownerType))
            return .handle(try newHandle(id, realm: realmID, target: .results(query)))
        case .read(let id):
            let handle = try handleState(id)
            try checkOwner(of: handle, in: context)  // Spec C5, C6
            return try read(handle)
        case .element(let id, let index, let elementID):
            let handle = try handleState(id)
            try checkOwner(of: handle, in: context)
            let (_, elements) = try elementsOf(handle)
            guard index >= 0, index < elements.count else {
                throw .rejected(.outOfBounds(index: index, count: elements.count))  // Spec X14
            }
            guard let realmID = handle.realm else { throw .rejected(.invalidStep("unmanaged")) }
            return .handle(
                try newHandle(
                    elementID, realm: realmID,
                    target: .object(elements[index])))
        case .realmOf(let id):
            let handle = try handleState(id)
            try checkOwner(of: handle, in: context)
            // Spec C2: a managed object's realm is the instance that created or fetched it
            // (Spec F18: the frozen realm it was read through); Spec W12: nil once deleted (and
            // for unmanaged objects).
            guard let realmID = handle.realm, !isInvalidated(handle) else { return .realm(nil) }
            return .realm(realmID)
        case .isInvalidated(let id):
            let handle = try handleState(id)
            try checkOwner(of: handle, in: context)  // Spec C6: isInvalidated is checked too
            return .bool(isInvalidated(handle))
        case .releaseHandle(let id):
            let handle = try handleState(id)
            handles[id] = nil  // Spec F17: the last frozen accessor ends its frozen realm's pin
            if let realm = handle.realm { closeIfUnreachable(realm) }  // Spec C1
            return .done
        case .iterate(let id, let iteratorID):
            let handle = try handleState(id)
            try checkOwner(of: handle, in: context)
            guard let realmID = handle.realm else { throw .rejected(.invalidStep("unmanaged")) }
            let (_, elements) = try elementsOf(handle)
            // Spec V15: iteration runs over the elements that matched when it began.
            iterators[iteratorID] = IteratorState(
                realm: realmID, epoch: try realmState(realmID).epoch,
                elements: elements, position: 0)
            return .count(elements.count)
        case .iteratorNext(let iteratorID, let id):
            guard let iterator = iterators[iteratorID] else {
                throw .rejected(.invalidStep("unknown iterator \(iteratorID)"))
            }
            let realm = try usableRealm(iterator.realm, in: context)
            // Spec F6: a request is a read, which an invalidated frozen realm rejects (the one
            // that finds the end too).
            if realm.isFrozen, realm.frozenInvalidated { throw .rejected(.frozenRealmInvalidated) }
            // Spec V16: after invalidate() the next request is rejected.
            guard realm.epoch == iterator.epoch, realm.isFrozen || realm.readVersion != nil else {
                throw .rejected(.iteratorInvalidated)
            }
            guard iterator.position < iterator.elements.count else { return .handle(nil) }
            iterators[iteratorID]?.position += 1
            // Spec V15: an element deleted meanwhile is still yielded, and reports invalidated.
            return .handle(
                try newHandle(
                    id, realm: iterator.realm,
                    target: .object(iterator.elements[iterator.position])))
        case .aggregate(let id, let function):
            let handle = try handleState(id)
            try checkOwner(of: handle, in: context)  // Spec C6
            // Spec V21: the checks of any read of the collection (V13, T5), then its elements'
            // values at the realm's view (V1); an object a List holds twice counts twice.
            let (snapshot, elements) = try elementsOf(handle)
            return .aggregate(function.answer(elements.map { snapshot.objects[$0]?.value ?? nil }))
        case .sectioned(let id, let key, let ascending):
            let handle = try handleState(id)
            try checkOwner(of: handle, in: context)  // Spec C6
            // Spec V27: the checks of any read of the collection, its elements sorted by value
            // (V20: null first, a stable sort), then a section per key in order of first
            // appearance, each holding its elements in that order.
            let (snapshot, elements) = try elementsOf(handle)
            let values = elements.map { snapshot.objects[$0]?.value ?? nil }
            let order = values.indices.sorted { p, q in
                switch (values[p], values[q]) {
                case (nil, nil): return p < q
                case (nil, _): return ascending
                case (_, nil): return !ascending
                case (let x?, let y?): return x == y ? p < q : (x < y) == ascending
                }
            }
            var sections: [SectionReading] = []
            var sectionOfKey: [Int?: Int] = [:]
            for position in order {
                let sectionKey = key.key(of: values[position])
                let primaryKey = snapshot.objects[elements[position]]?.primaryKey ?? 0
                if let section = sectionOfKey[sectionKey] {
                    sections[section].primaryKeys.append(primaryKey)
                } else {
                    sectionOfKey[sectionKey] = sections.count
                    sections.append(SectionReading(key: sectionKey, primaryKeys: [primaryKey]))
                }
            }
            return .sections(sections)
        case .freezeHandle(let id, let frozenID):
            return try freezeHandle(id, as: frozenID, in: context)
        case .thawHandle(let id, let liveID):
            return try thawHandle(id, as: liveID, in: context)
        case .frozenEqual(let first, let second):
            // Spec F13: frozen objects are equal exactly when they are the same object frozen at
            // the same version; a frozen object never equals a live one, and two live accessors
            // are distinct Set members.
            let a = try handleState(first)
            let b = try handleState(second)
            guard case .object(let objectA) = a.target, case .object(let objectB) = b.target,
                let realmA = a.realm.flatMap({ realms[$0] }), realmA.isFrozen,
                let realmB = b.realm.flatMap({ realms[$0] }), realmB.isFrozen
            else { return .bool(first == second) }
            return .bool(
                objectA == objectB && realmA.readVersion == realmB.readVersion
                    && realmA.configuration.location == realmB.configuration.location)
        default:
            throw .rejected(.invalidStep("not a read operation"))
        }
    }

    mutating func newHandle(_ id: HandleID, realm: RealmID, target: HandleTarget)
        throws(Interruption) -> HandleID
    {
        guard handles[id] == nil else { throw .rejected(.invalidStep("handle \(id) exists")) }
        handles[id] = HandleState(realm: realm, target: target, epoch: try realmState(realm).epoch)
        return id
    }

    /// Spec V13, W12, T5: whether an accessor is invalid: its realm was invalidated since it was
    /// made, its object does not exist at the realm's view, or its List's owner is missing.
    func isInvalidated(_ handle: HandleState) -> Bool {
        guard let realmID = handle.realm, let realm = realms[realmID] else {
            return handle.realm != nil
        }
        if realm.isClosed || realm.epoch != handle.epoch || realm.frozenInvalidated { return true }
        guard
            let snapshot = view(of: realmID)
                ?? files[realm.configuration.location]
                .flatMap({ $0.versions[$0.newest] })
        else { return true }
        switch handle.target {
        case .object(let object): return snapshot.objects[object] == nil
        case .list(let owner): return snapshot.objects[owner] == nil
        case .results, .unmanaged: return false
        }
    }

    /// The data an accessor reads, after the validity checks (Spec V13, W12, F6).
    mutating func readable(_ handle: HandleState) throws(Interruption) -> Snapshot {
        guard let realmID = handle.realm else { return Snapshot(schema: .standard) }
        let realm = try realmState(realmID)
        if realm.isFrozen, realm.frozenInvalidated { throw .rejected(.frozenRealmInvalidated) }
        if realm.epoch != handle.epoch {
            switch handle.target {
            case .object: throw .rejected(.objectInvalidated)
            case .list: throw .rejected(.listInvalidated)  // Spec V13
            case .results, .unmanaged: throw .rejected(.collectionInvalidated)  // Spec V13
            }
        }
        let snapshot = try readableView(of: realmID)
        switch handle.target {
        case .object(let object):
            // Spec W12: reading a deleted object is rejected.
            if snapshot.objects[object] == nil { throw .rejected(.objectInvalidated) }
        case .list(let owner):
            // Spec T5: a List whose owner is missing is invalid.
            if snapshot.objects[owner] == nil { throw .rejected(.listInvalidated) }
        case .results, .unmanaged:
            break
        }
        return snapshot
    }

    mutating func elementsOf(_ handle: HandleState) throws(Interruption) -> (Snapshot, [ObjectID]) {
        let snapshot = try readable(handle)
        switch handle.target {
        case .results(let query): return (snapshot, query.evaluate(in: snapshot))
        case .list(let owner): return (snapshot, snapshot.objects[owner]?.list ?? [])
        case .object, .unmanaged: throw .rejected(.invalidStep("not a collection"))
        }
    }

    /// Spec V1, W4: what a read returns. Spec F14, F18: an accessor of a frozen realm, whether
    /// frozen itself or read through that realm, reads as frozen.
    mutating func read(_ handle: HandleState) throws(Interruption) -> Value {
        let frozen = handle.realm.flatMap { realms[$0]?.isFrozen } ?? false
        switch handle.target {
        case .unmanaged(let type, let primaryKey, let value):
            return .object(
                ObjectReading(
                    id: ObjectID(0), type: type, primaryKey: primaryKey,
                    value: value, listKeys: [], isFrozen: false))
        case .object(let object):
            let snapshot = try readable(handle)
            return .object(snapshot.reading(of: object, frozen: frozen))
        case .results, .list:
            let (snapshot, elements) = try elementsOf(handle)
            return .elements(elements.compactMap { snapshot.reading(of: $0, frozen: frozen) })
        }
    }

    // MARK: Freeze and thaw

    /// Spec C7, F5, F11, F14, F17.
    mutating func freezeHandle(_ id: HandleID, as frozenID: HandleID, in context: ContextID)
        throws(Interruption) -> Value
    {
        let handle = try handleState(id)
        guard let realmID = handle.realm else { throw .rejected(.unmanagedFreeze) }  // Spec F11
        let realm = try usableRealm(realmID, in: context)  // Spec C7
        if realm.isFrozen { return .handle(id) }  // Spec F5: the identical instance
        _ = try readable(handle)  // Spec W12, V13: an invalid accessor cannot be frozen
        switch handle.target {
        case .object(let object), .list(owner: let object):
            // Spec F11: an object created in the current write cannot be frozen, nor its List.
            if realm.write?.createdObjects.contains(object) == true {
                throw .rejected(.freezeInCreatingWrite)
            }
        case .results, .unmanaged:
            break
        }
        // Spec F11: inside a write the frozen value shows the transaction's start.
        let version = try frozenVersion(of: realmID)
        if case .object(let object) = handle.target,
            files[realm.configuration.location]?.versions[version]?.objects[object] == nil
        {
            throw .rejected(.objectInvalidated)
        }
        try checkReaderSlot(
            process: realm.process, version: version,
            location: realm.configuration.location)
        let frozenRealm = try internalFrozenRealm(of: realmID, at: version)
        // Spec F14: freezing is deep: every value read through the frozen accessor is frozen.
        return .handle(try newHandle(frozenID, realm: frozenRealm, target: handle.target))
    }

    /// Spec F8, F9, F10: thaw gives an accessor in the calling context's live realm, at that
    /// realm's own read version; it never refreshes.
    mutating func thawHandle(_ id: HandleID, as liveID: HandleID, in context: ContextID)
        throws(Interruption) -> Value
    {
        let handle = try handleState(id)
        guard let realmID = handle.realm else { throw .rejected(.unmanagedThaw) }  // Spec F10
        let realm = try usableRealm(realmID, in: context)  // Spec F19: from its context only
        guard realm.isFrozen else { return .handle(id) }  // Spec F19: a live value is returned
        try checkThawContext(context)
        let live = try open(
            realm.configuration, confinement: .callingContext,
            as: RealmID(nextInternalRealm), in: context)
        if live == RealmID(nextInternalRealm) {
            nextInternalRealm -= 1
        }
        // A thaw takes no holder: an instance opened for it lives while the thawed accessor
        // does (Spec C1, F8).
        realms[live]?.holders -= 1
        _ = try usableRealm(live, in: context)  // Spec D6: the live realm of a poisoned file
        let snapshot = try readableView(of: live)
        let exists: Bool
        switch handle.target {
        case .object(let object): exists = snapshot.objects[object] != nil  // Spec F9
        case .list(let owner): exists = snapshot.objects[owner] != nil
        case .results, .unmanaged: exists = true  // Spec F8: a Results keeps its query
        }
        guard exists else {
            closeIfUnreachable(live)
            return .handle(nil)
        }
        return .handle(try newHandle(liveID, realm: live, target: handle.target))
    }
}

extension ModelState {
    /// Spec F20: `thaw()` takes no actor: in an actor's isolation it opens the realm of the
    /// thread the call happens to run on, which the model, whose actors are contexts of their
    /// own with no thread, does not have. So the model takes no thaw in an actor context rather
    /// than give the actor's realm, which the API does not.
    func checkThawContext(_ context: ContextID) throws(Interruption) {
        if try contextState(context).kind == .actor {
            throw .rejected(.invalidStep("thaw() in an actor runs on a thread the model does not have (Spec F20)"))
        }
    }
}

extension Snapshot {
    /// What a read of `object` shows: its values, its List's and set's Items by primary key, its
    /// link's target, its Map's entries in key order.
    public func reading(of object: ObjectID, frozen: Bool) -> ObjectReading? {
        guard let stored = objects[object] else { return nil }
        return ObjectReading(
            id: object, type: stored.type, primaryKey: stored.primaryKey, value: stored.value,
            listKeys: stored.list.compactMap { objects[$0]?.primaryKey }, isFrozen: frozen,
            linkKey: stored.link.flatMap { objects[$0]?.primaryKey },
            setKeys: stored.set.compactMap { objects[$0]?.primaryKey },
            mapEntries: stored.map.keys.sorted().map { key in
                MapEntryReading(key: key, primaryKey: (stored.map[key] ?? nil).flatMap { objects[$0]?.primaryKey })
            })
    }
}
