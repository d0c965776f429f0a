import Foundation

/// `Object.description`, as Realm describes objects (`RLMObjectBase descriptionWithMaxDepth:`):
///
///     Dog {
///     	name = Rex;
///     	owner = Person {
///     		name = Ann;
///     	};
///     	tags = List<string> <0x600000c04000> (
///     		[0] good,
///     		[1] old
///     	);
///     }
///
/// Linked objects and lists are described to a depth of 5 ("<Maximum depth exceeded>" below),
/// at most 100 elements of a list. Booleans read 0 and 1, dates in UTC, data as its first 24
/// bytes in hex with its length, nil as "(null)".
enum ObjectDescription {
    static let maximumDepth = 5
    private static let maximumElements = 100
    private static let maximumDataBytes = 24

    static func describe(_ object: Object, depth: Int) -> String {
        if depth == 0 { return "<Maximum depth exceeded>" }
        if let accessor = object._accessor {
            do {
                if try accessor.isInvalidated() { return "[invalid object]" }
            } catch  where error.code == .invalidDatabase {
                return "<\(error.message)>"  // Spec D17: damage is not an invalid object
            } catch {
                return "[invalid object]"
            }
        }
        let info = ClassInfo.of(type(of: object))
        var text = "\(info.className) {\n"
        for property in info.schema.properties {
            let shown: String
            do {
                shown = describe(try object._value(forKey: property.name), property: property, depth: depth)
            } catch {
                shown = "<\(error.message)>"
            }
            text += "\t\(property.name) = \(indented(shown));\n"
        }
        return text + "}"
    }

    private static func describe(_ value: Any?, property: PropertySchema, depth: Int) -> String {
        guard let value = AnyValue.flatten(value) else { return "(null)" }
        if property.isMap, let map = value as? any AnyMapConvertible {
            if depth - 1 == 0 { return "<Maximum depth exceeded>" }
            return describeMap(
                keyType: "string", valueType: property.objectClassName ?? property.type.description,
                identity: map as AnyObject, entries: (try? map.anyEntries()) ?? [], type: property.type,
                depth: depth - 1)
        }
        if property.isList, let list = value as? any AnyListConvertible {
            return describeList(list, property: property, depth: depth - 1)
        }
        return describeElement(value, property: property, depth: depth - 1)
    }

    private static func describeList(_ list: any AnyListConvertible, property: PropertySchema, depth: Int) -> String {
        if depth == 0 { return "<Maximum depth exceeded>" }
        return describeCollection(
            property.isSet ? "MutableSet" : "List", elementType: property.objectClassName ?? property.type.description,
            identity: list as AnyObject, elements: (try? list.anyElements()) ?? [],
            type: property.type, depth: depth)
    }

    /// A collection as Realm describes it (`RLMDescriptionWithMaxDepth`): its kind and element
    /// type, its address, then each element (objects as `describe` prints them), one a line,
    /// indented by a tab; at most 100 elements.
    static func describeCollection(
        _ kind: String, elementType: String, identity: AnyObject, elements: [Any?],
        type: PropertyType, depth: Int = maximumDepth
    ) -> String {
        let address = String(UInt(bitPattern: ObjectIdentifier(identity)), radix: 16)
        var text = "\(kind)<\(elementType)> <0x\(address)> (\n"
        for (index, element) in elements.prefix(maximumElements).enumerated() {
            let shown = AnyValue.flatten(element).map { describeElement($0, type: type, depth: depth - 1) }
            text += "\t[\(index)] \(indented(shown ?? "(null)")),\n"
        }
        if !elements.isEmpty { text.removeLast(2) }
        if elements.count > maximumElements {
            text += "\n\t... \(elements.count - maximumElements) objects skipped."
        }
        return text + "\n)"
    }

    /// A map as RealmSwift describes it: `Map<string, T> <0x…> (` then `[key]: value` a line.
    static func describeMap(
        keyType: String, valueType: String, identity: AnyObject, entries: [(String, Any?)],
        type: PropertyType, depth: Int = maximumDepth
    ) -> String {
        let address = String(UInt(bitPattern: ObjectIdentifier(identity)), radix: 16)
        var text = "Map<\(keyType), \(valueType)> <0x\(address)> (\n"
        for (key, value) in entries.prefix(maximumElements) {
            let shown = AnyValue.flatten(value).map { describeElement($0, type: type, depth: depth - 1) }
            text += "\t[\(key)]: \(indented(shown ?? "<null>")),\n"
        }
        if !entries.isEmpty { text.removeLast(2) }
        if entries.count > maximumElements {
            text += "\n\t... \(entries.count - maximumElements) objects skipped."
        }
        return text + "\n)"
    }

    /// One value of `property` (or an element of its list).
    private static func describeElement(_ value: Any, property: PropertySchema, depth: Int) -> String {
        describeElement(value, type: property.type, depth: depth)
    }

    /// One value of a property of `type`.
    private static func describeElement(_ value: Any, type: PropertyType, depth: Int) -> String {
        if let object = value as? Object { return describe(object, depth: depth) }
        switch type {
        case .bool:
            if case .bool(let flag)? = AnyValue.number(value) { return flag ? "1" : "0" }
        case .float:
            if let number = value as? Float { return "\(number)" }
        case .double:
            if let number = value as? Double { return "\(number)" }
        case .data:
            if let data = value as? Data {
                let hex = data.prefix(maximumDataBytes).map { byte in
                    (byte < 16 ? "0" : "") + String(byte, radix: 16)
                }.joined()
                return "<\(hex) — \(data.count) total bytes>"
            }
        case .date:
            if let date = value as? Date { return dateText(date) }
        case .uuid:
            if let uuid = value as? UUID { return uuid.uuidString }
        case .int, .string, .object:
            break
        }
        return "\(value)"
    }

    private static func dateText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter.string(from: date)
    }

    private static func indented(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: "\n\t") }
}
