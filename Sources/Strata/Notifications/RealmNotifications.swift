import CStrataSupport
import Foundation
import StrataStorage
import Synchronization

extension Realm {
    /// What a realm observer is told.
    public enum Notification: String, Sendable {
        /// The realm moved to a newer version, or committed (Spec N1, N3).
        case didChange = "RLMRealmDidChangeNotification"
        /// Another realm committed and this one, with autorefresh off, did not move (Spec N3).
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// A realm observer's callback: the notification and the realm.
    public typealias NotificationBlock = (_ notification: Notification, _ realm: Realm) -> Void

    /// Calls `block` on this realm's thread or queue after every change of the realm (Spec N1,
    /// N3) until the token is invalidated (Spec N2).
    ///
    /// - Precondition: a live, writable realm whose context runs an event loop: a serial queue,
    ///   the main thread, or a thread inside its run loop (Spec C11, F4).
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(block) }
    }

    @_spi(StrataCheck)
    public func _observe(_ block: @escaping NotificationBlock) throws(Realm.Error) -> NotificationToken {
        try core.checkThread()
        if core.isFrozen { throw Realm.Error.frozenObservation }  // Spec F4, invalidated (F6) or not
        if core.configuration.readOnly { throw Realm.Error.readOnlyObservation }
        if case .thread = core.confinement, !Thread.isMainThread, RunLoop.current.currentMode == nil {
            throw Realm.Error.noRunLoop  // Spec C11: only from work the thread's loop runs
        }
        let token = NotificationToken()
        core.observers.append(RealmObserver(token: token, block: block))
        return token
    }
}

/// Ends an observation: `invalidate()` from any thread, and the callback is never called again
/// (Spec N2, C13). Sendable.
public final class NotificationToken: Sendable {
    private let invalidated = Atomic<Bool>(false)
    /// Run once by the first `invalidate()`: asks the realm to drop the observer (which holds
    /// the realm) on the realm's own scheduler.
    private let cleanup: Mutex<(@Sendable () -> Void)?>
    /// The thread running this token's callback (0: none), so that an `invalidate()` from
    /// another thread waits for that callback to return (Spec N2, C13).
    private let callback = CallbackGate()

    init(cleanup: (@Sendable () -> Void)? = nil) { self.cleanup = Mutex(cleanup) }

    /// Spec N23: a token for an observation that was never registered (asked for in a
    /// cancelled task, or whose value could not be resolved): already invalidated.
    static func neverLive() -> NotificationToken {
        let token = NotificationToken()
        token.invalidated.store(true, ordering: .releasing)
        return token
    }

    /// Stops the observation. Safe from any thread, also inside the callback. Once it returns
    /// the callback is not running and never runs again (a callback under way on another
    /// thread is waited for; Spec N2, C13). Returns true if this call stopped a live
    /// observation; false if it was stopped before or never registered (Spec N23).
    @discardableResult
    public func invalidate() -> Bool {
        let wasLive = !invalidated.exchange(true, ordering: .acquiringAndReleasing)
        let work = cleanup.withLock { work -> (@Sendable () -> Void)? in
            defer { work = nil }
            return work
        }
        work?()
        waitForCallbackElsewhere()
        return wasLive
    }

    /// Runs one callback of this token's observer, unless the token is invalidated; an
    /// `invalidate()` on another thread meanwhile returns only after it. `endsObservation`
    /// (`.deleted`, `.error`): the token is invalidated as the callback starts, so it is the
    /// last. Returns whether the callback ran.
    @discardableResult
    func runCallback(endsObservation: Bool = false, _ body: () -> Void) -> Bool {
        // Checked under the gate `invalidate()` waits on, so a callback never starts after an
        // invalidate() elsewhere has returned.
        guard callback.enter(unless: { isInvalidated }) else { return false }
        if endsObservation { invalidate() }
        body()
        callback.leave()
        return true
    }

    private func waitForCallbackElsewhere() { callback.waitUnlessRunningHere() }

    var isInvalidated: Bool { invalidated.load(ordering: .acquiring) }

    /// Makes this token's invalidation also invalidate `inner` (Spec N18: the observer made on
    /// another queue), at once if this one is already invalidated.
    func forward(to inner: NotificationToken) {
        let already = cleanup.withLock { work -> Bool in
            if isInvalidated { return true }
            let earlier = work
            work = {
                earlier?()
                inner.invalidate()
            }
            return false
        }
        if already { inner.invalidate() }
    }
}

/// Which thread runs a token's callback, and a wait for it to end (Spec N2, C13).
private final class CallbackGate: @unchecked Sendable {
    private let condition = NSCondition()
    /// The thread running the callback (0: none). Guarded by `condition`.
    private var running: UInt64 = 0

    /// Marks the callback running on this thread, unless `refused()` (asked under the gate).
    func enter(unless refused: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if refused() { return false }
        running = strata_thread_identity()
        return true
    }

    func leave() {
        condition.lock()
        running = 0
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once no other thread runs the callback (the callback's own thread, which may
    /// invalidate from inside it, never waits for itself).
    func waitUnlessRunningHere() {
        let me = strata_thread_identity()
        condition.lock()
        while running != 0 && running != me { condition.wait() }
        condition.unlock()
    }
}

/// One realm observer (confined to its realm).
final class RealmObserver {
    let token: NotificationToken
    let block: Realm.NotificationBlock
    /// Set while its callback runs: notifications for it are dropped then (Spec N5).
    var running = false

    init(token: NotificationToken, block: @escaping Realm.NotificationBlock) {
        self.token = token
        self.block = block
    }
}

extension RealmCore {
    /// Calls the realm observers, in the order they were added (Spec N1 to N5, N9).
    func notify(_ notification: Realm.Notification, skipping: [NotificationToken] = []) {
        observers.removeAll { $0.token.isInvalidated }
        guard !observers.isEmpty else { return }
        let pass = observers  // Spec N9: observers added by a callback start with the next pass
        for observer in pass {
            guard !observer.running, !observer.token.isInvalidated,
                  !skipping.contains(where: { $0 === observer.token }) else { continue }
            observer.running = true
            if notification == .didChange { didChangeDepth += 1 }
            observer.token.runCallback { observer.block(notification, Realm(core: self)) }
            if notification == .didChange { didChangeDepth -= 1 }
            observer.running = false
        }
    }
}

extension Realm.Error {
    static let frozenObservation = misuse("Frozen Realms do not change and do not have change notifications.")
    static let readOnlyObservation = misuse("Read-only Realms do not change and do not have change notifications.")
    static let noRunLoop = misuse("Can only add notification blocks from within runloops.")
}
