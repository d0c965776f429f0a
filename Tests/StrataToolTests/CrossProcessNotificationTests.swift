import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataCheck

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
        let directory = TemporaryDirectory()
        let path = directory.file("shared.realm")
        let configuration = ChildWriter.configuration(path: path, engineBugs: [])
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
        let child = try ChildProcess.run(
            "strata-fuzz",
            [
                "child-writer", "--file", path, "--seed", "5", "--id", "1", "--commits", "3",
            ])
        #expect(child.exitCode == 0, "\(child)")
        #expect(
            heard.first.wait(timeout: .now() + hangGuardSeconds) == .success,
            "no .didChange arrived after another process committed")
        // The realm reads what the child committed (its batch counter among the Others).
        let others = queue.sync { (try? heard.realm?._objects(Other.self)._count()) ?? 0 }
        #expect(others > 0, "\(child)")
    }

    /// What a queue's collection observer got (appended on the queue, read under the lock).
    final class Updates: @unchecked Sendable {
        let lock = NSLock()
        var entries: [(keys: [Int], deletions: [Int], insertions: [Int], modifications: [Int])] = []
        let arrived = DispatchSemaphore(value: 0)
        var realm: Realm?
        var token: NotificationToken?
    }

    // Spec N24, N11, N13: another process's commits reach a collection observer, and a
    // property it changed is a modification although this process has no record of the
    // write (the rows of the two versions are compared).
    @Test func anotherProcessCommitReachesCollectionObservers() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("shared.realm")
        let configuration = ChildWriter.configuration(path: path, engineBugs: [])
        let queue = DispatchQueue(label: "cross-process-collection-observer")
        let updates = Updates()
        try queue.sync {
            let realm = try Realm._open(configuration: configuration, queue: queue)
            updates.realm = realm
            let others = try realm._objects(Other.self)
            updates.token = try others._observe { change in
                let keys = others.map(\.primaryKey)
                updates.lock.lock()
                switch change {
                case .initial: updates.entries.append((keys, [], [], []))
                case .update(_, let deletions, let insertions, let modifications):
                    updates.entries.append((keys, deletions, insertions, modifications))
                case .error: break
                }
                updates.lock.unlock()
                updates.arrived.signal()
            }
        }
        defer {
            queue.sync {
                updates.token?.invalidate()
                updates.realm = nil
            }
        }
        #expect(updates.arrived.wait(timeout: .now() + hangGuardSeconds) == .success, "no initial callback")
        for round in 0..<2 {
            let child = try ChildProcess.run(
                "strata-fuzz",
                [
                    "child-writer", "--file", path, "--seed", "5", "--id", "1", "--commits", "1",
                ])
            #expect(child.exitCode == 0, "\(child)")
            #expect(
                updates.arrived.wait(timeout: .now() + hangGuardSeconds) == .success,
                "round \(round): no update arrived")
        }
        let entries = updates.lock.withLock { updates.entries }
        try #require(entries.count == 3, "\(entries)")
        let counter = ProcessPlan.counterKey(child: 1)
        // First run: the counter and one commit record are new.
        #expect(
            entries[1].insertions.count == 2 && entries[1].deletions.isEmpty && entries[1].modifications.isEmpty,
            "\(entries[1])")
        // Second run: one more record, and the counter, rewritten, is the one modification.
        let old = entries[1].keys
        #expect(entries[2].insertions.count == 1 && entries[2].deletions.isEmpty, "\(entries[2])")
        #expect(entries[2].modifications.map { old[$0] } == [counter], "\(entries[2])")
        for index in 1..<entries.count {
            var keys = entries[index - 1].keys
            for deletion in entries[index].deletions.reversed() { keys.remove(at: deletion) }
            for insertion in entries[index].insertions { keys.insert(entries[index].keys[insertion], at: insertion) }
            #expect(keys == entries[index].keys, "update \(index) does not apply")
        }
    }
}
