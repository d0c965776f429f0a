import Foundation
import StrataStorage

/// A predicate over the stored columns of one class.
indirect enum Predicate: Sendable {
    enum Comparison: Sendable { case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual }
    enum StringTest: Sendable { case contains, beginsWith, endsWith, equal, like }

    /// TRUEPREDICATE or FALSEPREDICATE (and an empty IN of a folded string test).
    case always(Bool)
    case compare(column: Int, Comparison, Value)
    /// Two properties of the object compared with each other.
    case columns(Int, Comparison, Int)
    case string(column: Int, StringTest, String, folding: StringOptions)
    case isIn(column: Int, [Value])
    /// The number of elements of a List or set property, or of entries of a Map
    /// (`list.@count`), against a number or a property of the object.
    case count(column: Int, isMap: Bool, Comparison, Comparand)
    /// A condition on the object the to-one link at `link` reaches (`dog.name == 'Rex'`). A
    /// null link reaches nothing, which reads as an object whose every property is null, as
    /// realm-core reads a null link in a key path: `dog.name == nil` and `dog.name != 'Rex'`
    /// match it, `dog.age > 3` does not.
    case follow(link: Int, Predicate)
    /// A condition some object of the List, set or Map of links at `column` meets: `ANY
    /// dogs.age > 3` (a predicate format says ANY or NONE, which is its negation). An empty
    /// collection meets none; a Map's null values reach no object.
    case anyElement(column: Int, isMap: Bool, Predicate, skipsLast: Bool = false)
    /// A condition some object of the class `origin` meets whose property at `column` links
    /// to the object (`ANY owners.name == 'Tim'` through a LinkingObjects property, Spec V26):
    /// once per origin object, however many links it holds.
    case anyBacklink(origin: String, column: Int, Predicate)
    /// The number of links the objects of `origin` hold to the object through `column`
    /// (`owners.@count`: the LinkingObjects' count), against a number or a property.
    case backlinkCount(origin: String, column: Int, Comparison, Comparand)
    /// `@sum`, `@avg`, `@min` or `@max` of the property at `valueColumn` of the objects of
    /// `origin` linking to the object through `column` (`owners.@max.age`), once per link, as
    /// `collectionAggregate` over a List (Spec V26).
    case backlinkAggregate(
        origin: String, column: Int, AggregateFunction, valueColumn: Int, valueType: PropertyType, Comparison,
        Comparand)
    /// `@sum`, `@avg`, `@min` or `@max` over a collection at `column`: of the property at
    /// `valueColumn` of its objects, or (nil) of its own values, against a constant or another
    /// property of the object. Over no value a sum is zero and the others null (Spec V21's
    /// rules, as realm-core's collection operators follow them).
    /// `skipsLast` (in both) is the seeded bug `collectionQuerySkipsLast`: the collection's last
    /// element is never read.
    case collectionAggregate(
        column: Int, isMap: Bool, AggregateFunction, valueColumn: Int?, valueType: PropertyType, Comparison,
        Comparand, skipsLast: Bool = false)
    /// `SUBQUERY(collection, $x, inner).@count` against a number: how many objects of a
    /// List, set or Map of links (once per element) or of a LinkingObjects property (once per
    /// link) meet `inner` (Spec V23).
    case subqueryCount(SubqueryCollection, Predicate, Comparison, Value)
    /// The collection a subquery counts in.
    enum SubqueryCollection: Sendable {
        /// The List, set or Map of links at `column`; `skipsLast` is the seeded bug
        /// `collectionQuerySkipsLast`.
        case elements(column: Int, isMap: Bool, skipsLast: Bool)
        /// The objects of `origin` linking to the object through `column` (Spec V26).
        case backlinks(origin: String, column: Int)
    }
    /// What a collection operator's value is compared with.
    enum Comparand: Sendable {
        case constant(Value)
        /// A property of the object itself.
        case column(Int)
    }
    case and(Predicate, Predicate)
    case or(Predicate, Predicate)
    case not(Predicate)

    /// Whether the object whose row is `row`, read at `view`, meets the predicate (`view`
    /// reads the objects links reach; `object` names the object, which backlinks link to).
    func matches(_ row: RowView, in view: VersionView, object: Link) throws -> Bool {
        switch self {
        case .always(let value):
            return value
        case .compare(let column, let comparison, let constant):
            // An integer against an integer constant, read in place: no value is decoded.
            if case .int(let bound) = constant, let stored = try row.int(at: column) {
                return Predicate.holds(stored, comparison, bound)
            }
            let value = column < row.columnCount ? try row.value(at: column) : .null
            return Predicate.evaluate(value, comparison, constant)
        case .columns(let left, let comparison, let right):
            let a = left < row.columnCount ? try row.value(at: left) : .null
            let b = right < row.columnCount ? try row.value(at: right) : .null
            return Predicate.evaluate(a, comparison, b)
        case .string(let column, let test, let needle, let folding):
            guard column < row.columnCount, case .string(let stored) = try row.value(at: column) else { return false }
            // The needle was folded when the predicate was made (`stringTest`).
            let text = StringMatching.folded(stored, folding)
            let pattern = needle
            switch test {
            case .contains: return pattern.isEmpty || text.contains(pattern)
            case .beginsWith: return text.hasPrefix(pattern)
            case .endsWith: return text.hasSuffix(pattern)
            case .like: return StringMatching.like(text, pattern)
            case .equal:
                // Spec W26: bytes, as realm-core compares strings (and as the index finds them);
                // Swift's == would also match a canonically equivalent spelling.
                return folding.isEmpty ? text.utf8.elementsEqual(pattern.utf8) : text == pattern
            }
        case .count(let column, let isMap, let comparison, let comparand):
            // A collection never written holds nothing.
            var count = 0
            if column < row.columnCount, case .list(let elements) = try row.value(at: column) {
                count = isMap ? elements.count / 2 : elements.count
            }
            return Predicate.evaluate(.int(Int64(count)), comparison, try Self.value(of: comparand, in: row))
        case .isIn(let column, let values):
            let value = column < row.columnCount ? try row.value(at: column) : .null
            return values.contains { StoredOrder.equal(value, $0) }
        case .follow(let link, let inner):
            guard link < row.columnCount, case .link(let target) = try row.value(at: link),
                let table = view.table(id: target.table),
                let found = try view.withRow(
                    table, key: target.key, { try inner.matches($0, in: view, object: target) })
            else { return inner.matchesNull }
            return found
        case .anyElement(let column, let isMap, let inner, let skipsLast):
            for link in try Self.collectionElements(row, column: column, isMap: isMap).dropLast(skipsLast ? 1 : 0) {
                guard case .link(let target) = link, let table = view.table(id: target.table) else { continue }
                if try view.withRow(table, key: target.key, { try inner.matches($0, in: view, object: target) }) == true
                {
                    return true
                }
            }
            return false
        case .anyBacklink(let origin, let column, let inner):
            guard let table = view.table(named: origin) else { return false }
            var found = false
            try view.forEachRow(table) { key, row in
                guard try BacklinkBinding.links(to: object, in: row, column: column) > 0 else { return true }
                found = try inner.matches(row, in: view, object: Link(table: table.id, key: key))
                return !found
            }
            return found
        case .backlinkCount(let origin, let column, let comparison, let comparand):
            var count = 0
            if let table = view.table(named: origin) {
                try view.forEachRow(table) { _, row in
                    count += try BacklinkBinding.links(to: object, in: row, column: column)
                    return true
                }
            }
            return Predicate.evaluate(.int(Int64(count)), comparison, try Self.value(of: comparand, in: row))
        case .backlinkAggregate(
            let origin, let column, let function, let valueColumn, let type, let comparison, let comparand):
            var aggregator = StoredAggregator(function, type: type)
            if let table = view.table(named: origin) {
                try view.forEachRow(table) { _, owner in
                    let links = try BacklinkBinding.links(to: object, in: owner, column: column)
                    guard links > 0 else { return true }
                    let value = owner.columnCount > valueColumn ? try owner.value(at: valueColumn) : .null
                    for _ in 0..<links { aggregator.add(value) }
                    return true
                }
            }
            return Predicate.evaluate(aggregator.storedResult, comparison, try Self.value(of: comparand, in: row))
        case .collectionAggregate(
            let column, let isMap, let function, let valueColumn, let type, let comparison, let constant, let skipsLast):
            var aggregator = StoredAggregator(function, type: type)
            for element in try Self.collectionElements(row, column: column, isMap: isMap).dropLast(skipsLast ? 1 : 0) {
                guard let valueColumn else {
                    aggregator.add(element)
                    continue
                }
                guard case .link(let target) = element, let table = view.table(id: target.table),
                    let value = try view.withRow(
                        table, key: target.key, { $0.columnCount > valueColumn ? try $0.value(at: valueColumn) : .null }
                    )
                else { continue }
                aggregator.add(value)
            }
            return Predicate.evaluate(aggregator.storedResult, comparison, try Self.value(of: constant, in: row))
        case .subqueryCount(let collection, let inner, let comparison, let count):
            var found = 0
            switch collection {
            case .elements(let column, let isMap, let skipsLast):
                for link in try Self.collectionElements(row, column: column, isMap: isMap).dropLast(skipsLast ? 1 : 0) {
                    guard case .link(let target) = link, let table = view.table(id: target.table) else { continue }
                    if try view.withRow(table, key: target.key, { try inner.matches($0, in: view, object: target) })
                        == true
                    {
                        found += 1
                    }
                }
            case .backlinks(let origin, let column):
                if let table = view.table(named: origin) {
                    try view.forEachRow(table) { key, owner in
                        let links = try BacklinkBinding.links(to: object, in: owner, column: column)
                        if links > 0, try inner.matches(owner, in: view, object: Link(table: table.id, key: key)) {
                            found += links
                        }
                        return true
                    }
                }
            }
            return Predicate.evaluate(.int(Int64(found)), comparison, count)
        case .and(let left, let right):
            return try left.matches(row, in: view, object: object) && right.matches(row, in: view, object: object)
        case .or(let left, let right):
            return try left.matches(row, in: view, object: object) || right.matches(row, in: view, object: object)
        case .not(let inner): return try !inner.matches(row, in: view, object: object)
        }
    }

    /// `comparand` as it stands for the object whose row is `row`.
    private static func value(of comparand: Comparand, in row: RowView) throws -> Value {
        switch comparand {
        case .constant(let value): return value
        case .column(let column): return column < row.columnCount ? try row.value(at: column) : .null
        }
    }

    /// The elements of the collection at `column` of `row` (a Map's values, not its keys); none
    /// for a collection never written.
    private static func collectionElements(_ row: RowView, column: Int, isMap: Bool) throws -> [Value] {
        guard column < row.columnCount, case .list(let stored) = try row.value(at: column) else { return [] }
        guard isMap else { return stored }
        return stride(from: 1, to: stored.count, by: 2).map { stored[$0] }
    }

    /// A string test of `column` against `needle`, folded once here as `folding` says (each
    /// row's text is folded as it is read).
    static func stringTest(column: Int, _ test: StringTest, _ needle: String, folding: StringOptions) -> Predicate {
        .string(column: column, test, StringMatching.folded(needle, folding), folding: folding)
    }

    /// Matches what any of `predicates` matches (none: nothing), as a balanced tree: its depth
    /// is the logarithm of the count, so evaluating a long list never recurses deeply.
    static func anyOf(_ predicates: [Predicate]) -> Predicate {
        guard let first = predicates.first else { return .always(false) }
        guard predicates.count > 1 else { return first }
        let middle = predicates.count / 2
        return .or(anyOf(Array(predicates[..<middle])), anyOf(Array(predicates[middle...])))
    }

    /// `predicate` on the object the links at `links` reach, in order, the last innermost.
    static func through(_ links: [Int], _ predicate: Predicate) -> Predicate {
        links.reversed().reduce(predicate) { .follow(link: $1, $0) }
    }

    /// Whether an object whose every property is null (and every List empty) meets the
    /// predicate: what a null link reaches.
    var matchesNull: Bool {
        switch self {
        case .always(let value): return value
        case .compare(_, let comparison, let constant): return Predicate.evaluate(.null, comparison, constant)
        case .columns(_, let comparison, _): return Predicate.evaluate(.null, comparison, .null)
        case .string: return false
        case .isIn(_, let values): return values.contains { StoredOrder.equal(.null, $0) }
        case .count(_, _, let comparison, let comparand):
            if case .constant(let value) = comparand { return Predicate.evaluate(.int(0), comparison, value) }
            return Predicate.evaluate(.int(0), comparison, .null)
        case .follow(_, let inner): return inner.matchesNull
        case .anyElement, .anyBacklink: return false
        case .subqueryCount(_, _, let comparison, let count):
            // A null object's collections are empty.
            return Predicate.evaluate(.int(0), comparison, count)
        case .backlinkCount(_, _, let comparison, let comparand):
            // A null object has no backlinks.
            if case .constant(let value) = comparand { return Predicate.evaluate(.int(0), comparison, value) }
            return Predicate.evaluate(.int(0), comparison, .null)
        case .collectionAggregate(_, _, let function, _, let type, let comparison, let comparand, _),
            .backlinkAggregate(_, _, let function, _, let type, let comparison, let comparand):
            // A null object's properties are null too.
            let other: Value
            if case .constant(let value) = comparand { other = value } else { other = .null }
            return Predicate.evaluate(StoredAggregator(function, type: type).storedResult, comparison, other)
        case .and(let left, let right): return left.matchesNull && right.matchesNull
        case .or(let left, let right): return left.matchesNull || right.matchesNull
        case .not(let inner): return !inner.matchesNull
        }
    }

    /// An equality (or IN) on a column of `indexedColumns` that every object matching the
    /// whole predicate meets, as the column and the values to look up (Spec W26); nil when
    /// there is none. Only constants of the property's own stored kind (or null for an optional)
    /// qualify: the index finds values by kind, where a comparison would also match an integer
    /// to an equal double.
    func indexedEquality(_ indexedColumns: UInt64, schema: ObjectSchema) -> (column: Int, values: [Value])? {
        func usable(_ column: Int, _ constants: [Value]) -> Bool {
            guard column >= 0 && column < 64 && column < schema.properties.count,
                indexedColumns & (1 << UInt64(column)) != 0
            else { return false }
            let property = schema.properties[column]
            return constants.allSatisfy { constant in
                switch (property.type, constant) {
                case (_, .null): return property.isOptional
                case (.int, .int), (.bool, .bool), (.string, .string), (.data, .binary), (.uuid, .binary),
                    (.date, .timestamp):
                    return true
                default: return false
                }
            }
        }
        switch self {
        case .compare(let column, .equal, let constant) where usable(column, [constant]):
            return (column, [constant])
        case .isIn(let column, let constants) where usable(column, constants):
            return (column, constants)
        case .string(let column, .equal, let text, let folding)
        where folding.isEmpty && usable(column, [.string(text)]):
            return (column, [.string(text)])
        case .and(let left, let right):
            return left.indexedEquality(indexedColumns, schema: schema)
                ?? right.indexedEquality(indexedColumns, schema: schema)
        default:
            return nil
        }
    }

    /// `evaluate` for two integers (`StoredOrder` orders them by value).
    @inline(__always)
    private static func holds(_ value: Int64, _ comparison: Comparison, _ constant: Int64) -> Bool {
        switch comparison {
        case .equal: return value == constant
        case .notEqual: return value != constant
        case .less: return value < constant
        case .lessOrEqual: return value <= constant
        case .greater: return value > constant
        case .greaterOrEqual: return value >= constant
        }
    }

    fileprivate static func evaluate(_ value: Value, _ comparison: Comparison, _ constant: Value) -> Bool {
        switch comparison {
        case .equal: return StoredOrder.equal(value, constant)
        case .notEqual: return !StoredOrder.equal(value, constant)
        case .less:
            return (StoredOrder.compare(value, constant) ?? 0) < 0 && StoredOrder.compare(value, constant) != nil
        case .lessOrEqual: return StoredOrder.compare(value, constant).map { $0 <= 0 } ?? false
        case .greater: return StoredOrder.compare(value, constant).map { $0 > 0 } ?? false
        case .greaterOrEqual: return StoredOrder.compare(value, constant).map { $0 >= 0 } ?? false
        }
    }
}

/// Options of string queries.
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Compare letters ignoring case.
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Compare letters ignoring diacritics (`é` matches `e`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

/// How string tests fold and match text.
enum StringMatching {
    /// `text` with the case and diacritics `folding` ignores taken out.
    static func folded(_ text: String, _ folding: StringOptions) -> String {
        if folding.isEmpty { return text }
        var options: String.CompareOptions = []
        if folding.contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if folding.contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return text.folding(options: options, locale: nil)
    }

    /// LIKE: `*` matches any run of characters, `?` any one character, everything else itself.
    static func like(_ text: String, _ pattern: String) -> Bool {
        let text = Array(text)
        let pattern = Array(pattern)
        // The classic greedy matcher with one backtrack point: the last `*` seen.
        var t = 0
        var p = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

/// A query expression, built in a `where` closure:
///
/// ```swift
/// realm.objects(Person.self).where { $0.age > 3 && $0.name.starts(with: "A") }
/// ```
///
/// `$0.property` reads a stored property; comparisons with constants, `&&`, `||`, `!`, string
/// `contains` / `starts(with:)` / `ends(with:)` and `in` build the predicate.
@dynamicMemberLookup
public struct Query<T> {
    enum Node {
        case root(ClassInfo)
        /// A property of the object the to-one links at `links` reach, in order (none: the
        /// queried object's own).
        case property(links: [Int], column: Int, PropertySchema)
        /// A property of the objects of the collection at `collection` (on the object `links`
        /// reach): compared as ANY, some object meeting the comparison (Spec V23).
        case elements(links: [Int], collection: Int, isMap: Bool, column: Int, PropertySchema)
        /// A collection's `count` (`function` nil) or the aggregate of its values.
        case collectionOperation(links: [Int], collection: Int, isMap: Bool, AggregateFunction?, PropertyType)
        /// A LinkingObjects property (of the object `links` reach): the objects of the class
        /// `origin` whose property at `originColumn` links to the object (Spec V26).
        case backlinks(links: [Int], origin: String, originColumn: Int)
        /// A property of the objects of a LinkingObjects property: compared as ANY.
        case backlinkElements(links: [Int], origin: String, originColumn: Int, column: Int, PropertySchema)
        /// A LinkingObjects property's `count`.
        case backlinkCount(links: [Int], origin: String, originColumn: Int)
        /// The number of a collection's objects that meet `inner` (RealmSwift's `($0.dogs.age >
        /// 3).count`): a SUBQUERY's count (Spec V23).
        case filteredCount(links: [Int], Predicate.SubqueryCollection, inner: Predicate)
        case predicate(Predicate)
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    /// The property `keyPath` names, as a query expression.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> where T: Object {
        guard case .root(let info) = node else { preconditionFailure("nested key paths are not supported in queries") }
        return Query<V>(QueryColumns.member(keyPath, info: info, links: []))
    }

    /// A property of the object a to-one link reaches (`$0.dog.name == "Rex"`, Spec V23): a
    /// null link reads as an object whose every property is null.
    public subscript<Target: Object, V>(dynamicMember keyPath: KeyPath<Target, V>) -> Query<V>
    where T == Target? {
        guard case .property(let links, let link, let property) = node, property.type == .object,
            !property.isList
        else { preconditionFailure("only a to-one link can be followed in a query") }
        return Query<V>(QueryColumns.member(keyPath, info: ClassInfo.of(Target.self), links: links + [link]))
    }

    /// The predicate, for a Bool expression (a Bool property alone means "is true").
    var predicate: Predicate {
        switch node {
        case .predicate(let predicate): return predicate
        case .property, .elements, .collectionOperation, .backlinkElements, .backlinkCount, .filteredCount:
            return condition { .compare(column: $0, .equal, .bool(true)) }.predicate
        case .root, .backlinks: preconditionFailure("a query must compare a property")
        }
    }

    /// The predicate `make` states about the property this expression names, on the object
    /// its links reach.
    func condition(_ make: (_ column: Int) -> Predicate) -> Query<Bool> {
        switch node {
        case .property(let links, let column, _):
            return Query<Bool>(.predicate(Predicate.through(links, make(column))))
        case .elements(let links, let collection, let isMap, let column, _):
            return Query<Bool>(
                .predicate(Predicate.through(links, .anyElement(column: collection, isMap: isMap, make(column)))))
        case .collectionOperation(let links, let collection, let isMap, let function, let type):
            // The comparison `make` states of a value, applied to the count or the aggregate.
            guard case .compare(_, let comparison, let constant) = make(collection) else {
                preconditionFailure("a collection's count or aggregate is compared with a value")
            }
            let predicate: Predicate =
                function.map {
                    .collectionAggregate(
                        column: collection, isMap: isMap, $0, valueColumn: nil, valueType: type, comparison,
                        .constant(constant))
                } ?? .count(column: collection, isMap: isMap, comparison, .constant(constant))
            return Query<Bool>(.predicate(Predicate.through(links, predicate)))
        case .backlinkElements(let links, let origin, let originColumn, let column, _):
            return Query<Bool>(
                .predicate(
                    Predicate.through(links, .anyBacklink(origin: origin, column: originColumn, make(column)))))
        case .backlinkCount(let links, let origin, let originColumn):
            guard case .compare(_, let comparison, let constant) = make(originColumn) else {
                preconditionFailure("a LinkingObjects' count is compared with a value")
            }
            return Query<Bool>(
                .predicate(
                    Predicate.through(
                        links, .backlinkCount(origin: origin, column: originColumn, comparison, .constant(constant)))))
        case .filteredCount(let links, let collection, let inner):
            guard case .compare(_, let comparison, let constant) = make(0) else {
                preconditionFailure("a filtered collection's count is compared with a value")
            }
            return Query<Bool>(
                .predicate(Predicate.through(links, .subqueryCount(collection, inner, comparison, constant))))
        case .root, .predicate, .backlinks:
            preconditionFailure("a comparison needs a property on its left")
        }
    }

    fileprivate static func comparing<V: _RealmValue>(
        _ query: Query<V>, _ comparison: Predicate.Comparison,
        _ value: V
    ) -> Query<Bool> {
        let constant = trapping { () throws(Realm.Error) -> Value in try value._strataEncode(realm: nil) }
        return query.condition { .compare(column: $0, comparison, constant) }
    }
}

/// Finds which column a key path reads: applies it to an unmanaged object holding a recorder.
enum QueryColumns {
    /// What `keyPath` names on the object `links` reach (of class `info`), as a query node: a
    /// stored property, or a LinkingObjects property (Spec V26).
    static func member<T: Object, V>(_ keyPath: KeyPath<T, V>, info: ClassInfo, links: [Int]) -> Query<V>.Node {
        let recorder = KeyPathRecorder.recording(keyPath)
        if let linking = recorder.linkingObjects, recorder.steps.isEmpty {
            let origin = ClassInfo.of(linking.origin)
            let originColumn = trapping { () throws(Realm.Error) -> Int in
                try origin.originColumn(
                    linking.property, linkingTo: info.className,
                    from: info.linkingPropertyName(origin: origin.className, property: linking.property))
            }
            return .backlinks(links: links, origin: origin.className, originColumn: originColumn)
        }
        let column = column(of: keyPath, info: info)
        return .property(links: links, column: column, info.schema.properties[column])
    }

    static func column<T: Object, V>(of keyPath: KeyPath<T, V>, info: ClassInfo) -> Int {
        guard let columns = KeyPathRecorder.recording(keyPath).columns(), columns.count == 1,
            let column = columns.first?.column
        else {
            preconditionFailure("the key path does not name a @Persisted property of '\(info.className)'")
        }
        return column
    }

    /// The dotted property names a key path reads, through to-one links: `"dog.name"`.
    static func keyPathName<T: Object>(of keyPath: PartialKeyPath<T>, info: ClassInfo) -> String {
        guard let name = KeyPathRecorder.recording(keyPath).keyPathName() else {
            preconditionFailure("the key path does not name a @Persisted property of '\(info.className)'")
        }
        return name
    }
}

/// Types queries can order (`<`, `>`, ...): numbers, strings, dates and their optionals.
public protocol _QueryComparable: _RealmValue {}
extension Int: _QueryComparable {}
extension Int8: _QueryComparable {}
extension Int16: _QueryComparable {}
extension Int32: _QueryComparable {}
extension Int64: _QueryComparable {}
extension Double: _QueryComparable {}
extension Float: _QueryComparable {}
extension String: _QueryComparable {}
extension Date: _QueryComparable {}
extension Optional: _QueryComparable where Wrapped: _QueryComparable {}

/// Strings and optional strings, for string queries.
public protocol _QueryString: _RealmValue {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped == String {}

extension Query where T: _RealmValue {
    /// Whether the property's value equals `rhs` (`$0.name == "Rex"`); nil matches only nil.
    public static func == (lhs: Query<T>, rhs: T) -> Query<Bool> { comparing(lhs, .equal, rhs) }
    /// Whether the property's value differs from `rhs`.
    public static func != (lhs: Query<T>, rhs: T) -> Query<Bool> { comparing(lhs, .notEqual, rhs) }

    /// Whether the property's value is one of `values`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        let constants = trapping { () throws(Realm.Error) -> [Value] in
            var encoded: [Value] = []
            for value in values { encoded.append(try value._strataEncode(realm: nil)) }
            return encoded
        }
        return condition { .isIn(column: $0, constants) }
    }
}

extension Query where T: _QueryComparable {
    /// Whether the property's value is less than `rhs` (`$0.age < 2`).
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { comparing(lhs, .less, rhs) }
    /// Whether the property's value is less than or equal to `rhs`.
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { comparing(lhs, .lessOrEqual, rhs) }
    /// Whether the property's value is greater than `rhs`.
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { comparing(lhs, .greater, rhs) }
    /// Whether the property's value is greater than or equal to `rhs`.
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { comparing(lhs, .greaterOrEqual, rhs) }
}

extension Query where T: _QueryString {
    /// Whether the string contains `other`.
    public func contains(_ other: String, options: StringOptions = []) -> Query<Bool> {
        condition { .stringTest(column: $0, .contains, other, folding: options) }
    }

    /// Whether the string begins with `other`.
    public func starts(with other: String, options: StringOptions = []) -> Query<Bool> {
        condition { .stringTest(column: $0, .beginsWith, other, folding: options) }
    }

    /// Whether the string ends with `other`.
    public func ends(with other: String, options: StringOptions = []) -> Query<Bool> {
        condition { .stringTest(column: $0, .endsWith, other, folding: options) }
    }

    /// Whether the string matches the wildcard pattern `pattern`: `*` stands for any run of
    /// characters and `?` for any one (the predicate format's LIKE).
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> {
        condition { .stringTest(column: $0, .like, pattern, folding: caseInsensitive ? .caseInsensitive : []) }
    }

    /// Whether the string equals `other` under `options`.
    public func equals(_ other: String, options: StringOptions = []) -> Query<Bool> {
        condition { .stringTest(column: $0, .equal, other, folding: options) }
    }
}

extension Query where T == Bool {
    /// Matches objects that both conditions match.
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query<Bool>(.predicate(.and(lhs.predicate, rhs.predicate)))
    }

    /// Matches objects that either condition matches.
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        Query<Bool>(.predicate(.or(lhs.predicate, rhs.predicate)))
    }

    /// Matches objects that `query` does not match.
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        Query<Bool>(.predicate(.not(query.predicate)))
    }
}
