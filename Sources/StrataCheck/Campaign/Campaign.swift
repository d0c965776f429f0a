import Foundation
import StrataStorage

/// Many runs in a row under a budget: what `strata-fuzz run` and the harness suite do.
public struct Campaign: Sendable {
    /// `mixed` alternates the modes and stores run by run; `free` runs only free runs.
    public enum Mix: String, Sendable, CaseIterable {
        case controlled, crash, mixed, free
    }

    public var mix: Mix
    public var store: CheckStore?
    public var threads: Int
    public var operationsPerRun: Int
    /// Stop after this many seconds (once `minimumRuns` runs are done), or
    public var seconds: Double?
    /// after this many checked operations in all, or
    public var operations: Int?
    /// after this many runs (whichever comes first). A test's budget is a count (`runs`,
    /// `operations`) so its verdict does not depend on the machine's speed; `seconds` is for
    /// the command line, and a test that time-boxes a campaign keeps a count floor
    /// (`minimumRuns`) and reports the time rather than failing on it (Docs/testing.md).
    public var runs: Int?
    /// The count floor of a time-boxed campaign: `seconds` cannot end it before this many runs.
    public var minimumRuns: Int
    public var seed: UInt64
    /// This process runs seeds `seed + k·count + index` (`--shard index/count`).
    public var shardIndex: Int
    public var shardCount: Int
    public var engineBugs: SeededBugSet
    public var modelMutation: ModelMutation?
    public var scratchDirectory: String
    /// Shrink failures before reporting them.
    public var shrinks: Bool
    /// Shrinking stops after `shrinkAttempts` re-runs or `shrinkSeconds` (nil: no time bound),
    /// whichever comes first: a test bounds it by attempts alone, so its shrunk size does not
    /// depend on the machine's speed (runs are deterministic, and so is the shrinker).
    public var shrinkSeconds: Double?
    public var shrinkAttempts: Int
    /// Operation kinds no run generates (see `CheckSettings.excludedKinds`).
    public var excludedKinds: Set<String> = []
    /// The generator generation of every run (`CheckSettings.generation`): a test measured on
    /// an older generation's streams keeps them.
    public var generation = CheckSettings.currentGeneration

    public init(
        mix: Mix = .mixed, store: CheckStore? = nil, threads: Int = 3, operationsPerRun: Int = 200,
        seconds: Double? = 60, operations: Int? = nil, runs: Int? = nil, minimumRuns: Int = 0, seed: UInt64 = 1,
        shardIndex: Int = 0, shardCount: Int = 1,
        engineBugs: SeededBugSet = [], modelMutation: ModelMutation? = nil,
        scratchDirectory: String = CheckSettings.defaultScratchDirectory, shrinks: Bool = true,
        shrinkSeconds: Double? = 60,
        shrinkAttempts: Int = Shrinker.defaultRunLimit
    ) {
        self.mix = mix
        self.store = store
        self.threads = threads
        self.operationsPerRun = operationsPerRun
        self.seconds = seconds
        self.operations = operations
        self.runs = runs
        self.minimumRuns = minimumRuns
        self.seed = seed
        self.shardIndex = shardIndex
        self.shardCount = shardCount
        self.engineBugs = engineBugs
        self.modelMutation = modelMutation
        self.scratchDirectory = scratchDirectory
        self.shrinks = shrinks
        self.shrinkSeconds = shrinkSeconds
        self.shrinkAttempts = shrinkAttempts
    }

    /// One failure a campaign found.
    public struct Found: Sendable {
        public var seed: UInt64
        public var settings: CheckSettings
        public var original: RunResult
        /// The shrunk run (equal to `original` when shrinking is off).
        public var shrunk: RunResult
        public var shrinkRuns: Int
        public var shrinkSeconds: Double
        /// What each shrink pass did (`Shrinker.Outcome.passes`; empty when shrinking is off).
        public var shrinkPasses: [ShrinkPass: ShrinkPassStatistics] = [:]
        /// Seconds from the campaign's start to the end of the failing run (before shrinking).
        public var foundAfterSeconds: Double = 0
        /// The free run, when the failure came from one (it has no trace; its log is here).
        public var free: FreeResult?
        public var token: String { ReplayToken.encode(settings: settings, choices: shrunk.choices) }
    }

    public struct Progress: Sendable {
        public var seconds: Double
        public var runs: Int
        public var statistics: CheckStatistics
        public var freeStatistics: FreeStatistics
        public var failures: Int
    }

    public struct Report: Sendable {
        public var runs: Int
        public var seconds: Double
        public var statistics: CheckStatistics
        /// The free runs' own counts (their operations and commits are in `statistics` too).
        public var freeStatistics: FreeStatistics
        public var failures: [Found]
        /// Combines every run's trace digest, in order: equal campaigns give equal digests.
        public var digest: UInt64
        public var seeds: ClosedRange<UInt64>?
    }

    /// The settings of run number `run` (its mode and store under `mix`).
    public func settings(forRun run: Int) -> CheckSettings {
        var mode: CheckMode
        switch mix {
        case .controlled: mode = .controlled
        case .crash: mode = .crash
        case .free: mode = .free
        case .mixed: mode = run % 2 == 0 ? .controlled : .crash
        }
        // Mixed campaigns make one run in eight free and put another on a real file (no
        // crashes there); free runs use a real file unless a store is given.
        if mix == .mixed && run % 8 == 3 { mode = .free }
        let store = self.store ?? (mode == .free || (mix == .mixed && run % 8 == 7) ? .file : .sim)
        if store == .file && mode == .crash { mode = .controlled }
        var settings = CheckSettings(
            mode: mode, store: store, threads: threads,
            operations: operationsPerRun, engineBugs: engineBugs, modelMutation: modelMutation,
            scratchDirectory: scratchDirectory)
        settings.excludedKinds = excludedKinds
        settings.generation = generation
        return settings
    }

    public func seed(forRun run: Int) -> UInt64 {
        seed &+ UInt64(run) &* UInt64(shardCount) &+ UInt64(shardIndex)
    }

    /// Runs from run number `firstRun` until the budget is spent or `stopAtFirstFailure` and a
    /// failure is found (a campaign resumed after a run that crashed its process starts past
    /// that run; its budget counts from there). With
    /// `untilShrinkable`, a failure of a free run (which has no schedule to shrink) does not
    /// stop the campaign: it goes on without free runs until a lockstep run fails too, whose
    /// shrunk counterexample is what a developer reads (`strata-fuzz bugs --check`).
    public func run(
        firstRun: Int = 0, stopAtFirstFailure: Bool = true, untilShrinkable: Bool = false,
        progressEvery: Double = 10,
        progress: (Progress) -> Void = { _ in }
    ) -> Report {
        let start = Date()
        var statistics = CheckStatistics()
        var freeStatistics = FreeStatistics()
        var failures: [Found] = []
        var hash = StableHash()
        var run = max(0, firstRun)
        var lastProgress = start
        var firstSeed: UInt64?
        var lastSeed: UInt64?
        while true {
            let elapsed = Date().timeIntervalSince(start)
            if let seconds, elapsed >= seconds, run >= minimumRuns { break }
            if let operations, statistics.operations >= operations { break }
            if let runs, run >= runs { break }
            if seconds == nil && operations == nil && runs == nil && run > firstRun { break }
            var settings = settings(forRun: run)
            if settings.mode == .free && untilShrinkable && failures.contains(where: { $0.free != nil }) {
                settings.mode = .controlled
            }
            let seed = seed(forRun: run)
            FlightRecorder.current?.noteCampaignRun(seed: seed, index: run)
            firstSeed = firstSeed ?? seed
            lastSeed = seed
            run += 1
            let result: RunResult
            var free: FreeResult?
            do {
                if settings.mode == .free {
                    let freeResult = try FreeRun(settings: FreeSettings(settings), stream: ChoiceStream(seed: seed))
                        .run()
                    free = freeResult
                    result = freeResult.runResult
                } else {
                    result = try Runner(settings: settings, stream: ChoiceStream(seed: seed)).run()
                }
            } catch {
                result = Self.notStarted("\(error)")
            }
            statistics.add(result.statistics)
            if let free { freeStatistics.add(free.statistics) }
            hash.combine(result.digest)
            if result.failure != nil {
                // A free run's settings as it ran them (its operations shared out per thread),
                // so that the printed token and the artifact's are the same.
                var found = Found(
                    seed: seed, settings: free?.settings.checkSettings ?? settings, original: result,
                    shrunk: result, shrinkRuns: 0, shrinkSeconds: 0, free: free)
                found.foundAfterSeconds = Date().timeIntervalSince(start)
                // A free run's stream fixes its programs, not its interleaving: nothing to shrink.
                if shrinks && free == nil {
                    let outcome = Shrinker(
                        settings: settings, runLimit: shrinkAttempts,
                        timeLimit: shrinkSeconds ?? .infinity
                    ).shrink(result)
                    found.shrunk = outcome.result
                    found.settings = outcome.settings
                    found.shrinkRuns = outcome.runs
                    found.shrinkSeconds = outcome.seconds
                    found.shrinkPasses = outcome.passes
                }
                failures.append(found)
                if stopAtFirstFailure && !(untilShrinkable && free != nil) { break }
            }
            if Date().timeIntervalSince(lastProgress) >= progressEvery {
                lastProgress = Date()
                progress(
                    Progress(
                        seconds: lastProgress.timeIntervalSince(start), runs: run, statistics: statistics,
                        freeStatistics: freeStatistics, failures: failures.count))
            }
        }
        let seeds = firstSeed.flatMap { first in lastSeed.map { first...max(first, $0) } }
        return Report(
            runs: run, seconds: Date().timeIntervalSince(start), statistics: statistics,
            freeStatistics: freeStatistics, failures: failures, digest: hash.finalize(), seeds: seeds)
    }

    /// The result of a run that could not start (its store or realm could not be set up).
    private static func notStarted(_ reason: String) -> RunResult {
        let failure = CheckFailure(kind: .divergence, message: "the run could not start: \(reason)", operationIndex: 0)
        return RunResult(
            failure: failure, statistics: CheckStatistics(), trace: [], choices: [], digest: 0,
            swarm: "", scheduler: .random(switchPercent: 0))
    }
}
