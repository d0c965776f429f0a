/// A stable 64-bit hash for content digests (`strata-tool digest`, crash tests).
///
/// Unlike Swift's `Hasher`, which is seeded per process, this produces the same value on every
/// run and machine, so a digest printed by one process can be compared with one computed by
/// another. It is not cryptographic. Each 8-byte word is mixed with a multiply / xor-shift
/// round; the length is folded in at the end so that inputs differing only in trailing zero
/// bytes still differ.
public struct StableHash: Sendable {
    private var state: UInt64
    private var totalByteCount: UInt64 = 0
    private var pending: UInt64 = 0
    private var pendingByteCount: UInt64 = 0

    /// A hash with nothing combined yet; equal seeds give equal hashes of equal input.
    public init(seed: UInt64 = 0x5354_5241_5441_4831) { state = seed }

    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    @inline(__always)
    private static func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
        var x = (h ^ word) &* multiplier
        x ^= x >> 29
        x = x &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 32
        return x
    }

    /// Adds one byte.
    public mutating func combine(byte: UInt8) {
        pending |= UInt64(byte) << (pendingByteCount * 8)
        pendingByteCount += 1
        totalByteCount += 1
        if pendingByteCount == 8 {
            state = Self.mix(state, pending)
            pending = 0
            pendingByteCount = 0
        }
    }

    /// Equal to combining the bytes one by one; whole words go in 8 bytes at a time (a word
    /// is assembled little-endian, so a little-endian load is the same word).
    public mutating func combine(bytes: UnsafeRawBufferPointer) {
        var index = 0
        while pendingByteCount != 0 && index < bytes.count {
            combine(byte: bytes[index])
            index += 1
        }
        let wholeWordsEnd = index + (bytes.count - index) / 8 * 8
        while index < wholeWordsEnd {
            state = Self.mix(state, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            index += 8
            totalByteCount += 8
        }
        while index < bytes.count {
            combine(byte: bytes[index])
            index += 1
        }
    }

    /// Adds every byte of `bytes`, in order; equal to combining them one by one.
    /// - Complexity: O(n) in the number of bytes.
    public mutating func combine<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            combine(bytes: UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            for byte in bytes { combine(byte: byte) }
        }
    }

    /// Adds the 8 bytes of `value`, little-endian, so the hash is the same on every machine.
    public mutating func combine(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { combine(byte: UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// Adds the 8 bytes of `value`'s two's-complement bit pattern, little-endian.
    public mutating func combine(_ value: Int64) { combine(UInt64(bitPattern: value)) }

    /// The hash of everything combined so far, with the total length folded in; combining
    /// may go on afterwards.
    public func finalize() -> UInt64 {
        var h = state
        if pendingByteCount > 0 { h = Self.mix(h, pending) }
        return Self.mix(h, totalByteCount)
    }
}
