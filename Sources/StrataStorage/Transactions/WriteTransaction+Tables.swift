/// Table and object operations of a write transaction.
extension WriteTransaction {
    // MARK: tables

    /// Every table in this transaction's state (its own creations and drops included), by name.
    public func tables() -> [TableInfo] {
        catalog.tablesByName.values.sorted { $0.name < $1.name }
    }

    /// The table named `name` in this transaction's state; nil when there is none.
    /// - Complexity: O(1).
    public func table(named name: String) -> TableInfo? { catalog.tablesByName[name] }
    /// The table with identifier `id` in this transaction's state; nil when there is none.
    public func table(id: TableID) -> TableInfo? { catalog.table(id) }

    /// Creates an empty table.
    /// - Throws: `.tableExists`, `.invalidArgument` for an empty or over-long name.
    @discardableResult
    public func createTable(
        _ name: String, primaryKey: PrimaryKey = .none, schema: [UInt8] = [], indexedColumns: UInt64 = 0
    ) throws(StorageError) -> TableInfo {
        try checkActive()
        let nameByteCountMax = PageLayout.keyByteCountMax(pageSizeBytes: file.pageSizeBytes) - 1
        guard !name.isEmpty, name.utf8.count <= nameByteCountMax else {
            throw StorageError.invalidArgument("table name must be 1 to \(nameByteCountMax) bytes of UTF-8")
        }
        guard catalog.tablesByName[name] == nil else { throw StorageError.tableExists(name) }
        if let column = primaryKey.column, column < 0 || column >= RowCodec.columnCountMax {
            throw StorageError.invalidArgument("primary key column \(column)")
        }
        if let column = primaryKey.column, column < SecondaryIndex.columnLimit,
            indexedColumns & (1 << UInt64(column)) != 0
        {
            throw StorageError.invalidArgument("column \(column) of '\(name)' is its primary key")
        }
        guard catalog.nextTableID < UInt32.max else { throw StorageError.valueTooLarge(reason: "too many tables") }
        var table = TableInfo(
            id: TableID(catalog.nextTableID), name: name, primaryKey: primaryKey, rowCount: 0,
            schema: schema, rowRoot: 0, indexRoot: 0, nextKey: 0)
        table.indexedColumns = indexedColumns
        catalog.nextTableID += 1
        catalogMetadataChanged = true
        catalog.set(table)
        tableSetGeneration += 1
        dirtyTables.insert(table.id)
        schemaChanged.insert(name)
        return table
    }

    /// Removes a table and all its objects.
    public func dropTable(_ name: String) throws(StorageError) {
        try checkActive()
        guard let table = catalog.tablesByName[name] else { throw StorageError.tableNotFound(name) }
        try freeAllRows(table)
        catalog.remove(table)
        tableSetGeneration += 1
        dirtyTables.remove(table.id)
        schemaChanged.remove(name)
        removedCatalogKeys.append(CatalogCodec.descriptorKey(name))
        removedCatalogKeys.append(CatalogCodec.schemaKey(name))
    }

    /// Replaces a table's schema description.
    public func setSchema(_ schema: [UInt8], forTable name: String) throws(StorageError) {
        try checkActive()
        guard var table = catalog.tablesByName[name] else { throw StorageError.tableNotFound(name) }
        table.schema = schema
        catalog.set(table)
        schemaChanged.insert(name)
    }

    // MARK: objects

    /// Inserts a new object and returns its key: the primary key for integer primary keys,
    /// else the next ascending key. A failed insert changes nothing.
    /// - Throws: `.duplicateKey` when the primary key exists; `.valueTooLarge`.
    @discardableResult
    public func insert(_ tableID: TableID, values: [Value]) throws(StorageError) -> ObjectKey {
        try insertObject(tableID, values: values).key
    }

    /// `insert`, returning the new object's identity: its key and, in a table with an integer
    /// primary key, the incarnation it was given (the table's count; see `Incarnation`). A
    /// failed insert changes nothing.
    /// - Throws: as `insert`.
    public func insertObject(_ tableID: TableID, values: [Value]) throws(StorageError) -> ObjectIdentity {
        try checkActive()
        var table = try info(tableID)
        let key: ObjectKey
        var incarnation = Incarnation.keyIsIdentity
        var indexKey: [UInt8]?
        switch table.primaryKey {
        case .none:
            guard table.nextKey < Int64.max else { throw StorageError.valueTooLarge(reason: "object keys exhausted") }
            key = ObjectKey(table.nextKey)
        case .int(let column):
            key = try IndexKeys.clusteredKey(for: column < values.count ? values[column] : .null, table: table)
            // The count: above the incarnation of every deleted object that had this key.
            guard table.nextKey >= 0 else {
                throw StorageError.corruptRecord(reason: "incarnation count \(table.nextKey) of '\(table.name)'")
            }
            incarnation = Incarnation(UInt64(table.nextKey))
        case .string(let column):
            let pk = column < values.count ? values[column] : .null
            indexKey = try IndexKeys.stringIndexKey(for: pk, table: table, pageSizeBytes: file.pageSizeBytes)
            guard table.nextKey < Int64.max else { throw StorageError.valueTooLarge(reason: "object keys exhausted") }
            key = ObjectKey(table.nextKey)
        }
        try withEncodedRow(values, incarnation: incarnation) { row throws(StorageError) in
            if let indexKey {
                do throws(StorageError) {
                    try insertIndexEntry(&table, indexKey: indexKey, key: key)
                } catch {
                    try withBytes(row) { cell throws(StorageError) in try freeOverflow(ofRowCell: cell) }
                    throw error
                }
            }
            try insertRow(&table, key: key, row: row)
        }
        try insertSecondaryEntries(&table, key: key, values: values)
        switch table.primaryKey {
        case .none, .string: table.nextKey = key.rawValue + 1  // keys were assigned: advance
        case .int: break  // keys are the primary keys
        }
        storeTable(table)
        invariant(Int64(incarnation.rawValue) <= max(table.nextKey, 0), "no incarnation beyond the count")
        return ObjectIdentity(key: key, incarnation: incarnation)
    }

    /// Inserts an object under a chosen key (tables without a primary key).
    public func insert(_ tableID: TableID, key: ObjectKey, values: [Value]) throws(StorageError) {
        try checkActive()
        var table = try info(tableID)
        guard table.primaryKey == .none else {
            throw StorageError.invalidArgument("table '\(table.name)' has a primary key; its keys come from it")
        }
        let row = try RowCodec.encode(
            values, incarnation: .keyIsIdentity, inlineByteCountMax: rowCellByteCountMax,
            space: space)
        try insertRow(&table, key: key, row: row)
        try insertSecondaryEntries(&table, key: key, values: values)
        if key.rawValue >= table.nextKey && key.rawValue < Int64.max { table.nextKey = key.rawValue + 1 }
        storeTable(table)
    }

    func insertRow(_ table: inout TableInfo, key: ObjectKey, row: [UInt8]) throws(StorageError) {
        let outcome = try withBytes(row) { cell throws(StorageError) -> PutOutcome in
            try TreeWriter(space: space, byteKeys: false).put(
                root: &table.rowRoot, key: .int(key.rawValue), cell: cell, mode: .insert)
        }
        if outcome == .keyExists {
            // The descent already copied the path: keep the new root even though nothing was
            // inserted, or the old pages would be released twice.
            storeTable(table)
            try withBytes(row) { cell throws(StorageError) in try freeOverflow(ofRowCell: cell) }
            throw StorageError.duplicateKey(table: table.name, key: String(key.rawValue))
        }
        table.rowCount += 1
    }

    func insertIndexEntry(_ table: inout TableInfo, indexKey: [UInt8], key: ObjectKey) throws(StorageError) {
        guard try putIndexTreeEntry(&table, indexKey, value: key) else {
            let text = indexKey.first == 0 ? "null" : String(decoding: indexKey.dropFirst(), as: UTF8.self)
            throw StorageError.duplicateKey(table: table.name, key: text)
        }
    }

    /// Puts the cell of `entry` into the table's byte-keyed index tree: the entry, then
    /// `value`'s 8 bytes when there is one (a primary key's entry names its object there; a
    /// secondary index's entry ends with its object key and has no value). Returns false when
    /// the entry is there already, keeping the copied path's new root (see `insertRow`).
    func putIndexTreeEntry(_ table: inout TableInfo, _ entry: [UInt8], value: ObjectKey?) throws(StorageError)
        -> Bool
    {
        var writer = ByteWriter(capacity: entry.count + 10)
        encodeCellKeyLength(entry.count, into: &writer)
        writer.append(contentsOf: entry)
        if let value { writer.appendUInt64(UInt64(bitPattern: value.rawValue)) }
        let outcome = try withBytes(entry) { keyBytes throws(StorageError) -> PutOutcome in
            try withBytes(writer.bytes) { cell throws(StorageError) -> PutOutcome in
                try TreeWriter(space: space, byteKeys: true).put(
                    root: &table.indexRoot, key: .bytes(keyBytes), cell: cell, mode: .insert)
            }
        }
        guard outcome != .keyExists else {
            storeTable(table)
            return false
        }
        return true
    }

    /// Replaces the values of an existing object. The primary key must not change, and the
    /// object keeps its incarnation (it is the same object).
    public func update(_ tableID: TableID, key: ObjectKey, values: [Value]) throws(StorageError) {
        try checkActive()
        var table = try info(tableID)
        var incarnation = Incarnation.keyIsIdentity
        if let column = table.primaryKey.column {
            let newPrimaryKey = column < values.count ? values[column] : .null
            // One descent reads both what must not change and what must be kept.
            let old = try reads.withRowValueAndIncarnation(table, key, column: column)
            guard let (oldPrimaryKey, oldIncarnation) = old else {
                throw StorageError.objectNotFound(table: table.name, key: key)
            }
            guard oldPrimaryKey == newPrimaryKey else {
                throw StorageError.invalidArgument(
                    "the primary key of an object cannot change (\(oldPrimaryKey) → \(newPrimaryKey))")
            }
            incarnation = oldIncarnation
        }
        let row = try RowCodec.encode(
            values, incarnation: incarnation, inlineByteCountMax: rowCellByteCountMax,
            space: space)
        var oldIndexed: [(column: Int, value: Value)] = []
        let indexedColumns = table.indexedColumns  // the mask alone: the closure copies no table
        let outcome = try withBytes(row) { cell throws(StorageError) -> PutOutcome in
            try TreeWriter(space: space, byteKeys: false).put(
                root: &table.rowRoot, key: .int(key.rawValue), cell: cell, mode: .update
            ) {
                old throws(StorageError) in
                if indexedColumns != 0 { oldIndexed = try self.indexedValues(indexedColumns, ofCell: old) }
                try self.freeOverflow(ofRowCell: old)
            }
        }
        if outcome == .keyMissing {
            try withBytes(row) { cell throws(StorageError) in try freeOverflow(ofRowCell: cell) }
            throw StorageError.objectNotFound(table: table.name, key: key)
        }
        try updateSecondaryEntries(&table, key: key, old: oldIndexed, new: values)
        storeTable(table)
    }

    /// Inserts the object, or replaces the one with the same primary key. Returns its key.
    @discardableResult
    public func upsert(_ tableID: TableID, values: [Value]) throws(StorageError) -> ObjectKey {
        try checkActive()
        let table = try info(tableID)
        guard let column = table.primaryKey.column else {
            throw StorageError.invalidArgument("upsert needs a primary key; table '\(table.name)' has none")
        }
        let pk = column < values.count ? values[column] : .null
        if let existing = try reads.objectKey(table, primaryKey: pk) {
            try update(tableID, key: existing, values: values)
            return existing
        }
        return try insert(tableID, values: values)
    }

    /// Deletes an object; false when it does not exist.
    @discardableResult
    public func delete(_ tableID: TableID, key: ObjectKey) throws(StorageError) -> Bool {
        try checkActive()
        var table = try info(tableID)
        var primaryKey: Value?
        var incarnation = Incarnation.keyIsIdentity
        let pkColumn: Int? = {
            if case .string(let column) = table.primaryKey { return column }
            return nil
        }()
        let reusesKeys = table.reusesKeys
        var oldIndexed: [(column: Int, value: Value)] = []
        let indexedColumns = table.indexedColumns
        let removed = try TreeWriter(space: space, byteKeys: false).remove(
            root: &table.rowRoot, key: .int(key.rawValue)
        ) {
            old throws(StorageError) in
            if indexedColumns != 0 { oldIndexed = try self.indexedValues(indexedColumns, ofCell: old) }
            if let pkColumn { primaryKey = try self.rowValue(ofCell: old, column: pkColumn) }
            if reusesKeys { incarnation = try self.reads.incarnation(ofCell: old) }
            try self.freeOverflow(ofRowCell: old)
        }
        guard removed else { return false }
        countDeletion(&table, of: incarnation)
        if let primaryKey {
            // The row is gone: a failure here leaves the table's indexes out of step with it,
            // so the transaction keeps its new roots and can no longer commit.
            try maintainingIndexes(&table) { table throws(StorageError) in
                let indexKey = try IndexKeys.stringIndexKey(
                    for: primaryKey, table: table, pageSizeBytes: file.pageSizeBytes)
                let indexRemoved = try withBytes(indexKey) { bytes throws(StorageError) -> Bool in
                    try TreeWriter(space: space, byteKeys: true).remove(root: &table.indexRoot, key: .bytes(bytes))
                }
                guard indexRemoved else {
                    throw StorageError.corruptRecord(
                        reason: "object \(key.rawValue) of '\(table.name)' missing from its primary key index")
                }
            }
        }
        table.rowCount -= 1
        try removeSecondaryEntries(&table, key: key, old: oldIndexed)
        storeTable(table)
        return true
    }

    /// Deletes every object of a table; returns how many.
    @discardableResult
    public func deleteAll(_ tableID: TableID) throws(StorageError) -> Int {
        try checkActive()
        var table = try info(tableID)
        let count = table.rowCount
        try freeAllRows(table)
        table.rowRoot = 0
        table.indexRoot = 0
        table.rowCount = 0
        // The rows are gone unread: count as if one had the current incarnation.
        if count > 0 { countDeletion(&table, of: Incarnation(UInt64(max(table.nextKey, 0)))) }
        storeTable(table)
        return count
    }

    /// A deletion frees a key of an integer primary key for reuse. Objects inserted from now
    /// on must get an incarnation above the deleted one's (see `Incarnation`): raise the count
    /// past it. Only an object inserted since the count last rose has the count itself as its
    /// incarnation, so deleting many objects raises it once, and rows stay small.
    private func countDeletion(_ table: inout TableInfo, of incarnation: Incarnation) {
        guard case .int = table.primaryKey else { return }
        // The incarnation was read from the file, so it is not asserted to be at most the count
        // (the verifier reports that); the count is raised past it either way. Saturates
        // rather than traps: 2^63 raises cannot happen.
        let current = UInt64(max(table.nextKey, 0))
        guard incarnation.rawValue >= current else { return }
        table.nextKey = incarnation.rawValue < UInt64(Int64.max) ? Int64(incarnation.rawValue) + 1 : Int64.max
    }

    // MARK: reads inside the transaction

    /// Calls `body` with the stored row of `key`, including this transaction's own changes,
    /// and returns its result; nil when there is no such object. The view is valid only inside
    /// `body`.
    /// - Throws: `StorageError` when the transaction has ended or a page is damaged, and what
    ///   `body` throws.
    /// - Complexity: O(log n) to find the row.
    public func withRow<R>(_ table: TableInfo, key: ObjectKey, _ body: (RowView) throws -> R) throws -> R? {
        try checkActive()
        let reads = self.reads
        guard let cell = try reads.rowCell(try info(table.id), key) else { return nil }  // specialised descent
        return try reads.withRow(cell: cell, body)
    }

    /// Whether an object is stored under `key` in this transaction's state.
    /// - Throws: `StorageError` when the transaction has ended or a page is damaged.
    /// - Complexity: O(log n).
    public func contains(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Bool {
        try checkActive()
        return try reads.contains(try info(table.id), key)
    }

    /// The key of the object whose primary key is `value` in this transaction's state; nil when
    /// there is none.
    /// - Throws: `StorageError` when the transaction has ended, the table has no primary key
    ///   of `value`'s type, or a page is damaged.
    /// - Complexity: O(log n).
    public func objectKey(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectKey? {
        try checkActive()
        return try reads.objectKey(try info(table.id), primaryKey: value)
    }

    /// The identity (key and incarnation) of the object with primary key `value`; nil when
    /// there is none. - Complexity: O(log n).
    public func objectIdentity(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectIdentity? {
        try checkActive()
        return try reads.objectIdentity(try info(table.id), primaryKey: value)
    }

    /// Calls `body` with the identity and row of the object with primary key `value` in this
    /// transaction's state; nil when there is none. - Complexity: O(log n).
    public func withObjectRow<R>(
        _ table: TableInfo, primaryKey value: Value, _ body: (ObjectIdentity, RowView) throws -> R
    ) throws -> R? {
        try checkActive()
        return try reads.withObjectRow(try info(table.id), primaryKey: value, body)
    }

    /// The keys of `table`'s objects in this transaction's state when they are consecutive and
    /// never reused; nil when not (or not known without a walk). - Complexity: O(log n).
    public func consecutiveKeys(_ table: TableInfo) throws(StorageError) -> ClosedRange<ObjectKey>? {
        try checkActive()
        return try reads.consecutiveKeys(try info(table.id))
    }

    /// The keys of the objects whose `column` holds `value`, ascending, read from the column's
    /// secondary index; nil when the column has none (Spec W26). They are candidates: check
    /// each object's value (long strings and data share entries by length and first bytes).
    /// - Complexity: O(log n + k) for k candidates.
    public func indexedKeys(_ table: TableInfo, column: Int, equalTo value: Value) throws(StorageError) -> [ObjectKey]?
    {
        try checkActive()
        return try reads.indexedKeys(try info(table.id), column: column, equalTo: value)
    }

    /// The incarnation of the object `key` in this transaction's state; nil when there is no
    /// such object. - Complexity: O(log n).
    public func incarnation(_ table: TableInfo, key: ObjectKey) throws(StorageError) -> Incarnation? {
        try checkActive()
        return try reads.incarnation(root: try info(table.id).rowRoot, key)
    }

    /// Visits the objects of `table` in this transaction's state in key order from `start`
    /// until `body` returns false.
    /// - Throws: `StorageError` when the transaction has ended or a page is damaged, and what
    ///   `body` throws.
    /// - Complexity: O(log n + k) for k objects visited.
    public func forEachRow(
        _ table: TableInfo, from start: ObjectKey?,
        _ body: (ObjectKey, RowView) throws -> Bool
    ) throws {
        try checkActive()
        try reads.forEachRow(try info(table.id), from: start, body)
    }

    // MARK: helpers

    var rowCellByteCountMax: Int { PageLayout.leafCellByteCountMax(pageSizeBytes: file.pageSizeBytes) }

    func rowValue(ofCell cell: UnsafeRawBufferPointer, column: Int) throws(StorageError) -> Value {
        do {
            return try RowView.with(cell: cell, reader: space.reader, dirtyPages: space.dirtyPages) {
                try $0.value(at: column)
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.corruptRecord(reason: "\(error)")
        }
    }

    /// Releases the overflow pages a stored row references (and its whole-row chain).
    func freeOverflow(ofRowCell cell: UnsafeRawBufferPointer) throws(StorageError) {
        let source = space.source
        if let whole = try wholeRowOverflow(cell) {
            let inner = try OverflowChain.read(first: whole.first, byteCount: whole.byteCount, source: source)
            try withBytes(inner) { raw throws(StorageError) in
                try freeValueOverflow(RowView(inlineBytes: raw, reader: space.reader, dirtyPages: space.dirtyPages))
            }
            for page in try OverflowChain.pages(first: whole.first, byteCount: whole.byteCount, source: source) {
                space.free(page)
            }
            return
        }
        try freeValueOverflow(RowView(inlineBytes: cell, reader: space.reader, dirtyPages: space.dirtyPages))
    }

    private func freeValueOverflow(_ row: RowView) throws(StorageError) {
        for (first, byteCount) in try row.overflowReferences() {
            for page in try OverflowChain.pages(first: first, byteCount: byteCount, source: space.source) {
                space.free(page)
            }
        }
    }

    private func freeAllRows(_ table: TableInfo) throws(StorageError) {
        if table.rowRoot != 0 {
            try space.checkCommitted(PageRef(page: table.rowRoot, expectation: table.rowRootExpectation))
            var cursor = TreeCursor(source: space.source)
            try cursor.seek(root: table.rowRoot, atLeast: nil)
            var cells: [[UInt8]] = []
            while cursor.isValid {
                let cell = cursor.leaf.cell(cursor.index)
                if cell.first == RowCodec.overflowFormat {
                    cells.append(Array(cell))
                } else if try !RowView(inlineBytes: cell, reader: space.reader, dirtyPages: space.dirtyPages)
                    .overflowReferences().isEmpty
                {
                    cells.append(Array(cell))
                }
                try cursor.next()
            }
            for cell in cells { try withBytes(cell) { raw throws(StorageError) in try freeOverflow(ofRowCell: raw) } }
            try TreeWriter(space: space, byteKeys: false).freeAll(root: table.rowRoot)
        }
        if table.indexRoot != 0 {
            // Spec D19: the root as the catalog expects it, then each child as its parent does.
            try space.checkCommitted(PageRef(page: table.indexRoot, expectation: table.indexRootExpectation))
            try TreeWriter(space: space, byteKeys: true).freeAll(root: table.indexRoot)
        }
    }
}

extension TableReads {
    /// The value of one column of one object and the object's incarnation; nil when the
    /// object does not exist.
    func withRowValueAndIncarnation(
        _ table: TableInfo, _ key: ObjectKey,
        column: Int
    ) throws(StorageError) -> (Value, Incarnation)? {
        do {
            return try withRow(table, key) { row in (try row.value(at: column), row.incarnation) }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.corruptRecord(reason: "\(error)")
        }
    }
}
