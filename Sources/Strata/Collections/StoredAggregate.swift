import Foundation
import StrataStorage

/// `min`, `max`, `sum` and `average` of one property over stored values (Spec V21): computed
/// from the rows as stored, no object is made. Nulls and NaN are skipped; `min`, `max` and
/// `average` of no value are nil, `sum` of no value is zero. Integers sum in 64 bits, wrapping
/// as realm-core's int64 sums do; an average adds the values as doubles (it never wraps) and
/// divides by their count. `min` and `max` apply to integers, floats, doubles and dates, `sum` and `average`
/// to integers, floats and doubles.
package enum AggregateFunction: String, Sendable, CaseIterable {
    case min, max, sum, average

    /// Whether the function applies to a property of `type` (realm-core's `Results::aggregate`
    /// column check).
    func applies(to type: PropertyType) -> Bool {
        switch type {
        case .int, .float, .double: return true
        case .date: return self == .min || self == .max
        case .bool, .string, .data, .uuid, .object: return false
        }
    }
}

/// One aggregate being computed over the values `add` is given.
struct StoredAggregator {
    let function: AggregateFunction
    let type: PropertyType
    private var best: Value?
    private var integerSum: Int64 = 0
    private var doubleSum: Double = 0
    private var count = 0
    /// The seeded bug `averageCountsNulls` (Spec V21 broken): nulls count toward an average.
    private let countsNulls: Bool

    init(_ function: AggregateFunction, type: PropertyType, countsNulls: Bool = false) {
        self.function = function
        self.type = type
        self.countsNulls = countsNulls
    }

    mutating func add(_ value: Value) {
        switch value {
        case .int(let number):
            add(integer: number)
        case .double(let number) where !number.isNaN:
            // realm-core's aggregates skip NaN as they skip null.
            doubleSum += number
            count += 1
            keep(value)
        case .timestamp:
            count += 1
            keep(value)
        case .null, .double:
            if countsNulls { count += 1 }
        default:
            return  // not a value of an aggregatable column: a damaged row reads as no value
        }
    }

    /// `add(.int(number))`, or `add(.null)` for nil, without making a `Value`: an integer
    /// column's rows are read with `RowView.int(at:)`.
    mutating func add(integer: Int64?) {
        guard let number = integer else {
            if countsNulls { count += 1 }
            return
        }
        integerSum &+= number
        doubleSum += Double(number)  // the average's sum: realm-core adds integers as doubles
        count += 1
        switch function {
        case .min:
            if case .int(let current)? = best, current <= number { return }
            best = .int(number)
        case .max:
            if case .int(let current)? = best, current >= number { return }
            best = .int(number)
        case .sum, .average:
            break
        }
    }

    /// Keeps `value` as the answer of `min` or `max` when it is beyond the one kept.
    private mutating func keep(_ value: Value) {
        switch function {
        case .min:
            if let current = best, !StoredOrder.sortsBefore(value, current) { return }
            best = value
        case .max:
            if let current = best, !StoredOrder.sortsBefore(current, value) { return }
            best = value
        case .sum, .average:
            break
        }
    }

    /// The answer as a stored value, for a predicate to compare: null when there was no value
    /// (never for `sum`); an average is a double.
    var storedResult: Value {
        switch function {
        case .min, .max: return best ?? .null
        case .sum: return type == .int ? .int(integerSum) : .double(doubleSum)
        case .average: return count > 0 ? .double(doubleSum / Double(count)) : .null
        }
    }

    /// The answer; nil when there was no value (never for `sum`).
    var result: _AggregateValue? {
        switch function {
        case .min, .max:
            return best.flatMap(answer)
        case .sum:
            return type == .int ? .int(integerSum) : .double(doubleSum)
        case .average:
            guard count > 0 else { return nil }
            return .double(doubleSum / Double(count))
        }
    }

    private func answer(_ value: Value) -> _AggregateValue? {
        switch value {
        case .int(let number): return .int(number)
        case .double(let number): return type == .float ? .float(Float(number)) : .double(number)
        case .timestamp:
            return (try? Date._strataDecode(value, realm: nil)).map(_AggregateValue.date)
        default: return nil
        }
    }
}

/// `value` as the caller's type `T`, as RealmSwift's `staticBridgeCast` converts an
/// aggregate's NSNumber or NSDate (`_HasPersistedType._strataAggregated`).
/// - Throws: Realm's "Could not convert value '2.5' to type 'Int'." when `T` cannot hold it.
func aggregateAnswer<T: _HasPersistedType>(_ value: _AggregateValue, _ function: AggregateFunction)
    throws(Realm.Error) -> T
{
    guard let answer = T._strataAggregated(value) else { throw Realm.Error.aggregateAnswer(value, as: T.self) }
    return answer
}

extension Realm.Error {
    /// `RLMValidatedProperty`: a property the class does not have.
    static func aggregateInvalidProperty(_ name: String, type: String) -> Realm.Error {
        misuse("Invalid property name: Property '\(name)' not found in object of type '\(type)'")
    }

    /// realm-core's `Results::aggregate`: an aggregate the property's type does not support.
    static func aggregateUnsupported(
        _ function: AggregateFunction, property: PropertySchema, className: String
    ) -> Realm.Error {
        let kind = property.type.description + (property.isOptional ? "?" : "")
        let shape = property.isList ? "list" : "property"
        return misuse(
            "Operation '\(function.rawValue)' not supported for \(kind) \(shape) '\(className).\(property.name)'")
    }

    /// RealmSwift's `staticBridgeCast`: an aggregate whose answer the caller's type cannot
    /// hold (an average of 2.5 asked for as an Int, a date as a Double).
    static func aggregateAnswer(_ value: _AggregateValue, as type: Any.Type) -> Realm.Error {
        misuse("Could not convert value '\(value)' to type '\(type)'.")
    }
}

extension ObjectSchema {
    /// The column `property` names for `function`, checked as Realm checks it: the property
    /// must exist (`Invalid property name`), be no list, and be of a type the function applies to.
    func aggregateColumn(_ property: String, _ function: AggregateFunction) throws(Realm.Error) -> Int {
        guard let column = index(of: property) else {
            throw Realm.Error.aggregateInvalidProperty(property, type: className)
        }
        let schema = properties[column]
        guard !schema.isList, function.applies(to: schema.type) else {
            throw Realm.Error.aggregateUnsupported(function, property: schema, className: className)
        }
        return column
    }
}
