import CStrataSupport
import Foundation
import StrataStorage

extension Migration {
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
    func restorePrimaryKey(_ name: String, schema: ObjectSchema, column: Int) throws(Realm.Error) {
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
            throw Realm.Error(
                .fail,
                "Primary key property '\(name).\(schema.properties[column].name)' has duplicate "
                    + "values after migration.")
        }
        try engine(path) { try write.dropTable(name) }
        let table = try engine(path) {
            try write.createTable(
                name, primaryKey: schema.enginePrimaryKey, schema: schema.encoded(),
                indexedColumns: schema.engineIndexedColumns)
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
    func encode(_ value: Any?, for property: PropertySchema, in className: String) throws(Realm.Error)
        -> StrataStorage.Value
    {
        guard property.isList else { return try encodeElement(value, for: property, in: className) }
        if property.isMap {
            // Spec V25: a dictionary or Map, stored as `[key0, value0, …]` in key order.
            let path = _PropertyPath(className: className, property: property)
            var flat: [StrataStorage.Value] = []
            for (key, element) in try AnyValue.mapEntries(AnyValue.flatten(value), path) {
                try MapEntries.checkKey(key)
                flat.append(.string(key))
                flat.append(try encodeElement(element, for: property, in: className))
            }
            return .list(MapEntries.normalized(flat))
        }
        // Realm's words for a value that is not a list (RLMValidateValueForProperty).
        let elements = try AnyValue.listElements(
            AnyValue.flatten(value),
            _PropertyPath(
                className: className,
                property: property))
        var encoded: [StrataStorage.Value] = []
        for element in elements { encoded.append(try encodeElement(element, for: property, in: className)) }
        // Spec V24: a set's stored elements are distinct, in set order.
        return .list(property.isSet ? SetOrder.normalized(encoded) : encoded)
    }

    func encodeElement(
        _ value: Any?, for property: PropertySchema,
        in className: String
    ) throws(Realm.Error) -> StrataStorage.Value {
        guard let value = AnyValue.flatten(value), !(value is NSNull) else {
            guard property.isOptional || property.type == .object else {
                throw Realm.Error.misuse(
                    "Invalid null value for non-nullable property '\(className).\(property.name)'.")
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
                try exists(target, known.key), let table = write.table(named: target)
            {
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
            var row = try engine(path, { try write.row(table, key: object.key) })
        else {
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
