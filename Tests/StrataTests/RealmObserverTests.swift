import Foundation
import Strata
import Testing

/// Realm-level observers (`Realm.observe`) and how they meet refresh, beginWrite, autorefresh
/// and invalidate. Collection and object observers come with the notifications issue.
@Suite struct RealmObserverTests {
    private func commitInt(_ configuration: Realm.Configuration, _ value: Int) throws {
        try onOtherThread {
            let writer = try Realm(configuration: configuration)
            try writer.write { writer.create(IntObj.self, value: ["intCol": value]) }
        }
    }

    /// Counts callbacks by kind (confined to the observing thread; a class so closures share it).
    final class Calls {
        var didChange = 0
        var refreshRequired = 0
        var log: [String] = []
    }

    // Spec N1: local commits notify synchronously, even an empty write.
    @Test func localCommitNotifiesBeforeWriteReturns() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let calls = Calls()
            let token = realm.observe { notification, observed in
                #expect(notification == .didChange)
                #expect(observed == realm)
                calls.didChange += 1
            }
            #expect(calls.didChange == 0)
            try realm.write {}
            #expect(calls.didChange == 1)
            token.invalidate()
        }
    }

    // Spec N2, C13: a token invalidated from another thread stops its callback.
    @Test func tokenInvalidatedFromAnotherThread() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let calls = Calls()
            let token = realm.observe { _, _ in calls.didChange += 1 }
            try realm.write {}
            #expect(calls.didChange == 1)
            let sendable = Unchecked(token)
            try onOtherThread { _ = sendable.value.invalidate() }
            try realm.write {}
            #expect(calls.didChange == 1)
        }
    }

    // Spec V5, V4, N3: refresh() inside .didChange does nothing; inside
    // .refreshRequired it moves the realm, and a second refresh() returns false.
    @Test func refreshInsideCallbacks() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            realm.autorefresh = false
            _ = realm.objects(IntObj.self).count
            let calls = Calls()
            var results: [Bool] = []
            let token = realm.observe { notification, observed in
                switch notification {
                case .didChange:
                    calls.didChange += 1
                    if calls.didChange == 1 {
                        try? self.commitInt(configuration, 2)  // a newer version exists now
                        results.append(observed.refresh())  // Spec V5: false inside didChange
                    }
                case .refreshRequired:
                    calls.refreshRequired += 1
                    if calls.refreshRequired == 1 {
                        results.append(observed.refresh())  // moves: true
                        results.append(observed.refresh())  // nothing newer: false
                    }
                }
            }
            try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            #expect(results == [false])
            #expect(realm.objects(IntObj.self).count == 1)
            #expect(spinRunLoop { calls.refreshRequired >= 1 })
            #expect(results == [false, true, false])
            #expect(realm.objects(IntObj.self).count == 2)
            token.invalidate()
        }
    }

    // Spec V11, N3: beginWrite moves first and notifies before it returns; nothing
    // fires before it is called.
    @Test func beginWriteNotifiesAfterTheMove() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(IntObj.self).count
            var countsSeen: [Int] = []
            let token = realm.observe { _, observed in countsSeen.append(observed.objects(IntObj.self).count) }
            try self.commitInt(configuration, 1)
            #expect(countsSeen.isEmpty)  // no loop turn: nothing fired
            realm.beginWrite()
            #expect(countsSeen == [1])
            realm.cancelWrite()
            token.invalidate()
        }
    }

    // Spec V9, N3, N5: with autorefresh off, .refreshRequired sees the old count; a
    // beginWrite + cancelWrite inside moves the realm without calling the callback again.
    @Test func beginWriteInsideRefreshRequired() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            realm.autorefresh = false
            _ = realm.objects(IntObj.self).count
            let calls = Calls()
            let token = realm.observe { notification, observed in
                calls.log.append(
                    "\(notification == .didChange ? "didChange" : "refreshRequired") \(observed.objects(IntObj.self).count)"
                )
                if notification == .refreshRequired {
                    observed.beginWrite()
                    calls.log.append("in write \(observed.objects(IntObj.self).count)")
                    observed.cancelWrite()
                }
            }
            try self.commitInt(configuration, 1)
            #expect(spinRunLoop { !calls.log.isEmpty })
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(calls.log == ["refreshRequired 0", "in write 1"])
            token.invalidate()
        }
    }

    // Spec N5: inside .didChange, another thread's commit stays invisible; a
    // beginWrite moves the realm with no nested callback.
    @Test func beginWriteInsideDidChange() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(IntObj.self).count
            let calls = Calls()
            let token = realm.observe { _, observed in
                calls.didChange += 1
                calls.log.append("count \(observed.objects(IntObj.self).count)")
                try? self.commitInt(configuration, 2)
                calls.log.append("after bg \(observed.objects(IntObj.self).count)")
                observed.beginWrite()
                calls.log.append("in write \(observed.objects(IntObj.self).count)")
                observed.cancelWrite()
            }
            try self.commitInt(configuration, 1)
            #expect(spinRunLoop { calls.didChange >= 1 })
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(calls.didChange == 1)
            #expect(calls.log == ["count 1", "after bg 1", "in write 2"])
            token.invalidate()
        }
    }

    // Spec V14: after invalidate(), observers still hear of other threads' commits.
    @Test func observersOutliveInvalidate() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(IntObj.self).count
            let calls = Calls()
            let token = realm.observe { notification, _ in
                if notification == .didChange { calls.didChange += 1 }
            }
            realm.invalidate()
            try self.commitInt(configuration, 1)
            #expect(spinRunLoop { calls.didChange >= 1 })
            #expect(realm.objects(IntObj.self).count == 1)
            token.invalidate()
        }
    }

    // Spec C11: no observers outside a run loop; inside one, and on a queue, they work.
    @Test func observersNeedAnEventLoop() throws {
        let configuration = testConfiguration()
        let outside = try onOtherThread { () -> Realm.Error? in
            let realm = try Realm(configuration: configuration)
            return rejection { _ = try realm._observe { _, _ in } }
        }
        #expect(outside?.message.contains("Can only add notification blocks from within runloops.") == true)
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            #expect(rejection { _ = try realm._observe { _, _ in } } == nil)
        }
        let queue = DispatchQueue(label: "strata.test.observe")
        let onQueue = try queue.sync { () -> Realm.Error? in
            let realm = try Realm(configuration: configuration, queue: queue)
            return rejection { _ = try realm._observe { _, _ in } }
        }
        #expect(onQueue == nil)
    }

    // Spec F4, realm part: frozen realms take no observers; read-only realms neither.
    @Test func frozenRealmsTakeNoObservers() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let frozen = realm.freeze()
            let error = rejection { _ = try frozen._observe { _, _ in } }
            #expect(
                error?.message.contains("Frozen Realms do not change and do not have change notifications.") == true)
        }
    }

    // Spec V7, N3: autorefresh moves on a later loop turn and says .didChange.
    @Test func autorefreshNotifiesOnALaterTurn() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(IntObj.self).count
            var counts: [Int] = []
            let token = realm.observe { _, observed in counts.append(observed.objects(IntObj.self).count) }
            try self.commitInt(configuration, 1)
            #expect(counts.isEmpty)  // not inside the committer's call
            #expect(spinRunLoop { !counts.isEmpty })
            #expect(counts == [1])
            #expect(realm.objects(StrObj.self).count == 0 && realm.objects(IntObj.self).count == 1)
            token.invalidate()
        }
    }

    // Spec N3: with autorefresh off, after .refreshRequired, the move made by
    // beginWrite still says .didChange.
    @Test func everyMoveNotifiesAfterRefreshRequired() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            realm.autorefresh = false
            _ = realm.objects(IntObj.self).count
            let calls = Calls()
            let token = realm.observe { notification, observed in
                calls.log.append(
                    "\(notification == .didChange ? "didChange" : "refreshRequired") \(observed.objects(IntObj.self).count)"
                )
            }
            try self.commitInt(configuration, 1)
            #expect(spinRunLoop { !calls.log.isEmpty })
            realm.beginWrite()
            realm.cancelWrite()
            #expect(calls.log == ["refreshRequired 0", "didChange 1"])
            token.invalidate()
        }
    }

    // Spec N5: a write committed inside .didChange does not call that callback again,
    // now or later; the next outside commit calls it once.
    @Test func aCommitInsideDidChangeIsNotDelivered() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let calls = Calls()
            var first = true
            let token = realm.observe { _, observed in
                calls.didChange += 1
                calls.log.append("count \(observed.objects(IntObj.self).count)")
                if first {
                    first = false
                    _ = try? observed.write { observed.create(IntObj.self) }
                }
            }
            try realm.write { realm.create(IntObj.self) }
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(calls.log == ["count 1"])
            try realm.write { realm.create(IntObj.self) }
            #expect(calls.log == ["count 1", "count 3"])
            token.invalidate()
        }
    }

    // Spec W15 (Spec W15): observers cannot fail a write. A realm observer and a collection
    // observer whose callbacks make a failing call (a write on a frozen realm) and catch its
    // error: each commit still succeeds and leaves the realm outside a write, its object is
    // there, and a later begin succeeds. The callbacks did run and did fail.
    @Test func failingObserversDoNotFailTheWrite() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let frozen = try realm._freeze()
            let calls = Calls()
            var collectionCalls = 0
            let token = realm.observe { _, _ in
                calls.didChange += 1
                do { try frozen.write {} } catch { calls.log.append("realm observer: \(error)") }
            }
            let collectionToken = realm.objects(IntObj.self).observe { _ in
                collectionCalls += 1
                do { try frozen.write {} } catch { calls.log.append("collection observer: \(error)") }
            }
            #expect(spinRunLoop { collectionCalls == 1 })  // the initial callback
            for value in 1...3 {
                try realm.write { realm.create(IntObj.self, value: ["intCol": value]) }
                #expect(!realm.isInWriteTransaction)
                #expect(realm.objects(IntObj.self).count == value)
                #expect(spinRunLoop(seconds: hangGuardSeconds) { collectionCalls == value + 1 })
            }
            #expect(calls.didChange == 3)
            #expect(calls.log.count == 3 + 4, "\(calls.log)")
            #expect(
                calls.log.allSatisfy { $0.contains("Can't perform transactions on a frozen Realm") }, "\(calls.log)")
            #expect(rejection { try realm._beginWrite() } == nil)
            #expect(realm.isInWriteTransaction)
            realm.cancelWrite()
            token.invalidate()
            collectionToken.invalidate()
        }
    }
}
