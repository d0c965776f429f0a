import Foundation
import Strata
import StrataSimulation
import StrataStorage

// Free mode (Docs/architecture.md §5 "Threads"): K real threads, left to the OS, run random programs on one
// file through the Realm API at the same time, with no harness lock between them; each logs
// what it observed with version stamps, and `FreeChecker` judges the logs afterwards. Then a
// fresh realm reads the final contents and `Store.verify()` walks the file.
//
// What free mode cannot do: replay. The choice stream fixes the run's plan and each thread's
// program (their SplitMix64 seeds), not the interleaving, which the OS decides. A token of a
// free run therefore re-runs the same programs, which may or may not fail again, and there is
// no shrinking. What it gives in exchange: real parallelism (the yields of controlled mode
// serialise everything) and, under ThreadSanitizer, races the engine's locks do not prevent.

/// The settings of a free run.
public struct FreeSettings: Sendable, Hashable {
    public var store: CheckStore
    public var threads: Int
    /// Operations per thread.
    public var operationsPerThread: Int
    public var engineBugs: SeededBugSet
    /// Where file stores live.
    public var scratchDirectory: String
    /// How long the run waits for its threads before it calls them hung.
    public var patienceSeconds: Double

    public init(
        store: CheckStore = .file, threads: Int = 4, operationsPerThread: Int = 200,
        engineBugs: SeededBugSet = [], scratchDirectory: String = CheckSettings.defaultScratchDirectory,
        patienceSeconds: Double = 120
    ) {
        precondition(
            threads >= 1 && operationsPerThread >= 1, "a free run needs a thread and an operation")
        self.store = store
        self.threads = threads
        self.operationsPerThread = operationsPerThread
        self.engineBugs = engineBugs
        self.scratchDirectory = scratchDirectory
        self.patienceSeconds = patienceSeconds
    }

    /// A campaign's settings: `operations` per run, shared out among the threads.
    public init(_ settings: CheckSettings) {
        let threads = max(1, settings.threads)
        self.init(
            store: settings.store, threads: threads,
            operationsPerThread: max(1, (settings.operations + threads - 1) / threads),
            engineBugs: settings.engineBugs, scratchDirectory: settings.scratchDirectory)
    }

    /// The campaign settings these come from (what a replay token records).
    public var checkSettings: CheckSettings {
        CheckSettings(
            mode: .free, store: store, threads: threads, operations: threads * operationsPerThread,
            engineBugs: engineBugs, scratchDirectory: scratchDirectory)
    }
}

/// Counts of free runs.
public struct FreeStatistics: Sendable, Hashable {
    public var runs = 0
    public var operations = 0
    /// Reads through live realms, and through frozen ones, whose contents were checked.
    public var liveReads = 0
    public var frozenReads = 0
    public var commits = 0
    public var cancels = 0
    /// Refreshes and write starts (moves to the newest version).
    public var moves = 0
    public var freezes = 0
    /// Versions made (commits of the run's chain).
    public var versions = 0

    public init() {}

    public mutating func add(_ other: FreeStatistics) {
        runs += other.runs
        operations += other.operations
        liveReads += other.liveReads
        frozenReads += other.frozenReads
        commits += other.commits
        cancels += other.cancels
        moves += other.moves
        freezes += other.freezes
        versions += other.versions
    }

    /// The counts of one run's log.
    init(log: FreeLog, operations: Int) {
        runs = 1
        self.operations = operations
        for event in log.events {
            switch event.kind {
            case .read(let read): if read.frozen == nil { liveReads += 1 } else { frozenReads += 1 }
            case .commit: commits += 1
            case .cancel: cancels += 1
            case .move: moves += 1
            case .freeze: freezes += 1
            case .engineError: break
            }
        }
        versions = commits
    }
}

/// What a free run did and found.
public struct FreeResult: Sendable {
    public var settings: FreeSettings
    public var plan: FreePlan
    public var failure: FreeFailure?
    public var statistics: FreeStatistics
    public var log: FreeLog
    /// The choices the run drew (plan and thread seeds): a token of them re-runs the programs.
    public var choices: [UInt32]
    public var seconds: Double
}

/// One free run; see the file header.
public final class FreeRun {
    private let settings: FreeSettings
    private var stream: ChoiceStream
    private let runName: String
    private var disk: SimStore?
    private var configuration: Realm.Configuration
    private let hooks: EngineHooks

    private static let runCounter = Lock(0)
    /// A free run's simulated disk: its tables stay small (a few hundred objects at most).
    static let simulatedReservationBytes = 64 << 20

    /// - Throws: `StorageError` when the simulated disk cannot be made.
    public init(settings: FreeSettings, stream: ChoiceStream) throws {
        self.settings = settings
        self.stream = stream
        let number = Self.runCounter.withLock { counter -> Int in
            counter += 1
            return counter
        }
        runName = "free-\(getpid())-\(number)"
        hooks = EngineHooks(bugs: settings.engineBugs.engine)
        configuration = Realm.Configuration(objectTypes: CheckTypes.classes)
        configuration._api = settings.engineBugs.apiHooks
        switch settings.store {
        case .sim:
            let disk = try SimStore(name: runName, reservationBytes: Self.simulatedReservationBytes)
            self.disk = disk
            configuration.fileURL = URL(fileURLWithPath: "/strata-check/\(runName).realm")
            configuration._engine = .init(simulatedStore: disk, hooks: hooks)
        case .file:
            let path = (settings.scratchDirectory as NSString).appendingPathComponent(
                "\(runName).realm")
            _ = try? Store.deleteFiles(path: path)
            configuration.fileURL = URL(fileURLWithPath: path)
            configuration._engine = .init(hooks: hooks)
        }
    }

    /// Runs the threads, then checks; the file is deleted afterwards unless a thread hung.
    public func run() -> FreeResult {
        let started = FreeClock.nanos()
        if let recorder = FlightRecorder.current {  // a trap from here on leaves this run's token
            recorder.begin(settings: settings.checkSettings)
            stream.flightRecorder = recorder
        }
        defer { stream.flightRecorder?.end() }
        let plan = FreePlan.draw(&stream)
        let seeds = (0..<settings.threads).map { _ in
            UInt64(stream.draw(Int(UInt32.max))) << 32 | UInt64(stream.draw(Int(UInt32.max)))
        }
        var log = FreeLog(initialVersion: 0, events: [])
        var operations = 0
        let failure = execute(plan: plan, seeds: seeds, log: &log, operations: &operations)
        if failure?.kind != .hung { removeFiles() }
        let seconds = Double(FreeClock.nanos() - started) / 1e9
        return FreeResult(
            settings: settings, plan: plan, failure: failure,
            statistics: FreeStatistics(log: log, operations: operations), log: log,
            choices: stream.recorded, seconds: seconds)
    }

    /// Initial read, the threads, the final read, the checks: the first failure, if any.
    private func execute(plan: FreePlan, seeds: [UInt64], log: inout FreeLog, operations: inout Int)
        -> FreeFailure?
    {
        guard let initial = readWhole("the initial read") else {
            return FreeFailure(kind: .hung, message: "the initial read did not finish")
        }
        switch initial {
        case .failure(let error):
            return FreeFailure(kind: .engineError, message: "the initial read threw: \(error)")
        case .success(let (version, objects)):
            log.initialVersion = version
            log.initialObjects = objects
        }
        let exchange = FreeExchange()
        guard let logs = runThreads(plan: plan, seeds: seeds, exchange: exchange) else {
            return FreeFailure(
                kind: .hung,
                message: "a thread did not finish within \(settings.patienceSeconds) s "
                    + "(a deadlock or a lost wake-up in the engine); the file is left in place")
        }
        exchange.clear()  // its frozen realm's pin ends before the final read and the walk
        log.events = logs.flatMap(\.events)
        operations = logs.reduce(0) { $0 + $1.operations }
        switch readWhole("the final read") {
        case .none:
            return FreeFailure(kind: .hung, message: "the final read did not finish")
        case .failure(let error)?:
            return FreeFailure(kind: .engineError, message: "the final read threw: \(error)")
        case .success(let (version, objects))?:
            log.finalVersion = version
            log.finalObjects = objects
        }
        return FreeChecker.check(log) ?? verify()
    }

    /// Starts every thread at once and waits for them; nil when one did not finish in time.
    private func runThreads(
        plan: FreePlan, seeds: [UInt64],
        exchange: FreeExchange
    ) -> [(events: [FreeEvent], operations: Int)]? {
        let results = Lock<[Int: (events: [FreeEvent], operations: Int)]>([:])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let configuration = self.configuration
        let perThread = settings.operationsPerThread
        for (thread, seed) in seeds.enumerated() {
            done.enter()
            let worker = Thread {
                gate.wait()
                let worker = FreeWorker(
                    thread: thread, seed: seed, configuration: configuration, plan: plan,
                    exchange: exchange)
                let events = worker.run(operations: perThread)
                let operations = worker.operationsRun
                results.withLock { $0[thread] = (events, operations) }
                done.leave()
            }
            worker.stackSize = 4 << 20
            worker.name = "strata-free-\(thread)"
            worker.start()
        }
        for _ in seeds { gate.signal() }
        guard done.wait(timeout: .now() + settings.patienceSeconds) == .success else { return nil }
        return results.withLock { logs in (0..<seeds.count).compactMap { logs[$0] } }
    }

    /// Opens a realm on a fresh thread (so that no cached instance of the caller's thread,
    /// reading an old version, answers: Spec C1) and reads its version and every object.
    private func readWhole(_ what: String) -> Result<(UInt64, [FreeObject]), Realm.Error>? {
        let configuration = self.configuration
        let box = Lock<Result<(UInt64, [FreeObject]), Realm.Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result = Result { () throws(Realm.Error) -> (UInt64, [FreeObject]) in
                let realm = try Realm._open(configuration: configuration, queue: nil)
                let objects = try FreeWorker.wholeContents(of: realm)
                guard let version = realm._readVersion else {
                    throw Realm.Error(.fail, "strata-check: no read version after \(what)")
                }
                return (version, objects)
            }
            box.withLock { $0 = result }
            finished.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        guard finished.wait(timeout: .now() + settings.patienceSeconds) == .success else {
            return nil
        }
        return box.withLock { $0 }
    }

    /// `Store.verify()` on the file after the run: every page, tree and free-space rule.
    private func verify() -> FreeFailure? {
        let location: StoreLocation
        if let disk {
            location = .simulated(disk)
        } else if let path = configuration.fileURL?.path {
            location = .file(path)
        } else {
            return FreeFailure(kind: .verify, message: "the run has no file to verify")
        }
        do {
            let store = try Store.open(location, options: StoreOptions(create: false, hooks: hooks))
            defer { store.close() }
            let report = try store.verify()
            let damage = report.problems.filter(\.isDamage)
            guard damage.isEmpty else {
                return FreeFailure(
                    kind: .verify,
                    message: "Store.verify() after the run: "
                        + damage.map(\.description).joined(separator: "; "))
            }
            return nil
        } catch {
            return FreeFailure(
                kind: .verify,
                message: "Store.verify() after the run could not walk the file: \(error)")
        }
    }

    private func removeFiles() {
        guard disk == nil, let path = configuration.fileURL?.path else { return }
        _ = try? Store.deleteFiles(path: path)
    }
}
