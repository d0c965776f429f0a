import Synchronization

/// A read transaction: one pinned version, read zero-copy from the memory map.
///
/// The version stays readable, and never changes, until `end()` (or deinit): the pin keeps
/// every page it reaches from being reused (Spec D). Reads never block and are never blocked
/// by the writer.
///
/// Sendable: a read transaction holds only immutable state, so any thread may read through it
/// concurrently (a frozen pin is exactly this, independent of any thread). Confinement of live
/// objects is the API layer's rule, not the engine's.
public final class ReadTransaction: VersionReading, @unchecked Sendable {
    let file: SharedFile
    let record: VersionRecord
    let reader: PageReader
    let catalog: Catalog
    /// How this transaction pins its version.
    public let kind: PinKind
    private let ended = Atomic<Bool>(false)

    /// Pins the newest version.
    convenience init(file: SharedFile, kind: PinKind) throws(StorageError) {
        try file.checkUsable()
        try self.init(file: file, pinned: try file.pins.pinNewest(kind), kind: kind)
    }

    /// Pins `version`, which a transaction of this process must already pin (otherwise its
    /// pages may be reused: only a version some pin holds is safe to read).
    /// - Throws: `.versionNotPinned` when this process does not pin it.
    convenience init(file: SharedFile, pinnedVersion version: Version, kind: PinKind) throws(StorageError) {
        try file.checkUsable()
        let record = try file.pins.pin(existing: version, kind)
        invariant(record.version == version, "the pinned record is the asked version")
        try self.init(file: file, pinned: record, kind: kind)
    }

    /// Reads `record`, which the caller has just pinned with `kind`; the pin is released if
    /// the version cannot be mapped or its catalog read.
    private init(file: SharedFile, pinned record: VersionRecord, kind: PinKind) throws(StorageError) {
        do {
            try file.ensureMapped(pageCount: record.pageCount)
            let reader = file.reader(for: record)
            catalog = try file.catalog(for: record, reader: reader)
            self.reader = reader
        } catch {
            file.pins.unpin(record.version, kind)
            throw error
        }
        self.file = file
        self.record = record
        self.kind = kind
    }

    private init(duplicating other: ReadTransaction, kind: PinKind, callerHoldsLock: Bool) throws(StorageError) {
        record = try other.file.pins.pin(existing: other.record.version, kind, callerHoldsLock: callerHoldsLock)
        file = other.file
        reader = other.reader
        catalog = other.catalog
        self.kind = kind
    }

    deinit { end() }

    /// The version this transaction reads.
    public var version: Version { record.version }
    /// The schema version recorded by the commit that made this version.
    public var schemaVersion: UInt64 { record.schemaVersion }
    /// Pages [0, pageCount) exist in this version.
    public var pageCount: UInt32 { record.pageCount }
    /// Whether `end()` has released the pin; reads then fail with `.closed`.
    public var isEnded: Bool { ended.load(ordering: .acquiring) }

    /// Releases the pin. Idempotent; reads after it fail with `.closed`. `callerHoldsLock`: the
    /// caller ends it inside a lock of its own, which the `unpin` yield point tells a controlled
    /// scheduler (it must not park the thread there).
    public func end(callerHoldsLock: Bool = false) {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        file.pins.unpin(record.version, kind, callerHoldsLock: callerHoldsLock)
    }

    /// Pins the same version again, independently of this transaction (e.g. to freeze it).
    /// `callerHoldsLock` as for `end`, for the `pin` yield point.
    public func duplicate(kind: PinKind, callerHoldsLock: Bool = false) throws(StorageError) -> ReadTransaction {
        try checkOpen()
        return try ReadTransaction(duplicating: self, kind: kind, callerHoldsLock: callerHoldsLock)
    }

    @inline(__always)
    func checkOpen() throws(StorageError) {
        guard !ended.load(ordering: .relaxed) else { throw StorageError.closed }
        try file.store.checkAlive(generation: file.generation)
    }

    // Rows of a read transaction lie in the pages its version pins (`RowView.pinned`).
    private var reads: TableReads<PageReader> {
        TableReads(source: reader, reader: reader, space: nil, rowsArePinned: true)
    }

    // MARK: tables

    /// Every table, by name.
    public func tables() -> [TableInfo] {
        catalog.tablesByName.values.sorted { $0.name < $1.name }
    }

    /// The table named `name` at this version; nil when there is none.
    /// - Complexity: O(1).
    public func table(named name: String) -> TableInfo? { catalog.tablesByName[name] }
    /// The table with identifier `id` at this version; nil when there is none.
    public func table(id: TableID) -> TableInfo? { catalog.table(id) }

    /// This version's own description of `table`: a `TableInfo` obtained from another version
    /// (or a dropped table) must never lead to pages this version does not own.
    @inline(__always)
    func resolve(_ table: TableInfo) throws(StorageError) -> TableInfo {
        guard let current = catalog.table(table.id), current.name == table.name else {
            throw StorageError.tableNotFound(table.name)
        }
        return current
    }

    /// `resolve(table).rowRoot` without copying the descriptor.
    @inline(__always)
    func resolvedRowRoot(_ table: TableInfo) throws(StorageError) -> UInt32 {
        guard let root = catalog.rowRoot(of: table) else { throw StorageError.tableNotFound(table.name) }
        return root
    }

    // MARK: rows

    /// Calls `body` with the row of `key` in `table`; nil when there is no such object.
    /// - Complexity: O(log n).
    public func withRow<R>(_ table: TableInfo, key: ObjectKey, _ body: (RowView) throws -> R) throws -> R? {
        try checkOpen()
        let reads = self.reads
        // The specialised descent.
        guard let cell = try reads.rowCell(root: try resolvedRowRoot(table), key) else { return nil }
        return try reads.withRow(cell: cell, body)
    }

    /// Whether an object is stored under `key` in `table` at this version.
    /// - Throws: `StorageError.closed` after `end()`, or a damage error naming the page.
    /// - Complexity: O(log n) in the table's size.
    public func contains(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Bool {
        try checkOpen()
        return try reads.contains(root: try resolvedRowRoot(table), key)
    }

    /// The object key of the object with primary key `value`.
    public func objectKey(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectKey? {
        try checkOpen()
        return try reads.objectKey(try resolve(table), primaryKey: value)
    }

    /// The identity (key and incarnation) of the object with primary key `value`; nil when
    /// there is none. - Complexity: O(log n).
    public func objectIdentity(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectIdentity? {
        try checkOpen()
        return try reads.objectIdentity(try resolve(table), primaryKey: value)
    }

    /// Calls `body` with the identity and row of the object with primary key `value`; nil
    /// when there is none. - Complexity: O(log n).
    public func withObjectRow<R>(
        _ table: TableInfo, primaryKey value: Value, _ body: (ObjectIdentity, RowView) throws -> R
    ) throws -> R? {
        try checkOpen()
        // An integer primary key is the object key: one descent from the root, read in place
        // (a lookup's common case; `resolve` would copy the descriptor).
        if case .int = table.primaryKey, let root = catalog.clusteredRowRoot(of: table) {
            return try reads.withClusteredObjectRow(root: root, table, primaryKey: value, body)
        }
        return try reads.withObjectRow(try resolve(table), primaryKey: value, body)
    }

    /// The keys of `table`'s objects when they are consecutive and never reused; nil when not
    /// (or not known without a walk). - Complexity: O(log n).
    public func consecutiveKeys(_ table: TableInfo) throws(StorageError) -> ClosedRange<ObjectKey>? {
        try checkOpen()
        return try reads.consecutiveKeys(try resolve(table))
    }

    /// The keys of the objects whose `column` holds `value`, ascending, read from the column's
    /// secondary index; nil when the column has none (Spec W26). They are candidates: check
    /// each object's value (long strings and data share entries by length and first bytes).
    /// - Complexity: O(log n + k) for k candidates.
    public func indexedKeys(_ table: TableInfo, column: Int, equalTo value: Value) throws(StorageError) -> [ObjectKey]?
    {
        try checkOpen()
        return try reads.indexedKeys(try resolve(table), column: column, equalTo: value)
    }

    /// The incarnation of the object `key`; nil when there is no such object at this version.
    /// - Complexity: O(log n).
    public func incarnation(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Incarnation? {
        try checkOpen()
        return try reads.incarnation(root: try resolvedRowRoot(table), key)
    }

    /// A cursor over `table`'s rows from `start` on, for one-at-a-time reads by ascending key
    /// (`PinnedRowCursor`); valid while this transaction is open.
    public func pinnedRowCursor(_ table: TableInfo, from start: ObjectKey?) throws(StorageError) -> PinnedRowCursor {
        try checkOpen()
        return try PinnedRowCursor(
            reader: reader, root: try resolvedRowRoot(table), tableName: table.name, from: start)
    }

    /// Visits the objects of `table` in key order from `start` until `body` returns false.
    /// - Complexity: O(log n + k) for k objects visited.
    public func forEachRow(
        _ table: TableInfo, from start: ObjectKey?,
        _ body: (ObjectKey, RowView) throws -> Bool
    ) throws {
        try checkOpen()
        try reads.forEachRow(try resolve(table), from: start, body)
    }
}
