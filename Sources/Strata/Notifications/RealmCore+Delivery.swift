import Foundation
import StrataStorage

// When collection and object observers are called (Spec N6 to N9, N12, N17).
extension RealmCore {
    /// Adds a collection or object observer; a collection's initial callback comes on a later
    /// turn of the realm's loop (Spec N8).
    func addNotifier(_ notifier: Notifier) {
        notifier.subscription.register(in: self)
        notifiers.append(notifier)
        if file.bugs.contains(.callbackInsideObserve) { return deliverPending() }  // seeded bug: Spec N8 broken
        scheduleDelivery()
    }

    /// Asks for a delivery turn on the realm's scheduler (at most one pending).
    func scheduleDelivery() {
        guard notifiers.contains(where: { !$0.subscription.isInvalidated }) else { return }
        listener?.schedule(.delivery)
    }

    /// A delivery turn: an autorefreshing realm first moves to the newest version (Spec N8:
    /// the initial callback shows the newest data), then every observer hears what changed.
    /// A turn that finds the realm in a write does nothing: the write's end (commit or cancel)
    /// schedules another.
    func deliveryTurn() {
        guard !isFrozen, write == nil, confinement.isCurrent else { return }
        if autorefresh, read != nil, didChangeDepth == 0, (try? moveToNewest()) == true { notify(.didChange) }
        deliverPending()
    }

    /// Calls every observer whose callback is not running with what changed since it last
    /// heard, in the order they were added (Spec N6, N7). Observers added by a callback of
    /// this pass wait for the next one (N9).
    func deliverPending() {
        NotificationDelivery.adjust(1)
        defer { NotificationDelivery.adjust(-1) }
        pruneNotifiers()
        guard !notifiers.isEmpty, !isFrozen else { return }
        let pass = notifiers
        for notifier in pass where !notifier.running && !notifier.subscription.isInvalidated {
            notifier.running = true
            didChangeDepth += 1  // Spec V5: refresh() inside any callback does nothing
            notifier.deliver(in: self)
            didChangeDepth -= 1
            notifier.running = false
        }
    }

    /// Spec N4: the observers of `skipped` take the realm's version as delivered, silently.
    func rebaseNotifiers(skipping skipped: [Subscription]) {
        guard !skipped.isEmpty else { return }
        if file.bugs.contains(.skippedTokenStillNotified) { return }  // seeded bug: Spec N4 broken
        for notifier in notifiers where skipped.contains(where: { $0 === notifier.subscription }) {
            notifier.skip(in: self)
        }
    }

    /// Drops the observers whose tokens were invalidated (and their pins). Whether a turn the
    /// realm's scheduler ran earlier pruned them already is timing, so this counts as delivery
    /// (`NotificationDelivery`).
    func pruneNotifiers() {
        NotificationDelivery.adjust(1)
        defer { NotificationDelivery.adjust(-1) }
        notifiers.removeAll { notifier in
            guard notifier.subscription.isInvalidated else { return false }
            notifier.dropPin()
            return true
        }
    }

    /// The checks of an observe call that delivers on another queue (Spec N18, N19, F4).
    func checkObservableFromAnyContext() throws(Realm.Error) {
        try checkThread()
        // Realm's order (verifyNotificationsAreSupported): read-only, then frozen.
        if configuration.readOnly { throw Realm.Error.readOnlyObservation }
        if isFrozen { throw Realm.Error.frozenObservation }
    }

    /// The checks of every observe call delivering on this realm's scheduler (Spec N19, F4,
    /// C11).
    func checkObservable() throws(Realm.Error) {
        try checkObservableFromAnyContext()
        if scheduler == nil || listener == nil { throw Realm.Error.noRunLoop }
        if case .thread = confinement, !Thread.isMainThread, RunLoop.current.currentMode == nil {
            throw Realm.Error.noRunLoop  // Spec C11: only from work the thread's loop runs
        }
        if writeHasChanges { throw Realm.Error.queryAfterChangesInWrite }  // Spec N25
    }
}

/// Whether the calling thread is delivering notifications or dropping invalidated observers
/// (`deliverPending`, `pruneNotifiers`). What these pin and unpin depends on what the realm's
/// earlier turns did, and a queue realm's turns run when Dispatch runs them: the harness's
/// controlled scheduler takes no switch at these pins, so that a run's schedule never depends
/// on that timing.
package enum NotificationDelivery {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// Whether the calling thread is inside a delivery.
    package static var isDeliveringOnCurrentThread: Bool { pthread_getspecific(key) != nil }

    fileprivate static func adjust(_ delta: Int) {
        let depth = Int(bitPattern: pthread_getspecific(key)) + delta
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth))
    }
}
