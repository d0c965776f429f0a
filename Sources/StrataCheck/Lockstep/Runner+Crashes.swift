import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataSimulation
import StrataStorage

/// Crashes and injected faults inside commits and between them, and the recovery checks after
/// each reboot.
extension Runner {
    // MARK: crashes

    /// Commits with a crash at a point drawn from the stream: every crash image of that point
    /// is recovered and checked, then the run goes on from one of them.
    func commitWithCrash(_ step: Step, realm: RealmID, skipped: [ObserverID], thread: Int) {
        guard let disk else { return }
        let point = CapturePoint.draw(&stream)
        guard let (oldVersion, oldDigest) = digest(of: disk, when: "before the commit") else { return }
        hooks.arm(point, disk: disk)
        let (finalReport, observed) = runToEnd(step, thread: thread)
        guard finalReport == .finished else {
            fail(.deadlock, "\(context(thread)) hung committing (\(finalReport))")
            return
        }
        let captured = hooks.disarm()
        guard case .done = observed, let state = captured else {
            // The engine refused the commit: compare as an ordinary step.
            complete(thread, step: step, observed: observed)
            return
        }
        guard let (_, newDigest) = digest(of: disk, when: "after the commit") else { return }
        let campaign = CrashCampaign(
            state: state, point: point, pageSizeBytes: 4096,
            hooks: EngineHooks(bugs: settings.engineBugs.engine))
        let images = campaign.images(stream: &stream)
        for (number, image) in images.enumerated() {
            statistics.crashImages += 1
            if let problem = campaign.check(
                image, name: "\(runName)-image\(number)", oldDigest: oldDigest, newDigest: newDigest)
            {
                recordFailedCrash(step, thread: thread, campaign: campaign, image: image)
                fail(.crashImage, problem, at: trace.count)
                return
            }
        }
        // One image in eight, damaged at rest as well.
        for (number, image) in images.enumerated() where stream.chance(12) {
            statistics.damagedImages += 1
            let damage = CrashCampaign.drawDamage(
                &stream, fileBytes: state.durableByteCount,
                // Data pages only: a lost slot write is D4's fallback.
                olderCopyOffsets: state.olderCopyOffsets.filter { $0 >= campaign.pageSizeBytes })
            if let problem = campaign.checkDamaged(
                image, damage: damage, name: "\(runName)-damaged\(number)",
                oldVersion: oldVersion, oldDigest: oldDigest, newDigest: newDigest)
            {
                fail(.crashImage, problem, at: trace.count)
                return
            }
        }
        let chosen = images[stream.draw(images.count)]
        let window = campaign.window(for: chosen)
        settleAllThreads()
        let crashStep = Step(step.context, .commitWrite(realm, withoutNotifying: skipped, fate: .machineCrash(window)))
        guard boot(onto: chosen, of: campaign, probe: point.probeName) else { return }
        let facts = ScriptFacts(capture: point, crash: RecordedCrash(pending: state.pendingWrites, plan: chosen.plan))
        complete(
            thread, step: crashStep, observed: .done, note: "crash \(point), image \(chosen), window \(window)",
            facts: facts)
        checkRecoveredContents()
    }

    /// Reboots the run onto the crash image `chosen` and counts the crash (with the probe of
    /// where it landed); false, with the run failed, if the image cannot be built.
    func boot(onto chosen: CrashImage, of campaign: CrashCampaign, probe: String) -> Bool {
        do {
            boot += 1
            let next = try campaign.disk(for: chosen, name: "\(runName)-boot\(boot)")
            reboot(onto: next)
        } catch {
            fail(.crashImage, "cannot build the crash image: \(error)")
            return false
        }
        statistics.crashes += 1
        probeCounter.mark(ProbeCoverage.crash(probe))
        return true
    }

    /// Keeps, for the generated test, the commit whose crash `image` failed its check, with
    /// what recovery had to find: the new version when the image keeps its slot, else the old.
    func recordFailedCrash(_ step: Step, thread: Int, campaign: CrashCampaign, image: CrashImage) {
        guard case .commitWrite(let realm, let skipped, _) = step.operation else { return }
        let survives = campaign.slotSurvives(image)
        var facts = ScriptFacts(
            capture: campaign.point,
            crash: RecordedCrash(pending: campaign.state.pendingWrites, plan: image.plan))
        facts.recovered = survives ? preview(step).next.newestContents : model.newestContents
        let crashStep = Step(
            step.context,
            .commitWrite(
                realm, withoutNotifying: skipped,
                fate: .machineCrash(campaign.window(for: image))))
        failedCrash = TraceEntry(
            index: trace.count, thread: thread, step: crashStep, expected: .done, observed: .done,
            engineVersion: nil, note: "crash image \(image) failed its check", draws: nil,
            facts: facts)
    }

    /// Commits with an I/O error injected at a site drawn from the stream. When it strikes,
    /// the commit must fail as the model says (Spec W17) and the file is poisoned (Spec D6):
    /// the threads run on against the poisoned file for a few drawn steps (every operation
    /// through its live realms must fail as the model says), then the machine loses power,
    /// and recovery must find the version before the commit (D7).
    func commitWithFault(_ step: Step, realm: RealmID, skipped: [ObserverID], thread: Int) {
        let planned = InjectedCommitFault.draw(&stream)
        hooks.armFault(planned)
        let (report, observed) = runToEnd(step, thread: thread)
        let fired = hooks.disarmFault()
        guard report == .finished else {
            fail(.deadlock, "\(context(thread)) hung committing with \(planned) (\(report))")
            return
        }
        guard let site = fired else {
            complete(thread, step: step, observed: observed)  // no such site in this commit
            return
        }
        statistics.injectedFaults += 1
        let failing = Step(
            step.context, .commitWrite(realm, withoutNotifying: skipped, fate: .failure(planned.failure)))
        complete(
            thread, step: failing, observed: observed, note: "\(planned) (\(site))",
            facts: ScriptFacts(fault: planned))
        guard failure == nil else { return }
        // Zero (the shrinker's way) loses power at once.
        let poisonedSteps = [0, 3, 8, 20][stream.draw(4)]
        if poisonedSteps == 0 {
            crashBetweenCommits(Step(step.context, .crashMachine(keepUnsyncedSlots: false)), thread: thread)
        } else {
            crashAfterPoisoning = (statistics.schedulingSteps + poisonedSteps, thread)
        }
    }

    /// Loses power once the steps run against a poisoned file are over, and once no thread is
    /// inside the engine: during the poisoned steps a realm reopened after every handle closed
    /// gets a sound file (Spec D7), and a commit of it left at a switch point would be finished
    /// by `settleAllThreads`, durable, where the model has the crash discard it.
    func crashIfPoisoningIsOver() -> Bool {
        guard let due = crashAfterPoisoning, statistics.schedulingSteps >= due.step else { return false }
        guard mayLosePowerBetweenCommits else { return false }
        crashAfterPoisoning = nil
        crashBetweenCommits(Step(context(due.thread), .crashMachine(keepUnsyncedSlots: false)), thread: due.thread)
        return true
    }

    /// Runs `step` on `thread` to its end without switching (a crash or fault follows, so no
    /// interleaving is drawn): inline when no thread is parked inside the engine.
    func runToEnd(_ step: Step, thread: Int) -> (ControlledThreads.Report, Observation) {
        let engine = self.engine
        if inFlight.isEmpty {
            return (.finished, threads.runInline(thread) { engine.perform(step) })
        }
        let box = ObservationBox()
        let report = threads.start(thread, runsFree: true) { box.set(engine.perform(step)) }
        return (report, box.get())
    }

    /// Whether a power loss between commits may happen now: no thread is inside the engine or
    /// waiting for the write lock. `crashBetweenCommits` lets such threads finish first (it
    /// cannot stop a real thread), and a commit finished so would be durable on the disk the
    /// crash keeps while the model, whose step for it never comes, loses it.
    var mayLosePowerBetweenCommits: Bool { inFlight.isEmpty && lockWaiter == nil }

    /// A power loss between commits: nothing is pending, so the disk reboots as it is.
    ///
    /// Callers make sure no commit can be in flight (`mayLosePowerBetweenCommits`), except
    /// `commitWithFault` losing power at once: its writer held the write lock until its commit
    /// failed and poisoned the file, so no other commit can be under way.
    func crashBetweenCommits(_ step: Step, thread: Int) {
        guard let disk else {
            complete(thread, step: step, observed: .failure(code: "harness", message: "crash needs the simulated disk"))
            return
        }
        settleAllThreads()
        if model.realms.values.contains(where: { !$0.asyncGroups.isEmpty }) { statistics.pendingGroupPowerLosses += 1 }
        do {
            boot += 1
            let next = try SimStore(
                state: disk.captureState(), name: "\(runName)-boot\(boot)", reservationBytes: 256 << 20)
            try next.crash(.allLost)
            reboot(onto: next)
        } catch {
            fail(.crashImage, "cannot reboot the disk: \(error)")
            return
        }
        statistics.crashes += 1
        complete(thread, step: step, observed: .done)
        checkRecoveredContents()
    }

    /// Ends what the threads run so that nothing is left waiting in the engine: threads parked
    /// inside a commit finish it, the holder of the write lock cancels its write, and the thread
    /// waiting for the lock gets it and returns. Their results are not compared: a crash or the
    /// end of the run discards them.
    func settleAllThreads() {
        pending = Array(repeating: nil, count: settings.threads)
        running = [:]
        progress = [:]
        early = [:]
        handedOff = [:]
        // A thread run to the end of its operation may block in the engine, on the write lock a
        // holder keeps (its report is then "hung"): it is waited for once the holder is gone.
        var blocked: [Int] = []
        for thread in inFlight.keys.sorted() where threads.resume(thread, runsFree: true) == .hung {
            blocked.append(thread)
        }
        inFlight = [:]
        let waiter = lockWaiter
        lockWaiter = nil
        if let waiter { boxes[waiter.thread] = nil }
        guard waiter != nil || !blocked.isEmpty else { return }
        if let holder = model.files.values.compactMap(\.writer).first,
            let owner = model.realms[holder]?.owner, owner.rawValue - 1 != waiter?.thread
        {
            let (engine, configuration) = (self.engine, self.configuration)
            if threads.isIdle(owner.rawValue - 1) {
                let ended = threads.start(owner.rawValue - 1, runsFree: true) {
                    // A holder the harness released while accessors kept its instance alive
                    // cannot be named any more: dropping every engine object ends that instance,
                    // and with it the write (Spec W7).
                    // Not waiting for a held group sync: it needs the write lock, which the
                    // waiter may take now and keep, parked, until this job has returned.
                    if case .failure = engine.perform(Step(owner, .cancelWrite(holder))) {
                        engine.reset(to: configuration, awaitingSyncs: false)
                    }
                }
                if ended == .hung { statistics.settleWaitsTimedOut += 1 }
            } else {
                // The holder's own thread is one of the blocked: drop every engine object from
                // here, which ends the holder's instance and its write (Spec W7).
                engine.reset(to: configuration, awaitingSyncs: false)
            }
        }
        for thread in blocked where threads.awaitRunning(thread) == .hung {
            fail(
                .deadlock,
                "thread \(thread), run to the end of its operation, stayed blocked in the engine after the write lock's holder was ended"
            )
        }
        guard let waiter else { return }
        switch threads.awaitLockAcquired(waiter.thread) {
        case .parked(.writeLockAcquired):
            _ = threads.resume(waiter.thread, runsFree: true)
        case .finished:
            break
        default:
            fail(
                .deadlock,
                "the write lock outlived its holder (Spec W8): \(waiter.step) never got it after the holder's write was cancelled and every engine object dropped"
            )
        }
    }

    func reboot(onto next: SimStore) {
        // A power loss due after the poisoned steps belongs to the boot whose file was
        // poisoned: a crash ends those steps early, and left armed it would strike the next
        // boot's sound file at a moment no rule chose (with a commit in flight, say).
        crashAfterPoisoning = nil
        disk = next
        // The next boot's disk, with the same hooks and (generation 8) the same indexes.
        configuration._engine = .init(
            simulatedStore: next, hooks: engineHooks,
            indexedProperties: configuration._engine?.indexedProperties ?? [:])
        engine.reset(to: configuration)
        deliveryOracle.reset()
        lastSeen = [:]
        lastCommitVersion = 0
    }

    /// After recovery the file must hold exactly the model's durable version (Spec D3, D9).
    func checkRecoveredContents() {
        guard failure == nil, let file = model.files[Runner.mainLocation], let expected = model.newestContents else {
            return
        }
        if !trace.isEmpty { trace[trace.count - 1].facts.recovered = expected }
        let configuration = self.configuration
        let box = ObservationBox()
        threads.runInline(0) {
            do throws(Realm.Error) {
                let realm = try Realm._open(configuration: configuration, queue: nil)
                box.set(.elements(try EngineSide.allReadings(in: realm)))
            } catch {
                box.set(.failure(code: error.modelCode, message: error.message))
            }
        }
        let observed = box.get()
        if observed != .elements(expected) {
            fail(
                .recovery,
                "after the crash the file holds \(observed); the model's durable \(file.newest) holds \(Observation.elements(expected))"
            )
        }
    }

    /// The newest version on `disk` and its digest; nil (and the run fails) if it cannot be read.
    func digest(of disk: SimStore, when moment: String) -> (StrataStorage.Version, UInt64)? {
        do {
            let store = try Store.open(.simulated(disk), options: StoreOptions(create: false, hooks: engineHooks))
            defer { store.close() }
            let read = try store.beginRead()
            return (read.version, try read.contentDigest())
        } catch {
            fail(.crashImage, "cannot read the disk \(moment): \(error)")
            return nil
        }
    }
}
