import Foundation
import StrataStorage

extension RealmCollectionChange {
    /// The same change, carrying `collection`.
    func carrying<Other>(_ collection: Other) -> RealmCollectionChange<Other> {
        switch self {
        case .initial: return .initial(collection)
        case .update(_, let deletions, let insertions, let modifications):
            return .update(collection, deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): return .error(error)
        }
    }
}

extension RealmCore {
    /// A token whose invalidation drops its observer on this realm's scheduler.
    func makeNotifierToken() -> NotificationToken {
        let listener = self.listener
        return NotificationToken { explicit in listener?.schedulePrune(now: explicit) }
    }
}

/// Spec N18: observes `value` (of `core`'s realm, which must be observable from any context) on
/// `queue`, through the realm of the same file confined to that queue: `register` runs there
/// with the value resolved in it, and the returned token stops that observer, also before it is
/// registered.
func observe<T: ThreadConfined & SendableMetatype>(
    _ value: T, on queue: DispatchQueue, core: RealmCore,
    onError: @escaping @Sendable (Realm.Error) -> Void,
    register: @escaping @Sendable (T) throws(Realm.Error) -> NotificationToken
)
    throws(Realm.Error) -> NotificationToken
{
    try core.checkObservableFromAnyContext()
    let configuration = core.configuration
    let handle = try value._threadSafeHandle()
    let outer = NotificationToken()
    queue.async {
        guard !outer.isInvalidated else { return }
        do throws(Realm.Error) {
            let realm = try Realm._open(configuration: configuration, queue: queue)
            guard let resolved = try T._resolve(handle, in: realm) else { throw Realm.Error.objectInvalidated }
            outer.forward(to: try register(resolved))
        } catch {
            onError(error)
        }
    }
    return outer
}

extension Results {
    /// Spec N18: like `observe(keyPaths:_:)`, with every callback on `queue` (a serial queue)
    /// carrying these Results in the realm confined to that queue.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<Results<Element>>) -> Void
    )
        -> NotificationToken
    {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, on: queue, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<Results<Element>>) -> Void
    )
        throws(Realm.Error) -> NotificationToken
    {
        let core = storage.core
        return try Strata.observe(
            self, on: queue, core: core,
            onError: { block(.error($0)) },
            register: { results throws(Realm.Error) in try results._observe(keyPaths: keyPaths, block) })
    }

    /// Calls `block` on the realm's scheduler: `.initial` on a later turn, then `.update` after
    /// every commit that changes these Results (Spec N6 to N13), until the token is
    /// invalidated. `keyPaths` limits which properties count as modifications (Spec N21).
    public func observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void
    )
        throws(Realm.Error) -> NotificationToken
    {
        try _observe(keyPaths: keyPaths, block, skipped: nil)
    }

    /// `_observe(keyPaths:_:)` that tells `skipped` when a commit skips the observer (Spec N4).
    package func _observe(
        keyPaths: [String]?,
        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void, skipped: (() -> Void)?
    )
        throws(Realm.Error) -> NotificationToken
    {
        let core = storage.core
        try core.checkObservable()
        guard storage.epoch == core.epoch else { throw Realm.Error.resultsInvalidated }  // Spec V13
        let paths = try WatchedPaths.parse(keyPaths, info: storage.info, core: core)
        let token = core.makeNotifierToken()
        let results = self
        let notifier = CollectionNotifier(
            subscription: token.subscription, schema: storage.info.schema, paths: paths,
            contents: { () throws(Realm.Error) -> CollectionContents in
                let evaluation = try results.evaluate()
                return CollectionContents(
                    table: evaluation.table,
                    elements: evaluation.keys.indices.map { .object(evaluation.identity(at: $0)) })
            },
            send: { change in block(change.carrying(results)) }, skipped: skipped)
        core.addNotifier(notifier)
        return token
    }
}

extension List {
    /// Spec N18: like `observe(keyPaths:_:)`, with every callback on `queue` (a serial queue).
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<List<Element>>) -> Void
    )
        -> NotificationToken
    {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, on: queue, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<List<Element>>) -> Void
    )
        throws(Realm.Error) -> NotificationToken
    {
        guard let binding else { throw Realm.Error.unmanagedObservation }  // Spec N18
        let core = binding.core
        return try Strata.observe(
            self, on: queue, core: core,
            onError: { block(.error($0)) },
            register: { list throws(Realm.Error) in try list._observe(keyPaths: keyPaths, block) })
    }

    /// Calls `block` on the realm's scheduler: `.initial` on a later turn, then `.update` after
    /// every commit that changes this List or (for objects) its elements (Spec N6 to N13).
    /// - Precondition: a managed List (Spec N18).
    public func observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void
    )
        throws(Realm.Error) -> NotificationToken
    {
        try _observe(keyPaths: keyPaths, block, skipped: nil)
    }

    /// `_observe(keyPaths:_:)` that tells `skipped` when a commit skips the observer (Spec N4).
    package func _observe(
        keyPaths: [String]?,
        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void, skipped: (() -> Void)?
    )
        throws(Realm.Error) -> NotificationToken
    {
        guard let binding else { throw Realm.Error.unmanagedObservation }  // Spec N18
        let core = binding.core
        try core.checkObservable()
        if try binding.isInvalidated() { throw Realm.Error.collectionInvalidated }
        let property = binding.property
        let targetInfo = property.objectClassName.flatMap { core.knownClass(named: $0) }
        let paths: WatchedPaths
        if let targetInfo {
            paths = try WatchedPaths.parse(keyPaths, info: targetInfo, core: core)
        } else {
            paths = .everything
        }
        let token = core.makeNotifierToken()
        let list = self
        let notifier = CollectionNotifier(
            subscription: token.subscription, schema: targetInfo?.schema, paths: paths,
            contents: { () throws(Realm.Error) -> CollectionContents in
                // An owner that is gone holds nothing: its List reports every element deleted.
                guard try !binding.isInvalidated() else { return CollectionContents(table: nil, elements: []) }
                let values = try binding.values()
                guard let targetInfo else { return CollectionContents(table: nil, elements: values.map { .value($0) }) }
                let view = try core.view()
                guard let table = view.table(named: targetInfo.className) else {
                    return CollectionContents(table: nil, elements: [])
                }
                var elements: [CollectionElement] = []
                elements.reserveCapacity(values.count)
                for value in values {
                    guard case .link(let link) = value else { continue }
                    let incarnation = try engine(core.path) { try view.incarnation(table, key: link.key) }
                    elements.append(.object(ObjectIdentity(key: link.key, incarnation: incarnation ?? .keyIsIdentity)))
                }
                return CollectionContents(table: table, elements: elements)
            },
            send: { change in block(change.carrying(list)) }, skipped: skipped)
        core.addNotifier(notifier)
        return token
    }
}

/// Objects that can be observed one by one; `Object` is the only one.
public protocol _ObjectObservable: AnyObject {}

extension Object: _ObjectObservable {}

extension _ObjectObservable where Self: Object {
    /// Spec N19: the accessor to observe through; an unmanaged object, or one deleted through
    /// this instance (its `realm` is nil), has none.
    fileprivate func observableAccessor() throws(Realm.Error) -> _ObjectAccessor {
        guard let accessor = _accessor, !accessor.isDetachedByDelete else {
            throw Realm.Error.unmanagedObjectObservation
        }
        return accessor
    }

    /// Calls `block` on the realm's scheduler after every commit that changes a watched property
    /// of this object (`.change` with the changed properties, Spec N20 to N22), or deletes it
    /// (`.deleted`), until the token is invalidated. No initial callback.
    /// - Precondition: a managed, valid object (Spec N19).
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken
    {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (ObjectChange<Self>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        let accessor = try observableAccessor()
        let core = accessor.core
        let paths = try WatchedPaths.parse(keyPaths, info: accessor.info, core: core)
        try core.checkObservable()
        guard try !accessor.isInvalidated() else { throw Realm.Error.objectInvalidated }
        _ = try core.view()  // the baseline is the version read now
        let token = core.makeNotifierToken()
        let notifier = ObjectNotifier(
            subscription: token.subscription, info: accessor.info, table: accessor.table,
            identity: accessor.identity, paths: paths
        ) { change, properties in
            // The observer keeps the object (and its realm) until the token is invalidated.
            switch change {
            case .change: block(.change(self, properties))
            case .deleted: block(.deleted)
            case .error(let error): block(.error(error))
            }
        }
        notifier.rebase(to: core)
        notifier.subscription.register(in: core)
        core.notifiers.append(notifier)
        return token
    }
}

extension _ObjectObservable where Self: Object {
    /// Spec N18: like `observe(keyPaths:_:)`, with every callback on `queue` (a serial queue)
    /// carrying the object of the realm confined to that queue.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, on: queue, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        let accessor = try observableAccessor()
        let core = accessor.core
        _ = try WatchedPaths.parse(keyPaths, info: accessor.info, core: core)  // Spec N21: rejected here
        return try Strata.observe(
            self, on: queue, core: core,
            onError: { block(.error($0)) },
            register: { object throws(Realm.Error) in try object._observe(keyPaths: keyPaths, block) })
    }
}

extension Realm.Error {
    static let unmanagedObservation = misuse("Change notifications are only supported on managed collections.")
    static let unmanagedObjectObservation = misuse(
        "Only objects which are managed by a Realm support change notifications")
}
