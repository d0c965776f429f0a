/// What one version's tables and objects are read through: a `ReadTransaction` (a committed
/// version, the same for its whole life, Spec V1) or a `WriteTransaction` (its base version
/// with its own changes, Spec W4). Both answer every question the same way, so code that only
/// reads (the Realm API's accessors and queries, the content digest, compaction) is written
/// once, against this protocol.
///
/// Every read first checks that the transaction can still be read: one that has ended (a read
/// after `end()`, a write after its commit or rollback) throws `StorageError.closed`, and one
/// of a store that was closed or crashed under it throws what the store reports.
///
/// A `TableInfo` names a table by its identifier; a read resolves it against this version's own
/// catalog, so a descriptor taken from another version (or a dropped table) never leads to
/// pages this version does not own: a table the version lacks throws
/// `StorageError.tableNotFound`.
///
/// Thread safety: as the conforming transaction (a read may be used from any thread, one at a
/// time; a write only by the thread that holds the write lock).
public protocol VersionReading {
    /// Every table, in name order.
    func tables() -> [TableInfo]

    /// The table named `name`; nil when this version has none.
    func table(named name: String) -> TableInfo?

    /// The table with identifier `id`; nil when this version has none.
    func table(id: TableID) -> TableInfo?

    /// Calls `body` with the row of the object `key` of `table`, and returns what it returns;
    /// nil, without calling `body`, when there is no such object. The row view is valid only
    /// inside `body`.
    /// - Throws: `StorageError` (see the protocol), or what `body` throws.
    /// - Complexity: O(log n) for n objects in the table.
    func withRow<R>(_ table: TableInfo, key: ObjectKey, _ body: (RowView) throws -> R) throws -> R?

    /// Whether `table` has an object with key `key`.
    /// - Throws: `StorageError` (see the protocol).
    /// - Complexity: O(log n).
    func contains(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Bool

    /// The key of the object of `table` whose primary key is `value`; nil when there is none.
    /// - Throws: `StorageError` (see the protocol).
    /// - Complexity: O(log n).
    func objectKey(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectKey?

    /// The identity (key and incarnation) of the object of `table` whose primary key is
    /// `value`; nil when there is none.
    /// - Throws: `StorageError` (see the protocol).
    /// - Complexity: O(log n).
    func objectIdentity(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectIdentity?

    /// Calls `body` with the identity and the row of the object of `table` whose primary key
    /// is `value`, and returns what it returns; nil when there is none. One descent for an
    /// integer primary key (the row holds the incarnation), an index search and a descent for
    /// a string one: a lookup that reads the object costs no second search.
    /// - Throws: `StorageError` (see the protocol), or what `body` throws.
    /// - Complexity: O(log n).
    func withObjectRow<R>(
        _ table: TableInfo, primaryKey value: Value, _ body: (ObjectIdentity, RowView) throws -> R
    ) throws -> R?

    /// The keys of `table`'s objects when they are exactly the consecutive keys of the range
    /// and no key was ever given to a second object (every incarnation is 0); nil when that is
    /// not so, or cannot be known without visiting the objects. An unfiltered scan then knows
    /// its objects without reading them.
    /// - Throws: `StorageError` (see the protocol).
    /// - Complexity: O(log n).
    func consecutiveKeys(_ table: TableInfo) throws(StorageError) -> ClosedRange<ObjectKey>?

    /// The incarnation of the object `key` of `table` (which object holds the key, Spec W12);
    /// nil when there is no such object.
    /// - Throws: `StorageError` (see the protocol).
    /// - Complexity: O(log n).
    func incarnation(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Incarnation?

    /// Calls `body` with each object of `table` in key order, from the first key at or after
    /// `start` (from the first object when nil), until `body` returns false.
    /// - Throws: `StorageError` (see the protocol), or what `body` throws.
    /// - Complexity: O(log n + k) for k objects visited.
    func forEachRow(_ table: TableInfo, from start: ObjectKey?, _ body: (ObjectKey, RowView) throws -> Bool) throws
}

extension VersionReading {
    /// The decoded values of the object `key` of `table`, in column order; nil when there is
    /// no such object.
    /// - Throws: `StorageError` (see `VersionReading`).
    /// - Complexity: O(log n + c) for c columns.
    public func row(_ table: TableInfo, key: ObjectKey) throws -> [Value]? {
        try withRow(table, key: key) { try $0.values() }
    }

    /// Whether the object `identity` exists: its key holds that very object, not one created
    /// later under the same key (Spec W12).
    /// - Throws: `StorageError` (see `VersionReading`).
    /// - Complexity: O(log n).
    public func contains(_ table: TableInfo, identity: ObjectIdentity) throws(StorageError) -> Bool {
        try incarnation(table, key: identity.key) == identity.incarnation
    }

    /// Calls `body` with every object of `table` in key order until it returns false.
    /// - Throws: `StorageError` (see `VersionReading`), or what `body` throws.
    /// - Complexity: O(log n + k) for k objects visited.
    public func forEachRow(_ table: TableInfo, _ body: (ObjectKey, RowView) throws -> Bool) throws {
        try forEachRow(table, from: nil, body)
    }

    /// The number of objects of `table` in this version (0 for a table it lacks).
    /// - Complexity: O(1).
    public func rowCount(_ table: TableInfo) -> Int {
        self.table(id: table.id)?.rowCount ?? 0
    }
}
