/// Keys of the two tree kinds, and their 64-bit order-preserving images (`PageLayout`).
///
/// - Int-keyed trees (table rows, keyed by object key): the image *is* the key, with the sign
///   bit flipped so that unsigned comparison orders negative keys first.
/// - Byte-keyed trees (the catalog by table name, unique indexes by key bytes): the image is
///   the first 8 bytes read big-endian, zero padded; equal images fall back to comparing the
///   full keys kept in the cells. Bytes compare like `memcmp`, shorter first on a tie.
enum TreeKeyKind: Sendable, Equatable {
    case int
    case bytes
}

@inline(__always)
func intKeyImage(_ key: Int64) -> UInt64 {
    UInt64(bitPattern: key) ^ (1 << 63)
}

@inline(__always)
func intKeyFromImage(_ image: UInt64) -> Int64 {
    Int64(bitPattern: image ^ (1 << 63))
}

func bytesKeyImage(_ key: UnsafeRawBufferPointer) -> UInt64 {
    var image: UInt64 = 0
    for index in 0..<8 {
        image <<= 8
        if index < key.count { image |= UInt64(key[index]) }
    }
    return image
}

/// memcmp order, shorter first on a common prefix.
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let result = memcmpBytes(pa, pb, common)
        if result != 0 { return result }
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

@inline(__always)
private func memcmpBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Int {
    for index in 0..<count {
        let x = a.load(fromByteOffset: index, as: UInt8.self)
        let y = b.load(fromByteOffset: index, as: UInt8.self)
        if x != y { return x < y ? -1 : 1 }
    }
    return 0
}

/// A key being searched for or inserted. For byte keys `bytes` must stay valid for the call.
struct SearchKey {
    let image: UInt64
    /// The full key for byte-keyed trees; empty for int keys.
    let bytes: UnsafeRawBufferPointer
    let kind: TreeKeyKind

    static func int(_ key: Int64) -> SearchKey {
        SearchKey(image: intKeyImage(key), bytes: UnsafeRawBufferPointer(start: nil, count: 0), kind: .int)
    }

    static func bytes(_ key: UnsafeRawBufferPointer) -> SearchKey {
        SearchKey(image: bytesKeyImage(key), bytes: key, kind: .bytes)
    }
}
