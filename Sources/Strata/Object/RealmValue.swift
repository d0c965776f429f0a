import Foundation
import StrataStorage

/// A type Strata can store: every property type and list element type conforms.
///
/// Not API (the requirements are `_`-prefixed): Strata supplies the conformances for Int,
/// Int8/16/32/64, Bool, Float, Double, String, Data, Date, UUID, their optionals, `Object`
/// subclasses (as links), and `List`.
public protocol _RealmValue {
    /// How values of this type are stored.
    static var _strataKind: _PropertyKind { get }
    /// The value stored as `value`; `realm` makes accessors for links.
    static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Self
    /// The stored form. `realm` (in a write) adds unmanaged link targets; nil encodes a query
    /// constant, where links other than nil are rejected.
    func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value
    /// `any` (a value as `Object(value:)` and `setValue(_:forKey:)` take it: for objects also
    /// a dictionary, an array or another object) as a value of this type for an unmanaged
    /// object, validated as Realm validates it; `path` names the property in errors.
    static func _strataUnmanaged(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> Self
}

/// The property a dynamic value is given for, for conversions and their error messages. Not API.
public struct _PropertyPath: Sendable {
    let className: String
    let property: PropertySchema
}

extension _RealmValue {
    /// Scalars: the value checked and converted as `create` stores it, then read back.
    public static func _strataUnmanaged(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> Self {
        try _strataDecode(try AnyValue.encodeScalar(any, path), realm: nil)
    }
}

/// A type a `@Persisted` property can have: a `_RealmValue` with a default.
public protocol _Persistable: _RealmValue, SendableMetatype {
    /// The value a property has when its declaration gives none.
    static func _strataDefault() -> Self
    /// The value of `column` of a managed object (Lists return a live List).
    static func _strataGet(_ accessor: _ObjectAccessor, column: Int, cache: inout AnyObject?) throws(Realm.Error)
        -> Self
    /// Sets `column` of a managed object (Lists replace their elements).
    static func _strataSet(_ value: Self, _ accessor: _ObjectAccessor, column: Int) throws(Realm.Error)
    /// Whether a managed property's value is an instance its wrapper keeps (Lists): then
    /// reads go through `_strataGet` with the wrapper's cache, else they decode the stored value.
    static var _strataKeepsInstance: Bool { get }
    /// Sets an unmanaged wrapper's value to `newValue` (Lists keep their instance and take the
    /// elements: ModernObjectAccessorTests.testUnmanagedAccessors).
    static func _strataAssign(_ newValue: Self, to storage: inout Self)
    /// The value of the wrapper with `ordinal` (in an object whose first wrapper has `base`)
    /// of a managed object, for `Persisted`'s getter; traps when the read is refused. Types
    /// stored as one scalar read it straight from the accessor's kept row.
    static func _strataRead(_ accessor: _ObjectAccessor, ordinal: Int, base: Int) -> Self
    /// Whether the property has no column and is computed from other objects (LinkingObjects,
    /// Spec V26): its wrapper takes no ordinal and its managed value is `_strataComputed`'s.
    static var _strataIsComputed: Bool { get }
    /// The managed value of a computed property of the object `accessor` reads, from the
    /// unmanaged value its declaration made (which names what to compute).
    static func _strataComputed(_ accessor: _ObjectAccessor, declared: Self) -> Self
}

/// A type a `List` can hold.
public protocol RealmCollectionValue: _RealmValue, SendableMetatype {}

/// Types usable as primary keys (Int, Int8 to Int64, String, UUID and their optionals).
public protocol _PrimaryKeyValue: _Persistable {}

private func mismatch<T>(_ value: StrataStorage.Value, _ type: T.Type) -> Realm.Error {
    Realm.Error(.fail, "stored value \(value) is not a \(T.self)")
}

// MARK: integers

extension Int: _Persistable, RealmCollectionValue, _PrimaryKeyValue {
    // Inlinable, so that a getter calls the accessor's read of the kept row directly; the
    // search for a row that is not kept stays out of line.
    @inlinable
    public static func _strataRead(_ accessor: _ObjectAccessor, ordinal: Int, base: Int) -> Int {
        if let int = accessor._keptInt(ordinal: ordinal, base: base) { return Int(truncatingIfNeeded: int) }
        return _strataReadStored(accessor, ordinal: ordinal, base: base)
    }
    @usableFromInline
    static func _strataReadStored(_ accessor: _ObjectAccessor, ordinal: Int, base: Int) -> Int {
        do { return try _strataDecode(accessor._storedValue(ordinal: ordinal, base: base), realm: nil) } catch {
            _trap(error)
        }
    }
    public static var _strataKind: _PropertyKind { _PropertyKind(.int) }
    public static func _strataDefault() -> Int { 0 }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Int {
        guard case .int(let number) = value else { throw mismatch(value, Int.self) }
        return Int(truncatingIfNeeded: number)
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .int(Int64(self)) }
}

extension Int8: _Persistable, RealmCollectionValue, _PrimaryKeyValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.int) }
    public static func _strataDefault() -> Int8 { 0 }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Int8 {
        guard case .int(let number) = value else { throw mismatch(value, Int8.self) }
        return Int8(truncatingIfNeeded: number)
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .int(Int64(self)) }
}

extension Int16: _Persistable, RealmCollectionValue, _PrimaryKeyValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.int) }
    public static func _strataDefault() -> Int16 { 0 }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Int16 {
        guard case .int(let number) = value else { throw mismatch(value, Int16.self) }
        return Int16(truncatingIfNeeded: number)
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .int(Int64(self)) }
}

extension Int32: _Persistable, RealmCollectionValue, _PrimaryKeyValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.int) }
    public static func _strataDefault() -> Int32 { 0 }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Int32 {
        guard case .int(let number) = value else { throw mismatch(value, Int32.self) }
        return Int32(truncatingIfNeeded: number)
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .int(Int64(self)) }
}

extension Int64: _Persistable, RealmCollectionValue, _PrimaryKeyValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.int) }
    public static func _strataDefault() -> Int64 { 0 }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Int64 {
        guard case .int(let number) = value else { throw mismatch(value, Int64.self) }
        return number
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .int(self) }
}

// MARK: other scalars

extension Bool: _Persistable, RealmCollectionValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.bool) }
    public static func _strataDefault() -> Bool { false }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(value, Bool.self) }
        return flag
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .bool(self) }
}

extension Double: _Persistable, RealmCollectionValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.double) }
    public static func _strataDefault() -> Double { 0 }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Double {
        guard case .double(let number) = value else { throw mismatch(value, Double.self) }
        return number
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .double(self) }
}

extension Float: _Persistable, RealmCollectionValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.float) }
    public static func _strataDefault() -> Float { 0 }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Float {
        guard case .double(let number) = value else { throw mismatch(value, Float.self) }
        return Float(number)
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .double(Double(self)) }
}

extension String: _Persistable, RealmCollectionValue, _PrimaryKeyValue {
    // Inlinable for the reason `Int._strataRead` is.
    @inlinable
    public static func _strataRead(_ accessor: _ObjectAccessor, ordinal: Int, base: Int) -> String {
        if let text = accessor._keptString(ordinal: ordinal, base: base) { return text }
        return _strataReadStored(accessor, ordinal: ordinal, base: base)
    }
    @usableFromInline
    static func _strataReadStored(_ accessor: _ObjectAccessor, ordinal: Int, base: Int) -> String {
        do { return try _strataDecode(accessor._storedValue(ordinal: ordinal, base: base), realm: nil) } catch {
            _trap(error)
        }
    }
    public static var _strataKind: _PropertyKind { _PropertyKind(.string) }
    public static func _strataDefault() -> String { "" }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> String {
        guard case .string(let text) = value else { throw mismatch(value, String.self) }
        return text
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .string(self) }
}

extension Data: _Persistable, RealmCollectionValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.data) }
    public static func _strataDefault() -> Data { Data() }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Data {
        guard case .binary(let bytes) = value else { throw mismatch(value, Data.self) }
        return Data(bytes)
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value { .binary([UInt8](self)) }
}

extension Date: _Persistable, RealmCollectionValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.date) }
    /// Realm Swift's default: the moment the object is created.
    public static func _strataDefault() -> Date { Date() }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Date {
        guard case .timestamp(let stamp) = value else { throw mismatch(value, Date.self) }
        return Date(timeIntervalSince1970: Double(stamp.seconds) + Double(stamp.nanoseconds) / 1e9)
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        .timestamp(Date.timestamp(timeIntervalSince1970))
    }

    /// Seconds and nanoseconds with the same sign (Timestamp's rule). Whole seconds and the
    /// fraction are converted apart: a double holds a date's seconds exactly but not its
    /// nanoseconds since 1970.
    static func timestamp(_ interval: Double) -> Timestamp {
        guard interval.isFinite, abs(interval) < 9.2e18 else { return Timestamp(seconds: 0, nanoseconds: 0) }
        var seconds = Int64(interval.rounded(.towardZero))
        var nanos = Int64(((interval - Double(seconds)) * 1e9).rounded())
        if nanos >= 1_000_000_000 {
            seconds += 1
            nanos -= 1_000_000_000
        }
        if nanos <= -1_000_000_000 {
            seconds -= 1
            nanos += 1_000_000_000
        }
        if seconds > 0 && nanos < 0 {
            seconds -= 1
            nanos += 1_000_000_000
        }
        if seconds < 0 && nanos > 0 {
            seconds += 1
            nanos -= 1_000_000_000
        }
        return Timestamp(seconds: seconds, nanoseconds: Int32(nanos))
    }
}

extension UUID: _Persistable, RealmCollectionValue, _PrimaryKeyValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.uuid) }
    /// Realm Swift's default: a new random UUID.
    public static func _strataDefault() -> UUID { UUID() }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> UUID {
        guard case .binary(let bytes) = value, bytes.count == 16 else { throw mismatch(value, UUID.self) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        let u = uuid
        return .binary([u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
    }
}

// MARK: optionals

extension Optional: _RealmValue where Wrapped: _RealmValue {
    public static var _strataKind: _PropertyKind {
        var kind = Wrapped._strataKind
        kind.isOptional = true
        return kind
    }
    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Wrapped? {
        if case .null = value { return nil }
        return try Wrapped._strataDecode(value, realm: realm)
    }
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        guard let self else { return .null }
        return try self._strataEncode(realm: realm)
    }
    public static func _strataUnmanaged(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> Wrapped? {
        guard let any = AnyValue.flatten(any), !(any is NSNull) else { return nil }
        return try Wrapped._strataUnmanaged(any, path)
    }
}

extension Optional: _Persistable where Wrapped: _RealmValue {
    public static func _strataDefault() -> Wrapped? { nil }
}

extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue, Wrapped: _Persistable {}
extension Optional: _PrimaryKeyValue where Wrapped: _PrimaryKeyValue {}
