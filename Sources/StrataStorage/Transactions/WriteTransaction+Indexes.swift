/// Secondary indexes in a write transaction (Spec W26): choosing the indexed columns, and
/// keeping one entry per object and indexed column as objects are inserted, updated and
/// deleted. The entries live in the table's index tree, so a rollback, a crash before the
/// commit and a compaction treat them as they treat the rows.
extension WriteTransaction {
    /// Sets which columns of the table named `name` have a secondary index: the entries of
    /// columns leaving `mask` are removed, those of columns joining it are made from every row.
    /// - Throws: `.tableNotFound`; `.invalidArgument` for the primary key's own column (its
    ///   index already finds it).
    public func setIndexedColumns(_ mask: UInt64, forTable name: String) throws(StorageError) {
        try checkActive()
        guard let current = catalog.tablesByName[name] else { throw StorageError.tableNotFound(name) }
        if let column = current.primaryKey.column, column < SecondaryIndex.columnLimit,
            mask & (1 << UInt64(column)) != 0
        {
            throw StorageError.invalidArgument("column \(column) of '\(name)' is its primary key")
        }
        guard mask != current.indexedColumns else { return }
        var table = current
        let removed = SecondaryIndex.columns(of: table.indexedColumns & ~mask)
        let added = SecondaryIndex.columns(of: mask & ~table.indexedColumns)
        // A column joining the mask may still have entries: a Strata that predates indexes
        // rewrites a descriptor without its mask but leaves the entries. Rebuilt from nothing.
        for column in removed + added {
            let entries = try reads.indexEntries(
                table, prefix: [SecondaryIndex.tag, UInt8(truncatingIfNeeded: column)])
            for entry in entries { try removeIndexTreeEntry(&table, entry) }
        }
        if !added.isEmpty {
            var rows: [(ObjectKey, [Value])] = []
            rows.reserveCapacity(table.rowCount)
            do {
                try reads.forEachRow(table, from: nil) { key, row in
                    rows.append((key, try added.map { column throws(StorageError) in try row.value(at: column) }))
                    return true
                }
            } catch let error as StorageError {
                throw error
            } catch {
                throw StorageError.corruptRecord(reason: "\(error)")
            }
            for (key, values) in rows {
                for (column, value) in zip(added, values) {
                    try insertSecondaryEntry(&table, column: column, value: value, key: key)
                }
            }
        }
        table.indexedColumns = mask
        catalog.set(table)
        dirtyTables.insert(table.id)
    }

    /// Runs an object operation's index maintenance, after its row changed. A failure there
    /// (an entry found where none can be or missing, which is damage, or no space) leaves the
    /// row and its entries out of step: the table's new roots are kept (so no page is released
    /// twice) and the transaction can no longer commit, as after a failed commit.
    func maintainingIndexes(
        _ table: inout TableInfo, _ body: (inout TableInfo) throws(StorageError) -> Void
    ) throws(StorageError) {
        do {
            try body(&table)
        } catch {
            storeTable(table)
            if state == .active {
                state = .failed
                file.unlockWriter()
            }
            throw error
        }
    }

    /// The entries of `key`'s object for every indexed column, its values being `values`.
    func insertSecondaryEntries(_ table: inout TableInfo, key: ObjectKey, values: [Value]) throws(StorageError) {
        guard table.indexedColumns != 0 else { return }
        try maintainingIndexes(&table) { table throws(StorageError) in
            for column in SecondaryIndex.columns(of: table.indexedColumns) {
                try insertSecondaryEntry(
                    &table, column: column, value: column < values.count ? values[column] : .null, key: key)
            }
        }
    }

    /// Removes the entries of `key`'s object, its values in the indexed columns being `old`
    /// (as `indexedValues` read them).
    func removeSecondaryEntries(_ table: inout TableInfo, key: ObjectKey, old: [(column: Int, value: Value)])
        throws(StorageError)
    {
        guard !old.isEmpty else { return }
        try maintainingIndexes(&table) { table throws(StorageError) in
            for (column, value) in old {
                guard
                    let prefix = SecondaryIndex.prefix(column: column, value: value, pageSizeBytes: file.pageSizeBytes)
                else { continue }
                try removeIndexTreeEntry(&table, SecondaryIndex.entryKey(prefix: prefix, key: key))
            }
        }
    }

    /// Replaces the entries of an updated object: only columns whose value changed move.
    func updateSecondaryEntries(
        _ table: inout TableInfo, key: ObjectKey, old: [(column: Int, value: Value)], new values: [Value]
    ) throws(StorageError) {
        guard !old.isEmpty else { return }
        try maintainingIndexes(&table) { table throws(StorageError) in
            try moveSecondaryEntries(&table, key: key, old: old, new: values)
        }
    }

    private func moveSecondaryEntries(
        _ table: inout TableInfo, key: ObjectKey, old: [(column: Int, value: Value)], new values: [Value]
    ) throws(StorageError) {
        for (column, oldValue) in old {
            let newValue = column < values.count ? values[column] : .null
            // Compared as entries, not as values: `Value ==` compares strings as Swift does,
            // equal for canonically equivalent spellings whose bytes (and entries) differ.
            let oldPrefix = SecondaryIndex.prefix(column: column, value: oldValue, pageSizeBytes: file.pageSizeBytes)
            let newPrefix = SecondaryIndex.prefix(column: column, value: newValue, pageSizeBytes: file.pageSizeBytes)
            guard oldPrefix != newPrefix else { continue }
            if let oldPrefix {
                try removeIndexTreeEntry(&table, SecondaryIndex.entryKey(prefix: oldPrefix, key: key))
            }
            if file.hooks.has(.indexEntryLostOnUpdate) { continue }
            try insertSecondaryEntry(&table, column: column, value: newValue, key: key)
        }
    }

    /// The values of a row's indexed columns, ascending by column (so that every process
    /// changes the tree in one order), read from its cell before it changes.
    func indexedValues(_ indexedColumns: UInt64, ofCell cell: UnsafeRawBufferPointer) throws(StorageError)
        -> [(column: Int, value: Value)]
    {
        try SecondaryIndex.columns(of: indexedColumns).map { column throws(StorageError) in
            (column, try rowValue(ofCell: cell, column: column))
        }
    }

    private func insertSecondaryEntry(
        _ table: inout TableInfo, column: Int, value: Value, key: ObjectKey
    ) throws(StorageError) {
        guard let prefix = SecondaryIndex.prefix(column: column, value: value, pageSizeBytes: file.pageSizeBytes) else {
            return
        }
        guard try putIndexTreeEntry(&table, SecondaryIndex.entryKey(prefix: prefix, key: key), value: nil) else {
            throw StorageError.corruptRecord(
                reason: "object \(key.rawValue) of '\(table.name)' already in the index of column \(column)")
        }
    }

    private func removeIndexTreeEntry(_ table: inout TableInfo, _ entry: [UInt8]) throws(StorageError) {
        let removed = try withBytes(entry) { bytes throws(StorageError) -> Bool in
            try TreeWriter(space: space, byteKeys: true).remove(root: &table.indexRoot, key: .bytes(bytes))
        }
        guard removed else {
            storeTable(table)
            throw StorageError.corruptRecord(reason: "an object of '\(table.name)' is missing from a secondary index")
        }
    }
}
