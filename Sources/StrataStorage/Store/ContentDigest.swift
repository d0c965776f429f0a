// The content digest: a stable hash of a version's contents, which depends only on contents,
// not on how they are laid out in pages, so a compacted copy has the same digest, and a digest
// printed by one process can be checked by another (`strata-tool writer` / `digest`).

extension VersionReading {
    /// The stable digest of this version's contents (for a write, of what it would commit
    /// now): every table (name, identifier, primary key, schema) and every object (key and
    /// values, in key order), independent of page layout, so a compacted copy has the same one.
    /// - Throws: `StorageError` (see `VersionReading`).
    /// - Complexity: O(total size of the contents).
    public func contentDigest() throws -> UInt64 {
        var hash = StableHash()
        for table in tables() {
            hash.combine(Array(table.name.utf8))
            hash.combine(UInt64(table.id.rawValue))
            switch table.primaryKey {
            case .none: hash.combine(UInt64(0))
            case .int(let column): hash.combine(UInt64(1) << 32 | UInt64(column))
            case .string(let column): hash.combine(UInt64(2) << 32 | UInt64(column))
            }
            hash.combine(UInt64(table.schema.count))
            hash.combine(table.schema)
            hash.combine(UInt64(table.rowCount))
            try forEachRow(table, from: nil) { key, row in
                hash.combine(key.rawValue)
                var writer = ByteWriter()
                for value in try row.values() { try RowCodec.encodeValue(value, into: &writer, nested: false) }
                hash.combine(UInt64(writer.count))
                hash.combine(writer.bytes)
                return true
            }
        }
        return hash.finalize()
    }
}
