import StrataStorage

// Maps as property values: their stored form (a list column flagged as a map, Spec V25), the
// live map a managed object's property reads, and the unmanaged map an unmanaged object holds
// and `add` makes managed in place.

extension Map: _RealmValue, _Persistable {
    public static var _strataKind: _PropertyKind {
        var kind = Value._strataKind
        kind.isList = true
        kind.isMap = true
        return kind
    }

    public static func _strataDefault() -> Map<Key, Value> { Map() }

    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error) -> Map<Key, Value>
    {
        guard case .list(let flat) = value else { throw Realm.Error(.fail, "stored value \(value) is not a map") }
        var entries: [(key: String, value: Value)] = []
        for index in 0..<(flat.count / 2) {
            guard case .string(let key) = flat[2 * index] else { continue }
            entries.append((key, try Value._strataDecode(flat[2 * index + 1], realm: realm)))
        }
        let map = Map()
        map.backing = .unmanaged(entries)
        return map
    }

    /// The stored form: `[key0, value0, …]` in key order (unmanaged objects added to `realm`).
    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        var flat: [StrataStorage.Value] = []
        for (key, value) in try entries() {
            try MapEntries.checkKey(key)
            flat.append(.string(key))
            flat.append(try value._strataEncode(realm: realm))
        }
        return .list(MapEntries.normalized(flat))
    }

    /// A managed object's map property: a live map over its column; the same instance on every
    /// read of a live object.
    public static func _strataGet(
        _ accessor: _ObjectAccessor, column: Int,
        cache: inout AnyObject?
    ) throws(Realm.Error) -> Map<Key, Value> {
        try accessor.core.checkAccess()
        if let cached = cache as? Map<Key, Value>, cached.binding?.parent === accessor { return cached }
        let map = Map(binding: ListBinding(parent: accessor, column: column))
        if !accessor.isFrozen { cache = map }
        return map
    }

    /// Assigning a map property replaces its entries; assigning its own map keeps them.
    public static func _strataSet(_ value: Map<Key, Value>, _ accessor: _ObjectAccessor, column: Int)
        throws(Realm.Error)
    {
        let binding = ListBinding(parent: accessor, column: column)
        try binding.checkMutable()
        if let source = value.binding, source.core === accessor.core, source.column == column,
            source.parent.table.id == accessor.table.id, source.parent.identity == accessor.identity
        {
            return
        }
        try Map(binding: binding).replaceAll(with: try value.entries())
    }

    /// A new unmanaged map of the entries `any` gives (a Map or a dictionary).
    public static func _strataUnmanaged(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> Map<Key, Value> {
        let map = Map()
        for (key, element) in try AnyValue.mapEntries(any, path) {
            try map._updateValue(try Value._strataUnmanaged(element, path), forKey: Key(_strataKey: key))
        }
        return map
    }

    /// A map property's value is the instance its wrapper keeps.
    public static var _strataKeepsInstance: Bool { true }

    /// Assigning an unmanaged map property fills the map the object holds.
    public static func _strataAssign(_ newValue: Map<Key, Value>, to storage: inout Map<Key, Value>) {
        if storage.assignContents(of: newValue) { return }
        storage = newValue
    }
}

extension Map: ContentsAssignable {
    func assignContents(of other: Any) -> Bool {
        guard binding == nil, let other = other as? Map<Key, Value> else { return false }
        if other === self { return true }
        guard let entries = try? other.entries() else { return false }
        backing = .unmanaged(entries)
        return true
    }
}

extension Map: ManagedAdoptable {
    func adopt(parent: _ObjectAccessor, column: Int) {
        backing = .managed(ListBinding(parent: parent, column: column))
    }
}

extension Map: AnyMapConvertible {
    func anyEntries() throws(Realm.Error) -> [(String, Any?)] { try entries().map { ($0.key, $0.value) } }
}

extension Map: ThreadConfined {
    /// A reference to the map of its owner's column (Spec T1, T5 as for a List).
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        guard let binding else { throw Realm.Error.referenceToUnmanaged }
        return try List<Int>(binding: binding)._threadSafeHandle()
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> Map<Key, Value>? {
        try List<Int>._resolve(handle, in: realm).flatMap { $0.binding.map { Map(binding: $0) } }
    }
}
