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

    init(cleanup: (@Sendable () -> Void)? = nil) { self.cleanup = Mutex(cleanup) }

    /// Stops the observation. Safe from any thread, also inside the callback.
    public func invalidate() {
        invalidated.store(true, ordering: .releasing)
        let work = cleanup.withLock { work -> (@Sendable () -> Void)? in
            defer { work = nil }
            return work
        }
        work?()
    }

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
            observer.block(notification, Realm(core: self))
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
