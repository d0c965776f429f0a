/// Writes a write transaction's catalog changes into its pages: removed entries, the metadata,
/// the descriptors of the tables it changed, the schemas it changed. The write transaction
/// calls it before the pager's commit (Pager/Pager.swift), after sealing the tables' trees, so
/// that each descriptor holds its roots' final expectations and the pager then seals the
/// catalog tree over them (Spec D19).
enum CatalogFlush {
    /// Flushes the changes into the catalog tree at `root` (which may move). `freeRowOverflow`
    /// frees the overflow pages of a row cell: those of a replaced or removed entry's value
    /// (escaping: the tree writer takes its old-cell callback as an optional).
    static func flush(
        _ catalog: Catalog, root: inout UInt32, removedKeys: [[UInt8]], metadataChanged: Bool,
        dirtyTables: Set<TableID>, schemaChanged: Set<String>, space: WriteSpace,
        freeRowOverflow: @escaping (UnsafeRawBufferPointer) throws(StorageError) -> Void
    )
        throws(StorageError)
    {
        let writer = TreeWriter(space: space, byteKeys: true)
        for key in removedKeys {
            _ = try withBytes(key) { bytes throws(StorageError) -> Bool in
                try writer.remove(root: &root, key: .bytes(bytes)) { old throws(StorageError) in
                    try freeValueOverflow(old, freeRowOverflow)
                }
            }
        }
        if metadataChanged {
            try put(
                CatalogCodec.metadataKey, [.int(Int64(catalog.nextTableID))], root: &root, space: space,
                freeRowOverflow: freeRowOverflow)
        }
        for id in dirtyTables.sorted() {
            guard let table = catalog.table(id) else { continue }
            try put(
                CatalogCodec.descriptorKey(table.name), CatalogCodec.descriptorValues(table), root: &root,
                space: space, freeRowOverflow: freeRowOverflow)
        }
        for name in schemaChanged.sorted() {
            guard let table = catalog.tablesByName[name] else { continue }
            try put(
                CatalogCodec.schemaKey(name), [.binary(table.schema)], root: &root, space: space,
                freeRowOverflow: freeRowOverflow)
        }
    }

    private static func put(
        _ key: [UInt8], _ values: [Value], root: inout UInt32, space: WriteSpace,
        freeRowOverflow: @escaping (UnsafeRawBufferPointer) throws(StorageError) -> Void
    )
        throws(StorageError)
    {
        let cellMax = PageLayout.leafCellByteCountMax(pageSizeBytes: space.pageSizeBytes)
        // Catalog entries are not objects: no incarnation.
        let value = try RowCodec.encode(
            values, incarnation: .keyIsIdentity, inlineByteCountMax: cellMax - 2 - key.count,
            space: space)
        var cell = ByteWriter(capacity: key.count + value.count + 2)
        encodeCellKeyLength(key.count, into: &cell)
        cell.append(contentsOf: key)
        cell.append(contentsOf: value)
        let writer = TreeWriter(space: space, byteKeys: true)
        _ = try withBytes(key) { keyBytes throws(StorageError) -> PutOutcome in
            try withBytes(cell.bytes) { cellBytes throws(StorageError) -> PutOutcome in
                try writer.put(root: &root, key: .bytes(keyBytes), cell: cellBytes, mode: .upsert) {
                    old throws(StorageError) in
                    try freeValueOverflow(old, freeRowOverflow)
                }
            }
        }
    }

    /// Frees the overflow pages of a catalog entry's value (a large schema).
    private static func freeValueOverflow(
        _ cell: UnsafeRawBufferPointer,
        _ freeRowOverflow: (UnsafeRawBufferPointer) throws(StorageError) -> Void
    )
        throws(StorageError)
    {
        let (keyLength, header) = decodeCellKeyLength(cell)
        try freeRowOverflow(UnsafeRawBufferPointer(rebasing: cell[(header + keyLength)...]))
    }
}
