import StrataModel

/// The oracle of collection and object observers (Spec N2, N4 to N13, N20, N21): checks every
/// callback the engine side recorded (`DeliveryLog`) against the model's versions, and checks
/// at the points where the Spec says callbacks must have run that none is owed. Object
/// observers' rules: `DeliveryOracle+Objects`.
///
/// Why not compare with the model's own callbacks one for one: where the Spec leaves a choice
/// free, one answer is not the rule. How many commits an update covers depends on when the
/// loop turns (N7); Strata delivers a queue realm's commits on the turn the commit schedules,
/// the model on the next `turnLoop`, `refresh()` or `beginWrite`; and which of several equally
/// long common subsequences a change set keeps is free. So each callback is checked for what
/// every legal answer has:
///
/// 1. It belongs to a registered observer whose token was not invalidated (N2), did not run
///    inside `observe` (N8), ran on the observed realm's queue (N6), one pass at a time in
///    registration order, and is no `.error`.
/// 2. Its collection equals the model's query at the version the realm read during the
///    callback (N6, N10): the engine version less the run's fixed offset (`Runner`).
/// 3. `.initial` comes first and once; each update describes a newer version than the last
///    callback (N7), is not empty (N11), has ascending, in-range indices, gives the new
///    contents when its deletions (old indices) then insertions (new indices) are applied to
///    the previous ones (N7, N13), keeps a longest common subsequence of the two (any one:
///    which is free), and reports as modifications (old indices) exactly the kept
///    elements a commit since the last callback set, directly or through up to three links
///    (N11, N13: Strata's choice, `ChangeDetector.maximumDepth`).
/// 4. After `refresh()` (N12), `beginWrite` (N17), and a queue context's commit or `observe`
///    (whose delivery turn the step waited for, N7, N8), each live observer of the realm has
///    had its initial callback and nothing is owed: the model's contents at the realm's version
///    are the last delivered ones, with no element set since. These are Strata's delivery
///    passes, and a pass makes the realm's version every observer's baseline, also where it
///    calls nothing; so does the oracle.
/// A commit that skips a token (N4) makes the commit's version that observer's baseline.
///
/// After `invalidate()` of its realm an observer's collection is invalid for good (Spec V13)
/// and the Spec says no more of it: Strata's Results observer then calls back once with
/// `.error` and stops, its List observer reports every element gone, where the model goes on
/// delivering the query at the realm's next read. From then on the oracle checks only item 1
/// of that observer (an `.error` allowed).
struct DeliveryOracle {
    /// What the oracle knows of one observer: fixed at registration, then what it last heard.
    struct Watched {
        enum Target {
            case collection(Query)
            /// The object and the properties its key paths name (nil: all, Spec N21).
            case object(ObjectID, keyPaths: Set<PropertyName>?)
        }

        var realm: RealmID
        var context: ContextID
        var target: Target
        var location: FileLocation
        /// The realm's epoch at registration (`RealmState.epoch`, raised by `invalidate()`).
        var epoch: Int
        /// The version the last callback described and, for a collection, its elements (nil
        /// before the initial callback). An object observer starts at its registration's.
        var delivered: (version: Version, elements: [ObjectID])?
        var invalidated = false
        /// An object observer was told its object is gone: no callback may follow.
        var deleted = false
        /// An object observer: the object's value at `delivered`'s version, kept here because
        /// the model drops versions no one pins (`collectGarbage`), and an old value is
        /// the value at the last callback or pass (Spec N20).
        var objectValue: Int?

        /// Whether its realm was invalidated since it registered (see the type's note).
        func isRetired(in model: ModelState) -> Bool { model.realms[realm]?.epoch != epoch }
    }

    // Internal, not private(set): the object rules (`DeliveryOracle+Objects`) update it too.
    var watched: [ObserverID: Watched] = [:]
    private(set) var checkedCallbacks = 0
    /// Of them, object observers' (`.change` and `.deleted`).
    var checkedObjectCallbacks = 0
    /// Points at which every observer of a realm was found caught up (item 4).
    private(set) var checkedPoints = 0

    /// A crash ends every observer (the model's and the engine side's).
    mutating func reset() { watched = [:] }

    /// Checks `deliveries`, the callbacks that ran during `step` (which `observed` ended), in
    /// `model` as the step left it; returns the first problem.
    mutating func check(
        _ step: Step, observed: Observation, deliveries: [EngineDelivery], model: ModelState,
        offset: Int64?, queueNumber: (ContextID) -> Int?
    ) -> String? {
        switch (step.operation, observed) {
        case (.observeCollection(_, _, _, _, let id), .done), (.observeObject(_, _, let id), .done):
            register(id, in: model)
        case (.commitWrite(_, let skipped, .success), .done):
            rebase(skipped, in: model)
        default:
            break
        }
        var passOrder: [RealmID: ObserverID] = [:]
        for delivery in deliveries {
            if let problem = check(
                delivery, model: model, offset: offset, queueNumber: queueNumber,
                passOrder: &passOrder)
            {
                return problem
            }
            checkedCallbacks += 1
        }
        if let problem = checkCaughtUp(after: step, observed: observed, model: model) { return problem }
        if case (.invalidateToken(let id), .bool) = (step.operation, observed) {
            watched[id]?.invalidated = true
        }
        return nil
    }

    private mutating func register(_ id: ObserverID, in model: ModelState) {
        guard let observer = model.observers[id], let realm = model.realms[observer.realm] else { return }
        let target: Watched.Target
        var delivered: (version: Version, elements: [ObjectID])?
        switch observer.target {
        case .collection(let query):
            target = .collection(query)
        case .object(let object):
            target = .object(object, keyPaths: observer.keyPaths)
            delivered = (observer.baselineVersion, [])  // Spec N20: changes since registration
        case .realm:
            return
        }
        watched[id] = Watched(
            realm: observer.realm, context: observer.deliveryContext, target: target,
            location: realm.configuration.location, epoch: realm.epoch, delivered: delivered,
            objectValue: observer.baselineObject?.value)
    }

    /// Spec N4: a skipped observer takes the commit's version as delivered (a collection one
    /// only once it had its initial callback: before that there is nothing to skip).
    private mutating func rebase(_ skipped: [ObserverID], in model: ModelState) {
        for id in skipped {
            guard let watch = watched[id], watch.delivered != nil, !watch.deleted,
                let version = model.realms[watch.realm]?.readVersion,
                let snapshot = model.files[watch.location]?.versions[version]
            else { continue }
            switch watch.target {
            case .collection(let query): watched[id]?.delivered = (version, query.evaluate(in: snapshot))
            case .object(let object, _):
                watched[id]?.delivered = (version, [])
                watched[id]?.objectValue = snapshot.objects[object]?.value
            }
        }
    }

    // MARK: one callback (items 1 to 3)

    private mutating func check(
        _ delivery: EngineDelivery, model: ModelState, offset: Int64?,
        queueNumber: (ContextID) -> Int?,
        passOrder: inout [RealmID: ObserverID]
    ) -> String? {
        let id = delivery.observer
        guard let watch = watched[id] else { return "callback of an unregistered observer: \(delivery)" }
        if watch.invalidated || model.observers[id] == nil {
            return "callback after its token was invalidated: \(delivery) (Spec N2)"
        }
        if watch.deleted { return "callback after the object's deletion: \(delivery)" }
        if delivery.insideObserve { return "callback inside observe itself: \(delivery) (Spec N8)" }
        if let queue = queueNumber(watch.context), delivery.queueNumber != queue {
            let ran = delivery.queueNumber.map(String.init) ?? "none"
            return "callback off the realm's queue: \(delivery) ran on queue \(ran), not \(queue) (Spec N6)"
        }
        if let earlier = passOrder[watch.realm], earlier >= id {
            return "callback out of registration order: \(delivery) after \(earlier)'s in one pass (Spec N6)"
        }
        passOrder[watch.realm] = id
        if watch.isRetired(in: model) { return nil }
        if case .error(let message) = delivery.kind { return "callback error: \(id) got .error(\(message))" }
        guard let engineVersion = delivery.engineVersion, let offset else {
            return "callback unreadable: \(delivery) \(delivery.readFailure ?? "no version offset known")"
        }
        let version = Version(Int(Int64(engineVersion) - offset))
        guard let snapshot = model.files[watch.location]?.versions[version] else {
            return "callback at unknown version: \(delivery) is the model's \(version), which it never had"
        }
        switch watch.target {
        case .collection(let query):
            return checkCollection(delivery, query: query, at: version, snapshot: snapshot)
        case .object(let object, let keyPaths):
            return checkObject(
                delivery, object: object, keyPaths: keyPaths, at: version, snapshot: snapshot,
                model: model)
        }
    }

    private mutating func checkCollection(
        _ delivery: EngineDelivery, query: Query, at version: Version,
        snapshot: Snapshot
    ) -> String? {
        let id = delivery.observer
        guard let contents = delivery.contents else {
            return "callback unreadable: \(delivery) \(delivery.readFailure ?? "")"
        }
        let elements = query.evaluate(in: snapshot)
        let expected = elements.map { Self.reading(of: $0, in: snapshot) }
        if contents != expected {
            return "callback contents wrong: \(delivery) where the model's \(version) holds "
                + "\(EngineDelivery.brief(expected.map(\.primaryKey))) (Spec N6, N10)"
        }
        switch delivery.kind {
        case .initial:
            if watched[id]?.delivered != nil { return "callback initial twice: \(delivery) (Spec N8)" }
        case .update(let deletions, let insertions, let modifications):
            guard let previous = watched[id]?.delivered else {
                return "callback update before initial: \(delivery) (Spec N8)"
            }
            guard version > previous.version else {
                return "callback does not advance: \(delivery) is \(version), the last was "
                    + "\(previous.version) (Spec N7)"
            }
            let change = (deletions: deletions, insertions: insertions, modifications: modifications)
            if let problem = Self.verify(
                change, old: previous.elements, new: elements, since: previous.version,
                in: snapshot)
            {
                let before = EngineDelivery.brief(previous.elements.compactMap { snapshot.objects[$0]?.primaryKey })
                return "callback change set wrong: \(delivery) from \(previous.version)'s \(before): \(problem)"
            }
        case .objectChange, .objectDeleted, .error:
            return "callback of the wrong kind: \(delivery) for a collection"
        }
        watched[id]?.delivered = (version, elements)
        return nil
    }

    /// What every correct change set from `old` to `new` has (item 3); nil when `change` has it.
    static func verify(
        _ change: (deletions: [Int], insertions: [Int], modifications: [Int]), old: [ObjectID],
        new: [ObjectID], since: Version, in snapshot: Snapshot
    ) -> String? {
        if change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty {
            return "an update that changes nothing (Spec N11)"
        }
        for (name, indices, count) in [
            ("deletions", change.deletions, old.count),
            ("insertions", change.insertions, new.count),
            ("modifications", change.modifications, old.count),
        ] {
            if zip(indices, indices.dropFirst()).contains(where: { $0 >= $1 }) {
                return "\(name) \(indices) not ascending (Spec N13)"
            }
            if let index = indices.first(where: { $0 < 0 || $0 >= count }) {
                return "\(name) index \(index) outside 0..<\(count) (Spec N13)"
            }
        }
        guard apply(deletions: change.deletions, insertions: change.insertions, to: old, new: new) == new else {
            return "its deletions and insertions do not turn the old contents into the new (Spec N7, N13)"
        }
        // Which common subsequence is kept is free, but it is a longest one: an element that
        // did not move relative to the others is neither deleted nor inserted (Spec N7).
        let longest = old.count - ChangeSet.between(old: old, new: new) { _ in false }.deletions.count
        if old.count - change.deletions.count != longest {
            return "it keeps \(old.count - change.deletions.count) elements, where a longest common subsequence "
                + "keeps \(longest) (Spec N7)"
        }
        let deleted = Set(change.deletions)
        let kept = old.indices.filter { !deleted.contains($0) }
        let modified = kept.filter { changed(old[$0], since: since, in: snapshot) }
        if change.modifications != modified {
            return "modifications \(EngineDelivery.brief(change.modifications)), where the kept elements set since "
                + "\(since) are at old indices \(EngineDelivery.brief(modified)) (Spec N11, N13)"
        }
        return nil
    }

    /// Spec N7: deletions (old indices) from the back, then insertions (new indices, the
    /// elements taken from `new`) from the front; indices are in range (checked first).
    static func apply(deletions: [Int], insertions: [Int], to old: [ObjectID], new: [ObjectID]) -> [ObjectID] {
        var result = old
        for index in deletions.reversed() { result.remove(at: index) }
        for index in insertions where index <= result.count { result.insert(new[index], at: index) }
        return result
    }

    /// Whether a commit after `since` set a property of `object`, or of an object its List links
    /// to, up to three links away from `depth` 0 (Strata's rule, Spec N11; the engine follows
    /// the links of the new version).
    static func changed(_ object: ObjectID, since: Version, in snapshot: Snapshot, depth: Int = 0) -> Bool {
        guard let stored = snapshot.objects[object] else { return false }
        if (stored.written.values.max() ?? Version(0)) > since { return true }
        guard depth < 3 else { return false }
        return stored.list.contains { changed($0, since: since, in: snapshot, depth: depth + 1) }
    }

    static func reading(of object: ObjectID, in snapshot: Snapshot) -> Reading {
        snapshot.reading(of: object, frozen: false).map(Reading.init)
            ?? Reading(type: "?", primaryKey: Int.min, value: nil, listKeys: [], isFrozen: false)
    }

    // MARK: points where nothing may be owed (item 4)

    private mutating func checkCaughtUp(after step: Step, observed: Observation, model: ModelState) -> String? {
        let realmID: RealmID
        switch (step.operation, observed) {
        case (.refresh(let id), .bool), (.beginWrite(let id), .done),
            (.commitWrite(let id, _, .success), .done):
            realmID = id
        case (.observeCollection(_, _, _, _, let observer), .done):
            guard let realm = watched[observer]?.realm else { return nil }
            realmID = realm
        default:
            return nil
        }
        guard let realm = model.realms[realmID], let version = realm.readVersion else { return nil }
        // A delivery turn finds the realm in a write and leaves it (Strata, RealmCore+Delivery);
        // beginWrite delivers before its write goes on (Spec N17).
        if realm.write != nil, !Self.isBeginWrite(step.operation) { return nil }
        guard let snapshot = model.files[realm.configuration.location]?.versions[version] else { return nil }
        for id in watched.keys.sorted() {
            guard let watch = watched[id], watch.realm == realmID, !watch.invalidated, !watch.deleted,
                !watch.isRetired(in: model), model.observers[id] != nil
            else { continue }
            checkedPoints += 1
            let owed: String?
            switch watch.target {
            case .collection(let query):
                owed = Self.owed(watch, query: query, at: version, snapshot: snapshot)
            case .object(let object, let keyPaths):
                owed = Self.owedToObject(
                    watch, object: object, keyPaths: keyPaths, at: version,
                    snapshot: snapshot)
            }
            if let owed {
                return "callback missing after \(StepText.describe(step)): \(id) \(owed) (Spec N7, N8, N12, N17)"
            }
            // The pass took the realm's version as delivered, silently where nothing changed
            // (Spec N11): an object's next old values are those of this version (N20).
            switch watch.target {
            case .collection(let query): watched[id]?.delivered = (version, query.evaluate(in: snapshot))
            case .object(let object, _):
                watched[id]?.delivered = (version, [])
                watched[id]?.objectValue = snapshot.objects[object]?.value
            }
        }
        return nil
    }

    /// What a collection observer is owed at `version`, if anything.
    private static func owed(
        _ watch: Watched, query: Query, at version: Version,
        snapshot: Snapshot
    ) -> String? {
        guard let delivered = watch.delivered else { return "has had no initial callback" }
        let now = query.evaluate(in: snapshot)
        let owed = ChangeSet.between(old: delivered.elements, new: now) {
            changed($0, since: delivered.version, in: snapshot)
        }
        guard delivered.version > version || !owed.isEmpty else { return nil }
        return "last heard \(delivered.version), the realm reads \(version), which owes deletions "
            + "\(EngineDelivery.brief(owed.deletions)), insertions \(EngineDelivery.brief(owed.insertions)), "
            + "modifications \(EngineDelivery.brief(owed.modifications))"
    }

    private static func isBeginWrite(_ operation: StrataModel.Operation) -> Bool {
        if case .beginWrite = operation { return true }
        return false
    }
}
