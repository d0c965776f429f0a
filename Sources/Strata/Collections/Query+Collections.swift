// swift-format-ignore-file: AmbiguousTrailingClosureOverload
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

    /// The number of elements (a Map's entries): `$0.dogs.count > 2`; of a filtered
    /// collection, of the objects that meet its filter.
    public var count: Query<Int> { operation(nil) }

    // The two `where` forms (objects, a Map's optional objects) never both apply: a collection's
    // element is one or the other, as for RealmSwift's.
    /// The collection's objects that meet `isIncluded`, whose `count` then compares:
    /// `$0.dogs.where { $0.age > 3 }.count > 0` is the format's `SUBQUERY(dogs, $d, $d.age >
    /// 3).@count > 0` (Spec V23).
    public func `where`<Element: Object>(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Query<T>
    where T._QueryElement == Element {
        filtered(isIncluded)
    }

    /// A Map's objects that meet `isIncluded` (a null value reaches no object).
    public func `where`<Element: Object>(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Query<T>
    where T._QueryElement == Element? {
        filtered(isIncluded)
    }

    private func filtered<Element: Object>(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Query<T> {
        let inner = isIncluded(Query<Element>(.root(ClassInfo.of(Element.self)))).predicate
        switch node {
        case .property(let links, let collection, let property) where property.isList:
            return Query<T>(
                .filtered(
                    links: links, .elements(column: collection, isMap: property.isMap, skipsLast: false), inner: inner))
        case .backlinks(let links, let origin, let originColumn):
            return Query<T>(.filtered(links: links, .backlinks(origin: origin, column: originColumn), inner: inner))
        default:
            preconditionFailure("only a collection property of the queried object (or of a linked one) is filtered")
        }
    }

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
        if case .filtered(let links, let collection, let inner) = node, function == nil {
            return Query<V>(.filteredCount(links: links, collection, inner: inner))
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
