import StrataStorage

/// The database the workloads share: the bulk-loaded `person` table and what it holds.
///
/// Workloads after the load read from it or add to it; `lastID` follows the inserts so that
/// lookups draw from every id present (the peers' keys are uniform over all 101,000 ids).
/// Readers fetch the table from their own transaction (`table(id:)`), because a `TableInfo`
/// carries the root page of one version only.
final class BenchDatabase {
    let path: String
    let store: Store
    let tableID: TableID
    /// Records hold ids `1...lastID`, each exactly once.
    private(set) var lastID: Int64

    init(path: String, store: Store, tableID: TableID, lastID: Int64) {
        precondition(lastID >= 1, "an empty database")
        self.path = path
        self.store = store
        self.tableID = tableID
        self.lastID = lastID
    }

    /// Records that ids up to `id` now exist (durable_commit appends them in order).
    func appended(throughID id: Int64) {
        precondition(id > lastID, "ids are appended in ascending order")
        lastID = id
    }

    /// The bytes of the database file now.
    func fileByteCount() throws(StorageError) -> Int {
        try store.statistics().fileByteCount
    }

    /// The bytes of the pages the newest version uses (header included).
    func usedByteCount() throws(StorageError) -> Int {
        let statistics = try store.statistics()
        return statistics.usedPageCount * statistics.pageSizeBytes
    }

    /// Closes the store; the files stay.
    func close() {
        store.close()
    }
}

/// Opening and filling a fresh engine database.
enum BenchLoader {
    /// Creates the database at `path` (deleting any old one) and inserts records
    /// `1...recordCount` in one durable transaction, timed from `beginWrite` to the return of
    /// `commit` (and the `commit` call alone). The table has the secondary indexes of
    /// `indexedColumns` (none but for indexed_lookup's own databases).
    static func load(
        path: String, recordCount: Int, options: StoreOptions, indexedColumns: UInt64 = 0
    ) throws(StorageError) -> (database: BenchDatabase, timing: LoadTiming) {
        try Store.deleteFiles(path: path)
        let store = try Store.open(.file(path), options: options)
        let lastID = Int64(recordCount)
        let start = MonotonicInstant.now()
        let write = try store.beginWrite()
        let table = try write.createTable(
            PersonRecord.tableName, primaryKey: .int(column: PersonRecord.idColumn),
            indexedColumns: indexedColumns)
        var id: Int64 = 1
        while id <= lastID {
            let key = try write.insert(table.id, values: PersonRecord.values(id: id))
            precondition(key.rawValue == id, "an int primary key is the object key")
            id += 1
        }
        let commitStart = MonotonicInstant.now()
        try write.commit()
        let end = MonotonicInstant.now()
        let timing = LoadTiming(
            totalNanos: end.nanos(since: start), commitNanos: end.nanos(since: commitStart))
        let database = BenchDatabase(path: path, store: store, tableID: table.id, lastID: lastID)
        return (database, timing)
    }

    /// Deletes a closed store's files.
    static func deleteFiles(path: String) throws(StorageError) {
        try Store.deleteFiles(path: path)
    }
}
