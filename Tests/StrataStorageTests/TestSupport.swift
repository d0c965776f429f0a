import StrataStorage

extension SplitMix64 {
    /// A value in `0..<bound` by modulo: the draw these tests' seeded workloads were written
    /// with. Their exact figures (CrashEnumerationTests' crash point and image counts for seed
    /// 2026) come from these draws, so they keep them rather than `below(_:)`'s multiply-high.
    mutating func draw(below bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True with probability `percent` / 100, from `draw(below:)`.
    mutating func chance(_ percent: Int) -> Bool { draw(below: 100) < percent }
}
