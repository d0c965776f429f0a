/// Secondary indexes: for each indexed column of a table, one entry per object in the table's
/// index tree (the byte-keyed tree that also holds a string primary key's entries), so that an
/// equality query reads the objects holding one value instead of every row (Spec W26).
///
/// An entry's key is `tag, column, image(value), object key` and its value is empty:
///
/// | bytes | what |
/// |---|---|
/// | 1 | `tag` (0x80): never the first byte of a primary key entry (0x00 null, 0x01 string, 0x02 binary) |
/// | 1 | the column (below `columnLimit`) |
/// | image | the value's kind byte and its bytes (`image(of:)`) |
/// | 8 | the object key, big-endian with the sign bit flipped (ascending keys sort ascending) |
///
/// Images are prefix-free (fixed-size kinds; strings and data carry their full length before at
/// most `payloadByteCountMax` bytes), so the entries of one value are exactly the keys that
/// start with `prefix` and are 8 bytes longer. Long strings and data sharing their first bytes
/// and their length share an image: an index lookup yields candidates, which the caller checks
/// against the value (the API re-applies its whole predicate to every row it reads).
enum SecondaryIndex {
    static let tag: UInt8 = 0x80
    /// Columns 0 ..< 64 can be indexed: a table keeps its indexed columns as a 64-bit mask.
    static let columnLimit = 64

    /// How many bytes of a string or data value the image keeps, for a page size.
    static func payloadByteCountMax(pageSizeBytes: Int) -> Int {
        max(0, min(48, PageLayout.keyByteCountMax(pageSizeBytes: pageSizeBytes) - 16))
    }

    /// The columns set in `mask`, ascending.
    static func columns(of mask: UInt64) -> [Int] {
        var columns: [Int] = []
        var rest = mask
        while rest != 0 {
            let column = rest.trailingZeroBitCount
            columns.append(column)
            rest &= rest &- 1
        }
        return columns
    }

    /// The key prefix of `column`'s entries for `value`; nil for a value no index holds (a
    /// list: list columns are never indexed).
    static func prefix(column: Int, value: Value, pageSizeBytes: Int) -> [UInt8]? {
        guard column >= 0 && column < columnLimit else { return nil }
        var bytes: [UInt8] = [tag, UInt8(truncatingIfNeeded: column)]
        guard appendImage(of: value, to: &bytes, payloadByteCountMax: payloadByteCountMax(pageSizeBytes: pageSizeBytes))
        else { return nil }
        return bytes
    }

    /// The full entry key: `prefix` and the object key.
    static func entryKey(prefix: [UInt8], key: ObjectKey) -> [UInt8] {
        var bytes = prefix
        appendBigEndian(intKeyImage(key.rawValue), to: &bytes)
        return bytes
    }

    /// The object key ending an entry key of `prefix`'s length plus 8; nil when the key does
    /// not have that shape (damage: the caller reports it).
    static func objectKey(ofEntry entry: UnsafeRawBufferPointer, prefixCount: Int) -> ObjectKey? {
        guard entry.count == prefixCount + 8 else { return nil }
        var image: UInt64 = 0
        for index in prefixCount..<entry.count { image = image << 8 | UInt64(entry[index]) }
        return ObjectKey(intKeyFromImage(image))
    }

    /// Whether an index tree key is a secondary entry (else a string primary key's).
    static func isEntry(_ key: UnsafeRawBufferPointer) -> Bool { key.first == tag }

    private static func appendImage(of value: Value, to bytes: inout [UInt8], payloadByteCountMax: Int) -> Bool {
        switch value {
        case .null:
            bytes.append(0)
        case .bool(let flag):
            bytes.append(1)
            bytes.append(flag ? 1 : 0)
        case .int(let number):
            bytes.append(2)
            appendBigEndian(intKeyImage(number), to: &bytes)
        case .double(let number):
            bytes.append(3)
            // Equal numbers, one image: -0 is 0; every NaN is one NaN (never equal, so never found).
            let normalized = number == 0 ? 0 : (number.isNaN ? Double.nan : number)
            appendBigEndian(normalized.bitPattern, to: &bytes)
        case .string(let text):
            bytes.append(4)
            appendPayload(text.utf8, count: text.utf8.count, to: &bytes, payloadByteCountMax)
        case .binary(let data):
            bytes.append(5)
            appendPayload(data, count: data.count, to: &bytes, payloadByteCountMax)
        case .timestamp(let time):
            bytes.append(6)
            appendBigEndian(intKeyImage(time.seconds), to: &bytes)
            appendBigEndian(UInt64(UInt32(bitPattern: time.nanoseconds)), to: &bytes)
        case .link(let link):
            bytes.append(7)
            appendBigEndian(UInt64(link.table.rawValue), to: &bytes)
            appendBigEndian(intKeyImage(link.key.rawValue), to: &bytes)
        case .list:
            return false
        }
        return true
    }

    private static func appendPayload<C: Collection>(
        _ payload: C, count: Int, to bytes: inout [UInt8], _ payloadByteCountMax: Int
    ) where C.Element == UInt8 {
        appendBigEndian(UInt64(UInt32(truncatingIfNeeded: min(count, Int(UInt32.max)))), to: &bytes, byteCount: 4)
        bytes.append(contentsOf: payload.prefix(payloadByteCountMax))
    }

    private static func appendBigEndian(_ number: UInt64, to bytes: inout [UInt8], byteCount: Int = 8) {
        var shift = (byteCount - 1) * 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: number >> UInt64(shift)))
            shift -= 8
        }
    }
}
