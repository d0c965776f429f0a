import StrataStorage

/// How queries compare and sort stored values: numbers by value (ints and doubles mixed),
/// strings and data by their bytes, dates by time, false < true; null sorts first and is
/// equal only to null.
enum StoredOrder {
    /// -1, 0 or 1; nil when the values cannot be ordered (different kinds, or a null).
    static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return sign(x, y)
        case (.double(let x), .double(let y)): return sign(x, y)
        case (.int(let x), .double(let y)): return sign(Double(x), y)
        case (.double(let x), .int(let y)): return sign(x, Double(y))
        case (.string(let x), .string(let y)): return sign(x, y)
        case (.bool(let x), .bool(let y)): return sign(x ? 1 : 0, y ? 1 : 0)
        case (.timestamp(let x), .timestamp(let y)): return sign(x, y)
        case (.binary(let x), .binary(let y)): return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
        default: return nil
        }
    }

    static func equal(_ a: Value, _ b: Value) -> Bool {
        if case .null = a, case .null = b { return true }
        // Strings are equal when their bytes are, as realm-core compares them (Spec W26).
        if case .string(let x) = a, case .string(let y) = b { return x.utf8.elementsEqual(y.utf8) }
        if case .link(let x) = a, case .link(let y) = b { return x == y }
        return compare(a, b) == 0
    }

    /// A value as `distinct` tells values apart, as realm-core compares them: strings by their
    /// UTF-8 bytes (Spec W26), so canonically equivalent spellings stay distinct.
    static func distinctKey(_ value: Value) -> Value {
        if case .string(let text) = value { return .binary(Array(text.utf8)) }
        return value
    }

    /// The sort order: nulls first, then by `compare`, then incomparable kinds by kind.
    static func sortsBefore(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        default: return (compare(a, b) ?? 0) < 0
        }
    }

    private static func sign<C: Comparable>(_ x: C, _ y: C) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
}
