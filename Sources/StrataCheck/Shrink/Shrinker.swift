import Foundation

/// Shrinks a failing run by editing its choice stream and re-running (Hypothesis's internal
/// reduction): operations, the schedule and the crash choices shrink together, because they
/// are all draws of the one stream. Every candidate is a stream the generators accept, and
/// the run is deterministic, so a candidate fails or not on every replay.
///
/// Passes (`ShrinkPass`, in `ShrinkSession+Passes.swift`), repeated to a fixpoint (1-minimal
/// for chunk deletion and zeroing within budget): drop a thread; delete every step of one
/// context; delete each step (with the schedule's draws that picked it) or else each
/// operation's own draws, alone and in runs of 2, 4, 8…; delete chunks of every power of two
/// from half the stream down to 1 draw; set single draws to zero, halve them or lower them by
/// one; at a fixpoint, delete a context's steps with a run of another's. Each pass's attempts,
/// successes and removed steps are counted (`Outcome.passes`).
public struct Shrinker: Sendable {
    public var settings: CheckSettings
    /// At most this many re-runs, and no longer than `timeLimit` seconds (`.infinity`: bounded
    /// by re-runs alone, so the outcome is the same on any machine; tests use that).
    public var runLimit: Int
    public var timeLimit: TimeInterval
    public static let defaultRunLimit = 20_000

    public init(settings: CheckSettings, runLimit: Int = Shrinker.defaultRunLimit, timeLimit: TimeInterval = 60) {
        self.settings = settings
        self.runLimit = runLimit
        self.timeLimit = timeLimit
    }

    public struct Outcome: Sendable {
        /// The smallest failing run found (the input's own run when nothing smaller fails).
        public var result: RunResult
        /// The settings it ran with: fewer threads than the input's when dropping threads
        /// kept the failure. Its token must use these.
        public var settings: CheckSettings
        public var runs: Int
        public var seconds: Double
        /// What each pass did (`ShrinkPass`): a pass that ran no candidate has no entry.
        public var passes: [ShrinkPass: ShrinkPassStatistics] = [:]

        /// One line per pass that ran, in the order the passes run: what the shrink summary of
        /// `strata-fuzz shrink` prints under "shrink passes".
        public var passLines: [String] {
            ShrinkPass.allCases.compactMap { pass in passes[pass].map { "  \(pass.rawValue): \($0.summary)" } }
        }
    }

    /// Shrinks `failing`, whose failure must keep its signature in every accepted candidate.
    public func shrink(_ failing: RunResult) -> Outcome {
        guard let target = failing.failure?.signature else {
            return Outcome(result: failing, settings: settings, runs: 0, seconds: 0)
        }
        let session = ShrinkSession(
            failing: failing, target: target, settings: settings, runLimit: runLimit,
            timeLimit: timeLimit)
        func run(_ pass: ShrinkPass, _ body: () -> Bool) -> Bool {
            session.pass = pass
            return body()
        }
        var improved = true
        while improved && session.hasBudget {
            improved = false
            if run(.dropThread, session.dropThread) {
                improved = true
                continue
            }
            if run(.dropContext, { session.dropContext(windows: false) }) {
                improved = true
                continue
            }
            if run(.dropSteps, session.dropSteps) { improved = true }
            let improvedBefore = improved
            if run(.dropChunks, { session.dropChunks(improvedBefore: improvedBefore) }) { improved = true }
            if improved { continue }
            if run(.lowerDraws, session.lowerDraws) { improved = true }
            // At a fixpoint of the passes above, and short enough for the pairs to be cheap.
            if !improved && session.best.trace.count <= 40
                && run(.dropContextWithWindow, { session.dropContext(windows: true) })
            {
                improved = true
            }
        }
        return Outcome(
            result: session.best, settings: session.bestSettings, runs: session.runs,
            seconds: Date().timeIntervalSince(session.start), passes: session.statistics)
    }

    static func isSmaller(_ candidate: RunResult, than best: RunResult) -> Bool {
        if candidate.trace.count != best.trace.count { return candidate.trace.count < best.trace.count }
        if candidate.choices.count != best.choices.count { return candidate.choices.count < best.choices.count }
        return candidate.choices.lexicographicallyPrecedes(best.choices)
    }
}
