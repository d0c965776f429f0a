import CStrataSupport
import Foundation
import StrataStorage

// The migration's state and the new layout. The block's calls are in Migration+Block.swift,
// the checks after the block and the value conversions in Migration+Finish.swift.

/// The block a migration runs (RealmSwift's top-level name for `Realm.MigrationBlock`).
public typealias MigrationBlock = Realm.MigrationBlock

/// The block `Migration.enumerateObjects(ofType:_:)` calls for each object: the object as the
/// file stored it before the migration (read-only) and as it is now (writable).
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

/// What a migration block works with: the objects of the file before the schema change (the
/// old realm, read-only) and after it (the new realm, writable), by class name.
///
/// A migration runs when a realm is opened with a `schemaVersion` above the one the file
/// records (Spec X19). Before the block runs, every class is already in its new layout: kept
/// properties keep their values, added ones hold their type's zero value (Spec X20). The block
/// then reads old objects and sets new ones; everything it does, and the new layout, commit
/// in one write with the new schema version, or not at all (Spec X24).
///
/// Confinement: the migration lives for the duration of the block, on the thread opening the
/// realm; it must not be kept or used afterwards.
///
/// ```swift
/// var config = Realm.Configuration(schemaVersion: 2, objectTypes: [Person.self])
/// config.migrationBlock = { migration, oldSchemaVersion in
///     guard oldSchemaVersion < 2 else { return }
///     migration.enumerateObjects(ofType: "Person") { old, new in
///         let first = old?["firstName"] as? String ?? ""
///         let last = old?["lastName"] as? String ?? ""
///         new?["fullName"] = "\(first) \(last)"
///     }
/// }
/// let realm = try Realm(configuration: config)
/// ```
public final class Migration {
    let write: WriteTransaction
    /// The version the migration started from: the old realm (Spec X21).
    let old: ReadTransaction
    let path: String
    /// The classes as the old version stores them, by name.
    let oldSchemas: [String: ObjectSchema]
    /// The classes as the migration leaves them, by name: the declared ones, and with no
    /// declared classes (`objectTypes == nil`) the stored ones as they are.
    let newSchemas: [String: ObjectSchema]
    /// The declared classes by name: their initial values fill what `create` is not given.
    let declared: [String: ClassInfo]
    /// Classes whose table holds no engine primary key until the block ends (Spec X23).
    var staged: Set<String> = []
    /// Objects the migration created, by class: none is an old object's new version.
    var created: [String: Set<ObjectKey>] = [:]
    /// Per class, the old properties the new schema lacks, by the name they now have (a
    /// rename can move one to a name the new schema lacks too, waiting for another rename).
    var leftovers: [String: [String: String]] = [:]
    /// The first failure of the block's calls; the open throws it (Spec X24).
    var failure: Realm.Error?
    /// Unmanaged objects a link was set to, with the object made from each: as Realm adds
    /// such an object to the realm, linking it again links the same object.
    var adopted: [ObjectIdentifier: (object: Object, key: ObjectKey)] = [:]

    init(write: WriteTransaction, old: ReadTransaction, path: String, declared: [ClassInfo], keepsStored: Bool) {
        self.write = write
        self.old = old
        self.path = path
        var oldSchemas: [String: ObjectSchema] = [:]
        for table in old.tables() {
            if let schema = ObjectSchema.decode(table.schema, className: table.name) { oldSchemas[table.name] = schema }
        }
        self.oldSchemas = oldSchemas
        var newSchemas = keepsStored ? oldSchemas : [:]
        var byName: [String: ClassInfo] = [:]
        for info in declared {
            newSchemas[info.className] = info.schema
            byName[info.className] = info
        }
        self.newSchemas = newSchemas
        self.declared = byName
        for (name, schema) in oldSchemas {
            guard let target = newSchemas[name] else { continue }
            let removed = schema.properties.filter { target.index(of: $0.name) == nil }.map(\.name)
            if !removed.isEmpty { leftovers[name] = Dictionary(uniqueKeysWithValues: removed.map { ($0, $0) }) }
        }
    }

    // MARK: the new layout, before the block (Spec X20)

    /// Puts every class into its new layout: tables of new classes are created, changed
    /// classes are rebuilt (see `stage`), classes whose index flags alone changed get their
    /// new schema in place.
    func applyLayout() throws(Realm.Error) {
        var rebuild: [String] = []
        for name in newSchemas.keys.sorted() {
            guard let target = newSchemas[name] else { continue }
            guard let table = write.table(named: name) else {
                rebuild.append(name)
                continue
            }
            guard let stored = ObjectSchema.decode(table.schema, className: name), stored != target else {
                // Spec W26: a kept class whose file predates its indexes gets them now.
                if table.indexedColumns != target.engineIndexedColumns {
                    try engine(path) { try write.setIndexedColumns(target.engineIndexedColumns, forTable: name) }
                }
                continue
            }
            if target.differences(from: stored).isEmpty {
                try engine(path) {  // indexes only
                    try write.setSchema(target.encoded(), forTable: name)
                    try write.setIndexedColumns(target.engineIndexedColumns, forTable: name)
                }
            } else {
                rebuild.append(name)
            }
        }
        try stage(rebuild)
    }

    /// Rebuilds the tables of `names` in their new layout without an engine primary key
    /// (Spec X23: primary keys are not enforced while the block runs). Objects keep their
    /// keys; a kept property keeps its values, any other takes its type's zero value (Spec
    /// X20); links to the rebuilt tables are pointed at them.
    func stage(_ names: [String]) throws(Realm.Error) {
        var moved: [TableID: TableID] = [:]
        for name in names where !staged.contains(name) {
            guard let target = newSchemas[name] else { continue }
            var rows: [(ObjectKey, [StrataStorage.Value])] = []
            var source = target
            if let current = write.table(named: name) {
                source = ObjectSchema.decode(current.schema, className: name) ?? target
                try engine(path) {
                    try write.forEachRow(current) { key, row in
                        rows.append((key, try row.values()))
                        return true
                    }
                }
                try engine(path) { try write.dropTable(name) }
                let table = try engine(path) {
                    try write.createTable(
                        name, primaryKey: .none, schema: target.encoded(), indexedColumns: target.engineIndexedColumns)
                }
                moved[current.id] = table.id
                for (key, row) in rows {
                    let values = Self.convert(row, from: source, to: target)
                    try engine(path) { try write.insert(table.id, key: key, values: values) }
                }
            } else {
                _ = try engine(path) {
                    try write.createTable(
                        name, primaryKey: .none, schema: target.encoded(), indexedColumns: target.engineIndexedColumns)
                }
            }
            staged.insert(name)
        }
        if !moved.isEmpty { try repointLinks { link in moved[link.table].map { Link(table: $0, key: link.key) } } }
    }

    /// A row of `source`'s layout in `target`'s: by property name, a value is kept when the
    /// type, link target and list-ness are the same and the property does not become required
    /// (Realm drops the values of a property made required); everything else is zero.
    static func convert(
        _ row: [StrataStorage.Value], from source: ObjectSchema,
        to target: ObjectSchema
    ) -> [StrataStorage.Value] {
        target.properties.map { property in
            if let column = source.index(of: property.name), column < row.count {
                let old = source.properties[column]
                if old.type == property.type, old.objectClassName == property.objectClassName,
                    old.isList == property.isList, old.isSet == property.isSet,
                    old.isMap == property.isMap,
                    !(old.isOptional && !property.isOptional)
                {
                    return row[column]
                }
            }
            return zero(property)
        }
    }

    /// The value a property has when nothing set it: nil, an empty list, or the type's zero
    /// (Realm's column default: 0, false, "", empty data, 1970-01-01, the all-zero UUID).
    static func zero(_ property: PropertySchema) -> StrataStorage.Value {
        if property.isList { return .list([]) }
        if property.isOptional || property.type == .object { return .null }
        switch property.type {
        case .int: return .int(0)
        case .bool: return .bool(false)
        case .float, .double: return .double(0)
        case .string: return .string("")
        case .data: return .binary([])
        case .date: return (try? Date(timeIntervalSince1970: 0)._strataEncode(realm: nil)) ?? .null
        case .uuid:
            let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            return (try? zero._strataEncode(realm: nil)) ?? .null
        case .object: return .null
        }
    }

    /// Rewrites every link `map` answers for, in every table of the write.
    func repointLinks(_ map: (Link) -> Link?) throws(Realm.Error) {
        for table in write.tables() {
            guard let schema = ObjectSchema.decode(table.schema, className: table.name) else { continue }
            let columns = schema.properties.indices.filter { schema.properties[$0].isLink }
            guard !columns.isEmpty else { continue }
            var updates: [(ObjectKey, [StrataStorage.Value])] = []
            try engine(path) {
                try write.forEachRow(table) { key, row in
                    var values = try row.values()
                    var changed = false
                    func repoint(_ value: StrataStorage.Value) -> StrataStorage.Value {
                        guard case .link(let link) = value, let new = map(link) else { return value }
                        changed = true
                        return .link(new)
                    }
                    for column in columns where column < values.count {
                        if case .list(let elements) = values[column] {
                            // Spec V24: a set's links are kept in key order, which new keys change.
                            let repointed = elements.map(repoint)
                            values[column] = .list(
                                schema.properties[column].isSet ? SetOrder.normalized(repointed) : repointed)
                        } else {
                            values[column] = repoint(values[column])
                        }
                    }
                    if changed { updates.append((key, values)) }
                    return true
                }
            }
            for (key, values) in updates { try engine(path) { try write.update(table.id, key: key, values: values) } }
        }
    }

    /// Removes the links to the objects `isGone` names: links become nil, list entries go
    /// (as deleting an object does, Spec W13).
    func removeLinks(where isGone: (Link) -> Bool) throws(Realm.Error) {
        for table in write.tables() {
            guard let schema = ObjectSchema.decode(table.schema, className: table.name) else { continue }
            let columns = schema.properties.indices.filter { schema.properties[$0].isLink }
            guard !columns.isEmpty else { continue }
            var updates: [(ObjectKey, [StrataStorage.Value])] = []
            try engine(path) {
                try write.forEachRow(table) { key, row in
                    var values = try row.values()
                    var changed = false
                    for column in columns where column < values.count {
                        switch values[column] {
                        case .link(let link) where isGone(link):
                            values[column] = .null
                            changed = true
                        case .list(let elements):
                            if let kept = DeletedLinks.removing(
                                from: elements, isMap: schema.properties[column].isMap,
                                nullable: schema.properties[column].isOptional, where: isGone)
                            {
                                values[column] = .list(kept)
                                changed = true
                            }
                        default:
                            break
                        }
                    }
                    if changed { updates.append((key, values)) }
                    return true
                }
            }
            for (key, values) in updates { try engine(path) { try write.update(table.id, key: key, values: values) } }
        }
    }
}
