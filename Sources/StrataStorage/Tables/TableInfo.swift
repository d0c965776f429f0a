/// How a table identifies its objects by a primary key.
public enum PrimaryKey: Sendable, Hashable {
    /// No primary key: the engine assigns ascending object keys.
    case none
    /// An integer primary key in `column`. The object key *is* the primary key (the table is
    /// clustered on it, as SQLite does for INTEGER PRIMARY KEY), so lookups by primary key
    /// are one tree search and uniqueness is the tree's own. A null primary key is stored as
    /// object key `Int64.min`, which is therefore not usable as a non-null key.
    case int(column: Int)
    /// A string primary key in `column`, kept unique by a secondary index (key bytes →
    /// object key). Keys are at most `maximumIndexKeyBytes` bytes of UTF-8.
    case string(column: Int)

    var column: Int? {
        switch self {
        case .none: return nil
        case .int(let column), .string(let column): return column
        }
    }
}

/// A table's descriptor as of one version.
public struct TableInfo: Sendable, Hashable {
    /// The table's permanent identifier (links name tables by it).
    public let id: TableID
    /// The table's unique name (the Realm API uses the class name).
    public let name: String
    /// Which column, if any, is the primary key, and of which type.
    public let primaryKey: PrimaryKey
    /// Number of objects.
    public internal(set) var rowCount: Int
    /// The caller's schema description (opaque to the engine; the Realm API stores its
    /// object schema here).
    public internal(set) var schema: [UInt8]
    var rowRoot: UInt32
    var indexRoot: UInt32
    /// The table's identity counter. Without an integer primary key: the next object key.
    /// With one: the incarnation the next inserted object gets, raised by deletions (see
    /// `Incarnation`; 0 in files written before incarnations existed, which is right: they
    /// stored only incarnation 0). It only grows, so no committed identity is given out again.
    var nextKey: Int64
    /// What the catalog expects of the roots (Spec D19). Inside a write transaction a root the
    /// transaction copied has a stale expectation until the commit seals it.
    var rowRootExpectation = PageExpectation.none
    var indexRootExpectation = PageExpectation.none
    /// The columns with a secondary index (bit n: column n, below `SecondaryIndex.columnLimit`),
    /// whose entries live in the index tree (Spec W26).
    public internal(set) var indexedColumns: UInt64 = 0

    /// This descriptor with an empty schema: what a holder that only finds objects by it keeps
    /// (each accessor of the Realm API holds one), so that copying it retains no schema bytes.
    public var withoutSchema: TableInfo {
        var copy = self
        copy.schema = []
        return copy
    }

    /// Whether a key may name another object over time: an integer primary key is the key, so
    /// deleting an object and creating one with the same primary key reuses it (`Incarnation`
    /// tells the two apart). Other tables never give out a key twice.
    public var reusesKeys: Bool {
        if case .int = primaryKey { return true }
        return false
    }

    /// Object key used for a null integer primary key.
    static let nullIntPrimaryKey = ObjectKey(Int64.min)

    /// Takes what object operations change (the roots, the row count, the next key) from
    /// `other`, a later state of this table. Assigns no reference-counted field, so it costs
    /// no retain or release (`WriteTransaction.storeTable` runs it once per object operation).
    mutating func adoptObjectState(of other: TableInfo) {
        invariant(
            id == other.id && name == other.name && primaryKey == other.primaryKey && schema == other.schema
                && indexedColumns == other.indexedColumns,
            "object operations change only roots and counters")
        rowCount = other.rowCount
        rowRoot = other.rowRoot
        indexRoot = other.indexRoot
        rowRootExpectation = other.rowRootExpectation
        indexRootExpectation = other.indexRootExpectation
        nextKey = other.nextKey
    }
}

/// All tables of one version, by name and by id.
///
/// By id, tables sit in an array sorted by id: `table(_:)` (every read transaction's first
/// call, and every object operation) is a short binary search with no hashing, where the
/// former id → name → descriptor lookups hashed an integer and then the name.
struct Catalog: Sendable {
    private(set) var tablesByName: [String: TableInfo] = [:]
    /// Every table, ascending by id (the same descriptors as `tablesByName`).
    private(set) var tablesByID: [TableInfo] = []
    var nextTableID: UInt32 = 1

    /// The index in `tablesByID` of the first table whose id is not below `id`.
    private func lowerBound(_ id: TableID) -> Int {
        var low = 0
        var high = tablesByID.count
        while low < high {
            let middle = (low &+ high) >> 1
            if tablesByID[middle].id.rawValue < id.rawValue { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func table(_ id: TableID) -> TableInfo? {
        let index = lowerBound(id)
        guard index < tablesByID.count, tablesByID[index].id == id else { return nil }
        return tablesByID[index]
    }

    /// The index in `tablesByID` of this catalog's own descriptor of `table` (same id and
    /// name), or nil when this catalog has no such table.
    @inline(__always)
    private func position(of table: TableInfo) -> Int? {
        let index = lowerBound(table.id)
        guard index < tablesByID.count, tablesByID[index].id == table.id, tablesByID[index].name == table.name else {
            return nil
        }
        return index
    }

    /// The row-tree root of this catalog's own descriptor of `table`, or nil when this catalog
    /// has no such table. Reads the root in place: copying the descriptor retains and releases
    /// its name, schema and primary key.
    @inline(__always)
    func rowRoot(of table: TableInfo) -> UInt32? {
        position(of: table).map { tablesByID[$0].rowRoot }
    }

    /// `rowRoot(of:)` when this catalog's descriptor of `table` has an integer primary key
    /// (its values are the object keys); nil otherwise.
    @inline(__always)
    func clusteredRowRoot(of table: TableInfo) -> UInt32? {
        guard let index = position(of: table), case .int = tablesByID[index].primaryKey else { return nil }
        return tablesByID[index].rowRoot
    }

    func contains(id: TableID) -> Bool {
        let index = lowerBound(id)
        return index < tablesByID.count && tablesByID[index].id == id
    }

    mutating func set(_ table: TableInfo) {
        tablesByName[table.name] = table
        let index = lowerBound(table.id)
        if index < tablesByID.count && tablesByID[index].id == table.id {
            tablesByID[index] = table
        } else {
            tablesByID.insert(table, at: index)
        }
        invariant(tablesByName.count == tablesByID.count, "one descriptor per id and per name")
    }

    mutating func remove(_ table: TableInfo) {
        tablesByName[table.name] = nil
        let index = lowerBound(table.id)
        if index < tablesByID.count && tablesByID[index].id == table.id { tablesByID.remove(at: index) }
        invariant(tablesByName.count == tablesByID.count, "one descriptor per id and per name")
    }
}

/// How the catalog is stored: a byte-keyed tree whose keys are a one-byte kind and the table
/// name, so a table's descriptor (small, rewritten whenever its trees change) and its schema
/// (possibly large, rewritten only when the schema changes) are separate entries.
///
/// | key                | value (a `RowCodec` row)                                        |
/// |--------------------|-----------------------------------------------------------------|
/// | 0x00               | [next table id]                                                 |
/// | 0x01 + name UTF-8  | [id, primary key kind (0 none, 1 int, 2 string), primary key column, row root, index root, row count, next key, row root version, row root checksum, index root version, index root checksum, indexed columns (a mask; absent in files written before secondary indexes: none)] |
/// | 0x02 + name UTF-8  | [schema bytes]                                                  |
enum CatalogCodec {
    static let metadataKey: [UInt8] = [0x00]
    static let descriptorKind: UInt8 = 0x01
    static let schemaKind: UInt8 = 0x02

    static func descriptorKey(_ name: String) -> [UInt8] { [descriptorKind] + Array(name.utf8) }
    static func schemaKey(_ name: String) -> [UInt8] { [schemaKind] + Array(name.utf8) }

    static func descriptorValues(_ table: TableInfo) -> [Value] {
        let (kind, column): (Int64, Int64)
        switch table.primaryKey {
        case .none: (kind, column) = (0, 0)
        case .int(let c): (kind, column) = (1, Int64(c))
        case .string(let c): (kind, column) = (2, Int64(c))
        }
        return [
            .int(Int64(table.id.rawValue)), .int(kind), .int(column), .int(Int64(table.rowRoot)),
            .int(Int64(table.indexRoot)), .int(Int64(table.rowCount)), .int(table.nextKey),
            // Spec D19: what the catalog expects of the two roots.
            .int(Int64(bitPattern: table.rowRootExpectation.version)), .int(Int64(table.rowRootExpectation.checksum)),
            .int(Int64(bitPattern: table.indexRootExpectation.version)),
            .int(Int64(table.indexRootExpectation.checksum)),
            .int(Int64(bitPattern: table.indexedColumns)),
        ]
    }

    /// Rebuilds a descriptor from its stored values; nil when they are malformed.
    static func table(name: String, values: [Value], schema: [UInt8]) -> TableInfo? {
        guard values.count >= 11 else { return nil }
        var numbers: [Int64] = []
        for value in values.prefix(11) {
            guard case .int(let number) = value else { return nil }
            numbers.append(number)
        }
        guard numbers[0] > 0 && numbers[0] <= Int64(UInt32.max),
            numbers[3] >= 0 && numbers[3] <= Int64(UInt32.max),
            numbers[4] >= 0 && numbers[4] <= Int64(UInt32.max),
            numbers[5] >= 0, numbers[2] >= 0 && numbers[2] < Int64(RowCodec.columnCountMax),
            numbers[8] >= 0 && numbers[8] <= Int64(UInt32.max),
            numbers[10] >= 0 && numbers[10] <= Int64(UInt32.max)
        else { return nil }
        let primaryKey: PrimaryKey
        switch numbers[1] {
        case 0: primaryKey = .none
        case 1: primaryKey = .int(column: Int(numbers[2]))
        case 2: primaryKey = .string(column: Int(numbers[2]))
        default: return nil
        }
        var indexedColumns: UInt64 = 0
        if values.count > 11 {
            guard case .int(let mask) = values[11] else { return nil }
            indexedColumns = UInt64(bitPattern: mask)
        }
        var table = TableInfo(
            id: TableID(UInt32(numbers[0])), name: name, primaryKey: primaryKey,
            rowCount: Int(numbers[5]), schema: schema, rowRoot: UInt32(numbers[3]),
            indexRoot: UInt32(numbers[4]), nextKey: numbers[6],
            rowRootExpectation: PageExpectation(checksum: UInt32(numbers[8]), version: UInt64(bitPattern: numbers[7])),
            indexRootExpectation: PageExpectation(
                checksum: UInt32(numbers[10]), version: UInt64(bitPattern: numbers[9])))
        table.indexedColumns = indexedColumns
        return table
    }
}
