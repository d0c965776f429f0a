/// The inline part of one stored row: its bytes (header, offset table, values), its column
/// count and where its offset table starts. Everything a read of an inline value needs, in
/// four words: what the Realm API keeps per object between property reads, and hands from a
/// scan's walk to each object, where a whole `RowView` (which can also read overflow pages)
/// would be copied per row and per read.
///
/// Reading one column is O(1) (the offset table); only that column is decoded. Every read is
/// bounds-checked against the bytes: a malformed row throws `.corruptRecord`, it never reads
/// past them. A value in overflow pages cannot be read from here: `value(at:)` answers nil
/// for it, and the caller reads the row again through a `RowView`.
///
/// Valid as long as its bytes are: a row of a read transaction's pinned pages while that
/// transaction is open (`RowView.pinned`), or a caller's copy (`detached(_:)`).
public struct InlineRow {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    /// Number of columns stored in this row (rows written before a column was added have
    /// fewer; the missing columns read as null).
    public let columnCount: Int
    @usableFromInline let offsetTableStart: Int

    /// Checks the row header of `inlineBytes` (format byte, incarnation, column count, that
    /// the offset table lies inside the bytes).
    @inline(__always)
    init(parsing inlineBytes: UnsafeRawBufferPointer) throws(StorageError) {
        bytes = inlineBytes
        guard let base = inlineBytes.baseAddress, inlineBytes.count >= 2, Self.isInline(format: inlineBytes[0]) else {
            throw StorageError.corruptRecord(reason: "row does not start with an inline format byte")
        }
        var header = ByteReader(base: base, offset: 1, endOffset: inlineBytes.count)
        // Scans build a view per row: the incarnation is only stepped over here and decoded
        // when asked for (`incarnation`). One byte (1 to 127) is stepped over in place; longer
        // ones, and the invalid 0, out of line.
        if inlineBytes[0] != RowCodec.inlineFormat {
            let first = inlineBytes[1]
            if first != 0 && first < 0x80 { header.offset = 2 } else { try Self.skipIncarnation(&header) }
        }
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

    /// A row over bytes held outside the file (a copy of `RowView.inlineRowBytes`, kept by a
    /// caller between reads), checked as a stored row is.
    /// - Throws: `.corruptRecord` when the bytes do not start with a valid row header.
    @inline(__always)
    public static func detached(_ inlineBytes: UnsafeRawBufferPointer) throws(StorageError) -> InlineRow {
        try InlineRow(parsing: inlineBytes)
    }

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

    @inline(never)
    private static func corruptHeader(_ error: DecodeError) -> StorageError {
        StorageError.corruptRecord(reason: "row header: \(error)")
    }

    /// The stored object's incarnation (`Incarnation`): 0 for rows of format 0x01. Decoded
    /// from the header the initializer checked.
    /// Inlinable, with incarnations below 128 (one varint byte) decoded in place: a scan
    /// compares every row's incarnation with its object's.
    @inlinable
    public var incarnation: Incarnation {
        guard bytes[0] == Self._identifiedFormat else { return .keyIsIdentity }
        let first = bytes[1]  // the initializer checked that the row has at least two bytes
        return first < 0x80 ? Incarnation(UInt64(first)) : _longIncarnation()
    }

    @usableFromInline
    func _longIncarnation() -> Incarnation {
        guard let base = bytes.baseAddress else { return .keyIsIdentity }
        var header = ByteReader(base: base, offset: 1, endOffset: bytes.count)
        return (try? header.readVarint()).map(Incarnation.init(_:)) ?? .keyIsIdentity
    }

    // Value tags (`RowCodec.Tag`) as literals, usable from the inlinable accessors.
    @usableFromInline static var _intTag: UInt8 { 3 }
    @usableFromInline static var _nullTag: UInt8 { 0 }
    @usableFromInline static var _identifiedFormat: UInt8 { 3 }
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
    /// not inline (null, another type, or in overflow pages).
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
    /// not a string, or in overflow pages.
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

    // The readers' fast path (`_ObjectAccessor`): no error is built, a value that is not
    // simply there reads as nil, and the caller's general path reads the column again and
    // reports what is wrong.

    /// The offset of the payload of `column` when its tag is `tag`; nil otherwise (also for a
    /// column the row lacks, a negative one, or an offset beyond the row).
    @inlinable @inline(__always)
    func _payloadOffset(_ column: Int, tag: UInt8) -> Int? {
        guard column >= 0, column < columnCount, let base = bytes.baseAddress else { return nil }
        let offset = Int(loadUInt16(base, offsetTableStart &+ 2 &* column))
        guard offset < bytes.count, bytes[offset] == tag else { return nil }
        return offset &+ 1
    }

    /// `int(at:)`, nil where that would throw too.
    @inlinable @inline(__always)
    public func intIfWellFormed(at column: Int) -> Int64? {
        guard let payload = _payloadOffset(column, tag: Self._intTag), let base = bytes.baseAddress else { return nil }
        var reader = ByteReader(base: base, offset: payload, endOffset: bytes.count)
        return try? reader.readSignedVarint()
    }

    /// `inlineString(at:)`, nil where that would throw too.
    @inlinable @inline(__always)
    public func stringIfWellFormed(at column: Int) -> String? {
        guard let payload = _payloadOffset(column, tag: Self._stringTag), let base = bytes.baseAddress else {
            return nil
        }
        var reader = ByteReader(base: base, offset: payload, endOffset: bytes.count)
        guard let length = try? reader.readVarint(), length <= UInt64(bytes.count),
            let text = try? reader.readBytes(Int(length))
        else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// The decoded value of `column` (null when the row has fewer columns); nil when the value
    /// lies in overflow pages (a `RowView` of the row reads it).
    public func value(at column: Int) throws(StorageError) -> Value? {
        guard let offset = try _valueOffset(column), let base = bytes.baseAddress else { return .null }
        var cursor = ByteReader(base: base, offset: offset, endOffset: bytes.count)
        do {
            return try Self.decodeValue(&cursor, nested: false)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.corruptRecord(reason: "column \(column): \(error)")
        }
    }

    /// Every column, decoded; nil when a value lies in overflow pages.
    public func values() throws(StorageError) -> [Value]? {
        var result: [Value] = []
        result.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            guard let value = try value(at: column) else { return nil }
            result.append(value)
        }
        return result
    }

    /// Whether a value of the row lies in overflow pages.
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

    /// Decodes the value at `cursor` (its tag first). nil for a value in overflow pages, with
    /// `cursor` just past its tag (`RowView` goes on from there); one inside a list is damage.
    static func decodeValue(_ cursor: inout ByteReader, nested: Bool) throws -> Value? {
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
            return nil
        }
    }

    /// A list's count and elements (no overflow value among them).
    static func decodeListBody(_ cursor: inout ByteReader) throws -> [Value] {
        let count = try cursor.readVarint()
        // Each element takes at least one byte: a larger count is corrupt.
        guard count <= UInt64(cursor.remainingByteCount) else { throw DecodeError.truncated }
        var elements: [Value] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let element = try decodeValue(&cursor, nested: true) else {
                throw StorageError.corruptRecord(reason: "overflow value inside a list")
            }
            elements.append(element)
        }
        return elements
    }
}
