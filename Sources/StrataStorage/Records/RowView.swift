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
    @usableFromInline let bytes: UnsafeRawBufferPointer
    /// nil for a detached row (`detached(_:)`), which cannot read overflow pages.
    let reader: PageReader?
    /// The write transaction's dirty pages when reading inside one (nil for committed reads),
    /// for overflow values. A plain pointer (owned by the write's `PageAllocator`) rather than
    /// a reference: copying it into a new row view, once per row of a scan, costs no
    /// reference counting. The transaction that handed out this view outlives it (views do not
    /// escape their closure).
    let dirtyPages: UnsafeMutablePointer<DirtyPageTable>?
    /// Number of columns stored in this row (rows written before a column was added have
    /// fewer; the missing columns read as null).
    public let columnCount: Int
    @usableFromInline let offsetTableStart: Int
    /// Whether `bytes` lie in the store's map, in a page of the committed version a read
    /// transaction pins (`pinned`).
    private let isInPinnedPage: Bool

    @inline(__always)
    init(
        inlineBytes: UnsafeRawBufferPointer, reader: PageReader?,
        dirtyPages: UnsafeMutablePointer<DirtyPageTable>?, inPinnedPage: Bool = false
    ) throws(StorageError) {
        self.bytes = inlineBytes
        self.reader = reader
        self.dirtyPages = dirtyPages
        isInPinnedPage = inPinnedPage
        guard let base = inlineBytes.baseAddress, inlineBytes.count >= 2,
            Self.isInline(format: inlineBytes[0])
        else {
            throw StorageError.corruptRecord(reason: "row does not start with an inline format byte")
        }
        var header = ByteReader(base: base, offset: 1, endOffset: inlineBytes.count)
        // Scans build a view per row: the incarnation is only stepped over here (out of line)
        // and decoded when asked for (`incarnation`).
        if inlineBytes[0] != RowCodec.inlineFormat { try Self.skipIncarnation(&header) }
        let count: UInt64
        do { count = try header.readVarint() } catch {
            throw Self.corruptHeader(error)
        }
        // Every offset in the table is checked against the row's end when it is read
        // (`_valueOffset`), so the table itself only has to lie inside the row.
        guard count <= UInt64(RowCodec.columnCountMax), header.offset + Int(count) * 2 <= inlineBytes.count else {
            throw Self.corruptHeader(DecodeError.malformed)
        }
        columnCount = Int(count)
        offsetTableStart = header.offset
    }

    /// A view of an inline row's bytes held outside the file (a copy of `inlineRowBytes`, kept
    /// by a caller between reads), checked as a stored row is. Values in overflow pages cannot
    /// be read from it (reading one throws): copy only rows without them (`hasOverflowValues`).
    /// - Throws: `.corruptRecord` when the bytes do not start with a valid row header.
    @inline(__always)
    public static func detached(_ inlineBytes: UnsafeRawBufferPointer) throws(StorageError) -> RowView {
        try RowView(inlineBytes: inlineBytes, reader: nil, dirtyPages: nil)
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

    /// Whether `format` starts an inline row (with or without an incarnation): 0x01 or 0x03,
    /// the only bytes that are 0x03 with bit 1 set, so one comparison (scans ask once a row).
    @inline(__always)
    static func isInline(format: UInt8) -> Bool {
        format | 0x02 == RowCodec.identifiedFormat
    }

    /// Steps over the incarnation of a format 0x03 row, checking it: rows carry one only from
    /// 1 on (0 means none, format 0x01).
    @inline(never)
    private static func skipIncarnation(_ header: inout ByteReader) throws(StorageError) {
        let incarnation: UInt64
        do { incarnation = try header.readVarint() } catch {
            throw corruptHeader(error)
        }
        guard incarnation != 0 else { throw corruptHeader(DecodeError.malformed) }
    }

    /// The stored object's incarnation (`Incarnation`): 0 for rows of format 0x01. Decoded
    /// from the header the initializer checked.
    public var incarnation: Incarnation {
        guard bytes[0] == RowCodec.identifiedFormat, let base = bytes.baseAddress else { return .keyIsIdentity }
        var header = ByteReader(base: base, offset: 1, endOffset: bytes.count)
        return (try? header.readVarint()).map(Incarnation.init(_:)) ?? .keyIsIdentity
    }

    @inline(never)
    private static func corruptHeader(_ error: DecodeError) -> StorageError {
        StorageError.corruptRecord(reason: "row header: \(error)")
    }

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
        first: PageRef, byteCount: Int, reader: PageReader?,
        dirtyPages: UnsafeMutablePointer<DirtyPageTable>?
    ) throws(StorageError) -> [UInt8] {
        guard let reader else {
            throw StorageError.invalidArgument("a value in overflow pages read from a detached row")
        }
        if let dirtyPages {
            return try OverflowChain.read(
                first: first, byteCount: byteCount, source: WritePages(reader: reader, dirty: dirtyPages))
        }
        return try OverflowChain.read(first: first, byteCount: byteCount, source: reader)
    }

    /// The encoded size of the row (inline part).
    public var encodedByteCount: Int { bytes.count }

    // Value tags (`RowCodec.Tag`) as literals, usable from the inlinable accessors.
    @usableFromInline static var _intTag: UInt8 { 3 }
    @usableFromInline static var _nullTag: UInt8 { 0 }
    @usableFromInline static var _stringTag: UInt8 { 5 }
    @usableFromInline static var _binaryTag: UInt8 { 6 }

    /// Offset of column `column`'s tag byte, or nil when the row has fewer columns.
    @inlinable @inline(__always)
    func _valueOffset(_ column: Int) throws(StorageError) -> Int? {
        guard column >= 0 else { throw Self._invalidColumn(column) }
        guard column < columnCount, let base = bytes.baseAddress else { return nil }
        let offset = Int(loadUInt16(base, offsetTableStart &+ 2 &* column))
        guard offset < bytes.count else { throw Self._offsetBeyondRow(column, offset) }
        return offset
    }

    @usableFromInline @inline(never)
    static func _invalidColumn(_ column: Int) -> StorageError {
        StorageError.invalidArgument("column \(column)")
    }

    @usableFromInline @inline(never)
    static func _offsetBeyondRow(_ column: Int, _ offset: Int) -> StorageError {
        StorageError.corruptRecord(reason: "column \(column) offset \(offset) beyond row")
    }

    @usableFromInline @inline(never)
    static func _corruptValue(_ kind: StaticString, _ column: Int, _ error: DecodeError) -> StorageError {
        StorageError.corruptRecord(reason: "\(kind) in column \(column): \(error)")
    }

    /// The integer in `column`; nil when it is null, missing or not an integer.
    @inlinable @inline(__always)
    public func int(at column: Int) throws(StorageError) -> Int64? {
        guard let offset = try _valueOffset(column), let base = bytes.baseAddress else { return nil }
        guard bytes[offset] == Self._intTag else { return nil }
        var reader = ByteReader(base: base, offset: offset &+ 1, endOffset: bytes.count)
        do { return try reader.readSignedVarint() } catch {
            throw Self._corruptValue("int", column, error)
        }
    }

    /// Whether `column` holds null, without decoding it; a column beyond the row's stored
    /// count (added by a later schema) reads as null.
    /// - Throws: `StorageError` for a negative column or damaged row bytes.
    @inlinable
    public func isNull(at column: Int) throws(StorageError) -> Bool {
        guard let offset = try _valueOffset(column) else { return true }
        return bytes[offset] == Self._nullTag
    }

    /// The inline bytes of a string or binary column, without copying; nil when the value is
    /// not inline (null, another type, or in overflow pages: use `value(at:)`).
    @inlinable @inline(__always)
    public func withInlineBytes<R>(at column: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        guard let offset = try _valueOffset(column), let base = bytes.baseAddress else { return nil }
        let tag = bytes[offset]
        guard tag == Self._stringTag || tag == Self._binaryTag else { return nil }
        var reader = ByteReader(base: base, offset: offset &+ 1, endOffset: bytes.count)
        let view: UnsafeRawBufferPointer
        do throws(DecodeError) {
            let length = try reader.readVarint()
            guard length <= UInt64(bytes.count) else { throw DecodeError.truncated }
            view = try reader.readBytes(Int(length))
        } catch {
            throw Self._corruptValue("bytes", column, error)
        }
        return try body(view)
    }

    /// The string in `column` when it is stored inline; nil when the value is null, missing,
    /// not a string, or in overflow pages (`value(at:)` reads those).
    @inlinable
    public func inlineString(at column: Int) throws(StorageError) -> String? {
        guard let offset = try _valueOffset(column), bytes[offset] == Self._stringTag, let base = bytes.baseAddress
        else { return nil }
        var reader = ByteReader(base: base, offset: offset &+ 1, endOffset: bytes.count)
        do throws(DecodeError) {
            let length = try reader.readVarint()
            guard length <= UInt64(bytes.count) else { throw DecodeError.truncated }
            return String(decoding: try reader.readBytes(Int(length)), as: UTF8.self)
        } catch {
            throw Self._corruptValue("string", column, error)
        }
    }

    /// The decoded value of `column` (null when the row has fewer columns).
    public func value(at column: Int) throws(StorageError) -> Value {
        guard let offset = try _valueOffset(column), let base = bytes.baseAddress else { return .null }
        var cursor = ByteReader(base: base, offset: offset, endOffset: bytes.count)
        do {
            return try decodeValue(&cursor, nested: false)
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
    public func hasOverflowValues() throws(StorageError) -> Bool {
        for column in 0..<columnCount {
            if let offset = try _valueOffset(column),
                bytes[offset] >= RowCodec.Tag.stringOverflow.rawValue
                    && bytes[offset] <= RowCodec.Tag.listOverflow.rawValue
            {
                return true
            }
        }
        return false
    }

    private func decodeValue(_ cursor: inout ByteReader, nested: Bool) throws -> Value {
        let tagByte = try cursor.readByte()
        guard let tag = RowCodec.Tag(rawValue: tagByte) else {
            throw StorageError.corruptRecord(reason: "unknown value tag \(tagByte)")
        }
        switch tag {
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .int: return .int(try cursor.readSignedVarint())
        case .double: return .double(Double(bitPattern: try cursor.readUInt64()))
        case .string, .binary:
            let length = try cursor.readVarint()
            guard length <= UInt64(cursor.remainingByteCount) else { throw DecodeError.truncated }
            let raw = try cursor.readBytes(Int(length))
            return tag == .string ? .string(String(decoding: raw, as: UTF8.self)) : .binary(Array(raw))
        case .timestamp:
            let seconds = try cursor.readSignedVarint()
            let nanos = try cursor.readSignedVarint()
            guard nanos > -1_000_000_000 && nanos < 1_000_000_000 else { throw DecodeError.malformed }
            return .timestamp(Timestamp(seconds: seconds, nanoseconds: Int32(nanos)))
        case .link:
            let table = try cursor.readVarint()
            let key = try cursor.readSignedVarint()
            guard table <= UInt64(UInt32.max) else { throw DecodeError.malformed }
            return .link(Link(table: TableID(UInt32(table)), key: ObjectKey(key)))
        case .list:
            guard !nested else { throw StorageError.corruptRecord(reason: "nested list") }
            return .list(try decodeListBody(&cursor))
        case .stringOverflow, .binaryOverflow, .listOverflow:
            guard !nested else { throw StorageError.corruptRecord(reason: "overflow value inside a list") }
            let length = try cursor.readVarint()
            let first = try cursor.readPageRef()
            guard length <= UInt64(Int32.max) else { throw DecodeError.malformed }
            let stored = try Self.readOverflow(
                first: first, byteCount: Int(length), reader: reader, dirtyPages: dirtyPages)
            switch tag {
            case .stringOverflow: return .string(String(decoding: stored, as: UTF8.self))
            case .binaryOverflow: return .binary(stored)
            default:
                return .list(
                    try stored.withUnsafeBytes { raw in
                        guard let base = raw.baseAddress else { return [] }
                        var inner = ByteReader(base: base, offset: 0, endOffset: raw.count)
                        return try decodeListBody(&inner)
                    })
            }
        }
    }

    private func decodeListBody(_ cursor: inout ByteReader) throws -> [Value] {
        let count = try cursor.readVarint()
        // Each element takes at least one byte: a larger count is corrupt.
        guard count <= UInt64(cursor.remainingByteCount) else { throw DecodeError.truncated }
        var elements: [Value] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count { elements.append(try decodeValue(&cursor, nested: true)) }
        return elements
    }

    /// The overflow chains this row references (whole-row overflow excluded), as
    /// (first page, byte length): used to free them and to verify them.
    func overflowReferences() throws(StorageError) -> [(first: PageRef, byteCount: Int)] {
        var result: [(PageRef, Int)] = []
        guard let base = bytes.baseAddress else { return [] }
        for column in 0..<columnCount {
            guard let offset = try _valueOffset(column) else { continue }
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
