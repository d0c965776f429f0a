import StrataStorage

/// What a thread-safe reference records: the file, the version it was made at, and what it
/// names. Not API. Sendable: values, and the source (`ReferenceSource`, locked).
public struct _ThreadSafeHandle: Sendable {
    enum Target: Sendable {
        case object(StoredObject)
        case list(owner: StoredObject, column: Int)
        /// Results of a table, of a List (`owner` names it), or of the objects linking to
        /// `owner`'s object through the origin class's `column` (`isBacklinks`, Spec V26).
        case results(
            className: String, owner: (object: StoredObject, column: Int, isBacklinks: Bool)?,
            predicate: Predicate?, ordering: [OrderingStep])
        /// Sectioned results (or one section) over the collection `base` names (Spec V27):
        /// `sectioning` carries how to section it and how to resolve `base`.
        indirect case sectioned(base: Target, sectioning: SectioningReference)
    }

    /// What a reference to sectioned results carries besides its collection: the key block,
    /// the resolver of the collection, a section's key. RealmSwift hands the key block to
    /// other threads as well; it is called only with the elements of the realm resolving it.
    final class SectioningReference: @unchecked Sendable {
        let parts: Any
        init(_ parts: Any) { self.parts = parts }
    }

    /// The object a reference names: its class, its identity (the key alone would name a
    /// later object created under the same primary key, Spec W12), and the write that created
    /// it while that write may still roll back (`WriteScope`; Spec T5: a reference made inside a
    /// write that is then cancelled resolves to nothing).
    struct StoredObject: Sendable {
        let className: String
        let identity: ObjectIdentity
        let scope: WriteScope?

        init(_ accessor: _ObjectAccessor) {
            className = accessor.info.className
            identity = accessor.identity
            scope = accessor.scope
        }

        /// Whether the object never existed: its creating write was rolled back (Spec T5).
        var isRolledBack: Bool { scope?.isRolledBack ?? false }
    }

    let target: Target
    let fileKey: String
    /// The configuration of the realm the value came from (`@ThreadSafe` opens it to resolve).
    let configuration: Realm.Configuration
    /// The version the value was read at and its pin (Spec T4, T8).
    let source: ReferenceSource
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
/// Sendable (Spec T3). Resolves once (Spec T2). Until it is resolved or released, the reference
/// pins the version it was made at (Spec T8), so keep it only as long as the hand-over needs.
public final class ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    private let handle: Lock<_ThreadSafeHandle?>

    /// A reference to a managed, valid value (Spec T1).
    public init(to threadConfined: Confined) {
        handle = Lock(
            trapping { () throws(Realm.Error) -> _ThreadSafeHandle in try threadConfined._threadSafeHandle() })
    }

    init(handle: _ThreadSafeHandle) { self.handle = Lock(handle) }

    /// The throwing form of `init(to:)`, for the harness.
    package static func _make(to value: Confined) throws(Realm.Error) -> ThreadSafeReference<Confined> {
        ThreadSafeReference(handle: try value._threadSafeHandle())
    }

    /// Whether the reference was resolved (it cannot be resolved again).
    public var isInvalidated: Bool { handle.withLock { $0 == nil } }

    deinit {
        handle.withLock { $0?.source.end(callerHoldsLock: true) }
    }

    /// Spec T2, T4, T5: takes the handle (a second resolve fails), places the realm, resolves.
    func resolve(in core: RealmCore) throws(Realm.Error) -> Confined? {
        try core.checkThread()  // Spec T2 before the read (F6) the resolve makes
        let consumes = !core.file.bugs.contains(.resolveTwice)
        guard
            let taken = handle.withLock({ stored -> _ThreadSafeHandle? in
                defer { if consumes { stored = nil } }
                return stored
            })
        else { throw Realm.Error.resolveTwice }
        defer { taken.source.end() }  // Spec T8: resolved, the source version is released
        return try resolveHandle(taken, in: core)
    }
}

/// Resolves `handle` in `core` without consuming anything (references consume; `@ThreadSafe`
/// resolves the same handle many times).
func resolveHandle<Confined: ThreadConfined>(_ handle: _ThreadSafeHandle, in core: RealmCore) throws(Realm.Error)
    -> Confined?
{
    try core.checkThread()  // Spec C5, D6: nothing is placed on a realm that refuses the call
    // Spec T5: another file does not hold the object.
    guard handle.fileKey == core.configuration.fileKey else { return nil }
    try place(core, at: handle)
    return try Confined._resolve(handle, in: Realm(core: core))
}

/// Spec T4: a realm that never read begins at the source version (when a pin keeps it, or
/// else at the newest); a realm older than the source moves to the newest; a realm at the
/// source or newer stays. Spec V13: a realm invalidated since it last read starts at the newest.
private func place(_ core: RealmCore, at handle: _ThreadSafeHandle) throws(Realm.Error) {
    guard !core.isFrozen, core.write == nil else { return }
    if let read = core.read {
        // Spec T4, N3, N12: a target behind the source refreshes, as `refresh()` does: it moves,
        // its realm observers hear, and its pending collection and object callbacks run.
        if read.version < handle.source.version, try core.moveToNewest() {
            core.notify(.didChange)
            core.deliverPending()
        }
        return
    }
    guard core.epoch == 0 else {
        _ = try core.view()  // Spec V13: the first read after invalidate() is at the newest
        return
    }
    if let pinned = try engine(core.path, { try handle.source.duplicatePin() }) {
        core.read = pinned
        core.mutationCount &+= 1
    } else if let source = try engine(
        core.path, { try core.file.store.beginRead(pinnedVersion: handle.source.version) })
    {
        core.read = source  // still pinned in this process: begin exactly there
        core.mutationCount &+= 1
    } else {
        _ = try core.view()  // no pin (a realm that never read made it): the newest version
    }
}

/// A `Sendable` box for a frozen value (Spec C10): frozen objects and collections never change
/// and are safe to read from any thread, but their types cannot be conditionally `Sendable`.
public struct Frozen<Value: ThreadConfined>: @unchecked Sendable {
    /// The frozen value, readable from any thread.
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
        try accessor.core.checkThread()  // Spec C5, before the validity check (T1)
        guard try !accessor.isInvalidated() else { throw Realm.Error.referenceToInvalidated }
        let core = accessor.core
        return _ThreadSafeHandle(
            target: .object(.init(accessor)), fileKey: core.configuration.fileKey, configuration: core.configuration,
            source: try core.makeReferenceSource(pinning: .object))
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> Self? {
        guard case .object(let stored) = handle.target, !stored.isRolledBack else { return nil }  // Spec T5
        let core = realm.core
        // The reference names its object's own class, which may be a subclass of `Self` (a
        // `ThreadSafeReference<Object>`): resolve as that class.
        guard let info = try resolvedClass(named: stored.className, core: core) else { return nil }
        let view = try core.view()
        guard let table = view.table(named: stored.className),
            try engine(core.path, { try view.contains(table, identity: stored.identity) })
        else {
            return nil  // Spec T5: deleted, or never committed, or its key holds another object
        }
        return try core.makeObject(info.type, info: info, table: table, identity: stored.identity) as? Self
    }

    /// The class named `className` if it is `Self` or a subclass of it, checked against the
    /// file; nil otherwise.
    private static func resolvedClass(named className: String, core: RealmCore) throws(Realm.Error) -> ClassInfo? {
        if ClassInfo.of(self).className == className { return try core.classInfo(self) }
        guard let info = core.knownClass(named: className), info.type is Self.Type else { return nil }
        return info
    }
}

extension List: ThreadConfined {
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        guard let binding else { throw Realm.Error.referenceToUnmanaged }  // Spec T1
        try binding.core.checkThread()  // Spec C6, before the validity check (T1)
        guard try !binding.isInvalidated() else { throw Realm.Error.referenceToInvalidated }
        let core = binding.core
        return _ThreadSafeHandle(
            target: .list(owner: .init(binding.parent), column: binding.column),
            fileKey: core.configuration.fileKey, configuration: core.configuration,
            source: try core.makeReferenceSource(pinning: .list))
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> List<Element>? {
        guard case .list(let owner, let column) = handle.target else { return nil }
        let core = realm.core
        guard let binding = try ListBinding.resolved(owner: owner, column: column, in: core) else { return nil }
        return List(binding: binding)
    }
}

extension ListBinding {
    /// The List of `owner`'s column in `core`. Spec T5: an owner that is gone (deleted, never
    /// committed, or replaced under its key) gives an invalid List, not nil; nil only when
    /// this realm does not know the owner's class.
    static func resolved(
        owner: _ThreadSafeHandle.StoredObject, column: Int,
        in core: RealmCore
    ) throws(Realm.Error) -> ListBinding? {
        guard let info = core.knownClass(named: owner.className) else { return nil }
        let view = try core.view()
        guard let table = view.table(named: owner.className) else { return nil }
        let accessor = _ObjectAccessor(
            core: core, info: info, table: table, identity: owner.identity,
            scope: owner.scope ?? core.scope(for: table, owner.identity))
        return ListBinding(parent: accessor, column: column)
    }
}

extension Results: ThreadConfined {
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        let core = storage.core
        try core.checkThread()  // Spec C6, before the validity check (T1)
        // Spec T1: Results of an invalidated realm (V13, F6) cannot be referenced.
        guard storage.epoch == core.epoch, !core.isFrozenInvalidated else { throw Realm.Error.referenceToInvalidated }
        _ = try evaluate()
        var owner: (object: _ThreadSafeHandle.StoredObject, column: Int, isBacklinks: Bool)?
        switch storage.source {
        case .table: break
        case .list(let binding): owner = (.init(binding.parent), binding.column, false)
        case .backlinks(let binding): owner = (.init(binding.target), binding.originColumn, true)
        }
        return _ThreadSafeHandle(
            target: .results(
                className: storage.info.className, owner: owner, predicate: storage.predicate,
                ordering: storage.ordering),
            fileKey: core.configuration.fileKey, configuration: core.configuration,
            source: try core.makeReferenceSource(pinning: .results))
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> Results<Element>? {
        guard case .results(let className, let owner, let predicate, let ordering) = handle.target else { return nil }
        let core = realm.core
        let info = try core.classInfo(Element.self)
        guard info.className == className else { return nil }
        var source = Source.table
        if let owner {
            // Spec T5: Results over a List whose owner is gone are valid and empty, and so are
            // backlinks of a target that is gone (V26).
            guard let binding = try ListBinding.resolved(owner: owner.object, column: owner.column, in: core) else {
                return nil
            }
            if owner.isBacklinks {
                guard info.schema.properties.indices.contains(owner.column) else { return nil }
                source = .backlinks(
                    BacklinkBinding(
                        target: binding.parent, originColumn: owner.column,
                        propertyName: info.schema.properties[owner.column].name))
            } else {
                source = .list(binding)
            }
        }
        return Results(core: core, info: info, source: source, predicate: predicate, ordering: ordering)
    }
}

extension RealmCore {
    /// What a reference names, for the seeded bugs that break one kind's pin.
    enum ReferenceKind {
        case object, list, results
    }

    /// The source of a reference made now (Spec T4), settled when an open write ends, with the
    /// pin that keeps its version readable until it is resolved or released (Spec T8).
    func makeReferenceSource(pinning kind: ReferenceKind) throws(Realm.Error) -> ReferenceSource {
        let skipsPin =
            switch kind {
            case .results: file.bugs.contains(.resultsReferenceDoesNotPin)
            case .object, .list: file.bugs.contains(.objectReferenceDoesNotPin)
            }
        var pin: ReadTransaction?
        if !skipsPin, let read = frozenRead ?? read {
            pin = try engine(path) { try read.duplicate(kind: .frozen) }
        }
        let source = ReferenceSource(version: sourceVersion, pin: pin)
        if write != nil { referencesInWrite.append(PendingReferenceSource(source: source)) }
        return source
    }

    /// The version a reference made now names (Spec T4): inside a write, the one it began at
    /// until the write ends (`ReferenceSource`); else the read version (the newest, if not
    /// reading).
    var sourceVersion: Version {
        if let write { return write.baseVersion }
        if let frozenRead { return frozenRead.version }
        return read?.version ?? file.store.newestVersion
    }
}
