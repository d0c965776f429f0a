import Foundation
import Strata
import Testing

/// `asyncWrite` and `asyncRefresh` from the main actor (Spec A15, A16, C12, V4,
/// V17).
@MainActor @Suite(.serialized) struct ConcurrencyAPITests {
    struct Failure: Error, Equatable {}

    private func commitElsewhere(_ configuration: Realm.Configuration) throws {
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self) }
        }
    }

    // Spec A15, A17: inside the block both flags are true; the block's value comes
    // back after the commit; afterwards both are false; a second asyncWrite changes it.
    @Test(.hangGuard) func asyncWriteReturnsTheBlocksValue() async throws {
        let realm = try Realm(configuration: testConfiguration())
        var flags: [Bool] = []
        let object = try await realm.asyncWrite {
            flags = [realm.isInWriteTransaction, realm.isPerformingAsynchronousWriteOperations]
            return realm.create(StrObj.self, value: ["stringCol": "foo"])
        }
        #expect(flags == [true, true])
        #expect(object.stringCol == "foo")
        #expect(!realm.isInWriteTransaction)
        #expect(!realm.isPerformingAsynchronousWriteOperations)
        #expect(realm.objects(StrObj.self).count == 1)
        try await realm.asyncWrite { object.stringCol = "bar" }
        #expect(realm.objects(StrObj.self).first?.stringCol == "bar")
    }

    // Spec A15, A14: a throwing block rolls back (not in a write, no object)
    // and its error is rethrown, also after a cancelWrite inside it; a later async write then
    // works (Spec A14: Swift's async block that throws is asyncWrite's).
    @Test(.hangGuard) func aThrowingBlockRollsBack() async throws {
        let realm = try Realm(configuration: testConfiguration())
        for cancelFirst in [false, true] {
            do {
                try await realm.asyncWrite {
                    realm.create(IntObj.self)
                    if cancelFirst { realm.cancelWrite() }
                    throw Failure()
                }
                Issue.record("asyncWrite did not rethrow")
            } catch let error as Failure {
                #expect(error == Failure())
            }
            #expect(!realm.isInWriteTransaction)
            #expect(realm.objects(IntObj.self).count == 0)
        }
        try await realm.asyncWrite { realm.create(IntObj.self) }
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // Spec A16: a task cancelled before asyncWrite, or while its block waits behind a
    // synchronous write, throws CancellationError and never runs the block.
    @Test(.hangGuard) func cancelledTasksNeverRunTheBlock() async throws {
        let realm = try Realm(configuration: testConfiguration())
        var ran = 0
        let early = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await realm.asyncWrite { ran += 1 }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        realm.beginWrite()
        let waiting = Task { @MainActor in try await realm.asyncWrite { ran += 1 } }
        await Task.yield()
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        realm.cancelWrite()
        #expect(ran == 0)
        try await realm.asyncWrite { ran += 10 }  // later async writes still run
        #expect(ran == 10)
    }

    // Spec V4: asyncRefresh is false with nothing newer; after two commits
    // elsewhere it returns true at the newest (with autorefresh on or off).
    @Test(.hangGuard, arguments: [true, false])
    func asyncRefreshMovesToTheNewest(autorefresh: Bool) async throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = autorefresh
        #expect(realm.objects(IntObj.self).count == 0)
        #expect(await realm.asyncRefresh() == false)
        try commitElsewhere(configuration)
        try commitElsewhere(configuration)
        #expect(await realm.asyncRefresh())
        #expect(realm.objects(IntObj.self).count == 2)
    }

    // Spec V17, V4: on a realm that is not reading (never read, or invalidated), asyncRefresh
    // returns false at once and begins no read, even with commits it has not seen; refresh()
    // there begins a read at the newest version and returns true.
    @Test(.hangGuard)
    func asyncRefreshOfARealmNotReadingBeginsNoRead() async throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        _ = realm.objects(IntObj.self).count
        realm.invalidate()
        try commitElsewhere(configuration)
        #expect(await realm.asyncRefresh() == false)
        #expect(realm._readVersion == nil, "asyncRefresh began a read")
        #expect(realm.refresh())
        let start = try #require(realm._readVersion)
        try commitElsewhere(configuration)
        #expect(realm.objects(IntObj.self).count == 1)  // refresh() began the read before this commit
        #expect(await realm.asyncRefresh())
        #expect(realm._readVersion == start + 1)
        #expect(realm.objects(IntObj.self).count == 2)
    }

    /// What a collection observer was handed, in order (confined to the main actor).
    final class Counts {
        var values: [Int] = []
    }

    // Spec V17: asyncRefresh is false with nothing newer; after two commits elsewhere it
    // returns true at the second (the newest when it was called, not the first one), with
    // autorefresh on or off, with or without a collection observer, which has been handed the
    // new contents by the time it returns (N12).
    @Test(.hangGuard, arguments: [(true, false), (false, false), (true, true), (false, true)])
    func asyncRefreshReachesTheNewestVersionOfTheCall(autorefresh: Bool, observed: Bool) async throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = autorefresh
        let counts = Counts()
        let token =
            observed
            ? realm.objects(IntObj.self).observe { change in
                switch change {
                case .initial(let results): counts.values.append(results.count)
                case .update(let results, _, _, _): counts.values.append(results.count)
                case .error: counts.values.append(-1)
                }
            } : nil
        #expect(realm.objects(IntObj.self).count == 0)
        #expect(await realm.asyncRefresh() == false)
        let start = try #require(realm._readVersion)
        try commitElsewhere(configuration)
        try commitElsewhere(configuration)
        #expect(await realm.asyncRefresh())
        #expect(realm._readVersion == start + 2)
        #expect(realm.objects(IntObj.self).count == 2)
        if observed { #expect(counts.values.last == 2, "\(counts.values)") }
        #expect(await realm.asyncRefresh() == false)
        token?.invalidate()
    }

    // Spec C12: a realm of a queue cannot use asyncWrite.
    @Test func asyncEntryPointsNeedTheMainActor() throws {
        let configuration = testConfiguration()
        let queue = DispatchQueue(label: "c12")
        let rejected = try queue.sync { () -> [String] in
            let realm = try Realm(configuration: configuration, queue: queue)
            let semaphore = DispatchSemaphore(value: 0)
            let box = ResultBox<[String]>()
            let unchecked = Unchecked(realm)
            Task.detached {
                var messages: [String] = []
                do { try await unchecked.value.asyncWrite {} } catch let error as Realm.Error {
                    messages.append(error.message)
                }
                box.set(.success(messages))
                semaphore.signal()
            }
            semaphore.wait()
            return try box.get()
        }
        #expect(rejected == ["asyncWrite() can only be called on main thread or actor-isolated Realms"])
    }

    // Spec X7: the async form of asyncOpen returns a realm of the caller's context;
    // a read-only open of a missing file throws fileNotFound and creates nothing.
    @Test(.hangGuard) func asyncOpenAwaitsTheOpen() async throws {
        let configuration = testConfiguration()
        try commitElsewhere(configuration)
        let realm = try await Realm.asyncOpen(configuration: configuration)
        #expect(realm.objects(IntObj.self).count == 1)
        try await realm.asyncWrite { realm.create(IntObj.self) }
        #expect(realm.objects(IntObj.self).count == 2)
        var missing = testConfiguration("missing.realm")
        missing.readOnly = true
        do {
            _ = try await Realm.asyncOpen(configuration: missing)
            Issue.record("a read-only open of a missing file succeeded")
        } catch let error as Realm.Error {
            #expect(error.code == .fileNotFound)
        }
        #expect(!FileManager.default.fileExists(atPath: missing.fileURL?.path ?? "/"))
    }
}
