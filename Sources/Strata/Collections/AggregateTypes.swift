import Foundation
import StrataStorage

// The types aggregates answer in (RealmSwift's `_HasPersistedType`, `MinMaxType` and
// `AddableType`): `min(ofProperty:)` and `max` take a property whose type is a MinMaxType,
// `sum` and `average` one whose type is an AddableType, and the caller names the type of the
// answer (`as Int?`, `as Double?`, `as NSNumber?`).

/// A type an aggregate can answer in: a stored type (Int, Double, Date, ...), its optional, or
/// `NSNumber`. `PersistedType` is the stored type whose kind decides which aggregates apply.
public protocol _HasPersistedType {
    associatedtype PersistedType
    /// An aggregate's answer as this type; nil when it cannot be one (a date as an Int, an
    /// average beyond the integer's range).
    static func _strataAggregated(_ value: _AggregateValue) -> Self?
}

/// Types of properties `min` and `max` apply to: integers, floats, doubles, dates.
public protocol MinMaxType {}
/// Types of properties `sum` and `average` apply to: integers, floats, doubles.
public protocol AddableType {}

/// What an aggregate computed, before it is given the caller's type. Not API.
public enum _AggregateValue: Sendable, Hashable, CustomStringConvertible {
    case int(Int64)
    case float(Float)
    case double(Double)
    case date(Date)

    var asDouble: Double? {
        switch self {
        case .int(let number): return Double(number)
        case .float(let number): return Double(number)
        case .double(let number): return number
        case .date: return nil
        }
    }

    /// The integer `NSNumber.int64Value` gives (a fraction truncated toward zero); nil for a
    /// date, a non-finite double or one beyond Int64.
    var truncatedInt64: Int64? {
        switch self {
        case .int(let number): return number
        case .date: return nil
        case .float, .double:
            guard let number = asDouble, number.isFinite else { return nil }
            return Int64(exactly: number.rounded(.towardZero))
        }
    }

    /// Printed as the NSNumber or NSDate Realm would make of it, for "Could not convert".
    public var description: String {
        switch self {
        case .int(let number): return "\(number)"
        case .float(let number): return "\(number)"
        case .double(let number): return "\(number)"
        case .date(let date): return "\(date)"
        }
    }
}

extension BinaryInteger where Self: FixedWidthInteger {
    /// `int8Value` ... `int64Value`: truncated, and cut to the width as NSNumber cuts it.
    fileprivate static func aggregated(_ value: _AggregateValue) -> Self? {
        value.truncatedInt64.map { Self(truncatingIfNeeded: $0) }
    }
}

extension Int: _HasPersistedType, MinMaxType, AddableType {
    /// The stored type: this type itself.
    public typealias PersistedType = Int
    /// `value as? Int`, as RealmSwift bridges an Int: exact, so an average of 2.5 is none.
    public static func _strataAggregated(_ value: _AggregateValue) -> Int? {
        switch value {
        case .int(let number): return Int(exactly: number)
        case .float(let number): return Int(exactly: number)
        case .double(let number): return Int(exactly: number)
        case .date: return nil
        }
    }
}
extension Int8: _HasPersistedType, MinMaxType, AddableType {
    /// The stored type: this type itself.
    public typealias PersistedType = Int8
    public static func _strataAggregated(_ value: _AggregateValue) -> Int8? { aggregated(value) }
}
extension Int16: _HasPersistedType, MinMaxType, AddableType {
    /// The stored type: this type itself.
    public typealias PersistedType = Int16
    public static func _strataAggregated(_ value: _AggregateValue) -> Int16? { aggregated(value) }
}
extension Int32: _HasPersistedType, MinMaxType, AddableType {
    /// The stored type: this type itself.
    public typealias PersistedType = Int32
    public static func _strataAggregated(_ value: _AggregateValue) -> Int32? { aggregated(value) }
}
extension Int64: _HasPersistedType, MinMaxType, AddableType {
    /// The stored type: this type itself.
    public typealias PersistedType = Int64
    public static func _strataAggregated(_ value: _AggregateValue) -> Int64? { aggregated(value) }
}
extension Double: _HasPersistedType, MinMaxType, AddableType {
    /// The stored type: this type itself.
    public typealias PersistedType = Double
    /// `value as? Double`, as RealmSwift bridges a Double: exact.
    public static func _strataAggregated(_ value: _AggregateValue) -> Double? {
        switch value {
        case .int(let number): return Double(exactly: number)
        case .float(let number): return Double(number)
        case .double(let number): return number
        case .date: return nil
        }
    }
}
extension Float: _HasPersistedType, MinMaxType, AddableType {
    /// The stored type: this type itself.
    public typealias PersistedType = Float
    public static func _strataAggregated(_ value: _AggregateValue) -> Float? {
        if case .float(let number) = value { return number }
        return value.asDouble.map(Float.init)
    }
}
extension Date: _HasPersistedType, MinMaxType {
    /// The stored type: this type itself.
    public typealias PersistedType = Date
    public static func _strataAggregated(_ value: _AggregateValue) -> Date? {
        if case .date(let date) = value { return date }
        return nil
    }
}
extension NSNumber: _HasPersistedType, MinMaxType, AddableType {
    /// The stored type: this type itself.
    public typealias PersistedType = NSNumber
    /// A number as `RLMMixedToObjc` makes one: of the stored kind (a float stays a float).
    public static func _strataAggregated(_ value: _AggregateValue) -> Self? {
        switch value {
        case .int(let number): return NSNumber(value: number) as? Self
        case .float(let number): return NSNumber(value: number) as? Self
        case .double(let number): return NSNumber(value: number) as? Self
        case .date: return nil
        }
    }
}
extension NSDate: _HasPersistedType, MinMaxType {
    /// The stored type: this type itself.
    public typealias PersistedType = NSDate
    /// A date as RealmSwift hands `min`/`max` of a date property to an `NSDate?`.
    public static func _strataAggregated(_ value: _AggregateValue) -> Self? {
        guard case .date(let date) = value else { return nil }
        return NSDate(timeIntervalSince1970: date.timeIntervalSince1970) as? Self
    }
}
extension Optional: _HasPersistedType where Wrapped: _HasPersistedType {
    /// The wrapped type's stored type, optional.
    public typealias PersistedType = Wrapped.PersistedType?
    public static func _strataAggregated(_ value: _AggregateValue) -> Wrapped?? {
        Wrapped._strataAggregated(value).map { .some($0) }
    }
}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
extension Optional: AddableType where Wrapped: AddableType {}
