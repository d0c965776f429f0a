// Little-endian loads and stores at byte offsets of raw memory.
//
// Every on-disk integer in Strata is little-endian. These helpers are the only place that
// turns bytes into integers; they use unaligned loads so that callers never need to reason
// about alignment inside a page. They do no bounds checks: callers (page views) check the
// offset against the page size before calling.
//
// The loads and `ByteReader` are `@inlinable` because the public row accessors (`RowView`)
// are inlined into client code (scan loops), and they call these.

@inlinable @inline(__always)
func loadUInt16(_ base: UnsafeRawPointer, _ offset: Int) -> UInt16 {
    UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
}

@inlinable @inline(__always)
func loadUInt32(_ base: UnsafeRawPointer, _ offset: Int) -> UInt32 {
    UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
}

@inlinable @inline(__always)
func loadUInt64(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
    UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
}

@inline(__always)
func storeUInt16(_ base: UnsafeMutableRawPointer, _ offset: Int, _ value: UInt16) {
    base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt16.self)
}

@inline(__always)
func storeUInt32(_ base: UnsafeMutableRawPointer, _ offset: Int, _ value: UInt32) {
    base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
}

@inline(__always)
func storeUInt64(_ base: UnsafeMutableRawPointer, _ offset: Int, _ value: UInt64) {
    base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
}

/// A growable little-endian byte encoder for building cells, rows and records.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }
    mutating func append<C: Collection>(contentsOf other: C) where C.Element == UInt8 {
        bytes.append(contentsOf: other)
    }
    mutating func appendUInt16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }
    mutating func appendUInt32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    mutating func appendUInt64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    mutating func appendVarint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }
    mutating func appendSignedVarint(_ value: Int64) { appendVarint(zigzagEncode(value)) }
    /// Appends `byteCount` bytes written by `fill` (which must write exactly those bytes).
    mutating func append(byteCount: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) {
        let start = bytes.count
        bytes.append(contentsOf: [UInt8](repeating: 0, count: byteCount))
        bytes.withUnsafeMutableBytes { raw in fill(UnsafeMutableRawBufferPointer(rebasing: raw[start...])) }
    }

    /// Overwrites two bytes at `offset` (used to patch offset tables after the payload is known).
    mutating func patchUInt16(at offset: Int, _ value: UInt16) {
        bytes[offset] = UInt8(truncatingIfNeeded: value)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
    }
}

/// Writes little-endian data into memory the caller sized beforehand (a size pass first), so
/// that encoding a row is stores into one buffer instead of growing arrays byte by byte.
/// Every write checks the end (`precondition`): a wrong size pass traps, it never writes
/// past the buffer.
struct RawByteWriter {
    private let base: UnsafeMutableRawPointer
    private let endOffset: Int
    private(set) var offset: Int

    /// Writes into `buffer`, which must have a base address when it is not empty.
    init(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.baseAddress != nil, "RawByteWriter needs memory")
        base = buffer.baseAddress.unsafelyUnwrapped
        endOffset = buffer.count
        offset = 0
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        precondition(offset < endOffset, "write past the sized buffer")
        base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
        offset &+= 1
    }

    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        append(UInt8(truncatingIfNeeded: remaining))
    }

    @inline(__always)
    mutating func appendSignedVarint(_ value: Int64) { appendVarint(zigzagEncode(value)) }

    @inline(__always)
    mutating func appendUInt64(_ value: UInt64) {
        precondition(endOffset - offset >= 8, "write past the sized buffer")
        storeUInt64(base, offset, value)
        offset &+= 8
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        precondition(endOffset - offset >= bytes.count, "write past the sized buffer")
        if let source = bytes.baseAddress, bytes.count > 0 {
            (base + offset).copyMemory(from: source, byteCount: bytes.count)
        }
        offset &+= bytes.count
    }

    /// Overwrites two bytes already written (offset tables, once the payload is placed).
    @inline(__always)
    func patchUInt16(at patchOffset: Int, _ value: UInt16) {
        precondition(patchOffset >= 0 && patchOffset + 2 <= offset, "patch outside the written bytes")
        storeUInt16(base, patchOffset, value)
    }
}

@inline(__always)
func zigzagEncode(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
}

@inlinable @inline(__always)
func zigzagDecode(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
}

/// A bounds-checked little-endian reader over a byte range. Corrupt input makes it throw,
/// never read outside the range.
@usableFromInline
struct ByteReader {
    @usableFromInline let base: UnsafeRawPointer
    @usableFromInline let endOffset: Int
    @usableFromInline var offset: Int

    @inlinable
    init(base: UnsafeRawPointer, offset: Int, endOffset: Int) {
        self.base = base
        self.offset = offset
        self.endOffset = endOffset
    }

    @inlinable
    var remainingByteCount: Int { endOffset - offset }

    @inlinable @inline(__always)
    mutating func readByte() throws(DecodeError) -> UInt8 {
        guard offset < endOffset else { throw DecodeError.truncated }
        let byte = base.load(fromByteOffset: offset, as: UInt8.self)
        offset += 1
        return byte
    }

    @inlinable @inline(__always)
    mutating func readVarint() throws(DecodeError) -> UInt64 {
        // Fast path: one-byte values (small ints, lengths, column counts) are most common.
        if offset < endOffset {
            let first = base.load(fromByteOffset: offset, as: UInt8.self)
            if first < 0x80 {
                offset += 1
                return UInt64(first)
            }
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < endOffset else { throw DecodeError.truncated }
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
            if shift == 63 && byte > 1 { throw DecodeError.malformed }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw DecodeError.malformed }
        }
    }

    @inlinable @inline(__always)
    mutating func readSignedVarint() throws(DecodeError) -> Int64 {
        zigzagDecode(try readVarint())
    }

    mutating func readUInt32() throws(DecodeError) -> UInt32 {
        guard remainingByteCount >= 4 else { throw DecodeError.truncated }
        let value = loadUInt32(base, offset)
        offset += 4
        return value
    }

    mutating func readUInt64() throws(DecodeError) -> UInt64 {
        guard remainingByteCount >= 8 else { throw DecodeError.truncated }
        let value = loadUInt64(base, offset)
        offset += 8
        return value
    }

    /// Returns a view of the next `count` bytes and advances past them.
    @inlinable @inline(__always)
    mutating func readBytes(_ count: Int) throws(DecodeError) -> UnsafeRawBufferPointer {
        guard count >= 0, remainingByteCount >= count else { throw DecodeError.truncated }
        let view = UnsafeRawBufferPointer(start: base + offset, count: count)
        offset += count
        return view
    }
}

/// Why a byte sequence could not be decoded. Callers wrap it into a `StorageError` that names
/// the page.
@usableFromInline
enum DecodeError: Error, Sendable, Equatable {
    case truncated
    case malformed
}

/// `withUnsafeBytes` for code that throws only `StorageError` (the stdlib's version rethrows
/// untyped errors).
func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(StorageError) -> R) throws(StorageError)
    -> R
{
    let result: Result<R, StorageError> = bytes.withUnsafeBytes { raw in
        do throws(StorageError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try result.get()
}

/// `withUnsafeMutableBytes` for code that throws only `StorageError`.
func withMutableBytes<R>(_ bytes: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(StorageError) -> R)
    throws(StorageError) -> R
{
    let result: Result<R, StorageError> = bytes.withUnsafeMutableBytes { raw in
        do throws(StorageError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try result.get()
}
