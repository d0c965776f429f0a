/// One value in a `JSONLine`: a scalar or an array of values.
public indirect enum JSONValue: Sendable, Equatable {
    /// A string, escaped on output.
    case string(String)
    /// A signed integer, written exactly.
    case int(Int)
    /// An unsigned 64-bit integer, written exactly (seeds, checksums, page numbers).
    case uint64(UInt64)
    /// A floating-point number; NaN and infinities are written as `null` because JSON has none.
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An array of values, possibly nested.
    case array([JSONValue])
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates a string value from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates an integer value from a literal.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates a floating-point value from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates a Boolean value from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates an array value from a literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates `null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

/// A Swift value that has a natural `JSONValue`, so `JSONLine.add` accepts it directly.
public protocol JSONValueConvertible {
    /// The value as JSON.
    var jsonValue: JSONValue { get }
}

extension JSONValue: JSONValueConvertible {
    /// The value itself.
    public var jsonValue: JSONValue { self }
}

extension String: JSONValueConvertible {
    /// The string as a JSON string.
    public var jsonValue: JSONValue { .string(self) }
}

extension Int: JSONValueConvertible {
    /// The integer as a JSON number.
    public var jsonValue: JSONValue { .int(self) }
}

extension UInt64: JSONValueConvertible {
    /// The integer as a JSON number.
    public var jsonValue: JSONValue { .uint64(self) }
}

extension Double: JSONValueConvertible {
    /// The number as a JSON number, or `null` when not finite.
    public var jsonValue: JSONValue { .double(self) }
}

extension Bool: JSONValueConvertible {
    /// The Boolean as JSON `true` or `false`.
    public var jsonValue: JSONValue { .bool(self) }
}

extension Array: JSONValueConvertible where Element: JSONValueConvertible {
    /// The elements as a JSON array.
    public var jsonValue: JSONValue { .array(map(\.jsonValue)) }
}

extension Optional: JSONValueConvertible where Wrapped: JSONValueConvertible {
    /// The wrapped value, or `null` when absent.
    public var jsonValue: JSONValue { self?.jsonValue ?? .null }
}
