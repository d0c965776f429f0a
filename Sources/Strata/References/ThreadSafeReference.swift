import StrataStorage

/// What a thread-safe reference records: the file, the version it was made at, and what it
/// names. Not API. Sendable: only values, and for Results a frozen pin (Spec T8).
public struct _ThreadSafeHandle: Sendable {
    enum Target: Sendable {
        case object(className: String, key: ObjectKey)
        case list(ownerClass: String, key: ObjectKey, column: Int)
        case results(className: String, owner: (className: String, key: ObjectKey, column: Int)?,
                     predicate: Predicate?, sort: [SortKey])
    }

    struct SortKey: Sendable {
        let column: Int
        let ascending: Bool
    }

    let target: Target
    let fileKey: String
    /// The version the value was read at; inside a write, the version its commit will make.
    let sourceVersion: Version
    /// Results references pin their source version until resolved or released (Spec T8).
    let pin: ReadTransaction?
}

/// Carries a live object, Results or List to another thread or queue, where `resolve` gives
/// the same value in that context's realm.
///
/// ```swift
/// let reference = ThreadSafeReference(to: person)
/// DispatchQueue(label: "bg").async {
///     do {
///         let realm = try Realm()
///         guard let person = realm.resolve(reference) else { return }  // nil: deleted meanwhile
///         try realm.write { person.name = "Jane" }
///     } catch {
///         print("could not update: \(error)")
///     }
/// }
/// ```
///
/// Sendable (Spec T3). Resolves once (Spec T2). A reference to Results pins its source version
/// until resolved or released (Spec T8); references to objects and Lists pin nothing.
public final class ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    private let handle: Lock<_ThreadSafeHandle?>

    /// A reference to a managed, valid value (Spec T1).
    public init(to threadConfined: Confined) {
        handle = Lock(trapping { () throws(Realm.Error) -> _ThreadSafeHandle in try threadConfined._threadSafeHandle() })
    }

    init(handle: _ThreadSafeHandle) { self.handle = Lock(handle) }

    /// The throwing form of `init(to:)`, for the harness.
    @_spi(StrataCheck)
    public static func _make(to value: Confined) throws(Realm.Error) -> ThreadSafeReference<Confined> {
        ThreadSafeReference(handle: try value._threadSafeHandle())
    }

    /// Whether the reference was resolved (it cannot be resolved again).
    public var isInvalidated: Bool { handle.withLock { $0 == nil } }

    deinit {
        handle.withLock { $0?.pin?.end() }
    }

    /// Spec T2, T4, T5: takes the handle (a second resolve fails), places the realm, resolves.
    func resolve(in core: RealmCore) throws(Realm.Error) -> Confined? {
        try core.checkAccess()
        guard let taken = handle.withLock({ stored -> _ThreadSafeHandle? in
            defer { stored = nil }
            return stored
        }) else { throw Realm.Error.resolveTwice }
        defer { taken.pin?.end() }  // Spec T8: resolved, the source version is released
        return try resolveHandle(taken, in: core)
    }
}

/// Resolves `handle` in `core` without consuming anything (references consume; `@ThreadSafe`
/// resolves the same handle many times).
func resolveHandle<Confined: ThreadConfined>(_ handle: _ThreadSafeHandle, in core: RealmCore) throws(Realm.Error) -> Confined? {
    // Spec T5: another file does not hold the object.
    guard handle.fileKey == core.configuration.fileKey else { return nil }
    try place(core, at: handle)
    return try Confined._resolve(handle, in: Realm(core: core))
}

/// Spec T4: a realm that is not reading begins at the source version (when a pin keeps it, or
/// else at the newest); a realm older than the source moves to the newest; a realm at the
/// source or newer stays.
private func place(_ core: RealmCore, at handle: _ThreadSafeHandle) throws(Realm.Error) {
    guard !core.isFrozen, core.write == nil else { return }
    if let read = core.read {
        if read.version < handle.sourceVersion, try core.moveToNewest() { core.notify(.didChange) }  // Spec N3
        return
    }
    if let pin = handle.pin {
        core.read = try engine(core.path) { try pin.duplicate(kind: .live) }
        core.mutationCount &+= 1
    } else if let source = try engine(core.path, { try core.file.store.beginRead(pinnedVersion: handle.sourceVersion) }) {
        core.read = source  // still pinned in this process: begin exactly there
        core.mutationCount &+= 1
    } else {
        _ = try core.view()  // reclaimed meanwhile (T8 lets it go): the newest version
    }
}

/// A `Sendable` box for a frozen value (Spec C10): frozen objects and collections never change
/// and are safe to read from any thread, but their types cannot be conditionally `Sendable`.
public struct Frozen<Value: ThreadConfined>: @unchecked Sendable {
    public let value: Value

    /// Boxes a frozen value; traps for a live or unmanaged one.
    public init(_ value: Value) {
        precondition(value.isFrozen, "Only frozen values can be wrapped in Frozen; call freeze() first")
        self.value = value
    }
}

// MARK: conformances

extension Object: ThreadConfined {
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        guard let accessor = _accessor else { throw Realm.Error.referenceToUnmanaged }  // Spec T1
        guard try !accessor.isInvalidated() else { throw Realm.Error.referenceToInvalidated }
        let core = accessor.core
        return _ThreadSafeHandle(target: .object(className: accessor.info.className, key: accessor.key),
                                 fileKey: core.configuration.fileKey, sourceVersion: core.sourceVersion, pin: nil)
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> Self? {
        guard case .object(let className, let key) = handle.target else { return nil }
        let core = realm.core
        let info = try core.classInfo(self)
        guard info.className == className else { return nil }
        let view = try core.view()
        guard let table = view.table(named: className),
              try engine(core.path, { try view.contains(table, key: key) }) else { return nil }  // Spec T5
        return try core.makeObject(self, info: info, table: table, key: key)
    }
}

extension List: ThreadConfined {
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        guard let binding else { throw Realm.Error.referenceToUnmanaged }  // Spec T1
        guard try !binding.isInvalidated() else { throw Realm.Error.referenceToInvalidated }
        let core = binding.core
        return _ThreadSafeHandle(target: .list(ownerClass: binding.parent.info.className, key: binding.parent.key,
                                               column: binding.column),
                                 fileKey: core.configuration.fileKey, sourceVersion: core.sourceVersion, pin: nil)
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> List<Element>? {
        guard case .list(let ownerClass, let key, let column) = handle.target else { return nil }
        let core = realm.core
        guard let info = core.knownClass(named: ownerClass) else { return nil }
        let view = try core.view()
        guard let table = view.table(named: ownerClass) else { return nil }
        // Spec T5: an owner that is gone gives an invalid List, not nil.
        let accessor = _ObjectAccessor(core: core, info: info, table: table, key: key)
        return List(binding: ListBinding(parent: accessor, column: column))
    }
}

extension Results: ThreadConfined {
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        _ = try evaluate()  // Spec C6, V13
        let core = storage.core
        var owner: (className: String, key: ObjectKey, column: Int)?
        if case .list(let binding) = storage.source {
            owner = (binding.parent.info.className, binding.parent.key, binding.column)
        }
        // Spec T8: pin the version the Results were read at.
        let pin: ReadTransaction?
        if let read = core.frozenRead ?? core.read {
            pin = try engine(core.path) { try read.duplicate(kind: .frozen) }
        } else {
            pin = nil
        }
        return _ThreadSafeHandle(
            target: .results(className: storage.info.className, owner: owner, predicate: storage.predicate,
                             sort: storage.sort.map { _ThreadSafeHandle.SortKey(column: $0.column, ascending: $0.ascending) }),
            fileKey: core.configuration.fileKey, sourceVersion: core.sourceVersion, pin: pin)
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> Results<Element>? {
        guard case .results(let className, let owner, let predicate, let sort) = handle.target else { return nil }
        let core = realm.core
        let info = try core.classInfo(Element.self)
        guard info.className == className else { return nil }
        var source = Source.table
        if let owner {
            guard let ownerInfo = core.knownClass(named: owner.className) else { return nil }
            let view = try core.view()
            guard let table = view.table(named: owner.className) else { return nil }
            let accessor = _ObjectAccessor(core: core, info: ownerInfo, table: table, key: owner.key)
            source = .list(ListBinding(parent: accessor, column: owner.column))
        }
        return Results(core: core, info: info, source: source, predicate: predicate,
                       sort: sort.map { ($0.column, $0.ascending) })
    }
}

extension RealmCore {
    /// The version a reference made now names (Spec T4): inside a write, the one its commit
    /// will make; else the read version (the newest, if not reading).
    var sourceVersion: Version {
        if let write { return write.newVersion }
        if let frozenRead { return frozenRead.version }
        return read?.version ?? file.store.newestVersion
    }
}
