// Observers, delivery passes and event-loop turns (the N rules, V7 to V9, C11, C13, C14).
//
// Delivery model. A realm's observers are called in passes. A pass has a target version (the
// realm's read version when the pass starts) and visits the realm's collection and object
// observers in registration order, giving each the change from what it last received to the
// target. Passes run on a loop turn, inside `refresh()` and inside `beginWrite` after its move.
// An observer whose callback is running is skipped by nested passes (never re-entered, Spec N5)
// and keeps what it missed for a later pass. Realm observers (`.didChange`) run right after
// every move and every local commit, before collection callbacks.

/// Which realm notification runs.
enum RealmNotificationKind {
    case didChange, refreshRequired
}

extension ModelState {
    mutating func dispatchNotificationOperation(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .observeRealm(let realmID, let action, let id):
            let realm = try usableRealm(realmID, in: context)  // Spec C8
            // Realm's order: read-only, then frozen (Spec N19, F4).
            if realm.configuration.readOnly { throw .rejected(.readOnlyObservation) }
            if realm.isFrozen { throw .rejected(.frozenObservation) }
            // Spec C11: observers need a scheduler.
            guard loopServes(realm, in: context) else { throw .rejected(.noRunLoop) }
            try register(
                id,
                ObserverState(
                    realm: realmID, target: .realm, keyPaths: nil, action: action,
                    deliveryContext: context, isActive: true, isDead: false, initialDelivered: true,
                    baselineVersion: Version(0), baselineContents: [], baselineObject: nil,
                    waitsForNextPass: false))
            return .done
        case .observeCollection(let handleID, let action, let queue, let cancelled, let id):
            return try observeCollection(
                handleID, action: action, on: queue,
                inCancelledTask: cancelled, as: id, in: context)
        case .observeObject(let handleID, let keyPaths, let id):
            return try observeObject(handleID, keyPaths: keyPaths, as: id, in: context)
        case .invalidateToken(let id):
            // Spec C13: any context may invalidate a token. Spec N2: its callback never runs
            // again. Spec N23: a token made in a cancelled task reports false.
            guard let observer = observers[id] else {
                throw .rejected(.invalidStep("unknown observer \(id)"))
            }
            observers[id]?.isActive = false
            return .bool(!observer.isDead)
        case .turnLoop:
            turnLoop(context)
            return .done
        default:
            throw .rejected(.invalidStep("not a notification operation"))
        }
    }

    private mutating func register(_ id: ObserverID, _ state: ObserverState) throws(Interruption) {
        guard observers[id] == nil else { throw .rejected(.invalidStep("observer \(id) exists")) }
        var state = state
        // Spec N9: an observer added during a delivery pass starts with the next pass.
        state.waitsForNextPass = !callbackStack.isEmpty
        observers[id] = state
    }

    private mutating func observeCollection(
        _ handleID: HandleID, action: CallbackAction, on queue: ContextID?,
        inCancelledTask: Bool, as id: ObserverID, in context: ContextID
    ) throws(Interruption) -> Value {
        let handle = try handleState(handleID)
        guard let realmID = handle.realm else { throw .rejected(.unmanagedObservation) }  // N18
        let realm = try usableRealm(realmID, in: context)  // Spec C6
        // Realm's order: read-only, then frozen (Spec N19, F4).
        if realm.configuration.readOnly { throw .rejected(.readOnlyObservation) }
        if realm.isFrozen { throw .rejected(.frozenObservation) }
        let deliveryContext = queue ?? context
        // Spec C11, N18: callbacks need a scheduler to run on: the realm's own loop, or the
        // queue given to observe(on:), which serves the realm confined to it.
        guard
            queue == nil
                ? loopServes(realm, in: context)
                : try contextState(deliveryContext).kind.hasScheduler
        else {
            throw .rejected(.noRunLoop)
        }
        // Spec N25: not after changes in a write.
        if realm.write?.hasChanges == true { throw .rejected(.queryAfterChangesInWrite) }
        let snapshot = try readable(handle)
        let query: Query
        switch handle.target {
        case .results(let q): query = q
        case .list(let owner): query = Query(source: .list(owner: owner))
        case .object, .unmanaged: throw .rejected(.invalidStep("not a collection"))
        }
        let version = try frozenVersion(of: realmID)
        try register(
            id,
            ObserverState(
                realm: realmID, target: .collection(query), keyPaths: nil, action: action,
                deliveryContext: deliveryContext, isActive: true,
                isDead: inCancelledTask,  // Spec N23: never called
                initialDelivered: false, baselineVersion: version,
                baselineContents: query.evaluate(in: snapshot),  // Spec N18: contents at registration
                baselineObject: nil, waitsForNextPass: false))
        return .done
    }

    private mutating func observeObject(
        _ handleID: HandleID, keyPaths: [String]?, as id: ObserverID, in context: ContextID
    ) throws(Interruption) -> Value {
        let handle = try handleState(handleID)
        // Spec N19: an unmanaged object, or one deleted through this accessor, cannot be
        // observed ('managed').
        guard let realmID = handle.realm, !handle.detachedByDelete, case .object(let object) = handle.target else {
            throw .rejected(.unmanagedObjectObservation)
        }
        let realm = try usableRealm(realmID, in: context)  // Spec C5
        // Realm's order: read-only, then frozen (Spec N19, F4).
        if realm.configuration.readOnly { throw .rejected(.readOnlyObservation) }
        if realm.isFrozen { throw .rejected(.frozenObservation) }
        guard loopServes(realm, in: context) else { throw .rejected(.noRunLoop) }
        // Spec N25: not after changes in a write.
        if realm.write?.hasChanges == true { throw .rejected(.queryAfterChangesInWrite) }
        let snapshot = try readable(handle)
        let type = snapshot.objects[object]?.type ?? ""
        var observed: Set<PropertyName>?
        var nestedPaths: [PropertyName: Set<PropertyName>] = [:]
        if let keyPaths {
            // Spec N21: a nested path reports as its first property; unknown paths are refused.
            var names: Set<PropertyName> = []
            for path in keyPaths {
                let parts = path.split(separator: ".").map(String.init)
                let first = parts.first ?? ""
                guard let name = PropertyName(rawValue: first),
                    name != .link || snapshot.schema.hasLink(type)
                else {
                    throw .rejected(.unknownKeyPath(property: first, type: type))
                }
                names.insert(name)
                if parts.count > 1 {
                    // A nested path names a property of the List's elements or of the link's
                    // target: both are Items.
                    guard name == .list || name == .link, parts.count == 2,
                        let nested = PropertyName(rawValue: parts[1]),
                        snapshot.schema.types["Item"]?.contains(parts[1]) == true
                    else {
                        throw .rejected(
                            .unknownKeyPath(
                                property: parts.dropFirst()
                                    .joined(separator: "."), type: "Item"))
                    }
                    nestedPaths[name, default: []].insert(nested)
                }
            }
            observed = names
        }
        var state = ObserverState(
            realm: realmID, target: .object(object), keyPaths: observed, action: .none,
            deliveryContext: context, isActive: true, isDead: false, initialDelivered: true,
            baselineVersion: try frozenVersion(of: realmID), baselineContents: [],
            baselineObject: snapshot.objects[object], waitsForNextPass: false,
            nestedListPaths: nestedPaths[.list] ?? [])
        state.nestedLinkPaths = nestedPaths[.link] ?? []
        state.baselineLinkKey = snapshot.linkKey(of: object)
        try register(id, state)
        return .done
    }

    // MARK: Delivery

    /// Spec N1, N3, N5: runs the realm observers of `realmID`.
    mutating func notifyRealmObservers(
        of realmID: RealmID, kind: RealmNotificationKind,
        skipping skipped: Set<ObserverID>
    ) {
        for id in observerIDs(where: { $0.realm == realmID && $0.target == .realm }) {
            guard let observer = observers[id], observer.isActive, !observer.isDead,
                !skipped.contains(id), !callbackStack.contains(id)
            else { continue }
            // Spec N3: `.refreshRequired` announces a newer version; once an earlier callback
            // moved the realm there, there is nothing left to announce.
            if kind == .refreshRequired, let realm = realms[realmID],
                let current = realm.readVersion,
                let newest = newest(of: realm.configuration.location), current >= newest
            {
                break
            }
            switch kind {
            case .didChange: emit(.didChange(id))
            case .refreshRequired: emit(.refreshRequired(id))
            }
            runAction(of: id, insideRefreshRequired: kind == .refreshRequired)
        }
    }

    /// One pass over the realm's collection and object observers (see the file header).
    mutating func deliverCollectionPass(of realmID: RealmID) {
        guard let realm = realms[realmID], !realm.isClosed, !realm.isFrozen, realm.write == nil,
            let target = realm.readVersion,
            let snapshot = files[realm.configuration.location]?.versions[target]
        else { return }
        for id in observerIDs(where: {
            $0.realm == realmID && $0.target != .realm && $0.deliveryContext == realm.owner
        }) {
            deliver(id, at: target, snapshot: snapshot)
        }
    }

    /// Spec N6, N7, N8, N11, N13, N20, N21: one observer's callback for the change from its
    /// baseline to `version`, if there is one.
    mutating func deliver(_ id: ObserverID, at version: Version, snapshot: Snapshot) {
        guard let observer = observers[id], observer.isActive, !observer.isDead,
            !observer.waitsForNextPass, !callbackStack.contains(id)
        else { return }
        switch observer.target {
        case .realm:
            return
        case .collection(let query):
            let contents = query.evaluate(in: snapshot)  // Spec N10: same query and sort
            if !observer.initialDelivered {
                // Spec N8: the initial callback is never inside observe and carries no changes;
                // it shows the contents at the realm's read version when it runs (N18: an
                // observe(on:) observer shows the contents at registration).
                let shown =
                    observer.deliveryContext == realms[observer.realm]?.owner
                    ? contents : observer.baselineContents
                observers[id]?.initialDelivered = true
                observers[id]?.baselineContents = shown
                observers[id]?.baselineVersion =
                    observer.deliveryContext
                        == realms[observer.realm]?.owner ? version : observer.baselineVersion
                emit(.initial(id, shown))
                runAction(of: id, insideRefreshRequired: false)
                return
            }
            guard observer.baselineVersion < version else { return }
            let since = observer.baselineVersion
            // Spec N11: modified when a commit set a property of the element or of an object
            // it links to, up to four links deep.
            let change = ChangeSet.between(old: observer.baselineContents, new: contents) {
                snapshot.changed($0, since: since)
            }
            observers[id]?.baselineVersion = version
            observers[id]?.baselineContents = contents
            // Spec N11: only actual changes call back.
            guard !change.isEmpty else { return }
            emit(.update(id, change, contents))
            runAction(of: id, insideRefreshRequired: false)
        case .object(let object):
            guard observer.baselineVersion < version else { return }
            let since = observer.baselineVersion
            observers[id]?.baselineVersion = version
            guard let now = snapshot.objects[object] else {
                observers[id]?.isActive = false  // a deleted object notifies once
                emit(.objectDeleted(id))
                return
            }
            observers[id]?.baselineObject = now
            let beforeLinkKey = observer.baselineLinkKey
            observers[id]?.baselineLinkKey = snapshot.linkKey(of: object)
            // Spec N21: a nested path fires when that property of a List element (or of the
            // link's target) changes; without key paths, a change of any object the List or
            // the link reaches, up to four links deep (N11), changes the List or the link.
            func nestedChange(_ property: PropertyName) -> Bool {
                if observer.keyPaths == nil {
                    return snapshot.linkedChanged(now, since: since, through: property)
                }
                let paths = property == .list ? observer.nestedListPaths : observer.nestedLinkPaths
                let reached = property == .list ? now.list : now.link.map { [$0] } ?? []
                return reached.contains { element in
                    paths.contains { (snapshot.objects[element]?.written[$0] ?? Version(0)) > since }
                }
            }
            let changed = PropertyName.allCases.filter {
                ((now.written[$0] ?? Version(0)) > since
                    || (($0 == .list || $0 == .link) && nestedChange($0)))
                    && (observer.keyPaths?.contains($0) ?? true)  // Spec N21
            }
            guard !changed.isEmpty else { return }
            // Spec N20: the observing realm's own commits report no old values.
            let location = realms[observer.realm]?.configuration.location
            let log = location.flatMap { committers[$0] } ?? [:]
            let ownOnly = (since.rawValue + 1...version.rawValue).allSatisfy {
                log[Version($0)] == observer.realm
            }
            let before = observer.baselineObject
            emit(
                .objectChanged(
                    id,
                    changed.map { name in
                        // Spec N20: a link's old value is the Item its old target's primary key names
                        // now (nil once there is none), as the engine reads the old row's link.
                        let old =
                            name == .link
                            ? snapshot.describeLink(toKey: beforeLinkKey)
                            : before.flatMap { $0.describe(name) }
                        return PropertyChange(
                            name: name, oldValue: ownOnly ? nil : old,
                            newValue: name == .link
                                ? snapshot.describeLink(toKey: snapshot.linkKey(of: object))
                                : now.describe(name))
                    }))
        }
    }

    /// Spec N4: a skipped observer takes the commit into its baseline without a callback.
    mutating func rebase(_ id: ObserverID, to version: Version) {
        guard let observer = observers[id], case .collection(let query) = observer.target,
            let location = realms[observer.realm]?.configuration.location,
            let snapshot = files[location]?.versions[version]
        else { return }
        observers[id]?.baselineVersion = version
        observers[id]?.baselineContents = query.evaluate(in: snapshot)
    }

    /// Runs an observer's callback action with the observer on the callback stack. Spec W15: a
    /// callback's failure is reported as an event and never reaches the write or commit that
    /// ran it.
    mutating func runAction(of id: ObserverID, insideRefreshRequired: Bool) {
        guard let observer = observers[id] else { return }
        callbackStack.append(id)
        defer { callbackStack.removeLast() }
        let realmID = observer.realm
        switch observer.action {
        case .none:
            return
        case .refresh:
            // Spec V5: refresh inside a callback is a no-op returning false, except inside
            // `.refreshRequired`, where it moves the realm.
            let moved = insideRefreshRequired ? ((try? refresh(realmID)) ?? false) : false
            emit(.callbackRefreshed(id, moved))
        case .invalidateToken(let token):
            observers[token]?.isActive = false  // Spec N2, C13
        case .write(let mutations):
            // Spec N17: a callback may write; Spec N5: its own nested notification is dropped.
            do throws(Interruption) {
                try beginWrite(realmID, asyncBlock: nil, flushingAsync: true)
                do throws(Interruption) {
                    for mutation in mutations { try apply(mutation, in: realmID) }
                } catch {
                    rollback(realmID)
                    throw error
                }
                try commit(realmID, skipping: [], fate: .success)
            } catch {
                emit(.callbackFailed(id, error.modelError))
            }
        case .observeCollection(let query, let newID):
            guard let realm = realms[realmID], let owner = realm.owner,
                let version = realm.readVersion,
                let snapshot = files[realm.configuration.location]?.versions[version]
            else { return }
            do throws(Interruption) {
                try register(
                    newID,
                    ObserverState(
                        realm: realmID, target: .collection(query), keyPaths: nil, action: .none,
                        deliveryContext: owner, isActive: true, isDead: false,
                        initialDelivered: false, baselineVersion: version,
                        baselineContents: query.evaluate(in: snapshot), baselineObject: nil,
                        waitsForNextPass: true))
            } catch {
                emit(.callbackFailed(id, error.modelError))
            }
        }
    }

    // MARK: Event loop

    /// Whether `context`'s event loop serves `realm` (its callbacks, autorefresh and async
    /// work). Spec C3: inside a block on a serial queue, a thread-bound `Realm()` is a different
    /// instance from the queue-confined one: it belongs to the thread running the block, which
    /// runs no loop of its own (C11, V8), so the queue's turns serve only the realms confined
    /// to the queue. Any other context with a scheduler serves every realm it owns.
    func loopServes(_ realm: RealmState, in context: ContextID) -> Bool {
        guard let kind = contexts[context]?.kind, kind.hasScheduler else { return false }
        if case .serialQueue = kind { return realm.viaQueue }
        return true
    }

    /// One turn of `context`'s event loop. Spec V7, V9, N3: realms move (autorefresh) or are
    /// told to refresh; N8, N12: collection callbacks; A1, A9: async completions and blocks;
    /// N9: observers added during this turn wait for the next. Spec V8: a context without an
    /// event loop never turns. Spec C14: contexts turn independently.
    mutating func turnLoop(_ context: ContextID) {
        guard contexts[context]?.kind.hasScheduler == true else { return }
        let served = realmIDs(where: {
            $0.owner == context && !$0.isClosed && !$0.isFrozen && self.loopServes($0, in: context)
        })
        for realmID in served {
            guard let realm = realms[realmID], realm.write == nil else { continue }
            if realm.readVersion == nil,
                observers.values.contains(where: { $0.realm == realmID && !$0.initialDelivered })
            {
                try? beginReadIfNeeded(realmID)
            }
            if realm.autorefresh, realm.refreshRequiredOwed, realms[realmID]?.readVersion == nil {
                // Spec V14: an invalidated realm has no version to move, but its observers
                // still hear of the commit.
                realms[realmID]?.refreshRequiredOwed = false
                notifyRealmObservers(of: realmID, kind: .didChange, skipping: [])
            } else if realm.autorefresh {
                moveToNewest(realmID)  // Spec V7
            } else if realm.refreshRequiredOwed {
                realms[realmID]?.refreshRequiredOwed = false
                notifyRealmObservers(of: realmID, kind: .refreshRequired, skipping: [])  // N3
            }
            // Spec N12: with autorefresh off, a remote commit calls no collection observers;
            // the pass delivers only what the realm's own version already holds.
            deliverCollectionPass(of: realmID)
        }
        // Spec N18: observe(on:) observers are served on their own queue, at the newest version.
        for id in observerIDs(where: {
            $0.deliveryContext == context && $0.target != .realm
                && self.realms[$0.realm]?.owner != context
        }) {
            guard let observer = observers[id], let realm = realms[observer.realm],
                let file = files[realm.configuration.location],
                let snapshot = file.versions[file.newest]
            else { continue }
            deliver(id, at: file.newest, snapshot: snapshot)
        }
        for realmID in served where realms[realmID]?.isClosed == false {
            runAsyncTurn(realmID)
        }
        for id in observerIDs(where: { $0.deliveryContext == context }) {
            observers[id]?.waitsForNextPass = false
        }
    }
}

extension StoredObject {
    /// A property's value as a change notification shows it (a link's: `Snapshot.describeLink`).
    func describe(_ name: PropertyName) -> String? {
        switch name {
        case .value: return value.map(String.init)
        // Spec N21: a List, set or Map property reports nil old and new values.
        case .list, .set, .map: return nil
        case .link: return nil
        }
    }
}

extension Snapshot {
    /// The primary key of the Item `object`'s link reaches, if any.
    public func linkKey(of object: ObjectID) -> Int? {
        objects[object]?.link.flatMap { objects[$0]?.primaryKey }
    }

    /// A link's value as a change notification shows it: the Item with primary key `key` in
    /// this version, "Item(k)"; nil when there is none (Spec N20).
    public func describeLink(toKey key: Int?) -> String? {
        guard let key, objectID(type: "Item", primaryKey: key) != nil else { return nil }
        return "Item(\(key))"
    }
}
