import Foundation

// Queries spelled in the predicate format (Spec V23), on Results and on Lists of objects: the
// format compiles to the predicate the typed `where` would build, so the two are one query.

extension Results {
    /// The objects that also match the predicate `predicateFormat` with `args` bound to its
    /// `%@` (values), `%K` (property names), `%d` and `%f`, as NSPredicate reads it:
    ///
    /// ```swift
    /// realm.objects(Dog.self).filter("age > %@ AND name BEGINSWITH[c] 'r'", 2)
    /// ```
    ///
    /// Comparisons (`==` `!=` `<` `<=` `>` `>=`, BETWEEN, IN) of a property with a constant or
    /// with another property, BEGINSWITH / ENDSWITH / CONTAINS / LIKE with `[c]` and `[d]`,
    /// `list.@count`, key paths through to-one links, AND / OR / NOT and TRUEPREDICATE /
    /// FALSEPREDICATE. A format that does not parse traps with the offset where reading
    /// stopped; `Docs/limits.md` lists what Realm reads and Strata does not yet (key paths
    /// through Lists, the other collection operators, ANY, SUBQUERY).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in try _filter(predicateFormat, arguments: args) }
    }

    package func _filter(_ predicateFormat: String, arguments: [Any?]) throws(Realm.Error) -> Results<Element> {
        try storage.core.checkAccess()
        let added = try Predicate.compiling(
            predicateFormat, arguments: arguments, info: storage.info,
            mirrorsWrongly: storage.core.file.bugs.contains(.predicateMirrorsWrongly),
            skipsLast: storage.core.file.bugs.contains(.collectionQuerySkipsLast))
        let predicate = storage.predicate.map { Predicate.and($0, added) } ?? added
        return Results(
            storage: Storage(
                core: storage.core, info: storage.info, source: storage.source,
                predicate: predicate, ordering: storage.ordering, epoch: storage.epoch))
    }

    /// The index of the first object matching the predicate format, if one does.
    /// - Complexity: O(n).
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            guard let match = try _filter(predicateFormat, arguments: args)._first() else { return nil }
            return try _index(of: match)
        }
    }

    /// The index of the first object matching `isIncluded`, if one does.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            guard let match = try self.where(isIncluded)._first() else { return nil }
            return try _index(of: match)
        }
    }

    /// The objects at `indexes`, in index order; traps on an index past the end.
    public func objects(at indexes: IndexSet) -> [Element] {
        trapping { () throws(Realm.Error) -> [Element] in
            let count = try _count()
            var objects: [Element] = []
            for index in indexes {
                guard index < count else { throw Realm.Error.outOfBounds(index: index, count: count) }
                objects.append(try _element(at: index))
            }
            return objects
        }
    }
}

extension List where Element: Object {
    /// The List's objects matching the predicate format, in list order (see
    /// `Results.filter(_:_:)` for the format).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in try _filter(predicateFormat, arguments: args) }
    }

    package func _filter(_ predicateFormat: String, arguments: [Any?]) throws(Realm.Error) -> Results<Element> {
        guard let binding else { throw Realm.Error.unmanagedListOnly }
        _ = try binding.values()
        let info = try binding.core.classInfo(Element.self)
        let predicate = try Predicate.compiling(
            predicateFormat, arguments: arguments, info: info,
            mirrorsWrongly: binding.core.file.bugs.contains(.predicateMirrorsWrongly),
            skipsLast: binding.core.file.bugs.contains(.collectionQuerySkipsLast))
        return Results(core: binding.core, info: info, source: .list(binding), predicate: predicate)
    }

    /// The index of the first object of the List matching the predicate format, if one does.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            try _filter(predicateFormat, arguments: args)._first().flatMap { index(of: $0) }
        }
    }

    /// The index of the first object of the List matching `isIncluded`, if one does.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in self.where(isIncluded).first.flatMap { index(of: $0) } }
    }

    /// The objects at `indexes`, in index order; traps on an index past the end.
    public func objects(at indexes: IndexSet) -> [Element] {
        let count = self.count
        return indexes.map { index in
            if index >= count {
                trapping { () throws(Realm.Error) in throw Realm.Error.outOfBounds(index: index, count: count) }
            }
            return self[index]
        }
    }
}
