/// The encoding of a row (an object's values) inside a leaf cell.
///
/// Inline row:
///
/// | bytes      | meaning                                                        |
/// |------------|----------------------------------------------------------------|
/// | 1          | format 0x01, or 0x03 for a row that carries an incarnation     |
/// | varint     | format 0x03 only: the object's incarnation (≥ 1)               |
/// | varint     | column count n (≤ `columnCountMax`)                            |
/// | 2 × n      | u16 offset of each column's value from the row start           |
/// | …          | the values, each a tag byte and a payload                      |
///
/// A row still too large after moving its large values out (very many columns) is stored
/// whole in an overflow chain: format 0x02, varint byte length, the first page's reference
/// (u32 page, u32 checksum, u64 version: Spec D19); the chain
/// holds an inline row (0x01 or 0x03, so the incarnation travels with it).
///
/// Incarnations (`Incarnation`) are stored only by tables with an integer primary key, whose
/// keys are reused when an object is deleted and another one created with its primary key.
/// Format 0x03 was added for them; rows in 0x01 (other tables, and rows written before 0x03
/// existed) have incarnation 0, so files written before it read unchanged.
///
/// Value tags: 0 null; 1 false; 2 true; 3 int (zigzag varint); 4 double (8 bytes, IEEE bit
/// pattern); 5 string and 6 binary (varint length, bytes); 7 timestamp (zigzag varints seconds,
/// nanoseconds); 8 link (varint table id, zigzag varint key); 9 list (varint count, tagged
/// elements); 10, 11, 12: string, binary, list in an overflow chain (varint byte length, the
/// first page's reference: u32 page, u32 checksum, u64 version). Column offsets make reading one column O(1): a scan that sums one integer
/// column decodes nothing else.
enum RowCodec {
    static let inlineFormat: UInt8 = 0x01
    static let overflowFormat: UInt8 = 0x02
    static let identifiedFormat: UInt8 = 0x03
    static let columnCountMax = 2048

    enum Tag: UInt8 {
        case null = 0
        case falseValue = 1
        case trueValue = 2
        case int = 3
        case double = 4
        case string = 5
        case binary = 6
        case timestamp = 7
        case link = 8
        case list = 9
        case stringOverflow = 10
        case binaryOverflow = 11
        case listOverflow = 12
    }

    /// Encodes `values` as a row no longer than `inlineByteCountMax`, writing large values
    /// (and, if need be, the whole row) to overflow pages in `space`.
    static func encode<Space: PageAllocator>(
        _ values: [Value], incarnation: Incarnation, inlineByteCountMax: Int,
        space: Space?
    ) throws(StorageError) -> [UInt8] {
        var row: [UInt8] = []
        try encode(values, incarnation: incarnation, inlineByteCountMax: inlineByteCountMax, space: space, into: &row)
        return row
    }

    /// The bytes before the column count: the format byte, and the incarnation if any.
    @inline(__always)
    static func headerByteCount(_ incarnation: Incarnation) -> Int {
        incarnation == .keyIsIdentity ? 1 : 1 + varintSize(incarnation.rawValue)
    }

    /// `encode` into `row` (replacing its contents), reusing its capacity: the insert path
    /// keeps one buffer per transaction, so a row that fits inline costs no allocation.
    ///
    /// Fast path: a size pass (which also validates every value), then one pass of stores
    /// into the sized buffer. Rows that do not fit take `encodeSpilling`.
    static func encode<Space: PageAllocator>(
        _ values: [Value], incarnation: Incarnation, inlineByteCountMax: Int,
        space: Space?, into row: inout [UInt8]
    ) throws(StorageError) {
        guard values.count <= columnCountMax else {
            throw StorageError.valueTooLarge(reason: "\(values.count) columns (at most \(columnCountMax))")
        }
        var payloadByteCount = 0
        for value in values { payloadByteCount += try encodedByteCount(value, nested: false) }
        let tableStart = headerByteCount(incarnation) + varintSize(UInt64(values.count))
        let inlineByteCount = tableStart + 2 * values.count + payloadByteCount
        guard inlineByteCount <= inlineByteCountMax else {
            row = try encodeSpilling(
                values, incarnation: incarnation, inlineByteCountMax: inlineByteCountMax,
                space: space)
            return
        }
        // Resize without clearing: the write pass stores every byte (checked below), and
        // consecutive rows of a table usually have the same size, so this is usually no work.
        if row.count > inlineByteCount {
            row.removeLast(row.count - inlineByteCount)
        } else if row.count < inlineByteCount {
            row.append(contentsOf: repeatElement(0, count: inlineByteCount - row.count))
        }
        row.withUnsafeMutableBytes { raw in
            var writer = RawByteWriter(raw)
            writeHeader(incarnation, into: &writer)
            writer.appendVarint(UInt64(values.count))
            for _ in values {
                writer.append(0)
                writer.append(0)
            }
            for (index, value) in values.enumerated() {
                writer.patchUInt16(at: tableStart + 2 * index, UInt16(truncatingIfNeeded: writer.offset))
                writeValue(value, into: &writer)
            }
            precondition(writer.offset == inlineByteCount, "row size pass and write pass disagree")
        }
        invariant(row.count <= Int(UInt16.max), "an inline row's offsets fit 16 bits")
        invariant(row[0] == (incarnation == .keyIsIdentity ? inlineFormat : identifiedFormat), "format byte")
    }

    /// The format byte, then the incarnation when the row carries one.
    @inline(__always)
    private static func writeHeader(_ incarnation: Incarnation, into writer: inout RawByteWriter) {
        if incarnation == .keyIsIdentity {
            writer.append(inlineFormat)
        } else {
            writer.append(identifiedFormat)
            writer.appendVarint(incarnation.rawValue)
        }
    }

    /// The bytes `writeValue` writes for `value`. Throws for values `encodeValue` rejects, so
    /// the write pass cannot fail.
    private static func encodedByteCount(_ value: Value, nested: Bool) throws(StorageError) -> Int {
        switch value {
        case .null, .bool: return 1
        case .int(let number): return 1 + varintSize(zigzagEncode(number))
        case .double: return 9
        case .string(let text):
            let count = text.utf8.count
            return 1 + varintSize(UInt64(count)) + count
        case .binary(let bytes): return 1 + varintSize(UInt64(bytes.count)) + bytes.count
        case .timestamp(let time):
            guard time.nanoseconds > -1_000_000_000 && time.nanoseconds < 1_000_000_000 else {
                throw StorageError.invalidArgument("timestamp nanoseconds \(time.nanoseconds) out of range")
            }
            return 1 + varintSize(zigzagEncode(time.seconds)) + varintSize(zigzagEncode(Int64(time.nanoseconds)))
        case .link(let link):
            return 1 + varintSize(UInt64(link.table.rawValue)) + varintSize(zigzagEncode(link.key.rawValue))
        case .list(let elements):
            guard !nested else { throw StorageError.invalidArgument("lists cannot contain lists") }
            var total = 1 + varintSize(UInt64(elements.count))
            for element in elements { total += try encodedByteCount(element, nested: true) }
            return total
        }
    }

    /// The write pass of `encode` and `encodeValue` (values already validated by
    /// `encodedByteCount`).
    private static func writeValue(_ value: Value, into writer: inout RawByteWriter) {
        switch value {
        case .null: writer.append(Tag.null.rawValue)
        case .bool(let flag): writer.append(flag ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
        case .int(let number):
            writer.append(Tag.int.rawValue)
            writer.appendSignedVarint(number)
        case .double(let number):
            writer.append(Tag.double.rawValue)
            writer.appendUInt64(number.bitPattern)
        case .string(let text):
            writer.append(Tag.string.rawValue)
            let utf8 = text.utf8
            writer.appendVarint(UInt64(utf8.count))
            let copied: Void? = utf8.withContiguousStorageIfAvailable { writer.append(UnsafeRawBufferPointer($0)) }
            if copied == nil {
                for byte in utf8 { writer.append(byte) }  // a non-contiguous (bridged) string
            }
        case .binary(let bytes):
            writer.append(Tag.binary.rawValue)
            writer.appendVarint(UInt64(bytes.count))
            bytes.withUnsafeBytes { writer.append($0) }
        case .timestamp(let time):
            writer.append(Tag.timestamp.rawValue)
            writer.appendSignedVarint(time.seconds)
            writer.appendSignedVarint(Int64(time.nanoseconds))
        case .link(let link):
            writer.append(Tag.link.rawValue)
            writer.appendVarint(UInt64(link.table.rawValue))
            writer.appendSignedVarint(link.key.rawValue)
        case .list(let elements):
            writer.append(Tag.list.rawValue)
            writer.appendVarint(UInt64(elements.count))
            for element in elements { writeValue(element, into: &writer) }
        }
    }

    /// The slow path of `encode`: each value encoded on its own, the largest moved to
    /// overflow pages until the row fits (or the whole row moved to an overflow chain).
    private static func encodeSpilling<Space: PageAllocator>(
        _ values: [Value], incarnation: Incarnation,
        inlineByteCountMax: Int,
        space: Space?
    ) throws(StorageError) -> [UInt8] {
        var encoded: [[UInt8]] = []
        encoded.reserveCapacity(values.count)
        for value in values {
            var writer = ByteWriter()
            try encodeValue(value, into: &writer, nested: false)
            encoded.append(writer.bytes)
        }
        var size = inlineSize(encoded, incarnation: incarnation)
        if size > inlineByteCountMax {
            guard let space else {
                throw StorageError.valueTooLarge(reason: "row of \(size) bytes (at most \(inlineByteCountMax))")
            }
            // Move the largest variable-length values out until the row fits.
            let candidates = encoded.indices
                .filter { [Tag.string.rawValue, Tag.binary.rawValue, Tag.list.rawValue].contains(encoded[$0][0]) }
                .sorted { (encoded[$0].count, $1) > (encoded[$1].count, $0) }
            for index in candidates where size > inlineByteCountMax {
                let before = encoded[index].count
                encoded[index] = try moveToOverflow(encoded[index], space: space)
                size -= before - encoded[index].count
            }
        }
        let inline = assemble(encoded, incarnation: incarnation)
        guard inline.count > inlineByteCountMax else { return inline }
        guard let space, inline.count <= Int(UInt16.max) else {
            throw StorageError.valueTooLarge(reason: "row of \(inline.count) bytes with \(values.count) columns")
        }
        let first = try withBytes(inline) { raw throws(StorageError) in try OverflowChain.write(raw, space: space) }
        var writer = ByteWriter()
        writer.append(overflowFormat)
        writer.appendVarint(UInt64(inline.count))
        appendReference(first, into: &writer)
        return writer.bytes
    }

    private static func inlineSize(_ encoded: [[UInt8]], incarnation: Incarnation) -> Int {
        headerByteCount(incarnation) + varintSize(UInt64(encoded.count)) + 2 * encoded.count
            + encoded.reduce(0) { $0 + $1.count }
    }

    private static func assemble(_ encoded: [[UInt8]], incarnation: Incarnation) -> [UInt8] {
        var writer = ByteWriter(capacity: inlineSize(encoded, incarnation: incarnation))
        if incarnation == .keyIsIdentity {
            writer.append(inlineFormat)
        } else {
            writer.append(identifiedFormat)
            writer.appendVarint(incarnation.rawValue)
        }
        writer.appendVarint(UInt64(encoded.count))
        let tableStart = writer.count
        for _ in encoded { writer.appendUInt16(0) }
        for (index, value) in encoded.enumerated() {
            writer.patchUInt16(at: tableStart + 2 * index, UInt16(truncatingIfNeeded: writer.count))
            writer.append(contentsOf: value)
        }
        return writer.bytes
    }

    /// Appends a reference to an overflow chain's first page (Spec D19).
    private static func appendReference(_ ref: PageRef, into writer: inout ByteWriter) {
        writer.appendUInt32(ref.page)
        writer.appendUInt32(ref.expectation.checksum)
        writer.appendUInt64(ref.expectation.version)
    }

    /// Replaces an inline string / binary / list encoding with an overflow reference.
    private static func moveToOverflow<Space: PageAllocator>(
        _ encoded: [UInt8],
        space: Space
    ) throws(StorageError) -> [UInt8] {
        let tag = encoded[0]
        // The stored payload: for strings and binaries the bytes after the length; for lists
        // the count and the elements.
        let payload: ArraySlice<UInt8>
        if tag == Tag.list.rawValue {
            payload = encoded[1...]
        } else {
            var index = 1
            while encoded[index] & 0x80 != 0 { index += 1 }
            payload = encoded[(index + 1)...]
        }
        let first = try withBytes(Array(payload)) { raw throws(StorageError) in
            try OverflowChain.write(raw, space: space)
        }
        var writer = ByteWriter()
        let overflowTag: Tag =
            tag == Tag.string.rawValue ? .stringOverflow : tag == Tag.binary.rawValue ? .binaryOverflow : .listOverflow
        writer.append(overflowTag.rawValue)
        writer.appendVarint(UInt64(payload.count))
        appendReference(first, into: &writer)
        return writer.bytes
    }

    /// Appends `value`'s encoding: the checks of `encodedByteCount`, then the bytes of
    /// `writeValue` (one encoder for rows, nested values and digests).
    static func encodeValue(_ value: Value, into writer: inout ByteWriter, nested: Bool) throws(StorageError) {
        let byteCount = try encodedByteCount(value, nested: nested)
        writer.append(byteCount: byteCount) { raw in
            var target = RawByteWriter(raw)
            writeValue(value, into: &target)
            precondition(target.offset == byteCount, "value size pass and write pass disagree")
        }
    }

    static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var remaining = value >> 7
        while remaining != 0 {
            size += 1
            remaining >>= 7
        }
        return size
    }
}
