import Foundation

// A managed MutableSet is observed as the List of its owner's column is (Spec N6 to N13, N18,
// N21): its change sets index the set's order (Spec V24) before and after the change.

extension MutableSet {
    /// Calls `block` on the realm's scheduler: `.initial` on a later turn, then `.update` after
    /// every commit that changes this set or (for objects) its elements, until the token is
    /// invalidated. `keyPaths` limits which properties of its objects count as modifications.
    /// - Precondition: a managed set (Spec N18).
    public func observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        let set = self
        return try storage._observe(keyPaths: keyPaths) { change in block(change.carrying(set)) }
    }

    /// Spec N18: like `observe(keyPaths:_:)`, with every callback on `queue` (a serial queue)
    /// carrying this set in the realm confined to that queue.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<MutableSet<Element>>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, on: queue, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<MutableSet<Element>>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        guard let binding else { throw Realm.Error.unmanagedObservation }  // Spec N18
        let core = binding.core
        return try Strata.observe(
            self, on: queue, core: core,
            onError: { block(.error($0)) },
            register: { set throws(Realm.Error) in try set._observe(keyPaths: keyPaths, block) })
    }

    /// Every change of this set (Spec N6 to N13), each with the set frozen at the version it
    /// describes; a set whose owner was deleted ends the stream after its last update.
    public var changes: AsyncStream<RealmCollectionChange<MutableSet<Element>>> {
        ownedCollectionChanges(
            observe: { block in self.observe(block) }, isInvalidated: { self.isInvalidated },
            freeze: { () throws(Realm.Error) in try self._freeze() }, empty: { MutableSet<Element>() })
    }
}
