// The typed `where` through collections, as RealmSwift's Query has it (Spec V23): a property of
// a List's, set's or Map's objects compares as ANY (`$0.dogs.age > 5`), and a collection has a
// `count` and, of values, `min`, `max`, `sum` and `avg`; each builds the predicate the format
// spelling builds (`ANY dogs.age > 5`, `dogs.@count`, `ints.@max`).

/// Collections a typed query reads through: `List`, `MutableSet` and `Map` (its values). Not API.
public protocol _QueryCollection {
    /// What the collection holds: a List's or set's elements, a Map's values.
    associatedtype _QueryElement
}

extension List: _QueryCollection {
    public typealias _QueryElement = Element
}

extension MutableSet: _QueryCollection {
    public typealias _QueryElement = Element
}

extension Map: _QueryCollection {
    public typealias _QueryElement = Value
}

extension LinkingObjects: _QueryCollection {
    public typealias _QueryElement = Element
}

extension Query where T: _QueryCollection {
    /// A property of the collection's objects (`$0.dogs.age > 5`): some object meets the
    /// comparison (ANY); an empty collection meets none.
    public subscript<Element: Object, V>(dynamicMember keyPath: KeyPath<Element, V>) -> Query<V>
    where T._QueryElement == Element {
        through(keyPath)
    }

    /// A property of a Map's objects (a null value reaches no object).
    public subscript<Element: Object, V>(dynamicMember keyPath: KeyPath<Element, V>) -> Query<V>
    where T._QueryElement == Element? {
        through(keyPath)
    }

    /// The number of elements (a Map's entries): `$0.dogs.count > 2`.
    public var count: Query<Int> { operation(nil) }

    private func through<Element: Object, V>(_ keyPath: KeyPath<Element, V>) -> Query<V> {
        if case .backlinks(let links, let origin, let originColumn) = node {
            // Spec V26: a property of a LinkingObjects' objects, as ANY.
            let info = ClassInfo.of(Element.self)
            let column = QueryColumns.column(of: keyPath, info: info)
            return Query<V>(
                .backlinkElements(
                    links: links, origin: origin, originColumn: originColumn, column: column,
                    info.schema.properties[column]))
        }
        guard case .property(let links, let collection, let property) = node, property.isList else {
            preconditionFailure("only a collection property of the queried object (or of a linked one) is read through")
        }
        let info = ClassInfo.of(Element.self)
        let column = QueryColumns.column(of: keyPath, info: info)
        return Query<V>(
            .elements(
                links: links, collection: collection, isMap: property.isMap, column: column,
                info.schema.properties[column]))
    }

    func operation<V>(_ function: AggregateFunction?) -> Query<V> {
        if case .backlinks(let links, let origin, let originColumn) = node, function == nil {
            return Query<V>(.backlinkCount(links: links, origin: origin, originColumn: originColumn))
        }
        guard case .property(let links, let collection, let property) = node, property.isList else {
            preconditionFailure("only a collection property of the queried object (or of a linked one) is aggregated")
        }
        return Query<V>(
            .collectionOperation(
                links: links, collection: collection, isMap: property.isMap, function, property.type))
    }
}

extension Query
where T: _QueryCollection, T._QueryElement: _HasPersistedType, T._QueryElement.PersistedType: MinMaxType {
    /// The smallest value (null for none): `$0.scores.min > 3`.
    public var min: Query<T._QueryElement> { operation(.min) }
    /// The largest value (null for none).
    public var max: Query<T._QueryElement> { operation(.max) }
}

extension Query
where T: _QueryCollection, T._QueryElement: _HasPersistedType, T._QueryElement.PersistedType: AddableType {
    /// The sum of the values (zero for none).
    public var sum: Query<T._QueryElement> { operation(.sum) }
    /// The average of the values (null for none).
    public var avg: Query<T._QueryElement> { operation(.average) }
}

extension Query where T == Bool {
    /// The number of a collection's objects that meet this query's comparisons of them, as
    /// RealmSwift's Query counts them: `($0.dogs.age > 3 && $0.dogs.name == "Rex").count > 0`
    /// is `SUBQUERY(dogs, $d, $d.age > 3 AND $d.name == 'Rex').@count > 0` (Spec V23).
    /// - Precondition: every comparison reads the objects of one collection (RealmSwift's rule).
    public var count: Query<Int> {
        guard case .predicate(let predicate) = node, let (links, collection, inner) = Self.subquery(predicate) else {
            preconditionFailure("a subquery's count needs comparisons of the objects of one collection")
        }
        return Query<Int>(.filteredCount(links: links, collection, inner: inner))
    }

    /// `predicate` as a condition on the objects of one collection: the links to it, the
    /// collection, and the condition on each object; nil when it reads anything else.
    private static func subquery(_ predicate: Predicate) -> ([Int], Predicate.SubqueryCollection, Predicate)? {
        switch predicate {
        case .follow(let link, let inner):
            return subquery(inner).map { ([link] + $0.0, $0.1, $0.2) }
        case .anyElement(let column, let isMap, let inner, _):
            return ([], .elements(column: column, isMap: isMap, skipsLast: false), inner)
        case .anyBacklink(let origin, let column, let inner):
            return ([], .backlinks(origin: origin, column: column), inner)
        case .and(let left, let right), .or(let left, let right):
            guard let l = subquery(left), let r = subquery(right), l.0 == r.0, same(l.1, r.1) else { return nil }
            if case .and = predicate { return (l.0, l.1, .and(l.2, r.2)) }
            return (l.0, l.1, .or(l.2, r.2))
        case .not(let inner):
            return subquery(inner).map { ($0.0, $0.1, .not($0.2)) }
        default:
            return nil
        }
    }

    private static func same(_ a: Predicate.SubqueryCollection, _ b: Predicate.SubqueryCollection) -> Bool {
        switch (a, b) {
        case (.elements(let x, _, _), .elements(let y, _, _)): return x == y
        case (.backlinks(let o1, let c1), .backlinks(let o2, let c2)): return o1 == o2 && c1 == c2
        default: return false
        }
    }
}
