import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// One checked operation, for the timeline and the generated test.
public struct TraceEntry: Sendable, Hashable {
    public var index: Int
    public var thread: Int
    public var step: Step
    public var expected: Observation
    public var observed: Observation
    /// The engine version the operation's realm read afterwards, if any.
    public var engineVersion: UInt64?
    /// Notes: the crash image chosen, a context switch inside the engine.
    public var note: String?
    /// The draws of the scheduling step that chose and generated this operation (the shrinker
    /// deletes them to drop the operation whole); nil for steps the harness made.
    public var draws: Range<Int>?
    /// What the generated test needs beyond the step (`ScriptRenderer`).
    var facts = ScriptFacts()
}

/// The result of one run.
public struct RunResult: Sendable {
    public var failure: CheckFailure?
    public var statistics: CheckStatistics
    public var trace: [TraceEntry]
    /// The stream as drawn: replaying it repeats the run.
    public var choices: [UInt32]
    /// A digest of the trace: equal streams give equal digests.
    public var digest: UInt64
    public var swarm: String
    public var scheduler: SchedulerKind
    /// The enumerated draws of an exploring stream (`ScheduleExplorer`); empty otherwise.
    public var enumerated: [EnumeratedChoice] = []
    /// The contexts that are serial queues (`Runner.addContexts`), for the generated test.
    var queueContexts: Set<ContextID> = []
    /// The run's active-version limit (the generated test configures the same).
    var activeVersionLimit: Int?
    /// Whether the run's schema has Linkers (generation 6, `Swarm.links`).
    var links = false
    /// Whether the run's Item and Linker `value` is indexed (generation 8, Spec W26).
    var indexed = false
    /// A commit whose crash images failed their check: it has no trace entry (the run ended
    /// inside it), but the generated test performs it and checks the failing image.
    var failedCrash: TraceEntry?
}
