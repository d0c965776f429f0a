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
    @usableFromInline var unmanagedValue: Value
    /// A live managed object's List, kept so repeated reads give the same instance.
    @usableFromInline var cachedCollection: AnyObject?
    @usableFromInline let ordinal: Int
    @usableFromInline let isPrimaryKey: Bool
    @usableFromInline let isIndexed: Bool
    /// Whether the initial value is the type's default rather than an expression of the
    /// class's (which may differ per instance, `= UUID()`): a create may then skip making an
    /// instance to learn it (`ClassInfo.typeDefaults`).
    @usableFromInline let hasTypeDefault: Bool

    @inlinable
    init(value: Value, primaryKey: Bool, indexed: Bool, typeDefault: Bool) {
        unmanagedValue = value
        ordinal = _nextPersistedOrdinal()
        isPrimaryKey = primaryKey
        isIndexed = indexed
        hasTypeDefault = typeDefault
    }

    /// A computed property (`LinkingObjects`): it has no column, so it takes no ordinal.
    @inlinable
    init(computed value: Value) {
        unmanagedValue = value
        ordinal = -1
        isPrimaryKey = false
        isIndexed = false
        hasTypeDefault = true
    }

    /// A property whose initial value is the type's default (0, "", false, nil, empty List).
    @inlinable
    public init() { self.init(value: Value._strataDefault(), primaryKey: false, indexed: false, typeDefault: true) }

    /// A property whose initial value is `wrappedValue` (`@Persisted var age = 1`).
    @inlinable
    public init(wrappedValue: Value) {
        self.init(value: wrappedValue, primaryKey: false, indexed: false, typeDefault: false)
    }

    /// A property with its type's default value and, when `indexed` is true, a secondary index:
    /// equality and `in` queries on it read only the objects holding the values (Spec W26).
    @inlinable
    public init(indexed: Bool) {
        self.init(value: Value._strataDefault(), primaryKey: false, indexed: indexed, typeDefault: true)
    }

    /// A property with the initial value `wrappedValue` and, when `indexed` is true, a secondary
    /// index used by equality and `in` queries (Spec W26).
    @inlinable
    public init(wrappedValue: Value, indexed: Bool) {
        self.init(value: wrappedValue, primaryKey: false, indexed: indexed, typeDefault: false)
    }

    @available(*, unavailable, message: "@Persisted can only be used on properties of Object subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Persisted can only be used on properties of Object subclasses") }
        set { fatalError("@Persisted can only be used on properties of Object subclasses") }
    }

    // The accessors are inlinable so that they are specialised in the class's own module:
    // there the storage key path is a literal the optimizer turns into a field access, and
    // `Value`'s requirements become direct calls. What they call in Strata is not generic
    // over the class (`_ObjectAccessor`'s entry points), so a property read costs no key
    // path projection, no generic metadata and no dynamic cast.
    @inlinable @inline(__always)
    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            if let accessor = object._unretainedAccessor {
                if Value._strataIsComputed {
                    return Value._strataComputed(
                        accessor.takeUnretainedValue(), declared: object[keyPath: storageKeyPath].unmanagedValue)
                }
                if Value._strataKeepsInstance {
                    return _managedInstance(object, accessor.takeUnretainedValue(), storage: storageKeyPath)
                }
                let ordinal = object[keyPath: storageKeyPath].ordinal
                let base = object._ordinalBase
                // The object holds its accessor for the whole read: no retain of it is needed.
                return accessor._withUnsafeGuaranteedRef { Value._strataRead($0, ordinal: ordinal, base: base) }
            }
            if object._isRecordingKeyPath {
                return _recordedValue(
                    object, ordinal: object[keyPath: storageKeyPath].ordinal,
                    unmanaged: object[keyPath: storageKeyPath].unmanagedValue)
            }
            return object[keyPath: storageKeyPath].unmanagedValue
        }
        set {
            if Value._strataIsComputed { _trapComputedSet() }
            if let accessor = object._accessor {
                _setManaged(
                    newValue, accessor, ordinal: object[keyPath: storageKeyPath].ordinal, base: object._ordinalBase)
                return
            }
            Value._strataAssign(newValue, to: &object[keyPath: storageKeyPath].unmanagedValue)
        }
    }

    /// The managed value of a property whose value is an instance the wrapper keeps (a List):
    /// the same instance on every read of a live object.
    @usableFromInline
    static func _managedInstance<EnclosingSelf: Object>(
        _ object: EnclosingSelf, _ accessor: _ObjectAccessor,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        trapping { () throws(Realm.Error) -> Value in
            let column = accessor.column(ofOrdinal: object[keyPath: storageKeyPath].ordinal, base: object._ordinalBase)
            if accessor.isFrozen {
                // Frozen objects are read by many threads at once: never write their wrapper
                // (an inout access through the key path writes back even an unchanged value).
                var scratch: AnyObject?
                return try Value._strataGet(accessor, column: column, cache: &scratch)
            }
            if object[keyPath: storageKeyPath].cachedCollection == nil {
                // An added object's own List was made managed in place: offer it first.
                object[keyPath: storageKeyPath].cachedCollection =
                    object[keyPath: storageKeyPath].unmanagedValue as AnyObject
            }
            return try Value._strataGet(
                accessor, column: column, cache: &object[keyPath: storageKeyPath].cachedCollection)
        }
    }

    /// Sets a managed property (Spec W9, F12: the checks of `_ObjectAccessor.checkWritable`).
    @usableFromInline
    static func _setManaged(_ newValue: Value, _ accessor: _ObjectAccessor, ordinal: Int, base: Int) {
        trapping { () throws(Realm.Error) in
            try Value._strataSet(newValue, accessor, column: accessor.column(ofOrdinal: ordinal, base: base))
        }
    }

    /// The value a property read returns on an object recording a key path
    /// (`KeyPathRecorder`): the step is recorded, and a to-one link answers with a fresh
    /// object of its class recording the next step. Takes the wrapper's fields rather than its
    /// key path, so that the inlined getter passes no key path anywhere and the optimizer can
    /// drop the key path objects altogether.
    @usableFromInline
    static func _recordedValue(_ object: Object, ordinal: Int, unmanaged: Value) -> Value {
        if Value._strataIsComputed {
            // Spec V26: a typed query reads through LinkingObjects at the end of a key path only.
            guard let recorder = object._recorder, recorder.linkingObjects == nil,
                let linking = unmanaged as? any _LinkingObjectsValue
            else { _trap(Realm.Error.linkingObjectsKeyPath) }
            recorder.linkingObjects = (linking._originType, linking._originProperty)
            return unmanaged
        }
        if let recorder = object._recorder {
            recorder.steps.append((Swift.type(of: object), ordinal, object._ordinalBase))
            let kind = Value._strataKind
            if !kind.isList, let target = kind.objectType {
                let next = target.init()
                next._recorder = recorder
                if let link = next as? Value { return link }
            }
        }
        return unmanaged
    }
}

/// The next wrapper ordinal of the calling thread (see `Persisted`).
@usableFromInline
func _nextPersistedOrdinal() -> Int { Int(strata_persisted_next_ordinal()) }

/// Traps for a set of a computed property (LinkingObjects), from inlinable code.
@usableFromInline
func _trapComputedSet() -> Never { fatalError(Realm.Error.computedPropertySet.message) }

/// Traps with Realm's message for a refused call (as `trapping` does), from inlinable code.
@usableFromInline
func _trap(_ error: Realm.Error) -> Never { fatalError(error.message) }

extension Persisted where Value: _LinkingObjectsValue {
    /// The backlinks of the object through the property `originProperty` of the
    /// LinkingObjects' element class (Spec V26): `@Persisted(originProperty: "dogs") var
    /// owners: LinkingObjects<Person>`. The property has no column; it cannot be set.
    @inlinable
    public init(originProperty: String) { self.init(computed: Value._declared(originProperty: originProperty)) }
}

extension Persisted where Value: _PrimaryKeyValue {
    /// A primary-key property: an integer (Int, Int8 to Int64), a String or a UUID, or their
    /// optionals.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(value: Value._strataDefault(), primaryKey: primaryKey, indexed: false, typeDefault: true)
    }

    /// A primary-key property (when `primaryKey` is true) with the initial value `wrappedValue`:
    /// an integer, a String or a UUID, or their optionals.
    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(value: wrappedValue, primaryKey: primaryKey, indexed: false, typeDefault: false)
    }
}

/// What reflection sees of a `@Persisted` wrapper, whatever its value type.
protocol PersistedProperty {
    var ordinal: Int { get }
    /// The origin class and property of a LinkingObjects property (Spec V26); nil for a
    /// stored one.
    var linkingOrigin: (type: Object.Type, property: String)? { get }
    var hasTypeDefault: Bool { get }
    func schema(named name: String) -> PropertySchema
    /// The unmanaged value in stored form (links to unmanaged objects add them to `realm`).
    func encodeUnmanaged(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value
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
    /// The unmanaged value of the wrapper at `pointer` in stored form (links to unmanaged
    /// objects add them to `realm`): `add` encodes an object's row with it, with no reflection.
    static func encodeUnmanaged(at pointer: UnsafeMutableRawPointer, realm: Realm?) throws(Realm.Error)
        -> StrataStorage.Value
    /// Makes the collection the wrapper at `pointer` holds (an unmanaged List) the managed
    /// collection of `parent`'s `column` (Spec T1: a List taken before the add follows the object).
    static func adoptCollection(at pointer: UnsafeMutableRawPointer, parent: _ObjectAccessor, column: Int)
    /// Forgets an unmanaged link of an object just added (its target is managed now, and two
    /// objects linking each other must not keep each other alive: `ObjectCreationTests.testAddObjectCycle`).
    static func dropUnmanagedLink(at pointer: UnsafeMutableRawPointer)
}

extension Persisted: PersistedProperty {
    var linkingOrigin: (type: Object.Type, property: String)? {
        guard Value._strataIsComputed, let linking = unmanagedValue as? any _LinkingObjectsValue else { return nil }
        return (linking._originType, linking._originProperty)
    }

    func schema(named name: String) -> PropertySchema {
        let kind = Value._strataKind
        return PropertySchema(
            name: name, type: kind.type, objectClassName: kind.objectClassName,
            isOptional: kind.isOptional, isList: kind.isList, isPrimaryKey: isPrimaryKey,
            isIndexed: isIndexed, isSet: kind.isSet,
            isMap: kind.isMap)
    }

    func encodeUnmanaged(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        try unmanagedValue._strataEncode(realm: realm)
    }

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

    static func encodeUnmanaged(at pointer: UnsafeMutableRawPointer, realm: Realm?) throws(Realm.Error)
        -> StrataStorage.Value
    {
        try pointer.assumingMemoryBound(to: Self.self).pointee.unmanagedValue._strataEncode(realm: realm)
    }

    static func adoptCollection(at pointer: UnsafeMutableRawPointer, parent: _ObjectAccessor, column: Int) {
        (pointer.assumingMemoryBound(to: Self.self).pointee.unmanagedValue as? any ManagedAdoptable)?.adopt(
            parent: parent, column: column)
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
    /// The stored value decoded (in the object's realm for links and lists of them).
    @inlinable @inline(__always)
    public static func _strataRead(_ accessor: _ObjectAccessor, ordinal: Int, base: Int) -> Self {
        let stored = accessor._storedValue(ordinal: ordinal, base: base)
        // Only links (and lists of them) decode in a realm: a scalar read makes none.
        let realm: Realm?
        switch stored {
        case .link, .list: realm = accessor.realm
        default: realm = nil
        }
        do { return try _strataDecode(stored, realm: realm) } catch { _trap(error) }
    }

    /// False: a stored property. LinkingObjects say true.
    @inlinable
    public static var _strataIsComputed: Bool { false }

    /// Never called for a stored property: the declared value.
    public static func _strataComputed(_ accessor: _ObjectAccessor, declared: Self) -> Self { declared }

    /// False: the value of a managed property is read anew on every get. Lists say true.
    @inlinable
    public static var _strataKeepsInstance: Bool { false }

    /// Replaces an unmanaged wrapper's value. Lists fill their instance instead.
    @inlinable
    public static func _strataAssign(_ newValue: Self, to storage: inout Self) { storage = newValue }

    /// The value of `column` of a managed object. Lists override this to return a live List.
    public static func _strataGet(
        _ accessor: _ObjectAccessor, column: Int,
        cache: inout AnyObject?
    ) throws(Realm.Error) -> Self {
        try _strataDecode(try accessor.value(column: column), realm: accessor.realm)
    }

    /// Sets `column` of a managed object. Lists override this to replace their elements.
    public static func _strataSet(_ value: Self, _ accessor: _ObjectAccessor, column: Int) throws(Realm.Error) {
        // Only a link's value needs the settable checks beyond the write's (and boxing it).
        if _strataKind.objectType != nil {
            try accessor.checkSettable(value)
        } else {
            try accessor.checkWritable()
        }
        try accessor.setValue(try value._strataEncode(realm: accessor.realm), column: column)
    }
}
