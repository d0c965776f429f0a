import Dispatch
import Foundation
import Testing

@testable import Strata

/// Spec C13, C1: an observer holds its realm until its realm drops it; an `invalidate()` from
/// another thread asks for that drop before it returns, so the realm's next turn drops it and a
/// realm released there ends at its release (the harness opens such a queue realm again and
/// must get a new instance: the drop may not wait for the teardown thread, whose moment no
/// schedule orders).
@Suite struct TokenReleaseTests {
    /// A weak reference that may cross to the queue and back.
    private final class WeakCore: @unchecked Sendable {
        weak var core: RealmCore?
    }

    @Test("Spec C13, C1: a token invalidated elsewhere releases its queue realm at the queue's next turn")
    func invalidatedTokenReleasesItsQueueRealmAtTheNextTurn() throws {
        let configuration = testConfiguration("token-release.realm")
        let queue = DispatchQueue(label: "token-release")
        let weak = WeakCore()
        let token: NotificationToken = try queue.sync {
            let realm = try Realm(configuration: configuration, queue: queue)
            weak.core = realm.core
            return realm.objects(Dog.self).observe { _ in }
        }
        // Hold the teardown thread: whatever it would schedule waits until the end.
        let gate = DispatchSemaphore(value: 0)
        TeardownThread.shared.run { gate.wait() }
        defer { gate.signal() }
        queue.sync {}  // the initial delivery's turn
        #expect(weak.core != nil, "the observer holds its realm")
        token.invalidate()  // from this thread, not the queue
        queue.sync {}  // the queue's next turn
        #expect(weak.core == nil, "the invalidated observer still holds its realm")
    }
}
