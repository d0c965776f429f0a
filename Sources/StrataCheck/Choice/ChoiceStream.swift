import StrataStorage

/// Every random decision of a run, as one recorded sequence of bounded integers (Docs/architecture.md §5).
///
/// A fresh stream draws from a seeded SplitMix64 and records each draw; a replayed stream
/// returns its recorded values and, once they run out, zeros. Zero is every draw's simplest
/// answer (the first operation kind, the lowest key, "no fault", "keep running"), so shrinking
/// can edit the recording freely (delete chunks, lower values) and every edit is still a
/// stream the generators accept: Hypothesis's internal reduction.
///
/// A recorded value at or above the bound of its draw is reduced modulo the bound, so that a
/// recording stays meaningful when a shrink changes what came before it.
public struct ChoiceStream: Sendable {
    private var random: SplitMix64?
    private let replay: [UInt32]
    private var position = 0
    /// Every value drawn so far, in order.
    public private(set) var recorded: [UInt32] = []
    /// When exploring schedules exhaustively: the option index each enumerated draw takes (then
    /// the first option), and what each took among how many options.
    private var forcedOptions: [Int]?
    public private(set) var enumerated: [EnumeratedChoice] = []
    /// Where each draw is also stored as it is made, so that a process dying inside the run
    /// leaves its token behind (`FlightRecorder`); nil outside recorded campaigns.
    var flightRecorder: FlightRecorder?

    /// A fresh stream from `seed`.
    public init(seed: UInt64) {
        random = SplitMix64(seed: seed)
        replay = []
        recorded.reserveCapacity(4096)
    }

    /// A fresh stream from `seed` whose enumerated draws (`draw(_:options:)`) take the
    /// options given by `forcing`, then each draw's first option: one path of a systematic
    /// exploration (`ScheduleExplorer`). Its recording replays like any other.
    public init(seed: UInt64, forcing options: [Int], preemptionBound: Int) {
        self.init(seed: seed)
        forcedOptions = options
        self.preemptionBound = preemptionBound
    }

    /// How many switches away from a thread inside the engine an explored run may make
    /// (context bounding: most concurrency bugs need very few).
    public private(set) var preemptionBound = Int.max

    /// Replays `choices`, then draws zeros.
    public init(replaying choices: [UInt32]) {
        random = nil
        replay = choices
        recorded.reserveCapacity(choices.count)
    }

    /// How many draws were made.
    public var drawCount: Int { recorded.count }

    /// Whether a replayed stream has run past its recording.
    public var isExhausted: Bool { random == nil && position >= replay.count }

    /// A value in `0..<bound` (`bound` ≥ 1; a bound of 1 still records a draw, so the shape of
    /// the recording does not depend on bounds).
    public mutating func draw(_ bound: Int) -> Int {
        precondition(bound >= 1, "a draw needs a positive bound")
        let value: UInt32
        if var generator = random {
            value = UInt32(generator.below(min(bound, Int(UInt32.max))))
            random = generator
        } else if position < replay.count {
            let stored = replay[position]
            value = Int(stored) < bound ? stored : UInt32(Int(stored) % bound)
        } else {
            value = 0
        }
        position += 1
        recorded.append(value)
        flightRecorder?.record(index: recorded.count - 1, value: value)
        return Int(value)
    }

    /// A draw like `draw(bound)`, except on a stream exploring schedules: there it takes one
    /// of `options` (values below `bound`) as the exploration dictates, and logs the choice. The
    /// recorded value is the option's value, so replay needs no exploration.
    public mutating func draw(_ bound: Int, options: [Int]) -> Int {
        guard let forced = forcedOptions, !options.isEmpty else { return draw(bound) }
        let index = enumerated.count < forced.count ? min(forced[enumerated.count], options.count - 1) : 0
        enumerated.append(EnumeratedChoice(option: index, of: options.count))
        let value = options[index]
        precondition(value >= 0 && value < bound, "an option must lie below the draw's bound")
        position += 1
        recorded.append(UInt32(value))
        flightRecorder?.record(index: recorded.count - 1, value: UInt32(value))
        return value
    }

    /// True with probability `percent` / 100 on a fresh stream. Shrinks toward false.
    public mutating func chance(_ percent: Int) -> Bool {
        draw(100) >= 100 - percent
    }

    /// One of `choices` (non-empty); shrinks toward the first.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[draw(choices.count)]
    }

    /// An index chosen with the given relative weights (some weight positive); shrinks toward
    /// the first index with a positive weight.
    public mutating func weighted(_ weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        precondition(total > 0, "weights must not all be zero")
        var point = draw(total)
        for (index, weight) in weights.enumerated() {
            if point < weight { return index }
            point -= weight
        }
        return weights.count - 1
    }
}

/// One enumerated draw of an exploring stream: which option it took, among how many.
public struct EnumeratedChoice: Sendable, Hashable {
    public var option: Int
    public var of: Int
}
