import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Tells a thread that is blocked from one that is only slow, so that a deadlock verdict does
/// not depend on how busy the machine is.
///
/// A wait that runs out of `patience` asks `stillProgressing()`: the watched thread's own CPU
/// time must have grown by `minimumProgress` since the last window. A thread blocked in a
/// deadlock or a lost wake-up sleeps in the kernel and gains none, so it is called hung after
/// `patience`, as before; a thread that merely got little of a busy CPU keeps going, up to
/// `ceiling` in all (a livelock spins forever, and a hang guard must end somewhere).
struct HangWatch {
    /// CPU time a thread must gain in one window to count as running (a blocked thread gains
    /// microseconds at most, from wake-ups that find nothing to do).
    static let minimumProgress: UInt64 = 1_000_000
    /// The longest a progressing thread may take in all by default: a hang guard, not a speed
    /// limit.
    static let defaultCeiling: TimeInterval = 600

    let patience: TimeInterval
    let ceiling: TimeInterval
    private let clock: clockid_t?
    private let started: UInt64
    private var windowCPU: UInt64
    /// When the current window ends.
    private(set) var deadline: timespec

    /// Watches the thread whose CPU clock is `clock` (nil: unknown, so every window that runs
    /// out is a hang, as a plain timeout would have it).
    init(clock: clockid_t?, patience: TimeInterval, ceiling: TimeInterval = HangWatch.defaultCeiling) {
        self.clock = clock
        self.patience = patience
        self.ceiling = ceiling
        started = Monitor.nanoseconds()
        windowCPU = Self.cpuNanoseconds(clock) ?? 0
        deadline = Monitor.deadline(after: patience)
    }

    /// Whether the current window has ended (for a watcher that polls).
    var windowRanOut: Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return (now.tv_sec, now.tv_nsec) >= (deadline.tv_sec, deadline.tv_nsec)
    }

    /// After a window ran out: whether the thread gained CPU time in it (then a new window
    /// starts) rather than sat blocked.
    mutating func stillProgressing() -> Bool {
        guard Double(Monitor.nanoseconds() &- started) / 1e9 < ceiling,
            let now = Self.cpuNanoseconds(clock), now >= windowCPU &+ Self.minimumProgress
        else { return false }
        windowCPU = now
        deadline = Monitor.deadline(after: patience)
        return true
    }

    /// The calling thread's CPU clock.
    static func currentThreadClock() -> clockid_t? {
        var clock = clockid_t()
        return pthread_getcpuclockid(pthread_self(), &clock) == 0 ? clock : nil
    }

    static func cpuNanoseconds(_ clock: clockid_t?) -> UInt64? {
        guard let clock else { return nil }
        var time = timespec()
        guard clock_gettime(clock, &time) == 0, time.tv_sec >= 0, time.tv_nsec >= 0 else { return nil }
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
