/// A stored value: what a column of an object holds.
public enum Value: Sendable, Hashable, CustomStringConvertible {
    /// No value (an optional property that is nil).
    case null
    /// A boolean.
    case bool(Bool)
    /// A 64-bit signed integer (every integer width of the API).
    case int(Int64)
    /// A 64-bit float (the API's `Float` is widened to it).
    case double(Double)
    /// A UTF-8 string; long ones go to overflow pages.
    case string(String)
    /// Bytes (the API's `Data` and `UUID`); long ones go to overflow pages.
    case binary([UInt8])
    /// A point in time (the API's `Date`).
    case timestamp(Timestamp)
    /// A link to an object of a table.
    case link(Link)
    /// A list of values (lists do not nest: an element that is a list is rejected on write).
    case list([Value])

    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return "\"\(value)\""
        case .binary(let bytes): return "<\(bytes.count) bytes>"
        case .timestamp(let value): return value.description
        case .link(let link): return "->\(link.table.rawValue):\(link.key.rawValue)"
        case .list(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// A point in time as Realm stores it: seconds and nanoseconds since 1970-01-01 UTC.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01 UTC; negative before it.
    public var seconds: Int64
    /// 0 ... 999_999_999, same sign as `seconds` when both are non-zero.
    public var nanoseconds: Int32

    /// The time `seconds` plus `nanoseconds` after 1970-01-01 UTC (both negative before it).
    public init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }

    /// `@seconds.nanoseconds` with nine fraction digits, e.g. `@1.050000000`, `@-0.500000000`.
    public var description: String {
        let fraction = String(nanoseconds.magnitude)
        let padded = String(repeating: "0", count: max(0, 9 - fraction.count)) + fraction
        let sign = seconds < 0 || nanoseconds < 0 ? "-" : ""
        return "@\(sign)\(seconds.magnitude).\(padded)"
    }
}

/// The target of a link: an object of a table.
public struct Link: Sendable, Hashable {
    /// The table of the linked object.
    public var table: TableID
    /// The linked object's key in that table.
    public var key: ObjectKey
    /// A link to the object under `key` in `table`.
    public init(table: TableID, key: ObjectKey) {
        self.table = table
        self.key = key
    }
}
