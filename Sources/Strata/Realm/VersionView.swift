import StrataStorage

/// What a realm reads through: its read transaction, or its write transaction (which sees its
/// own changes, Spec W4). Both answer the engine's one read protocol, `VersionReading`; this
/// enum is where the realm's code picks which, so every read below forwards to `reads`.
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

    /// The transaction read through.
    var reads: any VersionReading {
        switch self {
        case .read(let read): return read
        case .write(let write): return write
        }
    }

    func tables() -> [TableInfo] { reads.tables() }
    func table(named name: String) -> TableInfo? { reads.table(named: name) }
    func table(id: TableID) -> TableInfo? { reads.table(id: id) }

    func withRow<R>(_ table: TableInfo, key: ObjectKey, _ body: (RowView) throws -> R) throws -> R? {
        try reads.withRow(table, key: key, body)
    }

    func contains(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Bool {
        try reads.contains(table, key: key)
    }

    func objectKey(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectKey? {
        try reads.objectKey(table, primaryKey: value)
    }

    func objectIdentity(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectIdentity? {
        try reads.objectIdentity(table, primaryKey: value)
    }

    func incarnation(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Incarnation? {
        try reads.incarnation(table, key: key)
    }

    func forEachRow(_ table: TableInfo, from start: ObjectKey?, _ body: (ObjectKey, RowView) throws -> Bool) throws {
        try reads.forEachRow(table, from: start, body)
    }
}

/// Identifies what a realm reads at one moment: Results and List caches are valid while the
/// stamp is unchanged (a new version, a mutation inside a write, or invalidate changes it).
struct ViewStamp: Hashable, Sendable {
    var version: UInt64
    var mutation: UInt64
    var epoch: Int
}
