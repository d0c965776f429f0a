import Foundation
import Strata
import StrataStorage
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

final class RunLoopLeakItem: Object {
    @Persisted(primaryKey: true) var id: Int
}

/// A thread-confined realm schedules its autorefresh turns on its thread's run loop. A thread
/// that reads and exits without spinning its loop leaves the turn another thread's commit
/// scheduled in that loop; the loop must still be freed when the thread ends (each holds three
/// descriptors: epoll, eventfd, timerfd). A 10-minute `strata-fuzz run` ran out of descriptors
/// in its free runs before `RunLoopReference` held its loop weakly.
@Suite struct RunLoopLeakTests {
    /// Work for a raw thread (`runJoined`).
    final class Job: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread and returns once the thread has ended, thread-specific
    /// destructors (which free the thread's run loop) included.
    static func runJoined(_ body: @escaping () -> Void) {
        var thread = pthread_t()
        let job = Unmanaged.passRetained(Job(body)).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, job)
        precondition(created == 0, "pthread_create failed")
        pthread_join(thread, nil)
    }

    /// The process's timer descriptors: one per live run loop.
    static func timerDescriptorCount() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))
                == "anon_inode:[timerfd]"
        }.count
    }

    @Test func aRunLoopOfAnEndedThreadIsFreedWithTheTurnsLeftInIt() throws {
        let configuration = Realm.Configuration(
            fileURL: temporaryDirectory().appendingPathComponent("loops.realm"), objectTypes: [RunLoopLeakItem.self])
        let queue = DispatchQueue(label: "committer")
        let committer = try queue.sync { try Realm(configuration: configuration, queue: queue) }
        let threads = 60
        let before = Self.timerDescriptorCount()
        let failures = Lock<[String]>([])
        for id in 0..<threads {
            Self.runJoined {
                do {
                    let realm = try Realm(configuration: configuration)
                    _ = realm.objects(RunLoopLeakItem.self).count  // a read: its realm listens for commits
                    // Another context's commit schedules a turn on this thread's loop, never run.
                    try queue.sync { try committer.write { committer.add(RunLoopLeakItem(value: ["id": id])) } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let after = Self.timerDescriptorCount()
        // Leaking, each ended thread keeps its loop: `threads` more. Other tests' live loops
        // come and go meanwhile, far fewer than that.
        #expect(after - before < threads / 2, "timer descriptors \(before) -> \(after) after \(threads) threads")
        queue.sync { _ = committer }
    }
}
