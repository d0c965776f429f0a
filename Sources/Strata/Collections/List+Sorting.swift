import Foundation

// Sorting a List of objects gives Results of its objects in the sorted order, as RealmSwift's
// `List.sorted` does (Spec V20's key paths, V22's merge of sorts).

extension List where Element: Object {
    /// The List's objects sorted by the property named `keyPath` (through to-one links).
    ///
    /// Confinement: the realm's context (Spec C6).
    /// - Precondition: a managed List (RealmSwift raises for an unmanaged one).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The List's objects sorted by a property a Swift key path names.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(by: [
            SortDescriptor(
                keyPath: QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Element.self)),
                ascending: ascending)
        ])
    }

    /// The List's objects sorted by several properties, the first deciding first; ties keep
    /// list order.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        trapping { () throws(Realm.Error) -> Results<Element> in try _sorted(by: descriptors) }
    }

    package func _sorted<S: Sequence>(by descriptors: S) throws(Realm.Error) -> Results<Element>
    where S.Element == SortDescriptor {
        try objectsInOrder()._sorted(by: descriptors)
    }

    /// The Results of the List's objects in list order, the base of its sorts and distincts;
    /// refused for an unmanaged List or one whose owner is gone.
    func objectsInOrder() throws(Realm.Error) -> Results<Element> {
        guard let binding else { throw Realm.Error.unmanagedListOnly }
        _ = try binding.values()
        let info = try binding.core.classInfo(Element.self)
        return Results<Element>(core: binding.core, info: info, source: .list(binding))
    }
}
