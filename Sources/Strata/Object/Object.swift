import CStrataSupport
import Foundation
import StrataStorage

/// The base class of stored objects: subclass it and declare `@Persisted` properties.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted var name: String
///     @Persisted var age: Int
/// }
/// let dog = Dog()          // unmanaged: a plain Swift object, usable from any thread
/// dog.name = "Rex"
/// try realm.write { realm.add(dog) }   // now managed: reads and writes go to the realm
/// ```
///
/// Confinement: a managed live object belongs to its realm's thread or queue (Spec C5); a
/// frozen one may be read anywhere (Spec C10; wrap it in `Frozen` to send it). Not Sendable.
open class Object: Hashable, CustomStringConvertible, SendableMetatype {
    /// Set once the object is managed.
    /// (Never passed inout but by `isKnownUniquelyReferenced`, which no other access overlaps:
    /// the dynamic exclusivity check of every property read is not needed.)
    @usableFromInline @exclusivity(unchecked) final var _accessor: _ObjectAccessor?
    /// `_accessor`, unretained: what `Persisted`'s inlined getter reads, so that a property
    /// read costs no retain and release of the accessor (the object holds it while it reads).
    @usableFromInline @exclusivity(unchecked) final private(set) var _unretainedAccessor: Unmanaged<_ObjectAccessor>?

    /// Makes the object managed by `accessor` (once: an accessor is never replaced).
    final func _manage(with accessor: _ObjectAccessor) {
        _accessor = accessor
        _unretainedAccessor = Unmanaged.passUnretained(accessor)
    }
    /// Set only on the objects used to read key paths (`KeyPathRecorder`).
    final var _recorder: KeyPathRecorder? {
        didSet { _isRecordingKeyPath = _recorder != nil }
    }
    /// Whether `_recorder` is set: what `Persisted`'s inlined getter asks of an unmanaged object.
    @usableFromInline final private(set) var _isRecordingKeyPath = false
    /// The ordinal of the object's first `@Persisted` wrapper: 0, unless the object was created
    /// while another object's wrappers were being initialized (`@Persisted var dog: Dog? = Dog()`).
    /// Assigned once, in `init`, and never passed inout: every property read reads it, and the
    /// dynamic exclusivity check (a runtime call per read) could never fire.
    @usableFromInline @exclusivity(unchecked) final var _ordinalBase = 0

    /// Creates an unmanaged object with every property at its declared initial value; it
    /// belongs to no realm and may be used on any thread until it is added to one.
    public required init() {
        // Every @Persisted wrapper of the object is initialized before this runs: take them off
        // the thread's count, leaving the count of an object being initialized around this one
        // (see `Persisted`).
        let type = UInt(bitPattern: ObjectIdentifier(type(of: self)))
        var count = strata_persisted_take_expected(type)
        if count < 0 {
            count = Int64(ClassInfo.wrapperCount(of: self))
            strata_persisted_remember(type, count)
        }
        _ordinalBase = Int(strata_persisted_pop(count))
    }

    /// An unmanaged object whose properties are taken from `value`: a dictionary (property
    /// names to values; missing properties keep their defaults), an array (values in property
    /// order) or another object (its property values; it may be managed by any realm).
    /// Values for links and lists of links may themselves be dictionaries, arrays or objects;
    /// an object of the link's class is linked, not copied.
    ///
    /// Confinement: the new object is unmanaged (any thread); reading a managed `value` checks
    /// its realm's context (Spec C5).
    /// - Precondition: every value is valid for its property (Realm's message otherwise, for
    ///   example "Invalid value 'a' of type 'String' for 'int' property 'Dog.age'.").
    public convenience init(value: Any) {
        self.init()
        trapping { () throws(Realm.Error) in try _apply(value) }
    }

    /// `init(value:)` as a throwing entry point.
    package static func _make(value: Any) throws(Realm.Error) -> Self {
        let object = self.init()
        try object._apply(value)
        return object
    }

    /// The class name objects of this class are stored under.
    open class func className() -> String { ObjectSchema.className(of: self) }

    /// The realm managing the object; nil for an unmanaged object and for one deleted through
    /// this instance (`realm.delete(object)`), also once that write was cancelled: Realm clears
    /// the accessor's realm in `delete` for good. An object deleted elsewhere, or invalidated
    /// with its realm, still names it. Readable from any thread; never fails (ObjectTests.testRealm).
    public var realm: Realm? {
        guard let accessor = _accessor, !accessor.isDetachedByDelete else { return nil }
        return accessor.realm
    }

    /// Whether the object was deleted, or its realm invalidated (Spec W12, V13). Always false
    /// for unmanaged objects.
    public var isInvalidated: Bool {
        guard let accessor = _accessor else { return false }
        return trapping { () throws(Realm.Error) -> Bool in try accessor.isInvalidated() }
    }

    /// Whether the object is frozen (Spec F1).
    public var isFrozen: Bool { _accessor?.isFrozen ?? false }

    /// A frozen copy at the realm's current version (Spec F1, F11, F14). Freezing a frozen
    /// object returns it (Spec F5).
    public func freeze() -> Self { trapping { () throws(Realm.Error) -> Self in try _freeze() } }

    /// The live object of the current thread's realm at that realm's version, or nil when it
    /// does not exist there (Spec F8, F9, F10). Thawing a live object returns it.
    public func thaw() -> Self? { trapping { () throws(Realm.Error) -> Self? in try _thaw() } }

    /// Whether `object` is this very stored object: the same instance, or accessors of the same
    /// object in the same realm instance, both valid. Unmanaged objects are the same only as
    /// themselves.
    ///
    /// Confinement: reads both objects (Spec C5).
    public func isSameObject(as object: Object?) -> Bool {
        trapping { () throws(Realm.Error) -> Bool in try _isSameObject(as: object) }
    }

    package func _isSameObject(as object: Object?) throws(Realm.Error) -> Bool {
        guard let object else { return false }
        if object === self { return true }
        guard let left = _accessor, let right = object._accessor, left.core === right.core,
            left.table.id == right.table.id, left.key == right.key, left.incarnation == right.incarnation
        else {
            return false
        }
        if try left.isInvalidated() { return false }
        return try !right.isInvalidated()
    }

    // MARK: equality (Spec F13)

    /// Objects of a class with a primary key are equal when they are the same stored object
    /// (`isSameObject(as:)`); frozen objects when they are the same stored object at the same
    /// version; other live and unmanaged objects only when they are the same instance.
    public static func == (lhs: Object, rhs: Object) -> Bool {
        if lhs === rhs { return true }
        guard let left = lhs._accessor, let right = rhs._accessor else { return false }
        if left.isFrozen && right.isFrozen {
            return left.core === right.core && left.table.id == right.table.id && left.key == right.key
        }
        guard left.info.schema.primaryKeyIndex != nil else { return false }
        return (try? lhs._isSameObject(as: rhs)) ?? false
    }

    public func hash(into hasher: inout Hasher) {
        if let accessor = _accessor, accessor.isFrozen || accessor.info.schema.primaryKeyIndex != nil {
            // Equal objects are the same stored object: the same table and key.
            hasher.combine(accessor.table.id)
            hasher.combine(accessor.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    // MARK: description and dynamic access

    /// The object's class and properties, as Realm describes objects: one `name = value;` line
    /// per property, linked objects and lists described to a depth of 5.
    open var description: String { ObjectDescription.describe(self, depth: ObjectDescription.maximumDepth) }

    /// The value of the property named `key`: numbers and booleans as `NSNumber` (castable to
    /// any Swift number type that holds the value), a List property's List, a link's object,
    /// nil for nil. Setting it sets the property (in a write for a managed object, Spec W9),
    /// converting the value as `init(value:)` does.
    ///
    /// Confinement: as the property itself (Spec C5).
    /// - Precondition: `key` names a property, and a set value is valid for it.
    public subscript(key: String) -> Any? {
        get { trapping { () throws(Realm.Error) -> Any? in try _value(forKey: key) } }
        set { setValue(newValue, forKey: key) }
    }

    /// The value of the property named `key` (see `subscript(_:)`).
    public func value(forKey key: String) -> Any? { self[key] }

    /// Sets the property named `key` (see `subscript(_:)`).
    public func setValue(_ value: Any?, forKey key: String) {
        trapping { () throws(Realm.Error) in try _setValue(value, forKey: key) }
    }
}

extension Object {
    package func _value(forKey key: String) throws(Realm.Error) -> Any? {
        let info = ClassInfo.of(type(of: self))
        if let linking = info.linkingObjects.first(where: { $0.name == key }) {
            return try linking.originType.linkingObjects(of: self, through: linking.originProperty)
        }
        guard let column = info.schema.index(of: key) else {
            throw Realm.Error.invalidPropertyName(key, type: info.className)
        }
        if let accessor = _accessor {
            if info.schema.properties[column].isList {
                _ = try accessor.value(column: column)  // the object's checks (Spec C5, F6, V13, W12)
                return try info.withWrapper(of: self, column: column) { wrapper, pointer throws(Realm.Error) -> Any? in
                    try wrapper.managedAny(at: pointer, accessor: accessor, column: column)
                }
            }
            let stored = try accessor.value(column: column)
            return AnyValue.bridged(
                try AnyValue.decode(
                    stored, property: info.schema.properties[column],
                    core: accessor.core))
        }
        let value = try info.withWrapper(of: self, column: column) { wrapper, pointer throws(Realm.Error) -> Any in
            wrapper.unmanagedAny(at: pointer)
        }
        return AnyValue.bridged(value)
    }

    package func _setValue(_ value: Any?, forKey key: String) throws(Realm.Error) {
        let info = ClassInfo.of(type(of: self))
        guard let column = info.schema.index(of: key) else {
            throw Realm.Error.invalidPropertyName(key, type: info.className)
        }
        guard let accessor = _accessor else {
            try setUnmanaged(value, column: column, info: info)
            return
        }
        try accessor.checkSettable(value)
        let stored = try AnyValue.encode(
            value, property: info.schema.properties[column], className: info.className,
            core: accessor.core, policy: accessor.core.addPolicy ?? .error,
            addsObjects: true)
        try accessor.setValue(stored, column: column)
    }

    /// Sets a property of an unmanaged object in place.
    func setUnmanaged(_ value: Any?, column: Int, info: ClassInfo) throws(Realm.Error) {
        let path = _PropertyPath(className: info.className, property: info.schema.properties[column])
        try info.withWrapper(of: self, column: column) { wrapper, pointer throws(Realm.Error) in
            try wrapper.setUnmanaged(value, at: pointer, path: path)
        }
    }

    /// Fills an unmanaged object from a dictionary, an array or another object (`init(value:)`).
    func _apply(_ value: Any) throws(Realm.Error) {
        let info = ClassInfo.of(type(of: self))
        let properties = info.schema.properties
        guard let value = AnyValue.nonNull(value) else { throw Realm.Error.misuse("Must provide a non-nil value.") }
        if let dictionary = value as? [String: Any?] {
            for (column, property) in properties.enumerated() where dictionary.keys.contains(property.name) {
                try setUnmanaged(dictionary[property.name] ?? nil, column: column, info: info)
            }
        } else if let array = value as? [Any?] {
            guard array.count <= properties.count else {
                throw Realm.Error.misuse(
                    "Invalid array input: more values (\(array.count)) than properties "
                        + "(\(properties.count)).")
            }
            for (column, element) in array.enumerated() { try setUnmanaged(element, column: column, info: info) }
        } else {
            for (column, property) in properties.enumerated() {
                let given = try Object.keyValue(of: value, key: property.name, className: info.className)
                try setUnmanaged(given, column: column, info: info)
            }
        }
    }

    /// The value named `key` of `value`, an object read as Realm reads any key-value coding
    /// object. Anything else, or an object without that property, has no such key.
    static func keyValue(of value: Any, key: String, className: String) throws(Realm.Error) -> Any? {
        if let object = value as? Object, ClassInfo.of(type(of: object)).schema.index(of: key) != nil {
            return try object._value(forKey: key)
        }
        throw Realm.Error.misuse(
            "Invalid value '\(value)' to initialize object of type '\(className)': "
                + "missing key '\(key)'")
    }

    /// The wrappers' values of an unmanaged object, by column.
    func unmanagedValues(_ info: ClassInfo) -> [Any?] {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque())
        return withExtendedLifetime(self) {
            info.wrappers.map { offset, wrapper in AnyValue.flatten(wrapper.unmanagedAny(at: base + offset)) }
        }
    }
}

extension Object {
    package func _freeze() throws(Realm.Error) -> Self {
        guard let accessor = _accessor else { throw Realm.Error.unmanagedFreeze }  // Spec F11
        if accessor.isFrozen { return self }  // Spec F5
        try accessor.core.checkAccess()  // Spec C7
        guard try !accessor.isInvalidated() else { throw Realm.Error.objectInvalidated }  // Spec F11
        try accessor.checkCommitted()
        let frozen = try accessor.core.freeze()
        return try frozen.makeObject(Self.self, info: accessor.info, table: accessor.table, identity: accessor.identity)
    }

    package func _thaw() throws(Realm.Error) -> Self? {
        guard let accessor = _accessor else { throw Realm.Error.unmanagedThaw }  // Spec F10
        guard accessor.isFrozen else {
            try accessor.core.checkThread()  // Spec C5: a live object answers its own context only
            return self
        }
        let live = try accessor.core.liveRealmForCurrentThread()  // Spec F7: no refresh (F8)
        let view = try live.view()
        guard let table = view.table(named: accessor.info.className),
            try engine(live.path, { try view.contains(table, identity: accessor.identity) })
        else {
            return nil  // Spec F9: deleted, or its key holds another object now
        }
        return try live.makeObject(Self.self, info: accessor.info, table: table, identity: accessor.identity)
    }
}

// MARK: objects as links

extension Object: _RealmValue, RealmCollectionValue {
    public static var _strataKind: _PropertyKind { _PropertyKind(.object, objectType: self) }

    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Self {
        guard case .link(let link) = value, let core = realm?.core else {
            throw Realm.Error(.fail, "stored value \(value) is not a link to '\(className())'")
        }
        let info = try core.classInfo(self)
        let view = try core.view()
        guard let table = view.table(named: info.className), table.id == link.table else {
            throw Realm.Error(.fail, "a link to table \(link.table) is not a link to '\(info.className)'")
        }
        guard let identity = try core.linkedIdentity(table, key: link.key, view: view) else {
            // Spec W13 removes links to deleted objects: a link to none is damage (Spec D17).
            throw Realm.Error.linkToMissingObject(path: core.path, className: info.className, key: link.key)
        }
        let object = try core.makeObject(self, info: info, table: table, identity: identity)
        object._accessor?.linkStamp = core.stamp
        return object
    }

    /// An object for a link of an unmanaged object: an object of this class as it is, any
    /// other value (dictionary, array, object of another class) as a new unmanaged object.
    public static func _strataUnmanaged(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> Self {
        guard let any = AnyValue.nonNull(any) else { throw AnyValue.typeError(AnyValue.flatten(any), path) }
        if let object = any as? Self { return object }
        return try _make(value: any)
    }

    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        guard let core = realm?.core else {
            // An unmanaged object equals no stored object (RLMQueryUtil's add_link_constraint:
            // `== obj` matches nothing, `!= obj` everything): a link no table holds.
            guard let accessor = _accessor else { return .link(Link(table: TableID(UInt32.max), key: ObjectKey(-1))) }
            return .link(Link(table: accessor.table.id, key: accessor.key))
        }
        return .link(try core.link(to: self))
    }
}
