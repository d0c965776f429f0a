import Foundation

/// The objects of `Element`'s class that link to an object through one of their properties:
/// its backlinks, as RealmSwift's `LinkingObjects` (Spec V26).
///
/// ```swift
/// final class Person: Object {
///     @Persisted var name = ""
///     @Persisted var dogs: List<Dog>
/// }
/// final class Dog: Object {
///     @Persisted var name = ""
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// ```
///
/// Live and lazy like `Results` (Spec V1): read at the realm's current version, so a link set,
/// a List appended to or an origin deleted shows on the next read. One element per link (an
/// origin whose List holds the object twice is there twice), in the origin objects' key order.
/// An unmanaged object's LinkingObjects are empty; a deleted object's read as empty.
///
/// Confinement: as `Results` (Spec C6, C10); frozen with the object that owns them.
public struct LinkingObjects<Element: Object>: RealmCollection, Equatable {
    /// The name of the origin class's property whose links these are.
    public let propertyName: String
    /// The live backlinks of a managed object; nil on an unmanaged one.
    let results: Results<Element>?

    /// The backlinks of an object through `Element`'s property named `propertyName` (a link to
    /// the object's class, or a List, set or Map of them): the value of a property declared
    /// `@Persisted(originProperty: propertyName)`.
    public init(fromType _: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        results = nil
    }

    /// The live Results the LinkingObjects read (nil when unmanaged), for the harness, which
    /// keeps them as it keeps every Results.
    package var _results: Results<Element>? { results }

    init(propertyName: String, results: Results<Element>) {
        self.propertyName = propertyName
        self.results = results
    }

    /// Whether the two are the same managed LinkingObjects read once (as RealmSwift's
    /// identity of the underlying Results: two reads of a property are two collections).
    public static func == (lhs: LinkingObjects<Element>, rhs: LinkingObjects<Element>) -> Bool {
        switch (lhs.results, rhs.results) {
        case (let left?, let right?): return left.storage === right.storage
        case (nil, nil): return lhs.propertyName == rhs.propertyName
        default: return false
        }
    }

    /// The managed Results, or Realm's rejection of `operation` on an unmanaged object's
    /// backlinks (which have no realm to query, sort or observe).
    private func managed(_ operation: String) throws(Realm.Error) -> Results<Element> {
        guard let results else { throw Realm.Error.unmanagedLinkingObjects(operation) }
        return results
    }

    // MARK: collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var count: Int { results?.count ?? 0 }
    /// The first owner in key order; nil when none links to the object (or it is unmanaged).
    public var first: Element? { results?.first }
    public var isEmpty: Bool { results?.isEmpty ?? true }

    public subscript(position: Int) -> Element {
        trapping { () throws(Realm.Error) -> Element in try _element(at: position) }
    }

    package func _element(at index: Int) throws(Realm.Error) -> Element {
        guard let results else { throw Realm.Error.outOfBounds(index: index, count: 0) }
        return try results._element(at: index)
    }

    /// Iterates over the objects linking when iteration began (Spec V15).
    public func makeIterator() -> IndexingIterator<[Element]> {
        guard let results else { return [].makeIterator() }
        return Array(results).makeIterator()
    }

    // MARK: state

    public var realm: Realm? { results?.realm }
    public var isInvalidated: Bool { results?.isInvalidated ?? false }
    public var isFrozen: Bool { results?.isFrozen ?? false }

    /// Realm's description: `LinkingObjects<Person> <0x…> (` then each object, one a line.
    public var description: String {
        guard let results else {
            return ObjectDescription.describeCollection(
                "LinkingObjects", elementType: ObjectSchema.className(of: Element.self),
                identity: Self.unmanagedIdentity,
                elements: [], type: .object)
        }
        return results.describe(as: "LinkingObjects")
    }

    /// What an unmanaged object's LinkingObjects print as their address.
    private static var unmanagedIdentity: AnyObject { Element.self as AnyObject }

    // MARK: queries

    public func index(of object: Element) -> Int? { results?.index(of: object) }

    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            guard let results else { return nil }
            guard let match = try results._filter(predicateFormat, arguments: args)._first() else { return nil }
            return try results._index(of: match)
        }
    }

    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        results?.index(matching: isIncluded)
    }

    public func objects(at indexes: IndexSet) -> [Element] {
        guard let results else {
            return trapping { () throws(Realm.Error) -> [Element] in
                guard let index = indexes.first else { return [] }
                throw Realm.Error.outOfBounds(index: index, count: 0)
            }
        }
        return results.objects(at: indexes)
    }

    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in
            try _filter(predicateFormat, arguments: args)
        }
    }

    package func _filter(_ predicateFormat: String, arguments: [Any?]) throws(Realm.Error) -> Results<Element> {
        try managed("filter")._filter(predicateFormat, arguments: arguments)
    }

    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in try managed("where").where(isIncluded) }
    }

    /// The same as `where`.
    public func filter(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> { self.where(isIncluded) }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        trapping { () throws(Realm.Error) -> Results<Element> in try managed("sorted")._sorted(by: sortDescriptors) }
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        trapping { () throws(Realm.Error) -> Results<Element> in try managed("distinct")._distinct(by: keyPaths) }
    }

    // MARK: aggregates (Spec V21: an unmanaged object's empty backlinks have no least,
    // greatest or average value, and sum to zero)

    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        results?.min(ofProperty: property)
    }

    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        results?.max(ofProperty: property)
    }

    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        guard let results else {
            return trapping { () throws(Realm.Error) -> T in try aggregateAnswer(.int(0), .sum) }
        }
        return results.sum(ofProperty: property)
    }

    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        results?.average(ofProperty: property)
    }

    package func _aggregate<T: _HasPersistedType>(_ function: AggregateFunction, _ property: String)
        throws(Realm.Error) -> T?
    {
        try results?._aggregate(function, property)
    }

    // MARK: observation (Spec N)

    public func observe(
        keyPaths: [String]? = nil, _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        guard let results else { throw Realm.Error.unmanagedNotifications }
        let linking = self
        return try results._observe(keyPaths: keyPaths) { change in block(change.carrying(linking)) }
    }

    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<LinkingObjects<Element>>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, on: queue, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<LinkingObjects<Element>>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        guard let results else { throw Realm.Error.unmanagedNotifications }
        return try Strata.observe(
            self, on: queue, core: results.storage.core,
            onError: { block(.error($0)) },
            register: { linking throws(Realm.Error) in try linking._observe(keyPaths: keyPaths, block) })
    }

    /// Spec N18, C15: like `observe(keyPaths:_:)`, with every callback in `actor`'s isolation.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<LinkingObjects<Element>>) -> Void
    ) async -> NotificationToken {
        await trapping { () async throws(Realm.Error) -> NotificationToken in
            guard let results else { throw Realm.Error.unmanagedNotifications }
            return try await Strata.observe(
                self, on: actor, core: results.storage.core, isolation: _isolation,
                onError: { actor, error in block(actor, .error(error)) },
                register: { linking, actor throws(Realm.Error) in
                    try linking._observe(keyPaths: keyPaths) { change in actor.deliverIsolated(change, to: block) }
                })
        }
    }

    // MARK: freeze and thaw (Spec F)

    public func freeze() -> LinkingObjects<Element> {
        trapping { () throws(Realm.Error) -> LinkingObjects<Element> in try _freeze() }
    }

    package func _freeze() throws(Realm.Error) -> LinkingObjects<Element> {
        guard let results else { throw Realm.Error.unmanagedFreeze }
        return LinkingObjects(propertyName: propertyName, results: try results._freeze())
    }

    public func thaw() -> LinkingObjects<Element>? {
        trapping { () throws(Realm.Error) -> LinkingObjects<Element>? in try _thaw() }
    }

    package func _thaw() throws(Realm.Error) -> LinkingObjects<Element>? {
        guard let results else { throw Realm.Error.unmanagedThaw }
        return try results._thaw().map { LinkingObjects(propertyName: propertyName, results: $0) }
    }

    // MARK: references (Spec T)

    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        guard let results else { throw Realm.Error.referenceToUnmanaged }  // Spec T1
        return try results._threadSafeHandle()
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error)
        -> LinkingObjects<Element>?
    {
        guard let results = try Results<Element>._resolve(handle, in: realm),
            case .backlinks(let binding) = results.storage.source
        else { return nil }
        return LinkingObjects(propertyName: binding.propertyName, results: results)
    }
}

extension LinkingObjects: AnyListConvertible {
    func anyElements() throws(Realm.Error) -> [Any?] { try results?.anyElements() ?? [] }
}
