import Foundation
import StrataStorage

/// Stored values as `Any` and back, by property: dynamic access (`obj["name"]`),
/// `create(_:value:)` from dictionaries, arrays and other objects, and migrations.
enum AnyValue {
    /// `value` with any level of `Optional` removed; nil for a nil optional.
    static func flatten(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any OptionalProtocol { return optional.flattenedAny }
        return value
    }

    /// The Swift value of a stored value of `property`.
    static func decode(_ value: StrataStorage.Value, property: PropertySchema, core: RealmCore) throws(Realm.Error) -> Any? {
        if property.isList {
            guard case .list(let elements) = value else { return [Any]() }
            var decoded: [Any?] = []
            for element in elements { decoded.append(try decodeScalar(element, property: property, core: core)) }
            return decoded
        }
        return try decodeScalar(value, property: property, core: core)
    }

    private static func decodeScalar(_ value: StrataStorage.Value, property: PropertySchema,
                                     core: RealmCore) throws(Realm.Error) -> Any? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        case .int(let number): return Int(truncatingIfNeeded: number)
        case .double(let number): return property.type == .float ? Float(number) : number
        case .string(let text): return text
        case .binary(let bytes):
            if property.type == .uuid { return try UUID._strataDecode(value, realm: nil) }
            return Data(bytes)
        case .timestamp: return try Date._strataDecode(value, realm: nil)
        case .link(let link): return try core.object(at: link)
        case .list: throw Realm.Error(.fail, "a list inside a list property '\(property.name)'")
        }
    }

    /// The stored form of `any` for `property`; links add or copy objects into `core`.
    static func encode(_ any: Any?, property: PropertySchema, core: RealmCore,
                       policy: Realm.UpdatePolicy) throws(Realm.Error) -> StrataStorage.Value {
        if property.isList {
            guard let any = flatten(any) else { return .list([]) }
            let elements: [Any?]
            if let list = any as? any AnyListConvertible {
                elements = try list.anyElements()
            } else if let array = any as? [Any?] {
                elements = array
            } else if let array = any as? [Any] {
                elements = array.map { Optional($0) }
            } else {
                throw Realm.Error.wrongValueType(property: property.name, type: "List")
            }
            var encoded: [StrataStorage.Value] = []
            for element in elements {
                encoded.append(try encodeScalar(element, property: property, core: core, policy: policy))
            }
            return .list(encoded)
        }
        return try encodeScalar(any, property: property, core: core, policy: policy)
    }

    private static func encodeScalar(_ any: Any?, property: PropertySchema, core: RealmCore,
                                     policy: Realm.UpdatePolicy) throws(Realm.Error) -> StrataStorage.Value {
        guard let any = flatten(any), !(any is NSNull) else {
            guard property.isOptional || property.type == .object else {
                throw Realm.Error.misuse("Invalid null value for non-nullable property '\(property.name)'.")
            }
            return .null
        }
        var wrong: Realm.Error { Realm.Error.wrongValueType(property: property.name, type: property.type.description) }
        switch property.type {
        case .int:
            if let value = any as? any BinaryInteger { return .int(Int64(truncatingIfNeeded: value)) }
            throw wrong
        case .bool:
            guard let value = any as? Bool else { throw wrong }
            return .bool(value)
        case .double, .float:
            if let value = any as? Double { return .double(value) }
            if let value = any as? Float { return .double(Double(value)) }
            if let value = any as? any BinaryInteger { return .double(Double(Int64(truncatingIfNeeded: value))) }
            throw wrong
        case .string:
            guard let value = any as? String else { throw wrong }
            return .string(value)
        case .data:
            guard let value = any as? Data else { throw wrong }
            return .binary([UInt8](value))
        case .date:
            guard let value = any as? Date else { throw wrong }
            return try value._strataEncode(realm: nil)
        case .uuid:
            guard let value = any as? UUID else { throw wrong }
            return try value._strataEncode(realm: nil)
        case .object:
            guard let className = property.objectClassName, let info = core.knownClass(named: className) else {
                throw Realm.Error(.fail, "'\(property.name)' links to a class this realm does not know")
            }
            return .link(try core.linkForCreate(any, info: info, policy: policy))
        }
    }
}

/// Lets `AnyValue.flatten` see through optionals held as `Any`.
protocol OptionalProtocol {
    var flattenedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    var flattenedAny: Any? {
        switch self {
        case .none: return nil
        case .some(let wrapped): return AnyValue.flatten(wrapped)
        }
    }
}

/// Lists and Results as `[Any?]` (for `create(_:value:)` and dynamic access).
protocol AnyListConvertible {
    func anyElements() throws(Realm.Error) -> [Any?]
}
