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

    package func _observe(_ block: @escaping NotificationBlock) throws(Realm.Error) -> NotificationToken {
        try core.checkThread()
        // Realm's order (verifyNotificationsAreSupported): read-only, then frozen.
        if core.configuration.readOnly { throw Realm.Error.readOnlyObservation }
        if core.isFrozen { throw Realm.Error.frozenObservation }  // Spec F4, invalidated (F6) or not
        if case .thread = core.confinement, !Thread.isMainThread, RunLoop.current.currentMode == nil {
            throw Realm.Error.noRunLoop  // Spec C11: only from work the thread's loop runs
        }
        let token = NotificationToken()
        token.subscription.register(in: core)
        core.observers.append(RealmObserver(subscription: token.subscription, block: block))
        return token
    }
}

/// Ends an observation: `invalidate()` from any thread, or releasing the last reference to the
/// token, and the callback is never called again (Spec N2, C13). Sendable.
///
/// Hold the token for as long as the callbacks should come: releasing it ends the observation
/// as `invalidate()` does (Realm delivers "as long as a reference is held to the returned
/// notification token").
public final class NotificationToken: Sendable {
    let subscription: Subscription

    init(cleanup: (@Sendable (_ explicit: Bool) -> Void)? = nil) { subscription = Subscription(cleanup: cleanup) }

    /// Spec N23: a token for an observation that was never registered (asked for in a
    /// cancelled task, or whose value could not be resolved): already invalidated.
    static func neverLive() -> NotificationToken {
        let token = NotificationToken()
        token.subscription.markNeverLive()
        return token
    }

    deinit { subscription.invalidate(explicit: false) }  // Spec N2: released, the observation ends

    /// Stops the observation. Safe from any thread, also inside the callback. Once it returns
    /// the callback is not running and never runs again (a callback under way on another
    /// thread is waited for; Spec N2, C13). Returns true if this call stopped a live
    /// observation; false if it was stopped before or never registered (Spec N23).
    @discardableResult
    public func invalidate() -> Bool { subscription.invalidate() }

    var isInvalidated: Bool { subscription.isInvalidated }

    /// Makes this token's invalidation also invalidate `inner` (Spec N18: the observer made on
    /// another queue or actor), at once if this one is already invalidated; `inner` then stands
    /// for this token in its realm (Spec N4), and lives as long as this token.
    func forward(to inner: NotificationToken) { subscription.forward(to: inner) }
}

/// The state of one observation, shared by its token and its observer (which holds this, not
/// the token, so that releasing the token ends the observation). Sendable: atomics and locks.
final class Subscription: Sendable {
    /// Whose observer this is, for `withoutNotifying` (Spec N4).
    enum Owner: Sendable {
        case none
        /// Registered in the realm with this identity.
        case realm(ObjectIdentifier)
        /// Stands for an observation registered elsewhere (`observe(on:)`, Spec N18).
        case forwarded(NotificationToken)
    }

    private let invalidated = Atomic<Bool>(false)
    /// Run once by the first `invalidate()`: asks the realm to drop the observer (which holds
    /// the realm) on the realm's own scheduler; and the owner. Its argument says whether the
    /// invalidation was asked for (else the token's `deinit`, maybe on an exiting thread).
    private let state: Mutex<(cleanup: (@Sendable (_ explicit: Bool) -> Void)?, owner: Owner)>
    /// The thread running this subscription's callback (0: none), so that an `invalidate()`
    /// from another thread waits for that callback to return (Spec N2, C13).
    private let callback = CallbackGate()

    init(cleanup: (@Sendable (_ explicit: Bool) -> Void)?) { state = Mutex((cleanup, .none)) }

    fileprivate func markNeverLive() { invalidated.store(true, ordering: .releasing) }

    var isInvalidated: Bool { invalidated.load(ordering: .acquiring) }

    @discardableResult
    func invalidate(explicit: Bool = true) -> Bool {
        let wasLive = !invalidated.exchange(true, ordering: .acquiringAndReleasing)
        let work = state.withLock { state -> (@Sendable (_ explicit: Bool) -> Void)? in
            defer { state.cleanup = nil }
            return state.cleanup
        }
        work?(explicit)
        waitForCallbackElsewhere()
        return wasLive
    }

    /// Spec N4: registered as an observer of the realm `core`.
    func register(in core: RealmCore) {
        let identity = ObjectIdentifier(core)
        state.withLock { $0.owner = .realm(identity) }
    }

    /// The subscription that stands for this one in its realm, and that realm's identity; nil
    /// while it is registered nowhere (an `observe(on:)` not yet registered on its queue).
    var registration: (subscription: Subscription, realm: ObjectIdentifier)? {
        switch state.withLock({ $0.owner }) {
        case .none: return nil
        case .realm(let realm): return (self, realm)
        case .forwarded(let inner): return inner.subscription.registration
        }
    }

    fileprivate func forward(to inner: NotificationToken) {
        let already = state.withLock { state -> Bool in
            if isInvalidated { return true }
            let earlier = state.cleanup
            state.cleanup = { explicit in
                earlier?(explicit)
                inner.subscription.invalidate(explicit: explicit)
            }
            state.owner = .forwarded(inner)
            return false
        }
        if already { inner.invalidate() }
    }

    /// Runs one callback of this subscription's observer, unless it is invalidated; an
    /// `invalidate()` on another thread meanwhile returns only after it. `endsObservation`
    /// (`.deleted`, `.error`): invalidated as the callback starts, so it is the last. Returns
    /// whether the callback ran.
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
        running = ThreadIdentity.current
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
        let me = ThreadIdentity.current
        condition.lock()
        while running != 0 && running != me { condition.wait() }
        condition.unlock()
    }
}

/// One realm observer (confined to its realm).
final class RealmObserver {
    let subscription: Subscription
    let block: Realm.NotificationBlock
    /// Set while its callback runs: notifications for it are dropped then (Spec N5).
    var running = false

    init(subscription: Subscription, block: @escaping Realm.NotificationBlock) {
        self.subscription = subscription
        self.block = block
    }
}

extension RealmCore {
    /// Calls the realm observers, in the order they were added (Spec N1 to N5, N9).
    func notify(_ notification: Realm.Notification, skipping: [Subscription] = []) {
        observers.removeAll { $0.subscription.isInvalidated }
        guard !observers.isEmpty else { return }
        let pass = observers  // Spec N9: observers added by a callback start with the next pass
        for observer in pass {
            guard !observer.running, !observer.subscription.isInvalidated,
                !skipping.contains(where: { $0 === observer.subscription })
            else { continue }
            observer.running = true
            if notification == .didChange { didChangeDepth += 1 }
            observer.subscription.runCallback { observer.block(notification, Realm(core: self)) }
            if notification == .didChange { didChangeDepth -= 1 }
            observer.running = false
        }
    }
}

extension Realm.Error {
    static let frozenObservation = misuse("Frozen Realms do not change and do not have change notifications.")
    static let readOnlyObservation = misuse("Read-only Realms do not change and do not have change notifications.")
    static let noRunLoop = misuse("Can only add notification blocks from within runloops.")
    static let queryAfterChangesInWrite = misuse(
        "Cannot create asynchronous query after making changes in a write transaction.")
    static let incorrectRealmSkip = misuse(
        "Incorrect Realm: only notifications for the Realm being modified can be skipped.")
}
