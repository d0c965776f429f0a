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

    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, primaryKey: false, indexed: false, typeDefault: false)
    }

    /// Strata records `indexed` in the schema; queries do not use an index yet (README).
    public init(indexed: Bool) {
        self.init(value: Value._strataDefault(), primaryKey: false, indexed: indexed, typeDefault: true)
    }

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
                    let column = accessor.column(ofOrdinal: object[keyPath: storageKeyPath].ordinal)
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
                    return try Value._strataGet(accessor, column: column,
                                                cache: &object[keyPath: storageKeyPath].cachedCollection)
                }
            }
            if let recorder = object._recorder {
                recorder.ordinals.append(object[keyPath: storageKeyPath].ordinal)
            }
            return object[keyPath: storageKeyPath].unmanagedValue
        }
        set {
            if let accessor = object._accessor {
                trapping { () throws(Realm.Error) in
                    let column = accessor.column(ofOrdinal: object[keyPath: storageKeyPath].ordinal)
                    try Value._strataSet(newValue, accessor, column: column)
                }
                return
            }
            object[keyPath: storageKeyPath].unmanagedValue = newValue
        }
    }
}

extension Persisted where Value: _PrimaryKeyValue {
    /// A primary-key property (Int or String, or their optionals).
    public init(primaryKey: Bool) {
        self.init(value: Value._strataDefault(), primaryKey: primaryKey, indexed: false, typeDefault: true)
    }

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
}

extension Persisted: PersistedProperty {
    func schema(named name: String) -> PropertySchema {
        let kind = Value._strataKind
        return PropertySchema(name: name, type: kind.type, objectClassName: kind.objectClassName,
                              isOptional: kind.isOptional, isList: kind.isList, isPrimaryKey: isPrimaryKey,
                              isIndexed: isIndexed)
    }

    func encodeUnmanaged(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        try unmanagedValue._strataEncode(realm: realm)
    }

    var unmanagedAny: Any { unmanagedValue }

    var linkTargetType: Object.Type? { Value._strataKind.objectType }
}

// MARK: managed get and set, per value type

extension _Persistable {
    /// The value of `column` of a managed object. Lists override this to return a live List.
    public static func _strataGet(_ accessor: _ObjectAccessor, column: Int,
                                  cache: inout AnyObject?) throws(Realm.Error) -> Self {
        try _strataDecode(try accessor.value(column: column), realm: accessor.realm)
    }

    /// Sets `column` of a managed object. Lists override this to replace their elements.
    public static func _strataSet(_ value: Self, _ accessor: _ObjectAccessor, column: Int) throws(Realm.Error) {
        try accessor.checkWritable()
        try accessor.setValue(try value._strataEncode(realm: accessor.realm), column: column)
    }
}
