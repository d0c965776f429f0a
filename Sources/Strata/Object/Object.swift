import CStrataSupport
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
    final var _accessor: _ObjectAccessor?
    /// Set only on the objects used to read key paths (`KeyPathRecorder`).
    final var _recorder: KeyPathRecorder?

    public required init() {
        // Every @Persisted wrapper of the object is initialized before this runs: start the
        // next object's ordinals from 0 (see `Persisted`).
        _ = strata_persisted_take_ordinal_count()
    }

    /// The class name objects of this class are stored under.
    open class func className() -> String { ObjectSchema.className(of: self) }

    /// The realm managing the object; nil when unmanaged or deleted (WRT-17).
    public var realm: Realm? {
        guard let accessor = _accessor else { return nil }
        return trapping { () throws(Realm.Error) -> Realm? in
            try accessor.isInvalidated() ? nil : accessor.realm
        }
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

    // MARK: equality (Spec F13)

    /// Frozen objects are equal when they are the same stored object at the same version;
    /// live and unmanaged objects only when they are the same instance.
    public static func == (lhs: Object, rhs: Object) -> Bool {
        if lhs === rhs { return true }
        guard let left = lhs._accessor, let right = rhs._accessor, left.isFrozen, right.isFrozen else { return false }
        return left.core === right.core && left.table.id == right.table.id && left.key == right.key
    }

    public func hash(into hasher: inout Hasher) {
        if let accessor = _accessor, accessor.isFrozen {
            hasher.combine(accessor.table.id)
            hasher.combine(accessor.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    // MARK: description and dynamic access

    open var description: String {
        let info = ClassInfo.of(type(of: self))
        if _accessor != nil && isInvalidated { return "[invalid object]" }
        var text = "\(info.className) {\n"
        for property in info.schema.properties {
            let value = self[property.name]
            text += "\t\(property.name) = \(value.map { String(describing: $0) } ?? "nil");\n"
        }
        return text + "}"
    }

    /// The value of the property named `key` (an array for list properties); nil for nil.
    /// Setting it works on managed objects (in a write), as `setValue(_:forKey:)`.
    public subscript(key: String) -> Any? {
        get { trapping { () throws(Realm.Error) -> Any? in try _value(forKey: key) } }
        set { setValue(newValue, forKey: key) }
    }

    /// The value of the property named `key`.
    public func value(forKey key: String) -> Any? { self[key] }

    /// Sets the property named `key` of a managed object (Spec W9: in a write).
    public func setValue(_ value: Any?, forKey key: String) {
        trapping { () throws(Realm.Error) in try _setValue(value, forKey: key) }
    }
}

extension Object {
    @_spi(StrataCheck)
    public func _value(forKey key: String) throws(Realm.Error) -> Any? {
        let info = ClassInfo.of(type(of: self))
        guard let column = info.schema.index(of: key) else {
            throw Realm.Error.unknownProperty(key, type: info.className)
        }
        if let accessor = _accessor {
            let stored = try accessor.value(column: column)
            return try AnyValue.decode(stored, property: info.schema.properties[column], core: accessor.core)
        }
        return unmanagedValues(info)[column]
    }

    @_spi(StrataCheck)
    public func _setValue(_ value: Any?, forKey key: String) throws(Realm.Error) {
        let info = ClassInfo.of(type(of: self))
        guard let column = info.schema.index(of: key) else {
            throw Realm.Error.unknownProperty(key, type: info.className)
        }
        guard let accessor = _accessor else {
            throw Realm.Error.misuse("Strata sets properties by name only on managed objects; use the property")
        }
        try accessor.checkWritable()
        let stored = try AnyValue.encode(value, property: info.schema.properties[column], core: accessor.core,
                                         policy: accessor.core.addPolicy ?? .error)
        try accessor.setValue(stored, column: column)
    }

    /// The wrappers' values of an unmanaged object, by column.
    func unmanagedValues(_ info: ClassInfo) -> [Any?] {
        var values = [Any?](repeating: nil, count: info.schema.properties.count)
        for property in persistedProperties() {
            values[info.column(ofOrdinal: property.ordinal)] = AnyValue.flatten(property.unmanagedAny)
        }
        return values
    }

    /// The `@Persisted` wrappers of this object, with superclasses'.
    func persistedProperties() -> [any PersistedProperty] {
        var found: [any PersistedProperty] = []
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                if let property = child.value as? any PersistedProperty { found.append(property) }
            }
            mirror = current.superclassMirror
        }
        return found
    }

    @_spi(StrataCheck)
    public func _freeze() throws(Realm.Error) -> Self {
        guard let accessor = _accessor else { throw Realm.Error.unmanagedFreeze }  // Spec F11
        if accessor.isFrozen { return self }  // Spec F5
        try accessor.core.checkAccess()  // Spec C7
        guard try !accessor.isInvalidated() else { throw Realm.Error.objectInvalidated }  // Spec F11
        try accessor.checkCommitted()
        let frozen = try accessor.core.freeze()
        return try frozen.makeObject(Self.self, info: accessor.info, table: accessor.table, identity: accessor.identity)
    }

    @_spi(StrataCheck)
    public func _thaw() throws(Realm.Error) -> Self? {
        guard let accessor = _accessor else { throw Realm.Error.unmanagedThaw }  // Spec F10
        guard accessor.isFrozen else {
            try accessor.core.checkThread()  // Spec C5: a live object answers its own context only
            return self
        }
        let live = try accessor.core.liveRealmForCurrentThread()  // Spec F7: no refresh (F8)
        let view = try live.view()
        guard let table = view.table(named: accessor.info.className),
              try engine(live.path, { try view.contains(table, identity: accessor.identity) }) else {
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
            throw Realm.Error.objectInvalidated  // Spec W13 removes links to deleted objects
        }
        return try core.makeObject(self, info: info, table: table, identity: identity)
    }

    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        guard let core = realm?.core else {
            guard let accessor = _accessor else {
                throw Realm.Error.misuse("Only managed objects can be compared in a query")
            }
            return .link(Link(table: accessor.table.id, key: accessor.key))
        }
        return .link(try core.link(to: self))
    }
}
