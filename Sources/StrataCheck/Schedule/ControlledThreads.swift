import Foundation
import Strata
import StrataStorage

/// Real threads of which at most one runs harness code at a time (Docs/architecture.md §5 "Threads").
///
/// The driver gives a thread a job and waits until the job finishes or the thread parks at a
/// yield point inside the engine (the engine's `EngineHooks.yield` calls `park`). At a switch
/// point the thread itself asks the driver's `decide` (the driver is waiting, so the thread
/// holds the token) whether another thread runs now; only then does it park and hand the
/// token back. The decision is a draw from the choice stream: an interleaving is a function of
/// the stream and replays exactly.
///
/// A thread whose operation the model says must wait for the write lock is the one exception:
/// it is let go at `writeLockWait`, must reach `writeLockBlocks` (a thread that gets the lock
/// there instead is reported at once), and really blocks in the engine; it parks again at
/// `writeLockAcquired`, which the driver then expects only once the holder released the lock.
///
/// An operation that nothing can interleave with (no other thread is inside the engine and the
/// operation has no switch point) may run `inline`: on the driver, which takes the thread's
/// identity for the call. The engine sees the same thread either way, and the run skips two
/// kernel hand-offs per operation (they cost ten times the operation itself).
final class ControlledThreads: @unchecked Sendable {
    enum Status: Equatable {
        case idle
        case running
        case parked(YieldPoint)
        /// Let go into a blocking wait for the write lock.
        case waitingForLock
    }

    /// What the driver saw after handing a thread the token.
    enum Report: Equatable {
        case finished
        case parked(YieldPoint)
        /// The thread neither finished nor parked in time: it blocked where the model says it
        /// must not (a deadlock or a lost wake-up).
        case hung
    }

    /// Conditions `0..<count` are the threads'; `count` is the driver's.
    private let monitor: Monitor
    private let driver: Int
    private var status: [Status]
    private var jobs: [(@Sendable () -> Void)?]
    /// Threads that run to the end of their job without parking at switch points.
    private var runsFree: [Bool]
    /// Threads that park at the lock points (their operation must wait for the lock).
    private var lockWaiters: Set<Int> = []
    private var identities: [UInt64: Int] = [:]
    /// Each thread's identity, for the driver to take when it runs an operation inline.
    private var identityOf: [UInt64]
    private var stopping = false
    private var started = 0
    /// Which yield points a running thread may switch at.
    let switchPoints: @Sendable (YieldPoint) -> Bool
    /// Asked by a thread at a switch point (while it holds the token): whether it parks so
    /// that another thread runs.
    private let decide: @Sendable (Int, YieldPoint) -> Bool
    /// How long the driver waits for a thread that gains no CPU time before calling it hung
    /// (`HangWatch`: a thread that is only slow on a busy machine is not hung).
    let patience: TimeInterval
    /// Each thread's CPU clock, for `HangWatch`.
    private var clocks: [clockid_t?]

    /// The inline operation under way, nil when none runs: what the watchdog reads.
    private let inline = Lock<HangWatch?>(nil)
    private let onInlineHang: @Sendable () -> String

    init(
        count: Int, patience: TimeInterval = 10, switchPoints: @escaping @Sendable (YieldPoint) -> Bool,
        decide: @escaping @Sendable (Int, YieldPoint) -> Bool,
        onInlineHang: @escaping @Sendable () -> String = { "" }
    ) {
        monitor = Monitor(conditions: count + 1)
        driver = count
        status = Array(repeating: .idle, count: count)
        jobs = Array(repeating: nil, count: count)
        runsFree = Array(repeating: false, count: count)
        identityOf = Array(repeating: 0, count: count)
        clocks = Array(repeating: nil, count: count)
        self.patience = patience
        self.switchPoints = switchPoints
        self.decide = decide
        self.onInlineHang = onInlineHang
        for index in 0..<count {
            let thread = Thread { [self] in self.serve(index) }
            thread.stackSize = 4 << 20
            thread.name = "strata-check-\(index)"
            thread.start()
        }
        monitor.lock()
        while started < count { monitor.wait(driver) }
        monitor.unlock()
        InlineWatchdog.shared.watch(self)
    }

    /// Runs `job` on thread `index` until it finishes or parks. A thread that `runsFree` never
    /// parks at a switch point (it runs to the end: a crash or the end of the run discards
    /// what it does, so no interleaving is drawn).
    func start(_ index: Int, runsFree free: Bool = false, _ job: @escaping @Sendable () -> Void) -> Report {
        monitor.lock()
        defer { monitor.unlock() }
        precondition(status[index] == .idle, "thread \(index) is busy")
        jobs[index] = job
        runsFree[index] = free
        status[index] = .running
        monitor.signal(index)
        return awaitReport(index)
    }

    /// Lets a parked thread go on until it finishes or parks again (never, if `runsFree`).
    func resume(_ index: Int, runsFree free: Bool = false) -> Report {
        monitor.lock()
        defer { monitor.unlock() }
        guard case .parked = status[index] else { return .hung }
        runsFree[index] = free
        status[index] = .running
        monitor.signal(index)
        return awaitReport(index)
    }

    /// Starts `job` on thread `index` expecting it to block on the write lock: waits until it
    /// parks at `writeLockWait`, then lets it go without waiting.
    func startBlocking(_ index: Int, _ job: @escaping @Sendable () -> Void) -> Report {
        monitor.lock()
        defer { monitor.unlock() }
        precondition(status[index] == .idle, "thread \(index) is busy")
        lockWaiters.insert(index)
        jobs[index] = job
        runsFree[index] = false
        status[index] = .running
        monitor.signal(index)
        let report = awaitReport(index)
        guard report == .parked(.writeLockWait) else {
            lockWaiters.remove(index)
            return report
        }
        // On to the point where it blocks: a thread that gets the lock instead (another
        // writer holds it) reports that now, the same in every replay, not at some later check.
        status[index] = .running
        monitor.signal(index)
        let next = awaitReport(index)
        guard next == .parked(.writeLockBlocks) else {
            lockWaiters.remove(index)
            return next
        }
        status[index] = .waitingForLock
        monitor.signal(index)
        return report
    }

    /// Waits until a thread let go into the lock wait parks at `writeLockAcquired`.
    func awaitLockAcquired(_ index: Int) -> Report {
        monitor.lock()
        defer { monitor.unlock() }
        var watch = HangWatch(clock: clocks[index], patience: patience)
        while status[index] == .waitingForLock {
            if !monitor.wait(driver, until: watch.deadline), !watch.stillProgressing() { return .hung }
        }
        lockWaiters.remove(index)
        if case .parked(let point) = status[index] { return .parked(point) }
        return status[index] == .idle ? .finished : .hung
    }

    /// Whether thread `index` has no job (its last one finished).
    func isIdle(_ index: Int) -> Bool { monitor.withLock { status[index] == .idle } }

    /// Waits, as `resume` does, for a thread whose report came back hung while it still runs
    /// (blocked in the engine, say on the write lock) to finish or park.
    func awaitRunning(_ index: Int) -> Report {
        monitor.lock()
        defer { monitor.unlock() }
        return awaitReport(index)
    }

    /// Whether a thread let go into the lock wait has taken the lock (parked at acquisition).
    func hasAcquiredLock(_ index: Int) -> Bool {
        monitor.withLock { lockWaiters.contains(index) && status[index] == .parked(.writeLockAcquired) }
    }

    /// Runs `job` on the calling (driver) thread as thread `index`. Only for an operation that
    /// cannot park: nothing else is inside the engine, so it cannot block on another thread.
    func runInline<T>(_ index: Int, _ job: () -> T) -> T {
        let identity = monitor.withLock { identityOf[index] }
        inline.withLock { $0 = HangWatch(clock: HangWatch.currentThreadClock(), patience: patience) }
        let result = ThreadIdentity.impersonating(identity, job)
        inline.withLock { $0 = nil }
        return result
    }

    /// An inline operation that blocks takes the driver with it, so nothing is left to report
    /// the deadlock: the watchdog ends the process with the run's replay token instead.
    fileprivate func checkInline() {
        let hung = inline.withLock { watch -> Bool in
            guard var current = watch, current.windowRanOut else { return false }
            defer { watch = current }
            return !current.stillProgressing()
        }
        guard hung else { return }
        fatalError(
            "StrataCheck: an operation run inline hung for \(patience) s (a deadlock in the engine); \(onInlineHang())")
    }

    /// How long the driver spins for a thread's report before sleeping (`Monitor`).
    static let driverSpin: TimeInterval = 50e-6

    /// Called with the lock held by the driver waiting for thread `index`.
    private func awaitReport(_ index: Int) -> Report {
        var watch = HangWatch(clock: clocks[index], patience: patience)
        while status[index] == .running {
            if !monitor.wait(driver, until: watch.deadline, spinningFor: ControlledThreads.driverSpin),
                !watch.stillProgressing()
            {
                return .hung
            }
        }
        switch status[index] {
        case .idle: return .finished
        case .parked(let point): return .parked(point)
        case .running, .waitingForLock: return .hung
        }
    }

    /// The engine's yield hook: parks the calling thread if it is one of ours and the point is
    /// one where the driver switches threads.
    func park(at point: YieldPoint) {
        // The driver running an operation inline never parks: nothing may run meanwhile.
        if ThreadIdentity.isImpersonating { return }
        // A pin or unpin may happen while the thread holds a lock (the API's, which the yield
        // point says, or the harness's `HarnessLock`, a value released inside it): the threads
        // run meanwhile could need it.
        switch point {
        case .pin(_, callerHoldsLock: true), .unpin(_, callerHoldsLock: true): return
        case .pinNewest, .pin, .unpin: if HarnessLockDepth.isHolding { return }
        default: break
        }
        let identity = ThreadIdentity.current
        monitor.lock()
        guard let index = identities[identity] else {
            monitor.unlock()
            return
        }
        let isLockPoint = point == .writeLockWait || point == .writeLockAcquired
        if lockWaiters.contains(index) {
            guard isLockPoint || point == .writeLockBlocks else {
                monitor.unlock()
                return
            }
        } else {
            // The write-lock points of a thread that does not wait are no switch points, but
            // the driver's decision hears of them: they mark how far the operation got.
            let hears = isLockPoint || point == .writeLockReleased || switchPoints(point)
            guard !runsFree[index], hears else {
                monitor.unlock()
                return
            }
            // The driver waits for this thread, which holds the token: it may run the
            // driver's decision itself and spare two hand-offs when the answer is "go on".
            monitor.unlock()
            guard decide(index, point) else { return }
            monitor.lock()
        }
        status[index] = .parked(point)
        monitor.signal(driver)
        while case .parked = status[index] { monitor.wait(index) }
        monitor.unlock()
    }

    /// Ends every thread; each must be idle or parked-and-abandoned.
    /// Whether no thread is inside a job (none is left parked or blocked in the engine).
    var areAllIdle: Bool { monitor.withLock { status.allSatisfy { $0 == .idle } } }

    func shutdown() {
        monitor.withLock {
            stopping = true
            for index in 0..<driver { monitor.signal(index) }
        }
    }

    private func serve(_ index: Int) {
        monitor.lock()
        identities[ThreadIdentity.current] = index
        identityOf[index] = ThreadIdentity.current
        clocks[index] = HangWatch.currentThreadClock()
        started += 1
        monitor.signal(driver)
        while true {
            while jobs[index] == nil && !stopping { monitor.wait(index) }
            if stopping && jobs[index] == nil { break }
            let job = jobs[index]
            jobs[index] = nil
            monitor.unlock()
            job?()
            monitor.lock()
            status[index] = .idle
            runsFree[index] = false
            monitor.signal(driver)
        }
        identities = identities.filter { $0.value != index }
        monitor.unlock()
    }
}

/// One thread for the whole process that looks, every second, for a driver stuck in an
/// inline operation (a thread per run would cost more than the runs' hand-offs saved).
private final class InlineWatchdog: @unchecked Sendable {
    static let shared = InlineWatchdog()

    private final class Entry {
        weak var threads: ControlledThreads?
        init(_ threads: ControlledThreads) { self.threads = threads }
    }

    private let entries = Lock<[Entry]>([])

    private init() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                let live = entries.withLock { list -> [ControlledThreads] in
                    list.removeAll { $0.threads == nil }
                    return list.compactMap(\.threads)
                }
                for threads in live { threads.checkInline() }
            }
        }
        thread.name = "strata-check-watchdog"
        thread.start()
    }

    func watch(_ threads: ControlledThreads) {
        entries.withLock { $0.append(Entry(threads)) }
    }
}
