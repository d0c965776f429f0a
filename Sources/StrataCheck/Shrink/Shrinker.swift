import Foundation

/// Shrinks a failing run by editing its choice stream and re-running (Hypothesis's internal
/// reduction): operations, the schedule and the crash choices shrink together, because they
/// are all draws of the one stream. Every candidate is a stream the generators accept, and
/// the run is deterministic, so a candidate fails or not on every replay.
///
/// Passes, repeated to a fixpoint (1-minimal for chunk deletion and zeroing within budget):
/// drop a thread; delete each step (with the schedule's draws that picked it) or else each
/// operation's own draws, alone and in runs of 2, 4, 8…; delete every step of one context;
/// delete chunks of every power of two from half the stream down to 1 draw; set single draws
/// to zero, halve them or lower them by one; at a fixpoint, delete a context's steps with a run of another's.
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
    }

    /// Shrinks `failing`, whose failure must keep its signature in every accepted candidate.
    public func shrink(_ failing: RunResult) -> Outcome {
        guard let target = failing.failure?.signature else {
            return Outcome(result: failing, settings: settings, runs: 0, seconds: 0)
        }
        let start = Date()
        var best = failing
        var bestSettings = settings
        var runs = 0
        func attempt(_ choices: [UInt32], threads: Int? = nil) -> Bool {
            guard runs < runLimit, Date().timeIntervalSince(start) < timeLimit else { return false }
            runs += 1
            var candidateSettings = bestSettings
            if let threads { candidateSettings.threads = threads }
            guard let runner = try? Runner(settings: candidateSettings, stream: ChoiceStream(replaying: choices)) else { return false }
            let result = runner.run()
            guard result.failure?.signature == target else { return false }
            if let threads, threads < bestSettings.threads {
                // Fewer threads is smaller whatever the operations: a person follows fewer columns.
                best = result
                bestSettings.threads = threads
                return true
            }
            // Smaller means fewer operations, then fewer draws, then lower draws (what a person
            // reads is the operations). Only what the run drew is kept: trailing draws it never
            // made are noise.
            if Self.isSmaller(result, than: best) {
                best = result
                return true
            }
            return false
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
        func deleting(_ indices: Set<Int>) -> [UInt32]? {
            guard let ranges = stepRanges(indices) else { return nil }
            var candidate = best.choices
            for range in ranges { candidate.removeSubrange(range) }
            return candidate
        }
        /// Deletes operations and runs of consecutive ones until no deletion keeps the failure.
        func deleteOperations(_ attempt: ([UInt32]) -> Bool) -> Bool {
            var any = false
            var progress = true
            while progress {
                progress = false
                var width = 1
                while width <= max(1, best.trace.count / 2) {
                    var last = best.trace.count - 1
                    while last - width + 1 >= 0 {
                        let first = last - width + 1
                        let ranges = best.trace[first...last].compactMap(\.draws).filter { !$0.isEmpty }
                        if let lower = ranges.map(\.lowerBound).min(), let upper = ranges.map(\.upperBound).max(),
                           upper <= best.choices.count {
                            // The whole steps first: the schedule's draws that picked them too,
                            // so the steps after keep their contexts (deleting only an
                            // operation's own draws hands its schedule draw to the next one).
                            // (Tried when it deletes more than the operations' own draws.)
                            if let steps = deleting(Set(first...last)),
                               steps.count < best.choices.count - ranges.map(\.count).reduce(0, +) {
                                if attempt(steps) {
                                    progress = true
                                    any = true
                                    last = min(last, best.trace.count) - 1
                                    continue
                                }
                            }
                            var candidate = best.choices
                            if width == 1 {
                                candidate.removeSubrange(lower..<upper)
                            } else {
                                // Only the operations' own draws: the schedule's between them stay.
                                let descending = ranges.sorted { $0.lowerBound > $1.lowerBound }
                                guard zip(descending.dropFirst(), descending).allSatisfy({ $0.upperBound <= $1.lowerBound }) else {
                                    last -= 1
                                    continue
                                }
                                for range in descending { candidate.removeSubrange(range) }
                            }
                            if attempt(candidate) {
                                progress = true
                                any = true
                            }
                        }
                        last = min(last, best.trace.count) - 1
                    }
                    width *= 2
                }
            }
            return any
        }
        /// Deletes every step of one context, for each context but the failing step's: the
        /// other contexts' picks keep their meaning (the context is still there, only never
        /// chosen), which deleting its steps one at a time cannot keep when each alone changes
        /// what the others' draws generate. With `windows`, together with each run of up to
        /// four consecutive steps of the others (a failure often needs one context gone and
        /// another's write too: two deletions no single one makes).
        func deleteContexts(windows: Bool, _ attempt: ([UInt32]) -> Bool) -> Bool {
            guard let failing = best.trace.last?.thread else { return false }
            let threads = Set(best.trace.map(\.thread)).subtracting([failing]).sorted()
            for thread in threads {
                let own = Set(best.trace.indices.filter { best.trace[$0].thread == thread })
                guard windows else {
                    if let candidate = deleting(own), attempt(candidate) { return true }
                    continue
                }
                let count = best.trace.count
                for width in 1...4 where width < count {
                    for first in stride(from: count - 1 - width, through: 0, by: -1) {
                        let window = Set(first..<(first + width)).subtracting(own)
                        guard !window.isEmpty, let candidate = deleting(own.union(window)) else { continue }
                        if attempt(candidate) { return true }
                    }
                }
            }
            return false
        }
        var improved = true
        while improved && runs < runLimit && Date().timeIntervalSince(start) < timeLimit {
            improved = false
            // Drop a thread: the same draws, one thread fewer (a pick of the dropped thread
            // falls on another).
            if bestSettings.threads > 1, attempt(best.choices, threads: bestSettings.threads - 1) {
                improved = true
                continue
            }
            // Every step of one context at once: the other contexts' picks keep their meaning
            // (the context is still there, only never chosen), which deleting its steps one at
            // a time cannot keep when each alone changes what the others' draws generate.
            if deleteContexts(windows: false, { attempt($0) }) {
                improved = true
                continue
            }
            // Whole operations first, from the last: the draws that chose and generated one,
            // then runs of 2, 4, 8... consecutive operations (a write and what it needed go
            // together), repeated until none goes: cheap passes that remove the most.
            if deleteOperations({ attempt($0) }) { improved = true }
            // Halves first (ddmin's order): a failure late in a long run often survives losing
            // whole stretches before it, and one success there saves thousands of small tries.
            var sizes: [Int] = []
            var size = 1
            while size <= best.choices.count / 2 { sizes.insert(size, at: 0); size *= 2 }
            for size in sizes {
                var position = best.choices.count - size
                while position >= 0 {
                    var candidate = best.choices
                    candidate.removeSubrange(position..<min(candidate.count, position + size))
                    if attempt(candidate) { improved = true }
                    position = min(position, best.choices.count) - size
                }
                // Back to whole operations: a deleted stretch often frees others.
                if improved { break }
            }
            if improved { continue }
            for position in best.choices.indices.reversed() where position < best.choices.count {
                guard best.choices[position] != 0 else { continue }
                var candidate = best.choices
                candidate[position] = 0
                if attempt(candidate) {
                    improved = true
                    continue
                }
                candidate[position] = best.choices[position] / 2
                if candidate[position] != best.choices[position], attempt(candidate) {
                    improved = true
                    continue
                }
                // One lower: a pick among a few options (the swarm's active-version limits,
                // a kind) whose simpler neighbour neither zero nor half reaches.
                candidate[position] = best.choices[position] - 1
                if candidate[position] > best.choices[position] / 2, attempt(candidate) { improved = true }
            }
            // At a fixpoint of the passes above, and short enough for the pairs to be cheap:
            // a context's steps together with a run of another's.
            if !improved && best.trace.count <= 40 && deleteContexts(windows: true, { attempt($0) }) {
                improved = true
            }
        }
        return Outcome(result: best, settings: bestSettings, runs: runs, seconds: Date().timeIntervalSince(start))
    }

    static func isSmaller(_ candidate: RunResult, than best: RunResult) -> Bool {
        if candidate.trace.count != best.trace.count { return candidate.trace.count < best.trace.count }
        if candidate.choices.count != best.choices.count { return candidate.choices.count < best.choices.count }
        return candidate.choices.lexicographicallyPrecedes(best.choices)
    }
}
