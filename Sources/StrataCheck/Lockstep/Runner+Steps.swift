import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// One scheduling step of a lockstep run: a thread advanced to its next yield point, the
/// switch decisions inside the engine, and the write lock handed to the thread waiting for it.
extension Runner {
    // MARK: one scheduling step

    func advance(_ thread: Int) {
        if let step = inFlight[thread] {
            inFlight[thread] = nil
            let report = threads.resume(thread)
            settle(thread, step: step, report: report)
            return
        }
        let step: Step
        if let waiting = pending[thread] {
            step = waiting
            pending[thread] = nil
        } else {
            var operation = generator.next(for: context(thread), model: model, stream: &stream)
            if case .crashMachine = operation, !mayLosePowerBetweenCommits {
                operation = .refresh(Generator.liveRealm(of: context(thread), in: model) ?? RealmID(0))
            }
            // Dropping the harness's accessor is no engine operation; while another thread is
            // inside an operation it may be using that accessor, and the model would lose it
            // before that operation's step.
            if case .releaseHandle = operation, !inFlight.isEmpty {
                operation = .refresh(Generator.liveRealm(of: context(thread), in: model) ?? RealmID(0))
            }
            // Open finding (`Docs/harness-findings.md`): Strata checks a token before a delivery's work and calls
            // back after it, so an invalidate() returning meanwhile on another thread does not
            // stop that callback (Spec N2, C13). Not while the observer's context is inside an
            // operation, until that is settled.
            if case .invalidateToken(let id) = operation, let owner = model.observers[id]?.deliveryContext,
                owner != context(thread), inFlight[owner.rawValue - 1] != nil
            {
                operation = .refresh(Generator.liveRealm(of: context(thread), in: model) ?? RealmID(0))
            }
            if swarm.writesAsync { operation = asyncSubstitute(operation, in: context(thread)) }
            step = Step(context(thread), operation)
            generatedDraws[thread] = stepFirstDraw..<stream.drawCount
        }
        if isBlocked(step) {
            pending[thread] = step
            return
        }
        switch step.operation {
        case .crashMachine:
            crashBetweenCommits(step, thread: thread)
            return
        case .syncAsyncGroup(let realm, _) where settings.mode == .crash && disk != nil:
            checkDurableImage(before: step)
            guard failure == nil else { return }
            if stream.chance(25) {
                syncGroupWithCrash(step, realm: realm, thread: thread)
                return
            }
        case .syncAsyncGroup where disk != nil:
            checkDurableImage(before: step)
            guard failure == nil else { return }
        case .commitWrite(let realm, let skipped, _)
        where settings.mode == .crash && disk != nil
            && !Self.hasAsyncWork(model):
            if case .success = preview(step).outcome.result {
                if stream.chance(12) {
                    commitWithCrash(step, realm: realm, skipped: skipped, thread: thread)
                    return
                }
                if stream.chance(8) {
                    commitWithFault(step, realm: realm, skipped: skipped, thread: thread)
                    return
                }
            }
        default:
            break
        }
        let engine = self.engine
        if runsInline(step.operation, thread: thread) {
            statistics.inlineOperations += 1
            complete(thread, step: step, observed: threads.runInline(thread) { engine.perform(step) })
            return
        }
        let box = ObservationBox()
        running[thread] = step
        let report = threads.start(thread) { box.set(engine.perform(step)) }
        settle(thread, step: step, report: report, box: box)
    }

    /// Whether an operation can run on the driver as its thread: no thread is parked inside the
    /// engine (whatever it holds, the operation could block on), the model says it does not
    /// wait for the write lock (a waiter is let go on its own thread), and the schedule cannot
    /// leave it at a switch point. A thread waiting for the write lock holds nothing.
    func runsInline(_ operation: StrataModel.Operation, thread: Int) -> Bool {
        guard inFlight.isEmpty else { return false }
        // Spec C11: whether a thread may observe is asked of the thread itself (is it the main
        // thread, inside its run loop?), which the driver cannot impersonate.
        switch operation {
        case .observeCollection, .observeObject: return false
        // Spec A12 likewise (generation 5 tries async writes on threads): whether a turn will
        // come to run the block is asked of the thread, and the driver is the main thread.
        case .writeAsync where !queueContexts.contains(context(thread)),
            .beginAsyncWrite where !queueContexts.contains(context(thread)):
            return false
        default: break
        }
        let others = (0..<settings.threads).filter { $0 != thread && isRunnable($0) }
        guard scheduler.mayPreempt(thread, others: others) else { return true }
        switch operation {
        case .commitWrite, .writeBlock:
            return false
        default:
            // Any operation may pin or unpin, but few are worth the hand-offs of a thread: the
            // random scheduler gives one in eight the chance to be left at a pin or unpin.
            return !scheduler.mayPreemptAtPins(stream: &stream)
        }
    }

    /// Handles a thread's report: finished (compare with the model), parked (maybe switch),
    /// or hung (a deadlock).
    func settle(_ thread: Int, step: Step, report: ControlledThreads.Report, box: ObservationBox? = nil) {
        if let box { boxes[thread] = box }
        switch report {
        case .finished:
            complete(thread, step: step, observed: boxes.removeValue(forKey: thread)?.get() ?? .done)
        case .parked:
            // The thread parked because `switchesAway` said another thread runs now.
            inFlight[thread] = step
        case .hung:
            fail(.deadlock, "\(context(thread)) hung in \(step.operation) (\(describeThreads()))")
        }
    }

    /// Asked by `thread`, parked at a switch point inside the engine, while the driver waits
    /// for it: whether another runnable thread runs now.
    ///
    /// The model takes a step when its operation returns, which is right as long as nothing
    /// runs between the operation's linearization point and its return. A switch after that
    /// point lets the model take the step first (`linearizeEarly`), so that the threads that
    /// run meanwhile meet the model in the state the engine is in. Before that point a switch
    /// needs nothing: what runs meanwhile is ordered before the operation in both.
    ///
    /// The write-lock points are not switch points of a thread the model let run (it does not
    /// wait), but they mark its progress: `beginWrite` is linearized once it holds the lock,
    /// and whatever lets the lock go is once it did. A commit after `publish` is never left:
    /// it holds the lock while it moves its read to the new version, where the model's commit
    /// has let the lock go.
    func switchesAway(from thread: Int, at point: YieldPoint) -> Bool {
        guard let step = running[thread] else { return false }
        // Only operations whose inputs no other thread can change (their realm is confined, or
        // their accessor is not dropped meanwhile) are left at pins: a switch before the
        // linearization point then orders what runs meanwhile before them, in both.
        // Nor in a run with an active-version limit: a thread between its new pin and its old
        // one's unpin holds both, and a write beginning meanwhile counts both (Spec L1, L2),
        // where the model, stepped at the pin, holds one.
        switch point {
        case .pinNewest, .pin, .unpin:
            if !Self.mayStepEarly(step.operation) || swarm.activeVersionLimit != nil { return false }
        default: break
        }
        var passed = progress[thread] ?? OperationProgress()
        let lockEvent: Bool
        switch point {
        case .writeLockWait, .writeLockBlocks:
            // (`writeLockBlocks` reaches no decision: only a thread let go to wait stops there.)
            lockEvent = true
        case .writeLockAcquired:
            lockEvent = true
            if case .beginWrite = step.operation { passed.linearized = true }
        case .writeLockReleased:
            lockEvent = true
            passed.linearized = true
        case .pinNewest:
            lockEvent = false
            passed.linearized = true
        case .publish:
            lockEvent = false
            passed.published = true
        case .pin where Self.isRefresh(step.operation), .unpin where Self.isRefresh(step.operation):
            // `refresh()` has decided whether it moves before it reaches any switch point: a move
            // pins the newest version first (`pinNewest`), and a refresh that found nothing newer
            // reaches pins only as it delivers pending notifications (Spec V4, N12). What runs
            // meanwhile comes after the step, in the model too.
            lockEvent = false
            passed.linearized = true
        case .unpin where Self.isInvalidate(step.operation):
            // `invalidate()` has taken effect when it lets its read go: a frozen realm is marked
            // invalidated first (Spec F6), and every thread sharing that instance sees it from
            // then on, so what runs meanwhile comes after the step, in the model too.
            lockEvent = false
            passed.linearized = true
        case .pin, .unpin, .pageWrite, .phaseOneSync, .slotWrite, .phaseTwoSync, .groupSyncBegins, .groupSyncEnds:
            lockEvent = false
        }
        progress[thread] = passed
        if lockEvent { return false }
        if passed.published && point != .publish { return false }
        let linearized = passed.linearized
        if linearized && early[thread] == nil && !Self.mayStepEarly(step.operation) { return false }
        let others = (0..<settings.threads).filter { $0 != thread && isRunnable($0) }
        let switches = scheduler.switchesAway(from: thread, others: others, stream: &stream)
        switch point {
        case .pinNewest, .pin, .unpin: if switches { statistics.pinSwitches += 1 }
        default: break
        }
        if switches && linearized && early[thread] == nil {
            linearizeEarly(thread, step: step, at: point)
        }
        return switches
    }

    static func isRefresh(_ operation: StrataModel.Operation) -> Bool {
        if case .refresh = operation { return true }
        return false
    }

    static func isInvalidate(_ operation: StrataModel.Operation) -> Bool {
        if case .invalidate = operation { return true }
        return false
    }

    /// Whether the model may take `operation`'s step before it returns: the engine side's
    /// tables do not change when it returns. An operation that names a new realm, accessor or
    /// reference, or drops one, may not: the model would show other threads an identifier the
    /// engine side does not have yet, or hide one it still has.
    static func mayStepEarly(_ operation: StrataModel.Operation) -> Bool {
        switch operation {
        case .refresh, .invalidate, .beginWrite, .commitWrite, .cancelWrite, .read, .aggregate, .sectioned,
            .isInvalidated,
            .setValue, .delete, .deleteAll, .append, .removeFromList:
            return true
        default:
            return false
        }
    }

    /// The model takes `step` of `thread`, still running in the engine, now; `complete`
    /// compares the observation with what it expected once the operation returns.
    func linearizeEarly(_ thread: Int, step: Step, at point: YieldPoint) {
        let (next, outcome) = preview(step)
        previews[step.context] = nil
        var expected = Observation(model: outcome)
        mutate(&expected, step: step)
        early[thread] = (model, expected, point, trace.count, outcome.events)
        model = next
        statistics.earlySteps += 1
    }

    // MARK: the write lock

    /// When the lock holder let go, the thread waiting in the engine must be the next to get
    /// the lock: complete its `beginWrite` before anything else runs.
    func wakeLockWaiter() -> Bool {
        guard let waiter = lockWaiter else { return false }
        if isBlocked(waiter.step) {
            if threads.hasAcquiredLock(waiter.thread) {
                fail(
                    .divergence,
                    "\(context(waiter.thread)) took the write lock while another realm holds it (\(waiter.step))")
            }
            return false
        }
        lockWaiter = nil
        let report = threads.awaitLockAcquired(waiter.thread)
        guard report == .parked(.writeLockAcquired) else {
            fail(.deadlock, "\(context(waiter.thread)) was not woken when the write lock was released (\(report))")
            return true
        }
        // It holds the lock: past its linearization point, as `switchesAway` marks a beginWrite
        // that did not wait (a waiter parks there without asking). Left at a later switch point
        // (the pins of the observers it delivers to, Spec N17), its step is taken then.
        progress[waiter.thread, default: OperationProgress()].linearized = true
        settle(waiter.thread, step: waiter.step, report: threads.resume(waiter.thread))
        return true
    }

    /// Lets one thread whose `beginWrite` the model says must wait really wait in the engine.
    func dispatchBlockedWaiter() {
        guard lockWaiter == nil else { return }
        for thread in 0..<settings.threads {
            guard let step = pending[thread], isBlocked(step), case .beginWrite = step.operation else { continue }
            pending[thread] = nil
            let box = ObservationBox()
            boxes[thread] = box
            let engine = self.engine
            running[thread] = step
            handedOff[thread] = trace.count
            let report = threads.startBlocking(thread) { box.set(engine.perform(step)) }
            guard report == .parked(.writeLockWait) else {
                if report == .finished {
                    complete(thread, step: step, observed: boxes.removeValue(forKey: thread)?.get() ?? .done)
                } else if report == .parked(.writeLockAcquired) {
                    fail(.divergence, "\(context(thread)) took the write lock while another realm holds it (\(step))")
                } else {
                    fail(.deadlock, "\(context(thread)) did not reach the write lock (\(report))")
                }
                return
            }
            lockWaiter = (thread, step)
            return
        }
    }
}
