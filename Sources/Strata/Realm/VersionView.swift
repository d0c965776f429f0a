import StrataStorage

/// What a realm reads through: its read transaction, or its write transaction (which sees its
/// own changes, Spec W4). Both answer the same questions; this enum keeps the call sites
/// free of the difference.
enum VersionView {
    case read(ReadTransaction)
    case write(WriteTransaction)

    var version: Version {
        switch self {
        case .read(let read): return read.version
        case .write(let write): return write.baseVersion
        }
    }

    func table(named name: String) -> TableInfo? {
        switch self {
        case .read(let read): return read.table(named: name)
        case .write(let write): return write.table(named: name)
        }
    }

    func tables() -> [TableInfo] {
        switch self {
        case .read(let read): return read.tables()
        case .write(let write): return write.tables()
        }
    }

    func withRow<R>(_ table: TableInfo, key: ObjectKey, _ body: (RowView) throws -> R) throws -> R? {
        switch self {
        case .read(let read): return try read.withRow(table, key: key, body)
        case .write(let write): return try write.withRow(table, key: key, body)
        }
    }

    func row(_ table: TableInfo, key: ObjectKey) throws -> [Value]? {
        try withRow(table, key: key) { try $0.values() }
    }

    func contains(_ table: TableInfo, key: ObjectKey) throws -> Bool {
        switch self {
        case .read(let read): return try read.contains(table, key: key)
        case .write(let write): return try write.contains(table, key: key)
        }
    }

    /// The incarnation of the object `key`; nil when there is no such object.
    func incarnation(_ table: TableInfo, key: ObjectKey) throws -> Incarnation? {
        switch self {
        case .read(let read): return try read.incarnation(table, key: key)
        case .write(let write): return try write.incarnation(table, key: key)
        }
    }

    /// Whether the object `identity` exists: its key holds that very object (Spec W12).
    func contains(_ table: TableInfo, identity: ObjectIdentity) throws -> Bool {
        try incarnation(table, key: identity.key) == identity.incarnation
    }

    func objectIdentity(_ table: TableInfo, primaryKey: Value) throws -> ObjectIdentity? {
        switch self {
        case .read(let read): return try read.objectIdentity(table, primaryKey: primaryKey)
        case .write(let write): return try write.objectIdentity(table, primaryKey: primaryKey)
        }
    }

    func objectKey(_ table: TableInfo, primaryKey: Value) throws -> ObjectKey? {
        switch self {
        case .read(let read): return try read.objectKey(table, primaryKey: primaryKey)
        case .write(let write): return try write.objectKey(table, primaryKey: primaryKey)
        }
    }

    func forEachRow(_ table: TableInfo, _ body: (ObjectKey, RowView) throws -> Bool) throws {
        switch self {
        case .read(let read): try read.forEachRow(table, body)
        case .write(let write): try write.forEachRow(table, body)
        }
    }

    /// The number of objects of `table` at this view.
    func rowCount(_ table: TableInfo) -> Int {
        switch self {
        case .read(let read): return read.table(id: table.id)?.rowCount ?? 0
        case .write(let write): return write.table(id: table.id)?.rowCount ?? 0
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
