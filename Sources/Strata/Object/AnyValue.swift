import Foundation
import StrataStorage

/// Stored values as `Any` and back, by property: dynamic access (`obj["name"]`),
/// `create(_:value:)` and `init(value:)` from dictionaries, arrays and other objects, and
/// migrations. Values are checked as Realm checks them (`Realm/RLMUtil.mm`): numbers convert
/// between integer, floating and boolean properties only where no information is lost, and a
/// rejected value is named in Realm's message.
enum AnyValue {
    /// `value` with any level of `Optional` removed; nil for a nil optional.
    static func flatten(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any OptionalProtocol { return optional.flattenedAny }
        return value
    }

    /// `value` flattened, with `NSNull` as nil.
    static func nonNull(_ value: Any?) -> Any? {
        guard let value = flatten(value), !(value is NSNull) else { return nil }
        return value
    }

    /// The Swift value of a stored value of `property`.
    static func decode(_ value: StrataStorage.Value, property: PropertySchema, core: RealmCore) throws(Realm.Error)
        -> Any?
    {
        if property.isMap {
            // Spec V25: `[key0, value0, …]` as a dictionary.
            guard case .list(let flat) = value else { return [String: Any?]() }
            var entries: [String: Any?] = [:]
            for index in 0..<(flat.count / 2) {
                guard case .string(let key) = flat[2 * index] else { continue }
                entries[key] = try decodeScalar(flat[2 * index + 1], property: property, core: core)
            }
            return entries
        }
        if property.isList {
            guard case .list(let elements) = value else { return [Any]() }
            var decoded: [Any?] = []
            for element in elements { decoded.append(try decodeScalar(element, property: property, core: core)) }
            return decoded
        }
        return try decodeScalar(value, property: property, core: core)
    }

    private static func decodeScalar(
        _ value: StrataStorage.Value, property: PropertySchema,
        core: RealmCore
    ) throws(Realm.Error) -> Any? {
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

    /// A property value as dynamic access returns it: numbers and booleans as `NSNumber`, as
    /// Realm Swift returns them (so `obj["int8Col"] as? Int` and `as? Int8` both work), other
    /// values as they are.
    static func bridged(_ value: Any?) -> Any? {
        guard let value = flatten(value) else { return nil }
        switch value {
        case let number as Bool: return NSNumber(value: number)
        case let number as Int: return NSNumber(value: number)
        case let number as Int8: return NSNumber(value: number)
        case let number as Int16: return NSNumber(value: number)
        case let number as Int32: return NSNumber(value: number)
        case let number as Int64: return NSNumber(value: number)
        case let number as Float: return NSNumber(value: number)
        case let number as Double: return NSNumber(value: number)
        default: return value
        }
    }

    /// The stored form of `any` for `property` of class `className`. Links add or copy objects
    /// into `core`: `create` copies every object it is given (Spec W14); a property set on a
    /// managed object (`addsObjects`) adds an unmanaged object itself, as assigning it would.
    static func encode(
        _ any: Any?, property: PropertySchema, className: String, core: RealmCore,
        policy: Realm.UpdatePolicy, addsObjects: Bool = false
    ) throws(Realm.Error) -> StrataStorage.Value {
        let path = _PropertyPath(className: className, property: property)
        if property.isMap {
            var flat: [StrataStorage.Value] = []
            for (key, element) in try mapEntries(any, path) {
                try MapEntries.checkKey(key)
                flat.append(.string(key))
                if property.isLink {
                    flat.append(try encodeLink(element, path, core: core, policy: policy, addsObjects: addsObjects))
                } else {
                    flat.append(try encodeScalar(element, path))
                }
            }
            return .list(MapEntries.normalized(flat))
        }
        if property.isList {
            let elements = try listElements(any, path)
            var encoded: [StrataStorage.Value] = []
            encoded.reserveCapacity(elements.count)
            for element in elements {
                if property.isLink {
                    encoded.append(try encodeLink(element, path, core: core, policy: policy, addsObjects: addsObjects))
                } else {
                    encoded.append(try encodeScalar(element, path))
                }
            }
            // Spec V24: a set's stored elements are distinct, in set order.
            return .list(property.isSet ? SetOrder.normalized(encoded) : encoded)
        }
        if property.isLink { return try encodeLink(any, path, core: core, policy: policy, addsObjects: addsObjects) }
        return try encodeScalar(any, path)
    }

    /// The elements a value for a list property gives: nil and NSNull give none; Lists,
    /// Results and arrays their elements; anything else is not enumerable.
    static func listElements(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> [Any?] {
        guard let any = nonNull(any) else { return [] }
        if let list = any as? any AnyListConvertible { return try list.anyElements() }
        if let array = any as? [Any?] { return array }
        if let array = any as? [Any] { return array.map { Optional($0) } }
        if let set = any as? Set<AnyHashable> { return set.map { Optional($0.base) } }
        let property = path.property
        throw Realm.Error.misuse(
            "Invalid value (\(any)) for '\(typeName(property))' \(property.isSet ? "set" : "array") "
                + "property '\(path.className).\(property.name)': value is not enumerable.")
    }

    /// The entries a value for a map property gives: nil and NSNull give none; Maps and
    /// dictionaries with string keys their entries; anything else is refused.
    static func mapEntries(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> [(String, Any?)] {
        guard let any = nonNull(any) else { return [] }
        if let map = any as? any AnyMapConvertible { return try map.anyEntries() }
        if let dictionary = any as? [String: Any?] { return dictionary.map { ($0.key, $0.value) } }
        if let dictionary = any as? [String: Any] { return dictionary.map { ($0.key, Optional($0.value)) } }
        let property = path.property
        throw Realm.Error.misuse(
            "Invalid value (\(any)) for '\(typeName(property))' dictionary property "
                + "'\(path.className).\(property.name)': value is not a dictionary.")
    }

    private static func encodeLink(
        _ any: Any?, _ path: _PropertyPath, core: RealmCore, policy: Realm.UpdatePolicy,
        addsObjects: Bool
    ) throws(Realm.Error) -> StrataStorage.Value {
        let property = path.property
        guard let any = nonNull(any) else {
            // A list or set holds no null link; a map's value may be null.
            guard !property.isList || property.isMap else { throw typeError(any, path) }
            return .null
        }
        guard let className = property.objectClassName, let info = core.knownClass(named: className) else {
            throw Realm.Error(.fail, "'\(property.name)' links to a class this realm does not know")
        }
        if addsObjects, let object = any as? Object {
            guard type(of: object).className() == info.className else { throw typeError(object, path) }
            return .link(try core.link(to: object))
        }
        return .link(try core.linkForCreate(any, info: info, policy: policy))
    }

    /// The stored form of a value for a property that is not a link (or an element of a
    /// list of such values), checked as Realm checks it.
    static func encodeScalar(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> StrataStorage.Value {
        let property = path.property
        guard let value = nonNull(any) else {
            guard property.isOptional else { throw typeError(flatten(any), path) }
            return .null
        }
        switch property.type {
        case .int:
            switch number(value) {
            case .integer(let number): return .int(number)
            case .bool(let flag): return .int(flag ? 1 : 0)
            default: throw typeError(value, path)
            }
        case .bool:
            switch number(value) {
            case .bool(let flag): return .bool(flag)
            case .integer(let number) where number == 0 || number == 1: return .bool(number == 1)
            default: throw typeError(value, path)
            }
        case .float:
            switch number(value) {
            case .integer(let number): return .double(Double(Float(number)))
            case .float(let number): return .double(Double(number))
            case .double(let number) where number.isNaN || abs(number) <= Double(Float.greatestFiniteMagnitude):
                return .double(Double(Float(number)))
            default: throw typeError(value, path)
            }
        case .double:
            switch number(value) {
            case .integer(let number): return .double(Double(number))
            case .float(let number): return .double(Double(number))
            case .double(let number): return .double(number)
            default: throw typeError(value, path)
            }
        case .string:
            guard let text = value as? String else { throw typeError(value, path) }
            return .string(text)
        case .data:
            guard let data = value as? Data else { throw typeError(value, path) }
            return .binary([UInt8](data))
        case .date:
            guard let date = value as? Date else { throw typeError(value, path) }
            return try date._strataEncode(realm: nil)
        case .uuid:
            if let uuid = value as? UUID { return try uuid._strataEncode(realm: nil) }
            if let text = value as? String, let uuid = UUID(uuidString: text) {
                return try uuid._strataEncode(realm: nil)
            }
            throw typeError(value, path)
        case .object:
            throw Realm.Error(.fail, "'\(path.className).\(property.name)' is a link, not a value")
        }
    }

    /// A number, as Realm tells its kinds apart (`numberIsInteger`, `numberIsBool`, ...).
    enum Number {
        case bool(Bool)
        case integer(Int64)
        case float(Float)
        case double(Double)
    }

    /// `value` as a number; nil when it is none. An `NSNumber` is classed by its stored type.
    static func number(_ value: Any) -> Number? {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "c"), UInt8(ascii: "B"):
                // A char: a boolean when 0 or 1 (as Realm's `numberIsBool`), else an Int8.
                let value = number.int64Value
                return value == 0 || value == 1 ? .bool(value == 1) : .integer(value)
            case UInt8(ascii: "f"): return .float(number.floatValue)
            case UInt8(ascii: "d"): return .double(number.doubleValue)
            default: return .integer(number.int64Value)
            }
        }
        switch value {
        case let number as Bool: return .bool(number)
        case let number as Int: return .integer(Int64(number))
        case let number as Int8: return .integer(Int64(number))
        case let number as Int16: return .integer(Int64(number))
        case let number as Int32: return .integer(Int64(number))
        case let number as Int64: return .integer(number)
        case let number as UInt8: return .integer(Int64(number))
        case let number as UInt16: return .integer(Int64(number))
        case let number as UInt32: return .integer(Int64(number))
        case let number as UInt: return Int64(exactly: number).map { .integer($0) }
        case let number as UInt64: return Int64(exactly: number).map { .integer($0) }
        case let number as Float: return .float(number)
        case let number as Double: return .double(number)
        default: return nil
        }
    }

    /// The type a property's values have, as Realm's messages name it: `int`, `string?`,
    /// `Dog?`, ...
    static func typeName(_ property: PropertySchema) -> String {
        (property.objectClassName ?? property.type.description) + (property.isOptional ? "?" : "")
    }

    /// Realm's message for a value of the wrong type (`RLMThrowTypeError`).
    static func typeError(_ value: Any?, _ path: _PropertyPath) -> Realm.Error {
        let property = path.property
        let shown: String
        let typeOfValue: String
        if let value {
            shown = value is NSNull ? "<null>" : "\(value)"
            typeOfValue = "\(type(of: value))"
        } else {
            (shown, typeOfValue) = ("(null)", "(null)")
        }
        return Realm.Error.misuse(
            "Invalid value '\(shown)' of type '\(typeOfValue)' for '\(typeName(property))'"
                + "\(property.isList ? (property.isSet ? " set" : " array") : "") property '\(path.className).\(property.name)'."
        )
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

/// Maps as key-value pairs (for `create(_:value:)`).
protocol AnyMapConvertible {
    func anyEntries() throws(Realm.Error) -> [(String, Any?)]
}

/// Lists and Results as `[Any?]` (for `create(_:value:)` and dynamic access).
protocol AnyListConvertible {
    func anyElements() throws(Realm.Error) -> [Any?]
}
