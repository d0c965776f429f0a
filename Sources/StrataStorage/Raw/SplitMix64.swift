/// SplitMix64 (Steele, Lea and Flood): the seeded generator of strata-tool's writer workload,
/// of the harness's choice stream and of the tests' seeded choices.
///
/// `package`, not public: no user of the engine needs it. It stays in the engine, the one target
/// that strata-tool, StrataCheck and every test target already depend on.
///
/// Written out here rather than taken from the standard library because the standard
/// generators cannot be seeded, and the workload must replay bit for bit from `seed ^ version`
/// on any toolchain. Each output is a strong 64-bit mix of the state, so nearby seeds (seeds
/// that differ only in the version bits) give unrelated streams.
package struct SplitMix64: Sendable {
    private var state: UInt64

    /// Creates a generator whose stream is fixed by `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A value in `0..<upperBound` by multiply-high (bias at most `upperBound / 2^64`, far below
    /// anything a workload notices, and no rejection loop to bound).
    package mutating func below(_ upperBound: Int) -> Int {
        precondition(upperBound > 0, "below(_:) needs a positive bound")
        return Int(UInt64(upperBound).multipliedFullWidth(by: next()).high)
    }

    /// A value in `range`.
    package mutating func int(in range: ClosedRange<Int>) -> Int {
        precondition(range.count > 0, "empty range")
        return range.lowerBound + below(range.count)
    }

    /// True with probability `percent` / 100.
    package mutating func chance(percent: Int) -> Bool {
        below(100) < percent
    }

    /// `byteCount` random bytes, eight per draw.
    package mutating func bytes(count byteCount: Int) -> [UInt8] {
        precondition(byteCount >= 0, "negative byte count")
        var result: [UInt8] = []
        result.reserveCapacity(byteCount + 8)
        while result.count < byteCount {
            var word = next()
            for _ in 0..<8 {
                result.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        result.removeLast(result.count - byteCount)
        return result
    }
}
