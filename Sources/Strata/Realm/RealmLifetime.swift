import CStrataSupport
import Foundation
import Glibc
import StrataStorage

/// Keeps a live realm alive while it has work that only it can finish: an open write
/// transaction, or async writes queued, running or owed their completions (Spec C1, W7, A21).
///
/// Realm keeps such an instance alive too: an Objective-C realm lives until the autorelease
/// pool of the code that obtained it drains, and its async writes hold it until their
/// completions ran. So `try Realm().beginWrite()` followed by `try Realm().create(...)` in the
/// same context works on the one instance, and dropping every reference after
/// `beginAsyncWrite` still runs the block and its completion. What ends the hold:
///
/// - the work ending (commit, cancel, `invalidate()`, the last completion run);
/// - for a thread realm, the thread exiting: its instance is then released, and an open write
///   rolls back (W7), as a drained pool would release it.
///
/// Queue and actor realms have no such end: their hold lasts until the work ends.
///
/// One table for the process, under a lock: a realm is added and removed by its own context,
/// and a thread's exit removes that thread's realms (a thread-specific value whose destructor
/// runs at exit, set on the first hold of each thread).
///
/// An exiting thread does not end its realms itself: it hands them to `TeardownThread`, since
/// ending a realm may use Dispatch, which a thread-specific destructor must not.
enum RealmLifetime {
    private static let holds = Lock<[ObjectIdentifier: RealmCore]>([:])

    /// The thread-specific slot whose destructor reports a thread's exit; its value is the
    /// thread's identity plus one (non-zero, so the destructor runs).
    private static let exitKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            RealmLifetime.threadExited(UInt64(UInt(bitPattern: raw)) &- 1)
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// Holds `core` for its context until `release(_:)` (or its thread's exit).
    static func hold(_ core: RealmCore) {
        if case .thread(let identity) = core.confinement, pthread_getspecific(exitKey) == nil {
            TeardownThread.shared.start()  // here, not in the destructor, which must not start threads
            pthread_setspecific(exitKey, UnsafeRawPointer(bitPattern: UInt(identity &+ 1)))
        }
        holds.withLock { $0[ObjectIdentifier(core)] = core }
    }

    /// Ends the hold of `hold(_:)`. The caller still holds `core`, so it cannot end here.
    static func release(_ core: RealmCore) {
        _ = holds.withLock { $0.removeValue(forKey: ObjectIdentifier(core)) }
    }

    /// The realms of the thread `identity`, which exited: their holds end, and the table's
    /// references go to the teardown thread, which drops them, so that a realm nobody else holds
    /// ends there (W7), outside the lock, since `deinit` rolls back and takes other locks.
    private static func threadExited(_ identity: UInt64) {
        let released = holds.withLock { holds -> [RealmCore] in
            let leaving = holds.filter { $0.value.confinement == .thread(identity) }
            for key in leaving.keys { holds[key] = nil }
            return Array(leaving.values)
        }
        guard !released.isEmpty else { return }
        let handed = UncheckedCores(cores: released)
        TeardownThread.shared.run { _ = handed }  // the last reference, dropped there
    }

    /// Releases every realm of the file `fileKey` held for its work, as if each context had
    /// ended: an instance nobody else holds then ends, rolling back its write (W7). For the
    /// harness, which ends a run's contexts without ending their threads or queues.
    static func releaseAll(ofFile fileKey: String) {
        let released = holds.withLock { holds -> [RealmCore] in
            let leaving = holds.filter { $0.value.configuration.fileKey == fileKey }
            for key in leaving.keys { holds[key] = nil }
            return Array(leaving.values)
        }
        _ = released  // dropped here, outside the lock
    }
}

extension RealmCore {
    /// Whether the realm has work only it can finish (`RealmLifetime`).
    var hasUnfinishedWork: Bool { write != nil || asyncWrites.isBusy }

    /// Holds or releases the realm as its unfinished work begins or ends (`RealmLifetime`);
    /// called whenever `write` or `asyncWrites` changes. Whether it is held is its membership
    /// in the table alone (both calls are idempotent), which other threads change too (a
    /// thread's exit, the harness's end of a run): no flag of the realm's could follow them.
    func updateLifetimeHold() {
        guard !isFrozen else { return }
        if hasUnfinishedWork && !file.bugs.contains(.releasedWriterNotHeld) {
            RealmLifetime.hold(self)
        } else {
            RealmLifetime.release(self)
        }
    }
}

extension Realm {
    /// Releases every realm of `configuration`'s file held for its unfinished work, as if every
    /// context had ended (Spec C1, W7): the harness's end of a run.
    package static func _releaseContextHolds(of configuration: Configuration) {
        RealmLifetime.releaseAll(ofFile: configuration.fileKey)
    }
}

/// Realms handed to the teardown thread, which then alone touches them (`RealmCore` is
/// confined, so the compiler cannot see that the handover is the last use here).
private struct UncheckedCores: @unchecked Sendable {
    let cores: [RealmCore]
}
