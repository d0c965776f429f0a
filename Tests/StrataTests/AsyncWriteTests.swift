import Foundation
import Strata
import StrataSimulation
import StrataStorage
import Testing

/// Async writes (`writeAsync`, `beginAsyncWrite`, `commitAsyncWrite`, `cancelAsyncWrite`,
/// `isPerformingAsynchronousWriteOperations`): Spec A1 to A13, A17, D11, D13.
@Suite struct AsyncWriteTests {
    /// Counts what happened, in order (confined to the loop thread).
    final class Events {
        var log: [String] = []
        func add(_ entry: String) { log.append(entry) }
    }

    private func count(_ realm: Realm) -> Int { realm.objects(IntObj.self).count }

    private func persisted(_ configuration: Realm.Configuration) throws -> Int {
        try onOtherThread { try Realm(configuration: configuration).objects(IntObj.self).count }
    }

    // Spec A1, D11: the block runs later, commits, and onComplete sees the object.
    @Test func writeAsyncRunsLaterAndCompletes() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let events = Events()
            realm.writeAsync(
                {
                    events.add("block in write \(realm.isInWriteTransaction)")
                    realm.create(StrObj.self, value: ["stringCol": "string"])
                },
                onComplete: { error in
                    events.add("complete \(error == nil) \(realm.objects(StrObj.self).first?.stringCol ?? "none")")
                })
            #expect(events.log.isEmpty, "the block ran inside writeAsync")
            #expect(realm.isPerformingAsynchronousWriteOperations)
            #expect(spinRunLoop { events.log.count == 2 })
            #expect(events.log == ["block in write true", "complete true string"])
            #expect(!realm.isPerformingAsynchronousWriteOperations)  // Spec A17
        }
    }

    // Spec A1, A18: on a queue-confined realm, the block and its completion
    // run on that queue (A18: a block runs only on its realm's scheduler); another realm sees
    // the commit after refresh().
    @Test func blockAndCompletionRunOnTheRealmsQueue() throws {
        let configuration = testConfiguration()
        let queue = DispatchQueue(label: "asy02")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 2)
        let done = DispatchSemaphore(value: 0)
        let main = try Realm(configuration: configuration)
        #expect(main.objects(IntObj.self).count == 0)
        let held = ResultBox<Realm>()
        try queue.sync {
            let realm = try Realm(configuration: configuration, queue: queue)
            held.set(.success(realm))
        }
        queue.sync {
            guard let realm = try? held.get() else { return }
            realm.beginAsyncWrite {
                #expect(DispatchQueue.getSpecific(key: key) == 2)
                realm.create(IntObj.self)
                realm.commitAsyncWrite { error in
                    #expect(error == nil)
                    #expect(DispatchQueue.getSpecific(key: key) == 2)
                    #expect(realm.objects(IntObj.self).count == 1)
                    done.signal()
                }
            }
        }
        #expect(done.wait(timeout: .now() + hangGuardSeconds) == .success)
        #expect(main.refresh())
        #expect(main.objects(IntObj.self).count == 1)
        queue.sync { held.set(.failure(CancellationError())) }
    }

    // Spec A3: cancelWrite inside a block rolls back at once and ends the write.
    @Test func cancelWriteInsideABlock() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var sizes: [Int] = []
            var done = false
            realm.beginAsyncWrite {
                realm.create(IntObj.self)
                sizes.append(realm.objects(IntObj.self).count)
                realm.cancelWrite()
                sizes.append(realm.objects(IntObj.self).count)
                #expect(!realm.isInWriteTransaction)
                done = true
            }
            #expect(spinRunLoop { done })
            #expect(sizes == [1, 0])
            // writeAsync whose block cancels: nothing to commit; its completion hears nil.
            var completions: [Bool] = []
            realm.writeAsync(
                {
                    realm.create(IntObj.self)
                    realm.cancelWrite()
                }, onComplete: { error in completions.append(error == nil) })
            #expect(spinRunLoop { !completions.isEmpty })
            _ = spinRunLoop(seconds: 0.1) { false }
            #expect(completions == [true])
            #expect(try persisted(configuration) == 0)
        }
    }

    // Spec A1, D11: a writeAsync block that commits asynchronously itself completes only once
    // that commit is durable (its group's sync), never before.
    @Test("Spec A1, D11: a writeAsync block's own async commit is durable before the completion")
    func aWriteAsyncBlockThatCommitsItselfCompletesWhenDurable() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var durableAtCompletion: Bool?
            var committedVersion: UInt64?
            realm.writeAsync(
                {
                    realm.create(IntObj.self)
                    realm.commitAsyncWrite(allowGrouping: true)
                    committedVersion = realm._readVersion
                },
                onComplete: { error in
                    #expect(error == nil)
                    durableAtCompletion = (realm._durableVersion ?? 0) >= (committedVersion ?? UInt64.max)
                })
            #expect(spinRunLoop { durableAtCompletion != nil })
            #expect(durableAtCompletion == true, "the completion ran before the block's commit was durable")
            #expect(spinRunLoop { !realm.isPerformingAsynchronousWriteOperations })
        }
        #expect(try persisted(configuration) == 1)
    }

    // Spec A4: a cancelled queued block never runs, nor its completion; later blocks
    // still run.
    @Test func cancellingAQueuedBlock() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let events = Events()
            let first = realm.writeAsync({ events.add("first") }, onComplete: { _ in events.add("first done") })
            let second = realm.beginAsyncWrite { events.add("second") }
            realm.writeAsync(
                {
                    realm.create(IntObj.self, value: ["intCol": 90])
                }, onComplete: { _ in events.add("third done") })
            try realm.cancelAsyncWrite(first)
            try realm.cancelAsyncWrite(second)
            #expect(spinRunLoop { events.log == ["third done"] })
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(events.log == ["third done"])
            #expect(realm.objects(IntObj.self).map(\.intCol) == [90])
        }
    }

    // Spec A4: cancelling a commit's id drops only its completion; the commit stands.
    // Cancelling the running block's id does nothing.
    @Test func cancellingACommitDropsOnlyItsCompletion() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var completions = 0
            var ran = false
            var blockID: AsyncTransactionId = 0
            blockID = realm.beginAsyncWrite {
                try? realm.cancelAsyncWrite(blockID)  // the running block: no effect
                realm.create(IntObj.self)
                let commit = realm.commitAsyncWrite { _ in completions += 1 }
                try? realm.cancelAsyncWrite(commit)
                ran = true
            }
            #expect(spinRunLoop { ran })
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(completions == 0)
            #expect(try persisted(configuration) == 1)
            // Spec A17: false once the group's background sync has settled (no completion runs).
            #expect(spinRunLoop { !realm.isPerformingAsynchronousWriteOperations })
        }
    }

    // Spec A2, A10: blocks run first in, first out, each seeing the previous
    // commit; every completion runs once, in order.
    @Test func blocksRunInOrder() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(IntObj.self) }
            var seen: [Int] = []
            var completed: [Int] = []
            for index in 1...1000 {
                realm.writeAsync(
                    {
                        seen.append(object.intCol)
                        object.intCol = index
                    },
                    onComplete: { error in
                        #expect(error == nil)
                        completed.append(index)
                    })
            }
            #expect(spinRunLoop(seconds: hangGuardSeconds) { completed.count == 1000 })
            #expect(seen == Array(0..<1000))
            #expect(completed == Array(1...1000))
            _ = spinRunLoop(seconds: 0.1) { false }
            #expect(completed.count == 1000)
        }
    }

    // Spec A5: commitAsyncWrite needs an open write, also with a block queued.
    @Test func commitAsyncWriteNeedsAWrite() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            expectRejected(
                rejection { _ = try realm._commitAsyncWrite() }, "Can't commit a non-existing write transaction")
            var ran = false
            realm.beginAsyncWrite {
                realm.commitAsyncWrite()
                ran = true
            }
            expectRejected(
                rejection { _ = try realm._commitAsyncWrite() }, "Can't commit a non-existing write transaction")
            #expect(spinRunLoop { ran })
        }
    }

    // Spec A6: an async commit is visible when the call returns; its completion comes
    // later; two such commits persist 2.
    @Test func anAsyncCommitIsVisibleAtOnce() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var completed = false
            realm.beginWrite()
            realm.create(IntObj.self)
            realm.commitAsyncWrite()
            #expect(realm.objects(IntObj.self).count == 1)
            realm.beginWrite()
            realm.create(IntObj.self)
            realm.commitAsyncWrite { _ in completed = true }
            #expect(!completed, "the completion ran inside commitAsyncWrite")
            #expect(spinRunLoop { completed })
            #expect(try persisted(configuration) == 2)
        }
    }

    // Spec A7: blocks queued during a synchronous write run after it commits and see
    // its data, across two synchronous writes.
    @Test func blocksQueuedInASyncWriteRunAfterIt() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var seen: [Int] = []
            for round in 0..<2 {
                realm.beginWrite()
                for _ in 0..<2 {
                    realm.writeAsync {
                        seen.append(realm.objects(IntObj.self).count)
                        realm.create(IntObj.self)
                    }
                }
                realm.create(IntObj.self)
                try realm.commitWrite()
                #expect(spinRunLoop { seen.count == 2 * (round + 1) })
            }
            #expect(seen == [1, 2, 4, 5])
            #expect(realm.objects(IntObj.self).count == 6)
        }
    }

    // Spec A7: a synchronous write started while blocks are queued runs
    // first; cancelling it leaves the queued blocks alone.
    @Test func synchronousWritesGoFirst() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var done = 0
            realm.writeAsync({ realm.create(IntObj.self, value: ["intCol": 80]) }, onComplete: { _ in done += 1 })
            realm.writeAsync({ realm.create(IntObj.self, value: ["intCol": 81]) }, onComplete: { _ in done += 1 })
            try realm.write { realm.create(IntObj.self, value: ["intCol": 90]) }
            #expect(spinRunLoop { done == 2 })
            #expect(realm.objects(IntObj.self).map(\.intCol) == [90, 80, 81])
            realm.writeAsync({ realm.create(IntObj.self, value: ["intCol": 82]) }, onComplete: { _ in done += 1 })
            realm.beginWrite()
            realm.create(IntObj.self, value: ["intCol": 91])
            realm.cancelWrite()
            #expect(spinRunLoop { done == 3 })
            #expect(realm.objects(IntObj.self).map(\.intCol) == [90, 80, 81, 82])
        }
    }

    // Spec A2: beginAsyncWrite inside a block is queued behind it, never nested.
    @Test func nestedBeginAsyncWriteIsQueued() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let events = Events()
            realm.beginAsyncWrite {
                realm.beginAsyncWrite {
                    events.add("inner sees \(realm.objects(IntObj.self).count)")
                    realm.create(IntObj.self)
                    realm.commitAsyncWrite { _ in events.add("inner done") }
                }
                realm.create(IntObj.self)
                realm.commitAsyncWrite { _ in events.add("outer done") }
                events.add("outer committed")
            }
            #expect(spinRunLoop { events.log.count == 4 })
            // Spec A9: the outer commit's group ended, so its completion runs before the block
            // queued during it.
            #expect(events.log == ["outer committed", "outer done", "inner sees 1", "inner done"])
            #expect(realm.objects(IntObj.self).count == 2)
        }
    }

    // Spec A9: a group's completions run after it ends and before a block queued
    // later: with #1 grouped and #2 not, #2's completion sees 2 objects although #3 and #4
    // were queued.
    @Test func groupCompletionsRunBeforeLaterBlocks() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let events = Events()
            for index in 1...4 {
                realm.beginAsyncWrite {
                    realm.create(IntObj.self, value: ["intCol": index])
                    realm.commitAsyncWrite(allowGrouping: index == 1) { _ in
                        events.add("#\(index) done at \(realm.objects(IntObj.self).count)")
                    }
                }
            }
            #expect(spinRunLoop { events.log.count == 4 })
            #expect(events.log == ["#1 done at 2", "#2 done at 2", "#3 done at 3", "#4 done at 4"])
        }
    }

    // Spec A11: a block adds an unmanaged object made outside it and changes a
    // managed object obtained before.
    @Test func blocksCaptureLikeSynchronousWrites() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let managed = try realm.write { realm.create(StrObj.self, value: ["stringCol": "string A"]) }
            let unmanaged = StrObj()
            unmanaged.stringCol = "string U"
            var done = false
            realm.writeAsync(
                {
                    realm.add(unmanaged)
                    managed.stringCol = "string B"
                }, onComplete: { _ in done = true })
            #expect(spinRunLoop { done })
            #expect(Set(realm.objects(StrObj.self).map(\.stringCol)) == ["string B", "string U"])
        }
    }

    // Spec A12: refused on read-only and frozen realms.
    @Test func whereAsyncWritesAreRefused() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let frozen = realm.freeze()
            expectRejected(rejection { _ = try frozen._writeAsync({}) }, "Can't perform transactions on a frozen Realm")
            expectRejected(
                rejection { _ = try frozen._beginAsyncWrite({}) },
                "Can't perform transactions on a frozen Realm")
        }
        var readOnlyConfiguration = configuration
        readOnlyConfiguration.readOnly = true
        let readOnly = readOnlyConfiguration
        try onLoopThread {
            let realm = try Realm(configuration: readOnly)
            expectRejected(
                rejection { _ = try realm._beginAsyncWrite({}) },
                "Can't perform transactions on read-only Realms.")
        }
    }

    // RealmTests.testAsyncTransactionShouldCancelWithoutCommit, testAsyncTransactionCommit,
    // testAsyncTransactionSyncAfterAsyncWithoutCommit (Spec A19): a block that neither commits
    // nor cancels is rolled back when it returns, and the next block runs.
    @Test("Spec A19: a block that neither commits nor cancels is rolled back; the next block runs")
    func aBlockLeftOpenIsRolledBack() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var ran: [String] = []
            realm.beginAsyncWrite {
                realm.create(StrObj.self, value: ["stringCol": "committed"])
                realm.commitAsyncWrite()
                ran.append("first")
            }
            realm.beginAsyncWrite {
                realm.create(StrObj.self, value: ["stringCol": "left open"])
                ran.append("second")
            }
            realm.beginAsyncWrite {
                #expect(realm.isInWriteTransaction)
                #expect(realm.objects(StrObj.self).map(\.stringCol) == ["committed"])
                realm.create(StrObj.self, value: ["stringCol": "third"])
                realm.commitAsyncWrite()
                ran.append("third")
            }
            #expect(spinRunLoop { ran.count == 3 && !realm.isPerformingAsynchronousWriteOperations })
            #expect(ran == ["first", "second", "third"])
            #expect(!realm.isInWriteTransaction)
            #expect(realm.objects(StrObj.self).map(\.stringCol).sorted() == ["committed", "third"])
        }
        #expect(try onOtherThread { try Realm(configuration: configuration).objects(StrObj.self).count } == 2)
    }

    @Test("Spec A19, A7: a synchronous write before a block left open sees only its own changes")
    func aSynchronousWriteAfterAnUnfinishedBlockSeesOnlyItsOwn() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var blockRan = false
            realm.beginAsyncWrite {
                realm.create(StrObj.self, value: ["stringCol": "string"])
                blockRan = true
            }
            try realm.write { realm.create(StrObj.self, value: ["stringCol": "string 2"]) }
            #expect(spinRunLoop { blockRan && !realm.isPerformingAsynchronousWriteOperations })
            #expect(realm.objects(StrObj.self).map(\.stringCol) == ["string 2"])
            try realm.write { realm.create(StrObj.self, value: ["stringCol": "string 3"]) }
            #expect(realm.objects(StrObj.self).map(\.stringCol).sorted() == ["string 2", "string 3"])
        }
    }

    // realm-core's `async_begin_transaction`, `async_commit_transaction`, `cancel_transaction`
    // (Spec A20): inside a commit completion, async writes neither begin nor commit and writes
    // are not cancelled; synchronous writes still work.
    @Test("Spec A20: a commit completion cannot begin or commit async writes, nor cancel a write")
    func commitCompletionsCannotWriteAsynchronously() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var errors: [Realm.Error?] = []
            var syncWriteWorked = false
            var completed = false
            realm.beginAsyncWrite {
                realm.create(IntObj.self)
                realm.commitAsyncWrite { _ in
                    errors.append(rejection { _ = try realm._beginAsyncWrite {} })
                    errors.append(rejection { _ = try realm._writeAsync({}) })
                    errors.append(rejection { _ = try realm._commitAsyncWrite() })
                    errors.append(rejection { try realm._cancelWrite() })
                    syncWriteWorked = rejection { try realm.write { _ = realm.create(IntObj.self) } } == nil
                    completed = true
                }
            }
            #expect(spinRunLoop { completed })
            #expect(errors.count == 4)
            let begin = "Can't begin a write transaction from inside a commit completion callback."
            expectRejected(errors[0], begin)
            expectRejected(errors[1], begin)
            expectRejected(errors[2], "Can't commit a write transaction from inside a commit completion callback.")
            expectRejected(errors[3], "Can't cancel a write transaction from inside a commit completion callback.")
            #expect(syncWriteWorked)
            #expect(spinRunLoop { !realm.isPerformingAsynchronousWriteOperations })
            #expect(realm.objects(IntObj.self).count == 2)
            // Outside a completion the same calls work again.
            realm.beginAsyncWrite { realm.cancelWrite() }
            #expect(spinRunLoop { !realm.isPerformingAsynchronousWriteOperations })
        }
    }

    // realm-core's `RunLoopScheduler::can_invoke` (Spec A12): a thread that is not running its
    // run loop would never run the block.
    @Test("Spec A12: async writes are refused on a thread outside its run loop")
    func asyncWritesNeedARunLoop() throws {
        let configuration = testConfiguration()
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            let message = "Cannot schedule async transaction. Make sure you are running from inside a run loop."
            expectRejected(rejection { _ = try realm._beginAsyncWrite {} }, message)
            expectRejected(rejection { _ = try realm._writeAsync({}) }, message)
            #expect(!realm.isPerformingAsynchronousWriteOperations)
        }
    }

    // realm-core's `async_begin_transaction` (Spec L3): over the active-version limit the call
    // itself is refused.
    @Test("Spec L3: async writes over the active-version limit are refused when queued")
    func asyncWritesOverTheLimitAreRefusedWhenQueued() throws {
        var limited = testConfiguration()
        limited.maximumNumberOfActiveVersions = 1
        let configuration = limited
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self) }
            let frozen = realm.freeze()
            try realm.write { realm.create(IntObj.self) }
            let message = "Number of active versions (2) in the Realm exceeded the limit of 1"
            expectRejected(rejection { _ = try realm._beginAsyncWrite {} }, message, code: .fail)
            expectRejected(rejection { _ = try realm._writeAsync({}) }, message, code: .fail)
            #expect(!realm.isPerformingAsynchronousWriteOperations)
            frozen.invalidate()
            var done = false
            realm.writeAsync({ realm.create(IntObj.self) }, onComplete: { _ in done = true })
            #expect(spinRunLoop { done })
            #expect(realm.objects(IntObj.self).count == 3)
        }
    }

    // realm-core's `end_current_write` (Spec A21, C1): the context keeps a realm with async work
    // alive, so its blocks and completions run though the caller dropped every reference.
    @Test("Spec A21, C1: async work keeps its realm alive until its completions ran")
    func asyncWorkKeepsTheRealmAlive() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            var completed = false
            var blockRan = false
            do {
                let realm = try Realm(configuration: configuration)
                realm.beginAsyncWrite {
                    blockRan = true
                    realm.create(IntObj.self)
                    realm.commitAsyncWrite { error in completed = error == nil }
                }
            }
            #expect(spinRunLoop { completed })
            #expect(blockRan)
            let again = try Realm(configuration: configuration)
            #expect(again.objects(IntObj.self).count == 1)
            #expect(!again.isPerformingAsynchronousWriteOperations)
        }
    }

    // realm-core's `do_invalidate` (Spec A13, D13): invalidate() makes the async commits durable
    // and runs their completions before it returns.
    @Test("Spec A13, D13: invalidate() runs the completions of commits already made before it returns")
    func invalidateRunsPendingCompletions() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var completions: [Bool] = []
            realm.beginWrite()
            realm.create(IntObj.self)
            realm.commitAsyncWrite { error in completions.append(error == nil) }
            realm.beginWrite()  // flushes the first (A8)
            realm.create(IntObj.self)
            realm.commitAsyncWrite(allowGrouping: true) { error in completions.append(error == nil) }
            realm.beginWrite()  // flushes the second
            realm.create(IntObj.self)
            realm.commitAsyncWrite(allowGrouping: true) { error in completions.append(error == nil) }
            #expect(completions == [true, true], "beginWrite flushed the earlier commits (A8)")
            realm.invalidate()
            #expect(completions == [true, true, true], "invalidate() returned before the completions ran")
            #expect(!realm.isPerformingAsynchronousWriteOperations)
        }
        #expect(try persisted(configuration) == 3)
    }

    // Spec A13: invalidate before a queued block runs drops it; inside a block before
    // its commit it discards the block's changes; after a synchronous commit it keeps it.
    @Test func invalidateWithPendingWork() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var ran = 0
            realm.beginAsyncWrite { ran += 1 }
            realm.invalidate()
            _ = spinRunLoop(seconds: 0.2) { false }
            #expect(ran == 0, "a block queued before invalidate ran")
            #expect(spinRunLoop { !realm.isPerformingAsynchronousWriteOperations })
            realm.beginAsyncWrite {
                realm.create(IntObj.self)
                realm.invalidate()
                ran += 1
            }
            #expect(spinRunLoop { ran == 1 })
            #expect(try persisted(configuration) == 0)
            realm.beginAsyncWrite {
                realm.create(IntObj.self)
                try? realm.commitWrite()
                realm.invalidate()
                ran += 1
            }
            #expect(spinRunLoop { ran == 2 })
            #expect(try persisted(configuration) == 1)
            // The write lock was released: another thread can write.
            try onOtherThread {
                let other = try Realm(configuration: configuration)
                try other.write { other.create(IntObj.self) }
            }
            #expect(try persisted(configuration) == 2)
        }
    }

    // Spec A13, D13: block 1 commits asynchronously; block 2 creates and invalidates:
    // block 1's completion still runs and 1 object is persisted.
    @Test func invalidateKeepsCommitsAlreadyMade() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var completed: Int?
            var secondRan = false
            realm.beginAsyncWrite {
                realm.create(IntObj.self)
                realm.commitAsyncWrite(allowGrouping: true) { _ in
                    completed = realm.objects(IntObj.self).count
                }
            }
            realm.beginAsyncWrite {
                realm.create(IntObj.self)
                realm.invalidate()
                secondRan = true
            }
            #expect(spinRunLoop { secondRan && completed != nil })
            #expect(completed == 1)
            #expect(try persisted(configuration) == 1)
        }
    }

    // Spec A8, D13: a synchronous beginWrite first completes earlier async commits.
    @Test func synchronousWritesFlushAsyncCommits() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var persistedFlag = false
            realm.beginWrite()
            realm.create(IntObj.self)
            realm.commitAsyncWrite { error in persistedFlag = error == nil }
            realm.beginWrite()
            #expect(persistedFlag, "beginWrite returned before the async commit completed")
            realm.cancelWrite()
            #expect(!realm.isPerformingAsynchronousWriteOperations)
        }
    }

    // Spec A9, D10, D11, L7: 41 grouped commits become durable after the 20th, the
    // 40th and (the queue empty) the 41st (groups hold at most 20 commits); each group's versions before its last are never the
    // durable one; every completion sees its commit durable.
    @Test func groupsOfTwentyShareOneSync() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let start = try required(realm._durableVersion, "durable version")
            var durableAtBlock: [UInt64] = []
            var committed: [UInt64] = []
            var completionsDurable: [Bool] = []
            for _ in 1...41 {
                realm.beginAsyncWrite {
                    durableAtBlock.append(realm._durableVersion ?? 0)
                    realm.create(IntObj.self)
                    var version: UInt64 = 0
                    realm.commitAsyncWrite(allowGrouping: true) { error in
                        #expect(error == nil)
                        completionsDurable.append((realm._durableVersion ?? 0) >= version)
                    }
                    version = realm._readVersion ?? 0
                    committed.append(version)
                }
            }
            #expect(spinRunLoop(seconds: hangGuardSeconds) { completionsDurable.count == 41 })
            #expect(completionsDurable.allSatisfy { $0 })
            try #require(committed.count == 41)
            let expected = (0..<41).map { index -> UInt64 in
                index < 20 ? start : index < 40 ? committed[19] : committed[39]
            }
            #expect(durableAtBlock == expected)
            #expect(realm._durableVersion == committed[40])
        }
    }

    /// Fails the first sync once armed (a sync of the simulated disk reports EIO).
    final class SyncFault: @unchecked Sendable {
        private let lock = NSLock()
        private var armed = false
        func arm() { lock.withLock { armed = true } }
        var hooks: EngineHooks {
            EngineHooks(fault: { [self] site in
                lock.withLock {
                    guard armed, site == .phaseOneSync else { return nil }
                    armed = false
                    return .eio
                }
            })
        }
    }

    // Spec D12: a group whose sync fails fails every completion in it, and the file is
    // poisoned.
    @Test func aFailedGroupSyncFailsEveryCompletion() throws {
        var configuration = testConfiguration()
        let fault = SyncFault()
        configuration._engine = .init(
            simulatedStore: try SimStore(name: "d12", reservationBytes: 64 << 20),
            hooks: fault.hooks)
        let faulty = configuration
        try onLoopThread {
            let realm = try Realm(configuration: faulty)
            try realm.write { realm.create(IntObj.self) }  // the file has grown: no sync in the group
            var errors: [Realm.Error?] = []
            for index in 1...3 {
                realm.beginAsyncWrite {
                    realm.create(IntObj.self)
                    if index == 3 { fault.arm() }
                    realm.commitAsyncWrite(allowGrouping: true) { error in errors.append(error as? Realm.Error) }
                }
            }
            #expect(spinRunLoop { errors.count == 3 })
            #expect(errors.allSatisfy { $0?.code == .fail }, "\(errors)")
            expectRejected(rejection { try realm._beginWrite() }, "poisoned", code: .fail)
        }
    }
}
