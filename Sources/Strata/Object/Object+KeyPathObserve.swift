import Dispatch

// Object observers given key paths (`observe(keyPaths: [\Dog.name])`): the key paths name
// properties, which the string forms then watch (Spec N21).

extension _ObjectObservable where Self: Object {
    /// Like `observe(keyPaths:_:)` with the names of the properties `keyPaths` read.
    /// - Precondition: a managed, valid object (Spec N19); each key path reads a `@Persisted`
    ///   property.
    public func observe(
        keyPaths: [PartialKeyPath<Self>],
        _ block: @escaping (ObjectChange<Self>) -> Void
    ) -> NotificationToken {
        observe(keyPaths: Self.propertyNames(keyPaths), block)
    }

    /// Like `observe(keyPaths:on:_:)` with the names of the properties `keyPaths` read.
    public func observe(
        keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue,
        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void
    ) -> NotificationToken {
        observe(keyPaths: Self.propertyNames(keyPaths), on: queue, block)
    }

    /// Like `observe(keyPaths:on:_:)` for an actor with the names of the properties
    /// `keyPaths` read.
    public func observe<A: Actor>(
        keyPaths: [PartialKeyPath<Self>], on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void
    )
        async -> NotificationToken
    {
        await observe(keyPaths: Self.propertyNames(keyPaths), on: actor, _isolation: _isolation, block)
    }

    /// The names of the properties the key paths read (each read on an unmanaged object that
    /// records which wrapper answers).
    static func propertyNames(_ keyPaths: [PartialKeyPath<Self>]) -> [String] {
        let info = ClassInfo.of(self)
        return keyPaths.map { QueryColumns.keyPathName(of: $0, info: info) }
    }
}
