import Foundation

/// Any `RealmCollection` of `Element`s behind one type, as RealmSwift's `AnyRealmCollection`:
/// every member forwards to the wrapped collection, and collections it derives (a freeze, a
/// thaw, the collection a change carries) are wrapped again. Thread-confined as the collection
/// it wraps (Spec C6); a `ThreadSafeReference` to it resolves to the same kind of collection.
public struct AnyRealmCollection<Element: Object>: RealmCollection {
    /// The wrapped collection.
    let base: any RealmCollection<Element>

    /// Wraps `base`.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        // A wrapped AnyRealmCollection is not wrapped twice.
        if let any = base as? AnyRealmCollection<Element> {
            self.base = any.base
        } else {
            self.base = base
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { base.count }
    public subscript(position: Int) -> Element { base[position] }

    public var realm: Realm? { base.realm }
    public var isInvalidated: Bool { base.isInvalidated }
    public var count: Int { base.count }
    public var isFrozen: Bool { base.isFrozen }
    public var description: String { base.description }

    public func index(of object: Element) -> Int? { base.index(of: object) }

    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            guard let match = try _filter(predicateFormat, arguments: args)._first() else { return nil }
            return base.index(of: match)
        }
    }

    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        base.index(matching: isIncluded)
    }

    public func objects(at indexes: IndexSet) -> [Element] { base.objects(at: indexes) }

    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in try _filter(predicateFormat, arguments: args) }
    }

    /// The wrapped collection's `_filter`: a variadic member cannot forward its arguments.
    package func _filter(_ predicateFormat: String, arguments: [Any?]) throws(Realm.Error) -> Results<Element> {
        switch base {
        case let results as Results<Element>: return try results._filter(predicateFormat, arguments: arguments)
        case let list as List<Element>: return try list._filter(predicateFormat, arguments: arguments)
        default: return try AnyRealmCollection.filtering(base, predicateFormat, arguments)
        }
    }

    /// Any other conforming collection: its objects' Results by the typed query of the same
    /// format (its own `where` of an always-true query, then the format on those Results).
    private static func filtering<C: RealmCollection>(
        _ collection: C, _ predicateFormat: String, _ arguments: [Any?]
    ) throws(Realm.Error) -> Results<Element> where C.Element == Element {
        try collection.where { _ in Query<Bool>(.predicate(.always(true))) }._filter(
            predicateFormat, arguments: arguments)
    }

    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        base.where(isIncluded)
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        base.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        base.sorted(by: Array(sortDescriptors))
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        base.distinct(by: Array(keyPaths))
    }

    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        base.min(ofProperty: property)
    }

    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        base.max(ofProperty: property)
    }

    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        base.sum(ofProperty: property)
    }

    public func average<T: _HasPersistedType>(ofProperty property: String) -> T?
    where T.PersistedType: AddableType {
        base.average(ofProperty: property)
    }

    public func observe(
        keyPaths: [String]? = nil, _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void
    ) -> NotificationToken {
        AnyRealmCollection.observing(base, keyPaths: keyPaths, block)
    }

    private static func observing<C: RealmCollection>(
        _ collection: C, keyPaths: [String]?,
        _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void
    ) -> NotificationToken where C.Element == Element {
        collection.observe(keyPaths: keyPaths) { change in block(change.carrying(AnyRealmCollection(collection))) }
    }

    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void
    ) -> NotificationToken {
        AnyRealmCollection.observing(base, keyPaths: keyPaths, on: queue, block)
    }

    private static func observing<C: RealmCollection>(
        _ collection: C, keyPaths: [String]?, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void
    ) -> NotificationToken where C.Element == Element {
        // The change carries the collection resolved on the queue: that one is wrapped.
        collection.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let resolved): block(.initial(AnyRealmCollection(resolved)))
            case .update(let resolved, let deletions, let insertions, let modifications):
                block(
                    .update(
                        AnyRealmCollection(resolved), deletions: deletions, insertions: insertions,
                        modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }

    public func freeze() -> AnyRealmCollection<Element> { AnyRealmCollection.frozen(base) }

    private static func frozen<C: RealmCollection>(_ collection: C) -> AnyRealmCollection<Element>
    where C.Element == Element {
        AnyRealmCollection(collection.freeze())
    }

    public func thaw() -> AnyRealmCollection<Element>? { AnyRealmCollection.thawed(base) }

    private static func thawed<C: RealmCollection>(_ collection: C) -> AnyRealmCollection<Element>?
    where C.Element == Element {
        collection.thaw().map { AnyRealmCollection($0) }
    }

    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle { try base._threadSafeHandle() }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error)
        -> AnyRealmCollection<Element>?
    {
        if let list = try List<Element>._resolve(handle, in: realm) { return AnyRealmCollection(list) }
        if let linking = try LinkingObjects<Element>._resolve(handle, in: realm) {
            return AnyRealmCollection(linking)
        }
        return try Results<Element>._resolve(handle, in: realm).map { AnyRealmCollection($0) }
    }
}
