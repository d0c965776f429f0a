// What a Results handle is: a source (a table, or the links of one object's List or Map), a
// filter and a sort. Results are evaluated against a snapshot whenever they are read, so a
// live Results follows its realm's read version (Spec V1, F8).

/// Where Results draw their elements from.
public enum QuerySource: Hashable, Sendable {
    /// Every object of a type.
    case table(String)
    /// The elements of an object's List, in list order.
    case list(owner: ObjectID)
    /// The values of an object's Map, ordered by key (Spec N14).
    case mapValues(owner: ObjectID)
    /// LinkingObjects: the objects of `ownerType` whose List links to `target`, once per link
    /// (Spec V26), in primary-key order, the engine's key order (Spec N16).
    case linkingObjects(target: ObjectID, ownerType: String)
}

/// The sort of Results.
public enum SortKey: Hashable, Sendable {
    /// The source's own order: primary key for a table, list order, map key order.
    case sourceOrder
    /// Ascending `value` (nil first), ties broken by primary key.
    case value
    /// Spec V20: by the `value` of the object the to-one `link` reaches (`"link.value"`), then
    /// by primary key: a null value sorts as the lowest value, and an object whose link is null
    /// after every other object ascending, before every other descending; the primary key
    /// breaks ties ascending either way. Only types with a `link` column can be sorted so.
    case linkValue(ascending: Bool)

    /// The key path the sort follows through a link, if it does.
    public var linkKeyPath: String? {
        if case .linkValue = self { return "link.value" }
        return nil
    }
}

/// What a distinct keeps one object for (Spec V22).
public enum DistinctKey: Hashable, Sendable {
    /// Each `value`, null included.
    case value
    /// Each `value` of the object the to-one `link` reaches; an object whose link is null is
    /// left out. Only for types with a `link` column.
    case linkValue
}

/// Generation 13 (Spec V23): `ANY <collection>.value >= minimum`: some Item of the object's
/// List (or, for a Linker, its set or the values of its Map) has a value of at least `minimum`
/// (an Item whose value is null has none). Only in predicate formats: the typed `where` has no
/// collection operators.
public struct CollectionMinimum: Hashable, Sendable {
    /// `.list`, `.set` or `.map`.
    public var collection: PropertyName
    public var minimum: Int
    /// Generation 14 (Spec V26): through the LinkingObjects of this owner type's `list`
    /// (`ANY listedByItems.value >= m`): an owner of the type whose List holds the object has a
    /// value of at least `minimum`. Then `collection` is `.list`.
    public var backlinksOf: String?

    public init(collection: PropertyName, minimum: Int, backlinksOf: String? = nil) {
        self.collection = collection
        self.minimum = minimum
        self.backlinksOf = backlinksOf
    }

    /// The name of the collection property a format spells (Spec V23, V26).
    public var propertyName: String {
        guard let backlinksOf else { return collection.rawValue }
        return backlinksOf == "Item" ? "listedByItems" : "listedByOthers"
    }

    /// Whether `object` (`stored`) meets it in `snapshot`.
    func holds(for object: ObjectID, _ stored: StoredObject, in snapshot: Snapshot) -> Bool {
        if let backlinksOf {
            return snapshot.objectIDs(ofType: backlinksOf).contains { owner in
                guard let held = snapshot.objects[owner], held.list.contains(object) else { return false }
                return held.value.map { $0 >= minimum } ?? false
            }
        }
        let items: [ObjectID]
        switch collection {
        case .list: items = stored.list
        case .set: items = stored.set
        case .map: items = stored.map.values.compactMap { $0 }
        case .value, .link: items = []  // no collection: nothing to meet it
        }
        return items.contains { (snapshot.objects[$0]?.value).map { $0 >= minimum } ?? false }
    }
}

/// A Results definition: `source`, filtered by `value >= minimumValue`, by
/// `value == equalValue`, by `link.value >= linkMinimumValue` and by `collectionMinimum` when
/// set, then sorted, then made distinct.
public struct Query: Hashable, Sendable {
    public var source: QuerySource
    public var minimumValue: Int?
    /// Generation 8: an equality on `value`, which the engine's "Item" and "Linker" index and
    /// "Other" does not (Spec W26: an index never changes what a query returns or its order).
    public var equalValue: Int?
    public var sort: SortKey
    /// Generation 9: `distinct(by:)` after the sort (Spec V22).
    public var distinct: DistinctKey?
    /// Generation 10 (Spec V23): which of the equivalent predicate formats the engine side
    /// spells the filter in (`filter("3 <= value")`, ...); nil for the typed `where`. The
    /// model reads none of it: a format and the typed query are one query.
    public var formatSpelling: UInt8?
    /// Generation 10 (Spec V23): `link.value >= m`, through a Linker's to-one link (a null
    /// link, or a null value, fails it), typed or in a predicate format.
    public var linkMinimumValue: Int?
    /// Generation 13 (Spec V23): `ANY list.value >= m` and its kin, always spelled as a format.
    public var collectionMinimum: CollectionMinimum?

    public init(
        source: QuerySource, minimumValue: Int? = nil, equalValue: Int? = nil, sort: SortKey = .sourceOrder,
        distinct: DistinctKey? = nil, formatSpelling: UInt8? = nil, linkMinimumValue: Int? = nil,
        collectionMinimum: CollectionMinimum? = nil
    ) {
        self.collectionMinimum = collectionMinimum
        self.source = source
        self.minimumValue = minimumValue
        self.equalValue = equalValue
        self.sort = sort
        self.distinct = distinct
        self.formatSpelling = formatSpelling
        self.linkMinimumValue = linkMinimumValue
    }

    public static func all(_ type: String) -> Query { Query(source: .table(type)) }

    /// The elements of these Results in `snapshot`. A List or Map source whose owner is
    /// missing gives valid, empty Results (Spec T5).
    public func evaluate(in snapshot: Snapshot) -> [ObjectID] {
        var elements: [ObjectID]
        switch source {
        case .table(let type):
            elements = snapshot.objectIDs(ofType: type)
        case .list(let owner):
            elements = snapshot.objects[owner]?.list ?? []
        case .mapValues(let owner):
            // Spec N14, V25: Results over a Map are ordered by key.
            let map = snapshot.objects[owner]?.map ?? [:]
            elements = map.keys.sorted().compactMap { map[$0] ?? nil }
        case .linkingObjects(let target, let ownerType):
            // Spec V26: one element per link, in the owners' primary-key (the engine's key)
            // order; a target that is gone has none.
            elements = []
            if snapshot.objects[target] != nil {
                for owner in snapshot.objectIDs(ofType: ownerType) {
                    let links = snapshot.objects[owner]?.list.count { $0 == target } ?? 0
                    elements.append(contentsOf: repeatElement(owner, count: links))
                }
            }
        }
        if let minimumValue {
            elements = elements.filter { (snapshot.objects[$0]?.value ?? Int.min) >= minimumValue }
        }
        if let equalValue {
            // Spec W26: the same elements, in the source's order, with or without an index.
            elements = elements.filter { snapshot.objects[$0]?.value == equalValue }
        }
        if let linkMinimumValue {
            // Spec V23: the value of the object the link reaches; a null link reads as null.
            elements = elements.filter { object in
                guard let link = snapshot.objects[object]?.link, let value = snapshot.objects[link]?.value else {
                    return false
                }
                return value >= linkMinimumValue
            }
        }
        if let collectionMinimum {
            elements = elements.filter { object in
                snapshot.objects[object].map { collectionMinimum.holds(for: object, $0, in: snapshot) } ?? false
            }
        }
        switch sort {
        case .sourceOrder:
            break
        case .value:
            elements = elements.enumerated().sorted { a, b in
                let va = snapshot.objects[a.element]?.value ?? Int.min
                let vb = snapshot.objects[b.element]?.value ?? Int.min
                return va != vb ? va < vb : a.offset < b.offset
            }.map(\.element)
        case .linkValue(let ascending):
            // Spec V20: nil for a null link, which sorts after every value (a null value
            // included) ascending and before every value descending; ties by primary key.
            func reached(_ object: ObjectID) -> Int?? {
                guard let link = snapshot.objects[object]?.link else { return .none }
                return .some(snapshot.objects[link]?.value)
            }
            func key(_ object: ObjectID) -> Int { snapshot.objects[object]?.primaryKey ?? Int.min }
            elements = elements.sorted { a, b in
                let ra = reached(a)
                let rb = reached(b)
                switch (ra, rb) {
                case (.none, .none):
                    return key(a) < key(b)
                case (.none, .some):
                    return !ascending
                case (.some, .none):
                    return ascending
                case (.some(let va), .some(let vb)):
                    let x = va ?? Int.min
                    let y = vb ?? Int.min
                    if x != y { return ascending ? x < y : x > y }
                    return key(a) < key(b)
                }
            }
        }
        if let distinct {
            // Spec V22: the first object of each value in the sorted order; a null link leaves
            // its object out.
            var seen = Set<Int?>()
            elements = elements.filter { object in
                switch distinct {
                case .value:
                    return seen.insert(snapshot.objects[object]?.value ?? nil).inserted
                case .linkValue:
                    guard let link = snapshot.objects[object]?.link else { return false }
                    return seen.insert(snapshot.objects[link]?.value ?? nil).inserted
                }
            }
        }
        return elements
    }

}
