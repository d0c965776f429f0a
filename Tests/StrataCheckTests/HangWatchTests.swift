import Foundation
import Testing

@testable import StrataCheck

#if canImport(Glibc)
    import Glibc
#endif

/// The harness's deadlock verdict (`HangWatch`): a thread blocked in the kernel is hung once a
/// window runs out; a thread that is only slow (it gains CPU time, however little of a busy
/// machine it gets) is not. Each verdict here waits on CPU time gained, never on the clock.
@Suite struct HangWatchTests {
    /// A thread whose CPU clock `body` receives while the thread spins or blocks as told.
    private final class Subject: @unchecked Sendable {
        let clock = ResultBoxLite<clockid_t?>()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let spun = DispatchSemaphore(value: 0)

        /// Spins until its own CPU time grew by `nanoseconds`, then reports and blocks.
        func start(spinningFor nanoseconds: UInt64) {
            let thread = Thread { [self] in
                let own = HangWatch.currentThreadClock()
                clock.set(own)
                go.wait()
                let start = HangWatch.cpuNanoseconds(own) ?? 0
                while (HangWatch.cpuNanoseconds(own) ?? UInt64.max) < start &+ nanoseconds {}
                spun.signal()
                done.wait()
            }
            thread.start()
        }
    }

    @Test func aThreadThatGainsCPUTimeIsStillProgressing() throws {
        let subject = Subject()
        subject.start(spinningFor: 3 * HangWatch.minimumProgress)
        let clock = try #require(subject.clock.get())
        var watch = HangWatch(clock: clock, patience: 0)
        subject.go.signal()
        subject.spun.wait()
        let progressing = watch.stillProgressing()
        #expect(progressing)
        subject.done.signal()
    }

    @Test func aBlockedThreadIsHungAndAnUnknownClockIsToo() throws {
        let subject = Subject()
        subject.start(spinningFor: 0)
        let clock = try #require(subject.clock.get())
        subject.go.signal()
        subject.spun.wait()
        // The subject now sleeps on `done`: from here on it gains no CPU time.
        var watch = HangWatch(clock: clock, patience: 0)
        usleep(20_000)
        let blocked = !watch.stillProgressing()
        #expect(blocked)
        var blind = HangWatch(clock: nil, patience: 0)
        let unknown = !blind.stillProgressing()
        #expect(unknown)
        subject.done.signal()
    }

    @Test func progressEndsAtTheCeiling() throws {
        let subject = Subject()
        subject.start(spinningFor: 3 * HangWatch.minimumProgress)
        let clock = try #require(subject.clock.get())
        var watch = HangWatch(clock: clock, patience: 0, ceiling: 0)
        subject.go.signal()
        subject.spun.wait()
        let ended = !watch.stillProgressing()
        #expect(ended)
        subject.done.signal()
    }
}

/// A value handed from one thread to another once.
private final class ResultBoxLite<T>: @unchecked Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private var value: T?
    func set(_ new: T) {
        value = new
        ready.signal()
    }
    func get() -> T? {
        ready.wait()
        ready.signal()
        return value
    }
}
