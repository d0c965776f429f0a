import CStrataSupport
import Foundation
import StrataStorage

extension Migration {
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
                    block(
                        MigrationObject(migration: self, className: typeName, key: key, isOld: true),
                        MigrationObject(migration: self, className: typeName, key: key, isOld: false))
                }
            case (nil, nil):
                return
            }
        } catch {
            failure = failure ?? error
        }
    }

    func keys(of table: TableInfo, in view: ReadTransaction) throws(Realm.Error) -> [ObjectKey] {
        var keys: [ObjectKey] = []
        try engine(path) {
            try view.forEachRow(table) { key, _ in
                keys.append(key)
                return true
            }
        }
        return keys
    }

    func keys(of table: TableInfo, in view: WriteTransaction) throws(Realm.Error) -> [ObjectKey] {
        var keys: [ObjectKey] = []
        try engine(path) {
            try view.forEachRow(table) { key, _ in
                keys.append(key)
                return true
            }
        }
        return keys
    }

    func exists(_ className: String, _ key: ObjectKey) throws(Realm.Error) -> Bool {
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
    package func _create(_ typeName: String, value: Any = [Any]()) throws(Realm.Error) -> MigrationObject {
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
    package func _delete(_ object: MigrationObject) throws(Realm.Error) {
        guard object.migration === self, !object.isOld else { throw Realm.Error.deleteFromOtherRealm }
        guard let table = write.table(named: object.className),
            try engine(path, { try write.delete(table.id, key: object.key) })
        else {
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

    func rename(_ typeName: String, from oldName: String, to newName: String) throws(Realm.Error) {
        guard write.table(named: typeName) != nil, let oldSchema = oldSchemas[typeName] else {
            throw Realm.Error(.fail, "Cannot rename properties for type '\(typeName)' because it does not exist.")
        }
        guard let target = newSchemas[typeName] else {
            throw Realm.Error(
                .fail,
                "Cannot rename properties for type '\(typeName)' because it has been removed from the Realm.")
        }
        guard target.index(of: oldName) == nil else {
            throw Realm.Error(
                .fail,
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because the "
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
        guard from.type == to.type, from.objectClassName == to.objectClassName, from.isList == to.isList,
            from.isSet == to.isSet, from.isMap == to.isMap
        else {
            throw Realm.Error(
                .fail,
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it "
                    + "would change from type '\(from.realmTypeName)' to '\(to.realmTypeName)'.")
        }
        guard !from.isOptional || to.isOptional else {
            throw Realm.Error(
                .fail,
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it "
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
}
