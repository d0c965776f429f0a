import CStrataSupport
import Foundation
import StrataStorage

/// Real threads of which at most one runs harness code at a time (DESIGN §5 "Threads").
///
/// The driver gives a thread a job and waits until the job finishes or the thread parks at a
/// yield point inside the engine (the engine's `EngineHooks.yield` calls `park`). At a park
/// the driver chooses, from the choice stream, whether the thread goes on or another thread
/// runs: so an interleaving is a function of the stream and replays exactly.
///
/// A thread whose operation the model says must wait for the write lock is the one exception:
/// it is let go at `writeLockWait` and really blocks in the engine; it parks again at
/// `writeLockAcquired`, which the driver then expects only once the holder released the lock.
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

    private let condition = NSCondition()
    private var status: [Status]
    private var jobs: [(@Sendable () -> Void)?]
    /// Threads that park at the lock points (their operation must wait for the lock).
    private var lockWaiters: Set<Int> = []
    private var identities: [UInt64: Int] = [:]
    private var stopping = false
    private var started = 0
    /// Which yield points a running thread parks at (the driver may switch there).
    let switchPoints: @Sendable (YieldPoint) -> Bool
    /// How long the driver waits for a thread before calling it hung.
    let patience: TimeInterval

    init(count: Int, patience: TimeInterval = 10, switchPoints: @escaping @Sendable (YieldPoint) -> Bool) {
        status = Array(repeating: .idle, count: count)
        jobs = Array(repeating: nil, count: count)
        self.patience = patience
        self.switchPoints = switchPoints
        for index in 0..<count {
            let thread = Thread { [self] in self.serve(index) }
            thread.stackSize = 4 << 20
            thread.name = "strata-check-\(index)"
            thread.start()
        }
        condition.lock()
        while started < count { condition.wait() }
        condition.unlock()
    }

    /// Runs `job` on thread `index` until it finishes or parks.
    func start(_ index: Int, _ job: @escaping @Sendable () -> Void) -> Report {
        condition.lock()
        defer { condition.unlock() }
        precondition(status[index] == .idle, "thread \(index) is busy")
        jobs[index] = job
        status[index] = .running
        condition.broadcast()
        return awaitReport(index)
    }

    /// Lets a parked thread go on until it finishes or parks again.
    func resume(_ index: Int) -> Report {
        condition.lock()
        defer { condition.unlock() }
        guard case .parked = status[index] else { return .hung }
        status[index] = .running
        condition.broadcast()
        return awaitReport(index)
    }

    /// Starts `job` on thread `index` expecting it to block on the write lock: waits until it
    /// parks at `writeLockWait`, then lets it go without waiting.
    func startBlocking(_ index: Int, _ job: @escaping @Sendable () -> Void) -> Report {
        condition.lock()
        defer { condition.unlock() }
        precondition(status[index] == .idle, "thread \(index) is busy")
        lockWaiters.insert(index)
        jobs[index] = job
        status[index] = .running
        condition.broadcast()
        let report = awaitReport(index)
        guard report == .parked(.writeLockWait) else {
            lockWaiters.remove(index)
            return report
        }
        status[index] = .waitingForLock
        condition.broadcast()
        return report
    }

    /// Waits until a thread let go into the lock wait parks at `writeLockAcquired`.
    func awaitLockAcquired(_ index: Int) -> Report {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: patience)
        while status[index] == .waitingForLock {
            if !condition.wait(until: deadline) { return .hung }
        }
        lockWaiters.remove(index)
        if case .parked(let point) = status[index] { return .parked(point) }
        return status[index] == .idle ? .finished : .hung
    }

    /// Whether a thread let go into the lock wait has taken the lock (parked at acquisition).
    func hasAcquiredLock(_ index: Int) -> Bool {
        condition.withLock { lockWaiters.contains(index) && status[index] == .parked(.writeLockAcquired) }
    }

    private func awaitReport(_ index: Int) -> Report {
        let deadline = Date(timeIntervalSinceNow: patience)
        while status[index] == .running {
            if !condition.wait(until: deadline) { return .hung }
        }
        switch status[index] {
        case .idle: return .finished
        case .parked(let point): return .parked(point)
        case .running, .waitingForLock: return .hung
        }
    }

    /// The engine's yield hook: parks the calling thread if it is one of ours and the point is
    /// one where the driver may switch.
    func park(at point: YieldPoint) {
        let identity = strata_thread_identity()
        condition.lock()
        defer { condition.unlock() }
        guard let index = identities[identity] else { return }
        let isLockPoint = point == .writeLockWait || point == .writeLockAcquired
        if lockWaiters.contains(index) {
            guard isLockPoint else { return }
        } else {
            guard !isLockPoint, switchPoints(point) else { return }
        }
        status[index] = .parked(point)
        condition.broadcast()
        while case .parked = status[index] { condition.wait() }
    }

    /// Ends every thread; each must be idle or parked-and-abandoned.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve(_ index: Int) {
        condition.lock()
        identities[strata_thread_identity()] = index
        started += 1
        condition.broadcast()
        while true {
            while jobs[index] == nil && !stopping { condition.wait() }
            if stopping && jobs[index] == nil { break }
            let job = jobs[index]
            jobs[index] = nil
            condition.unlock()
            job?()
            condition.lock()
            status[index] = .idle
            condition.broadcast()
        }
        identities = identities.filter { $0.value != index }
        condition.unlock()
    }
}
