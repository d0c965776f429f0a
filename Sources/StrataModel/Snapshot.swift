// The data of one committed version: every object of every type. The model's object schema is
// deliberately small but has each shape the rules talk about: a scalar (`value`), a List of links
// (`list`), a Map of links (`map`) and, in types that declare it, a to-one link (`link`, Spec V20,
// W13), in any number of named types with an Int primary key.

/// Property names as the rules and change sets use them, in the order object change
/// notifications list them (the engine's column order; `map` has no column yet).
public enum PropertyName: String, Hashable, Sendable, CaseIterable, Comparable {
    case value, list, link, map
    /// A Linker's set of Items (generation 11, Spec V24).
    case set
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One stored object. `written` records, per property, the version whose commit last wrote it;
/// change sets read modifications from it (Spec N13, N20, N22).
public struct StoredObject: Hashable, Sendable {
    public var type: String
    public var primaryKey: Int
    public var value: Int?
    public var list: [ObjectID]
    public var map: [String: ObjectID?]
    /// The to-one link, in a type whose schema has a `link` column (nil otherwise): an Item, or
    /// nil. Deleting its target makes it nil (Spec W13).
    public var link: ObjectID?
    /// The set of Items, in a type whose schema has a `set` column (empty otherwise): each Item
    /// once, in primary-key order, the key order of realm-core's sets (Spec V24). Deleting an
    /// Item removes it (W13).
    public var set: [ObjectID]
    public var written: [PropertyName: Version]

    public init(
        type: String, primaryKey: Int, value: Int?, list: [ObjectID] = [],
        map: [String: ObjectID?] = [:], link: ObjectID? = nil, set: [ObjectID] = [],
        written: [PropertyName: Version] = [:]
    ) {
        self.set = set
        self.type = type
        self.primaryKey = primaryKey
        self.value = value
        self.list = list
        self.map = map
        self.link = link
        self.written = written
    }
}

/// The declared schema: type name → column names. Every type has the columns of
/// `Schema.standardColumns`; a configuration may declare more, which a file may lack (Spec X15).
public struct Schema: Hashable, Sendable {
    public var types: [String: Set<String>]
    public init(types: [String: Set<String>]) { self.types = types }
    public static let standardColumns: Set<String> = ["primaryKey", "value", "list", "map"]
    public static let standard = Schema(types: ["Item": standardColumns, "Other": standardColumns])
    /// The standard types and "Linker", whose objects also have a to-one link to an Item
    /// (`link`): what sorting through a link needs (Spec V20).
    public static let linkerColumns: Set<String> = standardColumns.union(["link", "set"])
    public static let linking = Schema(types: [
        "Item": standardColumns, "Other": standardColumns,
        "Linker": linkerColumns,
    ])

    /// Whether objects of `type` have a to-one `link` column.
    public func hasLink(_ type: String) -> Bool { types[type]?.contains("link") == true }

    /// Whether objects of `type` have a `map` of Items (every type of the model; only Linkers'
    /// are written, generation 12: Spec V25).
    public func hasMap(_ type: String) -> Bool { types[type]?.contains("map") == true }

    /// Whether objects of `type` have a `set` of Items (Linkers, generation 11: Spec V24).
    public func hasSet(_ type: String) -> Bool { types[type]?.contains("set") == true }
}

/// Every object of one version, plus the version's schema and schema version.
public struct Snapshot: Hashable, Sendable {
    public var objects: [ObjectID: StoredObject]
    public var schema: Schema
    /// The schema version the file records at this version (Spec X19).
    public var schemaVersion: UInt64
    // Which realm committed a version is `ModelState.committers` (Spec N20); the next object
    // identity is the file's (`FileState.nextObjectID`), since a rolled-back write must not
    // give its identities back.

    public init(schema: Schema, schemaVersion: UInt64 = 0) {
        self.objects = [:]
        self.schema = schema
        self.schemaVersion = schemaVersion
    }

    /// The live object of `type` with `primaryKey`, if any.
    public func objectID(type: String, primaryKey: Int) -> ObjectID? {
        objects.first { $0.value.type == type && $0.value.primaryKey == primaryKey }?.key
    }

    /// Whether a commit after `since` set a property of `object`, or of an object it links to
    /// (its List's elements, its link's target) up to `ChangeDepth.maximum` links away, counted
    /// from `depth` (Spec N11, N21; the links of this version are followed).
    public func changed(_ object: ObjectID, since: Version, depth: Int = 0) -> Bool {
        guard let stored = objects[object] else { return false }
        if (stored.written.values.max() ?? Version(0)) > since { return true }
        return linkedChanged(stored, since: since, depth: depth)
    }

    /// Whether an object `stored` links to (from `depth`) changed since `since`: what makes
    /// its `list` or `link` change for an observer without key paths (Spec N21).
    public func linkedChanged(
        _ stored: StoredObject, since: Version, depth: Int = 0,
        through property: PropertyName? = nil
    ) -> Bool {
        guard depth + 1 < ChangeDepth.maximum else { return false }
        if property == nil || property == .list,
            stored.list.contains(where: { changed($0, since: since, depth: depth + 1) })
        {
            return true
        }
        if property == nil || property == .set,
            stored.set.contains(where: { changed($0, since: since, depth: depth + 1) })
        {
            return true
        }
        // Spec V25: a Map's Items are followed as a List's are (realm-core's deep change check
        // reads a dictionary's links too).
        if property == nil || property == .map,
            stored.map.values.contains(where: { value in
                value.map { changed($0, since: since, depth: depth + 1) } ?? false
            })
        {
            return true
        }
        if property == nil || property == .link, let link = stored.link {
            return changed(link, since: since, depth: depth + 1)
        }
        return false
    }

    /// Objects of `type` in primary-key order.
    public func objectIDs(ofType type: String) -> [ObjectID] {
        objects.filter { $0.value.type == type }
            .sorted { $0.value.primaryKey < $1.value.primaryKey }
            .map(\.key)
    }
}

/// How far change notifications follow links (Spec N11: Strata's choice, four links deep): an
/// object at depth 0 hears of changes of objects at depths 1 to 3.
public enum ChangeDepth {
    public static let maximum = 4
}
