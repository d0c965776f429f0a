import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One mutex with one condition variable per waiter, so that a hand-off wakes exactly the
/// thread it is for. (One shared condition wakes every idle thread at every hand-off: with
/// four threads that tripled the kernel's share of a run.)
final class Monitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let count: Int
    /// Bumped by every signal: a spinning waiter sees a hand-off without a futex round trip.
    private let signals = Atomic<Int>(0)

    init(conditions count: Int) {
        self.count = count
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        conditions = .allocate(capacity: count)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines are measured on the monotonic clock: a wall-clock step must not turn a
        // slow hand-off into a reported deadlock.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        for index in 0..<count { pthread_cond_init(conditions + index, &attributes) }
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        for index in 0..<count { pthread_cond_destroy(conditions + index) }
        conditions.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Wakes the thread waiting on `condition` (call with the lock held).
    func signal(_ condition: Int) {
        signals.add(1, ordering: .releasing)
        pthread_cond_signal(conditions + condition)
    }

    /// Waits on `condition` (call with the lock held; wake-ups may be spurious).
    func wait(_ condition: Int) { pthread_cond_wait(conditions + condition, mutex) }

    /// Waits on `condition` until `deadline`; false once the deadline has passed.
    func wait(_ condition: Int, until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(conditions + condition, mutex, &deadline) != ETIMEDOUT
    }

    /// Like `wait(_:until:)`, but first spins with the lock let go for up to `spin` seconds,
    /// returning as soon as any signal is sent. A controlled thread's answer usually comes back
    /// within microseconds, and sleeping on the futex for it cost the driver two kernel round
    /// trips per hand-off. May return without the caller's condition holding, like any wait.
    func wait(_ condition: Int, until deadline: timespec, spinningFor spin: TimeInterval) -> Bool {
        let seen = signals.load(ordering: .acquiring)
        unlock()
        let end = Monitor.nanoseconds() + UInt64(spin * 1e9)
        var changed = false
        while !changed {
            for _ in 0..<512 where !changed { changed = signals.load(ordering: .acquiring) != seen }
            if Monitor.nanoseconds() >= end { break }
        }
        lock()
        if changed || signals.load(ordering: .acquiring) != seen { return true }
        return wait(condition, until: deadline)
    }

    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The monotonic time `seconds` from now.
    static func deadline(after seconds: TimeInterval) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = Int(now.tv_nsec) + Int((seconds - seconds.rounded(.down)) * 1e9)
        return timespec(
            tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000,
            tv_nsec: nanoseconds % 1_000_000_000)
    }
}
