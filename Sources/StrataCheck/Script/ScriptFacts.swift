import StrataModel
import StrataSimulation
import StrataStorage

/// What the generated test (`ScriptRenderer`) needs to know of a trace entry beyond its step
/// and observations: where the schedule put it, and how the harness crashed or failed a commit.
///
/// The trace is in completion order; the model steps in linearization order. The two differ for
/// an operation the model stepped before it returned (`Runner.linearizeEarly`) and for a
/// `beginWrite` that waited for the write lock on its own thread: the positions below say where.
struct ScriptFacts: Hashable, Sendable {
    /// A `beginWrite` let go to wait for the write lock when the trace held this many entries.
    var handedOffAfter: Int?
    /// The model took the step when the trace held this many entries (before it returned).
    var steppedAfter: Int?
    /// A commit captured for a crash: where in the commit, and the image the run went on from.
    var capture: CapturePoint?
    var crash: RecordedCrash?
    /// A commit failed by an injected I/O error.
    var fault: InjectedCommitFault?
    /// After a crash: what recovery must find (the model's durable version, or for a failing
    /// crash image the version its slot says).
    var recovered: [Reading]?
}

/// A crash image keyed by where each pending write goes, not by its rank among the pending
/// writes: an engine that fixes a missing sync has fewer writes pending at the same point, and
/// the image must still mean the same for the writes it has.
struct RecordedCrash: Hashable, Sendable {
    /// The fate of each pending write, in pending order, with the file offset it writes.
    var fates: [(offset: Int, fate: SimStore.WriteFate)]
    var keepsUnsyncedSize: Bool

    init(pending: [SimStore.PendingWrite], plan: SimStore.CrashPlan) {
        fates = pending.enumerated().map { index, write in
            (write.offset, index < plan.fates.count ? plan.fates[index] : .lost)
        }
        keepsUnsyncedSize = plan.keepsUnsyncedSize
    }

    init(fates: [(offset: Int, fate: SimStore.WriteFate)], keepsUnsyncedSize: Bool) {
        self.fates = fates
        self.keepsUnsyncedSize = keepsUnsyncedSize
    }

    /// The plan for the writes pending now: each takes the fate recorded for its offset (in
    /// order, for an offset written twice); a write the recording did not have is lost.
    func plan(for pending: [SimStore.PendingWrite]) -> SimStore.CrashPlan {
        var remaining = fates
        let planned = pending.map { write -> SimStore.WriteFate in
            guard let index = remaining.firstIndex(where: { $0.offset == write.offset }) else { return .lost }
            return remaining.remove(at: index).fate
        }
        return SimStore.CrashPlan(fates: planned, keepsUnsyncedSize: keepsUnsyncedSize)
    }

    static func == (lhs: RecordedCrash, rhs: RecordedCrash) -> Bool {
        lhs.keepsUnsyncedSize == rhs.keepsUnsyncedSize && lhs.fates.elementsEqual(rhs.fates) { $0 == $1 }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(keepsUnsyncedSize)
        for (offset, fate) in fates {
            hasher.combine(offset)
            hasher.combine(fate)
        }
    }
}

extension ModelState {
    /// The objects of the newest version of the run's one file, as the engine reads them back
    /// after a crash (`Runner.checkRecoveredContents`).
    var newestContents: [Reading]? { newestContents(of: Runner.mainLocation) }

    /// The newest contents of the file at `location` (a copy's, say), in the same order.
    func newestContents(of location: FileLocation) -> [Reading]? {
        guard let file = files[location], let snapshot = file.versions[file.newest] else { return nil }
        return snapshot.objects.keys
            .compactMap { snapshot.reading(of: $0, frozen: false).map(Reading.init) }
            .sorted { ($0.type, $0.primaryKey) < ($1.type, $1.primaryKey) }
    }
}
