// The data of one committed version: every object of every type. The model's object schema is
// deliberately small but has each shape the rules talk about: a scalar (`value`), a List of links
// (`list`) and a Map of links (`map`), in any number of named types with an Int primary key.

/// Property names as the rules and change sets use them.
public enum PropertyName: String, Hashable, Sendable, CaseIterable, Comparable {
    case value, list, map
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
    public var written: [PropertyName: Version]

    public init(type: String, primaryKey: Int, value: Int?, list: [ObjectID] = [],
                map: [String: ObjectID?] = [:], written: [PropertyName: Version] = [:]) {
        self.type = type
        self.primaryKey = primaryKey
        self.value = value
        self.list = list
        self.map = map
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

    /// Objects of `type` in primary-key order.
    public func objectIDs(ofType type: String) -> [ObjectID] {
        objects.filter { $0.value.type == type }
            .sorted { $0.value.primaryKey < $1.value.primaryKey }
            .map(\.key)
    }
}
