import StrataStorage

/// The bounded-exhaustive scheduler for tiny cases: for one seed, every
/// schedule of the random scheduler's decisions (which runnable thread goes next; at each
/// switch point inside a commit, stay or switch) up to a preemption bound, depth first.
///
/// The operations and their arguments still come from the seed: a decision changes which
/// thread draws next, so the paths differ in their operations too, and each is checked by every
/// oracle of a run. A path is a choice stream like any other; a failing one is reported,
/// shrunk and replayed as usual. Exhaustion is proved only up to the bound and the budget,
/// and the report says which ended the search.
public struct ScheduleExplorer {
    public struct Report: Sendable {
        /// Paths run.
        public var schedules = 0
        /// Whether every path up to the preemption bound was run (false: the budget ended it).
        public var exhausted = false
        public var statistics = CheckStatistics()
        /// The first failing path.
        public var failure: RunResult?
        /// The longest path, in enumerated decisions.
        public var deepest = 0
        /// A digest of every path's trace digest, in order: equal explorations, equal digests.
        public var digest: UInt64 = 0
    }

    public var settings: CheckSettings
    public var seed: UInt64
    public var preemptionBound: Int
    public var maximumSchedules: Int

    public init(settings: CheckSettings, seed: UInt64, preemptionBound: Int = 2, maximumSchedules: Int = 10_000) {
        self.settings = settings
        self.seed = seed
        self.preemptionBound = preemptionBound
        self.maximumSchedules = maximumSchedules
    }

    /// Runs the paths in lexicographic order of their decisions; stops at the first failure.
    public func explore() throws -> Report {
        var report = Report()
        var prefix: [Int] = []
        var digest = StableHash()
        defer { report.digest = digest.finalize() }
        while report.schedules < maximumSchedules {
            let stream = ChoiceStream(seed: seed, forcing: prefix, preemptionBound: preemptionBound)
            let result = try Runner(settings: settings, stream: stream).run()
            report.schedules += 1
            report.statistics.add(result.statistics)
            report.deepest = max(report.deepest, result.enumerated.count)
            digest.combine(result.digest)
            if result.failure != nil {
                report.failure = result
                return report
            }
            guard let next = Self.successor(of: result.enumerated) else {
                report.exhausted = true
                return report
            }
            prefix = next
        }
        return report
    }

    /// The next path after `path` in depth-first order: the last decision that has an untried
    /// option takes it, and everything after it starts over. Nil when every option was tried.
    static func successor(of path: [EnumeratedChoice]) -> [Int]? {
        guard let last = path.lastIndex(where: { $0.option + 1 < $0.of }) else { return nil }
        return path[..<last].map(\.option) + [path[last].option + 1]
    }
}
