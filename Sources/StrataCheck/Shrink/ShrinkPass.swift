/// The shrinker's passes (`Shrinker.shrink` runs them in this order, repeated to a fixpoint),
/// named after what each deletes or lowers in the failing run's choice stream.
public enum ShrinkPass: String, Sendable, Hashable, CaseIterable {
    /// The same draws with one thread fewer (a pick of the dropped thread falls on another).
    case dropThread
    /// Every step of one context at once, for each context but the failing step's.
    case dropContext
    /// Whole steps (with the schedule's draws that picked them) or else their own draws, alone
    /// and in runs of 2, 4, 8... consecutive ones.
    case dropSteps
    /// Stretches of the stream of every power of two, from half of it down to one draw.
    case dropChunks
    /// Single draws set to zero, halved, or lowered by one.
    case lowerDraws
    /// At a fixpoint of the others: one context's steps together with a run of up to four of
    /// another's.
    case dropContextWithWindow
}

/// What one pass did over a whole shrink.
public struct ShrinkPassStatistics: Sendable, Hashable {
    /// Candidates the pass ran (each a re-run of the harness).
    public var attempts = 0
    /// Candidates that kept the failure and were smaller: each became the best run.
    public var successes = 0
    /// Operations of the best run its successes removed (negative when dropping a thread
    /// kept the failure at the cost of operations: fewer threads is smaller whatever they cost).
    public var stepsRemoved = 0
    /// Draws of the best run's stream its successes removed.
    public var drawsRemoved = 0

    public init() {}

    /// "12 attempts, 3 successes, 5 steps removed, 40 draws removed".
    public var summary: String {
        func counted(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        return [
            counted(attempts, "attempt", "attempts"), counted(successes, "success", "successes"),
            counted(stepsRemoved, "step", "steps") + " removed", counted(drawsRemoved, "draw", "draws") + " removed",
        ]
        .joined(separator: ", ")
    }
}
