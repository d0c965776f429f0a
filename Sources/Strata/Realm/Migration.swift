import CStrataSupport
import Foundation
import StrataStorage

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
    private var staged: Set<String> = []
    /// Objects the migration created, by class: none is an old object's new version.
    private var created: [String: Set<ObjectKey>] = [:]
    /// Per class, the old properties the new schema lacks, by the name they now have (a
    /// rename can move one to a name the new schema lacks too, waiting for another rename).
    private var leftovers: [String: [String: String]] = [:]
    /// The first failure of the block's calls; the open throws it (Spec X24).
    private var failure: Realm.Error?
    /// Unmanaged objects a link was set to, with the object made from each: as Realm adds
    /// such an object to the realm, linking it again links the same object.
    private var adopted: [ObjectIdentifier: (object: Object, key: ObjectKey)] = [:]

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
            guard let stored = ObjectSchema.decode(table.schema, className: name), stored != target else { continue }
            if target.differences(from: stored).isEmpty {
                try engine(path) { try write.setSchema(target.encoded(), forTable: name) }  // indexes only
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
    private func stage(_ names: [String]) throws(Realm.Error) {
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
                let table = try engine(path) { try write.createTable(name, primaryKey: .none, schema: target.encoded()) }
                moved[current.id] = table.id
                for (key, row) in rows {
                    let values = Self.convert(row, from: source, to: target)
                    try engine(path) { try write.insert(table.id, key: key, values: values) }
                }
            } else {
                _ = try engine(path) { try write.createTable(name, primaryKey: .none, schema: target.encoded()) }
            }
            staged.insert(name)
        }
        if !moved.isEmpty { try repointLinks { link in moved[link.table].map { Link(table: $0, key: link.key) } } }
    }

    /// A row of `source`'s layout in `target`'s: by property name, a value is kept when the
    /// type, link target and list-ness are the same and the property does not become required
    /// (Realm drops the values of a property made required); everything else is zero.
    static func convert(_ row: [StrataStorage.Value], from source: ObjectSchema,
                        to target: ObjectSchema) -> [StrataStorage.Value] {
        target.properties.map { property in
            if let column = source.index(of: property.name), column < row.count {
                let old = source.properties[column]
                if old.type == property.type, old.objectClassName == property.objectClassName,
                   old.isList == property.isList, !(old.isOptional && !property.isOptional) {
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
    private func repointLinks(_ map: (Link) -> Link?) throws(Realm.Error) {
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
                            values[column] = .list(elements.map(repoint))
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
    private func removeLinks(where isGone: (Link) -> Bool) throws(Realm.Error) {
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
                            let kept = elements.filter { if case .link(let link) = $0 { return !isGone(link) }; return true }
                            if kept.count != elements.count {
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

    // MARK: the block's calls (Spec X21)

    /// Calls `block` for every object of the class named `typeName`: the old object (as the
    /// version before the migration stores it, read-only, with the old properties) and the new
    /// one (with the new properties, writable).
    ///
    /// For a class the file did not have, `block` gets each new object with a nil old one; for
    /// a class the new schema lacks, each old object with a nil new one. Otherwise it gets the
    /// old objects that still have a new version: not those deleted (`delete`, `deleteData`),
    /// and never an object `create` made. A class neither schema has is enumerated as empty.
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) {
        guard failure == nil else { return }
        do throws(Realm.Error) {
            let oldTable = oldSchemas[typeName] == nil ? nil : old.table(named: typeName)
            let newTable = newSchemas[typeName] == nil ? nil : write.table(named: typeName)
            switch (oldTable, newTable) {
            case (nil, let newTable?):
                for key in try keys(of: newTable, in: write) where try exists(typeName, key) {
                    block(nil, MigrationObject(migration: self, className: typeName, key: key, isOld: false))
                }
            case (let oldTable?, nil):
                for key in try keys(of: oldTable, in: old) {
                    block(MigrationObject(migration: self, className: typeName, key: key, isOld: true), nil)
                }
            case (let oldTable?, let newTable?):
                guard oldTable.rowCount > 0, newTable.rowCount > 0 else { return }
                for key in try keys(of: oldTable, in: old) {
                    guard !(created[typeName]?.contains(key) ?? false), try exists(typeName, key) else { continue }
                    block(MigrationObject(migration: self, className: typeName, key: key, isOld: true),
                          MigrationObject(migration: self, className: typeName, key: key, isOld: false))
                }
            case (nil, nil):
                return
            }
        } catch {
            failure = failure ?? error
        }
    }

    private func keys(of table: TableInfo, in view: ReadTransaction) throws(Realm.Error) -> [ObjectKey] {
        var keys: [ObjectKey] = []
        try engine(path) {
            try view.forEachRow(table) { key, _ in
                keys.append(key)
                return true
            }
        }
        return keys
    }

    private func keys(of table: TableInfo, in view: WriteTransaction) throws(Realm.Error) -> [ObjectKey] {
        var keys: [ObjectKey] = []
        try engine(path) {
            try view.forEachRow(table) { key, _ in
                keys.append(key)
                return true
            }
        }
        return keys
    }

    private func exists(_ className: String, _ key: ObjectKey) throws(Realm.Error) -> Bool {
        guard let table = write.table(named: className) else { return false }
        return try engine(path) { try write.contains(table, key: key) }
    }

    /// Creates an object of the class named `typeName` in the new realm and returns it.
    /// `value` is a dictionary by property name, an array of every property in order, or an
    /// object whose properties of the same names are copied; properties it does not give take
    /// the class's initial values. Primary keys are not checked until the block ends (Spec
    /// X23).
    ///
    /// A class the new schema lacks is a programmer error (a trap with Realm's message 'Object
    /// type … is not managed by the Realm').
    @discardableResult
    public func create(_ typeName: String, value: Any = [Any]()) -> MigrationObject {
        trapping { () throws(Realm.Error) -> MigrationObject in try _create(typeName, value: value) }
    }

    /// `create(_:value:)`, throwing its rejection.
    @_spi(StrataCheck)
    public func _create(_ typeName: String, value: Any = [Any]()) throws(Realm.Error) -> MigrationObject {
        guard let schema = newSchemas[typeName] else {
            throw Realm.Error.misuse(
                "Object type '\(typeName)' is not managed by the Realm. If using a custom `objectClasses` / "
                    + "`objectTypes` array in your configuration, add `\(typeName)` to the list of "
                    + "`objectClasses` / `objectTypes`.")
        }
        if schema.primaryKeyIndex != nil { try stage([typeName]) }  // Spec X23: keys may repeat until the end
        guard let table = write.table(named: typeName) else {
            throw Realm.Error(.fail, "the migration lost the table of '\(typeName)'")
        }
        let properties = schema.properties
        var given = [Any??](repeating: nil, count: properties.count)  // nil: not given
        if let dictionary = value as? [String: Any?] {
            for (index, property) in properties.enumerated() where dictionary.keys.contains(property.name) {
                given[index] = .some(dictionary[property.name] ?? nil)
            }
        } else if let array = value as? [Any?] {
            for (index, element) in array.prefix(properties.count).enumerated() { given[index] = .some(element) }
        } else if let object = value as? MigrationObject {
            for (index, property) in properties.enumerated() where object.schema.index(of: property.name) != nil {
                given[index] = .some(try object._value(forKey: property.name))
            }
        } else if let object = value as? Object {
            let source = ClassInfo.of(type(of: object)).schema
            for (index, property) in properties.enumerated() where source.index(of: property.name) != nil {
                given[index] = .some(try object._value(forKey: property.name))
            }
        } else {
            throw Realm.Error.misuse("Invalid value '\(value)' to initialize object of type '\(typeName)'")
        }
        var initial: [Any?] = []
        if given.contains(where: { $0 == nil }), let info = declared[typeName] {
            _ = strata_persisted_take_ordinal_count()
            initial = info.type.init().unmanagedValues(info)
        }
        var row: [StrataStorage.Value] = []
        for (index, property) in properties.enumerated() {
            if let value = given[index] {
                row.append(try encode(value, for: property, in: typeName))
            } else if index < initial.count {
                row.append(try encode(initial[index], for: property, in: typeName))
            } else {
                row.append(Self.zero(property))
            }
        }
        let key = try engine(path) { try write.insert(table.id, values: row) }
        created[typeName, default: []].insert(key)
        return MigrationObject(migration: self, className: typeName, key: key, isOld: false)
    }

    /// Deletes `object`, a new object of this migration, from the new realm; links to it
    /// become nil and list entries of it go (Spec W13). Deleting an old object, or one already
    /// deleted, is a programmer error (a trap with Realm's message).
    public func delete(_ object: MigrationObject) {
        trapping { () throws(Realm.Error) in try _delete(object) }
    }

    /// `delete(_:)`, throwing its rejection.
    @_spi(StrataCheck)
    public func _delete(_ object: MigrationObject) throws(Realm.Error) {
        guard object.migration === self, !object.isOld else { throw Realm.Error.deleteFromOtherRealm }
        guard let table = write.table(named: object.className),
              try engine(path, { try write.delete(table.id, key: object.key) }) else {
            throw Realm.Error.objectInvalidated
        }
        let gone = Link(table: table.id, key: object.key)
        try removeLinks { $0 == gone }
    }

    /// Deletes every object of the class named `typeName`: a class of the new schema keeps its
    /// (empty) table, any other class leaves the file. Returns whether the file had the class.
    /// Enumerating the class afterwards visits nothing.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard failure == nil, let table = write.table(named: typeName) else { return false }
        do throws(Realm.Error) {
            if newSchemas[typeName] != nil {
                _ = try engine(path) { try write.deleteAll(table.id) }
            } else {
                try engine(path) { try write.dropTable(typeName) }
            }
            try removeLinks { $0.table == table.id }
        } catch {
            failure = failure ?? error
        }
        return true
    }

    /// Gives the values of the old property `oldName` of the class named `typeName` to its new
    /// property `newName` (Spec X22). `oldName` must be a property the new schema lacks;
    /// `newName` may be one the new schema lacks too, for a later rename to move on.
    ///
    /// A rename Realm refuses fails the open with Realm's message ('Cannot rename property …').
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard failure == nil else { return }
        do throws(Realm.Error) {
            try rename(typeName, from: oldName, to: newName)
        } catch {
            failure = error
        }
    }

    private func rename(_ typeName: String, from oldName: String, to newName: String) throws(Realm.Error) {
        guard write.table(named: typeName) != nil, let oldSchema = oldSchemas[typeName] else {
            throw Realm.Error(.fail, "Cannot rename properties for type '\(typeName)' because it does not exist.")
        }
        guard let target = newSchemas[typeName] else {
            throw Realm.Error(.fail,
                              "Cannot rename properties for type '\(typeName)' because it has been removed from the Realm.")
        }
        guard target.index(of: oldName) == nil else {
            throw Realm.Error(.fail, "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because the "
                              + "source property still exists.")
        }
        guard let original = leftovers[typeName]?[oldName], let oldColumn = oldSchema.index(of: original) else {
            throw Realm.Error(.fail, "Cannot rename property '\(typeName).\(oldName)' because it does not exist.")
        }
        leftovers[typeName]?[oldName] = nil
        guard let newColumn = target.index(of: newName) else {
            leftovers[typeName]?[newName] = original  // an intermediate name
            return
        }
        let from = oldSchema.properties[oldColumn]
        let to = target.properties[newColumn]
        guard from.type == to.type, from.objectClassName == to.objectClassName, from.isList == to.isList else {
            throw Realm.Error(.fail, "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it "
                              + "would change from type '\(from.realmTypeName)' to '\(to.realmTypeName)'.")
        }
        guard !from.isOptional || to.isOptional else {
            throw Realm.Error(.fail, "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it "
                              + "would change from optional to required.")
        }
        try stage([typeName])
        guard let oldTable = old.table(named: typeName), let table = write.table(named: typeName) else { return }
        var moves: [(ObjectKey, StrataStorage.Value)] = []
        try engine(path) {
            try old.forEachRow(oldTable) { key, row in
                moves.append((key, try row.value(at: oldColumn)))
                return true
            }
        }
        for (key, value) in moves where !(created[typeName]?.contains(key) ?? false) {
            guard var row = try engine(path, { try write.row(table, key: key) }) else { continue }
            while row.count <= newColumn { row.append(.null) }
            row[newColumn] = value
            try engine(path) { try write.update(table.id, key: key, values: row) }
        }
    }

    // MARK: after the block (Spec X22, X23)

    /// Ends the migration: reports the first failure of the block's calls, a rename left at a
    /// name the new schema lacks, and a primary key with duplicate values; gives the rebuilt
    /// classes their engine primary keys back.
    func finish() throws(Realm.Error) {
        if let failure { throw failure }
        for (typeName, names) in leftovers.sorted(by: { $0.key < $1.key }) {
            for (name, original) in names.sorted(by: { $0.key < $1.key }) where name != original {
                throw Realm.Error(.fail, "Renamed property '\(typeName).\(name)' does not exist.")
            }
        }
        for name in staged.sorted() {
            guard let schema = newSchemas[name], let column = schema.primaryKeyIndex else { continue }
            try restorePrimaryKey(name, schema: schema, column: column)
        }
    }

    /// Rebuilds the table of `name` with its engine primary key: keys follow the primary key
    /// values again, and links are pointed at the new keys.
    private func restorePrimaryKey(_ name: String, schema: ObjectSchema, column: Int) throws(Realm.Error) {
        guard let current = write.table(named: name) else { return }
        var rows: [(ObjectKey, [StrataStorage.Value])] = []
        var seen = Set<StrataStorage.Value>()
        var duplicated = false
        try engine(path) {
            try write.forEachRow(current) { key, row in
                let values = try row.values()
                let value = column < values.count ? values[column] : .null
                if !seen.insert(value).inserted { duplicated = true }
                rows.append((key, values))
                return !duplicated
            }
        }
        if duplicated {
            throw Realm.Error(.fail, "Primary key property '\(name).\(schema.properties[column].name)' has duplicate "
                              + "values after migration.")
        }
        try engine(path) { try write.dropTable(name) }
        let table = try engine(path) {
            try write.createTable(name, primaryKey: schema.enginePrimaryKey, schema: schema.encoded())
        }
        var keys: [ObjectKey: ObjectKey] = [:]
        for (key, values) in rows {
            keys[key] = try engine(path) { try write.insert(table.id, values: values) }
        }
        let oldID = current.id
        try repointLinks { link in
            guard link.table == oldID, let key = keys[link.key] else { return nil }
            return Link(table: table.id, key: key)
        }
    }

    // MARK: values

    /// The stored form of `value` for `property` of the new realm. Links take a new object of
    /// this migration, or an object, dictionary or array to create from.
    func encode(_ value: Any?, for property: PropertySchema, in className: String) throws(Realm.Error) -> StrataStorage.Value {
        guard property.isList else { return try encodeElement(value, for: property, in: className) }
        // Realm's words for a value that is not a list (RLMValidateValueForProperty).
        let elements = try AnyValue.listElements(AnyValue.flatten(value), _PropertyPath(className: className,
                                                                                         property: property))
        var encoded: [StrataStorage.Value] = []
        for element in elements { encoded.append(try encodeElement(element, for: property, in: className)) }
        return .list(encoded)
    }

    private func encodeElement(_ value: Any?, for property: PropertySchema,
                               in className: String) throws(Realm.Error) -> StrataStorage.Value {
        guard let value = AnyValue.flatten(value), !(value is NSNull) else {
            guard property.isOptional || property.type == .object else {
                throw Realm.Error.misuse("Invalid null value for non-nullable property '\(className).\(property.name)'.")
            }
            return .null
        }
        // Realm's words for a value of another type (RLMThrowTypeError).
        let wrong = AnyValue.typeError(value, _PropertyPath(className: className, property: property))
        switch property.type {
        case .int:
            guard let number = value as? any BinaryInteger, !(value is Bool) else { throw wrong }
            return .int(Int64(truncatingIfNeeded: number))
        case .bool:
            guard let flag = value as? Bool else { throw wrong }
            return .bool(flag)
        case .float, .double:
            if let number = value as? Double { return .double(number) }
            if let number = value as? Float { return .double(Double(number)) }
            if let number = value as? any BinaryInteger { return .double(Double(Int64(truncatingIfNeeded: number))) }
            throw wrong
        case .string:
            guard let text = value as? String else { throw wrong }
            return .string(text)
        case .data:
            guard let data = value as? Data else { throw wrong }
            return .binary([UInt8](data))
        case .date:
            guard let date = value as? Date else { throw wrong }
            return try date._strataEncode(realm: nil)
        case .uuid:
            guard let uuid = value as? UUID else { throw wrong }
            return try uuid._strataEncode(realm: nil)
        case .object:
            guard let target = property.objectClassName else { throw wrong }
            if let object = value as? MigrationObject {
                guard object.migration === self, !object.isOld, object.className == target else { throw wrong }
                guard let table = write.table(named: target) else { throw Realm.Error.objectInvalidated }
                return .link(Link(table: table.id, key: object.key))
            }
            let unmanaged = (value as? Object).flatMap { $0._accessor == nil ? $0 : nil }
            if let unmanaged, let known = adopted[ObjectIdentifier(unmanaged)],
               try exists(target, known.key), let table = write.table(named: target) {
                return .link(Link(table: table.id, key: known.key))
            }
            let made = try _create(target, value: value)
            if let unmanaged { adopted[ObjectIdentifier(unmanaged)] = (unmanaged, made.key) }
            guard let table = write.table(named: target) else { throw Realm.Error.objectInvalidated }
            return .link(Link(table: table.id, key: made.key))
        }
    }

    /// Sets a property of a new object (`MigrationObject`'s setter).
    func set(_ value: Any?, column: Int, of object: MigrationObject) throws(Realm.Error) {
        guard let schema = newSchemas[object.className], column < schema.properties.count else {
            throw Realm.Error.objectInvalidated
        }
        if column == schema.primaryKeyIndex { try stage([object.className]) }  // Spec X23
        let encoded = try encode(value, for: schema.properties[column], in: object.className)
        guard let table = write.table(named: object.className),
              var row = try engine(path, { try write.row(table, key: object.key) }) else {
            throw Realm.Error.objectInvalidated
        }
        while row.count <= column { row.append(.null) }
        row[column] = encoded
        try engine(path) { try write.update(table.id, key: object.key, values: row) }
    }

    /// The stored row of an object of the old or new realm.
    func row(of object: MigrationObject) throws(Realm.Error) -> [StrataStorage.Value] {
        let found: [StrataStorage.Value]?
        if object.isOld {
            guard let table = old.table(named: object.className) else { throw Realm.Error.objectInvalidated }
            found = try engine(path) { try old.row(table, key: object.key) }
        } else {
            guard let table = write.table(named: object.className) else { throw Realm.Error.objectInvalidated }
            found = try engine(path) { try write.row(table, key: object.key) }
        }
        guard let found else { throw Realm.Error.objectInvalidated }
        return found
    }

    /// The object a stored link of the old or new realm names.
    func object(at link: Link, isOld: Bool) -> MigrationObject? {
        let table = isOld ? old.table(id: link.table) : write.table(id: link.table)
        guard let table else { return nil }
        return MigrationObject(migration: self, className: table.name, key: link.key, isOld: isOld)
    }
}

extension Realm {
    /// Opens the realm of `configuration` and closes it again: runs its migration now, if the
    /// file needs one, rather than at the next open (Spec X25).
    ///
    /// Confinement: call it on a thread or serial queue where no realm of the file is open.
    /// - Throws: `Realm.Error` as `Realm(configuration:)` does; `.programmerError` "Cannot
    ///   migrate Realms that are already open." while this process has the file open.
    ///
    /// ```swift
    /// var config = Realm.Configuration(schemaVersion: 3, objectTypes: [Dog.self])
    /// config.migrationBlock = { migration, _ in migration.deleteData(forType: "Cat") }
    /// try Realm.performMigration(for: config)
    /// ```
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        try _performMigration(for: configuration)
    }

    /// `performMigration(for:)` with `Realm.Error` as the thrown type.
    @_spi(StrataCheck)
    public static func _performMigration(for configuration: Configuration) throws(Realm.Error) {
        try configuration.validate()
        guard RealmFile.openFile(key: configuration.fileKey) == nil else {
            throw Realm.Error.misuse("Cannot migrate Realms that are already open.")
        }
        _ = try RealmCore.open(configuration, queue: nil)
    }
}

/// The schema version recorded in the realm file at `fileURL` (Spec X25).
///
/// Reads the file without opening a realm: no migration runs and no schema is checked.
/// Callable from any thread.
/// - Throws: `Realm.Error` code `.invalidDatabase` "Realm at path '<path>' has not been
///   initialized." when there is no file; the open errors of Spec X6 otherwise.
///
/// ```swift
/// let version = try schemaVersionAtURL(Realm.Configuration.defaultConfiguration.fileURL!)
/// ```
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    try _schemaVersionAtURL(fileURL, encryptionKey: encryptionKey)
}

/// `schemaVersionAtURL(_:encryptionKey:)` with `Realm.Error` as the thrown type.
@_spi(StrataCheck)
public func _schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws(Realm.Error) -> UInt64 {
    if let encryptionKey {
        guard encryptionKey.count == 64 else { throw Realm.Error.encryptionKeyLength }  // Spec X17
        throw Realm.Error.encryptionUnsupported
    }
    let configuration = Realm.Configuration(fileURL: fileURL)
    let path = configuration.path
    if let open = RealmFile.openFile(key: configuration.fileKey) {
        let read = try engine(path) { try open.store.beginRead(.live) }
        defer { read.end() }
        return read.schemaVersion
    }
    guard Store.fileExists(path: path) else {
        throw Realm.Error(.invalidDatabase, "Realm at path '\(path)' has not been initialized.", path: path)
    }
    let store = try engine(path) { try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true)) }
    defer { store.close() }
    let read = try engine(path) { try store.beginRead(.live) }
    defer { read.end() }
    return read.schemaVersion
}

/// An object of a migration: an old object (the file before the migration, read-only) or a
/// new one (writable), whose properties are read and set by name.
///
/// Values read as `Bool`, `Int`, `Float`, `Double`, `String`, `Data`, `Date` or `UUID` (nil
/// for nil), a link as the linked `MigrationObject` of the same realm, and a list as an array
/// of those (`[MigrationObject]` for a list of links). Realm's `List<MigrationObject>` is an
/// array here: set a list property by assigning an array.
///
/// Properties also read and set as members (`old?.name`, as Realm's `DynamicObject`), and
/// with `value(forKey:)` and `setValue(_:forKey:)`.
///
/// Confinement: usable only inside the migration block that gave it.
///
/// ```swift
/// migration.enumerateObjects(ofType: "Dog") { old, new in
///     new?["name"] = (old?["name"] as? String)?.capitalized
/// }
/// ```
@dynamicMemberLookup
public final class MigrationObject {
    let migration: Migration
    /// The name of the object's class.
    public let className: String
    let key: ObjectKey
    /// Whether this is an old object (read-only, with the old schema).
    let isOld: Bool

    init(migration: Migration, className: String, key: ObjectKey, isOld: Bool) {
        self.migration = migration
        self.className = className
        self.key = key
        self.isOld = isOld
    }

    var schema: ObjectSchema {
        let schemas = isOld ? migration.oldSchemas : migration.newSchemas
        return schemas[className] ?? ObjectSchema(className: className, properties: [])
    }

    /// The value of the property named `name`; setting it stores the value (new objects
    /// only). A name the object's schema lacks, or setting an old object, is a programmer
    /// error (a trap with Realm's message, 'Invalid property name …').
    public subscript(name: String) -> Any? {
        get { trapping { () throws(Realm.Error) -> Any? in try _value(forKey: name) } }
        set { trapping { () throws(Realm.Error) in try _setValue(newValue, forKey: name) } }
    }

    /// The property named `member`, as `self[member]`.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// The value of the property named `key`, as `self[key]`.
    public func value(forKey key: String) -> Any? { self[key] }

    /// Sets the property named `key`, as `self[key] = value`.
    public func setValue(_ value: Any?, forKey key: String) { self[key] = value }

    /// The subscript's getter, throwing its rejection.
    @_spi(StrataCheck)
    public func _value(forKey name: String) throws(Realm.Error) -> Any? {
        let schema = self.schema
        guard let column = schema.index(of: name) else { throw invalidName(name) }
        let row = try migration.row(of: self)
        let property = schema.properties[column]
        let stored = column < row.count ? row[column] : Migration.zero(property)
        return decode(stored, property)
    }

    /// The subscript's setter, throwing its rejection.
    @_spi(StrataCheck)
    public func _setValue(_ value: Any?, forKey name: String) throws(Realm.Error) {
        guard let column = schema.index(of: name) else { throw invalidName(name) }
        guard !isOld else { throw Realm.Error.managedObjectsOutsideWrite }  // the old realm is read-only (Spec X21)
        try migration.set(value, column: column, of: self)
    }

    private func invalidName(_ name: String) -> Realm.Error {
        Realm.Error.misuse("Invalid property name '\(name)' for class '\(className)'.")
    }

    private func decode(_ value: StrataStorage.Value, _ property: PropertySchema) -> Any? {
        if case .list(let elements) = value {
            if property.type == .object {
                return elements.compactMap { element -> MigrationObject? in
                    guard case .link(let link) = element else { return nil }
                    return migration.object(at: link, isOld: isOld)
                }
            }
            if property.isOptional { return elements.map { decodeElement($0, property) } }
            return elements.compactMap { decodeElement($0, property) }
        }
        return decodeElement(value, property)
    }

    private func decodeElement(_ value: StrataStorage.Value, _ property: PropertySchema) -> Any? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        case .int(let number): return Int(truncatingIfNeeded: number)
        case .double(let number): return property.type == .float ? Float(number) : number
        case .string(let text): return text
        case .binary(let bytes):
            if property.type == .uuid { return try? UUID._strataDecode(value, realm: nil) }
            return Data(bytes)
        case .timestamp: return try? Date._strataDecode(value, realm: nil)
        case .link(let link): return migration.object(at: link, isOld: isOld)
        case .list: return nil
        }
    }
}
