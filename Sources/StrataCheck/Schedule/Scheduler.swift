/// How a run interleaves its threads; every decision is a draw from the choice stream.
public enum SchedulerKind: Sendable, Hashable, CustomStringConvertible {
    /// A uniformly random runnable thread next; at a switch point inside the engine, switch
    /// with the given percent.
    case random(switchPercent: Int)
    /// PCT (Burckhardt et al.): random distinct thread priorities, the highest runnable thread
    /// runs; about `depth - 1` times in a run the running thread drops to the lowest priority.
    /// A bug of depth d is found with probability about 1/(n·k^(d−1)). Each step draws whether
    /// it is a change point (PCT proper draws d − 1 step indices up front): a change point
    /// then belongs to its step's draws, so shrinking that deletes operations keeps the
    /// preemptions where they were, and zeroing one removes it.
    case pct(depth: Int)

    public var description: String {
        switch self {
        case .random(let percent): return "random(switch \(percent)%)"
        case .pct(let depth): return "pct(depth \(depth))"
        }
    }
}

/// The scheduler's state during one run.
struct Scheduler {
    let kind: SchedulerKind
    private var priorities: [Int]
    /// The odds of a change point at each step: `depth - 1` in `changeOdds`.
    private let changeOdds: Int
    private let changesPerRun: Int
    private var lowest = 0
    /// Context switches made (the thread that ran last was not the one chosen).
    private(set) var switches = 0
    /// Switches away from a thread parked inside the engine.
    private(set) var preemptions = 0
    private var last: Int?

    init(kind: SchedulerKind, threads: Int, operations: Int, stream: inout ChoiceStream) {
        self.kind = kind
        var order = Array(0..<threads)
        // A random permutation: the priorities.
        for index in stride(from: threads - 1, to: 0, by: -1) {
            order.swapAt(index, stream.draw(index + 1))
        }
        priorities = Array(repeating: 0, count: threads)
        for (rank, thread) in order.enumerated() { priorities[thread] = threads + rank }
        if case .pct(let depth) = kind {
            changesPerRun = max(0, depth - 1)
        } else {
            changesPerRun = 0
        }
        changeOdds = max(operations, changesPerRun + 1)
    }

    /// The thread to run next among `runnable` (non-empty, ascending).
    mutating func pick(_ runnable: [Int], stream: inout ChoiceStream) -> Int {
        let chosen: Int
        switch kind {
        case .random:
            chosen = runnable[stream.draw(runnable.count, options: Array(0..<runnable.count))]
        case .pct:
            // Zero, the shrinker's favourite, is "no change"; the top values are changes.
            if let last, changesPerRun > 0, stream.draw(changeOdds) >= changeOdds - changesPerRun {
                lowest -= 1
                priorities[last] = lowest
            }
            chosen = runnable.max { priorities[$0] < priorities[$1] } ?? runnable[0]
        }
        if let last, last != chosen { switches += 1 }
        last = chosen
        return chosen
    }

    /// Whether an operation `current` starts now could be left at a switch point for one of
    /// `others`: under PCT only when a runnable thread has a higher priority (priorities change
    /// only at picks). Draws nothing.
    func mayPreempt(_ current: Int, others: [Int]) -> Bool {
        guard !others.isEmpty else { return false }
        switch kind {
        case .random:
            return true
        case .pct:
            return others.contains { priorities[$0] > priorities[current] }
        }
    }

    /// Whether an operation that `mayPreempt` says could be left inside the engine runs where
    /// it can be left at its pins and unpins (on its thread) rather than inline. PCT: always
    /// (its switches are rare and exact). Random: one operation in eight. Explored both ways
    /// while the run has preemptions left; the choice takes one, or the explored tree would
    /// double at every operation (mostly with runs where the thread is never left).
    mutating func mayPreemptAtPins(stream: inout ChoiceStream) -> Bool {
        switch kind {
        case .random:
            let options = preemptions < stream.preemptionBound ? [0, 7] : [0]
            let threaded = stream.draw(8, options: options) == 7
            if threaded && stream.preemptionBound != Int.max { preemptions += 1 }
            return threaded
        case .pct:
            return true
        }
    }

    /// Whether to leave `current`, parked inside the engine, for another runnable thread.
    mutating func switchesAway(from current: Int, others: [Int], stream: inout ChoiceStream) -> Bool {
        guard !others.isEmpty else { return false }
        switch kind {
        case .random(let percent):
            // Explored: "stay" (0) or "switch" (99, above any threshold), until the run has
            // used its preemptions.
            let options = preemptions < stream.preemptionBound ? [0, 99] : [0]
            let switches = stream.draw(100, options: options) >= 100 - percent
            if switches { preemptions += 1 }
            return switches
        case .pct:
            return others.contains { priorities[$0] > priorities[current] }
        }
    }
}
