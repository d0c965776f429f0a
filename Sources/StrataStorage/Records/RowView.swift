/// A zero-copy view of one stored row, valid only inside the closure that received it (it
/// points into the memory map or a transaction's dirty pages).
///
/// Reading one column is O(1) (the row's offset table); only that column is decoded. Values
/// in overflow pages are read (copied) on demand. Every read is bounds-checked against the
/// row's bytes: a malformed row throws `.corruptRecord`, it never reads past its cell.
///
/// Confinement: not `Sendable`; use it on the thread that runs the closure.
///
/// Performance: the accessors a scan calls per row (`int(at:)`, `withInlineBytes(at:_:)`,
/// `isNull(at:)`) are `@inlinable`, so they are specialised and inlined into the client's loop
/// instead of being generic cross-module calls; their error paths stay out of line.
public struct RowView {
    /// The row's inline part: its bytes, column count and offset table. All a read of an
    /// inline value needs; what a caller keeps between reads (`InlineRow`).
    public let inline: InlineRow
    /// What reads the values in overflow pages.
    let reader: PageReader
    /// The write transaction's dirty pages when reading inside one (nil for committed reads),
    /// for overflow values. A plain pointer (owned by the write's `PageAllocator`) rather than
    /// a reference: copying it into a new row view, once per row of a scan, costs no
    /// reference counting. The transaction that handed out this view outlives it (views do not
    /// escape their closure).
    let dirtyPages: UnsafeMutablePointer<DirtyPageTable>?
    /// Whether `bytes` lie in the store's map, in a page of the committed version a read
    /// transaction pins (`pinned`).
    private let isInPinnedPage: Bool

    @usableFromInline var bytes: UnsafeRawBufferPointer { inline.bytes }
    /// Number of columns stored in this row (rows written before a column was added have
    /// fewer; the missing columns read as null).
    public var columnCount: Int { inline.columnCount }

    @inline(__always)
    init(
        inlineBytes: UnsafeRawBufferPointer, reader: PageReader,
        dirtyPages: UnsafeMutablePointer<DirtyPageTable>?, inPinnedPage: Bool = false
    ) throws(StorageError) {
        inline = try InlineRow(parsing: inlineBytes)
        self.reader = reader
        self.dirtyPages = dirtyPages
        isInPinnedPage = inPinnedPage
    }

    /// The row's inline bytes (header, offset table, values), valid as long as the view is.
    public var inlineRowBytes: UnsafeRawBufferPointer { bytes }

    /// This view, when it may be kept after its closure returns: a row of a read transaction
    /// (not a write) stored in its page's cell (not reassembled from overflow pages). Such a
    /// row lies in the store's map, whose address range never moves (`AddressReservation`),
    /// in a page of the version the transaction pins, which is never overwritten while pinned
    /// (Spec D5); so the view, overflow values included, reads the same bytes for as long as
    /// that transaction stays open. The keeper must stop using it before the transaction ends.
    /// nil for a row read inside a write: its dirty pages change and are freed.
    public var pinned: RowView? { isInPinnedPage ? self : nil }

    @inline(__always)
    static func isInline(format: UInt8) -> Bool { InlineRow.isInline(format: format) }

    /// The stored object's incarnation (`Incarnation`): 0 for rows of format 0x01.
    public var incarnation: Incarnation { inline.incarnation }

    /// Calls `body` with a view of the row stored in `cell` (following a whole-row overflow).
    /// `pinned`: the cell lies in a page a read transaction pins (the view may be kept: `pinned`).
    @inline(__always)
    static func with<R>(
        cell: UnsafeRawBufferPointer, reader: PageReader, dirtyPages: UnsafeMutablePointer<DirtyPageTable>?,
        pinned: Bool = false, _ body: (RowView) throws -> R
    ) throws -> R {
        if cell.count >= 2 && isInline(format: cell[0]) {
            return try body(
                RowView(
                    inlineBytes: cell, reader: reader, dirtyPages: dirtyPages, inPinnedPage: pinned && dirtyPages == nil
                ))
        }
        return try withOverflowRow(cell: cell, reader: reader, dirtyPages: dirtyPages, body)
    }

    /// The slow path of `with`: a whole-row overflow (or a malformed cell).
    private static func withOverflowRow<R>(
        cell: UnsafeRawBufferPointer, reader: PageReader,
        dirtyPages: UnsafeMutablePointer<DirtyPageTable>?,
        _ body: (RowView) throws -> R
    ) throws -> R {
        guard cell.count >= 1 else { throw StorageError.corruptRecord(reason: "empty row") }
        if isInline(format: cell[0]) {
            return try body(RowView(inlineBytes: cell, reader: reader, dirtyPages: dirtyPages))
        }
        guard cell[0] == RowCodec.overflowFormat, let base = cell.baseAddress else {
            throw StorageError.corruptRecord(reason: "unknown row format \(cell[0])")
        }
        var header = ByteReader(base: base, offset: 1, endOffset: cell.count)
        let length: UInt64
        let first: PageRef
        do {
            length = try header.readVarint()
            first = try header.readPageRef()
        } catch {
            throw StorageError.corruptRecord(reason: "overflow row header: \(error)")
        }
        guard length <= UInt64(UInt16.max) else {
            throw StorageError.corruptRecord(reason: "overflow row of \(length) bytes")
        }
        let stored = try readOverflow(first: first, byteCount: Int(length), reader: reader, dirtyPages: dirtyPages)
        return try stored.withUnsafeBytes { raw in
            try body(RowView(inlineBytes: raw, reader: reader, dirtyPages: dirtyPages))
        }
    }

    static func readOverflow(
        first: PageRef, byteCount: Int, reader: PageReader,
        dirtyPages: UnsafeMutablePointer<DirtyPageTable>?
    ) throws(StorageError) -> [UInt8] {
        if let dirtyPages {
            return try OverflowChain.read(
                first: first, byteCount: byteCount, source: WritePages(reader: reader, dirty: dirtyPages))
        }
        return try OverflowChain.read(first: first, byteCount: byteCount, source: reader)
    }

    /// The encoded size of the row (inline part).
    public var encodedByteCount: Int { bytes.count }

    /// The integer in `column`; nil when it is null, missing or not an integer.
    @inlinable @inline(__always)
    public func int(at column: Int) throws(StorageError) -> Int64? { try inline.int(at: column) }

    /// Whether `column` holds null, without decoding it; a column beyond the row's stored
    /// count (added by a later schema) reads as null.
    @inlinable @inline(__always)
    public func isNull(at column: Int) throws(StorageError) -> Bool { try inline.isNull(at: column) }

    /// The inline bytes of a string or binary column, without copying; nil when the value is
    /// not inline (null, another type, or in overflow pages: use `value(at:)`).
    @inlinable @inline(__always)
    public func withInlineBytes<R>(at column: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        try inline.withInlineBytes(at: column, body)
    }

    /// The string in `column` when it is stored inline; nil when the value is null, missing,
    /// not a string, or in overflow pages (`value(at:)` reads those).
    @inlinable @inline(__always)
    public func inlineString(at column: Int) throws(StorageError) -> String? { try inline.inlineString(at: column) }

    /// The decoded value of `column` (null when the row has fewer columns).
    public func value(at column: Int) throws(StorageError) -> Value {
        guard let offset = try inline._valueOffset(column), let base = bytes.baseAddress else { return .null }
        var cursor = ByteReader(base: base, offset: offset, endOffset: bytes.count)
        do {
            if let value = try InlineRow.decodeValue(&cursor, nested: false) { return value }
            return try overflowValue(&cursor)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.corruptRecord(reason: "column \(column): \(error)")
        }
    }

    /// Every column, decoded.
    public func values() throws(StorageError) -> [Value] {
        var result: [Value] = []
        result.reserveCapacity(columnCount)
        for column in 0..<columnCount { result.append(try value(at: column)) }
        return result
    }

    /// Whether a value of the row lies in overflow pages (reading it reads the chain): a
    /// caller reading rows ahead of need (the Realm API's scans and lookups) leaves such rows
    /// to be read, chains and all, only if their properties are.
    /// - Throws: `StorageError` for damaged row bytes.
    public func hasOverflowValues() throws(StorageError) -> Bool { try inline.hasOverflowValues() }

    /// The value in overflow pages whose reference `cursor` is at, just past its tag
    /// (`InlineRow.decodeValue` stopped there).
    private func overflowValue(_ cursor: inout ByteReader) throws -> Value {
        guard cursor.offset > 0, let tag = RowCodec.Tag(rawValue: bytes[cursor.offset - 1]) else {
            throw StorageError.corruptRecord(reason: "overflow value without its tag")
        }
        let length = try cursor.readVarint()
        let first = try cursor.readPageRef()
        guard length <= UInt64(Int32.max) else { throw DecodeError.malformed }
        let stored = try Self.readOverflow(first: first, byteCount: Int(length), reader: reader, dirtyPages: dirtyPages)
        switch tag {
        case .stringOverflow: return .string(String(decoding: stored, as: UTF8.self))
        case .binaryOverflow: return .binary(stored)
        default:
            return .list(
                try stored.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return [] }
                    var inner = ByteReader(base: base, offset: 0, endOffset: raw.count)
                    return try InlineRow.decodeListBody(&inner)
                })
        }
    }

    /// The overflow chains this row references (whole-row overflow excluded), as
    /// (first page, byte length): used to free them and to verify them.
    func overflowReferences() throws(StorageError) -> [(first: PageRef, byteCount: Int)] {
        var result: [(PageRef, Int)] = []
        guard let base = bytes.baseAddress else { return [] }
        for column in 0..<columnCount {
            guard let offset = try inline._valueOffset(column) else { continue }
            let tag = bytes[offset]
            guard tag >= RowCodec.Tag.stringOverflow.rawValue && tag <= RowCodec.Tag.listOverflow.rawValue else {
                continue
            }
            var cursor = ByteReader(base: base, offset: offset + 1, endOffset: bytes.count)
            do {
                let length = try cursor.readVarint()
                let first = try cursor.readPageRef()
                guard length <= UInt64(Int32.max) else { throw DecodeError.malformed }
                result.append((first, Int(length)))
            } catch {
                throw StorageError.corruptRecord(reason: "overflow reference in column \(column): \(error)")
            }
        }
        return result
    }
}

/// The whole-row overflow chain of a stored row cell, if it has one.
func wholeRowOverflow(_ cell: UnsafeRawBufferPointer) throws(StorageError) -> (first: PageRef, byteCount: Int)? {
    guard cell.count >= 1, cell[0] == RowCodec.overflowFormat, let base = cell.baseAddress else { return nil }
    var header = ByteReader(base: base, offset: 1, endOffset: cell.count)
    do {
        let length = try header.readVarint()
        let first = try header.readPageRef()
        guard length <= UInt64(UInt16.max) else { throw DecodeError.malformed }
        return (first, Int(length))
    } catch {
        throw StorageError.corruptRecord(reason: "overflow row header: \(error)")
    }
}

extension ByteReader {
    /// A reference to an overflow chain's first page: u32 page, u32 checksum, u64 version
    /// (Spec D19).
    mutating func readPageRef() throws(DecodeError) -> PageRef {
        let page = try readUInt32()
        let checksum = try readUInt32()
        let version = try readUInt64()
        return PageRef(page: page, expectation: PageExpectation(checksum: checksum, version: version))
    }
}
