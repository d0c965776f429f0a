import StrataStorage

/// What a realm reads through: its read transaction, or its write transaction (which sees its
/// own changes, Spec W4). Both answer the engine's one read protocol, `VersionReading`; this
/// enum is where the realm's code picks which.
enum VersionView: VersionReading {
    case read(ReadTransaction)
    case write(WriteTransaction)

    /// The version read: for a write, the version it started from.
    var version: Version {
        switch self {
        case .read(let read): return read.version
        case .write(let write): return write.baseVersion
        }
    }

    // Each read switches on the case and calls the transaction's own method: a direct call
    // the optimizer can inline (a read through `reads`, an existential, costs a witness-table
    // call and a boxed copy on every object read).

    func tables() -> [TableInfo] {
        switch self {
        case .read(let read): return read.tables()
        case .write(let write): return write.tables()
        }
    }

    func table(named name: String) -> TableInfo? {
        switch self {
        case .read(let read): return read.table(named: name)
        case .write(let write): return write.table(named: name)
        }
    }

    func table(id: TableID) -> TableInfo? {
        switch self {
        case .read(let read): return read.table(id: id)
        case .write(let write): return write.table(id: id)
        }
    }

    func withRow<R>(_ table: TableInfo, key: ObjectKey, _ body: (RowView) throws -> R) throws -> R? {
        switch self {
        case .read(let read): return try read.withRow(table, key: key, body)
        case .write(let write): return try write.withRow(table, key: key, body)
        }
    }

    func contains(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Bool {
        switch self {
        case .read(let read): return try read.contains(table, key: key)
        case .write(let write): return try write.contains(table, key: key)
        }
    }

    func objectKey(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectKey? {
        switch self {
        case .read(let read): return try read.objectKey(table, primaryKey: value)
        case .write(let write): return try write.objectKey(table, primaryKey: value)
        }
    }

    func objectIdentity(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectIdentity? {
        switch self {
        case .read(let read): return try read.objectIdentity(table, primaryKey: value)
        case .write(let write): return try write.objectIdentity(table, primaryKey: value)
        }
    }

    func withObjectRow<R>(
        _ table: TableInfo, primaryKey value: Value, _ body: (ObjectIdentity, RowView) throws -> R
    ) throws -> R? {
        switch self {
        case .read(let read): return try read.withObjectRow(table, primaryKey: value, body)
        case .write(let write): return try write.withObjectRow(table, primaryKey: value, body)
        }
    }

    /// Candidates for `column == value` from the column's index; nil without one (Spec W26).
    func indexedKeys(_ table: TableInfo, column: Int, equalTo value: Value) throws(StorageError) -> [ObjectKey]? {
        switch self {
        case .read(let read): return try read.indexedKeys(table, column: column, equalTo: value)
        case .write(let write): return try write.indexedKeys(table, column: column, equalTo: value)
        }
    }

    func consecutiveKeys(_ table: TableInfo) throws(StorageError) -> ClosedRange<ObjectKey>? {
        switch self {
        case .read(let read): return try read.consecutiveKeys(table)
        case .write(let write): return try write.consecutiveKeys(table)
        }
    }

    func incarnation(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Incarnation? {
        switch self {
        case .read(let read): return try read.incarnation(table, key: key)
        case .write(let write): return try write.incarnation(table, key: key)
        }
    }

    func forEachRow(_ table: TableInfo, from start: ObjectKey?, _ body: (ObjectKey, RowView) throws -> Bool) throws {
        switch self {
        case .read(let read): try read.forEachRow(table, from: start, body)
        case .write(let write): try write.forEachRow(table, from: start, body)
        }
    }
}

/// Identifies what a realm reads at one moment: Results and List caches are valid while the
/// stamp is unchanged (a new version, a mutation inside a write, or invalidate changes it).
struct ViewStamp: Hashable, Sendable {
    var version: UInt64
    var mutation: UInt64
    var epoch: Int
}
