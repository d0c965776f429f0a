import Foundation
import Strata
import StrataStorage
import Testing

/// Collection observers (`Results.observe`, `List.observe`): when they are called and the
/// change sets they get (Spec N2, N4 to N13, N17 to N19).
@Suite struct CollectionNotificationTests {
    /// The callbacks one observer got, as text: "initial 4", "update 3 d[3] i[] m[]".
    final class Log {
        var entries: [String] = []
        var count: Int { entries.count }
        var last: String? { entries.last }

        func record<C: Collection>(_ change: RealmCollectionChange<C>) {
            switch change {
            case .initial(let collection): entries.append("initial \(collection.count)")
            case .update(let collection, let deletions, let insertions, let modifications):
                // A List whose owner was deleted is invalid: its count cannot be read.
                let invalid = (collection as? any ThreadConfined)?.isInvalidated ?? false
                let count = invalid ? "invalidated" : "\(collection.count)"
                entries.append("update \(count) d\(deletions) i\(insertions) m\(modifications)")
            case .error(let error): entries.append("error \(error)")
            }
        }
    }

    private func commitInts(_ configuration: Realm.Configuration, _ values: [Int]) throws {
        try onOtherThread {
            let writer = try Realm(configuration: configuration)
            try writer.write { for value in values { writer.create(IntObj.self, value: ["intCol": value]) } }
        }
    }

    /// Objects 0..9 and the query `0 < intCol < 5` over them (Spec N11).
    private func zeroToNine(_ realm: Realm) throws -> Results<IntObj> {
        try realm.write { for value in 0..<10 { realm.create(IntObj.self, value: ["intCol": value]) } }
        return realm.objects(IntObj.self).where { $0.intCol > 0 && $0.intCol < 5 }
    }

    private func object(_ realm: Realm, _ value: Int) throws -> IntObj {
        try required(realm.objects(IntObj.self).where { $0.intCol == value }.first, "object \(value)")
    }

    // Spec N8: the initial callback comes later, with the current contents.
    @Test func initialCallbackIsLaterWithCurrentContents() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            let log = Log()
            let token = realm.objects(IntObj.self).where { $0.intCol > 0 }.observe { log.record($0) }
            #expect(log.count == 0, "the initial callback ran inside observe")
            #expect(spinRunLoop { log.count == 1 })
            #expect(log.entries == ["initial 1"])
            token.invalidate()
        }
    }

    // Spec N11, N13: the objects a commit set are the modifications, at their old indices,
    // whether the commit set a few of a large collection's objects or most of them; an
    // observer that follows links also hears of a change to a linked object.
    @Test(arguments: [3, 40])
    func modificationsOfFewAndOfManyObjects(changed: Int) throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for value in 0..<60 { realm.create(IntObj.self, value: ["intCol": value]) }
                for value in 0..<5 { realm.create(Owner.self, value: ["name": "o\(value)", "dog": ["age": value]]) }
            }
            let log = Log()
            let owners = Log()
            let token = realm.objects(IntObj.self).observe { log.record($0) }
            let ownersToken = realm.objects(Owner.self).observe { owners.record($0) }
            #expect(spinRunLoop { log.count == 1 && owners.count == 1 })
            let changedIndices = Array(stride(from: 1, to: 60, by: 60 / changed).prefix(changed))
            try realm.write {
                let all = Array(realm.objects(IntObj.self))
                for index in changedIndices { all[index].intCol += 100 }
                realm.objects(Dog.self).where { $0.age == 2 }.first?.age = 20
            }
            #expect(spinRunLoop { log.count == 2 && owners.count == 2 })
            #expect(log.last == "update 60 d[] i[] m\(changedIndices)")
            #expect(owners.last == "update 5 d[] i[] m[2]")
            token.invalidate()
            ownersToken.invalidate()
        }
    }

    // Spec N7: one update per commit, local or from another thread, in order.
    @Test func oneUpdatePerCommitLocalAndBackground() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let log = Log()
            let token = realm.objects(IntObj.self).observe { log.record($0) }
            #expect(spinRunLoop { log.count == 1 })
            try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            #expect(log.count == 1, "a local commit called a collection observer synchronously")
            #expect(spinRunLoop { log.count == 2 })
            try commitInts(configuration, [2])
            #expect(spinRunLoop { log.count == 3 })
            #expect(log.entries == ["initial 0", "update 1 d[] i[0] m[]", "update 2 d[] i[1] m[]"])
            token.invalidate()
        }
    }

    // Spec N10: delivered Results keep their query and sort and equal the
    // observed Results; they can be filtered and sorted further.
    @Test func deliveredResultsKeepQueryAndSort() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let observed = realm.objects(IntObj.self).where { $0.intCol > 0 }.sorted(
                byKeyPath: "intCol", ascending: false)
            var firsts: [Int] = []
            var counts: [Int] = []
            let token = observed.observe { change in
                guard case .update(let results, _, _, _) = change else { return }
                #expect(Array(results.map(\.intCol)) == Array(observed.map(\.intCol)))
                firsts.append(results.first?.intCol ?? -100)
                counts.append(results.where { $0.intCol > 1 }.count)
            }
            #expect(spinRunLoop(seconds: 0.2) { false } == false)
            try realm.write {
                realm.create(IntObj.self, value: ["intCol": 1])
                realm.create(IntObj.self, value: ["intCol": -11])
            }
            #expect(spinRunLoop { firsts.count == 1 })
            try realm.write { realm.create(IntObj.self, value: ["intCol": -1]) }
            #expect(spinRunLoop(seconds: 0.3) { firsts.count == 2 } == false, "a non-matching insert called back")
            try realm.write { realm.create(IntObj.self, value: ["intCol": 2]) }
            #expect(spinRunLoop { firsts.count == 2 })
            #expect(firsts == [1, 2])
            #expect(counts == [0, 1])
            token.invalidate()
        }
    }

    // Spec N11: commits to another type or another parent's list call nothing.
    @Test func unrelatedCommitsCallNothing() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let first = try addHolderWithOneInt(to: realm)
            let second = try addHolderWithOneInt(to: realm)
            let results = Log()
            let list = Log()
            let tokens = [
                realm.objects(IntObj.self).observe { results.record($0) },
                first.intArray.observe { list.record($0) },
            ]
            #expect(spinRunLoop { results.count == 1 && list.count == 1 })
            try realm.write { realm.create(StrObj.self, value: ["stringCol": "other type"]) }
            try realm.write { second.intArray.removeAll() }
            #expect(
                spinRunLoop(seconds: 0.3) { results.count > 1 || list.count > 1 } == false,
                "an unrelated commit called back: \(results.entries) \(list.entries)")
            // Both observers are live: a change of their own calls each once.
            try realm.write { first.intArray.append(IntObj()) }
            #expect(spinRunLoop { results.count == 2 && list.count == 2 })
            #expect(results.entries == ["initial 2", "update 3 d[] i[2] m[]"])
            #expect(list.entries == ["initial 1", "update 2 d[] i[1] m[]"])
            for token in tokens { token.invalidate() }
        }
    }

    /// Runs `change` in one write over 0..9 observed through `0 < intCol < 5` (sorted or not)
    /// and returns what the observer got after the initial callback: it waits for `updates`
    /// of them, then a little longer for any that should not come.
    private func changeOverZeroToNine(
        sorted: Bool = false, expecting updates: Int = 1,
        _ change: @escaping @Sendable (Realm) throws -> Void
    ) throws -> [String] {
        let configuration = testConfiguration()
        let box = ResultBox<[String]>()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var results = try zeroToNine(realm)
            if sorted { results = results.sorted(byKeyPath: "intCol") }
            let log = Log()
            let token = results.observe { log.record($0) }
            #expect(spinRunLoop { log.count == 1 })
            try realm.write { try change(realm) }
            _ = spinRunLoop { log.count >= 1 + updates }
            _ = spinRunLoop(seconds: 0.3) { log.count > 1 + updates }
            token.invalidate()
            box.set(.success(Array(log.entries.dropFirst())))
        }
        return try box.get()
    }

    private func set(_ realm: Realm, _ from: Int, to value: Int) throws {
        let object = try required(realm.objects(IntObj.self).where { $0.intCol == from }.first, "object \(from)")
        object.intCol = value
    }

    private func delete(_ realm: Realm, _ value: Int) throws {
        realm.delete(realm.objects(IntObj.self).where { $0.intCol == value })
    }

    // Spec N11: which changes call back for `0 < intCol < 5`, sorted or not.
    @Test(arguments: [false, true])
    func whichChangesCallBack(sorted: Bool) throws {
        // Callback: insert a match; modify a match that stays; modify a match away; modify a
        // non-match into the range; delete a match.
        #expect(try changeOverZeroToNine(sorted: sorted) { $0.create(IntObj.self, value: ["intCol": 3]) }.count == 1)
        #expect(try changeOverZeroToNine(sorted: sorted) { try self.set($0, 2, to: 2) }.count == 1)
        #expect(try changeOverZeroToNine(sorted: sorted) { try self.set($0, 2, to: 7) }.count == 1)
        #expect(try changeOverZeroToNine(sorted: sorted) { try self.set($0, 7, to: 3) }.count == 1)
        #expect(try changeOverZeroToNine(sorted: sorted) { try self.delete($0, 3) }.count == 1)
        // No callback: insert a non-match; modify a non-match that stays one; delete a
        // non-match at either end (for the sorted query, this shifts matches in storage).
        #expect(
            try changeOverZeroToNine(sorted: sorted, expecting: 0) { $0.create(IntObj.self, value: ["intCol": 9]) }
                .isEmpty)
        #expect(try changeOverZeroToNine(sorted: sorted, expecting: 0) { try self.set($0, 8, to: 9) }.isEmpty)
        #expect(try changeOverZeroToNine(sorted: sorted, expecting: 0) { try self.delete($0, 0) }.isEmpty)
        #expect(try changeOverZeroToNine(sorted: sorted, expecting: 0) { try self.delete($0, 9) }.isEmpty)
    }

    // Spec N13: the indices of each change, whatever the order in the transaction.
    @Test func changeIndices() throws {
        #expect(try changeOverZeroToNine { $0.create(IntObj.self, value: ["intCol": 3]) } == ["update 5 d[] i[4] m[]"])
        #expect(
            try changeOverZeroToNine { realm in
                for value in [5, 3] { realm.create(IntObj.self, value: ["intCol": value]) }
            } == ["update 5 d[] i[4] m[]"])
        #expect(
            try changeOverZeroToNine { realm in
                for value in [5, 3, 5, 2] { realm.create(IntObj.self, value: ["intCol": value]) }
            } == ["update 6 d[] i[4, 5] m[]"])
        #expect(try changeOverZeroToNine { try self.set($0, 3, to: 4) } == ["update 4 d[] i[] m[2]"])
        #expect(try changeOverZeroToNine { try self.set($0, 3, to: 5) } == ["update 3 d[2] i[] m[]"])
        #expect(try changeOverZeroToNine { try self.set($0, 5, to: 4) } == ["update 5 d[] i[4] m[]"])
        #expect(try changeOverZeroToNine { try self.delete($0, 1) } == ["update 3 d[0] i[] m[]"])
        #expect(try changeOverZeroToNine { try self.delete($0, 4) } == ["update 3 d[3] i[] m[]"])
        for order in [[2, 3, 4], [4, 3, 2], [3, 4, 2]] {
            #expect(
                try changeOverZeroToNine { realm in
                    for value in order { try self.delete(realm, value) }
                    realm.delete(realm.objects(IntObj.self).where { $0.intCol > 4 })
                } == ["update 1 d[1, 2, 3] i[] m[]"])
        }
        #expect(try changeOverZeroToNine { $0.deleteAll() } == ["update 0 d[0, 1, 2, 3] i[] m[]"])
        // Inserted and deleted in one transaction: nowhere, and no callback.
        #expect(
            try changeOverZeroToNine(expecting: 0) { realm in
                let object = realm.create(IntObj.self, value: ["intCol": 3])
                realm.delete(object)
            }.isEmpty)
    }

    // Spec N13: modifications use indices of the old collection.
    @Test func modificationsUseOldIndices() throws {
        #expect(
            try changeOverZeroToNine { realm in
                try self.delete(realm, 2)
                try self.set(realm, 3, to: 4)
            } == ["update 3 d[1] i[] m[2]"])
    }

    // Spec N2: two observers invalidating their own tokens in their callbacks get 2
    // calls in all over two commits.
    @Test func invalidateInsideOwnCallback() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var calls = 0
            var tokens: [NotificationToken?] = [nil, nil]
            for index in 0..<2 {
                tokens[index] = realm.objects(IntObj.self).observe { _ in
                    calls += 1
                    tokens[index]?.invalidate()
                }
            }
            #expect(spinRunLoop { calls == 2 })
            try realm.write { realm.create(IntObj.self) }
            try realm.write { realm.create(IntObj.self) }
            #expect(spinRunLoop(seconds: 0.3) { calls > 2 } == false)
            #expect(calls == 2)
        }
    }

    // Spec N9: an observer added inside a callback gets its initial call on the next
    // turn or refresh(), not in the running pass; then both fire on each commit.
    @Test func observerAddedInsideCallbackStartsNextPass() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let outer = Log()
            let inner = Log()
            var innerToken: NotificationToken?
            let results = realm.objects(IntObj.self)
            let outerToken = results.observe { change in
                outer.record(change)
                if innerToken == nil { innerToken = results.observe { inner.record($0) } }
            }
            _ = realm.refresh()  // delivers the outer initial, which adds the inner observer
            #expect(outer.count == 1)
            #expect(inner.count == 0, "an observer added in a callback got its initial in the same pass")
            _ = realm.refresh()
            #expect(inner.count == 1)
            try realm.write { realm.create(IntObj.self) }
            #expect(spinRunLoop { outer.count == 2 && inner.count == 2 })
            #expect(outer.entries == ["initial 0", "update 1 d[] i[0] m[]"])
            #expect(inner.entries == ["initial 0", "update 1 d[] i[0] m[]"])
            outerToken.invalidate()
            innerToken?.invalidate()
        }
    }

    // Spec N17: writes inside one observer's callback reach the others as separate
    // updates in commit order; the writing observer is never re-entered.
    @Test func writesInsideCallbacks() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let results = try zeroToNine(realm)
            let logs = [Log(), Log(), Log()]
            var tokens: [NotificationToken] = []
            for index in 0..<3 {
                tokens.append(
                    results.observe { change in
                        logs[index].record(change)
                        guard index == 1, !realm.isInWriteTransaction else { return }
                        while let last = results.last {
                            realm.beginWrite()
                            realm.delete(last)
                            try? realm.commitWrite()
                        }
                    })
            }
            #expect(spinRunLoop { logs[0].count == 5 && logs[2].count == 5 && logs[1].count == 2 })
            _ = spinRunLoop(seconds: 0.3) { false }
            let expected = [
                "initial 4", "update 3 d[3] i[] m[]", "update 2 d[2] i[] m[]", "update 1 d[1] i[] m[]",
                "update 0 d[0] i[] m[]",
            ]
            #expect(logs[0].entries == expected)
            #expect(logs[2].entries == expected)
            #expect(logs[1].entries == ["initial 4", "update 0 d[0, 1, 2, 3] i[] m[]"])
            for token in tokens { token.invalidate() }
        }
    }

    // Spec N12: with autorefresh off a background commit calls no collection
    // observer; refresh() delivers it before it returns.
    @Test func refreshDeliversSynchronously() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            realm.autorefresh = false
            let log = Log()
            let token = realm.objects(IntObj.self).observe { log.record($0) }
            #expect(spinRunLoop { log.count == 1 })
            try commitInts(configuration, [1])
            #expect(spinRunLoop(seconds: 0.3) { log.count > 1 } == false)
            #expect(realm.refresh())
            #expect(log.entries == ["initial 0", "update 1 d[] i[0] m[]"])
            token.invalidate()
        }
    }

    // Spec N19: collections of a read-only realm cannot be observed.
    @Test func readOnlyRealmsHaveNoCollectionNotifications() throws {
        let configuration = testConfiguration()
        try onOtherThread { try commitInts(configuration, [1]) }
        var readOnlyConfiguration = configuration
        readOnlyConfiguration.readOnly = true
        let readOnly = readOnlyConfiguration
        try onLoopThread {
            let realm = try Realm(configuration: readOnly)
            expectRejected(
                rejection { _ = try realm.objects(IntObj.self)._observe { _ in } },
                "Read-only Realms do not change and do not have change notifications.")
        }
    }

    /// What a queue observer got (appended on the queue, read under the lock).
    final class QueueLog: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        let arrived = DispatchSemaphore(value: 0)

        func append(_ entry: String) {
            lock.withLock { entries.append(entry) }
            arrived.signal()
        }

        var all: [String] { lock.withLock { entries } }
    }

    /// A realm kept for use on its own queue (only touched inside that queue's blocks).
    final class QueueRealm: @unchecked Sendable {
        var realm: Realm?
        var token: NotificationToken?
    }

    // Spec N8: realms at ten versions (1 to 10 objects), observed in reverse order:
    // every first callback shows count 10, since an autorefreshing realm moves to the newest
    // version before its initial callback. Strata keeps one realm per thread or queue (Realm's
    // uncached instances on one thread do not exist here), so the ten stand on ten queues, with
    // autorefresh off while their versions are made.
    @Test func initialCallbacksShowTheNewestVersion() throws {
        let configuration = testConfiguration()
        let queues = (0..<10).map { DispatchQueue(label: "not23-\($0)") }
        let held = queues.map { _ in QueueRealm() }
        var counts: [Int] = []
        for (index, queue) in queues.enumerated() {
            try commitInts(configuration, [index])
            Realm._declareSerial(queue)
            counts.append(
                try queue.sync {
                    let realm = try Realm(configuration: configuration, queue: queue)
                    realm.autorefresh = false
                    held[index].realm = realm
                    return realm.objects(IntObj.self).count  // this realm now reads that version
                })
        }
        #expect(counts == Array(1...10))
        let log = QueueLog()
        for index in (0..<10).reversed() {
            queues[index].sync {
                guard let realm = held[index].realm else { return }
                #expect(realm.objects(IntObj.self).count == index + 1, "the realm moved before observe")
                realm.autorefresh = true
                held[index].token = realm.objects(IntObj.self).observe { change in
                    if case .initial(let results) = change { log.append("\(index): \(results.count)") }
                }
            }
        }
        for _ in 0..<10 { #expect(log.arrived.wait(timeout: .now() + hangGuardSeconds) == .success) }
        #expect(log.all.sorted() == (0..<10).map { "\($0): 10" }.sorted())
        for (index, queue) in queues.enumerated() {
            queue.sync {
                held[index].token?.invalidate()
                held[index].realm = nil
            }
        }
    }

    // Spec N18: observe(on: queue) delivers every callback on that queue; an
    // unmanaged List cannot be observed.
    @Test func observeOnAQueue() throws {
        let configuration = testConfiguration()
        let queue = DispatchQueue(label: "not26")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 26)
        let results = QueueLog()
        let list = QueueLog()
        let tokens = try onOtherThread { () -> [NotificationToken] in
            let realm = try Realm(configuration: configuration)
            let holder = try addHolderWithOneInt(to: realm)
            try realm.write { realm.create(IntObj.self) }
            return [
                realm.objects(IntObj.self).observe(on: queue) { change in
                    #expect(DispatchQueue.getSpecific(key: key) == 26, "a callback ran off the queue")
                    switch change {
                    case .initial(let collection): results.append("initial \(collection.count)")
                    case .update(let collection, let deletions, let insertions, _):
                        results.append("update \(collection.count) d\(deletions) i\(insertions)")
                    case .error(let error): results.append("error \(error)")
                    }
                },
                holder.intArray.observe(on: queue) { change in
                    #expect(DispatchQueue.getSpecific(key: key) == 26, "a callback ran off the queue")
                    if case .initial(let collection) = change { list.append("initial \(collection.count)") }
                    if case .update(let collection, _, _, _) = change { list.append("update \(collection.count)") }
                },
            ]
        }
        #expect(results.arrived.wait(timeout: .now() + hangGuardSeconds) == .success)
        #expect(list.arrived.wait(timeout: .now() + hangGuardSeconds) == .success)
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.delete(realm.objects(IntObj.self)) }
        }
        #expect(results.arrived.wait(timeout: .now() + hangGuardSeconds) == .success)
        #expect(list.arrived.wait(timeout: .now() + hangGuardSeconds) == .success)
        #expect(results.all == ["initial 2", "update 0 d[0, 1] i[]"])
        #expect(list.all == ["initial 1", "update 0"])
        for token in tokens { token.invalidate() }
        let unmanaged = List<IntObj>()
        expectRejected(
            rejection { _ = try unmanaged._observe { _ in } },
            "Change notifications are only supported on managed collections.")
        expectRejected(
            rejection { _ = try unmanaged._observe(on: queue) { _ in } },
            "Change notifications are only supported on managed collections.")
    }

    // Spec N13: one object linked from two elements; changing it modifies both.
    @Test func sharedLinkTargetModifiesEveryElementLinkingIt() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let target = try realm.write { () -> StrObj in
                let target = realm.create(StrObj.self, value: ["stringCol": "a"])
                realm.create(LinkObj.self, value: ["link": target])
                realm.create(LinkObj.self, value: ["link": target])
                return target
            }
            let log = Log()
            let token = realm.objects(LinkObj.self).observe { log.record($0) }
            #expect(spinRunLoop { log.count == 1 })
            try realm.write { target.stringCol = "b" }
            #expect(spinRunLoop { log.count == 2 })
            #expect(log.last == "update 2 d[] i[] m[0, 1]")
            token.invalidate()
        }
    }

    // Spec N11: deleting the owner of an observed empty List calls nothing; of a
    // non-empty one, reports every element deleted.
    @Test func deletingTheOwnerOfAnEmptyList() throws {
        let configuration = testConfiguration()
        try onLoopThread { try Self.deleteOwners(configuration) }
    }

    private static func deleteOwners(_ configuration: Realm.Configuration) throws {
        let realm = try Realm(configuration: configuration)
        let full = Holder()
        full.intArray.append(objectsIn: [IntObj(), IntObj()])
        let empty = Holder()
        try realm.write {
            realm.add(full)
            realm.add(empty)
        }
        let emptyLog = Log()
        let fullLog = Log()
        let emptyToken = empty.intArray.observe { emptyLog.record($0) }
        let fullToken = full.intArray.observe { fullLog.record($0) }
        #expect(spinRunLoop { emptyLog.count == 1 && fullLog.count == 1 })
        try realm.write { realm.delete(empty) }
        try realm.write { realm.delete(full) }
        #expect(spinRunLoop { fullLog.count == 2 })
        _ = spinRunLoop(seconds: 0.2) { false }
        #expect(emptyLog.entries == ["initial 0"])
        #expect(fullLog.entries == ["initial 2", "update invalidated d[0, 1] i[] m[]"])
        emptyToken.invalidate()
        fullToken.invalidate()
    }

    // Spec N4: a skipped commit's changes are left out of later updates too.
    @Test func skippedChangesStayOut() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let results = try zeroToNine(realm)
            let log = Log()
            let token = results.observe { log.record($0) }
            #expect(spinRunLoop { log.count == 1 })
            realm.beginWrite()
            realm.create(IntObj.self, value: ["intCol": 3])
            try realm.commitWrite(withoutNotifying: [token])
            #expect(spinRunLoop(seconds: 0.3) { log.count > 1 } == false, "a skipped token was called")
            try commitInts(configuration, [3])
            #expect(spinRunLoop { log.count == 2 })
            #expect(log.last == "update 6 d[] i[5] m[]")
            token.invalidate()
        }
    }

    // objc NotificationTests.testSuppressRealmNotificationForWrongRealm,
    // testSuppressCollectionNotificationForWrongRealm (Spec N4): a token of another realm is
    // refused before anything commits; the write stays open.
    @Test("Spec N4: tokens of another realm cannot be skipped")
    func tokensOfAnotherRealmAreRefused() throws {
        let configuration = testConfiguration()
        var otherConfiguration = testConfiguration()
        otherConfiguration.fileURL = configuration.fileURL?.deletingLastPathComponent()
            .appendingPathComponent("other.realm")
        let otherFile = otherConfiguration
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let other = try Realm(configuration: otherFile)
            let realmToken = other.observe { _, _ in }
            let collectionToken = other.objects(IntObj.self).observe { _ in }
            let message = "Incorrect Realm: only notifications for the Realm being modified can be skipped."
            for token in [realmToken, collectionToken] {
                try realm._beginWrite()
                realm.create(IntObj.self, value: ["intCol": 1])
                expectRejected(rejection { try realm.commitWrite(withoutNotifying: [token]) as Void }, message)
                #expect(realm.isInWriteTransaction, "the write was ended")
                realm.cancelWrite()
            }
            #expect(realm.objects(IntObj.self).isEmpty)
        }
    }

    // RealmTests.testWriteWithoutNotifying with `observe(on:)` (Spec N4, N18): the token of an
    // observer made for a queue stands for it in that queue's realm, whose writes can skip it.
    @Test("Spec N4, N18: an observe(on:) token is skipped by writes of its queue's realm")
    func observeOnQueueTokensCanBeSkipped() throws {
        let configuration = testConfiguration()
        let queue = DispatchQueue(label: "N4-observe-on")
        let source = try Realm(configuration: configuration)
        let updates = ResultBox<[String]>()
        updates.set(.success([]))
        let token = source.objects(IntObj.self).observe(on: queue) { change in
            if case .update(let results, _, let insertions, _) = change {
                updates.update { $0.append("\(results.count) i\(insertions)") }
            } else if case .initial = change {
                updates.update { $0.append("initial") }
            }
        }
        func delivered() -> [String] { (try? updates.get()) ?? [] }
        var waited = 0
        while delivered().isEmpty && waited < 3000 {
            queue.sync {}
            Thread.sleep(forTimeInterval: 0.01)
            waited += 1
        }
        #expect(delivered() == ["initial"])
        let skipped = queue.sync { () -> Realm.Error? in
            guard let realm = try? Realm._open(configuration: configuration, queue: queue) else {
                return Realm.Error(.fail, "no queue realm")
            }
            return rejection {
                try realm._beginWrite()
                realm.create(IntObj.self, value: ["intCol": 1])
                try realm.commitWrite(withoutNotifying: [token])
            }
        }
        #expect(skipped == nil, "\(String(describing: skipped))")
        try onOtherThread {
            let writer = try Realm(configuration: configuration)
            try writer.write { writer.create(IntObj.self, value: ["intCol": 2]) }
        }
        waited = 0
        while delivered().count < 2 && waited < 3000 {
            queue.sync {}
            Thread.sleep(forTimeInterval: 0.01)
            waited += 1
        }
        #expect(delivered() == ["initial", "2 i[1]"], "the skipped commit was delivered, or the next was not")
        // In the source realm, which the observer does not belong to, it cannot be skipped.
        try source._beginWrite()
        expectRejected(
            rejection { try source.commitWrite(withoutNotifying: [token]) as Void },
            "Incorrect Realm: only notifications for the Realm being modified can be skipped.")
        source.cancelWrite()
        token.invalidate()
    }

    // objc AsyncTests.testAsyncNotSupportedAfterMakingChangesInWriteTransactions (Spec N25).
    @Test("Spec N25: no collection or object observer after changes in a write")
    func noObserverAfterChangesInAWrite() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            try realm._beginWrite()
            let before = try realm.objects(IntObj.self)._observe { _ in }  // before any change: fine
            object.intCol = 2
            let message = "Cannot create asynchronous query after making changes in a write transaction."
            expectRejected(rejection { _ = try realm.objects(IntObj.self)._observe { _ in } }, message)
            expectRejected(rejection { _ = try object._observe { _ in } }, message)
            #expect(rejection { _ = try realm._observe { _, _ in } } == nil, "realm observers are not affected")
            realm.cancelWrite()
            #expect(rejection { _ = try realm.objects(IntObj.self)._observe { _ in } } == nil)
            before.invalidate()
        }
    }

    // Realm's `observe` documentation: notifications come while the token is held (Spec N2).
    @Test("Spec N2: releasing the last reference to a token ends the observation")
    func releasingTheTokenEndsTheObservation() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let kept = Log()
            let dropped = Log()
            let keptToken = realm.objects(IntObj.self).observe { kept.record($0) }
            var droppedToken: NotificationToken? = realm.objects(IntObj.self).observe { dropped.record($0) }
            #expect(spinRunLoop { kept.count == 1 && dropped.count == 1 })
            #expect(droppedToken != nil)
            droppedToken = nil
            try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            #expect(spinRunLoop { kept.count == 2 })
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(dropped.count == 1, "a released token's observer was still called")
            keptToken.invalidate()
        }
    }

    // Spec N6, N7, N13: over random writes (creates, deletes, sets, upserts, some to the same
    // value), every update applied to the previously delivered contents gives the observed
    // Results; every kept object whose values changed is a modification, and every
    // modification is a kept object the write set. Local and other-thread commits alternate.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func changeSetsApplyToTheDeliveredContents(seed: UInt64) throws {
        let configuration = testConfiguration()
        try onLoopThread { try Self.randomWrites(configuration, seed: seed) }
    }

    private static func randomWrites(_ configuration: Realm.Configuration, seed: UInt64) throws {
        let realm = try Realm(configuration: configuration)
        let observed = realm.objects(PKPair.self).where { $0.a > 2 }.sorted(byKeyPath: "b")
        func snapshot() -> [(id: Int, a: Int, b: Int)] { observed.map { ($0.id, $0.a, $0.b) } }
        var delivered: [(id: Int, a: Int, b: Int)] = []
        var initials = 0
        var updates = 0
        var failures: [String] = []
        var written: Set<Int> = []
        let token = observed.observe { change in
            switch change {
            case .initial:
                initials += 1
                delivered = snapshot()
            case .update(_, let deletions, let insertions, let modifications):
                updates += 1
                let now = snapshot()
                var ids = delivered.map(\.id)
                for index in deletions.reversed() { ids.remove(at: index) }
                for index in insertions { ids.insert(now[index].id, at: index) }
                if ids != now.map(\.id) { failures.append("applied \(ids) != \(now.map(\.id))") }
                let deleted = Set(deletions)
                for (index, old) in delivered.enumerated() where !deleted.contains(index) {
                    guard let new = now.first(where: { $0.id == old.id }) else { continue }
                    let changed = new.a != old.a || new.b != old.b
                    if changed && !modifications.contains(index) { failures.append("\(old.id) changed, not reported") }
                }
                for index in modifications {
                    if deleted.contains(index) || !written.contains(delivered[index].id) {
                        failures.append("modification \(index) (\(delivered[index].id)) was not set")
                    }
                }
                delivered = now
                // Updates may coalesce commits (Spec N7): what was written is checked against
                // every commit since the last update.
                written = []
            case .error(let error): failures.append("\(error)")
            }
        }
        // Spec N8: the initial callback comes on a later loop turn; with nothing written yet,
        // no update may come before or with it.
        #expect(spinRunLoop { initials == 1 }, "no initial callback")
        #expect(updates == 0, "an update before any write")
        _ = realm.refresh()
        var random = SplitMix64(seed: seed)
        for round in 0..<60 {
            var drawn: [(kind: Int, id: Int, a: Int, b: Int)] = []
            for _ in 0..<(1 + random.below(5)) {
                drawn.append((random.below(4), random.below(12), random.below(6), random.below(6)))
            }
            let steps = drawn
            let apply: @Sendable (Realm) -> Void = { realm in
                for step in steps {
                    let existing = realm.object(ofType: PKPair.self, forPrimaryKey: step.id)
                    switch step.kind {
                    case 0: realm.create(PKPair.self, value: ["id": step.id, "a": step.a, "b": step.b], update: .all)
                    case 1: if let existing { realm.delete(existing) }
                    case 2: existing?.a = existing?.a ?? 0  // a set to the same value
                    default: existing?.b = step.b
                    }
                }
            }
            written.formUnion(steps.filter { $0.kind != 1 }.map(\.id))
            if round % 2 == 0 {
                try realm.write { apply(realm) }
            } else {
                let sendable = Unchecked(apply)
                try onOtherThread {
                    let other = try Realm(configuration: configuration)
                    try other.write { sendable.value(other) }
                }
            }
            _ = realm.refresh()
            // Every change to the contents calls back, so what was delivered must come to equal
            // them: a wait for something that comes, whatever the machine's speed.
            func same() -> Bool {
                let now = snapshot()
                return now.count == delivered.count
                    && zip(now, delivered).allSatisfy { $0.id == $1.id && $0.a == $1.a && $0.b == $1.b }
            }
            if !spinRunLoop(until: same) { failures.append("round \(round): delivered differs") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(updates > 20, "only \(updates) updates")
        #expect(initials == 1, "\(initials) initial callbacks")
        token.invalidate()
    }
    // Spec N8: a loop turn during a write delivers nothing; the write's end brings the turn, so
    // an observer added inside a write that is then cancelled still gets its initial callback.
    @Test func anObserverAddedInACancelledWriteGetsItsInitialCallback() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let log = Log()
            realm.beginWrite()
            // Spec N25: inside a write, an observer can be added only before its first change.
            let token = realm.objects(IntObj.self).observe { log.record($0) }
            realm.create(IntObj.self, value: ["intCol": 1])
            _ = spinRunLoop(seconds: 0.2) { false }  // turns pass while the write is open
            #expect(log.count == 0, "a callback ran inside the write")
            realm.cancelWrite()
            #expect(spinRunLoop { log.count == 1 })
            #expect(log.entries == ["initial 0"])
            token.invalidate()
        }
    }

    // Spec C14 (Spec C14): a thread that owns an observer and then blocks without turning its
    // loop does not hold up the observers of other threads. Thread A registers, gets its
    // initial callback and blocks; this thread's observer gets the update of a commit while A
    // is still blocked (A's count is still 1); released, A gets its update on its own turns.
    @Test func aBlockedThreadDoesNotHoldUpOtherThreadsObservers() throws {
        let configuration = testConfiguration()
        let ready = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blockedCalls = ResultBox<Int>()
        blockedCalls.set(.success(0))
        let blocked = ResultBox<[String]>()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            defer { finished.signal() }
            blocked.set(
                Result {
                    let entries = ResultBox<[String]>()
                    try onLoopThread {
                        let realm = try Realm(configuration: configuration)
                        let log = Log()
                        let token = realm.objects(IntObj.self).observe { change in
                            log.record(change)
                            blockedCalls.update { $0 += 1 }
                        }
                        let initial = spinRunLoop(seconds: hangGuardSeconds) { log.count == 1 }
                        ready.signal()
                        guard initial else { throw CancellationError() }
                        release.wait()  // blocked: this thread's loop does not turn
                        _ = spinRunLoop(seconds: hangGuardSeconds) { log.count == 2 }
                        entries.set(.success(log.entries))
                        token.invalidate()
                    }
                    return try entries.get()
                })
        }.start()
        try onLoopThread {
            defer { release.signal() }  // also when this side fails: thread A must end
            let realm = try Realm(configuration: configuration)
            let log = Log()
            let token = realm.objects(IntObj.self).observe { log.record($0) }
            #expect(spinRunLoop { log.count == 1 })
            #expect(
                ready.wait(timeout: .now() + hangGuardSeconds) == .success, "thread A never registered its observer")
            try commitInts(configuration, [1])
            #expect(
                spinRunLoop(seconds: hangGuardSeconds) { log.count == 2 }, "the blocked thread held up this observer")
            #expect(log.entries == ["initial 0", "update 1 d[] i[0] m[]"])
            #expect(try blockedCalls.get() == 1, "the blocked thread ran a callback")
            token.invalidate()
        }
        #expect(finished.wait(timeout: .now() + hangGuardSeconds) == .success, "thread A did not finish")
        #expect(try blocked.get() == ["initial 0", "update 1 d[] i[0] m[]"])
    }

    // Spec N2, C13: an invalidate() on another thread while the callback runs returns only once
    // that callback has returned, and no callback runs after it.
    @Test func invalidateElsewhereWaitsForTheRunningCallback() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let started = DispatchSemaphore(value: 0)
            let finished = ResultBox<Bool>()
            var calls = 0
            let token = realm.objects(IntObj.self).observe { change in
                calls += 1
                guard case .update = change else { return }
                started.signal()
                Thread.sleep(forTimeInterval: 0.2)
                finished.set(.success(true))
            }
            #expect(spinRunLoop { calls == 1 })
            let shared = Unchecked(token)
            let finishedWhenInvalidateReturned = ResultBox<Bool>()
            Thread.detachNewThread {
                started.wait()
                _ = shared.value.invalidate()
                finishedWhenInvalidateReturned.set(.success(finished.isSet))
            }
            try commitInts(configuration, [1])
            #expect(spinRunLoop { finishedWhenInvalidateReturned.isSet })
            #expect(try finishedWhenInvalidateReturned.get() == true)
            try commitInts(configuration, [2])
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(calls == 2)
        }
    }
}

/// An error a write block throws (Spec N26).
private struct CNTThrown: Error {}

/// Realm and object callbacks, counted on the observing thread (Spec N26).
private final class CNTCounts {
    var realm = 0
    var object = 0
}

extension CollectionNotificationTests {
    // seed 003 Realm.cancelWrite(): a cancelled write produces no notification.
    @Test("Spec N26, W5, W6, W7: a write that ends without committing calls no realm, collection or object observer")
    func aWriteThatDoesNotCommitNotifiesNobody() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            let counts = CNTCounts()
            let realmToken = realm.observe { _, _ in counts.realm += 1 }
            let collection = Log()
            let collectionToken = realm.objects(IntObj.self).observe { collection.record($0) }
            let objectToken = object.observe { _ in counts.object += 1 }
            #expect(spinRunLoop { collection.count == 1 })
            // cancelWrite(), a throwing block, a block that cancels.
            realm.beginWrite()
            realm.create(IntObj.self, value: ["intCol": 2])
            object.intCol = 5
            realm.cancelWrite()
            do {
                try realm.write {
                    object.intCol = 6
                    throw CNTThrown()
                }
                Issue.record("the write block's error was not rethrown")
            } catch is CNTThrown {}
            try realm.write {
                realm.create(IntObj.self, value: ["intCol": 3])
                realm.cancelWrite()
            }
            #expect(counts.realm == 0 && counts.object == 0 && collection.count == 1)
            // Another realm's commit: delivered in order after anything owed, it carries its own
            // change only, so nothing of the writes above was pending.
            try self.commitInts(configuration, [9])
            #expect(spinRunLoop { collection.count == 2 })
            #expect(collection.last == "update 2 d[] i[1] m[]")
            #expect(counts.realm == 1)
            #expect(counts.object == 0)
            // invalidate() ending a write: the realm's observer hears only the next commit.
            realm.beginWrite()
            realm.create(IntObj.self, value: ["intCol": 4])
            realm.invalidate()
            try self.commitInts(configuration, [10])
            #expect(spinRunLoop { counts.realm == 2 })
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(counts.realm == 2)
            realmToken.invalidate()
            collectionToken.invalidate()
            objectToken.invalidate()
        }
    }
}
