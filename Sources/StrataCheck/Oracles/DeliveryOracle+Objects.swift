import StrataModel

// Object observers (Spec N20, N21). An object observer has no initial callback; from its
// registration on, each `.change` describes a newer version than the last callback (N6) and
// names exactly the watched properties a commit since then set: `value` when its `written`
// mark is newer, `list` when the List was set or, with no key paths, when an object it links
// to changed up to three links away (N21: "an observer without key paths also hears changes
// of linked objects, N11"; a `list` key path watches the List alone, as Strata's
// `WatchedPaths` does). Each property carries its new value, and its old value unless every
// commit the callback covers is the observing realm's own (N20); a List's are nil (N21).
// `.deleted` comes once, when the object is gone at the realm's version, and nothing after it.

extension DeliveryOracle {
    mutating func checkObject(
        _ delivery: EngineDelivery, object: ObjectID, keyPaths: Set<PropertyName>?,
        at version: Version, snapshot: Snapshot, model: ModelState
    ) -> String? {
        let id = delivery.observer
        guard let watch = watched[id], let since = watch.delivered?.version else {
            return "callback of an unregistered observer: \(delivery)"
        }
        guard version > since else {
            return "callback does not advance: \(delivery) is \(version), the last was \(since) (Spec N6, N7)"
        }
        switch delivery.kind {
        case .objectDeleted:
            if snapshot.objects[object] != nil {
                return "callback deleted wrong: \(delivery), where the model's \(version) holds the object"
            }
            watched[id]?.deleted = true
        case .objectChange(let changes):
            guard snapshot.objects[object] != nil else {
                return "callback change wrong: \(delivery), where the model's \(version) no longer holds "
                    + "the object"
            }
            let expected = Self.expectedChanges(
                watch, object: object, keyPaths: keyPaths, since: since,
                at: version, snapshot: snapshot, model: model)
            if expected.isEmpty {
                return "callback change wrong: \(delivery) reports a change nothing made (Spec N11)"
            }
            if changes != expected {
                return "callback change wrong: \(delivery), where the model's \(since) to \(version) changed "
                    + "\(expected) (Spec N20, N21)"
            }
        case .initial, .update, .error:
            return "callback of the wrong kind: \(delivery) for an object"
        }
        watched[id]?.delivered = (version, [])
        watched[id]?.objectValue = snapshot.objects[object]?.value
        checkedObjectCallbacks += 1
        return nil
    }

    /// The property changes an object observer hears from `since` to `version`, in the
    /// engine's column order (value, then list).
    static func expectedChanges(
        _ watch: Watched, object: ObjectID, keyPaths: Set<PropertyName>?,
        since: Version, at version: Version, snapshot: Snapshot,
        model: ModelState
    ) -> [ObjectPropertyChange] {
        guard let stored = snapshot.objects[object] else { return [] }
        var changes: [ObjectPropertyChange] = []
        if keyPaths?.contains(.value) ?? true, (stored.written[.value] ?? Version(0)) > since {
            // Spec N20: no old values when every commit covered is the observing realm's own.
            let log = model.committers[watch.location] ?? [:]
            let ownOnly = (since.rawValue + 1...version.rawValue).allSatisfy { log[Version($0)] == watch.realm }
            let before = watch.objectValue
            changes.append(
                ObjectPropertyChange(
                    name: PropertyName.value.rawValue,
                    oldValue: ownOnly ? nil : before.map(String.init),
                    newValue: stored.value.map(String.init)))
        }
        let listSet = (stored.written[.list] ?? Version(0)) > since
        let linkedChanged =
            keyPaths == nil
            && stored.list.contains { changed($0, since: since, in: snapshot, depth: 1) }
        if keyPaths?.contains(.list) ?? true, listSet || linkedChanged {
            changes.append(ObjectPropertyChange(name: PropertyName.list.rawValue, oldValue: nil, newValue: nil))
        }
        return changes
    }

    /// What an object observer is owed at `version`, if anything (item 4).
    static func owedToObject(
        _ watch: Watched, object: ObjectID, keyPaths: Set<PropertyName>?, at version: Version,
        snapshot: Snapshot
    ) -> String? {
        // A pass calls an object observer only for a version newer than its baseline (also one a
        // skipped commit set, Spec N4, which may have deleted the object).
        guard let since = watch.delivered?.version, version > since else { return nil }
        guard let stored = snapshot.objects[object] else {
            return "last heard \(since), the realm reads \(version), where its object is gone"
        }
        let valueSet = keyPaths?.contains(.value) ?? true && (stored.written[.value] ?? Version(0)) > since
        let listSet =
            keyPaths?.contains(.list) ?? true
            && ((stored.written[.list] ?? Version(0)) > since
                || keyPaths == nil && stored.list.contains { changed($0, since: since, in: snapshot, depth: 1) })
        guard valueSet || listSet else { return nil }
        return "last heard \(since), the realm reads \(version), which set \(valueSet ? "value " : "")"
            + "\(listSet ? "list" : "")"
    }
}
