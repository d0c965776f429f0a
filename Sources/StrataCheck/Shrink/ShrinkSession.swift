import Foundation

/// One shrink in progress (`Shrinker.shrink`): the best failing run so far, the re-run budget
/// spent, and each pass's counts. The passes (`ShrinkSession+Passes.swift`) propose candidate
/// streams through `attempt`, which keeps a candidate only if it fails the same way and is
/// smaller (`Shrinker.isSmaller`).
final class ShrinkSession {
    let target: String
    let runLimit: Int
    let timeLimit: TimeInterval
    let start = Date()
    private(set) var best: RunResult
    private(set) var bestSettings: CheckSettings
    private(set) var runs = 0
    /// The pass whose candidates `attempt` runs now: its counts are the ones that move.
    var pass = ShrinkPass.dropThread
    private(set) var statistics: [ShrinkPass: ShrinkPassStatistics] = [:]

    init(failing: RunResult, target: String, settings: CheckSettings, runLimit: Int, timeLimit: TimeInterval) {
        self.target = target
        best = failing
        bestSettings = settings
        self.runLimit = runLimit
        self.timeLimit = timeLimit
    }

    var hasBudget: Bool { runs < runLimit && Date().timeIntervalSince(start) < timeLimit }

    /// Re-runs `choices` (with `threads` threads when given) and keeps the run if it fails the
    /// same way and is smaller.
    func attempt(_ choices: [UInt32], threads: Int? = nil) -> Bool {
        guard hasBudget else { return false }
        runs += 1
        statistics[pass, default: ShrinkPassStatistics()].attempts += 1
        var candidateSettings = bestSettings
        if let threads { candidateSettings.threads = threads }
        guard let runner = try? Runner(settings: candidateSettings, stream: ChoiceStream(replaying: choices)) else {
            return false
        }
        let result = runner.run()
        guard result.failure?.signature == target else { return false }
        if let threads, threads < bestSettings.threads {
            // Fewer threads is smaller whatever the operations: a person follows fewer columns.
            accept(result)
            bestSettings.threads = threads
            return true
        }
        // Smaller means fewer operations, then fewer draws, then lower draws (what a person
        // reads is the operations). Only what the run drew is kept: trailing draws it never
        // made are noise.
        if Shrinker.isSmaller(result, than: best) {
            accept(result)
            return true
        }
        return false
    }

    private func accept(_ result: RunResult) {
        statistics[pass, default: ShrinkPassStatistics()].successes += 1
        statistics[pass, default: ShrinkPassStatistics()].stepsRemoved += best.trace.count - result.trace.count
        statistics[pass, default: ShrinkPassStatistics()].drawsRemoved += best.choices.count - result.choices.count
        best = result
    }

    /// The stream ranges of the steps at `indices` of the trace, descending: in stream
    /// order (the trace is in completion order: a blocked operation completes after later
    /// ones), each from where the step before it ended, so that the schedule's draws
    /// between go with it (not before the first: those are the swarm's).
    func stepRanges(_ indices: Set<Int>) -> [Range<Int>]? {
        let steps = best.trace.indices.compactMap { index in best.trace[index].draws.map { (index, $0) } }
            .filter { !$0.1.isEmpty }.sorted { $0.1.lowerBound < $1.1.lowerBound }
        var ranges: [Range<Int>] = []
        var previousEnd: Int?
        for (index, draws) in steps {
            if indices.contains(index) {
                ranges.append(min(previousEnd ?? draws.lowerBound, draws.lowerBound)..<draws.upperBound)
            }
            previousEnd = draws.upperBound
        }
        guard !ranges.isEmpty, ranges.allSatisfy({ $0.upperBound <= best.choices.count }) else { return nil }
        return ranges.reversed()
    }

    /// The best stream without the steps at `indices` (and the schedule draws that picked them).
    func deleting(_ indices: Set<Int>) -> [UInt32]? {
        guard let ranges = stepRanges(indices) else { return nil }
        var candidate = best.choices
        for range in ranges { candidate.removeSubrange(range) }
        return candidate
    }
}
