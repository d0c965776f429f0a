#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A reading of `CLOCK_MONOTONIC`: never steps back, unaffected by wall-clock changes.
///
/// The bench times with this clock only; `Date()` and `ContinuousClock` are not used so that
/// every figure comes from the same source as the peers' C benchmarks (`clock_gettime`).
struct MonotonicInstant: Comparable, Sendable {
    let nanosSinceBoot: UInt64

    /// The current reading.
    static func now() -> MonotonicInstant {
        var reading = timespec()
        let status = clock_gettime(CLOCK_MONOTONIC, &reading)
        precondition(status == 0, "clock_gettime(CLOCK_MONOTONIC) failed")
        precondition(reading.tv_sec >= 0 && reading.tv_nsec >= 0, "negative monotonic reading")
        return MonotonicInstant(
            nanosSinceBoot: UInt64(reading.tv_sec) * 1_000_000_000 + UInt64(reading.tv_nsec))
    }

    /// Nanoseconds from `earlier` to this reading.
    func nanos(since earlier: MonotonicInstant) -> Double {
        precondition(earlier <= self, "monotonic clock went backwards")
        return Double(nanosSinceBoot - earlier.nanosSinceBoot)
    }

    static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanosSinceBoot < rhs.nanosSinceBoot
    }
}

/// Runs `body` and returns its result with the nanoseconds it took.
@inline(__always)
func measureNanos<R, Failure: Error>(
    _ body: () throws(Failure) -> R
) throws(Failure) -> (result: R, elapsedNanos: Double) {
    let start = MonotonicInstant.now()
    let result = try body()
    return (result, MonotonicInstant.now().nanos(since: start))
}

/// Measurements of one quantity, in one unit, for order statistics.
///
/// Percentiles use the nearest-rank method (the smallest sample with at least p % of the
/// samples at or below it), so p99 of 1,000 samples is the 990th smallest: a real sample,
/// never an interpolation. The median of an even count is the mean of the two middle samples.
struct Samples: Sendable {
    private(set) var values: [Double] = []

    init() {}

    init(_ values: [Double]) {
        self.values = values
    }

    mutating func append(_ value: Double) {
        precondition(value.isFinite, "a sample must be finite")
        values.append(value)
    }

    mutating func reserveCapacity(_ count: Int) {
        values.reserveCapacity(count)
    }

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }
    var sum: Double { values.reduce(0, +) }

    /// The middle value; the samples must not be empty.
    var median: Double {
        precondition(!values.isEmpty, "median of no samples")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[middle] }
        return (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The nearest-rank `percent` percentile, `0 < percent <= 100`; samples must not be empty.
    func percentile(_ percent: Double) -> Double {
        precondition(!values.isEmpty, "percentile of no samples")
        precondition(percent > 0 && percent <= 100, "percentile outside (0, 100]")
        let sorted = values.sorted()
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        let index = min(max(rank, 1), sorted.count) - 1
        return sorted[index]
    }

    var minimum: Double {
        precondition(!values.isEmpty, "minimum of no samples")
        return values.min() ?? 0
    }

    var maximum: Double {
        precondition(!values.isEmpty, "maximum of no samples")
        return values.max() ?? 0
    }
}
