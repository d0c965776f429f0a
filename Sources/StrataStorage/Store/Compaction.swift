#if canImport(Glibc)
    import Glibc
#endif

/// Writing a compacted copy of one version to a new file: every table is rebuilt by ascending
/// inserts, so leaves are full and nothing is free. Table ids and object keys are kept (links
/// name them), as are schemas and the schema version.
extension Store {
    /// Writes version `source` (default: the newest) to a new file at `path`, which must not
    /// exist. The copy is created under a temporary name, synced, and linked into place.
    public func writeCompactedCopy(toPath path: String, from source: ReadTransaction? = nil) throws {
        guard !Store.fileExists(path: path) else { throw StorageError.invalidArgument("\(path) already exists") }
        let read = try source?.duplicate(kind: .frozen) ?? beginRead(.frozen)
        defer { read.end() }
        try copyIntoPlace(read, toPath: path)
    }

    /// Writes the current contents of the open write `source`, committed or not, to a new file
    /// at `path` as `writeCompactedCopy(toPath:from:)` does: what a copy made inside a write
    /// transaction holds (Realm's `writeCopy` inside a write).
    public func writeCompactedCopy(toPath path: String, fromWrite source: WriteTransaction) throws {
        guard !Store.fileExists(path: path) else { throw StorageError.invalidArgument("\(path) already exists") }
        try copyIntoPlace(source, toPath: path)
    }

    private func copyIntoPlace(_ source: some CompactionSource, toPath path: String) throws {
        let temporary = "\(path).compacting-\(getpid())"
        _ = try Store.deleteFiles(path: temporary)
        do {
            try copy(source, toPath: temporary)
            guard rename(temporary, path) == 0 else {
                throw StorageError.io(operation: "rename to \(path)", errno: errno)
            }
            try SystemCalls.syncDirectory(containing: path)
            unlink(temporary + ".lock")
            unlink(temporary + ".note")
        } catch {
            _ = try? Store.deleteFiles(path: temporary)
            throw error
        }
    }

    private func copy(_ read: some CompactionSource, toPath path: String) throws {
        let target = try Store.open(.file(path), options: StoreOptions(create: true, pageSizeBytes: pageSizeBytes))
        defer { target.close() }
        let write = try target.beginWrite()
        write.storedSchemaVersion = read.schemaVersion
        for table in read.tables() {
            try write.createCopiedTable(table)
            try read.forEachRow(table, from: nil) { key, row in
                try write.insertCopied(table.id, key: key, incarnation: row.incarnation, values: try row.values())
                return true
            }
        }
        write.catalog.nextTableID = read.catalog.nextTableID
        write.catalogMetadataChanged = true
        try write.commit()
    }
}

extension WriteTransaction {
    /// Creates a table with the id, primary key and schema of `source` (compaction).
    func createCopiedTable(_ source: TableInfo) throws(StorageError) {
        try checkActive()
        var table = TableInfo(
            id: source.id, name: source.name, primaryKey: source.primaryKey, rowCount: 0,
            schema: source.schema, rowRoot: 0, indexRoot: 0, nextKey: source.nextKey)
        table.indexedColumns = source.indexedColumns  // rebuilt entry by entry (`insertCopied`)
        catalog.set(table)
        catalog.nextTableID = max(catalog.nextTableID, source.id.rawValue + 1)
        catalogMetadataChanged = true
        dirtyTables.insert(table.id)
        schemaChanged.insert(table.name)
    }

    /// Inserts an object under its original key and incarnation (compaction), maintaining the
    /// index; the table's counter was copied with the table.
    func insertCopied(
        _ tableID: TableID, key: ObjectKey, incarnation: Incarnation,
        values: [Value]
    ) throws(StorageError) {
        var table = try info(tableID)
        let nextKey = table.nextKey
        if case .string(let column) = table.primaryKey {
            let pk = column < values.count ? values[column] : .null
            let indexKey = try IndexKeys.stringIndexKey(for: pk, table: table, pageSizeBytes: file.pageSizeBytes)
            try insertIndexEntry(&table, indexKey: indexKey, key: key)
        }
        let row = try RowCodec.encode(
            values, incarnation: incarnation, inlineByteCountMax: rowCellByteCountMax,
            space: space)
        try insertRow(&table, key: key, row: row)
        try insertSecondaryEntries(&table, key: key, values: values)
        table.nextKey = nextKey
        catalog.set(table)
        dirtyTables.insert(tableID)
    }
}

/// What a compacted copy is made from: a committed version (a read) or one not yet committed
/// (an open write), with the catalog metadata the copy keeps.
protocol CompactionSource: VersionReading {
    var catalog: Catalog { get }
    var schemaVersion: UInt64 { get }
}

extension ReadTransaction: CompactionSource {}
extension WriteTransaction: CompactionSource {}
