import StrataStorage

/// Must-hit probes (Docs/architecture.md §5 "Probes and seeded bugs"): rare paths a campaign must reach, or
/// it tests less than it seems to. The engine marks its own (`Probe`, through
/// `EngineHooks.probe`); the harness names the ones only it can see (where a crash landed,
/// how a resolve placed its realm, a refused write over the active-version limit).
public enum ProbeCoverage {
    public static func crash(_ point: String) -> String { "crash before \(point)" }
    public static let resolveIntoOlderRealm = "resolve into an older realm"
    public static let resolveIntoNewerRealm = "resolve into a newer realm"
    public static let resolveIntoUnreadRealm = "resolve into a realm that never read"
    public static let activeVersionLimitHit = "write refused over the active-version limit"
    /// Generation 7: an iterator over Results reused the previous element's object, which the
    /// caller had let go of, for the next element (Spec V15, `ResultsIterator`).
    public static let iteratorReusedObject = "iterator reused a released object"

    /// What the lockstep modes (controlled and crash) must reach.
    public static let mustHit: [String] = [
        crash("a page write"), crash("the phase-1 sync"), crash("the slot write"), crash("the phase-2 sync"),
        crash("publish"),
        Probe.tornSlotRecoveredFromOtherSlot.rawValue,
        Probe.pageReuseWaitedForPin.rawValue,
        Probe.pageReuseAfterLastPinDropped.rawValue,
        Probe.treeRootSplit.rawValue,
        Probe.treeNodeMerge.rawValue,
        Probe.phaseOneSyncFailed.rawValue,
        Probe.phaseTwoSyncFailed.rawValue,
        Probe.growthWhileReaderActive.rawValue,
        resolveIntoOlderRealm, resolveIntoNewerRealm, resolveIntoUnreadRealm,
        activeVersionLimitHit, iteratorReusedObject,
    ]

    /// What a SIGKILL campaign (`run --mode process`) must reach: only processes that die
    /// and wait for each other's lock take these paths.
    public static let mustHitInProcesses: [String] = [
        Probe.writerBlockedByOtherProcess.rawValue,
        Probe.deadReaderSlotReclaimed.rawValue,
    ]
    /// Reported beside them, not required: a writer killed between its slot sync and its
    /// publish is a window of microseconds, hit about once in twenty kills.
    public static let alsoCountedInProcesses: [String] = [
        Probe.adoptedDurableCommitOfDeadWriter.rawValue
    ]

    /// The probes of `list` that `probes` (name to times hit) never reached.
    public static func neverHit(_ probes: [String: Int], of list: [String] = mustHit) -> [String] {
        list.filter { (probes[$0] ?? 0) == 0 }
    }
}

/// Counts probe marks from any thread of a run.
final class ProbeCounter: Sendable {
    private let counts = Lock<[String: Int]>([:])

    func mark(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

    var snapshot: [String: Int] { counts.withLock { $0 } }
}
