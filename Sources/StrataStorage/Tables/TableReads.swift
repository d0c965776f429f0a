/// Reading tables at one version, over either page source (a read transaction's committed
/// pages, or a write transaction's view with its dirty pages). Shared by both transaction
/// kinds so that reads behave the same inside and outside a write.
struct TableReads<Source: PageSource> {
    let source: Source
    let reader: PageReader
    /// The write transaction's dirty pages, or nil (see `RowView.dirtyPages` for why a pointer).
    let dirtyPages: UnsafeMutablePointer<DirtyPageTable>?
    /// Whether the rows handed out lie in pages a read transaction pins (`RowView.pinned`):
    /// said by that transaction alone, never inferred.
    let rowsArePinned: Bool

    init(source: Source, reader: PageReader, space: WriteSpace?, rowsArePinned: Bool = false) {
        self.source = source
        self.reader = reader
        self.dirtyPages = space?.dirtyPages
        self.rowsArePinned = rowsArePinned && space == nil
    }

    /// Loads the catalog of the tree at `root`, checking the root and every table's roots
    /// against what their references expect (Spec D19): the tree code below the roots checks
    /// each child against its parent.
    func loadCatalog(root: PageRef) throws(StorageError) -> Catalog {
        var catalog = Catalog()
        guard root.page != 0 else { return catalog }
        _ = try reader.root(root)
        let root = root.page
        var descriptors: [(String, [Value])] = []
        var schemas: [String: [UInt8]] = [:]
        var cursor = TreeCursor(source: source)
        try cursor.seek(root: root, atLeast: nil)
        var entryCount = 0
        while cursor.isValid {
            entryCount += 1
            guard entryCount <= 1 << 24 else { throw StorageError.corruptRecord(reason: "catalog too large") }
            let leaf = cursor.leaf
            let key = leaf.fullKey(cursor.index)
            let values = try decodeRow(leaf.value(cursor.index))
            guard let kind = key.first else { throw StorageError.corruptRecord(reason: "empty catalog key") }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: key.dropFirst()), as: UTF8.self)
            switch kind {
            case 0x00:
                guard case .int(let next)? = values.first, next > 0, next <= Int64(UInt32.max) else {
                    throw StorageError.corruptRecord(reason: "catalog metadata")
                }
                catalog.nextTableID = UInt32(next)
            case CatalogCodec.descriptorKind:
                descriptors.append((name, values))
            case CatalogCodec.schemaKind:
                guard case .binary(let bytes)? = values.first else {
                    throw StorageError.corruptRecord(reason: "schema of '\(name)'")
                }
                schemas[name] = bytes
            default:
                throw StorageError.corruptRecord(reason: "catalog key kind \(kind)")
            }
            try cursor.next()
        }
        for (name, values) in descriptors {
            guard let table = CatalogCodec.table(name: name, values: values, schema: schemas[name] ?? []) else {
                throw StorageError.corruptRecord(reason: "descriptor of table '\(name)'")
            }
            guard !catalog.contains(id: table.id), table.id.rawValue < catalog.nextTableID else {
                throw StorageError.corruptRecord(
                    reason: "table id \(table.id.rawValue) of '\(name)' reused or beyond next id")
            }
            if table.rowRoot != 0 {
                _ = try reader.root(PageRef(page: table.rowRoot, expectation: table.rowRootExpectation))
            }
            if table.indexRoot != 0 {
                _ = try reader.root(PageRef(page: table.indexRoot, expectation: table.indexRootExpectation))
            }
            catalog.set(table)
        }
        return catalog
    }

    func decodeRow(_ cell: UnsafeRawBufferPointer) throws(StorageError) -> [Value] {
        do {
            return try RowView.with(cell: cell, reader: reader, dirtyPages: dirtyPages) { row in try row.values() }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.corruptRecord(reason: "\(error)")
        }
    }

    /// Calls `body` with the row of `key`; nil when there is none.
    ///
    /// Callers generic over `R` (the public `withRow`s) should call `rowCell` from their
    /// concrete context and then `withRow(cell:)`: a call to this generic method from a
    /// generic caller is not specialised, so its descent would call the page source through
    /// the protocol witness table at every level.
    func withRow<R>(_ table: TableInfo, _ key: ObjectKey, _ body: (RowView) throws -> R) throws -> R? {
        guard let cell = try rowCell(table, key) else { return nil }
        return try withRow(cell: cell, body)
    }

    /// The stored cell of the row of `key`; nil when there is none.
    func rowCell(_ table: TableInfo, _ key: ObjectKey) throws(StorageError) -> UnsafeRawBufferPointer? {
        try rowCell(root: table.rowRoot, key)
    }

    /// `rowCell` given the table's row-tree root.
    func rowCell(root: UInt32, _ key: ObjectKey) throws(StorageError) -> UnsafeRawBufferPointer? {
        guard let (leaf, index) = try TreeSearch.find(source, root: root, key: .int(key.rawValue)) else {
            return nil
        }
        return leaf.leafCell(index)
    }

    func contains(root: UInt32, _ key: ObjectKey) throws(StorageError) -> Bool {
        try TreeSearch.find(source, root: root, key: .int(key.rawValue)) != nil
    }

    /// Calls `body` with the row stored in `cell` (from `rowCell`).
    @inline(__always)
    func withRow<R>(cell: UnsafeRawBufferPointer, _ body: (RowView) throws -> R) throws -> R {
        try RowView.with(cell: cell, reader: reader, dirtyPages: dirtyPages, pinned: rowsArePinned, body)
    }

    func contains(_ table: TableInfo, _ key: ObjectKey) throws(StorageError) -> Bool {
        try TreeSearch.find(source, root: table.rowRoot, key: .int(key.rawValue)) != nil
    }

    /// The incarnation of the object `key`; nil when there is none. Reads the row's header
    /// only (and, for a whole-row overflow, its chain).
    func incarnation(root: UInt32, _ key: ObjectKey) throws(StorageError) -> Incarnation? {
        guard let cell = try rowCell(root: root, key) else { return nil }
        return try incarnation(ofCell: cell)
    }

    /// The incarnation stored in a row cell (from `rowCell`).
    func incarnation(ofCell cell: UnsafeRawBufferPointer) throws(StorageError) -> Incarnation {
        if cell.count >= 2 && cell[0] == RowCodec.inlineFormat { return .keyIsIdentity }  // no header to parse
        do {
            return try withRow(cell: cell) { $0.incarnation }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.corruptRecord(reason: "\(error)")
        }
    }

    /// The identity of the object whose primary key is `value`, if any: one descent for an
    /// integer primary key (the row holds the incarnation); a string primary key's object is
    /// identified by its key (`Incarnation.keyIsIdentity`).
    func objectIdentity(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectIdentity? {
        guard let (key, clustered) = try primaryKeyLocation(table, value) else { return nil }
        guard clustered else { return ObjectIdentity(key: key, incarnation: .keyIsIdentity) }
        guard let incarnation = try incarnation(root: table.rowRoot, key) else { return nil }
        return ObjectIdentity(key: key, incarnation: incarnation)
    }

    /// Where the object whose primary key is `value` would be: its key, and whether the key is
    /// the primary key itself (an integer primary key: the row holds the incarnation); nil when
    /// a string primary key's index has no entry.
    private func primaryKeyLocation(_ table: TableInfo, _ value: Value) throws(StorageError) -> (ObjectKey, Bool)? {
        if case .int = table.primaryKey { return (try IndexKeys.clusteredKey(for: value, table: table), true) }
        return try objectKey(table, primaryKey: value).map { ($0, false) }
    }

    /// The keys of `table`'s objects when they are exactly the consecutive keys `first...last`
    /// and no key was ever given to a second object (every incarnation is 0); nil when that is
    /// not so, or not known without a walk (an empty rightmost leaf). Two descents.
    func consecutiveKeys(_ table: TableInfo) throws(StorageError) -> ClosedRange<ObjectKey>? {
        guard table.rowCount > 0, table.rowRoot != 0 else { return nil }
        // An integer primary key's table counts deletions in `nextKey` (incarnations): while it
        // is 0 no key was reused. Other tables' keys are never reused.
        if case .int = table.primaryKey, table.nextKey != 0 { return nil }
        var cursor = TreeCursor(source: source)
        try cursor.seek(root: table.rowRoot, atLeast: nil)
        guard cursor.isValid, !cursor.leaf.hasByteKeys else { return nil }
        let first = intKeyFromImage(cursor.leaf.leafKeyImage(cursor.index))
        var node = try source.node(table.rowRoot)
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth <= TreeSearch.depthMax else {
                throw StorageError.corruptPage(
                    page: PageNumber(table.rowRoot), reason: "tree deeper than \(TreeSearch.depthMax)")
            }
            node = try source.child(of: node, node.count)
        }
        guard node.count > 0, !node.hasByteKeys else { return nil }
        let last = intKeyFromImage(node.leafKeyImage(node.count - 1))
        // Overflow-safe: the span is compared only when it cannot trap.
        guard first <= last, last.subtractingReportingOverflow(first).overflow == false,
            last - first == Int64(table.rowCount) - 1
        else { return nil }
        return ObjectKey(first)...ObjectKey(last)
    }

    /// The identity of the object whose primary key is `value` (as `objectIdentity` gives it)
    /// and its decoded values, nil when one of them lies in overflow pages or cannot be
    /// decoded; nil when there is no such object.
    func withObjectRow<R>(
        _ table: TableInfo, primaryKey value: Value, _ body: (ObjectIdentity, RowView) throws -> R
    ) throws -> R? {
        if case .int = table.primaryKey {
            return try withClusteredObjectRow(root: table.rowRoot, table, primaryKey: value, body)
        }
        guard let key = try objectKey(table, primaryKey: value), let cell = try rowCell(table, key) else { return nil }
        return try withRow(cell: cell) { row in try body(ObjectIdentity(key: key, incarnation: .keyIsIdentity), row) }
    }

    /// `withObjectRow` for a table with an integer primary key (the value is the object key,
    /// its row's incarnation tells a reused key's objects apart), from the row tree's `root`.
    func withClusteredObjectRow<R>(
        root: UInt32, _ table: TableInfo, primaryKey value: Value, _ body: (ObjectIdentity, RowView) throws -> R
    ) throws -> R? {
        let key = try IndexKeys.clusteredKey(for: value, table: table)
        guard let cell = try rowCell(root: root, key) else { return nil }
        return try withRow(cell: cell) { row in try body(ObjectIdentity(key: key, incarnation: row.incarnation), row) }
    }

    /// The object key of the object whose primary key is `value`, if any.
    func objectKey(_ table: TableInfo, primaryKey value: Value) throws(StorageError) -> ObjectKey? {
        switch table.primaryKey {
        case .none:
            throw StorageError.invalidArgument("table '\(table.name)' has no primary key")
        case .int:
            let key = try IndexKeys.clusteredKey(for: value, table: table)
            return try contains(table, key) ? key : nil
        case .string:
            let indexKey = try IndexKeys.stringIndexKey(for: value, table: table, pageSizeBytes: source.pageSizeBytes)
            return try withBytes(indexKey) { bytes throws(StorageError) -> ObjectKey? in
                guard let (leaf, index) = try TreeSearch.find(source, root: table.indexRoot, key: .bytes(bytes)) else {
                    return nil
                }
                let stored = leaf.value(index)
                guard stored.count == 8, let base = stored.baseAddress else {
                    throw StorageError.corruptRecord(reason: "index entry of '\(table.name)' is \(stored.count) bytes")
                }
                return ObjectKey(Int64(bitPattern: loadUInt64(base, 0)))
            }
        }
    }

    /// The keys of the objects whose `column` holds `value` by the column's secondary index,
    /// ascending; nil when the column has none (Spec W26). Candidates: a long string or data
    /// value shares its entries with values of the same length and first bytes, so the caller
    /// checks each object's value.
    func indexedKeys(_ table: TableInfo, column: Int, equalTo value: Value) throws(StorageError) -> [ObjectKey]? {
        guard column >= 0 && column < SecondaryIndex.columnLimit,
            table.indexedColumns & (1 << UInt64(column)) != 0
        else { return nil }
        guard let prefix = SecondaryIndex.prefix(column: column, value: value, pageSizeBytes: source.pageSizeBytes)
        else { return [] }
        var keys: [ObjectKey] = []
        try forEachIndexEntry(table, prefix: prefix) { entry throws(StorageError) in
            guard let key = SecondaryIndex.objectKey(ofEntry: entry, prefixCount: prefix.count) else {
                throw StorageError.corruptRecord(
                    reason: "secondary index entry of '\(table.name)' is \(entry.count) bytes, not \(prefix.count + 8)")
            }
            keys.append(key)
        }
        return keys
    }

    /// The index tree's keys that start with `prefix`, in order.
    func indexEntries(_ table: TableInfo, prefix: [UInt8]) throws(StorageError) -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try forEachIndexEntry(table, prefix: prefix) { entry in entries.append(Array(entry)) }
        return entries
    }

    private func forEachIndexEntry(
        _ table: TableInfo, prefix: [UInt8], _ body: (UnsafeRawBufferPointer) throws(StorageError) -> Void
    ) throws(StorageError) {
        guard table.indexRoot != 0 else { return }
        var cursor = TreeCursor(source: source)
        try withBytes(prefix) { bytes throws(StorageError) in
            try cursor.seek(root: table.indexRoot, atLeast: .bytes(bytes))
        }
        while cursor.isValid {
            let leaf = cursor.leaf
            guard leaf.isLeaf && leaf.hasByteKeys else {
                throw StorageError.corruptRecord(
                    reason: "index tree of '\(table.name)' has an int-keyed or branch leaf")
            }
            let entry = leaf.fullKey(cursor.index)
            guard entry.count >= prefix.count, prefix.indices.allSatisfy({ entry[$0] == prefix[$0] }) else { return }
            try body(entry)
            guard try cursor.next() else { return }
        }
    }

    /// Visits rows in key order starting at `start` (inclusive) until `body` returns false.
    ///
    /// The inner loop walks one leaf's entries with local variables (no cursor arrays, no
    /// reference counting per row); the cursor only moves between leaves.
    func forEachRow(_ table: TableInfo, from start: ObjectKey?, _ body: (ObjectKey, RowView) throws -> Bool) throws {
        var cursor = TreeCursor(source: source)
        try cursor.seek(root: table.rowRoot, atLeast: start.map { .int($0.rawValue) })
        let reader = self.reader
        let dirtyPages = self.dirtyPages
        while cursor.isValid {
            let leaf = cursor.leaf
            guard leaf.isLeaf && !leaf.hasByteKeys else {
                throw StorageError.corruptRecord(
                    reason: "row tree of '\(table.name)' has a byte-keyed or branch node as leaf")
            }
            let count = leaf.count
            var index = cursor.index
            invariant(index < count, "a valid cursor is on an entry")
            while index < count {
                let key = ObjectKey(intKeyFromImage(leaf.leafKeyImage(index)))
                let proceed = try RowView.with(
                    cell: leaf.leafCell(index), reader: reader, dirtyPages: dirtyPages, pinned: rowsArePinned
                ) {
                    row in
                    try body(key, row)
                }
                if !proceed { return }
                index &+= 1
            }
            try cursor.nextLeaf()
        }
    }
}

/// Keys of primary-key lookups.
enum IndexKeys {
    /// The object key of an integer primary key value.
    static func clusteredKey(for value: Value, table: TableInfo) throws(StorageError) -> ObjectKey {
        switch value {
        case .int(let number):
            guard number != Int64.min else {
                throw StorageError.invalidArgument("primary key \(Int64.min) of '\(table.name)' is reserved for null")
            }
            return ObjectKey(number)
        case .null:
            return TableInfo.nullIntPrimaryKey
        default:
            throw StorageError.invalidArgument(
                "primary key of '\(table.name)' must be an integer or null, got \(value)")
        }
    }

    /// The index key of a string (or binary, as UUIDs are) primary key value: 0x00 for null,
    /// 0x01 + UTF-8 for a string, 0x02 + the bytes for binary.
    static func stringIndexKey(for value: Value, table: TableInfo, pageSizeBytes: Int) throws(StorageError) -> [UInt8] {
        switch value {
        case .null:
            return [0x00]
        case .string(let text):
            return try boundedIndexKey([0x01] + Array(text.utf8), pageSizeBytes: pageSizeBytes)
        case .binary(let bytes):
            return try boundedIndexKey([0x02] + bytes, pageSizeBytes: pageSizeBytes)
        default:
            throw StorageError.invalidArgument(
                "primary key of '\(table.name)' must be a string, binary or null, got \(value)")
        }
    }

    /// `key`, if an index entry can hold it.
    private static func boundedIndexKey(_ key: [UInt8], pageSizeBytes: Int) throws(StorageError) -> [UInt8] {
        let maximum = PageLayout.keyByteCountMax(pageSizeBytes: pageSizeBytes)
        guard key.count <= maximum else {
            throw StorageError.valueTooLarge(reason: "primary key of \(key.count - 1) bytes (at most \(maximum - 1))")
        }
        return key
    }
}
