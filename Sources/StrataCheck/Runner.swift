import Foundation
@_spi(StrataCheck) import Strata
import StrataModel
import StrataStorage

/// What a run exercises.
public enum CheckMode: String, Sendable, CaseIterable {
    /// Controlled threads, no crashes.
    case controlled
    /// Controlled threads with crashes inside commits and between them.
    case crash
    /// Real threads left to the OS, checked afterwards from version stamps (`FreeRun`).
    case free
}

/// Where the engine's pages live during a run.
public enum CheckStore: String, Sendable, CaseIterable {
    /// `SimStore`: deterministic, crashable.
    case sim
    /// A real file in a scratch directory (no crashes: the disk cannot be captured).
    case file
}

/// Everything fixed before the choice stream starts deciding.
public struct CheckSettings: Sendable, Hashable {
    public var mode: CheckMode
    public var store: CheckStore
    public var threads: Int
    /// Operations per run (the stream may end a run earlier only by exhausting a replay).
    public var operations: Int
    /// Engine bugs switched on (harness validation).
    public var engineBugs: SeededBugSet
    /// A deliberately wrong model rule (harness validation).
    public var modelMutation: ModelMutation?
    /// Where file stores live.
    public var scratchDirectory: String
    /// Operation kinds this run never generates (by `OperationKind` name), for campaigns that
    /// must steer clear of a known open divergence.
    public var excludedKinds: Set<String> = []
    /// Which generator the choice stream is read by (`ReplayToken`'s `sc<generation>`): a
    /// token keeps meaning what it meant when it was printed. 1: before bulk writes; 2: before
    /// collection and object observers; 3: before async writes; 4: before reference releases,
    /// `@ThreadSafe` cells, `writeCopy`, async blocks left open or on a thread, and realms let
    /// go inside their writes and with async work; 5: before Linkers, their to-one links and
    /// sorts through them (Spec V20).
    public var generation = CheckSettings.currentGeneration
    public static let currentGeneration = 6
    public static let generations = 1...currentGeneration

    public init(mode: CheckMode = .controlled, store: CheckStore = .sim, threads: Int = 3, operations: Int = 200,
                engineBugs: SeededBugSet = [], modelMutation: ModelMutation? = nil,
                scratchDirectory: String = NSTemporaryDirectory()) {
        self.mode = mode
        self.store = store
        self.threads = threads
        self.operations = operations
        self.engineBugs = engineBugs
        self.modelMutation = modelMutation
        self.scratchDirectory = scratchDirectory
    }
}


/// A deliberately wrong rule the harness must catch (its own validation): the model's
/// expectation is altered after the model computed it.
public enum ModelMutation: String, Sendable, Hashable, CaseIterable {
    /// Claims `refresh()` never reports a change (Spec V4 says it returns whether it moved).
    case refreshNeverMoves
    /// Claims a committed `create` makes no object (Spec W4/V1: the write's data is committed).
    case createdObjectsVanish
}

/// What went wrong in a run.
public struct CheckFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The engine's observation differs from the model's.
        case divergence
        /// A thread blocked where the model says it must not, or every thread waits.
        case deadlock
        /// A crash image recovered wrongly or did not verify.
        case crashImage
        /// A version-stamp rule broke (isolation or real time).
        case versions
        /// The recovered file's contents differ from the model's durable version.
        case recovery
    }
    public var kind: Kind
    public var message: String
    /// The index (in the trace) of the operation at which it was found.
    public var operationIndex: Int

    /// What identifies the failure across shrinking: the kind and the message's first words,
    /// numbers left out (a shrunk run names other threads, realms and handles: c3 and r40
    /// become c2 and r5 when the operations before them go).
    public var signature: String {
        let words = message.split(separator: " ").prefix(4).joined(separator: " ")
        var text = ""
        var inNumber = false
        for character in words {
            if character.isASCII && character.isNumber {
                if !inNumber { text.append("#") }
                inNumber = true
            } else {
                text.append(character)
                inNumber = false
            }
        }
        return "\(kind.rawValue): " + text
    }

    public var description: String { "\(kind.rawValue) at operation \(operationIndex): \(message)" }
}

/// Counts of one run.
public struct CheckStatistics: Sendable, Hashable {
    public var operations = 0
    public var commits = 0
    public var versions = 0
    public var crashes = 0
    public var crashImages = 0
    public var schedulingSteps = 0
    public var switches = 0
    public var modelRejections = 0
    /// Operations the driver ran as their thread, without a hand-off.
    public var inlineOperations = 0
    /// Crash images also damaged at rest (a flipped bit, a misdirected sector) and checked.
    public var damagedImages = 0
    /// Commits failed by an injected EIO or ENOSPC.
    public var injectedFaults = 0
    /// Switches away from a thread just after it pinned or unpinned a version.
    public var pinSwitches = 0
    /// Steps the model took before their operation returned (a switch after the operation's
    /// linearization point, `Runner.linearizeEarly`).
    public var earlySteps = 0
    /// Operations refused because an injected fault poisoned the file (Spec D6).
    public var poisonedRejections = 0
    /// Probe marks by name (`ProbeCoverage`): how often each rare path was reached.
    public var probes: [String: Int] = [:]
    /// Collection and object observers registered (`observe` succeeded in both).
    public var observers = 0
    /// Observer callbacks checked by `DeliveryOracle`.
    public var checkedCallbacks = 0
    /// Of them, object observers' (`.change`, `.deleted`).
    public var checkedObjectCallbacks = 0
    /// Observers found caught up where the Spec says nothing may be owed (after `refresh()`,
    /// `beginWrite`, a queue realm's commit or `observe`).
    public var checkedDeliveryPoints = 0
    /// Async writes (generation 4): completions found durable as they ran (Spec D11), crash
    /// images taken inside a group's sync (D10), and power losses while a group was published
    /// and not yet durable.
    public var checkedCompletions = 0
    public var asyncBlocks = 0
    public var groupCrashImages = 0
    public var pendingGroupPowerLosses = 0
    /// Durable versions verified before a held group sync was let go (Spec D10).
    public var durableImageChecks = 0
    /// Ends of a run that waited a let-go group sync out (`GroupSyncGate.idleTimeoutCount`):
    /// a run must end at once, so this stays 0.
    public var groupSyncWaitsTimedOut = 0

    public init() {}

    public mutating func add(_ other: CheckStatistics) {
        operations += other.operations
        commits += other.commits
        versions += other.versions
        crashes += other.crashes
        crashImages += other.crashImages
        schedulingSteps += other.schedulingSteps
        switches += other.switches
        modelRejections += other.modelRejections
        inlineOperations += other.inlineOperations
        damagedImages += other.damagedImages
        injectedFaults += other.injectedFaults
        pinSwitches += other.pinSwitches
        earlySteps += other.earlySteps
        poisonedRejections += other.poisonedRejections
        probes.merge(other.probes, uniquingKeysWith: +)
        observers += other.observers
        checkedCallbacks += other.checkedCallbacks
        checkedObjectCallbacks += other.checkedObjectCallbacks
        checkedDeliveryPoints += other.checkedDeliveryPoints
        checkedCompletions += other.checkedCompletions
        asyncBlocks += other.asyncBlocks
        groupCrashImages += other.groupCrashImages
        pendingGroupPowerLosses += other.pendingGroupPowerLosses
        durableImageChecks += other.durableImageChecks
        groupSyncWaitsTimedOut += other.groupSyncWaitsTimedOut
    }
}

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
    /// A commit whose crash images failed their check: it has no trace entry (the run ended
    /// inside it), but the generated test performs it and checks the failing image.
    var failedCrash: TraceEntry?
}

/// One lockstep run: the model and the engine side by side under one choice stream.
public final class Runner: @unchecked Sendable {
    let settings: CheckSettings
    var stream: ChoiceStream
    var model = ModelState() {
        didSet { modelGeneration += 1 }
    }
    /// Bumped at every change of `model`: a preview is good while the model has not moved.
    private var modelGeneration = 0
    /// The model's answer to each context's next step, computed once for the scheduler's
    /// questions (is it blocked?) and the completion, unless the model moved in between.
    private var previews: [ContextID: (generation: Int, step: Step, next: ModelState, outcome: Outcome)] = [:]
    private var generator: Generator
    private var scheduler: Scheduler
    private let threads: ControlledThreads
    let engine: EngineSide
    let hooks = RunHooks()
    var statistics = CheckStatistics()
    var trace: [TraceEntry] = []
    private var pending: [Step?]
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
    /// older than what the thread's earlier instance read (Spec T4, TSR-07).
    private var lastSeen: [RealmID: UInt64] = [:]
    private var lastCommitVersion: UInt64 = 0
    let swarm: Swarm
    private let engineHooks: EngineHooks
    /// The engine configuration of the current boot (a crash moves it to a new disk).
    private var configuration: Realm.Configuration
    /// Where each thread's operation leaves its observation.
    private var boxes: [Int: ObservationBox] = [:]
    /// The queues of the run's queue contexts, back to `QueuePool` when the run ends.
    private var queues: [DispatchQueue] = []
    /// After an injected fault poisoned the file: the scheduling step at which the machine
    /// loses power, and the thread whose commit failed. Any reboot clears it (`reboot(onto:)`).
    private var crashAfterPoisoning: (step: Int, thread: Int)?

    private static let runCounter = Lock(0)
    private let hangReport = LateBound<Void, String> { "no replay token" }
    let probeCounter = ProbeCounter()
    /// Where the current scheduling step's draws begin, and each thread's pending operation's
    /// draws (for `TraceEntry.draws`).
    private var stepFirstDraw = 0
    private var generatedDraws: [Int: Range<Int>] = [:]
    private let decision = LateBound<(Int, YieldPoint), Bool> { _ in false }
    /// The step each thread runs now (from its start to its completion).
    private var running: [Int: Step] = [:]
    /// How far each running operation got, from the yield points it passed.
    private var progress: [Int: OperationProgress] = [:]
    /// Steps the model took before their operation returned (`linearizeEarly`): the model
    /// before the step, the expected observation to compare at the return, and the step's
    /// events (an early `beginWrite`'s completions, Spec A8, compared when it returns).
    private var early: [Int: (previous: ModelState, expected: Observation, point: YieldPoint, after: Int,
                              events: [Event])] = [:]
    /// When each thread's `beginWrite` was let go to wait for the write lock (trace length).
    private var handedOff: [Int: Int] = [:]
    /// For the generated test: the queue contexts, and a commit whose crash images failed.
    var queueContexts: Set<ContextID> = []
    private var failedCrash: TraceEntry?
    /// Checks the observers' callbacks (Spec N2, N4 to N13, N20, N21).
    private var deliveryOracle = DeliveryOracle()
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
        swarm = Swarm.draw(&self.stream, crashes: settings.mode == .crash && settings.store == .sim,
                           excluding: settings.excludedKinds, generation: settings.generation)
        // An exploring stream takes the random scheduler (the enumerated options are its
        // decisions), so that the recording replays like any random-scheduler run.
        let schedulerKind: SchedulerKind = self.stream.draw(3, options: [0]) == 0
            ? .random(switchPercent: [30, 5, 60][self.stream.draw(3, options: [0])])
            : .pct(depth: 1 + self.stream.draw(3))
        scheduler = Scheduler(kind: schedulerKind, threads: settings.threads, operations: settings.operations,
                              stream: &self.stream)
        generator = Generator(swarm: swarm, configuration: StrataModel.Configuration(
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
        threads = ControlledThreads(count: settings.threads, switchPoints: { point in
            switch point {
            case .pageWrite, .phaseOneSync, .slotWrite, .phaseTwoSync, .publish, .pinNewest, .pin, .unpin: return true
            case .writeLockWait, .writeLockBlocks, .writeLockAcquired, .writeLockReleased, .groupSyncBegins,
                 .groupSyncEnds:
                return false
            }
        }, decide: { thread, point in decision.call((thread, point)) }, onInlineHang: { hangReport.call(()) })
        let threadsForHook = threads
        hooks.onYield = { point in threadsForHook.park(at: point) }
        // Generation 6's linking runs declare Linkers too (the model's `Schema.linking`).
        var configuration = Realm.Configuration(objectTypes: swarm.links ? CheckTypes.linkingClasses : CheckTypes.classes)
        configuration.maximumNumberOfActiveVersions = swarm.activeVersionLimit.map { UInt($0) }
        let probeCounter = self.probeCounter
        let engineHooks = EngineHooks(yield: { point in hooks.yield(point) }, fault: { site in hooks.fault(site) }, probe: { probe in
            probeCounter.mark(probe.rawValue)
            // The model said the lock is free, so the driver runs `beginWrite` inline; if the
            // engine now blocks, the driver never returns to report it.
            if case .writerBlockedByOtherThread = probe, ThreadIdentity.isImpersonating {
                fatalError("StrataCheck: beginWrite blocks on the write lock where the model says it is free; \(hangReport.call(()))")
            }
        }, bugs: settings.engineBugs.engine)
        configuration._api = settings.engineBugs.apiHooks
        switch settings.store {
        case .sim:
            let disk = try SimStore(name: "\(runName)-boot0", reservationBytes: 256 << 20)
            self.disk = disk
            configuration.fileURL = URL(fileURLWithPath: "/strata-check/\(runName).realm")
            configuration._engine = .init(simulatedStore: disk, hooks: engineHooks)
        case .file:
            let path = (settings.scratchDirectory as NSString).appendingPathComponent("\(runName).realm")
            _ = try? Store.deleteFiles(path: path)
            configuration.fileURL = URL(fileURLWithPath: path)
            configuration._engine = .init(hooks: engineHooks)
        }
        // The file and its schema exist before the run: opening a new file writes the schema
        // in a write transaction the model does not know of (it would block other threads).
        _ = try Realm._open(configuration: configuration, queue: nil)
        engine = EngineSide(configuration: configuration)
        engine.copyDirectory = settings.scratchDirectory
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
            return "replay with: strata-fuzz replay \(ReplayToken.encode(settings: settings, choices: self.stream.recorded))"
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
        let idleTimeoutsBefore = engine.groupSyncGate.idleTimeoutCount
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
            hash.combine(Array("\(entry.thread) \(StepText.describe(entry.step)) \(entry.observed) \(entry.engineVersion ?? 0)".utf8))
        }
        var result = RunResult(failure: failure, statistics: statistics, trace: trace, choices: stream.recorded,
                               digest: hash.finalize(), swarm: swarm.description, scheduler: scheduler.kind,
                               enumerated: stream.enumerated)
        result.queueContexts = queueContexts
        result.failedCrash = failedCrash
        result.activeVersionLimit = swarm.activeVersionLimit
        result.links = swarm.links
        return result
    }

    /// Each context is a thread or, one in four, a serial dispatch queue whose operations run
    /// in blocks on it (on the context's controlled thread: `EngineSide.perform`).
    private func addContexts() {
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
    private func queueRealmOpened(_ realm: RealmID, thread: Int, step: Step) {
        let setting = Step(step.context, .setAutorefresh(realm, false))
        let (next, outcome) = model.step(setting)
        model = next
        let expected = Observation(model: outcome)
        trace.append(TraceEntry(index: trace.count, thread: thread, step: setting, expected: expected, observed: .done,
                                engineVersion: engine.readVersion(of: realm),
                                note: "harness: a queue realm does not autorefresh (its turns run when no schedule orders them)",
                                draws: nil))
        if !expected.accepts(.done) {
            fail(.divergence, "\(StepText.describe(setting)): model \(expected), engine done")
        }
    }

    private func isRunnable(_ thread: Int) -> Bool {
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

    private func isBlocked(_ step: Step) -> Bool {
        if case .blocked = preview(step).outcome.result { return true }
        return false
    }

    // MARK: one scheduling step

    private func advance(_ thread: Int) {
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
               owner != context(thread), inFlight[owner.rawValue - 1] != nil {
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
        case .commitWrite(let realm, let skipped, _) where settings.mode == .crash && disk != nil
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
    private func runsInline(_ operation: StrataModel.Operation, thread: Int) -> Bool {
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
    private func settle(_ thread: Int, step: Step, report: ControlledThreads.Report, box: ObservationBox? = nil) {
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
    private func switchesAway(from thread: Int, at point: YieldPoint) -> Bool {
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

    private static func isInvalidate(_ operation: StrataModel.Operation) -> Bool {
        if case .invalidate = operation { return true }
        return false
    }

    /// Whether the model may take `operation`'s step before it returns: the engine side's
    /// tables do not change when it returns. An operation that names a new realm, accessor or
    /// reference, or drops one, may not: the model would show other threads an identifier the
    /// engine side does not have yet, or hide one it still has.
    private static func mayStepEarly(_ operation: StrataModel.Operation) -> Bool {
        switch operation {
        case .refresh, .invalidate, .beginWrite, .commitWrite, .cancelWrite, .read, .isInvalidated,
             .setValue, .delete, .deleteAll, .append, .removeFromList:
            return true
        default:
            return false
        }
    }

    /// The model takes `step` of `thread`, still running in the engine, now; `complete`
    /// compares the observation with what it expected once the operation returns.
    private func linearizeEarly(_ thread: Int, step: Step, at point: YieldPoint) {
        let (next, outcome) = preview(step)
        previews[step.context] = nil
        var expected = Observation(model: outcome)
        mutate(&expected, step: step)
        early[thread] = (model, expected, point, trace.count, outcome.events)
        model = next
        statistics.earlySteps += 1
    }

    /// The model takes the step now (the operation's effects are visible from its completion
    /// on) and the engine's observation is compared with the model's.
    func complete(_ thread: Int, step: Step, observed: Observation, note: String? = nil,
                          facts: ScriptFacts = ScriptFacts()) {
        running[thread] = nil
        progress[thread] = nil
        let expected: Observation
        let previous: ModelState
        var note = note
        var facts = facts
        facts.handedOffAfter = handedOff.removeValue(forKey: thread)
        modelEvents = []
        if let taken = early.removeValue(forKey: thread) {
            (previous, expected) = (taken.previous, taken.expected)
            modelEvents = taken.events
            facts.steppedAfter = taken.after
            note = [note, "stepped at \(taken.point), before it returned"].compactMap { $0 }.joined(separator: "; ")
        } else {
            let (next, outcome) = preview(step)
            previews[step.context] = nil
            modelEvents = outcome.events
            var mutated = Observation(model: outcome)
            mutate(&mutated, step: step)
            expected = mutated
            previous = model
            model = next
        }
        statistics.operations += 1
        if case .failure(_, let message) = expected {
            statistics.modelRejections += 1
            if message == ModelError.poisoned.message { statistics.poisonedRejections += 1 }
        }
        let realm = Self.realm(of: step.operation)
        if case .commitWrite = step.operation, case .done = observed { statistics.commits += 1 }
        let engineVersion = realm.flatMap { engine.readVersion(of: $0) }
        trace.append(TraceEntry(index: trace.count, thread: thread, step: step, expected: expected,
                                observed: observed, engineVersion: engineVersion, note: note,
                                draws: generatedDraws.removeValue(forKey: thread), facts: facts))
        guard expected.accepts(observed) else {
            fail(.divergence, "\(StepText.describe(step)): \(Observation.difference(model: expected, engine: observed))")
            return
        }
        markProbes(step, observed: observed, previous: previous)
        if case .writeCopy(_, let path) = step.operation, case .done = observed {
            checkCopy(path, step: step)
            guard failure == nil else { return }
        }
        // The async turns the step ran on its queue (`EngineSide.drainAsync`) are the model's
        // too before versions compare: a block may have committed after the step's own commit.
        asyncTurned(after: step, thread: thread)
        guard failure == nil else { return }
        if let realm, !isMidOperation(realm, except: thread) {
            checkVersions(thread, realm: realm, engineVersion: engineVersion, step: step, previous: previous)
        }
        if failure == nil { checkDeliveries(step, observed: observed) }
        if failure == nil { queueTurned(after: step, thread: thread, observed: observed) }
        if failure == nil, case .open(_, .queue, _) = step.operation, case .realm(let opened?) = observed {
            queueRealmOpened(opened, thread: thread, step: step)
        }
    }

    /// A queue context's `observe` or commit leaves a delivery turn on its queue, which the step
    /// waited for (`EngineSide.perform`): that was a turn of the queue's loop, which the model
    /// takes now too (Spec N7, N8), recorded in the trace as the harness's step. The model's
    /// observers then hear what the engine's heard, and a turn it takes later finds the same
    /// realm (it would begin a read for an initial callback still owed, say).
    private func queueTurned(after step: Step, thread: Int, observed: Observation) {
        guard queueContexts.contains(step.context), engine.deliveries.isActive else { return }
        switch (step.operation, observed) {
        case (.observeCollection, .done), (.commitWrite(_, _, .success), .done): break
        default: return
        }
        let turn = Step(step.context, .turnLoop)
        let (next, outcome) = model.step(turn)
        model = next
        let expected = Observation(model: outcome)
        trace.append(TraceEntry(index: trace.count, thread: thread, step: turn, expected: expected, observed: .done,
                                engineVersion: nil, note: "harness: the queue ran the delivery turn the operation left",
                                draws: nil))
        if !expected.accepts(.done) {
            fail(.divergence, "\(StepText.describe(turn)): model \(expected), engine done")
        }
    }

    /// The callbacks that ran during `step` (its own, or its queue's blocks it waited for:
    /// `EngineSide.perform`), checked by the delivery oracle.
    private func checkDeliveries(_ step: Step, observed: Observation) {
        let deliveries = engine.deliveries.take()
        switch (step.operation, observed) {
        case (.observeCollection, .done), (.observeObject, .done): statistics.observers += 1
        default: break
        }
        let engine = self.engine
        if let problem = deliveryOracle.check(step, observed: observed, deliveries: deliveries, model: model,
                                              offset: versionOffset,
                                              queueNumber: { engine.queueNumber(of: $0) }) {
            fail(.divergence, problem)
        }
    }

    /// Generation 5, Spec X3: the copy a `writeCopy` step made, opened and read in the step
    /// (`EngineSide.contents(ofCopy:)`), holds exactly the model's copy: the realm's read
    /// version, or inside a write the write's data as it was.
    private func checkCopy(_ path: String, step: Step) {
        let expected = Observation.elements(model.newestContents(of: .path(path)) ?? [])
        let observed = engine.takeCopyContents(path) ?? .failure(code: "harness", message: "the step read no copy")
        if observed != expected {
            fail(.divergence, "\(StepText.describe(step)): the copy holds \(observed), the model's copy \(expected) (Spec X3)")
        }
    }

    /// The harness's own probes: how a resolve placed its realm (Spec T4), and a write refused
    /// over the active-version limit (L2).
    private func markProbes(_ step: Step, observed: Observation, previous: ModelState) {
        switch (step.operation, observed) {
        case (.resolve(let reference, let realm, _), .handle):
            guard let source = previous.references[reference]?.sourceVersion else { return }
            if let read = previous.realms[realm]?.readVersion {
                if read < source { probeCounter.mark(ProbeCoverage.resolveIntoOlderRealm) }
                if read > source { probeCounter.mark(ProbeCoverage.resolveIntoNewerRealm) }
            } else {
                probeCounter.mark(ProbeCoverage.resolveIntoUnreadRealm)
            }
        case (.beginWrite, .failure(_, let message)) where message.hasPrefix("Number of active versions"):
            probeCounter.mark(ProbeCoverage.activeVersionLimitHit)
        default:
            break
        }
    }

    /// Whether the context owning `realm` is inside an operation, left at a switch point
    /// (an operation from another context used the realm): the model may have taken that
    /// operation's step already while the engine realm has not moved yet.
    private func isMidOperation(_ realm: RealmID, except thread: Int) -> Bool {
        guard let owner = model.realms[realm]?.owner else { return false }
        let ownerThread = owner.rawValue - 1
        return ownerThread != thread && running[ownerThread] != nil
    }

    /// Version stamps: the engine's version of every realm is the model's plus one fixed
    /// offset; a thread's live realm never goes back; commits grow strictly.
    private func checkVersions(_ thread: Int, realm: RealmID, engineVersion: UInt64?, step: Step, previous: ModelState) {
        guard let state = model.realms[realm] else { return }
        let modelVersion = state.readVersion
        switch (modelVersion, engineVersion) {
        case (nil, nil): return
        case (let modelVersion?, let engineVersion?):
            let offset = Int64(engineVersion) - Int64(modelVersion.rawValue)
            if let known = versionOffset, known != offset {
                fail(.versions, "\(realm) reads engine v\(engineVersion) where the model reads \(modelVersion) (offset \(offset), was \(known)) after \(step)")
                return
            }
            versionOffset = offset
            statistics.versions = max(statistics.versions, modelVersion.rawValue)
            if !state.isFrozen && state.owner == context(thread) {
                if let seen = lastSeen[realm], engineVersion < seen {
                    fail(.versions, "\(realm) of \(context(thread)) went back from v\(seen) to v\(engineVersion) after \(step)")
                    return
                }
                lastSeen[realm] = engineVersion
            }
            if case .commitWrite = step.operation, previous.realms[realm]?.write != nil, state.write == nil,
               state.readVersion != previous.realms[realm]?.readVersion {
                if engineVersion <= lastCommitVersion {
                    fail(.versions, "commit made v\(engineVersion), not above the last commit v\(lastCommitVersion)")
                    return
                }
                lastCommitVersion = engineVersion
            }
        case (let modelVersion, let engineVersion):
            // A frozen realm whose version is read lazily, or an invalidated one, may differ in
            // whether it reports a version; only a live realm's must agree.
            if !state.isFrozen {
                fail(.versions, "\(realm) model version \(modelVersion.map(\.description) ?? "none"), engine \(engineVersion.map { "v\($0)" } ?? "none") after \(step)")
            }
        }
    }

    private func mutate(_ expected: inout Observation, step: Step) {
        guard let mutation = settings.modelMutation else { return }
        switch (mutation, step.operation, expected) {
        case (.refreshNeverMoves, .refresh, .bool(true)):
            expected = .bool(false)
        case (.createdObjectsVanish, .read, .elements(let readings)) where readings.count > 1:
            expected = .elements(Array(readings.dropLast()))
        default:
            break
        }
    }

    private static func realm(of operation: StrataModel.Operation) -> RealmID? {
        switch operation {
        case .open(_, _, let id), .refresh(let id), .invalidate(let id), .beginWrite(let id),
             .commitWrite(let id, _, _), .cancelWrite(let id), .objects(let id, _, _),
             .objectForPrimaryKey(let id, _, _, _), .create(let id, _, _, _, _, _), .delete(let id, _),
             .freezeRealm(let id, _), .resolve(_, let id, _):
            return id
        default:
            return nil
        }
    }

    // MARK: the write lock

    /// When the lock holder let go, the thread waiting in the engine must be the next to get
    /// the lock: complete its `beginWrite` before anything else runs.
    private func wakeLockWaiter() -> Bool {
        guard let waiter = lockWaiter else { return false }
        if isBlocked(waiter.step) {
            if threads.hasAcquiredLock(waiter.thread) {
                fail(.divergence, "\(context(waiter.thread)) took the write lock while another realm holds it (\(waiter.step))")
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
    private func dispatchBlockedWaiter() {
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

    // MARK: crashes

    /// Commits with a crash at a point drawn from the stream: every crash image of that point
    /// is recovered and checked, then the run goes on from one of them.
    private func commitWithCrash(_ step: Step, realm: RealmID, skipped: [ObserverID], thread: Int) {
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
        let campaign = CrashCampaign(state: state, point: point, pageSizeBytes: 4096,
                                     hooks: EngineHooks(bugs: settings.engineBugs.engine))
        let images = campaign.images(stream: &stream)
        for (number, image) in images.enumerated() {
            statistics.crashImages += 1
            if let problem = campaign.check(image, name: "\(runName)-image\(number)", oldDigest: oldDigest, newDigest: newDigest) {
                recordFailedCrash(step, thread: thread, campaign: campaign, image: image)
                fail(.crashImage, problem, at: trace.count)
                return
            }
        }
        // One image in eight, damaged at rest as well.
        for (number, image) in images.enumerated() where stream.chance(12) {
            statistics.damagedImages += 1
            let damage = CrashCampaign.drawDamage(&stream, fileBytes: state.durableByteCount,
                                                  // Data pages only: a lost slot write is D4's fallback.
                                                  olderCopyOffsets: state.olderCopyOffsets.filter { $0 >= campaign.pageSizeBytes })
            if let problem = campaign.checkDamaged(image, damage: damage, name: "\(runName)-damaged\(number)",
                                                   oldVersion: oldVersion, oldDigest: oldDigest, newDigest: newDigest) {
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
        complete(thread, step: crashStep, observed: .done, note: "crash \(point), image \(chosen), window \(window)",
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
    private func recordFailedCrash(_ step: Step, thread: Int, campaign: CrashCampaign, image: CrashImage) {
        guard case .commitWrite(let realm, let skipped, _) = step.operation else { return }
        let survives = campaign.slotSurvives(image)
        var facts = ScriptFacts(capture: campaign.point,
                                crash: RecordedCrash(pending: campaign.state.pendingWrites, plan: image.plan))
        facts.recovered = survives ? preview(step).next.newestContents : model.newestContents
        let crashStep = Step(step.context, .commitWrite(realm, withoutNotifying: skipped,
                                                        fate: .machineCrash(campaign.window(for: image))))
        failedCrash = TraceEntry(index: trace.count, thread: thread, step: crashStep, expected: .done, observed: .done,
                                 engineVersion: nil, note: "crash image \(image) failed its check", draws: nil,
                                 facts: facts)
    }

    /// Commits with an I/O error injected at a site drawn from the stream. When it strikes,
    /// the commit must fail as the model says (Spec W17) and the file is poisoned (Spec D6):
    /// the threads run on against the poisoned file for a few drawn steps (every operation
    /// through its live realms must fail as the model says), then the machine loses power,
    /// and recovery must find the version before the commit (D7).
    private func commitWithFault(_ step: Step, realm: RealmID, skipped: [ObserverID], thread: Int) {
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
        let failing = Step(step.context, .commitWrite(realm, withoutNotifying: skipped, fate: .failure(planned.failure)))
        complete(thread, step: failing, observed: observed, note: "\(planned) (\(site))",
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
    private func crashIfPoisoningIsOver() -> Bool {
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
    private func crashBetweenCommits(_ step: Step, thread: Int) {
        guard let disk else {
            complete(thread, step: step, observed: .failure(code: "harness", message: "crash needs the simulated disk"))
            return
        }
        settleAllThreads()
        if model.realms.values.contains(where: { !$0.asyncGroups.isEmpty }) { statistics.pendingGroupPowerLosses += 1 }
        do {
            boot += 1
            let next = try SimStore(state: disk.captureState(), name: "\(runName)-boot\(boot)", reservationBytes: 256 << 20)
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
    private func settleAllThreads() {
        pending = Array(repeating: nil, count: settings.threads)
        running = [:]
        progress = [:]
        early = [:]
        handedOff = [:]
        for thread in inFlight.keys.sorted() { _ = threads.resume(thread, runsFree: true) }
        inFlight = [:]
        guard let waiter = lockWaiter else { return }
        lockWaiter = nil
        boxes[waiter.thread] = nil
        if let holder = model.files.values.compactMap(\.writer).first,
           let owner = model.realms[holder]?.owner, owner.rawValue - 1 != waiter.thread {
            let (engine, configuration) = (self.engine, self.configuration)
            _ = threads.start(owner.rawValue - 1, runsFree: true) {
                // A holder the harness released while accessors kept its instance alive
                // cannot be named any more: dropping every engine object ends that instance,
                // and with it the write (Spec W7).
                if case .failure = engine.perform(Step(owner, .cancelWrite(holder))) {
                    engine.reset(to: configuration)
                }
            }
        }
        switch threads.awaitLockAcquired(waiter.thread) {
        case .parked(.writeLockAcquired):
            _ = threads.resume(waiter.thread, runsFree: true)
        case .finished:
            break
        default:
            fail(.deadlock, "the write lock outlived its holder (Spec W8): \(waiter.step) never got it after the holder's write was cancelled and every engine object dropped")
        }
    }

    func reboot(onto next: SimStore) {
        // A power loss due after the poisoned steps belongs to the boot whose file was
        // poisoned: a crash ends those steps early, and left armed it would strike the next
        // boot's sound file at a moment no rule chose (with a commit in flight, say).
        crashAfterPoisoning = nil
        disk = next
        configuration._engine = .init(simulatedStore: next, hooks: engineHooks)
        engine.reset(to: configuration)
        deliveryOracle.reset()
        lastSeen = [:]
        lastCommitVersion = 0
    }

    /// After recovery the file must hold exactly the model's durable version (Spec D3, D9).
    func checkRecoveredContents() {
        guard failure == nil, let file = model.files[Runner.mainLocation], let expected = model.newestContents else { return }
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
            fail(.recovery, "after the crash the file holds \(observed); the model's durable \(file.newest) holds \(Observation.elements(expected))")
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

    // MARK: ending

    private func finish() {
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

    private func describeThreads() -> String {
        (0..<settings.threads).map { thread in
            let state: String
            if lockWaiter?.thread == thread { state = "waits for the write lock" }
            else if let step = inFlight[thread] { state = "parked in \(step.operation)" }
            else if let step = pending[thread] { state = "blocked before \(step.operation)" }
            else { state = "idle" }
            return "\(context(thread)) \(state)"
        }.joined(separator: ", ")
    }
}

/// What a running operation passed, for `Runner.switchesAway`.
struct OperationProgress {
    /// Past its linearization point: its model step may be taken now.
    var linearized = false
    /// A commit that published its version.
    var published = false
}

/// A closure the runner binds to itself after `init` and hands, before that, to the controlled
/// threads and the engine hooks: the switch decision (called while the caller holds the
/// token) and the hang report (read by the watchdog once the driver is stuck for good), so
/// calls never race with the driver.
final class LateBound<Argument, Result>: @unchecked Sendable {
    var call: (Argument) -> Result
    init(_ initial: @escaping (Argument) -> Result) { call = initial }
}

/// Carries an observation from a controlled thread to the driver.
final class ObservationBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Observation?
    func set(_ observation: Observation) { lock.withLock { value = observation } }
    func get() -> Observation { lock.withLock { value } ?? .failure(code: "harness", message: "no observation") }
}

/// The engine hooks of a run: crash capture and the controlled threads' parking.
final class RunHooks: @unchecked Sendable {
    private let lock = NSLock()
    private var armed: (point: CapturePoint, disk: SimStore)?
    private var pageWrites = 0
    private var captured: SimStore.State?
    var onYield: (@Sendable (YieldPoint) -> Void)?

    func arm(_ point: CapturePoint, disk: SimStore) {
        lock.withLock {
            armed = (point, disk)
            pageWrites = 0
            captured = nil
        }
    }

    func disarm() -> SimStore.State? {
        lock.withLock {
            armed = nil
            return captured
        }
    }

    private var armedFault: InjectedCommitFault?
    private var faultPageWrites = 0
    private var firedFault: FaultSite?

    func armFault(_ fault: InjectedCommitFault) {
        lock.withLock {
            armedFault = fault
            faultPageWrites = 0
            firedFault = nil
        }
    }

    /// The site where the armed fault struck, if it did; disarms it.
    func disarmFault() -> FaultSite? {
        lock.withLock {
            armedFault = nil
            return firedFault
        }
    }

    /// The engine's fault hook: the armed fault, once, at its site.
    func fault(_ site: FaultSite) -> InjectedFault? {
        lock.withLock {
            guard let armed = armedFault, firedFault == nil else { return nil }
            if armed.matches(site, pageWritesSoFar: faultPageWrites) {
                firedFault = site
                return armed.fault
            }
            if case .pageWrite = site { faultPageWrites += 1 }
            return nil
        }
    }

    /// Holds background group syncs (`EngineSide.groupSyncGate`).
    var groupSyncGate: GroupSyncGate?

    func yield(_ point: YieldPoint) {
        switch point {
        case .groupSyncBegins: lock.withLock { groupSyncGate }?.arrive()
        case .groupSyncEnds: lock.withLock { groupSyncGate }?.end()
        default: break
        }
        lock.withLock {
            guard let armed, captured == nil else { return }
            if armed.point.matches(point, pageWritesSoFar: pageWrites) {
                captured = armed.disk.captureState()
            }
            if case .pageWrite = point { pageWrites += 1 }
        }
        let park = lock.withLock { onYield }
        park?(point)
    }
}
