import Dispatch
import Foundation
@_spi(StrataCheck) import Strata
@testable import StrataCheck
import Testing

/// Spec N24 / V7: a commit made by another process wakes this process's realms through the
/// file's `<file>.note` (an inotify watch, no polling): a queue realm's observer hears
/// `.didChange`, and the realm reads what the other process committed.
@Suite(.serialized) struct CrossProcessNotificationTests {
    /// What the queue's observer saw, read from the test's thread; and the realm, kept alive
    /// and used only on its queue.
    final class Heard: @unchecked Sendable {
        let lock = NSLock()
        var changes = 0
        let first = DispatchSemaphore(value: 0)
        var realm: Realm?
        var token: NotificationToken?
    }

    @Test func anotherProcessCommitWakesAQueueRealmsObserver() throws {
        let directory = StrataToolDirectory()
        let path = directory.file("shared.realm")
        let configuration = ProcessChild.configuration(path: path, engineBugs: [])
        let queue = DispatchQueue(label: "cross-process-observer")
        let heard = Heard()
        // Open, observe and keep the realm on its queue (Spec C4).
        try queue.sync {
            let realm = try Realm._open(configuration: configuration, queue: queue)
            heard.realm = realm
            heard.token = try realm._observe { notification, _ in
                guard notification == .didChange else { return }
                heard.lock.lock()
                heard.changes += 1
                heard.lock.unlock()
                heard.first.signal()
            }
        }
        defer {
            queue.sync {
                heard.token?.invalidate()
                heard.realm = nil
            }
        }
        let child = try ChildProcess.run("strata-fuzz", [
            "child-writer", "--file", path, "--seed", "5", "--id", "1", "--commits", "3",
        ])
        #expect(child.exitCode == 0, "\(child)")
        #expect(heard.first.wait(timeout: .now() + 20) == .success,
                "no .didChange arrived after another process committed")
        // The realm reads what the child committed (its batch counter among the Others).
        let others = queue.sync { (try? heard.realm?._objects(Other.self)._count()) ?? 0 }
        #expect(others > 0, "\(child)")
    }
}
