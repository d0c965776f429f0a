/// One JSON object on one line, with keys in the order they were added.
///
/// The tools emit these as machine-readable progress and results; readers parse line by line,
/// so the output never contains a raw newline (they are escaped inside strings).
public struct JSONLine: Sendable, Equatable, CustomStringConvertible {
    /// One key and its value.
    public struct Field: Sendable, Equatable {
        /// The object key.
        public var key: String
        /// The value for the key.
        public var value: JSONValue
    }

    /// The fields in output order.
    public private(set) var fields: [Field] = []

    /// Creates an empty object.
    public init() {}

    /// Creates an object from literal pairs, keeping their order.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        for (key, value) in pairs { add(key, value) }
    }

    /// Sets `key` to `value`; a key added again keeps its first position and takes the new value,
    /// because duplicate keys make a JSON object ambiguous.
    public mutating func add(_ key: String, _ value: some JSONValueConvertible) {
        let value = value.jsonValue
        if let index = fields.firstIndex(where: { $0.key == key }) {
            fields[index].value = value
        } else {
            fields.append(Field(key: key, value: value))
        }
    }

    /// A copy with `key` set to `value`, for building a line in one expression.
    public func adding(_ key: String, _ value: some JSONValueConvertible) -> JSONLine {
        var copy = self
        copy.add(key, value)
        return copy
    }

    /// The compact JSON text, without a trailing newline.
    public func render() -> String {
        var output = "{"
        for (position, field) in fields.enumerated() {
            if position > 0 { output += "," }
            Self.appendString(field.key, to: &output)
            output += ":"
            Self.append(field.value, to: &output)
        }
        output += "}"
        return output
    }

    /// The compact JSON text, without a trailing newline.
    public var description: String { render() }

    /// The JSON text of a single value, e.g. for building arrays by hand.
    public static func render(_ value: JSONValue) -> String {
        var output = ""
        append(value, to: &output)
        return output
    }

    private static func append(_ value: JSONValue, to output: inout String) {
        switch value {
        case .string(let string):
            appendString(string, to: &output)
        case .int(let int):
            output += String(int)
        case .uint64(let uint64):
            output += String(uint64)
        case .double(let double):
            // Swift's shortest round-trip spelling ("0.1", "1e-05", "1e+20") is valid JSON.
            output += double.isFinite ? double.description : "null"
        case .bool(let bool):
            output += bool ? "true" : "false"
        case .null:
            output += "null"
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                append(element, to: &output)
            }
            output += "]"
        }
    }

    private static func appendString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"":
                output += "\\\""
            case "\\":
                output += "\\\\"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                // DEL and the line/paragraph separators are legal raw, but escaping them keeps
                // terminals and JavaScript readers from misreading the line.
                output += unicodeEscape(scalar.value)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
