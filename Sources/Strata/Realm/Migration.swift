import Foundation
import StrataStorage

/// What a migration block works with: the objects of each class before and after the schema
/// change. Runs inside the write that changes the schema, on the opening thread.
///
/// ```swift
/// config.schemaVersion = 2
/// config.migrationBlock = { migration, oldVersion in
///     migration.enumerateObjects(ofType: "Person") { old, new in
///         new?["fullName"] = "\(old?["first"] ?? "") \(old?["last"] ?? "")"
///     }
/// }
/// ```
public final class Migration {
    let write: WriteTransaction
    let path: String
    /// The old rows and schema of each rebuilt class, by class name.
    private var oldData: [String: (schema: ObjectSchema, rows: [ObjectKey: [StrataStorage.Value]])] = [:]
    var knownClasses: [ClassInfo] = []
    private var failure: Realm.Error?

    init(write: WriteTransaction, path: String) {
        self.write = write
        self.path = path
    }

    /// Rebuilds the table of `info` in the new layout: properties kept by name keep their
    /// values, added ones take their defaults, removed ones go. Object keys are kept, and links
    /// from other tables are pointed at the new table.
    func rebuild(_ info: ClassInfo) throws(Realm.Error) {
        guard let old = write.table(named: info.className),
              let oldSchema = ObjectSchema.decode(old.schema, className: info.className) else { return }
        var rows: [(ObjectKey, [StrataStorage.Value])] = []
        try engine(path) {
            try write.forEachRow(old) { key, row in
                rows.append((key, try row.values()))
                return true
            }
        }
        oldData[info.className] = (oldSchema, Dictionary(rows, uniquingKeysWith: { first, _ in first }))
        try engine(path) { try write.dropTable(info.className) }
        let table = try engine(path) {
            try write.createTable(info.className, primaryKey: info.schema.enginePrimaryKey, schema: info.schema.encoded())
        }
        let defaults = info.type.init().unmanagedValues(info)
        for (key, oldRow) in rows {
            var row: [StrataStorage.Value] = []
            for (column, property) in info.schema.properties.enumerated() {
                if let oldColumn = oldSchema.index(of: property.name), oldColumn < oldRow.count,
                   oldSchema.properties[oldColumn].type == property.type,
                   oldSchema.properties[oldColumn].isList == property.isList {
                    row.append(oldRow[oldColumn])
                } else {
                    row.append(Self.encodeDefault(defaults[column], property))
                }
            }
            try engine(path) { try write.insert(table.id, key: key, values: row) }
        }
        try repointLinks(from: old.id, to: table.id, className: info.className)
    }

    private static func encodeDefault(_ value: Any?, _ property: PropertySchema) -> StrataStorage.Value {
        property.isList ? .list([]) : MigrationObject.stored(value, property) ?? .null
    }

    private func repointLinks(from oldID: TableID, to newID: TableID, className: String) throws(Realm.Error) {
        for table in write.tables() {
            guard let schema = ObjectSchema.decode(table.schema, className: table.name) else { continue }
            let columns = schema.properties.indices.filter { schema.properties[$0].objectClassName == className }
            guard !columns.isEmpty else { continue }
            var updates: [(ObjectKey, [StrataStorage.Value])] = []
            try engine(path) {
                try write.forEachRow(table) { key, row in
                    var values = try row.values()
                    var changed = false
                    func repoint(_ value: StrataStorage.Value) -> StrataStorage.Value {
                        if case .link(let link) = value, link.table == oldID {
                            changed = true
                            return .link(Link(table: newID, key: link.key))
                        }
                        return value
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

    /// Calls `block` for every object of `typeName`: the old object (as stored before the
    /// migration; nil for classes that are new) and the new one, whose properties can be set.
    public func enumerateObjects(ofType typeName: String,
                                 _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        guard failure == nil, let table = write.table(named: typeName),
              let schema = ObjectSchema.decode(table.schema, className: typeName) else { return }
        var keys: [ObjectKey] = []
        do {
            try write.forEachRow(table) { key, _ in
                keys.append(key)
                return true
            }
        } catch {
            failure = Realm.Error(.fail, "\(error)")
            return
        }
        let old = oldData[typeName]
        for key in keys {
            let oldObject = old.flatMap { data in
                data.rows[key].map { MigrationObject(schema: data.schema, values: $0, migration: nil, table: nil, key: key) }
            }
            guard let values = try? write.row(table, key: key) else { continue }
            let newObject = MigrationObject(schema: schema, values: values, migration: self, table: table, key: key)
            block(oldObject, newObject)
        }
    }

    /// Removes every object of `typeName`. Returns whether the class had a table.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard write.table(named: typeName) != nil else { return false }
        do {
            try write.dropTable(typeName)
        } catch {
            failure = Realm.Error(.fail, "\(error)")
        }
        return true
    }

    func store(_ values: [StrataStorage.Value], table: TableInfo, key: ObjectKey) {
        do {
            try write.update(table.id, key: key, values: values)
        } catch {
            failure = Realm.Error(.fail, "\(error)")
        }
    }

    /// Reports the first failure of the block's calls.
    func finish() throws(Realm.Error) {
        if let failure { throw failure }
    }
}

/// An object during a migration: its properties by name. Old objects are read-only.
public final class MigrationObject {
    let schema: ObjectSchema
    private var values: [StrataStorage.Value]
    private let migration: Migration?
    private let table: TableInfo?
    private let key: ObjectKey

    init(schema: ObjectSchema, values: [StrataStorage.Value], migration: Migration?, table: TableInfo?, key: ObjectKey) {
        self.schema = schema
        self.values = values
        self.migration = migration
        self.table = table
        self.key = key
    }

    /// The value of the property named `name` (nil for nil, or a property the schema lacks).
    /// Setting it stores the value (new objects only).
    public subscript(name: String) -> Any? {
        get {
            guard let column = schema.index(of: name), column < values.count else { return nil }
            return MigrationObject.plain(values[column], schema.properties[column])
        }
        set {
            guard let migration, let table, let column = schema.index(of: name) else {
                preconditionFailure("Cannot set '\(name)' of an old object or a property '\(schema.className)' lacks")
            }
            guard let encoded = MigrationObject.stored(newValue, schema.properties[column]) else {
                preconditionFailure("Invalid value for property '\(schema.className).\(name)'")
            }
            while values.count <= column { values.append(.null) }
            values[column] = encoded
            migration.store(values, table: table, key: key)
        }
    }

    private static func plain(_ value: StrataStorage.Value, _ property: PropertySchema) -> Any? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        case .int(let number): return Int(truncatingIfNeeded: number)
        case .double(let number): return property.type == .float ? Float(number) : number
        case .string(let text): return text
        case .binary: return (try? UUID._strataDecode(value, realm: nil)).map { $0 as Any } ?? (try? Data._strataDecode(value, realm: nil))
        case .timestamp: return try? Date._strataDecode(value, realm: nil)
        case .link(let link): return link.key.rawValue
        case .list(let elements): return elements.map { plain($0, property) }
        }
    }

    /// The stored form of a plain Swift value for `property`; nil when it does not fit.
    static func stored(_ value: Any?, _ property: PropertySchema) -> StrataStorage.Value? {
        guard let value = AnyValue.flatten(value) else { return .null }
        switch value {
        case let number as any BinaryInteger:
            return property.type == .double || property.type == .float ? .double(Double(Int64(truncatingIfNeeded: number)))
                : .int(Int64(truncatingIfNeeded: number))
        case let flag as Bool: return .bool(flag)
        case let number as Double: return .double(number)
        case let number as Float: return .double(Double(number))
        case let text as String: return .string(text)
        case let persistable as any _RealmValue: return try? persistable._strataEncode(realm: nil)
        default: return nil
        }
    }
}
