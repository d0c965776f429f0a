import Foundation

/// What every collection of objects offers, as RealmSwift's `RealmCollection` does: `Results`,
/// `List`, `MutableSet` of objects, `LinkingObjects` and `AnyRealmCollection` conform, so code (and tests) can be written once
/// for all of them. Each member makes the checks of its collection (Spec C6, V13) and reads at
/// the realm's current view (V1).
///
/// Strata's form is for collections of objects only: Results of values (a List of values
/// filtered or sorted) do not exist yet, and `NSPredicate` objects, key-value coding,
/// `sectioned` and the actor form of `observe` are not part of it (`Docs/limits.md`).
public protocol RealmCollection<Element>: RandomAccessCollection, CustomStringConvertible, ThreadConfined,
    SendableMetatype
where Element: Object, Index == Int {
    /// The realm of the collection; nil when unmanaged.
    var realm: Realm? { get }
    /// Whether the collection can no longer be read (its realm invalidated, its owner deleted).
    var isInvalidated: Bool { get }
    /// The number of objects.
    var count: Int { get }
    /// Whether the collection is frozen.
    var isFrozen: Bool { get }

    /// The position of `object`, if the collection holds it.
    func index(of object: Element) -> Int?
    /// The position of the first object matching the predicate format (Spec V23).
    func index(matching predicateFormat: String, _ args: Any...) -> Int?
    /// The position of the first object matching `isIncluded`.
    func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int?
    /// The objects at `indexes`, in index order.
    func objects(at indexes: IndexSet) -> [Element]

    /// The objects matching the predicate format (Spec V23).
    func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element>
    /// The objects matching `isIncluded`.
    func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element>
    /// The objects sorted by the property named `keyPath`.
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element>
    /// The objects sorted by `sortDescriptors`, the first deciding first.
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor
    /// The first object of each combination of values at `keyPaths` (Spec V22).
    func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String

    /// The least value of a property (Spec V21).
    func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType
    /// The greatest value of a property (Spec V21).
    func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType
    /// The sum of a property's values (Spec V21).
    func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType
    /// The average of a property's values (Spec V21).
    func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType

    /// Calls `block` with the collection's changes on its realm's context (Spec N).
    func observe(keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<Self>) -> Void)
        -> NotificationToken
    /// Calls `block` on `queue` with the collection's changes, the collection resolved in the
    /// queue's realm (Spec N18).
    func observe(
        keyPaths: [String]?, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<Self>) -> Void
    ) -> NotificationToken

    /// The collection frozen at its realm's current version (Spec F).
    func freeze() -> Self
    /// The live collection of a frozen one, in this context's realm (Spec F); nil if it is gone.
    func thaw() -> Self?
}

extension Results: RealmCollection {}
extension List: RealmCollection where Element: Object {}

extension RealmCollection {
    // The key-path forms of the aggregates (Results and MutableSet have their own, reading
    // the class they hold from their storage).

    /// `min(ofProperty:)` of the property `keyPath` names.
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        min(ofProperty: QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Element.self)))
    }

    /// `max(ofProperty:)` of the property `keyPath` names.
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        max(ofProperty: QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Element.self)))
    }

    /// `sum(ofProperty:)` of the property `keyPath` names.
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        sum(ofProperty: QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Element.self)))
    }

    /// `average(ofProperty:)` of the property `keyPath` names.
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T?
    where T.PersistedType: AddableType {
        average(ofProperty: QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Element.self)))
    }

    /// Sorted ascending by the property named `keyPath`.
    public func sorted(byKeyPath keyPath: String) -> Results<Element> { sorted(byKeyPath: keyPath, ascending: true) }

    /// Observes every change of the collection (`observe(keyPaths: nil, block)`).
    public func observe(_ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: nil, block)
    }
}
