import StrataStorage

/// Where a managed List, MutableSet or Map lives: a column of a stored object (a Map's holds
/// its keys and values in turn, `MapEntries`).
final class ListBinding: @unchecked Sendable {
    let parent: _ObjectAccessor
    let column: Int
    /// The decoded stored list for one view stamp. A lock, since frozen Lists are read by
    /// many threads at once (Spec C10); `@unchecked Sendable` names it.
    private let cache = Lock<(stamp: ViewStamp, values: [Value])?>(nil)

    init(parent: _ObjectAccessor, column: Int) {
        self.parent = parent
        self.column = column
    }

    var core: RealmCore { parent.core }
    var property: PropertySchema { parent.info.schema.properties[column] }

    /// The stored elements now (Spec C6, V13: checked; an owner that is gone makes the List
    /// invalid).
    func values() throws(Realm.Error) -> [Value] {
        try core.checkAccess()
        let stamp = core.stamp
        if let cached = cache.withLock({ $0 }), cached.stamp == stamp { return cached.values }
        let stored: Value
        do throws(Realm.Error) {
            stored = try parent.value(column: column)
        } catch  where error == .objectInvalidated {
            throw invalidatedError
        }
        guard case .list(let values) = stored else { return [] }
        cache.withLock { $0 = (stamp, values) }
        return values
    }

    func isInvalidated() throws(Realm.Error) -> Bool { try parent.isInvalidated() }

    /// The keys of the objects a List of links holds; empty when the owner is gone and
    /// `orEmptyIfInvalid` (Spec T5: Results over such a List are valid and empty).
    func linkKeys(orEmptyIfInvalid: Bool) throws(Realm.Error) -> [ObjectKey] {
        if orEmptyIfInvalid, try isInvalidated() { return [] }
        return try values().compactMap { value -> ObjectKey? in
            if case .link(let link) = value { return link.key }
            return nil
        }
    }

    /// Stores `values` (Spec W9, F12: in a write, on a live List).
    func store(_ values: [Value]) throws(Realm.Error) {
        try parent.setValue(.list(values), column: column)
        // What was stored is what the next read at the write's new stamp would decode.
        let stamp = core.stamp
        cache.withLock { $0 = (stamp, values) }
    }

    /// The checks of a mutation, made before anything is encoded (Spec W9's order), as
    /// realm-core's `Collection::verify_in_transaction` makes them: the context, then whether
    /// the List is still valid (Spec V13, W12, F6), then the write (Spec W9; a frozen List is
    /// never in one, F12).
    func checkMutable() throws(Realm.Error) {
        try core.checkThread()
        if try isInvalidated() { throw invalidatedError }
        guard core.write != nil else { throw outsideWriteError }
    }

    /// Realm's words for a change of this kind of collection outside a write (Spec W9).
    var outsideWriteError: Realm.Error {
        if property.isMap { return .mapOutsideWrite }
        return property.isSet ? .setOutsideWrite : .listOutsideWrite
    }

    /// What using the collection of an owner that is gone throws: realm-core names the kind.
    var invalidatedError: Realm.Error {
        if property.isMap { return .mapInvalidated }
        return property.isSet ? .setInvalidated : .collectionInvalidated
    }

    /// The binding at a frozen copy of its realm's current version (Spec F1, F5, F11); itself
    /// when its realm is frozen already.
    func frozen() throws(Realm.Error) -> ListBinding {
        if core.isFrozen { return self }
        _ = try values()  // Spec C7, V13
        guard let moved = try rebound(to: try core.freeze()) else { throw Realm.Error.freezeInCreatingWrite }
        return moved
    }

    /// The binding on the live realm of the calling thread, at that realm's version (Spec F8);
    /// nil when its owner does not exist there; itself when live (Spec C6: after the thread
    /// check every member of a live collection makes).
    func thawed() throws(Realm.Error) -> ListBinding? {
        guard core.isFrozen else {
            try core.checkThread()
            return self
        }
        return try rebound(to: try core.liveRealmForCurrentThread())
    }

    /// The same List in another realm of the file; nil when its owner is missing there (or
    /// its key holds another object: Spec W12).
    func rebound(to other: RealmCore) throws(Realm.Error) -> ListBinding? {
        try parent.rebound(to: other).map { ListBinding(parent: $0, column: column) }
    }
}

extension _ObjectAccessor {
    /// The same object in another realm of the file, for a collection it owns or is the target
    /// of; nil when it is missing there (or its key holds another object: Spec W12).
    func rebound(to other: RealmCore) throws(Realm.Error) -> _ObjectAccessor? {
        if other.isFrozenInvalidated {
            // Spec F6: a freeze at the version of the shared frozen realm that was invalidated
            // gives a collection of that realm, which reads nothing; so the freeze cannot look
            // the object up there. The source read it at that very version, so only F11 is left.
            try checkCommitted()
            return _ObjectAccessor(core: other, info: info, table: table, identity: identity, scope: nil)
        }
        let view = try other.view()
        let identity = self.identity
        guard let table = view.table(named: info.className),
            try engine(other.path, { try view.contains(table, identity: identity) })
        else { return nil }
        return _ObjectAccessor(
            core: other, info: info, table: table, identity: identity, scope: other.scope(for: table, identity))
    }
}
