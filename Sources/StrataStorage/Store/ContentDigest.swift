/// A stable hash of a version's contents: every table (name, id, primary key, schema) and
/// every object (key and values, in key order). It depends only on contents, not on how they
/// are laid out in pages: a compacted copy has the same digest, and a digest printed by one
/// process can be checked by another (`strata-tool writer` / `digest`).
///
/// `ContentReading` is what a version's contents are read through, committed (a read) or not yet
/// (an open write): for the digest and for compacted copies.
protocol ContentReading {
    var catalog: Catalog { get }
    var schemaVersion: UInt64 { get }
    func tables() -> [TableInfo]
    func forEachRow(_ table: TableInfo, from start: ObjectKey?, _ body: (ObjectKey, RowView) throws -> Bool) throws
}

extension ReadTransaction: ContentReading {}
extension WriteTransaction: ContentReading {}

extension ContentReading {
    func computeContentDigest() throws -> UInt64 {
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

extension ReadTransaction {
    /// The stable digest of this version's contents.
    public func contentDigest() throws -> UInt64 { try computeContentDigest() }
}

extension WriteTransaction {
    /// The stable digest of the contents this transaction would commit now.
    public func contentDigest() throws -> UInt64 { try computeContentDigest() }
}
