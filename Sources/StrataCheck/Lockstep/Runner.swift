import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataSimulation
import StrataStorage

/// One lockstep run: the model and the engine side by side under one choice stream.
///
/// This file holds the run's state and its loop; a scheduling step and the write lock are in
/// `Runner+Steps.swift`, a completed operation's checks in `Runner+Checks.swift`, crashes,
/// injected faults and recovery in `Runner+Crashes.swift`, async writes in
/// `Runner+AsyncWrites.swift`.
public final class Runner: @unchecked Sendable {
    let settings: CheckSettings
    var stream: ChoiceStream
    var model = ModelState() {
        didSet { modelGeneration += 1 }
    }
    /// Bumped at every change of `model`: a preview is good while the model has not moved.
    var modelGeneration = 0
    /// The model's answer to each context's next step, computed once for the scheduler's
    /// questions (is it blocked?) and the completion, unless the model moved in between.
    var previews: [ContextID: (generation: Int, step: Step, next: ModelState, outcome: Outcome)] = [:]
    var generator: Generator
    var scheduler: Scheduler
    let threads: ControlledThreads
    let engine: EngineSide
    let hooks = RunHooks()
    var statistics = CheckStatistics()
    var trace: [TraceEntry] = []
    var pending: [Step?]
    /// The thread let go into a blocking wait for the write lock, with its step.
    var lockWaiter: (thread: Int, step: Step)?
    /// Threads parked inside the engine with the step they run.
    var inFlight: [Int: Step] = [:]
    var failure: CheckFailure?
    var boot = 0
    let runName: String
    var disk: SimStore?
    var versionOffset: Int64?
    /// The newest version each live realm instance read. Per instance, not per thread: a new
    /// instance resolving a reference begins at the reference's source version, which may be
    /// older than what the thread's earlier instance read (Spec T4).
    var lastSeen: [RealmID: UInt64] = [:]
    var lastCommitVersion: UInt64 = 0
    let swarm: Swarm
    let engineHooks: EngineHooks
    /// The engine configuration of the current boot (a crash moves it to a new disk).
    var configuration: Realm.Configuration
    /// Where each thread's operation leaves its observation.
    var boxes: [Int: ObservationBox] = [:]
    /// The queues of the run's queue contexts, back to `QueuePool` when the run ends.
    var queues: [DispatchQueue] = []
    /// After an injected fault poisoned the file: the scheduling step at which the machine
    /// loses power, and the thread whose commit failed. Any reboot clears it (`reboot(onto:)`).
    var crashAfterPoisoning: (step: Int, thread: Int)?

    static let runCounter = Lock(0)
    let hangReport = LateBound<Void, String> { "no replay token" }
    let probeCounter = ProbeCounter()
    /// Where the current scheduling step's draws begin, and each thread's pending operation's
    /// draws (for `TraceEntry.draws`).
    var stepFirstDraw = 0
    var generatedDraws: [Int: Range<Int>] = [:]
    let decision = LateBound<(Int, YieldPoint), Bool> { _ in false }
    /// The step each thread runs now (from its start to its completion).
    var running: [Int: Step] = [:]
    /// How far each running operation got, from the yield points it passed.
    var progress: [Int: OperationProgress] = [:]
    /// Steps the model took before their operation returned (`linearizeEarly`): the model
    /// before the step, the expected observation to compare at the return, and the step's
    /// events (an early `beginWrite`'s completions, Spec A8, compared when it returns).
    var early:
        [Int: (
            previous: ModelState, expected: Observation, point: YieldPoint, after: Int,
            events: [Event]
        )] = [:]
    /// When each thread's `beginWrite` was let go to wait for the write lock (trace length).
    var handedOff: [Int: Int] = [:]
    /// For the generated test: the queue contexts, and a commit whose crash images failed.
    var queueContexts: Set<ContextID> = []
    var failedCrash: TraceEntry?
    /// Checks the observers' callbacks (Spec N2, N4 to N13, N20, N21).
    var deliveryOracle = DeliveryOracle()
    /// The model's events of the step `complete` took last (async blocks and completions).
    var modelEvents: [Event] = []
    /// Async writes: the model's version of each async commit (for Spec D11's check) and the
    /// ids of `writeAsync` blocks (whose commits the engine side cannot see).
    var asyncCommitVersions: [AsyncWriteID: StrataModel.Version] = [:]
    var writeAsyncIDs: Set<AsyncWriteID> = []

    public init(settings: CheckSettings, stream: ChoiceStream) throws {
        self.settings = settings
        self.stream = stream
        if let recorder = FlightRecorder.current {  // a trap from here on leaves this run's token
            recorder.begin(settings: settings)
            self.stream.flightRecorder = recorder
        }
        swarm = Swarm.draw(
            &self.stream, crashes: settings.mode == .crash && settings.store == .sim,
            excluding: settings.excludedKinds, generation: settings.generation)
        // An exploring stream takes the random scheduler (the enumerated options are its
        // decisions), so that the recording replays like any random-scheduler run.
        let schedulerKind: SchedulerKind =
            self.stream.draw(3, options: [0]) == 0
            ? .random(switchPercent: [30, 5, 60][self.stream.draw(3, options: [0])])
            : .pct(depth: 1 + self.stream.draw(3))
        scheduler = Scheduler(
            kind: schedulerKind, threads: settings.threads, operations: settings.operations,
            stream: &self.stream)
        generator = Generator(
            swarm: swarm,
            configuration: StrataModel.Configuration(
                location: Runner.mainLocation, maximumNumberOfActiveVersions: swarm.activeVersionLimit,
                schema: swarm.links ? .linking : .standard))
        pending = Array(repeating: nil, count: settings.threads)
        let number = Self.runCounter.withLock { counter -> Int in
            counter += 1
            return counter
        }
        runName = "check-\(getpid())-\(number)"
        let hooks = self.hooks
        let hangReport = self.hangReport
        let decision = self.decision
        // Generation 8: no switch at the pins of a notification delivery, whose number depends
        // on when a queue realm's turns ran (`NotificationDelivery`); older generations keep
        // their schedules.
        let quietDeliveries = swarm.generation >= 8
        threads = ControlledThreads(
            count: settings.threads,
            switchPoints: { point in
                switch point {
                case .pin, .unpin:
                    return !(quietDeliveries && NotificationDelivery.isDeliveringOnCurrentThread)
                case .pageWrite, .phaseOneSync, .slotWrite, .phaseTwoSync, .publish, .pinNewest:
                    return true
                case .writeLockWait, .writeLockBlocks, .writeLockAcquired, .writeLockReleased, .groupSyncBegins,
                    .groupSyncEnds:
                    return false
                }
            }, decide: { thread, point in decision.call((thread, point)) }, onInlineHang: { hangReport.call(()) })
        let threadsForHook = threads
        hooks.onYield = { point in threadsForHook.park(at: point) }
        // Generation 6's linking runs declare Linkers too (the model's `Schema.linking`).
        var configuration = Realm.Configuration(
            objectTypes: swarm.links ? CheckTypes.linkingClasses : CheckTypes.classes)
        configuration.maximumNumberOfActiveVersions = swarm.activeVersionLimit.map { UInt($0) }
        let probeCounter = self.probeCounter
        let engineHooks = EngineHooks(
            yield: { point in hooks.yield(point) }, fault: { site in hooks.fault(site) },
            probe: { probe in
                probeCounter.mark(probe.rawValue)
                // The model said the lock is free, so the driver runs `beginWrite` inline; if the
                // engine now blocks, the driver never returns to report it.
                if case .writerBlockedByOtherThread = probe, ThreadIdentity.isImpersonating {
                    fatalError(
                        "StrataCheck: beginWrite blocks on the write lock where the model says it is free; \(hangReport.call(()))"
                    )
                }
            }, bugs: settings.engineBugs.engine)
        configuration._api = settings.engineBugs.apiHooks
        // Generation 8 (Spec W26): `value` is indexed where it is queried by equality; older
        // generations keep their unindexed files, so their tokens replay as they did.
        let indexed = swarm.generation >= 8 ? CheckTypes.indexedProperties : [:]
        switch settings.store {
        case .sim:
            let disk = try SimStore(name: "\(runName)-boot0", reservationBytes: 256 << 20)
            self.disk = disk
            configuration.fileURL = URL(fileURLWithPath: "/strata-check/\(runName).realm")
            configuration._engine = .init(simulatedStore: disk, hooks: engineHooks, indexedProperties: indexed)
        case .file:
            let path = (settings.scratchDirectory as NSString).appendingPathComponent("\(runName).realm")
            _ = try? Store.deleteFiles(path: path)
            configuration.fileURL = URL(fileURLWithPath: path)
            configuration._engine = .init(hooks: engineHooks, indexedProperties: indexed)
        }
        // The file and its schema exist before the run: opening a new file writes the schema
        // in a write transaction the model does not know of (it would block other threads).
        _ = try Realm._open(configuration: configuration, queue: nil)
        engine = EngineSide(configuration: configuration, probes: probeCounter)
        engine.copyDirectory = settings.store == .sim ? CheckSettings.defaultCopyDirectory : settings.scratchDirectory
        engine.copyStem = runName
        hooks.groupSyncGate = engine.groupSyncGate
        engine.groupSyncGate.setHolding(swarm.writesAsync)
        self.engineHooks = engineHooks
        self.configuration = configuration
        let settings = self.settings
        // Weak: a thread that hung in a failed run may reach a switch point after the run ended;
        // it then runs on without switching.
        decision.call = { [weak self] asked in self?.switchesAway(from: asked.0, at: asked.1) ?? false }
        hangReport.call = { [weak self] (_: Void) -> String in
            guard let self else { return "the run had ended" }
            return
                "replay with: strata-fuzz replay \(ReplayToken.encode(settings: settings, choices: self.stream.recorded))"
        }
    }

    deinit {
        defer { stream.flightRecorder?.end() }  // the run's teardown is still the run
        // A thread left blocked inside a queue's block would hold up the next run on that queue.
        if threads.areAllIdle { QueuePool.checkIn(queues) }
        threads.shutdown()
        if settings.store == .file, let path = configuration.fileURL?.path {
            _ = try? Store.deleteFiles(path: path)
        }
        let engine = self.engine
        for copy in engine.lock.withLock({ _ in engine.copies }) { _ = try? Store.deleteFiles(path: copy) }
    }

    func context(_ thread: Int) -> ContextID { ContextID(thread + 1) }

    /// Where the model keeps the run's file (copies made with `writeCopy` are other files).
    static let mainLocation = FileLocation.path("check.realm")

    /// Runs the operations and returns what happened.
    public func run() -> RunResult {
        // Every wait for a group sync that ran out, in the run's crashes and settles too.
        let idleTimeoutsBefore = engine.groupSyncGate.idleTimeoutCount
        addContexts()
        var index = 0
        var recordingEnded = false
        while index < settings.operations && failure == nil {
            index += 1
            statistics.schedulingSteps += 1
            stepFirstDraw = stream.drawCount
            if crashIfPoisoningIsOver() { continue }
            if wakeLockWaiter() { continue }
            dispatchBlockedWaiter()
            if failure != nil { break }
            // A replay ends where its recording does, but only before a step that picks a
            // thread: the steps before that draw nothing of their own (a lock waiter woken,
            // one let go to wait), and the fresh run that made the recording took them too,
            // also after its last draw (the failure it found may be there).
            guard !stream.isExhausted else {
                recordingEnded = true
                break
            }
            let runnable = (0..<(swarm.soloContext ? 1 : settings.threads)).filter { isRunnable($0) }
            guard !runnable.isEmpty else {
                fail(.deadlock, "every thread waits: \(describeThreads())")
                break
            }
            let thread = scheduler.pick(runnable, stream: &stream)
            advance(thread)
        }
        // A run that ended at its bound or its failure, not with its recording, records one
        // more draw: steps after its last draw that draw nothing (a PCT pick, a thread resumed
        // inside the engine with no switch to decide) are then inside its recording, and a
        // replay takes them too rather than stopping where the draws ran out (which lost the
        // failure of a run that found it there).
        if !recordingEnded { _ = stream.draw(1) }
        finish()
        statistics.groupSyncWaitsTimedOut += engine.groupSyncGate.idleTimeoutCount - idleTimeoutsBefore
        statistics.switches = scheduler.switches
        statistics.probes = probeCounter.snapshot
        statistics.checkedCallbacks = deliveryOracle.checkedCallbacks
        statistics.checkedObjectCallbacks = deliveryOracle.checkedObjectCallbacks
        statistics.checkedDeliveryPoints = deliveryOracle.checkedPoints
        var hash = StableHash()
        for entry in trace {
            // Stable text only: the model's own descriptions print dictionaries, whose order
            // changes from process to process.
            hash.combine(
                Array(
                    "\(entry.thread) \(StepText.describe(entry.step)) \(entry.observed) \(entry.engineVersion ?? 0)"
                        .utf8))
        }
        var result = RunResult(
            failure: failure, statistics: statistics, trace: trace, choices: stream.recorded,
            digest: hash.finalize(), swarm: swarm.description, scheduler: scheduler.kind,
            enumerated: stream.enumerated)
        result.queueContexts = queueContexts
        result.failedCrash = failedCrash
        result.activeVersionLimit = swarm.activeVersionLimit
        result.links = swarm.links
        result.indexed = swarm.generation >= 8
        return result
    }

    /// Each context is a thread or, one in four, a serial dispatch queue whose operations run
    /// in blocks on it (on the context's controlled thread: `EngineSide.perform`).
    func addContexts() {
        for thread in 0..<settings.threads {
            var kind = ContextKind.thread(hasEventLoop: false)
            // The highest draw, so that a shrinker lowering values makes threads of queues. A run
            // with observers or async writes makes one context in two a queue: only a queue's
            // realms have a scheduler to call them on or run blocks on (a controlled thread runs
            // no event loop, Spec C11). With async writes the first context is a queue without a
            // draw: such a run needs one, and its shrunk runs keep it.
            let asyncQueue = swarm.writesAsync && thread == 0
            if asyncQueue || stream.draw(4) >= (swarm.observes || swarm.writesAsync ? 2 : 3) {
                let queue = QueuePool.checkOut()
                queues.append(queue)
                engine.setQueue(queue, of: context(thread))
                kind = .serialQueue(label: "queue of \(context(thread))")
                queueContexts.insert(context(thread))
            }
            model = model.step(Step(context(thread), .addContext(context(thread), process: ProcessID(1), kind: kind))).0
        }
    }

    /// A realm confined to a queue has its autorefresh switched off in the block that opened it
    /// (`EngineSide`): the model takes the same step, recorded in the trace as the harness's.
    func queueRealmOpened(_ realm: RealmID, thread: Int, step: Step) {
        let setting = Step(step.context, .setAutorefresh(realm, false))
        let (next, outcome) = model.step(setting)
        model = next
        let expected = Observation(model: outcome)
        trace.append(
            TraceEntry(
                index: trace.count, thread: thread, step: setting, expected: expected, observed: .done,
                engineVersion: engine.readVersion(of: realm),
                note: "harness: a queue realm does not autorefresh (its turns run when no schedule orders them)",
                draws: nil))
        if !expected.accepts(.done) {
            fail(.divergence, "\(StepText.describe(setting)): model \(expected), engine done")
        }
    }

    func isRunnable(_ thread: Int) -> Bool {
        if lockWaiter?.thread == thread { return false }
        if inFlight[thread] != nil { return true }
        if let step = pending[thread] { return !isBlocked(step) }
        return true
    }

    /// What the model makes of `step` now, without taking it.
    func preview(_ step: Step) -> (next: ModelState, outcome: Outcome) {
        if let cached = previews[step.context], cached.generation == modelGeneration, cached.step == step {
            return (cached.next, cached.outcome)
        }
        let (next, outcome) = model.step(step)
        previews[step.context] = (modelGeneration, step, next, outcome)
        return (next, outcome)
    }

    func isBlocked(_ step: Step) -> Bool {
        if case .blocked = preview(step).outcome.result { return true }
        return false
    }

    // MARK: ending

    func finish() {
        settleAllThreads()  // so that the next run starts clean
        // The realms go first: a held group sync let go now needs the write lock, which a realm
        // left inside a write at the end of the run holds until it is dropped (`reset` drops
        // every engine object, then lets the held sync go and waits for it to end).
        engine.reset(to: configuration)
        engine.groupSyncGate.setHolding(false)
    }

    func fail(_ kind: CheckFailure.Kind, _ message: String, at index: Int? = nil) {
        guard failure == nil else { return }
        failure = CheckFailure(kind: kind, message: message, operationIndex: index ?? max(0, trace.count - 1))
    }

    func describeThreads() -> String {
        (0..<settings.threads).map { thread in
            let state: String
            if lockWaiter?.thread == thread {
                state = "waits for the write lock"
            } else if let step = inFlight[thread] {
                state = "parked in \(step.operation)"
            } else if let step = pending[thread] {
                state = "blocked before \(step.operation)"
            } else {
                state = "idle"
            }
            return "\(context(thread)) \(state)"
        }.joined(separator: ", ")
    }
}
