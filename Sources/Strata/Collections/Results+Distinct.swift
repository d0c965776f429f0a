import StrataStorage

// distinct(by:) on Results and on a List of objects (Spec V22;
// `RealmCollectionTypeTests.testDistinctResultsUsingKeyPaths`, `...UsingSwiftKeyPaths`).

extension Results {
    /// The Results keeping, of the objects that have the same values at every one of `keyPaths`,
    /// only the first in their current order (the sorts and distincts asked for before this
    /// one); an object whose link on a key path's way is null is left out. Live like any
    /// Results: the distinct is made again at each version.
    ///
    /// Confinement: the realm's context (Spec C6).
    /// - Precondition: each key path names a property (through to-one links) that is not a
    ///   List and has no collection operator; Realm's messages otherwise.
    /// - Complexity: O(1) to make; evaluating it reads every key path's value of each object.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        trapping { () throws(Realm.Error) -> Results<Element> in try _distinct(by: keyPaths) }
    }

    /// `distinct(by:)` of the properties Swift key paths name.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { QueryColumns.keyPathName(of: $0, info: storage.info) })
    }

    /// `distinct(by:)`, throwing. Realm's order of checks: a collection operator in any key
    /// path (RLMResults), then each key path as a sort checks it (realm-core's `parse_keypath`,
    /// whose messages say "sort" for a distinct too), then the context.
    package func _distinct<S: Sequence>(by keyPaths: S) throws(Realm.Error) -> Results<Element>
    where S.Element == String {
        let names = Array(keyPaths)
        if let operatorPath = names.first(where: { $0.contains("@") }) {
            throw Realm.Error.cannotDistinct(keyPath: operatorPath)
        }
        var paths: [SortPath] = []
        for name in names {
            paths.append(SortPath(columns: try Self.sortColumns(name, info: storage.info), ascending: true))
        }
        try storage.core.checkAccess()
        guard !paths.isEmpty else { return self }  // realm-core drops a distinct of no key path
        return Results(
            storage: Storage(
                core: storage.core, info: storage.info, source: storage.source, predicate: storage.predicate,
                ordering: storage.ordering + [.distinct(paths)], epoch: storage.epoch))
    }
}

extension List where Element: Object {
    /// `distinct(by:)` of the Results of the List's objects, in list order.
    ///
    /// Confinement: the realm's context (Spec C6).
    /// - Precondition: a managed List (RealmSwift raises for an unmanaged one).
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        trapping { () throws(Realm.Error) -> Results<Element> in try _distinct(by: keyPaths) }
    }

    /// `distinct(by:)` of the properties Swift key paths name.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { QueryColumns.keyPathName(of: $0, info: ClassInfo.of(Element.self)) })
    }

    package func _distinct<S: Sequence>(by keyPaths: S) throws(Realm.Error) -> Results<Element>
    where S.Element == String {
        try objectsInOrder()._distinct(by: keyPaths)
    }
}
