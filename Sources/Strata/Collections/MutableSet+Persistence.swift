import StrataStorage

// MutableSets as property values: their stored form (a list column flagged as a set, its
// elements distinct and in `SetOrder`, Spec V24), the live set a managed object's property
// reads, and the unmanaged set an unmanaged object holds and `add` makes managed in place.

extension MutableSet: _RealmValue, _Persistable {
    public static var _strataKind: _PropertyKind {
        var kind = Element._strataKind
        kind.isList = true
        kind.isSet = true
        return kind
    }

    public static func _strataDefault() -> MutableSet<Element> { MutableSet() }

    public static func _strataDecode(_ value: Value, realm: Realm?) throws(Realm.Error) -> MutableSet<Element> {
        MutableSet(storage: try List<Element>._strataDecode(value, realm: realm))
    }

    /// The stored form: the elements' (unmanaged objects added to `realm`), distinct and in
    /// set order.
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> Value {
        guard case .list(let encoded) = try storage._strataEncode(realm: realm) else { return .list([]) }
        return .list(SetOrder.normalized(encoded))
    }

    /// A managed object's set property: a live set over its column; the same instance on every
    /// read of a live object.
    public static func _strataGet(
        _ accessor: _ObjectAccessor, column: Int,
        cache: inout AnyObject?
    ) throws(Realm.Error) -> MutableSet<Element> {
        try accessor.core.checkAccess()
        if let cached = cache as? MutableSet<Element>, cached.binding?.parent === accessor { return cached }
        let set = MutableSet(storage: List(binding: ListBinding(parent: accessor, column: column)))
        if !accessor.isFrozen { cache = set }
        return set
    }

    /// Assigning a set property replaces its elements; assigning the property's own set keeps
    /// them (realm-core's `assign` of the same collection writes nothing).
    public static func _strataSet(_ value: MutableSet<Element>, _ accessor: _ObjectAccessor, column: Int)
        throws(Realm.Error)
    {
        let binding = ListBinding(parent: accessor, column: column)
        try binding.checkMutable()
        if let source = value.binding, source.core === accessor.core, source.column == column,
            source.parent.table.id == accessor.table.id, source.parent.identity == accessor.identity
        {
            return
        }
        try MutableSet(storage: List(binding: binding)).replaceAll(with: try value.elements())
    }

    /// A new unmanaged set holding the distinct elements `any` gives (a collection or an array;
    /// nil and NSNull give none).
    public static func _strataUnmanaged(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> MutableSet<Element> {
        let set = MutableSet()
        try set.replaceAll(with: try List<Element>._strataUnmanaged(any, path).elements())
        return set
    }

    /// A set property's value is the instance its wrapper keeps.
    public static var _strataKeepsInstance: Bool { true }

    /// Assigning an unmanaged set property fills the set the object holds; a managed set there
    /// is replaced.
    public static func _strataAssign(_ newValue: MutableSet<Element>, to storage: inout MutableSet<Element>) {
        if storage.assignContents(of: newValue) { return }
        storage = newValue
    }
}

extension MutableSet: ContentsAssignable {
    /// An unmanaged set takes the elements of `other`, as an unmanaged List does.
    func assignContents(of other: Any) -> Bool {
        guard binding == nil, let other = other as? MutableSet<Element> else { return false }
        if other === self { return true }
        guard let elements = try? other.elements() else { return false }
        storage.backing = .unmanaged(elements)
        return true
    }
}

extension MutableSet: ManagedAdoptable {
    func adopt(parent: _ObjectAccessor, column: Int) { storage.adopt(parent: parent, column: column) }
}

extension MutableSet: AnyListConvertible {
    func anyElements() throws(Realm.Error) -> [Any?] { try elements().map { $0 } }
}

extension MutableSet: ThreadConfined {
    /// A reference to the set of its owner's column (Spec T1, T5 as for a List).
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        guard binding != nil else { throw Realm.Error.referenceToUnmanaged }
        return try storage._threadSafeHandle()
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> MutableSet<
        Element
    >? {
        try List<Element>._resolve(handle, in: realm).map { MutableSet(storage: $0) }
    }
}
