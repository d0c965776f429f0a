import Foundation
import Strata
import Testing

/// Actor-confined realms (Spec C15): `Realm(actor:)`, delivery on the actor, `asyncWrite` and
/// `asyncRefresh` in the actor's isolation, `observe(on: actor)` (N18, N23).
// The time limits only turn a hang into a failure: actor jobs wait for a thread of Swift's
// cooperative pool (one per core), which the synchronous tests running beside them may hold
// for minutes on a busy 2-core machine.
@Suite(.serialized) struct ActorRealmTests {
    /// An actor that owns a realm, as a user's would.
    actor Owner {
        var realm: Realm?
        var counts: [Int] = []
        var token: NotificationToken?
        var changes: [String] = []

        func open(_ configuration: Realm.Configuration) async throws {
            realm = try await Realm(configuration: configuration, actor: self)
        }

        func requireRealm() throws -> Realm {
            guard let realm else { throw Missing() }
            return realm
        }

        /// Whether a second `Realm(actor: self)` is the cached instance (Spec C1).
        func reopenIsSame(_ configuration: Realm.Configuration) async throws -> Bool {
            let again = try await Realm(configuration: configuration, actor: self)
            return try again == requireRealm()
        }

        /// The realm, to check that uses from other contexts are rejected.
        func smuggledRealm() throws -> Unchecked<Realm> { Unchecked(try requireRealm()) }

        func setAutorefresh(_ on: Bool) throws { try requireRealm().autorefresh = on }

        func count() throws -> Int { try requireRealm().objects(IntObj.self).count }

        func observeCount() throws {
            let realm = try requireRealm()
            token = realm.objects(IntObj.self).observe { [unowned self] change in
                // Runs in this actor's isolation: a use of the realm from anywhere else throws.
                switch change {
                case .initial(let results), .update(let results, _, _, _): self.counts.append(results.count)
                case .error: self.counts.append(-1)
                }
            }
        }

        /// Waits, giving up the actor between checks so deliveries can run on it.
        func waitUntil(_ condition: @Sendable (isolated Owner) -> Bool) async -> Bool {
            for _ in 0..<Int(hangGuardSeconds * 100) {
                if condition(self) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return condition(self)
        }

        func asyncWriteObjects(_ count: Int) async throws -> Int {
            let realm = try requireRealm()
            return try await realm.asyncWrite {
                for value in 0..<count { realm.create(IntObj.self, value: ["intCol": value]) }
                return realm.objects(IntObj.self).count
            }
        }

        func asyncRefresh() async throws -> Bool { try await requireRealm().asyncRefresh() }

        var completion: (onActor: Bool, failed: Bool)?

        func writeAsyncAndWait() async throws -> (onActor: Bool, failed: Bool)? {
            let realm = try requireRealm()
            realm.writeAsync(
                { [unowned self] in _ = self.realm?.create(IntObj.self) },
                onComplete: { [unowned self] error in
                    // Completions run on the realm's actor (Spec C15): the realm answers there.
                    self.completion = (onActor: (try? self.realm?._isEmpty()) != nil, failed: error != nil)
                })
            _ = await waitUntil { $0.completion != nil }
            return completion
        }

        /// Observes its own realm's Results on itself (RealmSwift's `observe(on:)` runs in the
        /// caller's isolation, so the actor's own values can be observed there).
        func observeOwnResultsOnSelf() async throws {
            let realm = try requireRealm()
            token = await realm.objects(IntObj.self).observe(on: self) { owner, change in
                switch change {
                case .initial(let results): owner.record("initial \(results.count)")
                case .update(let results, _, _, _): owner.record("update \(results.count)")
                case .error(let error): owner.record("error \(error)")
                }
            }
        }

        /// `Realm.open` in this actor's isolation (RealmSwift's `open(configuration:_isolation:)`).
        func openWithRealmOpen(_ configuration: Realm.Configuration) async throws -> Bool {
            realm = try await Realm.open(configuration: configuration)
            let again = try await Realm(configuration: configuration, actor: self)
            return try requireRealm() == again
        }

        func adopt(_ opened: Unchecked<Realm>) { realm = opened.value }

        func record(_ line: String) { changes.append(line) }
        func setToken(_ token: NotificationToken) { self.token = token }
        func invalidateToken() -> Bool? { token?.invalidate() }
    }

    struct Missing: Error {}

    /// Whether `body` is rejected as a use from the wrong context (Spec C5 to C8).
    private static func isWrongThread(_ body: () throws -> Void) -> Bool {
        do { try body() } catch let error as Realm.Error { return error.message.contains("incorrect thread") } catch {
            return false
        }
        return false
    }

    private func commitElsewhere(_ configuration: Realm.Configuration, objects: Int = 1) throws {
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { for _ in 0..<objects { realm.create(IntObj.self) } }
        }
    }

    // Spec C15, C1: the realm answers in the actor's isolation, is cached per actor, and every
    // use from elsewhere is a wrong-thread error; another actor gets its own instance.
    @Test(.hangGuard) func confinedToItsActor() async throws {
        let configuration = testConfiguration()
        let owner = Owner()
        let other = Owner()
        try await owner.open(configuration)
        try await other.open(configuration)
        #expect(try await owner.count() == 0)
        #expect(try await owner.reopenIsSame(configuration))
        let (mine, theirs) = try await (owner.smuggledRealm(), other.smuggledRealm())
        let realms = Unchecked((mine.value, theirs.value))
        #expect(realms.value.0 != realms.value.1)
        // Off the actor: from this task, and from a plain thread.
        #expect(Self.isWrongThread { try realms.value.0._beginWrite() })
        #expect(Self.isWrongThread { _ = try realms.value.0._objects(IntObj.self) })
        #expect(try onOtherThread { Self.isWrongThread { try realms.value.0._beginWrite() } })
        // From the other actor's isolation.
        #expect(await other.run { _ in Self.isWrongThread { try realms.value.0._beginWrite() } })
    }

    // Spec C15, N6, N7, V7: observers of an actor's realm are called on the actor (the callback
    // reads the realm), with the initial count and then each commit made elsewhere.
    @Test(.hangGuard) func notificationsRunOnTheActor() async throws {
        let configuration = testConfiguration()
        let owner = Owner()
        try await owner.open(configuration)
        try await owner.observeCount()
        #expect(await owner.waitUntil { $0.counts == [0] })
        try commitElsewhere(configuration, objects: 2)
        #expect(await owner.waitUntil { $0.counts == [0, 2] })
        try commitElsewhere(configuration)
        #expect(await owner.waitUntil { $0.counts == [0, 2, 3] })
        // Autorefresh moved the realm itself, on the actor (Spec V7).
        #expect(try await owner.count() == 3)
    }

    // Spec A15, C12, C15: asyncWrite in the actor's isolation returns the block's value once
    // the commit is durable; asyncRefresh moves to another thread's commit (Spec V17).
    @Test(.hangGuard) func asyncWriteAndRefreshOnTheActor() async throws {
        let configuration = testConfiguration()
        let owner = Owner()
        try await owner.open(configuration)
        try await owner.setAutorefresh(false)
        #expect(try await owner.asyncWriteObjects(3) == 3)
        #expect(try await owner.asyncRefresh() == false)  // nothing newer
        try commitElsewhere(configuration)
        #expect(try await owner.count() == 3)  // autorefresh off: still the old version
        #expect(try await owner.asyncRefresh() == true)
        #expect(try await owner.count() == 4)
    }

    // Spec C12, C15: asyncWrite from an isolation other than the realm's actor is rejected.
    @Test(.hangGuard) func asyncWriteFromAnotherIsolationIsRejected() async throws {
        let owner = Owner()
        try await owner.open(testConfiguration())
        let realm = try await owner.smuggledRealm()
        do {
            try await otherIsolationAsyncWrite(realm, on: Owner())
            Issue.record("asyncWrite from another actor was accepted")
        } catch let error as Realm.Error {
            #expect(error.message == "asyncWrite() can only be called on main thread or actor-isolated Realms")
        }
    }

    private func otherIsolationAsyncWrite(_ realm: Unchecked<Realm>, on actor: Owner) async throws {
        try await actor.runThrowing { _ in
            _ = try await realm.value.asyncWrite { 1 }
        }
    }

    // Spec A1, C15: writeAsync's block and completion run on the actor.
    @Test(.hangGuard) func writeAsyncCompletesOnTheActor() async throws {
        let owner = Owner()
        try await owner.open(testConfiguration())
        let outcome = try await owner.writeAsyncAndWait()
        #expect(outcome?.onActor == true)
        #expect(outcome?.failed == false)
        #expect(try await owner.count() == 1)
    }

    // Spec N18, C15: observe(on: actor) of a thread realm's Results calls back in the actor's
    // isolation with the Results of the actor's realm, initial and after commits.
    @Test(.hangGuard) func observeOnAnActor() async throws {
        let configuration = testConfiguration()
        try commitElsewhere(configuration)
        let owner = Owner()
        let token = try await onOtherThreadResultsObserve(configuration, on: owner)
        await owner.setToken(token)
        #expect(await owner.waitUntil { $0.changes == ["initial 1"] })
        try commitElsewhere(configuration, objects: 2)
        #expect(await owner.waitUntil { $0.changes == ["initial 1", "update 3 ins [1, 2]"] })
        #expect(await owner.invalidateToken() == true)
        #expect(await owner.invalidateToken() == false)  // already stopped
        try commitElsewhere(configuration)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await owner.changes == ["initial 1", "update 3 ins [1, 2]"])
    }

    // RealmSwift's `observe(keyPaths:on:_isolation:_:)` (Spec N18, C15): called in the realm's
    // own actor, observe(on: actor) reads the value there instead of trapping off it.
    @Test(.hangGuard) func observeOnItsOwnActor() async throws {
        let configuration = testConfiguration()
        let owner = Owner()
        try await owner.open(configuration)
        try await owner.observeOwnResultsOnSelf()
        #expect(await owner.waitUntil { $0.changes == ["initial 0"] })
        try commitElsewhere(configuration, objects: 2)
        #expect(await owner.waitUntil { $0.changes == ["initial 0", "update 2"] })
        #expect(await owner.invalidateToken() == true)
    }

    // RealmTests.testOpenBehaviorForLocalRealm, Realm's `init(configuration:actor:)` (Spec
    // C15, X7): the caller need not be isolated to the actor; the realm is the actor's and is
    // used there. `Realm.open` gives the calling actor's realm. A cancelled task opens nothing.
    @Test(.hangGuard) func openForAnActorFromOutsideIt() async throws {
        let configuration = testConfiguration()
        let owner = Owner()
        let realm = try await Realm(configuration: configuration, actor: owner, downloadBeforeOpen: .always)
        await owner.adopt(Unchecked(realm))
        #expect(try await owner.count() == 0)
        #expect(try await owner.reopenIsSame(configuration))
        #expect(Self.isWrongThread { _ = try realm._objects(IntObj.self) }, "used outside its actor")
        #expect(try await Owner().openWithRealmOpen(configuration))
        let cancelled = Task { () async throws -> Void in
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await Realm(configuration: configuration, actor: Owner())
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    // RealmTests.testAsyncWriteTaskCancellation (Spec A16, A18): an actor realm's asyncWrite
    // waits for a write lock another realm holds without stopping the actor: work on the actor
    // runs meanwhile, cancelling the task there ends the asyncWrite with CancellationError and
    // its block never runs; once the lock is free, asyncWrite works again.
    @Test(.hangGuard) func anActorWaitsForTheWriteLockWithoutBlocking() async throws {
        let configuration = testConfiguration()
        let owner = Owner()
        try await owner.open(configuration)
        let holderQueue = DispatchQueue(label: "A16-holder")
        let holder = ResultBox<Unchecked<Realm>>()
        try holderQueue.sync {
            let realm = try Realm(configuration: configuration, queue: holderQueue)
            try realm._beginWrite()
            holder.set(.success(Unchecked(realm)))
        }
        let waiting = Task { () async throws -> Int in try await owner.asyncWriteObjects(1) }
        // The actor answers while the block waits for the lock.
        var answered = false
        for _ in 0..<500 where !answered {
            answered = (try? await owner.count()) == 0
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(answered, "the actor stayed blocked")
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        holderQueue.sync { try? holder.get().value._cancelWrite() }
        #expect(try await owner.asyncWriteObjects(2) == 2)
        #expect(try await owner.count() == 2, "the cancelled block ran")
        holderQueue.sync { holder.set(.failure(CancellationError())) }
    }

    /// Observes a realm's Results from a task on the global executor (a realm of no actor:
    /// `Realm()` here is the calling thread's) with callbacks on `owner`.
    private func onOtherThreadResultsObserve(_ configuration: Realm.Configuration, on owner: Owner) async throws
        -> NotificationToken
    {
        let realm = try Realm(configuration: configuration)
        return await realm.objects(IntObj.self).observe(on: owner) { owner, change in
            switch change {
            case .initial(let results): owner.record("initial \(results.count)")
            case .update(let results, _, let insertions, _): owner.record("update \(results.count) ins \(insertions)")
            case .error(let error): owner.record("error \(error)")
            }
        }
    }

    // Spec N23: observe(on: actor) in an already-cancelled task returns a token whose
    // invalidate() returns false, and the callback is never called.
    @Test(.hangGuard) func observeInACancelledTask() async throws {
        let configuration = testConfiguration()
        let owner = Owner()
        let task = Task { () -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            let realm = try Realm(configuration: configuration)
            let token = await realm.objects(IntObj.self).observe(on: owner) { owner, _ in owner.record("called") }
            return token.invalidate()
        }
        #expect(try await task.value == false)
        try commitElsewhere(configuration)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await owner.changes.isEmpty)
    }

    // Spec X7, C15: asyncOpen in an actor's isolation returns that actor's realm.
    @Test(.hangGuard) func asyncOpenInAnActorIsTheActorsRealm() async throws {
        let configuration = testConfiguration()
        let owner = Owner()
        try await owner.open(configuration)
        let same = try await owner.runThrowing { owner in
            let opened = try await Realm.asyncOpen(configuration: configuration)
            return try opened == owner.requireRealm()
        }
        #expect(same)
    }
}

extension ActorRealmTests.Owner {
    func run<R: Sendable>(_ body: @Sendable (isolated ActorRealmTests.Owner) -> R) -> R { body(self) }
    func runThrowing<R: Sendable>(_ body: @Sendable (isolated ActorRealmTests.Owner) async throws -> R) async throws
        -> R
    {
        try await body(self)
    }
}
