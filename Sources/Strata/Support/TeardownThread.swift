import Foundation

/// Runs teardown that uses Dispatch, or ends realms, on one long-lived thread of its own.
///
/// The thread that drops the last reference to a realm, a notification token or an actor's
/// scheduler may be exiting: a Foundation `Thread` releases its closure (and all it captured)
/// in a thread-specific destructor, and so does a thread's exit hook (`RealmLifetime`). On Linux,
/// Dispatch must not be used there: libdispatch frees the exiting thread's continuation cache in
/// its own destructor, and a later `async`, cancel or task resume refills a cache it then frees
/// again (a double free in `_dispatch_cache_cleanup`). So such teardown is handed over here,
/// through a mutex and a condition variable only, and never runs on the releasing thread.
///
/// The thread starts when the first realm file opens (`start()`), never from a destructor.
final class TeardownThread: @unchecked Sendable {
    static let shared = TeardownThread()

    private let condition = NSCondition()
    private var pending: [@Sendable () -> Void] = []  // under `condition`
    private var started = false  // under `condition`

    private init() {}

    /// Starts the thread, once; called on ordinary paths (opening a file), so that `run` never
    /// has to start it from a destructor.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !started else { return }
        started = true
        let thread = Thread { [self] in serve() }
        thread.name = "Strata teardown"
        thread.start()
    }

    /// Runs `work` soon on the teardown thread, which also releases what `work` captured.
    func run(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append(work)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            var batch = pending
            pending = []
            condition.unlock()
            for work in batch { work() }
            batch.removeAll()  // what the work captured ends here, on this thread
        }
    }
}
