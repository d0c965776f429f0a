import CStrataSupport
import Foundation
import StrataStorage

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
    package func _value(forKey name: String) throws(Realm.Error) -> Any? {
        let schema = self.schema
        guard let column = schema.index(of: name) else { throw invalidName(name) }
        let row = try migration.row(of: self)
        let property = schema.properties[column]
        let stored = column < row.count ? row[column] : Migration.zero(property)
        return decode(stored, property)
    }

    /// The subscript's setter, throwing its rejection.
    package func _setValue(_ value: Any?, forKey name: String) throws(Realm.Error) {
        guard let column = schema.index(of: name) else { throw invalidName(name) }
        guard !isOld else { throw Realm.Error.managedObjectsOutsideWrite }  // the old realm is read-only (Spec X21)
        try migration.set(value, column: column, of: self)
    }

    private func invalidName(_ name: String) -> Realm.Error {
        Realm.Error.misuse("Invalid property name '\(name)' for class '\(className)'.")
    }

    private func decode(_ value: StrataStorage.Value, _ property: PropertySchema) -> Any? {
        if property.isMap, case .list(let flat) = value {
            // Spec V25: `[key0, value0, …]` as a dictionary (a link as the migration's object).
            var entries: [String: Any?] = [:]
            for index in 0..<(flat.count / 2) {
                guard case .string(let key) = flat[2 * index] else { continue }
                let stored = flat[2 * index + 1]
                if case .link(let link) = stored {
                    entries[key] = .some(migration.object(at: link, isOld: isOld))
                } else {
                    entries[key] = .some(decodeElement(stored, property))
                }
            }
            return entries
        }
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
