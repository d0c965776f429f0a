import Foundation
import StrataStorage

// Spec N18, N23, C15: `observe(on: actor)` observes a value through the realm of the same file
// confined to `actor`, with every callback in the actor's isolation.

/// Observes `value` on `actor`: the value is resolved in the actor's realm and `register` adds
/// the observer there. Returns once it is registered. A task already cancelled registers
/// nothing and gets a token that was never live (Spec N23); a value that cannot be resolved
/// there (deleted meanwhile) is reported to `onError` on the actor.
func observe<T: ThreadConfined & SendableMetatype, A: Actor>(
    _ value: T, on actor: A, core: RealmCore,
    isolation: isolated (any Actor)?,
    onError: @escaping @Sendable (isolated A, Realm.Error) -> Void,
    register: @escaping @Sendable (T, A) throws(Realm.Error) -> NotificationToken
) async throws(Realm.Error) -> NotificationToken {
    try core.checkObservableFromAnyContext()
    let configuration = core.configuration
    if Task.isCancelled { return NotificationToken.neverLive() }
    let handle = try value._threadSafeHandle()
    return await registerObserver(
        on: actor, handle: handle, as: T.self, configuration: configuration,
        onError: onError, register: register)
}

private func registerObserver<T: ThreadConfined & SendableMetatype, A: Actor>(
    on actor: isolated A, handle: _ThreadSafeHandle, as type: T.Type, configuration: Realm.Configuration,
    onError: @Sendable (isolated A, Realm.Error) -> Void,
    register: @Sendable (T, A) throws(Realm.Error) -> NotificationToken
) -> NotificationToken {
    do throws(Realm.Error) {
        let realm = Realm(core: try RealmCore.open(configuration, actor: actor))
        guard let resolved = try T._resolve(handle, in: realm) else { throw Realm.Error.objectInvalidated }
        return try register(resolved, actor)
    } catch {
        onError(actor, error)
        return NotificationToken.neverLive()
    }
}

extension Actor {
    /// Calls an actor-isolated callback with `value` from a delivery turn, which the realm's
    /// scheduler runs in this actor's isolation (Spec C15): `assumeIsolated` checks that and
    /// traps otherwise. The value comes from the actor's own realm and stays in its isolation;
    /// the box only carries it past the closure's sending check.
    nonisolated func deliverIsolated<Value>(_ value: Value, to body: @Sendable (isolated Self, Value) -> Void) {
        let delivered = Delivered(value: value)
        assumeIsolated { body($0, delivered.value) }
    }
}

/// A value handed to a callback in the isolation it was made in (see `deliverIsolated`).
private struct Delivered<Value>: @unchecked Sendable {
    let value: Value
}

extension Results {
    /// Spec N18, C15: like `observe(keyPaths:_:)`, with every callback in `actor`'s isolation
    /// carrying these Results in the realm confined to that actor. Returns once registered; in
    /// a cancelled task nothing is registered (Spec N23).
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Results<Element>>) -> Void
    )
        async -> NotificationToken
    {
        await trapping { () async throws(Realm.Error) -> NotificationToken in
            try await _observe(keyPaths: keyPaths, on: actor, _isolation: _isolation, block)
        }
    }

    package func _observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Results<Element>>) -> Void
    )
        async throws(Realm.Error) -> NotificationToken
    {
        let core = storage.core
        return try await Strata.observe(
            self, on: actor, core: core, isolation: _isolation,
            onError: { actor, error in block(actor, .error(error)) },
            register: { results, actor throws(Realm.Error) in
                try results._observe(keyPaths: keyPaths) { change in actor.deliverIsolated(change, to: block) }
            })
    }
}

extension List {
    /// Spec N18, C15: like `observe(keyPaths:_:)`, with every callback in `actor`'s isolation.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<List<Element>>) -> Void
    )
        async -> NotificationToken
    {
        await trapping { () async throws(Realm.Error) -> NotificationToken in
            try await _observe(keyPaths: keyPaths, on: actor, _isolation: _isolation, block)
        }
    }

    package func _observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<List<Element>>) -> Void
    )
        async throws(Realm.Error) -> NotificationToken
    {
        guard let binding else { throw Realm.Error.unmanagedActorObservation }  // Spec N18
        let core = binding.core
        return try await Strata.observe(
            self, on: actor, core: core, isolation: _isolation,
            onError: { actor, error in block(actor, .error(error)) },
            register: { list, actor throws(Realm.Error) in
                try list._observe(keyPaths: keyPaths) { change in actor.deliverIsolated(change, to: block) }
            })
    }
}

extension _ObjectObservable where Self: Object {
    /// Spec N18, C15: like `observe(keyPaths:_:)`, with every callback in `actor`'s isolation
    /// carrying the object of the realm confined to that actor.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void
    )
        async -> NotificationToken
    {
        await trapping { () async throws(Realm.Error) -> NotificationToken in
            try await _observe(keyPaths: keyPaths, on: actor, _isolation: _isolation, block)
        }
    }

    package func _observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void
    )
        async throws(Realm.Error) -> NotificationToken
    {
        guard let accessor = _accessor else { throw Realm.Error.unmanagedActorObservation }  // Spec N19
        let core = accessor.core
        _ = try WatchedPaths.parse(keyPaths, info: accessor.info, core: core)  // Spec N21: rejected here
        return try await Strata.observe(
            self, on: actor, core: core, isolation: _isolation,
            onError: { actor, error in block(actor, .error(error)) },
            register: { object, actor throws(Realm.Error) in
                try object._observe(keyPaths: keyPaths) { change in actor.deliverIsolated(change, to: block) }
            })
    }
}
