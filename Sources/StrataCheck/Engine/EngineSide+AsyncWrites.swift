import Foundation
import Strata
import StrataModel
import StrataStorage

// The engine side of async writes (generation 4): `writeAsync`, `beginAsyncWrite` (its block
// commits with `commitAsyncWrite(allowGrouping:)` or cancels), `commitAsyncWrite` of a
// synchronous write, `cancelAsyncWrite` and `isPerformingAsynchronousWriteOperations` through
// the realm's API, and a record of what the blocks and completions did for the runner to compare
// with the model's events.
//
// When blocks run. Strata runs a queue realm's blocks, and the completions of its groups, in
// turns it adds to the queue; a group's durable commit runs on a background queue of the file
// (Spec D10), whose end schedules the next turn. After each operation of a queue context the
// step drains its realms' async work (`drainAsync`): it lets the queue run until no turn is
// wanted, waiting for a group sync that ends meanwhile. A group sync that begins is held at its
// `groupSyncBegins` yield point (`GroupSyncGate`) until a step lets it go: the `syncAsyncGroup`
// step, or a step of the realm that makes its commits durable itself (`beginWrite`,
// `invalidate`: Spec D13, A8, A13). So every block and completion runs inside its context's
// step, the run replays, and between steps a group can be published and not yet durable, where
// a crash must recover the version before it (D10).

/// What a block or a completion did, recorded where it ran.
enum EngineAsyncEvent: Sendable, Hashable, CustomStringConvertible {
    case started(AsyncWriteID)
    /// A commit the harness made (`commitAsyncWrite`), at the engine version it read after.
    case committed(AsyncWriteID, engineVersion: UInt64?)
    /// A completion: its error (code), and the engine's durable version as it ran (Spec D11).
    case completed(AsyncWriteID, error: String?, durableVersion: UInt64?)
    /// A block's own write failed (the generator makes blocks that cannot fail).
    case blockFailed(AsyncWriteID, String)

    var description: String {
        switch self {
        case .started(let id): return "started \(id)"
        case .committed(let id, let version): return "committed \(id) at engine v\(version.map(String.init) ?? "?")"
        case .completed(let id, let error, _): return "completed \(id)\(error.map { " with error \($0)" } ?? "")"
        case .blockFailed(let id, let message): return "block \(id) failed: \(message)"
        }
    }
}

/// The async events of a run, each with its realm, appended on whichever thread runs the block
/// or completion and taken by the driver after each step of the realm's context: a step of
/// another context that ends first (while this one is parked inside the engine, say after a
/// `beginWrite` ran the completions it made durable) must not take them. Events of an earlier
/// boot (a held sync let go at a crash, a turn of a realm the crash dropped) are not recorded.
final class AsyncWriteLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(realm: RealmID, event: EngineAsyncEvent)] = []
    private var boot = 0
    private var active = false

    var currentBoot: Int { lock.withLock { boot } }
    /// Whether the run has queued async work (from then on queue steps drain it).
    var isActive: Bool { lock.withLock { active } }

    func activate() { lock.withLock { active = true } }

    func append(_ event: EngineAsyncEvent, of realm: RealmID, boot: Int) {
        lock.withLock { if boot == self.boot { entries.append((realm, event)) } }
    }

    /// The events of `realms`, in order; the others stay for their own context's step.
    func take(of realms: Set<RealmID>) -> [EngineAsyncEvent] {
        lock.withLock {
            defer { entries.removeAll { realms.contains($0.realm) } }
            return entries.filter { realms.contains($0.realm) }.map(\.event)
        }
    }

    /// A new boot: what the old one's blocks and completions do from now on is not recorded.
    func reset() {
        lock.withLock {
            boot += 1
            entries = []
            operationEnds = [:]
        }
    }

    /// Where each context's last operation returned, in `entries` (before its queue's turns ran).
    private var operationEnds: [ContextID: Int] = [:]

    /// `context`'s operation returned: what was recorded so far ran inside it.
    func markOperationEnd(of context: ContextID) {
        lock.withLock { operationEnds[context] = entries.count }
    }

    /// The events of `realms` recorded before `context`'s last operation returned (call before
    /// `take(of:)`, which removes them).
    func eventsInsideOperation(of realms: Set<RealmID>, context: ContextID) -> [EngineAsyncEvent] {
        lock.withLock {
            let end = min(operationEnds[context] ?? 0, entries.count)
            return entries[..<end].filter { realms.contains($0.realm) }.map(\.event)
        }
    }
}

/// Holds the background group sync at its start (`YieldPoint.groupSyncBegins`) until the
/// harness lets it go, and counts the syncs that ended. At most one realm of a run has async
/// work at a time (`Generator.mayQueueAsync`), so at most one sync is held.
final class GroupSyncGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var holds = false
    private var arrived = 0
    private var released = 0
    private var ended = 0
    private var inSync = false
    private var idleTimeouts = 0

    /// Holds syncs from now on (a lockstep run with async writes), or lets every one through.
    func setHolding(_ flag: Bool) {
        condition.withLock {
            holds = flag
            if !flag { released = arrived }
            condition.broadcast()
        }
    }

    /// The sync thread, at `groupSyncBegins`.
    func arrive() {
        condition.withLock {
            inSync = true
            guard holds else { return }
            arrived += 1
            let number = arrived
            condition.broadcast()
            while released < number { condition.wait() }
        }
    }

    /// The sync thread, at `groupSyncEnds`.
    func end() {
        condition.withLock {
            if inSync { ended += 1 }
            inSync = false
            condition.broadcast()
        }
    }

    var isHolding: Bool { condition.withLock { arrived > released } }
    var holdsSyncs: Bool { condition.withLock { holds } }
    var endedCount: Int { condition.withLock { ended } }
    /// Waits for an idle gate that ran out of time (a let-go sync that did not end): a run
    /// counts them (`CheckStatistics.groupSyncWaitsTimedOut`), so a test checks that no run
    /// waited a sync out by a count, not by timing the run.
    var idleTimeoutCount: Int { condition.withLock { idleTimeouts } }

    /// Lets the held sync go; false if none was held.
    func release() -> Bool {
        condition.withLock {
            guard arrived > released else { return false }
            released = arrived
            condition.broadcast()
            return true
        }
    }

    /// Waits until a sync is held or one more than `endedBefore` has ended; false on timeout.
    func awaitHeldOrEnded(after endedBefore: Int, seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return condition.withLock {
            while arrived <= released && ended <= endedBefore {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// Waits until no sync is under way (one let go has ended); false on timeout.
    func awaitIdle(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return condition.withLock {
            while inSync && arrived <= released {
                if !condition.wait(until: deadline) {
                    idleTimeouts += 1
                    return false
                }
            }
            return true
        }
    }
}

extension EngineSide {
    /// Turns a step may let its queue run before its async work counts as stuck.
    static let asyncTurnsMax = 256
    /// How long a let-go group sync may take before the step reports it: a hang guard, not a
    /// speed limit (a sync on a busy machine may take seconds; one that never ends is the bug).
    static let groupSyncSecondsMax = 300.0

    /// Performs an async-write operation; nil for any other operation.
    func dispatchAsync(_ operation: StrataModel.Operation, in context: ContextID) throws(Realm.Error) -> Observation? {
        switch operation {
        case .writeAsync(let realmID, let mutations, let id):
            let realm = try required(realmID)
            noteAsync(realmID, in: context)
            let (log, boot) = (asyncLog, asyncLog.currentBoot)
            // The blocks find their realm by identifier (a realm holds its queued blocks: holding
            // it back would keep a crashed boot's realm alive).
            let engineID = try realm._writeAsync(
                { [weak self] in
                    log.append(.started(id), of: realmID, boot: boot)
                    guard let realm = self?.asyncRealm(realmID, boot: boot) else { return }
                    Self.applyInBlock(mutations, id: id, in: realm, of: realmID, log: log, boot: boot)
                }, onComplete: completion(id, realm: realmID, log: log, boot: boot))
            setAsyncID(engineID, for: id, of: realmID)
            return .done
        case .beginAsyncWrite(let realmID, let mutations, let ending, let id):
            let realm = try required(realmID)
            noteAsync(realmID, in: context)
            let (log, boot) = (asyncLog, asyncLog.currentBoot)
            let engineID = try realm._beginAsyncWrite { [weak self] in
                log.append(.started(id), of: realmID, boot: boot)
                guard let self, let realm = self.asyncRealm(realmID, boot: boot) else { return }
                guard Self.applyInBlock(mutations, id: id, in: realm, of: realmID, log: log, boot: boot) else { return }
                do throws(Realm.Error) {
                    switch ending {
                    case .commit(let allowGrouping):
                        let commitID = try realm._commitAsyncWrite(
                            allowGrouping: allowGrouping, self.completion(id, realm: realmID, log: log, boot: boot))
                        self.setAsyncID(commitID, for: id, of: realmID)  // Spec A4: cancels now reach the completion
                        log.append(.committed(id, engineVersion: realm._readVersion), of: realmID, boot: boot)
                    case .cancel:
                        try realm._cancelWrite()  // Spec A3
                    case .throwError:
                        log.append(.blockFailed(id, "an async block cannot throw"), of: realmID, boot: boot)
                    case .leaveOpen:
                        break  // Spec A19: the realm rolls the write back when the block returns
                    }
                } catch {
                    log.append(.blockFailed(id, "\(error.modelCode): \(error.message)"), of: realmID, boot: boot)
                }
            }
            setAsyncID(engineID, for: id, of: realmID)
            return .done
        case .commitAsyncWrite(let realmID, let allowGrouping, let id):
            let realm = try required(realmID)
            noteAsync(realmID, in: context)
            let (log, boot) = (asyncLog, asyncLog.currentBoot)
            let commitID = try realm._commitAsyncWrite(
                allowGrouping: allowGrouping,
                completion(id, realm: realmID, log: log, boot: boot))
            setAsyncID(commitID, for: id, of: realmID)
            log.append(.committed(id, engineVersion: realm._readVersion), of: realmID, boot: boot)
            return .done
        case .cancelAsyncWrite(let realmID, let id):
            let realm = try required(realmID)
            // An id never handed out cancels nothing (Spec A4 names no error). The engine numbers
            // each realm's writes from 1, so another realm's id may name one of this realm's:
            // the model's ids are the run's, and another realm's id cancels nothing here.
            let handedOut = lock.withLock { _ in asyncIDs[id] }
            let engineID = handedOut?.realm == realmID ? handedOut?.engineID ?? .max : AsyncTransactionId.max
            do {
                try realm.cancelAsyncWrite(engineID)
            } catch let error as Realm.Error {
                throw error
            } catch {
                throw Realm.Error(.fail, "\(error)")
            }
            return .done
        case .isPerformingAsynchronousWriteOperations(let realmID):
            let realm = try required(realmID)
            // The throwing entry: a poisoned file fails.
            return .bool(try realm._isPerformingAsynchronousWriteOperations)
        case .syncAsyncGroup:
            // `perform` let the held sync go before this ran; without one there was no sync.
            let released = lock.withLock { _ in lastReleased.contains(context) }
            if released { return .done }
            return .failure(code: "harness", message: "no group sync was held for the realm's ended group")
        default:
            return nil
        }
    }

    /// Applies a block's mutations; false (recorded) if one failed.
    @discardableResult
    private static func applyInBlock(
        _ mutations: [Mutation], id: AsyncWriteID, in realm: Realm, of realmID: RealmID,
        log: AsyncWriteLog, boot: Int
    ) -> Bool {
        do throws(Realm.Error) {
            for mutation in mutations { try apply(mutation, in: realm) }
            return true
        } catch {
            log.append(.blockFailed(id, "\(error.modelCode): \(error.message)"), of: realmID, boot: boot)
            return false
        }
    }

    /// A completion that records its error and the durable version as it runs (Spec D11).
    private func completion(
        _ id: AsyncWriteID, realm: RealmID, log: AsyncWriteLog,
        boot: Int
    ) -> (Swift.Error?) -> Void {
        { [weak self] error in
            let code = error.map { ($0 as? Realm.Error)?.modelCode ?? "\($0)" }
            let durable = self?.asyncRealm(realm, boot: boot)?._durableVersion
            log.append(.completed(id, error: code, durableVersion: durable), of: realm, boot: boot)
        }
    }

    /// The engine realm `id` of boot `boot`, if that is still the current one.
    private func asyncRealm(_ id: RealmID, boot: Int) -> Realm? {
        guard asyncLog.currentBoot == boot else { return nil }
        return heldOrReleased(id)
    }

    private func noteAsync(_ realm: RealmID, in context: ContextID) {
        asyncLog.activate()
        lock.withLock { _ in _ = asyncRealms[context, default: []].insert(realm) }
    }

    private func setAsyncID(_ engineID: AsyncTransactionId, for id: AsyncWriteID, of realm: RealmID) {
        lock.withLock { _ in asyncIDs[id] = (realm, engineID) }
    }

    /// Whether `operation` of `context` makes its realm's commits durable itself and so waits
    /// for a held group sync (Spec D13, A8, A13), or is the step that lets it go. Only the
    /// sync of the step's own realm: the gate holds one sync of the run, and a step of another
    /// realm (one that queued async work once, even) that let it go would leave its end, and
    /// the turn that end schedules, to run on the owner's queue at a moment no step orders
    /// (a block there would then wait for the write lock while the harness waits for that
    /// queue). Called on the context's queue, where the realm's state may be read.
    func letsHeldSyncGo(_ operation: StrataModel.Operation, in context: ContextID) -> Bool {
        switch operation {
        case .syncAsyncGroup(let id, _), .beginWrite(let id), .invalidate(let id), .close(let id),
            .writeBlock(let id, _, _, _, _):
            guard lock.withLock({ _ in asyncRealms[context]?.contains(id) == true }),
                let state = try? required(id)._asyncWriteState
            else { return false }
            return state.isSyncing
        default:
            return false
        }
    }

    /// Before a step of `context`: lets the held group sync go if the step needs it.
    func releaseHeldSyncIfNeeded(for step: Step) {
        let released = letsHeldSyncGo(step.operation, in: step.context) && groupSyncGate.release()
        lock.withLock { _ in
            if released { lastReleased.insert(step.context) } else { lastReleased.remove(step.context) }
        }
    }

    /// Whether the last step of `context` let a held group sync go.
    func releasedHeldSync(in context: ContextID) -> Bool {
        lock.withLock { _ in lastReleased.contains(context) }
    }

    /// Lets the queue of `context` run every turn its realms' async work wants, waiting for a
    /// group sync under way to end or to be held. A problem (a sync that never ends, work that
    /// never runs) is returned for the runner to report.
    func drainAsync(on queue: DispatchQueue, context: ContextID) -> String? {
        let ids = lock.withLock { _ in asyncRealms[context] ?? [] }
        guard !ids.isEmpty else { return nil }
        let sorted = ids.sorted()
        var endedBefore = groupSyncGate.endedCount
        for _ in 0..<Self.asyncTurnsMax {
            queue.sync {}
            // Looked up in the block each time: a realm the caller let go of lives while its
            // context holds it for its work (Spec A21), and the last reference to it must not
            // end on this thread outside its queue.
            let states: [AsyncWriteState] = queue.sync {
                sorted.compactMap { try? self.heldOrReleased($0)?._asyncWriteState }
            }
            if states.contains(where: { $0.isSyncing }) {
                if groupSyncGate.isHolding { return nil }
                guard groupSyncGate.awaitHeldOrEnded(after: endedBefore, seconds: Self.groupSyncSecondsMax) else {
                    return "a group sync neither reached its hold nor ended within \(Self.groupSyncSecondsMax) s"
                }
                endedBefore = groupSyncGate.endedCount
                continue
            }
            if !states.contains(where: { $0.wantsTurn }) { return nil }
        }
        return "async work still wanted turns after \(Self.asyncTurnsMax) turns of its queue"
    }

    /// Lets a held sync go and waits for it to end (a crash or the end of the run: the old
    /// boot's file is left behind, and no dispatch thread may stay blocked).
    func releaseHeldSyncs() {
        groupSyncGate.setHolding(false)
        _ = groupSyncGate.awaitIdle(seconds: Self.groupSyncSecondsMax)
    }
}
