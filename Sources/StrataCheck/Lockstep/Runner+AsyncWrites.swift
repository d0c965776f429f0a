import Foundation
import Strata
import StrataModel
import StrataSimulation
import StrataStorage

// Async writes in lockstep runs (generation 4). A queue context's step drains its realms' async
// work on the engine side (`EngineSide.drainAsync`): the turns the step left on its queue run in
// it, and a group sync that begins is held until a step lets it go. The model takes the same
// turns here, as the harness's steps in the trace (`turnLoop`, and `syncAsyncGroup` when the step
// let a held sync go without making the group durable itself). Then:
// - the blocks that started, the commits the harness made and the completions that ran, in
//   order, must be the model's (Spec A1, A2 FIFO, A3, A4 cancellation, A9 completion order,
//   A10 once each), each completion with the model's error;
// - each completion that reports success must find its commit durable as it runs (D11: the
//   engine's durable version at least the commit's);
// - results and versions of every step (isPerformingAsynchronousWriteOperations, A17; reads of
//   any context seeing each commit at once, A6) go through the ordinary lockstep comparison.
// Power losses between steps may find a group published and not yet durable (its sync held):
// recovery must find the version before the group (D10), which `checkRecoveredContents`
// compares with the model's durable version; `syncGroupWithCrash` takes crash images inside a
// group's sync.
extension Runner {
    /// Whether a realm of the model has async work (blocks queued, commits not yet durable,
    /// completions owed).
    static func hasAsyncWork(_ model: ModelState) -> Bool {
        model.realms.values.contains { $0.hasAsyncWork }
    }

    /// Keeps a generated operation from racing the engine's own async turns, which take the
    /// write lock on the queue's thread where no schedule orders them:
    /// - while a realm's blocks wait for its synchronous write, no other context begins a write
    ///   (both would take the lock the moment the write ends);
    /// - a step that lets a held group sync go, or queues blocks that run at once, runs only when
    ///   no thread is inside the engine or waiting for the lock and no other realm holds it (the
    ///   sync and the blocks take the lock, and the step waits for them);
    /// - before generation 5, a realm with async work is not released; from generation 5 on it
    ///   is, and its context keeps it until the work is done (Spec A21, C1): its blocks and
    ///   completions still run in the context's steps (`EngineSide.asyncRealm` finds it).
    func asyncSubstitute(_ operation: StrataModel.Operation, in context: ContextID) -> StrataModel.Operation {
        let fallback = StrataModel.Operation.refresh(Generator.liveRealm(of: context, in: model) ?? RealmID(0))
        let quiet = inFlight.isEmpty && lockWaiter == nil
        let waiting = model.realms.contains { id, realm in
            realm.owner != context && !realm.asyncQueue.isEmpty && realm.write != nil && id.rawValue > 0
        }
        switch operation {
        case .beginWrite(let id), .invalidate(let id):
            if waiting { return fallback }
            if let realm = model.realms[id], realm.owner == context, realm.hasAsyncWork,
                !quiet || !Generator.lockIsFree(for: id, in: model)
            {
                return fallback
            }
            return operation
        case .writeBlock(let id, _, _, _, _):
            if waiting { return fallback }
            if model.realms[id]?.hasAsyncWork == true { return fallback }
            return operation
        case .writeAsync, .beginAsyncWrite, .syncAsyncGroup, .commitAsyncWrite:
            return quiet ? operation : fallback
        case .release where swarm.generation >= 5:
            return operation
        case .release(let id), .close(let id):
            return model.realms[id]?.hasAsyncWork == true ? fallback : operation
        default:
            return operation
        }
    }

    /// After a queue context's step: the model takes the turns the engine's queue ran, and the
    /// async events of both are compared.
    func asyncTurned(after step: Step, thread: Int) {
        guard swarm.writesAsync, queueContexts.contains(step.context) else { return }
        if let problem = engine.takeAsyncProblem() {
            fail(.deadlock, "\(StepText.describe(step)): \(problem)")
            return
        }
        var expected = modelEvents
        if case .writeAsync(_, _, let id) = step.operation { writeAsyncIDs.insert(id) }
        let owned = model.realms.keys.sorted().filter { id in
            guard let realm = model.realms[id] else { return false }
            return realm.owner == step.context && realm.viaQueue && !realm.isClosed
        }
        // The step let a held sync go without making the group durable itself (a `beginWrite`
        // refused before it flushes, say): the background sync ran meanwhile.
        if engine.releasedHeldSync(in: step.context),
            let realm = owned.first(where: { model.realms[$0]?.asyncGroups.first?.isEnded == true })
        {
            guard
                let events = harnessStep(
                    Step(step.context, .syncAsyncGroup(realm, fails: false)), thread: thread,
                    note: "harness: the held group sync ran during the step")
            else { return }
            expected += events
        }
        for _ in 0..<EngineSide.asyncTurnsMax {
            guard owned.contains(where: { wantsTurn($0) }) else { break }
            guard
                let events = harnessStep(
                    Step(step.context, .turnLoop), thread: thread,
                    note: "harness: the queue ran the async turn the step left")
            else { return }
            expected += events
        }
        // The engine's events of this context's realms (closed ones too: a close runs their
        // completions); another context's stay for its own step.
        let mine = Set(model.realms.keys.filter { model.realms[$0]?.owner == step.context })
        if swarm.generation >= 5, case .invalidate = step.operation {
            checkCompletionsInside(
                step, model: modelEvents,
                engine: engine.asyncLog.eventsInsideOperation(of: mine, context: step.context))
            guard failure == nil else { return }
        }
        compareAsyncEvents(after: step, model: expected, engine: engine.asyncLog.take(of: mine))
    }

    /// Generation 5, Spec A13: the completions of the commits `invalidate()` made durable run
    /// before it returns, not on a later turn of the queue (which the step's drain would run,
    /// so the events of the whole step look the same either way).
    private func checkCompletionsInside(_ step: Step, model events: [Event], engine observed: [EngineAsyncEvent]) {
        let expected = events.compactMap { event -> String? in
            guard case .asyncCompleted(let id, _) = event else { return nil }
            return "\(id)"
        }
        let actual = observed.compactMap { event -> String? in
            guard case .completed(let id, _, _) = event else { return nil }
            return "\(id)"
        }
        if expected != actual {
            fail(
                .divergence,
                "completions run inside \(StepText.describe(step)): model [\(expected.joined(separator: ", "))], "
                    + "engine [\(actual.joined(separator: ", "))] (Spec A13: they run before invalidate() returns)")
        }
    }

    /// Whether the model's loop turn has async work for `realm`: completions owed, or a block
    /// that can begin (Spec A7: not inside a write; A9: not before an ended group is durable;
    /// W1: the lock free).
    private func wantsTurn(_ id: RealmID) -> Bool {
        guard let realm = model.realms[id] else { return false }
        if !realm.completionsOwed.isEmpty { return true }
        guard realm.write == nil, !realm.asyncQueue.isEmpty, !realm.asyncGroups.contains(where: \.isEnded) else {
            return false
        }
        return Generator.lockIsFree(for: id, in: model)
    }

    /// Takes a harness step in the model (the engine took it inside the step before); its
    /// events, or nil if the model refused it (the run fails).
    func harnessStep(_ step: Step, thread: Int, note: String) -> [Event]? {
        let (next, outcome) = model.step(step)
        model = next
        let expected = Observation(model: outcome)
        trace.append(
            TraceEntry(
                index: trace.count, thread: thread, step: step, expected: expected, observed: .done,
                engineVersion: nil, note: note, draws: nil))
        guard expected.accepts(.done) else {
            fail(.divergence, "\(StepText.describe(step)): model \(expected), engine done")
            return nil
        }
        return outcome.events
    }

    /// Spec A1 to A4, A9, A10, A14, D11: the same blocks, commits and completions in the same
    /// order; each successful completion finds its commit durable.
    private func compareAsyncEvents(after step: Step, model events: [Event], engine observed: [EngineAsyncEvent]) {
        // Before any step fixed the engine's version offset, commits compare without versions.
        let offset = versionOffset
        func versioned(_ version: Int64?) -> String {
            guard offset != nil else { return "" }
            return " at engine v\(version.map(String.init) ?? "?")"
        }
        var expected: [String] = []
        for event in events {
            switch event {
            case .asyncBlockStarted(let id):
                expected.append("started \(id)")
                statistics.asyncBlocks += 1
            case .asyncCommitted(let id, let version):
                asyncCommitVersions[id] = version
                if !writeAsyncIDs.contains(id) {
                    expected.append("committed \(id)\(versioned(Int64(version.rawValue) + (offset ?? 0)))")
                }
            case .asyncCompleted(let id, let error):
                expected.append("completed \(id)\(error.map { " with error \($0.code.rawValue)" } ?? "")")
            default: break
            }
        }
        let actual = observed.map { event -> String in
            guard case .committed(let id, let version) = event else { return event.description }
            return "committed \(id)\(versioned(version.map { Int64($0) }))"
        }
        guard expected == actual else {
            fail(
                .divergence,
                "async writes during \(StepText.describe(step)): model [\(expected.joined(separator: ", "))], "
                    + "engine [\(actual.joined(separator: ", "))] (Spec A2, A4, A9, A10)")
            return
        }
        for event in observed {
            guard case .completed(let id, nil, let durable) = event, let version = asyncCommitVersions[id] else {
                continue
            }
            statistics.checkedCompletions += 1
            guard let offset else { continue }
            let committed = Int64(version.rawValue) + offset
            guard let durable, Int64(durable) >= committed else {
                fail(
                    .divergence,
                    "the completion of \(id) ran while its commit (engine v\(committed)) was not durable "
                        + "(durable v\(durable.map(String.init) ?? "?")) (Spec D11)")
                return
            }
        }
    }

    /// Lets a held group sync go with a crash captured at a drawn point of it: every crash image
    /// of that point must recover, verify clean and hold the version before the group or (only
    /// when its slot survived) the group's last version, never one in its middle (Spec D10, D2,
    /// D3). The run goes on from one image; the model takes the sync only if its slot survived.
    func syncGroupWithCrash(_ step: Step, realm: RealmID, thread: Int) {
        guard let disk else { return }
        let point: CapturePoint = [.phaseOneSync, .slotWrite, .phaseTwoSync][stream.draw(3)]
        guard let before = durableDigest(of: disk, when: "before the group sync"),
            let (newestVersion, newestDigest) = digest(of: disk, when: "before the group sync")
        else { return }
        hooks.arm(point, disk: disk)
        let (report, observed) = runToEnd(step, thread: thread)
        let captured = hooks.disarm()
        guard report == .finished else {
            fail(.deadlock, "\(context(thread)) hung letting the group sync go (\(report))")
            return
        }
        guard case .done = observed, let state = captured else {
            complete(thread, step: step, observed: observed)  // no sync, or it never got there
            return
        }
        _ = newestVersion
        let campaign = CrashCampaign(
            state: state, point: point, pageSizeBytes: 4096,
            hooks: EngineHooks(bugs: settings.engineBugs.engine))
        let images = campaign.images(stream: &stream)
        for (number, image) in images.enumerated() {
            statistics.crashImages += 1
            statistics.groupCrashImages += 1
            if let problem = campaign.check(
                image, name: "\(runName)-group\(number)", oldDigest: before,
                newDigest: newestDigest)
            {
                fail(.crashImage, "inside the group sync of \(realm): \(problem) (Spec D10)", at: trace.count)
                return
            }
        }
        let chosen = images[stream.draw(images.count)]
        let survives = campaign.slotSurvives(chosen)
        guard boot(onto: chosen, of: campaign, probe: "a group sync") else { return }
        if survives {
            guard harnessStep(step, thread: thread, note: "the group sync's slot survived the crash") != nil else {
                return
            }
        }
        _ = harnessStep(
            Step(step.context, .crashMachine(keepUnsyncedSlots: false)), thread: thread,
            note: "crash \(point) of the group sync, image \(chosen)")
        checkRecoveredContents()
    }

    /// Spec D10, in every mode: before a held group sync is let go, the version a power loss now
    /// recovers (the one before the group: its commits wrote pages but no slot) must open and
    /// verify clean with every unsynced write applied: the group's commits may not have
    /// overwritten a page of it. (With every write lost the image hides such an overwrite;
    /// crash mode also checks subsets, through its power losses and crash images.)
    func checkDurableImage(before step: Step) {
        guard let disk else { return }
        statistics.durableImageChecks += 1
        do {
            let image = try SimStore(
                state: disk.captureState(), name: "\(runName)-durable-check\(boot)",
                reservationBytes: 256 << 20)
            try image.crash(.allApplied(count: image.pendingWrites.count))
            let store = try Store.open(.simulated(image), options: StoreOptions(create: false, hooks: EngineHooks()))
            defer { store.close() }
            let report = try store.verify()
            guard report.problems.isEmpty else {
                fail(
                    .crashImage,
                    "the durable version before \(StepText.describe(step)) does not verify: "
                        + "\(report.problems.map(\.description).joined(separator: "; ")) (Spec D10)", at: trace.count)
                return
            }
        } catch {
            fail(
                .crashImage, "the durable version before \(StepText.describe(step)) does not open: \(error) (Spec D10)",
                at: trace.count)
        }
    }

    /// The digest of what a power loss now would recover: `disk` with every unsynced write lost.
    private func durableDigest(of disk: SimStore, when moment: String) -> UInt64? {
        do {
            let image = try SimStore(
                state: disk.captureState(), name: "\(runName)-durable\(boot)",
                reservationBytes: 256 << 20)
            try image.crash(.allLost)
            return digest(of: image, when: moment)?.1
        } catch {
            fail(.crashImage, "cannot build the durable image \(moment): \(error)")
            return nil
        }
    }
}
