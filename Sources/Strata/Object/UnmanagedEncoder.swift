import StrataStorage

/// How `add` reads one column of an unmanaged object into its row: the wrapper's offset in an
/// instance and what the column holds. The common scalar types (`Int`, `String`, `Bool`,
/// `Double`) are read in place as their own `Persisted<V>`, in code specialised for them; a
/// link (stored in a second step, once the object has its key) gets a placeholder; any other
/// type goes through its wrapper's generic witness (`PersistedProperty.encodeUnmanaged`),
/// which costs a call through the type's metadata per value.
struct UnmanagedEncoder {
    enum Kind {
        case int, string, bool, double
        /// A to-one link (`.null` until the second step) or a List of links (`.list([])`).
        case link(isList: Bool)
        case generic(any PersistedProperty.Type)
    }

    let offset: Int
    let kind: Kind

    /// The encoder of a wrapper of `type` at `offset`; `isLink`/`isList` from the column's schema.
    init(offset: Int, type: any PersistedProperty.Type, isLink: Bool, isList: Bool) {
        self.offset = offset
        let wrapper = ObjectIdentifier(type)
        if isLink {
            kind = .link(isList: isList)
        } else if wrapper == ObjectIdentifier(Persisted<Int>.self) {
            kind = .int
        } else if wrapper == ObjectIdentifier(Persisted<String>.self) {
            kind = .string
        } else if wrapper == ObjectIdentifier(Persisted<Bool>.self) {
            kind = .bool
        } else if wrapper == ObjectIdentifier(Persisted<Double>.self) {
            kind = .double
        } else {
            kind = .generic(type)
        }
    }

    /// The stored form of the column's value in the instance whose storage starts at `storage`.
    @inline(__always)
    func encode(_ storage: UnsafeMutableRawPointer) throws(Realm.Error) -> StrataStorage.Value {
        let wrapper = storage + offset
        switch kind {
        case .int: return .int(Int64(wrapper.assumingMemoryBound(to: Persisted<Int>.self).pointee.unmanagedValue))
        case .string: return .string(wrapper.assumingMemoryBound(to: Persisted<String>.self).pointee.unmanagedValue)
        case .bool: return .bool(wrapper.assumingMemoryBound(to: Persisted<Bool>.self).pointee.unmanagedValue)
        case .double: return .double(wrapper.assumingMemoryBound(to: Persisted<Double>.self).pointee.unmanagedValue)
        case .link(let isList): return isList ? .list([]) : .null
        case .generic(let type): return try type.encodeUnmanaged(at: wrapper, realm: nil)
        }
    }
}
