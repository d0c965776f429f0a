import CStrataSupport
import StrataStorage

/// Declares a stored property of an `Object` subclass.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var name = ""
///     @Persisted var age: Int
///     @Persisted var owner: Person?
///     @Persisted var tags: List<String>
/// }
/// ```
///
/// An unmanaged object keeps the value in the wrapper, usable from any thread (Spec C5).
/// Once managed, every get and set goes to the realm with the checks of `_ObjectAccessor`.
///
/// How a wrapper finds its column: each wrapper takes the next number of a per-thread counter
/// when it is initialized, and `Object.init` (which runs after every wrapper of the object is
/// initialized) resets the counter. So a wrapper's `ordinal` is its position in the object's
/// initialization order, the same for every instance of the class; `ClassInfo` maps it to a
/// column, found once per class by reflection.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    var unmanagedValue: Value
    /// A live managed object's List, kept so repeated reads give the same instance.
    var cachedCollection: AnyObject?
    let ordinal: Int
    let isPrimaryKey: Bool
    let isIndexed: Bool
    /// Whether the initial value is the type's default rather than an expression of the
    /// class's (which may differ per instance, `= UUID()`): a create may then skip making an
    /// instance to learn it (`ClassInfo.typeDefaults`).
    let hasTypeDefault: Bool

    private init(value: Value, primaryKey: Bool, indexed: Bool, typeDefault: Bool) {
        unmanagedValue = value
        ordinal = Int(strata_persisted_next_ordinal())
        isPrimaryKey = primaryKey
        isIndexed = indexed
        hasTypeDefault = typeDefault
    }

    /// A property whose initial value is the type's default (0, "", false, nil, empty List).
    public init() { self.init(value: Value._strataDefault(), primaryKey: false, indexed: false, typeDefault: true) }

    /// A property whose initial value is `wrappedValue` (`@Persisted var age = 1`).
    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, primaryKey: false, indexed: false, typeDefault: false)
    }

    /// Strata records `indexed` in the schema; queries do not use an index yet (`Docs/limits.md`).
    public init(indexed: Bool) {
        self.init(value: Value._strataDefault(), primaryKey: false, indexed: indexed, typeDefault: true)
    }

    /// A property with the initial value `wrappedValue`, recorded as indexed in the schema when
    /// `indexed` is true (queries do not use an index yet, `Docs/limits.md`).
    public init(wrappedValue: Value, indexed: Bool) {
        self.init(value: wrappedValue, primaryKey: false, indexed: indexed, typeDefault: false)
    }

    @available(*, unavailable, message: "@Persisted can only be used on properties of Object subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Persisted can only be used on properties of Object subclasses") }
        set { fatalError("@Persisted can only be used on properties of Object subclasses") }
    }

    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            if let accessor = object._accessor {
                return trapping { () throws(Realm.Error) -> Value in
                    let column = accessor.column(
                        ofOrdinal: object[keyPath: storageKeyPath].ordinal,
                        base: object._ordinalBase)
                    if accessor.isFrozen || !(Value.self is AnyObject.Type) {
                        // Only Lists (classes) use the cache. Frozen objects are read by many
                        // threads at once: never write their wrapper (an inout access through
                        // the key path writes back even an unchanged value, and costs a copy).
                        var scratch: AnyObject?
                        return try Value._strataGet(accessor, column: column, cache: &scratch)
                    }
                    if object[keyPath: storageKeyPath].cachedCollection == nil {
                        // An added object's own List was made managed in place: offer it first.
                        object[keyPath: storageKeyPath].cachedCollection =
                            object[keyPath: storageKeyPath].unmanagedValue as AnyObject
                    }
                    return try Value._strataGet(
                        accessor, column: column,
                        cache: &object[keyPath: storageKeyPath].cachedCollection)
                }
            }
            if let recorder = object._recorder {
                recorder.steps.append(
                    (
                        Swift.type(of: object), object[keyPath: storageKeyPath].ordinal,
                        object._ordinalBase
                    ))
                let kind = Value._strataKind
                if !kind.isList, let target = kind.objectType {
                    let next = target.init()
                    next._recorder = recorder
                    if let link = next as? Value { return link }
                }
            }
            return object[keyPath: storageKeyPath].unmanagedValue
        }
        set {
            if let accessor = object._accessor {
                trapping { () throws(Realm.Error) in
                    let column = accessor.column(
                        ofOrdinal: object[keyPath: storageKeyPath].ordinal,
                        base: object._ordinalBase)
                    try Value._strataSet(newValue, accessor, column: column)
                }
                return
            }
            // An unmanaged List keeps its instance: assigning copies the elements into it.
            if let list = object[keyPath: storageKeyPath].unmanagedValue as? any ContentsAssignable,
                list.assignContents(of: newValue)
            {
                return
            }
            object[keyPath: storageKeyPath].unmanagedValue = newValue
        }
    }
}

extension Persisted where Value: _PrimaryKeyValue {
    /// A primary-key property: an integer (Int, Int8 to Int64), a String or a UUID, or their
    /// optionals.
    public init(primaryKey: Bool) {
        self.init(value: Value._strataDefault(), primaryKey: primaryKey, indexed: false, typeDefault: true)
    }

    /// A primary-key property (when `primaryKey` is true) with the initial value `wrappedValue`:
    /// an integer, a String or a UUID, or their optionals.
    public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(value: wrappedValue, primaryKey: primaryKey, indexed: false, typeDefault: false)
    }
}

/// What reflection sees of a `@Persisted` wrapper, whatever its value type.
protocol PersistedProperty {
    var ordinal: Int { get }
    var hasTypeDefault: Bool { get }
    func schema(named name: String) -> PropertySchema
    /// The unmanaged value in stored form (links to unmanaged objects add them to `realm`).
    func encodeUnmanaged(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value
    /// The unmanaged value, as `Any`.
    var unmanagedAny: Any { get }
    /// The class a link or list of links points to.
    var linkTargetType: Object.Type? { get }

    // Access to the wrapper of an instance in place (`ClassInfo.withWrapper`).

    /// The unmanaged value of the wrapper at `pointer`.
    static func unmanagedAny(at pointer: UnsafeMutableRawPointer) -> Any
    /// Sets the unmanaged value of the wrapper at `pointer` from a value as `setValue(_:forKey:)`
    /// takes it (converted, validated; a List is filled in place).
    static func setUnmanaged(_ any: Any?, at pointer: UnsafeMutableRawPointer, path: _PropertyPath) throws(Realm.Error)
    /// The managed value of `column`, as the property's getter returns it (the same List
    /// instance on every read of a live object).
    static func managedAny(
        at pointer: UnsafeMutableRawPointer, accessor: _ObjectAccessor,
        column: Int
    ) throws(Realm.Error) -> Any
    /// Forgets an unmanaged link of an object just added (its target is managed now, and two
    /// objects linking each other must not keep each other alive: `ObjectCreationTests.testAddObjectCycle`).
    static func dropUnmanagedLink(at pointer: UnsafeMutableRawPointer)
}

extension Persisted: PersistedProperty {
    func schema(named name: String) -> PropertySchema {
        let kind = Value._strataKind
        return PropertySchema(
            name: name, type: kind.type, objectClassName: kind.objectClassName,
            isOptional: kind.isOptional, isList: kind.isList, isPrimaryKey: isPrimaryKey,
            isIndexed: isIndexed)
    }

    func encodeUnmanaged(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        try unmanagedValue._strataEncode(realm: realm)
    }

    var unmanagedAny: Any { unmanagedValue }

    var linkTargetType: Object.Type? { Value._strataKind.objectType }

    static func unmanagedAny(at pointer: UnsafeMutableRawPointer) -> Any {
        pointer.assumingMemoryBound(to: Self.self).pointee.unmanagedValue
    }

    static func setUnmanaged(_ any: Any?, at pointer: UnsafeMutableRawPointer, path: _PropertyPath) throws(Realm.Error)
    {
        let wrapper = pointer.assumingMemoryBound(to: Self.self)
        let value = try Value._strataUnmanaged(any, path)
        if let list = wrapper.pointee.unmanagedValue as? any ContentsAssignable, list.assignContents(of: value) {
            return
        }
        wrapper.pointee.unmanagedValue = value
    }

    static func managedAny(
        at pointer: UnsafeMutableRawPointer, accessor: _ObjectAccessor,
        column: Int
    ) throws(Realm.Error) -> Any {
        let wrapper = pointer.assumingMemoryBound(to: Self.self)
        if accessor.isFrozen || !(Value.self is AnyObject.Type) {
            var scratch: AnyObject?
            return try Value._strataGet(accessor, column: column, cache: &scratch)
        }
        if wrapper.pointee.cachedCollection == nil {
            wrapper.pointee.cachedCollection = wrapper.pointee.unmanagedValue as AnyObject
        }
        return try Value._strataGet(accessor, column: column, cache: &wrapper.pointee.cachedCollection)
    }

    static func dropUnmanagedLink(at pointer: UnsafeMutableRawPointer) {
        guard Value._strataKind.type == .object, !Value._strataKind.isList else { return }
        pointer.assumingMemoryBound(to: Self.self).pointee.unmanagedValue = Value._strataDefault()
    }
}

/// A collection class whose unmanaged instance an assignment fills in place (`List`).
protocol ContentsAssignable: AnyObject {
    /// Replaces the elements with those of `other` (a collection of the same type); false when
    /// it cannot (then the caller replaces the instance).
    func assignContents(of other: Any) -> Bool
}

// MARK: managed get and set, per value type

extension _Persistable {
    /// The value of `column` of a managed object. Lists override this to return a live List.
    public static func _strataGet(
        _ accessor: _ObjectAccessor, column: Int,
        cache: inout AnyObject?
    ) throws(Realm.Error) -> Self {
        try _strataDecode(try accessor.value(column: column), realm: accessor.realm)
    }

    /// Sets `column` of a managed object. Lists override this to replace their elements.
    public static func _strataSet(_ value: Self, _ accessor: _ObjectAccessor, column: Int) throws(Realm.Error) {
        try accessor.checkSettable(value)
        try accessor.setValue(try value._strataEncode(realm: accessor.realm), column: column)
    }
}
