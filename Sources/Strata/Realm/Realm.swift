import Dispatch
import Foundation
import StrataStorage

/// A realm: a view of one file (or in-memory identifier) confined to the thread or serial
/// queue that opened it.
///
/// ```swift
/// let realm = try Realm()
/// try realm.write {
///     realm.add(Dog(value: ["name": "Rex", "age": 3]))
/// }
/// let puppies = realm.objects(Dog.self).where { $0.age < 2 }
/// ```
///
/// `Realm()` returns the same instance for the same configuration in the same context
/// (Spec C1). A realm reads one version until it refreshes (Spec V1, V2). Live realms are
/// not Sendable (Spec C10): every use from another context is a wrong-thread error (Spec C8).
/// Frozen realms (`freeze()`) never change and may be used anywhere.
public struct Realm: Hashable {
    let core: RealmCore

    init(core: RealmCore) { self.core = core }

    // MARK: opening

    /// Opens the realm of `configuration` for the calling thread, or for `queue` when given
    /// (the caller must be running on it; Spec C3, C4).
    /// - Throws: `Realm.Error` for file errors (Spec X6), a schema mismatch, or a context that
    ///   cannot own a realm.
    public init(configuration: Configuration = .defaultConfiguration, queue: DispatchQueue? = nil) throws {
        core = try RealmCore.open(configuration, queue: queue)
    }

    /// Opens the default configuration's realm confined to `queue`.
    public init(queue: DispatchQueue?) throws {
        core = try RealmCore.open(.defaultConfiguration, queue: queue)
    }

    /// Opens the realm at `fileURL` with the default configuration's other settings.
    public init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        core = try RealmCore.open(configuration, queue: nil)
    }

    /// Takes `queue` as serial without the serial-queue probe (`QueueToken.declareSerial`): the
    /// harness made it serial itself.
    package static func _declareSerial(_ queue: DispatchQueue) { QueueToken.declareSerial(queue) }

    /// `Realm(configuration:queue:)` with `Realm.Error` as the thrown type (the harness's entry).
    package static func _open(configuration: Configuration, queue: DispatchQueue?) throws(Realm.Error) -> Realm {
        Realm(core: try RealmCore.open(configuration, queue: queue))
    }

    /// The configuration the realm was opened with. Readable from any thread (Spec C8).
    public var configuration: Configuration { core.configuration }

    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.core === rhs.core }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(core)) }

    // MARK: state

    /// Whether the realm holds no objects (RealmTests.testIsEmpty).
    public var isEmpty: Bool { trapping { () throws(Realm.Error) -> Bool in try _isEmpty() } }

    package func _isEmpty() throws(Realm.Error) -> Bool {
        let view = try core.view()
        return view.tables().allSatisfy { $0.rowCount == 0 }
    }

    /// Whether a write transaction is open on this realm.
    public var isInWriteTransaction: Bool {
        trapping { () throws(Realm.Error) -> Bool in
            if core.isFrozen { return false }
            try core.confinement.check()  // Spec D6: still answers once the file is poisoned
            return core.isInWriteTransaction
        }
    }

    /// Whether the realm moves to new versions by itself when its context's loop turns
    /// (Spec V6, V7). Belongs to the cached instance.
    public var autorefresh: Bool {
        get {
            // A setting, not a read: neither F6 nor D6 refuses it (a frozen realm, invalidated
            // or not, and a poisoned file's realm answer).
            trapping { () throws(Realm.Error) -> Bool in
                if core.isFrozen { return false }
                try core.confinement.check()
                return core.autorefresh
            }
        }
        nonmutating set { trapping { () throws(Realm.Error) in try _setAutorefresh(newValue) } }
    }

    /// Setting `autorefresh`, throwing: a frozen realm refuses `true` (Spec F2; realm-core's
    /// `Realm::set_auto_refresh`, which checks no thread).
    package func _setAutorefresh(_ value: Bool) throws(Realm.Error) {
        if core.isFrozen {
            if value { throw Realm.Error.frozenAutorefresh }
            return
        }
        try core.confinement.check()
        core.autorefresh = value
    }

    /// Whether the realm is frozen (Spec F1).
    public var isFrozen: Bool { core.isFrozen }

    // MARK: versions

    /// Moves to the newest version; true exactly when the realm moved, or, on a realm that is
    /// not reading, when it began a read there (Spec V4). A read-only realm (also frozen)
    /// refuses, before any other check, as `-[RLMRealm refresh]` (Spec X10).
    @discardableResult
    public func refresh() -> Bool { trapping { () throws(Realm.Error) -> Bool in try _refresh() } }

    package func _refresh() throws(Realm.Error) -> Bool {
        if core.configuration.readOnly { throw Realm.Error.readOnlyRefresh }
        return try core.refresh()
    }

    /// Ends the realm's read (and rolls back any write): objects and collections obtained
    /// before are invalidated for good; the next read starts at the newest version (Spec V13).
    public func invalidate() { trapping { () throws(Realm.Error) in try core.invalidate() } }

    package func _invalidate() throws(Realm.Error) { try core.invalidate() }

    /// The instance behind this value: two `Realm` values are `==` exactly when it is the same.
    /// The harness keeps it weakly to learn whether a dropped realm is still cached.
    package var _instance: AnyObject { core }

    /// The realm of an instance `_instance` returned, which the harness kept weakly: a realm it
    /// let go of while its context still holds it (Spec C1, A21) runs the harness's async blocks.
    package init?(_instance instance: AnyObject) {
        guard let core = instance as? RealmCore else { return nil }
        self.init(core: core)
    }

    /// The version the realm reads, or nil when it is not reading (for tests and the harness).
    package var _readVersion: UInt64? {
        if let frozen = core.frozenRead { return frozen.version.rawValue }
        return core.read?.version.rawValue
    }

    // MARK: writes

    /// Runs `block` in a write transaction and commits it, returning the block's result. If the
    /// block throws, the write is rolled back and the error rethrown (Spec W6). A block that
    /// ends the write itself (`cancelWrite`) is not committed again.
    /// - Throws: the block's error; `Realm.Error` when the commit fails (Spec W17) or the
    ///   active-version limit is exceeded (Spec L2).
    @discardableResult
    public func write<Result>(
        withoutNotifying tokens: [NotificationToken] = [],
        _ block: () throws -> Result
    ) throws -> Result {
        try core.beginWrite()
        let result: Result
        do {
            result = try block()
        } catch {
            if core.isInWriteTransaction { try? core.cancelWrite() }
            throw error
        }
        if core.isInWriteTransaction { try core.commitWrite(skipping: tokens) }
        return result
    }

    /// Begins a write transaction, waiting for any other writer (Spec W1, V11).
    public func beginWrite() { trapping { () throws(Realm.Error) in try core.beginWrite() } }

    package func _beginWrite() throws(Realm.Error) { try core.beginWrite() }

    /// Commits the write transaction (Spec W16).
    /// - Throws: `Realm.Error` when the commit fails; the realm is then not in a write (W17).
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        try core.commitWrite(skipping: tokens)
    }

    package func _commitWrite() throws(Realm.Error) { try core.commitWrite() }

    /// Discards the write transaction's changes (Spec W5).
    public func cancelWrite() { trapping { () throws(Realm.Error) in try core.cancelWrite() } }

    package func _cancelWrite() throws(Realm.Error) { try core.cancelWrite() }

    // MARK: objects

    /// Adds an unmanaged object (and the unmanaged objects it links to). Adding an object this
    /// realm already manages does nothing (Spec W10).
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        trapping { () throws(Realm.Error) in try _add(object, update: update) }
    }

    package func _add(_ object: Object, update: UpdatePolicy = .error) throws(Realm.Error) {
        if update != .error { try Self.checkHasPrimaryKey(type(of: object)) }
        try core.add(object, policy: update)
    }

    /// An update policy needs a primary key: checked first, before the realm is touched, as
    /// RealmSwift's `add` and `create` (`RLMVerifyHasPrimaryKey`) do.
    private static func checkHasPrimaryKey(_ type: Object.Type) throws(Realm.Error) {
        let info = ClassInfo.of(type)
        if info.schema.primaryKeyIndex == nil { throw Realm.Error.noPrimaryKey(type: info.className) }
    }

    /// Adds every object of `objects`.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        for object in objects { add(object, update: update) }
    }

    /// Creates an object from a dictionary, an array of property values in order, or another
    /// object (copied deeply, also from another realm: Spec W14).
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        trapping { () throws(Realm.Error) -> T in try _create(type, value: value, update: update) }
    }

    package func _create<T: Object>(_ type: T.Type, value: Any, update: UpdatePolicy) throws(Realm.Error) -> T {
        if update != .error { try Self.checkHasPrimaryKey(type) }
        _ = try core.requireWrite()  // Spec W9 next, as Realm checks the write before the value
        let info = try core.classInfo(type)
        let (table, identity, inserted) = try core.createObject(info, value: value, policy: update)
        // An object just inserted was created by this write (`WriteScope`); no lookup needed.
        let scope = inserted ? core.writeScope : core.scope(for: table, identity)
        return try core.makeObject(type, info: info, table: TableHandle(table), identity: identity, scope: scope)
    }

    /// Deletes a managed object of this realm (Spec W11, W12).
    public func delete(_ object: Object) {
        trapping { () throws(Realm.Error) in try _delete(object) }
    }

    package func _delete(_ object: Object) throws(Realm.Error) {
        let target = try core.keyForDelete(object)
        try core.deleteObjects([target])
        object._accessor?.isDetachedByDelete = true  // Spec W12: its `realm` is nil now
    }

    /// Deletes every object of `objects` (a sequence, Results or List; Spec W11, W13).
    public func delete<S: Sequence>(_ objects: S) where S.Element: Object {
        trapping { () throws(Realm.Error) in try _delete(objects) }
    }

    package func _delete<S: Sequence>(_ objects: S) throws(Realm.Error) where S.Element: Object {
        if let collection = objects as? any RealmCollectionBase, collection.isManagedCollection {
            try collection.checkDeletable(by: core)
            let targets = try collection.targetKeys()
            try core.deleteObjects(targets)
            return
        }
        // Spec W24: the objects are taken once, before anything is deleted: a live sequence (a
        // slice of Results or of a List) shrinks as they go, so it is not iterated again.
        var targets: [(TableInfo, ObjectKey)] = []
        var taken: [Object] = []
        for object in objects {
            targets.append(try core.keyForDelete(object))
            taken.append(object)
        }
        try core.deleteObjects(targets)
        for object in taken { object._accessor?.isDetachedByDelete = true }  // Spec W12
    }

    /// Deletes every object of every class (Spec W12).
    public func deleteAll() { trapping { () throws(Realm.Error) in try core.deleteAll() } }

    package func _deleteAll() throws(Realm.Error) { try core.deleteAll() }

    /// Every object of `type`, live (Spec V1: at the realm's version).
    public func objects<T: Object>(_ type: T.Type) -> Results<T> {
        trapping { () throws(Realm.Error) -> Results<T> in try _objects(type) }
    }

    package func _objects<T: Object>(_ type: T.Type) throws(Realm.Error) -> Results<T> {
        _ = try core.view()  // Spec V10: a query is a read; it begins one (Realm reads the table)
        let info = try core.classInfo(type)
        return Results(core: core, info: info, source: .table)
    }

    /// The object of `type` whose primary key is `key`; nil if there is none.
    @inlinable
    public func object<T: Object, K>(ofType type: T.Type, forPrimaryKey key: K) -> T? {
        // Specialised in the caller's module, the test of `K` is decided at compile time: an
        // integer key skips the dynamic casts that validate a key of any type.
        if K.self == Int.self, let key = key as? Int { return _object(ofType: type, intPrimaryKey: key) }
        return _objectTrapping(ofType: type, forPrimaryKey: key)
    }

    @usableFromInline
    func _objectTrapping<T: Object, K>(ofType type: T.Type, forPrimaryKey key: K) -> T? {
        trapping { () throws(Realm.Error) -> T? in try _object(ofType: type, forPrimaryKey: key) }
    }

    /// `object(ofType:forPrimaryKey:)` with an `Int` key.
    @usableFromInline
    func _object<T: Object>(ofType type: T.Type, intPrimaryKey key: Int) -> T? {
        trapping { () throws(Realm.Error) -> T? in
            let info = try core.classInfo(type)
            guard info.hasIntPrimaryKey else {
                return try _object(ofType: type, forPrimaryKey: key)  // the checks and their messages
            }
            let view = try core.view()
            guard let table = core.tableHandle(for: info, in: view) else { return nil }
            return try object(type, info: info, table: table, view: view, primaryKey: .int(Int64(key)))
        }
    }

    package func _object<T: Object, K>(ofType type: T.Type, forPrimaryKey key: K) throws(Realm.Error) -> T? {
        let info = try core.classInfo(type)
        guard let column = info.schema.primaryKeyIndex else {
            throw Realm.Error.primaryKeyUndefined(type: info.className)
        }
        let view = try core.view()
        guard let table = core.tableHandle(for: info, in: view) else { return nil }
        let property = info.schema.properties[column]
        let value: StrataStorage.Value
        if let direct = key as? any _RealmValue, !(Swift.type(of: direct) is Object.Type),
            Self.fits(Swift.type(of: direct)._strataKind, property)
        {
            value = try direct._strataEncode(realm: nil)  // one cast, not AnyValue's search
        } else {
            // Realm's RLMValidateValueForProperty: a key of another type is rejected naming
            // the class and the property ("... for 'int' property 'Dog.id'.").
            value = try AnyValue.encode(key, property: property, className: info.className, core: core, policy: .error)
        }
        return try object(type, info: info, table: table, view: view, primaryKey: value)
    }

    /// The object of `type` whose primary key is stored as `value`, made with the row the
    /// lookup read (one search: its first property reads need no other).
    private func object<T: Object>(
        _ type: T.Type, info: ClassInfo, table: TableHandle, view: VersionView, primaryKey value: StrataStorage.Value
    ) throws(Realm.Error) -> T? {
        // The accessor is made while the row is borrowed: a live one keeps a copy of it (not
        // of one with values in overflow pages: those are left to its property reads).
        let core = self.core
        let accessor = try engine(core.path) {
            try view.withObjectRow(table.info, primaryKey: value) { identity, row -> _ObjectAccessor in
                let accessor = core.makeAccessor(info: info, table: table, identity: identity)
                if !core.isFrozen { accessor.prefill(row, stamp: core.stamp) }
                return accessor
            }
        }
        guard let accessor else { return nil }
        return core.makeObject(type, info: info, accessor: accessor)
    }

    /// Whether a value of `kind` is stored as `property` stores its values as they are.
    private static func fits(_ kind: _PropertyKind, _ property: PropertySchema) -> Bool {
        kind.type == property.type && !kind.isList && !property.isList && (property.isOptional || !kind.isOptional)
    }

    // MARK: freeze and thaw (Spec F)

    /// A frozen realm at this realm's version (Spec F1): the same frozen realm for the same
    /// version, never changing. Freezing a frozen realm returns it.
    public func freeze() -> Realm { trapping { () throws(Realm.Error) -> Realm in try _freeze() } }

    package func _freeze() throws(Realm.Error) -> Realm { Realm(core: try core.freeze()) }

    /// The live realm of this configuration for the calling thread (Spec F7); a live realm
    /// returns itself.
    public func thaw() -> Realm { trapping { () throws(Realm.Error) -> Realm in try _thaw() } }

    package func _thaw() throws(Realm.Error) -> Realm {
        guard core.isFrozen else { return self }
        return Realm(core: try core.liveRealmForCurrentThread())
    }

    /// A frozen copy of `object`, which must belong to this realm: it reads this realm's
    /// version forever and may be used on any thread (Spec F2, F15). Same as `object.freeze()`.
    public func freeze<T: Object>(_ object: T) -> T { object.freeze() }
    /// A frozen copy of `results`, which keeps its query and order and reads this realm's
    /// version forever (Spec F2, F15). Same as `results.freeze()`.
    public func freeze<T: Object>(_ results: Results<T>) -> Results<T> { results.freeze() }
    /// A frozen copy of `list`, reading this realm's version forever (Spec F2, F15). Same as
    /// `list.freeze()`.
    public func freeze<T: RealmCollectionValue>(_ list: List<T>) -> List<T> { list.freeze() }

    /// Resolves a reference in this realm (Spec T2, T4, T5): nil if the object is gone.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        trapping { () throws(Realm.Error) -> Confined? in try _resolve(reference) }
    }

    package func _resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) throws(Realm.Error)
        -> Confined?
    {
        try reference.resolve(in: core)
    }

    // MARK: files (Spec X)

    /// Writes a compacted copy of the realm's current data to `fileURL` (Spec X3, X4): its read
    /// version, or inside a write transaction the write's data as it is now.
    /// - Throws: `.fileExists`, `.fileNotFound` (parent missing), `.filePermissionDenied`;
    ///   `.fail` for a non-nil `encryptionKey` (Strata does not encrypt).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        try _writeCopy(toFile: fileURL, encryptionKey: encryptionKey)
    }

    /// Writes a compacted copy of the realm's current data to `configuration`'s file, which
    /// must not exist yet (Spec X3, X4); as `writeCopy(toFile:encryptionKey:)` with that file
    /// and key.
    /// - Throws: as `writeCopy(toFile:encryptionKey:)`; `.fail` for an in-memory destination
    ///   (an in-memory realm starts empty whenever no instance of it is open, Spec X8).
    public func writeCopy(configuration: Configuration) throws {
        guard !configuration.isInMemory else {
            throw Realm.Error(.fail, "writeCopy(configuration:) needs a file: an in-memory realm starts empty")
        }
        try _writeCopy(toFile: URL(fileURLWithPath: configuration.path), encryptionKey: configuration.encryptionKey)
    }

    package func _writeCopy(toFile fileURL: URL, encryptionKey: Data?) throws(Realm.Error) {
        if let encryptionKey {  // RLMRealmValidatedEncryptionKey first (Spec X17)
            guard encryptionKey.count == 64 else { throw Realm.Error.encryptionKeyLength }
            throw Realm.Error.encryptionUnsupported
        }
        let view = try core.view()
        let path = fileURL.standardizedFileURL.path
        try FileChecks.checkCopyDestination(path)
        do {
            switch view {
            case .read(let read): try core.file.store.writeCompactedCopy(toPath: path, from: read)
            case .write where core.file.bugs.contains(.writeCopyIgnoresOpenWrite):
                try core.file.store.writeCompactedCopy(toPath: path, from: core.read)  // seeded bug: X3 broken
            case .write(let write): try core.file.store.writeCompactedCopy(toPath: path, fromWrite: write)
            }
        } catch let error as StorageError where error.isCorruption {
            throw Realm.Error.from(error, path: core.path)  // Spec D17: the source is damaged
        } catch let error as StorageError {
            throw Realm.Error.from(error, path: fileURL.path, realmFile: false)  // Spec X4
        } catch {
            throw Realm.Error(.fail, "\(error)")
        }
    }

    /// Whether the realm's file exists (Spec X1).
    public static func fileExists(for configuration: Configuration) -> Bool {
        guard !configuration.isInMemory else { return false }
        return Store.fileExists(path: configuration.path)
    }

    /// Runs `hook` inside every later `deleteFiles(for:)` of `configuration`'s file, once the
    /// deletion holds its locks and before it deletes anything (nil removes it): for tests of
    /// an open racing a deletion (Spec X28).
    package static func _whileDeletingFiles(of configuration: Configuration, _ hook: (@Sendable () -> Void)?) {
        let path = configuration.path
        RealmFile.whileDeleting.withLock { $0[path] = hook }
    }

    /// Deletes the realm's files; true if the main file existed (Spec X1). An open of the file
    /// on another thread while this runs waits, then creates a new file (Spec X28).
    /// - Throws: `.alreadyOpen` while any process has it open (Spec X2).
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        guard !configuration.isInMemory else { return false }
        return try RealmFile.deleteFiles(path: configuration.path)
    }
}
