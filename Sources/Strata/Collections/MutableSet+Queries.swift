import Foundation
import StrataStorage

// A managed MutableSet of objects queries, sorts and aggregates as a List of objects does: the
// Results it gives hold its objects in set order (Spec V24), live (V1). An unmanaged set
// refuses what needs a realm, with RLMSet's words.

extension MutableSet where Element: Object {
    /// The set's objects matching `isIncluded`, in set order.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in
            try requireManaged()
            return storage.where(isIncluded)
        }
    }

    /// The same as `where`.
    public func filter(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> { self.where(isIncluded) }

    /// The set's objects matching the predicate format (Spec V23), in set order.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in
            try requireManaged()
            return try storage._filter(predicateFormat, arguments: args)
        }
    }

    /// The position of `object` in the set's order, if the set holds it.
    public func index(of object: Element) -> Int? { storage.index(of: object) }

    /// The position of the first object matching the predicate format, if one does.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            try requireManaged()
            return try storage._filter(predicateFormat, arguments: args)._first().flatMap { storage.index(of: $0) }
        }
    }

    /// The position of the first object matching `isIncluded`, if one does.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            try requireManaged()
            return storage.index(matching: isIncluded)
        }
    }

    /// The objects at `indexes`, in index order; traps on an index past the end.
    public func objects(at indexes: IndexSet) -> [Element] { storage.objects(at: indexes) }

    /// The set's objects sorted by the property named `keyPath` (Spec V20).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The set's objects sorted by a property a Swift key path names.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(by: [
            SortDescriptor(
                keyPath: QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Element.self)),
                ascending: ascending)
        ])
    }

    /// The set's objects sorted by several properties, the first deciding first.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        trapping { () throws(Realm.Error) -> Results<Element> in
            try requireManaged()
            return try storage._sorted(by: descriptors)
        }
    }

    /// The first object of each combination of values at `keyPaths` (Spec V22).
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        trapping { () throws(Realm.Error) -> Results<Element> in
            try requireManaged()
            return try storage._distinct(by: keyPaths)
        }
    }

    /// The smallest value of `property` among the set's objects (Spec V21).
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        storage.min(ofProperty: property)
    }

    /// The largest value of `property` among the set's objects (Spec V21).
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        storage.max(ofProperty: property)
    }

    /// The sum of `property` over the set's objects (Spec V21).
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        storage.sum(ofProperty: property)
    }

    /// The average of `property` over the set's objects that have a value (Spec V21).
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        storage.average(ofProperty: property)
    }

    /// `min(ofProperty:)` of the property `keyPath` names.
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        storage.min(of: keyPath)
    }

    /// `max(ofProperty:)` of the property `keyPath` names.
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        storage.max(of: keyPath)
    }

    /// `sum(ofProperty:)` of the property `keyPath` names.
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        storage.sum(of: keyPath)
    }

    /// `average(ofProperty:)` of the property `keyPath` names.
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T?
    where T.PersistedType: AddableType {
        storage.average(of: keyPath)
    }

    private func requireManaged() throws(Realm.Error) {
        guard binding != nil else { throw Realm.Error.unmanagedSetOnly }
    }
}

extension MutableSet: RealmCollectionBase where Element: Object {
    var isManagedCollection: Bool { storage.isManagedCollection }
    // The List's checks give a set's words: its binding knows it is a set's.
    func checkDeletable(by core: RealmCore) throws(Realm.Error) { try storage.checkDeletable(by: core) }
    func targetKeys() throws(Realm.Error) -> [(TableInfo, ObjectKey)] { try storage.targetKeys() }
}

extension MutableSet: RealmCollection where Element: Object {}

// MARK: sets of values

extension MutableSet where Element: _HasPersistedType, Element.PersistedType: MinMaxType {
    /// The smallest value in the set; nil when it holds none (nulls are skipped, Spec V21).
    public func min() -> Element? { storage.min() }

    /// The largest value in the set; nil when it holds none.
    public func max() -> Element? { storage.max() }
}

extension MutableSet where Element: _HasPersistedType, Element.PersistedType: AddableType {
    /// The sum of the set's values (nulls skipped); zero for none (Spec V21).
    public func sum() -> Element { storage.sum() }

    /// The average of the set's values, in the type the caller names; nil when it holds none.
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType { storage.average() }
}

extension MutableSet where Element: Equatable {
    /// The position of `value` in the set's order; nil when the set does not hold it.
    public func index(of value: Element) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            try Self.firstPosition(of: value, in: try elements())
        }
    }
}

extension MutableSet {
    /// Whether `object` is a set equal to this one (RealmSwift's `isEqual(_:)`): two unmanaged
    /// sets are equal when each holds every element of the other, in any order; a managed set
    /// is equal only to the set of the same property of the same object in the same realm
    /// instance. A managed set never equals an unmanaged one.
    ///
    /// - Complexity: O(n²) for two unmanaged sets, else O(1).
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? MutableSet<Element> else { return false }
        if other === self { return true }
        switch (binding, other.binding) {
        case (nil, nil):
            return (try? Self.holdEachOther(self, other)) ?? false
        case (let mine?, let theirs?):
            return mine.core === theirs.core && mine.column == theirs.column
                && mine.parent.table.id == theirs.parent.table.id && mine.parent.identity == theirs.parent.identity
        default:
            return false
        }
    }

    private static func holdEachOther(_ a: MutableSet<Element>, _ b: MutableSet<Element>) throws(Realm.Error) -> Bool {
        let left = try a.elements()
        let right = try b.elements()
        guard left.count == right.count else { return false }
        for element in left where try !b._contains(element) { return false }
        return true
    }
}

extension MutableSet: Equatable {
    /// `lhs.isEqual(rhs)`.
    public static func == (lhs: MutableSet<Element>, rhs: MutableSet<Element>) -> Bool { lhs.isEqual(rhs) }
}
