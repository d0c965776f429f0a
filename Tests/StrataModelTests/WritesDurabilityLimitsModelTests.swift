import Testing

@testable import StrataModel

// Unit tests of the reference model against the W (writes), D (durability) and L (limits) rules.
// Every test drives the model through `World` and checks what a caller or a reopen observes.

private let mainCtx = World.main
private let threadCtx = World.thread
private let queueCtx = World.queue
private let otherCtx = World.otherProcess  // process 2
private let fileLocation = World.file.location

extension World {
    /// The readings of a scratch Results over `query` through `realm` (released after the read).
    fileprivate mutating func wdlReadings(
        _ context: ContextID, _ realm: RealmID, _ query: Query = .all("Item"),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [ObjectReading] {
        let scratch: HandleID = 9_000
        ok(context, .objects(realm, query, as: scratch), sourceLocation: sourceLocation)
        let value = ok(context, .read(scratch), sourceLocation: sourceLocation)
        run(context, .releaseHandle(scratch))
        guard case .elements(let readings) = value else { return [] }
        return readings
    }

    /// Primary keys through `realm`, in the query's order.
    fileprivate mutating func wdlKeys(
        _ context: ContextID, _ realm: RealmID, _ query: Query = .all("Item"),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Int] {
        wdlReadings(context, realm, query, sourceLocation: sourceLocation).map(\.primaryKey)
    }

    /// Primary key → value of every `type` object through `realm`.
    fileprivate mutating func wdlContents(
        _ context: ContextID, _ realm: RealmID, _ type: String = "Item",
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Int: Int] {
        var contents: [Int: Int] = [:]
        for reading in wdlReadings(context, realm, .all(type), sourceLocation: sourceLocation) {
            contents[reading.primaryKey] = reading.value ?? Int.min
        }
        return contents
    }

    /// What an object accessor reads.
    fileprivate mutating func wdlObject(
        _ context: ContextID, _ handle: HandleID,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ObjectReading? {
        guard case .object(let reading) = ok(context, .read(handle), sourceLocation: sourceLocation)
        else { return nil }
        return reading
    }

    fileprivate mutating func wdlInWrite(
        _ context: ContextID, _ realm: RealmID,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool? {
        guard
            case .bool(let inWrite) = ok(
                context, .isInWriteTransaction(realm),
                sourceLocation: sourceLocation)
        else { return nil }
        return inWrite
    }

    /// `write {}` with the engine's fate for its commit.
    @discardableResult
    fileprivate mutating func wdlWrite(
        _ context: ContextID, _ realm: RealmID, _ mutations: [Mutation],
        fate: CommitFate
    ) -> Outcome {
        run(context, .writeBlock(realm, mutations, ending: .commit, withoutNotifying: [], fate: fate))
    }

    fileprivate func wdlFile(_ configuration: Configuration = World.file) -> FileState? {
        state.files[configuration.location]
    }

    fileprivate func wdlActive(_ configuration: Configuration = World.file) -> Set<Version> {
        state.activeVersions(of: configuration.location)
    }

    /// Completions that ran, in order, with their errors.
    fileprivate func wdlCompletions() -> [(AsyncWriteID, ModelError?)] {
        events.compactMap {
            if case .asyncCompleted(let id, let error) = $0 { return (id, error) }
            return nil
        }
    }
}

private func versions(_ raw: [Int]) -> Set<Version> { Set(raw.map { Version($0) }) }

/// A world whose file (opened with `configuration` as realm 1 on the main thread) has active
/// versions v1, v2, v3 (frozen realms 50, 51, 52) and v4 (the newest, read by realm 1).
private func worldWithFourActiveVersions(_ configuration: Configuration) -> World {
    var world = World()
    world.open(mainCtx, 1, configuration)
    world.ok(mainCtx, .freezeRealm(1, as: 50))  // pins v1
    world.write(mainCtx, 1, [item(1)])  // v2
    world.ok(mainCtx, .freezeRealm(1, as: 51))
    world.write(mainCtx, 1, [item(2)])  // v3
    world.ok(mainCtx, .freezeRealm(1, as: 52))
    world.write(mainCtx, 1, [item(3)])  // v4: begun with 3 active versions
    return world
}

@Suite struct WritesDurabilityLimitsModelTests {

    // MARK: W: write transactions

    @Test("Spec W1: one writer per file; waiters stay blocked until the lock is freed, one at a time")
    func oneWriterPerFile() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.open(queueCtx, 4)
        w.open(otherCtx, 3)
        w.ok(mainCtx, .beginWrite(1))
        #expect(w.wdlFile()?.writer == 1)
        // Every other writer, in this process or another, synchronous or not, waits.
        let before = w.state
        #expect(w.run(threadCtx, .beginWrite(2)).result == .blocked)
        #expect(
            w.run(
                otherCtx,
                .writeBlock(
                    3, [item(9)], ending: .commit, withoutNotifying: [],
                    fate: .success)
            ).result == .blocked)
        #expect(w.run(queueCtx, .beginWrite(4)).result == .blocked)
        #expect(w.state == before)  // a blocked call changes nothing
        // An async block of another realm does not start while the lock is held.
        w.ok(threadCtx, .beginAsyncWrite(2, [item(5)], ending: .commit(allowGrouping: false), as: 1))
        #expect(!w.run(threadCtx, .turnLoop).events.contains(.asyncBlockStarted(1)))
        w.ok(threadCtx, .cancelAsyncWrite(2, 1))

        w.ok(mainCtx, .apply(1, [item(1)]))
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.wdlFile()?.writer == nil)
        // The lock is free: exactly one waiter takes it, the others keep waiting.
        w.ok(threadCtx, .beginWrite(2))
        #expect(w.run(otherCtx, .beginWrite(3)).result == .blocked)
        #expect(w.run(queueCtx, .beginWrite(4)).result == .blocked)
        w.ok(threadCtx, .cancelWrite(2))  // freed by cancel
        w.wdlWrite(otherCtx, 3, [item(2)], fate: .success)
        #expect(w.run(queueCtx, .beginWrite(4)).result == .success(.done))
        #expect(w.run(mainCtx, .beginWrite(1)).result == .blocked)
        w.ok(queueCtx, .release(4))  // released in its write: its context keeps it (C1, W7)
        #expect(w.run(mainCtx, .beginWrite(1)).result == .blocked)
        #expect(w.open(queueCtx, 5) == 4)
        w.ok(queueCtx, .cancelWrite(4))  // freed by cancel
        w.ok(mainCtx, .beginWrite(1))
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2])
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.newest() == Version(4))
    }

    @Test("Spec W2: a nested write is rejected and the open write is left unchanged")
    func nestedWriteRejected() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1)])
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .apply(1, [item(2)]))
        let openWrite = w.state.realms[1]?.write
        let error = w.fails(mainCtx, .beginWrite(1))
        #expect(error == .alreadyInWrite)
        #expect(error?.message == "The Realm is already in a write transaction")
        #expect(
            w.fails(
                mainCtx,
                .writeBlock(
                    1, [item(3)], ending: .commit, withoutNotifying: [],
                    fate: .success)) == .alreadyInWrite)
        // Another handle of the same context is the same instance: also rejected.
        #expect(w.open(mainCtx, 5) == 1)
        #expect(w.fails(mainCtx, .beginWrite(1)) == .alreadyInWrite)
        #expect(w.state.realms[1]?.write == openWrite)
        #expect(w.wdlInWrite(mainCtx, 1) == true)
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2])
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.newest() == Version(3))
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2])
    }

    @Test("Spec W3: commit and cancel need an open write on that realm, not on the thread")
    func commitAndCancelNeedAWrite() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(mainCtx, 2, World.otherFile)
        let commitError = w.fails(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(commitError == .noWriteToCommit)
        #expect(commitError?.message == "Can't commit a non-existing write transaction")
        let cancelError = w.fails(mainCtx, .cancelWrite(1))
        #expect(cancelError == .noWriteToCancel)
        #expect(cancelError?.message == "Can't cancel a non-existing write transaction")
        // Realm A is in a write; realm B of another file in the same context is not.
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .apply(1, [item(1)]))
        #expect(w.fails(mainCtx, .cancelWrite(2)) == .noWriteToCancel)
        #expect(
            w.fails(mainCtx, .commitWrite(2, withoutNotifying: [], fate: .success))
                == .noWriteToCommit)
        #expect(w.wdlInWrite(mainCtx, 1) == true)
        #expect(w.wdlInWrite(mainCtx, 2) == false)
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.wdlKeys(mainCtx, 1) == [1])
        #expect(w.newest(World.otherFile) == Version(1))
    }

    @Test("Spec W4: every read inside a write reflects its own changes, and the same after commit")
    func writerSeesOwnChanges() {
        var w = World()
        w.open(mainCtx, 1)
        w.ok(mainCtx, .beginWrite(1))
        #expect(w.ok(mainCtx, .isEmpty(1)) == .bool(true))
        w.ok(mainCtx, .apply(1, [item(1, 10)]))
        #expect(w.ok(mainCtx, .isEmpty(1)) == .bool(false))
        w.ok(
            mainCtx,
            .apply(
                1,
                [
                    item(2, 20), item(3, 5),
                    .setValue(
                        type: "Item", primaryKey: 1,
                        value: 30),
                ]))
        let byValue = Query(source: .table("Item"), sort: .value)
        let atLeast20 = Query(source: .table("Item"), minimumValue: 20)
        // Live Results made before further changes follow them too.
        w.ok(mainCtx, .objects(1, byValue, as: 10))
        w.ok(mainCtx, .create(1, type: "Item", primaryKey: 4, value: 1, update: .error, as: 11))

        func reads(_ w: inout World, _ base: Int) -> [[Int]] {
            let count: Int
            if case .elements(let all) = w.ok(mainCtx, .read(10)) { count = all.count } else { count = -1 }
            let first = HandleID(base)
            let last = HandleID(base + 1)
            w.ok(mainCtx, .element(10, at: 0, as: first))  // Results.first
            w.ok(mainCtx, .element(10, at: count - 1, as: last))  // Results.last
            return [
                [count], w.wdlKeys(mainCtx, 1), w.wdlKeys(mainCtx, 1, byValue),
                w.wdlKeys(mainCtx, 1, atLeast20),
                [
                    w.wdlObject(mainCtx, first)?.primaryKey ?? -1,
                    w.wdlObject(mainCtx, last)?.primaryKey ?? -1,
                ],
                [w.wdlObject(mainCtx, 11)?.value ?? -1],
            ]
        }
        let inside = reads(&w, 20)
        #expect(inside == [[4], [1, 2, 3, 4], [4, 3, 2, 1], [1, 2], [4, 1], [1]])
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(reads(&w, 30) == inside)
        #expect(w.ok(mainCtx, .isEmpty(1)) == .bool(false))
    }

    @Test("Spec W5: cancelWrite restores the start state, also inside write {}")
    func cancelRestoresStart() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(
            mainCtx, 1,
            [
                item(1, 1), item(2, 2), .create(type: "Other", primaryKey: 10, value: 0),
                .append(ownerType: "Item", ownerKey: 1, elementType: "Item", elementKey: 2),
                .setMapValue(ownerType: "Item", ownerKey: 1, key: "k", elementType: "Item", elementKey: 2),
            ])
        let start = w.state.view(of: 1)
        let startItems = w.wdlReadings(mainCtx, 1)
        let startOthers = w.wdlReadings(mainCtx, 1, .all("Other"))

        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 20))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 21))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Other", primaryKey: 10, as: 24))
        w.ok(mainCtx, .listOf(20, as: 22))
        w.ok(mainCtx, .setValue(20, 99))  // scalar
        w.ok(mainCtx, .setMapValue(20, key: "k", element: nil))  // link cleared
        w.ok(mainCtx, .setMapValue(20, key: "j", element: 21))  // link set
        w.ok(mainCtx, .setMapValue(20, key: "k", element: 24))  // link re-pointed
        w.ok(mainCtx, .makeUnmanaged(type: "Item", primaryKey: 7, value: 7, as: 23))
        w.ok(mainCtx, .add(1, 23, update: .error))  // an object created by linking
        w.ok(mainCtx, .append(list: 22, element: 23))  // List append
        w.ok(mainCtx, .removeFromList(22, at: 0))  // List removal
        w.ok(mainCtx, .append(list: 22, element: 21))  // replacement of index 0 by remove+append
        w.ok(mainCtx, .create(1, type: "Item", primaryKey: 3, value: 3, update: .error, as: 25))
        w.ok(mainCtx, .apply(1, [.delete(type: "Other", primaryKey: 10)]))
        #expect(w.state.view(of: 1) != start)
        w.ok(mainCtx, .cancelWrite(1))

        #expect(w.wdlInWrite(mainCtx, 1) == false)
        #expect(w.state.view(of: 1) == start)
        #expect(w.wdlReadings(mainCtx, 1) == startItems)
        #expect(w.wdlReadings(mainCtx, 1, .all("Other")) == startOthers)
        #expect(w.ok(mainCtx, .isInvalidated(23)) == .bool(true))  // created in the write: gone
        #expect(w.ok(mainCtx, .isInvalidated(25)) == .bool(true))
        #expect(w.wdlObject(mainCtx, 20)?.listKeys == [2])
        #expect(w.newest() == Version(2))

        // cancelWrite() inside write {}: the block returns normally without committing.
        let outcome = w.run(
            mainCtx,
            .writeBlock(
                1,
                [
                    item(8),
                    .setValue(
                        type: "Item", primaryKey: 1,
                        value: 5),
                ],
                ending: .cancelInBlock, withoutNotifying: [],
                fate: .success))
        #expect(outcome.result == .success(.done))
        #expect(w.wdlInWrite(mainCtx, 1) == false)
        #expect(w.newest() == Version(2))
        #expect(w.wdlReadings(mainCtx, 1) == startItems)
    }

    @Test("Spec W6: a throwing write block rolls back and rethrows exactly its error")
    func throwingBlockRollsBack() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.write(mainCtx, 1, [item(1, 1)])
        let created = w.run(
            mainCtx,
            .writeBlock(
                1,
                [
                    item(2),
                    .setValue(
                        type: "Item", primaryKey: 1,
                        value: 50),
                ],
                ending: .throwError(code: 42), withoutNotifying: [],
                fate: .success))
        #expect(created.result == .failure(.thrownByBlock(code: 42)))
        #expect(w.wdlInWrite(mainCtx, 1) == false)
        #expect(w.newest() == Version(2))
        #expect(w.wdlContents(mainCtx, 1) == [1: 1])
        // Nothing created: still rolled back and rethrown.
        let empty = w.run(
            mainCtx,
            .writeBlock(
                1, [], ending: .throwError(code: 7),
                withoutNotifying: [], fate: .success))
        #expect(empty.result == .failure(.thrownByBlock(code: 7)))
        #expect(w.wdlInWrite(mainCtx, 1) == false)
        #expect(w.newest() == Version(2))
        // The lock was released with the rollback.
        w.write(threadCtx, 2, [item(3)])
        #expect(w.wdlKeys(threadCtx, 2) == [1, 3])
    }

    @Test("Spec W7, C1: invalidate rolls back and frees the lock; a released realm keeps its write")
    func invalidateRollsBackAndAReleasedRealmKeepsItsWrite() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.write(mainCtx, 1, [item(1)])
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .apply(1, [item(2)]))
        w.ok(mainCtx, .invalidate(1))
        #expect(w.wdlInWrite(mainCtx, 1) == false)
        #expect(w.wdlFile()?.writer == nil)
        #expect(w.newest() == Version(2))
        w.ok(threadCtx, .beginWrite(2))  // the lock was released
        #expect(w.wdlKeys(threadCtx, 2) == [1])
        w.ok(threadCtx, .cancelWrite(2))
        #expect(w.wdlKeys(mainCtx, 1) == [1])

        // Releasing the last reference while in a write: the context keeps the instance and its
        // write (C1); `Realm()` there returns it. (A thread's exit would release it and roll the
        // write back; the model's contexts do not exit.)
        w.open(queueCtx, 3)
        w.ok(queueCtx, .beginWrite(3))
        w.ok(queueCtx, .apply(3, [item(3)]))
        w.ok(queueCtx, .release(3))
        #expect(w.wdlFile()?.writer == 3)
        #expect(w.state.realms[3]?.isClosed == false)
        #expect(w.open(queueCtx, 4) == 3)  // the same instance, still in its write
        #expect(w.wdlInWrite(queueCtx, 3) == true)
        #expect(w.wdlKeys(queueCtx, 3) == [1, 3])
        w.ok(queueCtx, .release(3))
        w.ok(queueCtx, .cancelWrite(3))  // named by the caller's earlier identifier
        #expect(w.wdlFile()?.writer == nil)
        #expect(w.state.realms[3]?.isClosed == true, "released with its write ended: it ends")
        #expect(w.newest() == Version(2))
        w.ok(threadCtx, .beginWrite(2))
        w.ok(threadCtx, .cancelWrite(2))
    }

    @Test("Spec W8, D2: the write lock dies with its holder; others then write on the last version")
    func lockDiesWithHolder() {
        // Closed during a write.
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .close(1))
        #expect(w.wdlFile()?.writer == nil)
        w.write(threadCtx, 2, [item(1)])
        #expect(w.newest() == Version(2))

        // A process dies inside beginWrite: a realm opened before and one opened after write.
        var k = World()
        k.open(mainCtx, 1)
        k.write(mainCtx, 1, [item(1)])
        k.open(otherCtx, 3)
        k.ok(otherCtx, .beginWrite(3))
        k.ok(otherCtx, .apply(3, [item(2)]))
        #expect(k.run(mainCtx, .beginWrite(1)).result == .blocked)
        k.ok(mainCtx, .killProcess(2))
        #expect(k.wdlFile()?.writer == nil)
        #expect(k.wdlKeys(mainCtx, 1) == [1])
        k.write(mainCtx, 1, [item(3)])
        k.ok(mainCtx, .addContext(20, process: 3, kind: .thread(hasEventLoop: true)))
        k.open(20, 30)
        #expect(k.wdlKeys(20, 30) == [1, 3])
        k.write(20, 30, [item(4)])
        #expect(k.newest() == Version(4))

        // Killed inside the commit, in every window: the next writer starts from V, or from V + 1
        // when the slot reached the file (D2), and commits after it.
        for window in CommitWindow.allCases {
            var p = World()
            p.open(mainCtx, 1)
            p.write(mainCtx, 1, [item(1)])
            p.open(otherCtx, 3)
            p.wdlWrite(otherCtx, 3, [item(2)], fate: .processKilled(window))
            #expect(p.state.realms[3] == nil, "\(window)")
            #expect(p.wdlFile()?.writer == nil, "\(window)")
            p.ok(mainCtx, .beginWrite(1))
            let expected = window.slotWritten ? [1, 2] : [1]
            #expect(p.wdlKeys(mainCtx, 1) == expected, "\(window)")
            p.ok(mainCtx, .apply(1, [item(3)]))
            p.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
            #expect(p.newest() == Version(window.slotWritten ? 4 : 3), "\(window)")
            p.ok(mainCtx, .addContext(20, process: 3, kind: .thread(hasEventLoop: true)))
            p.open(20, 30)
            #expect(p.wdlKeys(20, 30) == expected + [3], "\(window)")
        }
    }

    @Test("Spec W9: every mutation outside a write transaction is rejected")
    func mutationsNeedAWrite() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(
            mainCtx, 1,
            [
                item(1), item(2),
                .append(ownerType: "Item", ownerKey: 1, elementType: "Item", elementKey: 2),
            ])
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 11))
        w.ok(mainCtx, .listOf(10, as: 12))
        w.ok(mainCtx, .objects(1, .all("Item"), as: 13))
        w.ok(mainCtx, .makeUnmanaged(type: "Item", primaryKey: 5, value: 5, as: 14))
        let before = w.state
        let mutations: [Operation] = [
            .setValue(10, 5),
            .append(list: 12, element: 11),
            .removeFromList(12, at: 0),
            .setMapValue(10, key: "k", element: 11),
            .create(1, type: "Item", primaryKey: 3, value: 3, update: .error, as: 15),
            .add(1, 14, update: .error),
            .apply(1, [.setValue(type: "Item", primaryKey: 1, value: 9)]),
            .apply(1, [item(4)]),
            .apply(1, [.append(ownerType: "Item", ownerKey: 1, elementType: "Item", elementKey: 1)]),
            .delete(1, 10),
            .delete(1, 12),
            .deleteAll(1),
        ]
        for mutation in mutations {
            let error = w.fails(mainCtx, mutation)
            #expect(error?.message.contains("write transaction") == true, "\(mutation): \(String(describing: error))")
        }
        let resultsError = w.fails(mainCtx, .delete(1, 13))
        #expect(resultsError == .resultsOutsideWrite)
        #expect(resultsError?.message == "Cannot modify Results outside of a write transaction.")
        #expect(w.state == before)
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2])
        #expect(w.wdlObject(mainCtx, 10)?.listKeys == [2])
    }

    @Test("Spec W10: adding the same object twice, or two objects with one key and update .all, stores one")
    func addingIsIdempotent() {
        var w = World()
        w.open(mainCtx, 1)
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .makeUnmanaged(type: "Item", primaryKey: 1, value: 1, as: 10))
        w.ok(mainCtx, .add(1, 10, update: .error))
        #expect(w.ok(mainCtx, .add(1, 10, update: .error)) == .handle(10))
        #expect(w.wdlKeys(mainCtx, 1) == [1])
        w.ok(mainCtx, .makeUnmanaged(type: "Item", primaryKey: 2, value: 20, as: 11))
        w.ok(mainCtx, .makeUnmanaged(type: "Item", primaryKey: 2, value: 21, as: 12))
        w.ok(mainCtx, .add(1, 11, update: .all))
        w.ok(mainCtx, .add(1, 12, update: .all))
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2])
        #expect(w.wdlContents(mainCtx, 1) == [1: 1, 2: 21])
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.wdlContents(mainCtx, 1) == [1: 1, 2: 21])
    }

    @Test("Spec W11: deleting unmanaged, foreign or deleted objects is rejected and changes nothing")
    func deleteErrors() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(mainCtx, 2, World.otherFile)
        w.open(threadCtx, 3)
        w.write(mainCtx, 1, [item(1), item(2)])
        w.write(
            mainCtx, 2,
            [
                item(1),
                .append(
                    ownerType: "Item", ownerKey: 1, elementType: "Item",
                    elementKey: 1),
            ])
        w.ok(mainCtx, .objectForPrimaryKey(2, type: "Item", primaryKey: 1, as: 20))  // B's object
        w.ok(mainCtx, .objects(2, .all("Item"), as: 21))  // B's Results
        w.ok(mainCtx, .listOf(20, as: 22))  // B's List
        w.ok(mainCtx, .makeUnmanaged(type: "Item", primaryKey: 9, value: 9, as: 23))
        w.ok(threadCtx, .objectForPrimaryKey(3, type: "Item", primaryKey: 1, as: 24))  // same file,
        // another instance
        let foreign: [HandleID] = [20, 21, 22, 23, 24]

        func expectAllRefused(_ w: inout World, _ phase: String) {
            for handle in foreign {
                let before = w.state
                let error = w.fails(mainCtx, .delete(1, handle))
                // Results and Lists in Realm's plural words (`-[RLMRealm deleteObjects:]`).
                let collection = handle == 21 || handle == 22
                #expect(
                    error == (collection ? .deleteCollectionFromOtherRealm : .deleteFromOtherRealm),
                    "\(phase) \(handle)")
                #expect(
                    error?.message
                        == (collection
                            ? "Can only delete objects from the Realm they belong to."
                            : "Can only delete an object from the Realm it belongs to."))
                #expect(w.state == before, "\(phase) \(handle)")
            }
        }
        expectAllRefused(&w, "neither in a write")
        w.ok(mainCtx, .beginWrite(1))
        expectAllRefused(&w, "A in a write")
        w.ok(mainCtx, .beginWrite(2))
        expectAllRefused(&w, "both in a write")
        w.ok(mainCtx, .cancelWrite(1))
        expectAllRefused(&w, "B in a write")
        w.ok(mainCtx, .cancelWrite(2))

        // Deleting an already-deleted object.
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 30))
        w.ok(mainCtx, .delete(1, 30))
        let before = w.state
        let error = w.fails(mainCtx, .delete(1, 30))
        #expect(error == .objectInvalidated)
        #expect(error?.message == "Object has been deleted or invalidated.")
        #expect(w.state == before)
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.wdlKeys(mainCtx, 1) == [2])
        #expect(w.wdlKeys(mainCtx, 2) == [1])
    }

    @Test("Spec W12: delete and deleteAll invalidate accessors at once, before the commit")
    func deletionInvalidatesAtOnce() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1), item(2), .create(type: "Other", primaryKey: 5, value: 5)])
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 11))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Other", primaryKey: 5, as: 13))
        w.ok(mainCtx, .listOf(11, as: 12))
        #expect(w.ok(mainCtx, .realmOf(10)) == .realm(1))
        w.ok(mainCtx, .delete(1, 10))
        #expect(w.newest() == Version(2))  // not committed yet
        #expect(w.ok(mainCtx, .isInvalidated(10)) == .bool(true))
        #expect(w.ok(mainCtx, .realmOf(10)) == .realm(nil))
        let readError = w.fails(mainCtx, .read(10))
        #expect(readError?.message.contains("invalidated") == true)
        let addError = w.fails(mainCtx, .add(1, 10, update: .error))
        #expect(addError?.message.contains("deleted or invalidated") == true)
        let linkError = w.fails(mainCtx, .append(list: 12, element: 10))
        #expect(linkError?.message.contains("deleted or invalidated") == true)

        w.ok(mainCtx, .deleteAll(1))
        for handle: HandleID in [11, 13] {
            #expect(w.ok(mainCtx, .isInvalidated(handle)) == .bool(true))
            #expect(w.ok(mainCtx, .realmOf(handle)) == .realm(nil))
        }
        #expect(w.wdlKeys(mainCtx, 1) == [])
        #expect(w.wdlKeys(mainCtx, 1, .all("Other")) == [])
        #expect(w.ok(mainCtx, .isEmpty(1)) == .bool(true))
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.ok(mainCtx, .isEmpty(1)) == .bool(true))
    }

    @Test("Spec W13: deleting a List deletes its targets; Maps keep keys with nil, Lists shrink")
    func deletingCollectionTargets() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(
            mainCtx, 1,
            [
                item(1), item(2), item(3), item(4), .create(type: "Other", primaryKey: 1, value: 0),
                .append(ownerType: "Other", ownerKey: 1, elementType: "Item", elementKey: 1),
                .append(ownerType: "Other", ownerKey: 1, elementType: "Item", elementKey: 2),
                .append(ownerType: "Item", ownerKey: 4, elementType: "Item", elementKey: 3),
                .append(ownerType: "Item", ownerKey: 4, elementType: "Item", elementKey: 2),
                .setMapValue(ownerType: "Other", ownerKey: 1, key: "a", elementType: "Item", elementKey: 3),
                .setMapValue(ownerType: "Other", ownerKey: 1, key: "b", elementType: "Item", elementKey: 4),
            ])
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Other", primaryKey: 1, as: 10))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 4, as: 11))
        guard let owner = w.wdlObject(mainCtx, 10)?.id else {
            Issue.record("no owner")
            return
        }
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .listOf(10, as: 12))
        w.ok(mainCtx, .delete(1, 12))  // delete(list)
        #expect(w.ok(mainCtx, .read(12)) == .elements([]))
        #expect(w.wdlKeys(mainCtx, 1) == [3, 4])
        #expect(w.wdlObject(mainCtx, 11)?.listKeys == [3])  // another List shrank
        w.ok(mainCtx, .apply(1, [.delete(type: "Item", primaryKey: 3)]))
        let map = w.state.view(of: 1)?.objects[owner]?.map
        #expect(map?.count == 2)
        #expect(map?["a"] == .some(nil))
        #expect(w.wdlKeys(mainCtx, 1, Query(source: .mapValues(owner: owner))) == [4])
        #expect(w.wdlObject(mainCtx, 11)?.listKeys == [])
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        let committed = w.wdlFile()?.versions[Version(3)]?.objects[owner]?.map
        #expect(committed?.count == 2)
        #expect(committed?["a"] == .some(nil))
        #expect(w.wdlKeys(mainCtx, 1) == [4])
    }

    @Test("Spec W14: create from another realm's object copies it deeply and leaves the source")
    func createCopiesAcrossRealms() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(mainCtx, 2, World.otherFile)
        w.write(
            mainCtx, 1,
            [
                item(1, 10), item(2, 20),
                .append(ownerType: "Item", ownerKey: 1, elementType: "Item", elementKey: 2),
            ])
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        w.ok(mainCtx, .beginWrite(2))
        w.ok(mainCtx, .createCopy(2, of: 10, as: 20))
        w.ok(mainCtx, .commitWrite(2, withoutNotifying: [], fate: .success))
        #expect(w.wdlContents(mainCtx, 2) == [1: 10, 2: 20])  // B: 2 objects
        #expect(w.wdlObject(mainCtx, 20)?.listKeys == [2])
        #expect(w.ok(mainCtx, .realmOf(20)) == .realm(2))
        #expect(w.wdlContents(mainCtx, 1) == [1: 10, 2: 20])  // A: still 2
        #expect(w.ok(mainCtx, .realmOf(10)) == .realm(1))
        #expect(w.newest() == Version(2))
        // The copy is a new object: changing it leaves A alone.
        w.ok(mainCtx, .beginWrite(2))
        w.ok(mainCtx, .setValue(20, 99))
        w.ok(mainCtx, .commitWrite(2, withoutNotifying: [], fate: .success))
        #expect(w.wdlObject(mainCtx, 10)?.value == 10)
    }

    @Test("Spec W15: a failing observer never fails a commit or a begin")
    func observersCannotFailAWrite() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.write(mainCtx, 1, [item(1)])
        // The callback writes a duplicate primary key: it fails inside the callback.
        w.ok(mainCtx, .observeRealm(1, action: .write([item(1)]), as: 1))
        let commit = w.wdlWrite(mainCtx, 1, [item(2)], fate: .success)
        #expect(commit.result == .success(.done))
        #expect(commit.events.contains(.didChange(1)))
        #expect(commit.events.contains { if case .callbackFailed(1, _) = $0 { true } else { false } })
        #expect(w.wdlInWrite(mainCtx, 1) == false)
        #expect(w.newest() == Version(3))
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2])
        // A begin that moves the realm runs the observer; it still begins.
        w.write(threadCtx, 2, [item(3)])
        let begin = w.run(mainCtx, .beginWrite(1))
        #expect(begin.result == .success(.done))
        #expect(begin.events.contains(.didChange(1)))
        #expect(begin.events.contains { if case .callbackFailed(1, _) = $0 { true } else { false } })
        #expect(w.wdlInWrite(mainCtx, 1) == true)
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2, 3])
        let commitAgain = w.run(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(commitAgain.result == .success(.done))
        #expect(w.wdlInWrite(mainCtx, 1) == false)
    }

    @Test("Spec W16: each commit makes exactly start + 1, even when empty, in commit order")
    func commitMakesOneVersion() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.ok(mainCtx, .observeRealm(1, action: .none, as: 1))
        w.ok(mainCtx, .beginWrite(1))
        #expect(w.state.realms[1]?.write?.startVersion == Version(1))
        let empty = w.run(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(empty.result == .success(.done))
        #expect(empty.events.contains(.didChange(1)))  // published before returning
        #expect(w.newest() == Version(2))
        #expect(w.readVersion(1) == Version(2))
        #expect(w.wdlFile()?.writer == nil)  // lock released before returning
        w.write(threadCtx, 2, [item(1)])  // thread began at the newest, v2
        #expect(w.newest() == Version(3))
        w.ok(mainCtx, .beginWrite(1))  // begins at the newest (v3), not its old read version
        #expect(w.state.realms[1]?.write?.startVersion == Version(3))
        w.ok(mainCtx, .apply(1, [item(2)]))
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        w.write(threadCtx, 2, [])
        #expect(w.newest() == Version(5))
        #expect(
            w.state.committers[fileLocation] == [
                Version(2): 1, Version(3): 2, Version(4): 1,
                Version(5): 2,
            ])
        #expect(w.wdlKeys(threadCtx, 2) == [1, 2])
    }

    @Test("Spec W17: a failed commit throws .fail with the engine's error, leaves V and frees the lock")
    func failedCommit() {
        let failures: [CommitFailure] = [
            .beforeSlot, .atSlot(slotOnDisk: false),
            .atSlot(slotOnDisk: true), .mapCapacityExceeded,
        ]
        for failure in failures {
            for viaBlock in [false, true] {
                var w = World()
                w.open(mainCtx, 1)
                w.open(otherCtx, 3)
                w.write(mainCtx, 1, [item(1)])
                let outcome: Outcome
                if viaBlock {
                    outcome = w.wdlWrite(mainCtx, 1, [item(2)], fate: .failure(failure))
                } else {
                    w.ok(mainCtx, .beginWrite(1))
                    w.ok(mainCtx, .apply(1, [item(2)]))
                    outcome = w.run(
                        mainCtx,
                        .commitWrite(
                            1, withoutNotifying: [],
                            fate: .failure(failure)))
                }
                #expect(outcome.result == .failure(.commitFailed(failure)), "\(failure)")
                if case .failure(let error) = outcome.result {
                    #expect(error.code == .fail)
                }
                #expect(w.wdlInWrite(mainCtx, 1) == false, "\(failure)")
                #expect(w.readVersion(1) == Version(2), "\(failure)")
                #expect(w.newest() == Version(2), "\(failure)")
                #expect(w.wdlFile()?.writer == nil, "\(failure)")
                if failure == .mapCapacityExceeded {
                    // Refused before any write: not poisoned, the realm still reads V.
                    #expect(w.wdlKeys(mainCtx, 1) == [1], "\(failure)")
                } else {
                    // Spec D6: a poisoned file refuses reads through its live realms too.
                    #expect(w.fails(mainCtx, .objects(1, .all("Item"), as: 90)) == .poisoned)
                }
                // Another process takes the lock at once.
                w.ok(otherCtx, .beginWrite(3))
                w.ok(otherCtx, .cancelWrite(3))
            }
        }
    }

    @Test("Spec W18: frozen and read-only realms take no writes")
    func frozenAndReadOnlyRealms() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1)])
        w.ok(mainCtx, .freezeRealm(1, as: 50))
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        w.ok(mainCtx, .freezeHandle(10, as: 11))
        w.ok(mainCtx, .objects(1, .all("Item"), as: 12))
        w.ok(mainCtx, .freezeHandle(12, as: 13))
        var frozenRealms: [RealmID] = [50]
        for handle: HandleID in [11, 13] {
            guard case .realm(let realm?) = w.ok(mainCtx, .realmOf(handle)) else {
                Issue.record("no realm of frozen \(handle)")
                continue
            }
            frozenRealms.append(realm)
        }
        #expect(frozenRealms.count == 3)
        for realm in frozenRealms {
            for context in [mainCtx, threadCtx] {
                let error = w.fails(context, .beginWrite(realm))
                #expect(error == .frozenTransaction)
                #expect(error?.message == "Can't perform transactions on a frozen Realm")
                #expect(
                    w.fails(
                        context,
                        .writeBlock(
                            realm, [item(2)], ending: .commit,
                            withoutNotifying: [], fate: .success))
                        == .frozenTransaction)
            }
        }
        // Read-only (process 2: one access mode per path per process).
        let readOnly = Configuration(location: fileLocation, readOnly: true)
        w.open(otherCtx, 3, readOnly)
        let error = w.fails(otherCtx, .beginWrite(3))
        #expect(error == .readOnlyTransaction)
        #expect(error?.message == "Can't perform transactions on read-only Realms.")
        #expect(
            w.fails(
                otherCtx,
                .writeBlock(
                    3, [item(2)], ending: .commit, withoutNotifying: [],
                    fate: .success)) == .readOnlyTransaction)
        #expect(w.wdlInWrite(otherCtx, 3) == false)
        #expect(w.newest() == Version(2))
        #expect(w.wdlKeys(otherCtx, 3) == [1])
    }

    // MARK: D: durability and crash recovery

    @Test(
        "Spec W20: object(forPrimaryKey:) and update policies: .error refuses an existing key, .modified and .all update in place"
    )
    func primaryKeysAndUpdatePolicies() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1, 10)])
        // The object with the key at the read version, or nil.
        #expect(w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10)) == .handle(10))
        #expect(w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 9, as: 11)) == .handle(nil))
        w.ok(mainCtx, .beginWrite(1))
        // Inside a write, with the write's own changes.
        w.ok(mainCtx, .apply(1, [item(2, 20)]))
        #expect(w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 12)) == .handle(12))
        // .error: refused, nothing changes.
        let before = w.state
        #expect(
            w.fails(mainCtx, .create(1, type: "Item", primaryKey: 1, value: 11, update: .error, as: 13))
                == .primaryKeyExists(type: "Item", primaryKey: 1))
        #expect(w.state == before)
        w.ok(mainCtx, .makeUnmanaged(type: "Item", primaryKey: 1, value: 12, as: 14))
        let unmanaged = w.state
        #expect(w.fails(mainCtx, .add(1, 14, update: .error)) == .primaryKeyExists(type: "Item", primaryKey: 1))
        #expect(w.state == unmanaged)
        // .modified and .all: the existing object is updated in place and is the result.
        w.ok(mainCtx, .create(1, type: "Item", primaryKey: 1, value: 13, update: .modified, as: 15))
        #expect(w.state.handles[15]?.target == w.state.handles[10]?.target)
        #expect(w.wdlObject(mainCtx, 10)?.value == 13)  // the old accessor reads the new value
        w.ok(mainCtx, .add(1, 14, update: .all))
        #expect(w.state.handles[14]?.target == w.state.handles[10]?.target)
        #expect(w.wdlObject(mainCtx, 10)?.value == 12)
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2])  // nothing inserted
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.wdlContents(mainCtx, 1) == [1: 12, 2: 20])
    }

    @Test("Spec W23: adding another realm instance's object is refused whatever the policy, and adds nothing")
    func addingAnotherRealmsObjectIsRefused() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(mainCtx, 2, World.otherFile)
        w.open(threadCtx, 3)
        w.write(mainCtx, 1, [item(1)])
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))  // another file's
        w.ok(mainCtx, .freezeHandle(10, as: 11))  // a frozen one
        w.ok(threadCtx, .objectForPrimaryKey(3, type: "Item", primaryKey: 1, as: 12))  // another context's
        w.ok(mainCtx, .beginWrite(2))
        let before = w.state
        for policy: UpdatePolicy in [.error, .modified, .all] {
            #expect(w.fails(mainCtx, .add(2, 10, update: policy)) == .addToOtherRealm)
            #expect(w.fails(mainCtx, .add(2, 11, update: policy)) == .addToOtherRealm)
        }
        #expect(w.fails(mainCtx, .add(1, 12, update: .all)) == .notInWrite)  // the write is checked first
        w.ok(mainCtx, .beginWrite(1))
        #expect(w.fails(mainCtx, .add(1, 12, update: .all)) == .addToOtherRealm)
        #expect(w.state.handles == before.handles)
        #expect(w.wdlKeys(mainCtx, 2) == [])
        #expect(w.state.handles[10]?.realm == 1)  // it stays with its realm
    }

    @Test("Spec W24: delete takes the Results or List when it begins, so a collection the deletions shrink goes whole")
    func deleteTakesItsObjectsWhenItBegins() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(
            mainCtx, 1,
            [
                item(1, 1), item(2, 2), item(3, 3), item(4, 4),
                .append(
                    ownerType: "Item", ownerKey: 1, elementType: "Item", elementKey: 2),
            ])
        w.ok(mainCtx, .objects(1, Query(source: .table("Item"), minimumValue: 3), as: 10))
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .delete(1, 10))  // every object with a value of 3 or more, each once
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2])
        w.ok(mainCtx, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 11))
        w.ok(mainCtx, .listOf(11, as: 12))
        w.ok(mainCtx, .delete(1, 12))  // the List's objects, which leave it as they go
        #expect(w.wdlKeys(mainCtx, 1) == [1])
        w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(w.wdlKeys(mainCtx, 1) == [1])
    }

    @Test("Spec D1: a commit syncs its slot before publishing and publishes before it returns")
    func commitOrder() {
        // By the time a successful commit returns: synced (durable), published, observers woken,
        // lock released.
        var w = World()
        w.open(mainCtx, 1)
        w.open(otherCtx, 3)
        w.ok(mainCtx, .observeRealm(1, action: .none, as: 1))
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .apply(1, [item(1)]))
        let commit = w.run(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(commit.result == .success(.done))
        #expect(commit.events.contains(.didChange(1)))
        #expect(w.wdlFile()?.durable == Version(2))
        #expect(w.newest() == Version(2))
        #expect(w.wdlFile()?.writer == nil)
        w.ok(otherCtx, .beginWrite(3))
        w.ok(otherCtx, .cancelWrite(3))

        // A machine crash in each window, in protocol order: the recovered version never goes back
        // as the commit advances, and V + 1 appears only once its slot was written.
        var recovered: [Version] = []
        for window in CommitWindow.allCases {
            var c = World()
            c.open(mainCtx, 1)
            c.write(mainCtx, 1, [item(1)])
            c.wdlWrite(mainCtx, 1, [item(2)], fate: .machineCrash(window))
            recovered.append(c.newest() ?? Version(0))
        }
        #expect(recovered == [2, 2, 2, 3, 3, 3].map { Version($0) })

        // The committing process killed in any window: V + 1 was never published (publishing
        // is the last step), so another process's refresh finds nothing new.
        for window in CommitWindow.allCases {
            var k = World()
            k.open(mainCtx, 1)
            k.write(mainCtx, 1, [item(1)])
            k.open(otherCtx, 3)
            k.wdlWrite(otherCtx, 3, [item(2)], fate: .processKilled(window))
            #expect(k.ok(mainCtx, .refresh(1)) == .bool(false), "\(window)")
            #expect(k.newest() == Version(2), "\(window)")
            #expect(k.wdlKeys(mainCtx, 1) == [1], "\(window)")
        }
    }

    @Test("Spec D2, D3: a crash in each commit window recovers the right, complete version")
    func crashInEachWindow() {
        let before = [1: 10, 2: 20]
        let after = [1: 11, 3: 30]
        for window in CommitWindow.allCases {
            for viaBlock in [false, true] {
                var w = World()
                w.open(mainCtx, 1)
                w.open(threadCtx, 2)
                w.write(mainCtx, 1, [item(1, 10), item(2, 20)])  // V = v2
                let mutations: [Mutation] = [
                    item(3, 30), .setValue(type: "Item", primaryKey: 1, value: 11),
                    .delete(type: "Item", primaryKey: 2),
                ]
                if viaBlock {
                    w.wdlWrite(mainCtx, 1, mutations, fate: .machineCrash(window))
                } else {
                    w.ok(mainCtx, .beginWrite(1))
                    w.ok(mainCtx, .apply(1, mutations))
                    w.run(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .machineCrash(window)))
                }
                #expect(w.state.realms.isEmpty, "\(window)")  // every process ended
                w.open(mainCtx, 5)
                let expectNew = window.slotWritten  // D2: V + 1 only when its whole slot was written
                #expect(w.wdlContents(mainCtx, 5) == (expectNew ? after : before), "\(window)")
                #expect(w.newest() == Version(expectNew ? 3 : 2), "\(window)")
                #expect(w.wdlFile()?.durable == Version(expectNew ? 3 : 2), "\(window)")
                if window.slotSynced {  // D3: after phase 2's sync, exactly V + 1
                    #expect(w.wdlContents(mainCtx, 5) == after, "\(window)")
                }
                if window == .duringPageWrites || window == .afterPhaseOneSync {
                    #expect(w.wdlContents(mainCtx, 5) == before, "\(window)")  // D2: exactly V
                }
            }
        }
        // A slot written but unsynced by a killed process, then power loss: V or V + 1, complete.
        for keep in [false, true] {
            var w = World()
            w.open(mainCtx, 1)
            w.write(mainCtx, 1, [item(1, 10), item(2, 20)])
            w.open(otherCtx, 3)
            w.wdlWrite(
                otherCtx, 3,
                [
                    item(3, 30), .setValue(type: "Item", primaryKey: 1, value: 11),
                    .delete(type: "Item", primaryKey: 2),
                ],
                fate: .processKilled(.duringSlotWriteSlotWritten))
            w.run(mainCtx, .crashMachine(keepUnsyncedSlots: keep))
            w.open(mainCtx, 5)
            #expect(w.wdlContents(mainCtx, 5) == (keep ? after : before))
        }
    }

    @Test("Spec D3: a commit that returned survives every later crash")
    func returnedCommitSurvives() {
        for keep in [false, true] {
            var w = World()
            w.open(mainCtx, 1)
            w.write(mainCtx, 1, [item(1)])
            w.write(mainCtx, 1, [item(2)])
            w.run(mainCtx, .crashMachine(keepUnsyncedSlots: keep))
            w.open(mainCtx, 2)
            #expect(w.wdlKeys(mainCtx, 2) == [1, 2])
            #expect(w.newest() == Version(3))
            // And again after a second crash, with a write in between.
            w.write(mainCtx, 2, [item(3)])
            w.run(mainCtx, .crashMachine(keepUnsyncedSlots: !keep))
            w.open(mainCtx, 3)
            #expect(w.wdlKeys(mainCtx, 3) == [1, 2, 3])
        }
    }

    @Test("Spec D4: recovery takes the newest sound slot; a file with no sound slot opens with an error")
    func recoveryPicksNewestValidSlot() {
        // The newer slot reached the disk whole: it is used, not the older one.
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1)])
        w.wdlWrite(mainCtx, 1, [item(2)], fate: .machineCrash(.duringSlotWriteSlotWritten))
        w.open(mainCtx, 2)
        #expect(w.wdlKeys(mainCtx, 2) == [1, 2])
        // A torn (lost) slot is never used: the older slot is.
        var t = World()
        t.open(mainCtx, 1)
        t.write(mainCtx, 1, [item(1)])
        t.wdlWrite(mainCtx, 1, [item(2)], fate: .machineCrash(.duringSlotWriteSlotLost))
        t.open(mainCtx, 2)
        #expect(t.wdlKeys(mainCtx, 2) == [1])
        // The model's counterpart of "no slot accepted" (noValidCommitSlot / truncated): a
        // `.corrupted` file; open fails with .invalidDatabase and returns no realm.
        t.run(mainCtx, .crashMachine(keepUnsyncedSlots: false))
        t.ok(mainCtx, .setPathCondition("/data/a.realm", .corrupted))
        let error = t.fails(mainCtx, .open(World.file, confinement: .callingContext, as: 3))
        #expect(error == .corruptFile(path: "/data/a.realm"))
        #expect(error?.code == .invalidDatabase)
        #expect(t.state.realms[3] == nil)
        #expect(t.state.realms.isEmpty)
    }

    @Test("Spec D5: versions reachable from a pin are never overwritten or reclaimed while pinned")
    func pinnedVersionsAreKept() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.write(mainCtx, 1, [item(1, 1)])  // v2
        #expect(w.wdlContents(threadCtx, 2) == [1: 1])  // live read pin at v2
        w.ok(mainCtx, .freezeRealm(1, as: 50))  // frozen pin at v2
        w.ok(mainCtx, .objects(50, .all("Item"), as: 51))
        let pinned = w.wdlFile()?.versions[Version(2)]
        for value in 100...103 {
            w.write(mainCtx, 1, [.setValue(type: "Item", primaryKey: 1, value: value), item(value)])
            #expect(w.wdlFile()?.versions[Version(2)] == pinned)  // never overwritten
            #expect(w.wdlContents(mainCtx, 50) == [1: 1])
            #expect(w.wdlContents(threadCtx, 2) == [1: 1])
        }
        // Versions nobody pins are reclaimed; the pinned one and the newest stay.
        #expect(Set(w.wdlFile()?.versions.keys.map { $0 } ?? []) == versions([2, 6]))
        w.ok(mainCtx, .release(50))
        #expect(w.wdlFile()?.versions[Version(2)] != nil)  // the frozen Results still pins it
        w.ok(mainCtx, .releaseHandle(51))
        #expect(w.wdlFile()?.versions[Version(2)] != nil)  // the live reader still pins it
        w.ok(threadCtx, .turnLoop)  // the last reader moves
        #expect(w.wdlFile()?.versions[Version(2)] == nil)
        #expect(w.wdlContents(threadCtx, 2)[1] == 103)
    }

    @Test("Spec D6: a failed write or sync poisons the file in that process and is never retried")
    func failurePoisons() {
        let failures: [CommitFailure] = [.beforeSlot, .atSlot(slotOnDisk: false), .atSlot(slotOnDisk: true)]
        for failure in failures {
            var w = World()
            w.open(mainCtx, 1)
            w.open(threadCtx, 2)
            w.open(otherCtx, 3)
            w.write(mainCtx, 1, [item(1)])
            let outcome = w.wdlWrite(mainCtx, 1, [item(2)], fate: .failure(failure))
            #expect(outcome.result == .failure(.commitFailed(failure)))
            #expect(w.newest() == Version(2), "\(failure)")  // published stays V
            #expect(w.wdlFile()?.durable == Version(2), "\(failure)")
            // Every later write on that file's handles in the process fails with poisoned.
            let error = w.fails(mainCtx, .beginWrite(1))
            #expect(error == .poisoned, "\(failure)")
            #expect(error?.code == .fail)
            #expect(
                w.fails(
                    threadCtx,
                    .writeBlock(
                        2, [item(3)], ending: .commit, withoutNotifying: [],
                        fate: .success)) == .poisoned)
            #expect(
                w.fails(
                    mainCtx,
                    .beginAsyncWrite(
                        1, [item(4)], ending: .commit(allowGrouping: false),
                        as: 1)) == .poisoned, "\(failure)")
            // Reads through live realms of the file in this process fail too; asking whether a
            // write is open does not.
            #expect(w.fails(threadCtx, .objects(2, .all("Item"), as: 91)) == .poisoned)
            #expect(w.ok(mainCtx, .isInWriteTransaction(1)) == .bool(false))
            // Never retried: nothing more became durable or published.
            #expect(w.newest() == Version(2), "\(failure)")
            #expect(w.wdlFile()?.durable == Version(2), "\(failure)")
            // Another process is not poisoned.
            w.write(otherCtx, 3, [item(5)])
            #expect(w.wdlKeys(otherCtx, 3).contains(5), "\(failure)")
        }
    }

    @Test("Spec D7: reopen after a failed commit recovers V, or V or V + 1 at phase 2, never reported committed")
    func reopenAfterFailedCommit() {
        let cases: [(CommitFailure, [Int])] = [
            (.beforeSlot, [1]), (.atSlot(slotOnDisk: false), [1]), (.atSlot(slotOnDisk: true), [1, 2]),
        ]
        for (failure, expected) in cases {
            var w = World()
            w.open(mainCtx, 1)
            w.write(mainCtx, 1, [item(1)])
            let outcome = w.wdlWrite(mainCtx, 1, [item(2)], fate: .failure(failure))
            #expect(outcome.result == .failure(.commitFailed(failure)))  // never reported committed
            #expect(w.fails(mainCtx, .objects(1, .all("Item"), as: 90)) == .poisoned)  // Spec D6
            w.ok(mainCtx, .close(1))  // every handle of the poisoned file
            #expect(w.open(mainCtx, 5) == 5)
            #expect(w.wdlKeys(mainCtx, 5) == expected, "\(failure)")
            #expect(w.newest() == Version(expected.count + 1), "\(failure)")
            // The reopened file is a working file again.
            w.write(mainCtx, 5, [item(3)])
            #expect(w.wdlKeys(mainCtx, 5) == expected + [3], "\(failure)")
        }
    }

    @Test("Spec D8: a corrupted file is detected and returns no data")
    func corruptionDetected() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1)])
        #expect(w.state.invariantViolations().isEmpty)  // verify(): nothing free and reachable
        w.ok(mainCtx, .setPathCondition("/data/a.realm", .corrupted))
        // A new instance must read the file: it fails with .invalidDatabase naming the file.
        for (context, configuration) in [
            (threadCtx, World.file), (otherCtx, World.file),
            (otherCtx, Configuration(location: fileLocation, readOnly: true)),
        ] {
            let error = w.fails(context, .open(configuration, confinement: .callingContext, as: 9))
            #expect(error == .corruptFile(path: "/data/a.realm"))
            #expect(error?.code == .invalidDatabase)
            #expect(error?.message.contains("/data/a.realm") == true)
            #expect(w.state.realms[9] == nil)
        }
        // After a crash, the recovery open fails the same way.
        w.run(mainCtx, .crashMachine(keepUnsyncedSlots: false))
        #expect(
            w.fails(mainCtx, .open(World.file, confinement: .callingContext, as: 2))?.code
                == .invalidDatabase)
        #expect(w.state.realms.isEmpty)
    }

    @Test("Spec D9: a recovered file reads, writes, freezes and survives further crashes")
    func recoveryLeavesAWorkingFile() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1)])
        w.wdlWrite(mainCtx, 1, [item(2)], fate: .machineCrash(.afterSlotSync))
        w.open(mainCtx, 2)
        w.open(threadCtx, 3)
        #expect(w.state.invariantViolations().isEmpty)  // verify() after reopen
        #expect(w.wdlKeys(mainCtx, 2) == [1, 2])
        w.write(mainCtx, 2, [item(3)])  // v4
        w.ok(mainCtx, .freezeRealm(2, as: 50))
        w.write(threadCtx, 3, [item(4)])  // v5
        #expect(w.wdlKeys(mainCtx, 50) == [1, 2, 3])
        #expect(w.wdlKeys(threadCtx, 3) == [1, 2, 3, 4])
        w.wdlWrite(threadCtx, 3, [item(5)], fate: .machineCrash(.duringPageWrites))
        w.open(mainCtx, 4)
        #expect(w.wdlKeys(mainCtx, 4) == [1, 2, 3, 4])
        #expect(w.newest() == Version(5))
        w.wdlWrite(mainCtx, 4, [item(6)], fate: .machineCrash(.beforePublish))
        w.open(mainCtx, 6)
        #expect(w.wdlKeys(mainCtx, 6) == [1, 2, 3, 4, 6])
        #expect(w.state.invariantViolations().isEmpty)
    }

    @Test("Spec D10: an async group is durable all-or-nothing at its last version")
    func asyncGroupAllOrNothing() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1)])  // v2, durable
        w.ok(mainCtx, .beginAsyncWrite(1, [item(2)], ending: .commit(allowGrouping: true), as: 1))
        w.ok(mainCtx, .beginAsyncWrite(1, [item(3)], ending: .commit(allowGrouping: true), as: 2))
        w.ok(mainCtx, .beginAsyncWrite(1, [item(4)], ending: .commit(allowGrouping: false), as: 3))
        w.ok(mainCtx, .beginAsyncWrite(1, [item(5)], ending: .commit(allowGrouping: true), as: 4))
        var committed: [Event] = []
        for _ in 0..<4 {
            committed += w.run(mainCtx, .turnLoop).events.filter {
                if case .asyncCommitted = $0 { true } else { false }
            }
        }
        // Published in memory one by one; the 4th block waits for the group to be durable.
        #expect(
            committed == [
                .asyncCommitted(1, Version(3)), .asyncCommitted(2, Version(4)),
                .asyncCommitted(3, Version(5)),
            ])
        #expect(w.newest() == Version(5))
        #expect(w.wdlKeys(mainCtx, 1) == [1, 2, 3, 4])
        #expect(w.wdlFile()?.durable == Version(2))
        #expect(w.state.realms[1]?.asyncGroups.map(\.commits.count) == [3])

        // A crash before the group's sync recovers the version before its first commit.
        for keep in [false, true] {
            var c = w
            c.run(mainCtx, .crashMachine(keepUnsyncedSlots: keep))
            c.open(mainCtx, 2)
            #expect(c.wdlKeys(mainCtx, 2) == [1])
            #expect(c.newest() == Version(2))
        }
        // After it, the group's last version; never a version inside the group.
        w.ok(mainCtx, .syncAsyncGroup(1, fails: false))
        #expect(w.wdlFile()?.durable == Version(5))
        var after = w
        after.run(mainCtx, .crashMachine(keepUnsyncedSlots: false))
        after.open(mainCtx, 2)
        #expect(after.wdlKeys(mainCtx, 2) == [1, 2, 3, 4])
        // The next group (block 4) is published but not durable: a crash drops it only.
        w.ok(mainCtx, .turnLoop)  // completions of group 1
        w.ok(mainCtx, .turnLoop)  // block 4: v6, group 2 ends (queue empty)
        #expect(w.newest() == Version(6))
        w.run(mainCtx, .crashMachine(keepUnsyncedSlots: true))
        w.open(mainCtx, 2)
        #expect(w.wdlKeys(mainCtx, 2) == [1, 2, 3, 4])
    }

    @Test("Spec D11: an async completion with nil error runs only once its commit is durable")
    func completionsMeanDurable() {
        var w = World()
        w.open(mainCtx, 1)
        w.ok(mainCtx, .writeAsync(1, [item(1)], as: 1))
        w.ok(mainCtx, .writeAsync(1, [item(2)], as: 2))
        w.ok(mainCtx, .beginAsyncWrite(1, [item(3)], ending: .commit(allowGrouping: true), as: 3))
        var committedAt: [AsyncWriteID: Version] = [:]
        var completed: [AsyncWriteID] = []
        let steps: [Operation] = [
            .turnLoop, .turnLoop, .syncAsyncGroup(1, fails: false), .turnLoop,
            .turnLoop, .turnLoop, .syncAsyncGroup(1, fails: false), .turnLoop,
            .turnLoop, .syncAsyncGroup(1, fails: false), .turnLoop,
        ]
        for step in steps {
            let outcome = w.run(mainCtx, step)
            #expect(outcome.result == .success(.done), "\(step)")
            for event in outcome.events {
                switch event {
                case .asyncCommitted(let id, let version):
                    committedAt[id] = version
                case .asyncCompleted(let id, let error):
                    #expect(error == nil)
                    completed.append(id)
                    let durable = w.wdlFile()?.durable ?? Version(0)
                    #expect(committedAt[id].map { $0 <= durable } == true, "\(id) completed before durable")
                default:
                    break
                }
            }
        }
        #expect(completed == [1, 2, 3])
        #expect(committedAt == [1: Version(2), 2: Version(3), 3: Version(4)])
        // Every completed commit survives a crash.
        w.run(mainCtx, .crashMachine(keepUnsyncedSlots: false))
        w.open(mainCtx, 2)
        #expect(w.wdlKeys(mainCtx, 2) == [1, 2, 3])
    }

    @Test("Spec D12: a failed group fails every not-cancelled completion once, in order, and poisons")
    func failedGroupFailsEveryCompletion() {
        var w = World()
        w.open(mainCtx, 1)
        w.write(mainCtx, 1, [item(1)])
        w.ok(mainCtx, .beginAsyncWrite(1, [item(2)], ending: .commit(allowGrouping: true), as: 1))
        w.ok(mainCtx, .beginAsyncWrite(1, [item(3)], ending: .commit(allowGrouping: true), as: 2))
        w.ok(mainCtx, .beginAsyncWrite(1, [item(4)], ending: .commit(allowGrouping: true), as: 3))
        for _ in 0..<3 { w.ok(mainCtx, .turnLoop) }
        #expect(w.newest() == Version(5))
        w.ok(mainCtx, .cancelAsyncWrite(1, 2))  // its commit stays, its completion is dropped
        w.ok(mainCtx, .syncAsyncGroup(1, fails: true))
        for _ in 0..<3 { w.ok(mainCtx, .turnLoop) }
        let completions = w.wdlCompletions()
        #expect(completions.map(\.0) == [1, 3])
        for (_, error) in completions {
            #expect(error == .commitFailed(.beforeSlot))
            #expect(error?.code == .fail)
        }
        #expect(w.wdlFile()?.durable == Version(2))
        let poisoned = w.fails(mainCtx, .beginWrite(1))
        #expect(poisoned == .poisoned)
        w.run(mainCtx, .crashMachine(keepUnsyncedSlots: true))
        w.open(mainCtx, 2)
        #expect(w.wdlKeys(mainCtx, 2) == [1])
    }

    @Test("Spec D13: beginWrite, write, invalidate and close first make earlier async commits durable")
    func syncCallsFlushAsyncCommits() {
        let calls: [Operation] = [
            .beginWrite(1),
            .writeBlock(1, [item(7)], ending: .commit, withoutNotifying: [], fate: .success),
            .invalidate(1),
            .close(1),
        ]
        for call in calls {
            var w = World()
            w.open(mainCtx, 1)
            w.ok(mainCtx, .beginAsyncWrite(1, [item(1)], ending: .commit(allowGrouping: true), as: 1))
            w.ok(mainCtx, .beginAsyncWrite(1, [item(2)], ending: .commit(allowGrouping: true), as: 2))
            w.ok(mainCtx, .turnLoop)  // block 1 commits v2; its group is still open (block 2 queued)
            #expect(w.newest() == Version(2))
            #expect(w.wdlFile()?.durable == Version(1))
            let outcome = w.run(mainCtx, call)
            #expect(outcome.result == .success(.done), "\(call)")
            #expect(outcome.events.contains(.asyncCompleted(1, nil)), "\(call)")
            #expect((w.wdlFile()?.durable ?? Version(0)) >= Version(2), "\(call)")
            w.run(mainCtx, .crashMachine(keepUnsyncedSlots: false))
            w.open(mainCtx, 2)
            #expect(w.wdlKeys(mainCtx, 2).contains(1), "\(call)")
        }
    }

    @Test("Spec D14: an in-memory realm keeps nothing after its last instance or a crash")
    func inMemoryIsNotDurable() {
        let memory = Configuration(location: .inMemory(identifier: "m"))
        var w = World()
        w.open(mainCtx, 1, memory)
        w.write(mainCtx, 1, [item(1)])
        w.open(otherCtx, 3, memory)  // shared with another process
        #expect(w.wdlKeys(otherCtx, 3) == [1])
        w.ok(mainCtx, .close(1))
        #expect(w.ok(mainCtx, .fileExists(memory)) == .bool(true))  // instance 3 still open
        w.ok(otherCtx, .close(3))
        #expect(w.ok(mainCtx, .fileExists(memory)) == .bool(false))
        w.open(mainCtx, 4, memory)
        #expect(w.wdlKeys(mainCtx, 4) == [])
        // The end of the processes sharing it.
        w.write(mainCtx, 4, [item(2)])
        w.open(otherCtx, 5, memory)
        w.ok(mainCtx, .close(4))
        w.ok(mainCtx, .killProcess(2))
        #expect(w.ok(mainCtx, .fileExists(memory)) == .bool(false))
        // A machine crash, even after a commit that returned; the file-backed realm survives.
        w.open(mainCtx, 6, memory)
        w.open(mainCtx, 7)
        w.write(mainCtx, 6, [item(3)])
        w.write(mainCtx, 7, [item(3)])
        w.run(mainCtx, .crashMachine(keepUnsyncedSlots: true))
        #expect(w.state.files[memory.location] == nil)
        w.open(mainCtx, 8, memory)
        w.open(mainCtx, 9)
        #expect(w.wdlKeys(mainCtx, 8) == [])
        #expect(w.wdlKeys(mainCtx, 9) == [3])
    }

    // MARK: L: limits

    @Test("Spec L1: active versions are the newest plus live, frozen and Results-reference pins")
    func activeVersions() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.open(otherCtx, 3)
        _ = w.wdlKeys(mainCtx, 1)  // main reads v1
        #expect(w.wdlActive() == versions([1]))
        w.write(threadCtx, 2, [item(1)])  // v2
        #expect(w.wdlActive() == versions([1, 2]))  // main's live read pins v1
        _ = w.wdlKeys(otherCtx, 3)  // another process reads v2
        w.ok(mainCtx, .freezeRealm(1, as: 50))  // a frozen realm at v1
        w.ok(mainCtx, .refresh(1))
        #expect(w.wdlActive() == versions([1, 2]))  // the frozen realm still pins v1
        w.ok(mainCtx, .release(50))
        #expect(w.wdlActive() == versions([2]))  // at once

        // A frozen value derived from a frozen realm.
        w.ok(mainCtx, .objects(1, .all("Item"), as: 10))
        w.ok(mainCtx, .freezeHandle(10, as: 11))  // at v2
        w.write(threadCtx, 2, [item(2)])  // v3
        w.ok(mainCtx, .refresh(1))
        w.ok(otherCtx, .refresh(3))
        #expect(w.wdlActive() == versions([2, 3]))
        w.ok(mainCtx, .releaseHandle(11))
        #expect(w.wdlActive() == versions([3]))

        // An unresolved reference to Results.
        w.ok(mainCtx, .objects(1, .all("Item"), as: 12))
        w.ok(mainCtx, .makeReference(12, as: 1))  // at v3
        w.write(threadCtx, 2, [item(3)])  // v4
        w.ok(mainCtx, .refresh(1))
        w.ok(otherCtx, .refresh(3))
        #expect(w.wdlActive() == versions([3, 4]))
        w.ok(threadCtx, .resolve(1, in: 2, as: 13))
        #expect(w.wdlActive() == versions([4]))

        // A live read in another process.
        w.write(mainCtx, 1, [item(4)])  // v5; process 2 still reads v4
        w.ok(threadCtx, .refresh(2))
        #expect(w.wdlActive() == versions([4, 5]))
        w.ok(otherCtx, .refresh(3))
        #expect(w.wdlActive() == versions([5]))
    }

    @Test("Spec L2: a write begins only while active versions are at most the limit")
    func limitCheckedAtBegin() {
        let limited = Configuration(location: fileLocation, maximumNumberOfActiveVersions: 3)
        var w = worldWithFourActiveVersions(limited)  // v4 was begun with 3 active: it succeeded
        #expect(w.newest() == Version(4))
        #expect(w.wdlActive(limited) == versions([1, 2, 3, 4]))
        let before = w.state
        let error = w.fails(mainCtx, .beginWrite(1))
        #expect(error == .tooManyActiveVersions(count: 4, limit: 3))
        #expect(error?.code == .fail)
        #expect(error?.message == "Number of active versions (4) in the Realm exceeded the limit of 3")
        #expect(
            w.fails(
                mainCtx,
                .writeBlock(
                    1, [item(9)], ending: .commit, withoutNotifying: [],
                    fate: .success)) == .tooManyActiveVersions(count: 4, limit: 3))
        #expect(w.state == before)  // nothing changed
        #expect(w.wdlInWrite(mainCtx, 1) == false)
        #expect(w.newest() == Version(4))
        // Exactly n active: the write begins and creates an (n + 1)th.
        w.ok(mainCtx, .release(50))
        #expect(w.wdlActive(limited).count == 3)
        w.write(mainCtx, 1, [item(9)])
        #expect(w.wdlActive(limited).count == 3)  // v4 is no longer pinned by realm 1
    }

    @Test("Spec L3: async writes check the limit when queued and when the block would begin")
    func asyncLimitCheckedWhenQueuedAndAtBlockStart() {
        let limited = Configuration(location: fileLocation, maximumNumberOfActiveVersions: 3)
        var w = worldWithFourActiveVersions(limited)
        let limitError = ModelError.tooManyActiveVersions(count: 4, limit: 3)
        // Over the limit: refused when queued (Realm's check), nothing runs.
        #expect(
            w.fails(mainCtx, .beginAsyncWrite(1, [item(9)], ending: .commit(allowGrouping: false), as: 1))
                == limitError)
        #expect(w.fails(mainCtx, .writeAsync(1, [item(9)], as: 1)) == limitError)
        #expect(
            w.fails(
                mainCtx,
                .asyncWrite(
                    1, [item(10)], ending: .commit(allowGrouping: false),
                    taskCancelled: false, as: 2)) == limitError)
        #expect(w.newest() == Version(4))
        #expect(w.wdlInWrite(mainCtx, 1) == false)
        // Queued within the limit, begun over it: the block does not run, its completion hears.
        w.ok(mainCtx, .release(50))
        w.ok(mainCtx, .beginAsyncWrite(1, [item(11)], ending: .commit(allowGrouping: false), as: 3))
        w.ok(mainCtx, .freezeRealm(1, as: 60))
        w.write(mainCtx, 1, [item(12)])
        let refused = w.run(mainCtx, .turnLoop)
        #expect(refused.events.contains(.asyncCompleted(3, limitError)))
        #expect(!refused.events.contains(.asyncBlockStarted(3)))
        #expect(!w.wdlKeys(mainCtx, 1).contains(11))
        // Queued and begun within it: it runs.
        w.ok(mainCtx, .release(60))
        w.ok(mainCtx, .beginAsyncWrite(1, [item(13)], ending: .commit(allowGrouping: false), as: 4))
        let turn = w.run(mainCtx, .turnLoop)
        #expect(turn.events.contains(.asyncBlockStarted(4)))
        #expect(turn.events.contains(.asyncCommitted(4, Version(6))))
        #expect(w.wdlKeys(mainCtx, 1).contains(13))
    }

    @Test("Spec L4: a limit of nil or 0 means no limit")
    func noLimitByDefault() {
        for limit in [nil, 0] as [Int?] {
            let configuration = Configuration(location: fileLocation, maximumNumberOfActiveVersions: limit)
            var w = World()
            w.open(mainCtx, 1, configuration)
            for n in 1...6 {
                w.ok(mainCtx, .freezeRealm(1, as: RealmID(50 + n)))
                w.write(mainCtx, 1, [item(n)])
            }
            #expect(w.wdlActive(configuration).count == 7, "\(String(describing: limit))")
            w.ok(mainCtx, .beginWrite(1))
            w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
            #expect(w.newest() == Version(8))
        }
        // The contrast: a limit of 1 refuses the same state.
        let one = Configuration(location: fileLocation, maximumNumberOfActiveVersions: 1)
        var w = World()
        w.open(mainCtx, 1, one)
        w.ok(mainCtx, .freezeRealm(1, as: 50))
        w.write(mainCtx, 1, [item(1)])
        #expect(w.fails(mainCtx, .beginWrite(1)) == .tooManyActiveVersions(count: 2, limit: 1))
    }

    @Test("Spec L5, D5: releasing a frozen value, a Results reference or moving a reader restores writes")
    func releasingPinsRestoresWrites() {
        enum Pin: CaseIterable { case frozenValue, resultsReference, liveReader }
        let limited = Configuration(location: fileLocation, maximumNumberOfActiveVersions: 3)
        for pin in Pin.allCases {
            var w = World()
            w.open(mainCtx, 1, limited)
            w.open(threadCtx, 2, limited)
            switch pin {  // something pins v1
            case .frozenValue:
                w.ok(mainCtx, .objects(1, .all("Item"), as: 10))
                w.ok(mainCtx, .freezeHandle(10, as: 11))
            case .resultsReference:
                w.ok(mainCtx, .objects(1, .all("Item"), as: 10))
                w.ok(mainCtx, .makeReference(10, as: 1))
            case .liveReader:
                _ = w.wdlKeys(threadCtx, 2)
            }
            w.write(mainCtx, 1, [item(1)])  // v2
            w.ok(mainCtx, .freezeRealm(1, as: 50))
            w.write(mainCtx, 1, [item(2)])  // v3
            w.ok(mainCtx, .freezeRealm(1, as: 51))
            w.write(mainCtx, 1, [item(3)])  // v4
            #expect(w.wdlActive(limited) == versions([1, 2, 3, 4]), "\(pin)")
            #expect(w.fails(mainCtx, .beginWrite(1)) == .tooManyActiveVersions(count: 4, limit: 3))
            switch pin {
            case .frozenValue: w.ok(mainCtx, .releaseHandle(11))
            case .resultsReference: w.ok(mainCtx, .releaseReference(1))
            case .liveReader: w.ok(threadCtx, .turnLoop)
            }
            #expect(w.wdlActive(limited) == versions([2, 3, 4]), "\(pin)")  // at once
            #expect(w.wdlFile(limited)?.versions[Version(1)] == nil, "\(pin)")  // reusable
            w.ok(mainCtx, .beginWrite(1))
            w.ok(mainCtx, .apply(1, [item(4)]))
            w.ok(mainCtx, .commitWrite(1, withoutNotifying: [], fate: .success))
            #expect(w.newest(limited) == Version(5), "\(pin)")
        }
    }

    @Test("Spec L6: reader slots; a dead process's slots are reclaimed; full table fails tooManyReaders")
    func readerSlots() {
        var w = World(readerSlotCount: 1)
        w.open(otherCtx, 3)
        #expect(w.wdlKeys(otherCtx, 3) == [])  // process 2 takes the only slot (v1)
        w.open(mainCtx, 1)
        let error = w.fails(mainCtx, .objects(1, .all("Item"), as: 10))
        #expect(error == .tooManyReaders)
        #expect(error?.code == .fail)
        #expect(w.fails(mainCtx, .beginWrite(1)) == .tooManyReaders)
        #expect(w.readVersion(1) == nil)
        w.ok(mainCtx, .killProcess(2))  // its slot is reclaimed by the next reader
        #expect(w.wdlKeys(mainCtx, 1) == [])
        w.open(threadCtx, 2)
        #expect(w.wdlKeys(threadCtx, 2) == [])  // same process and version: the same slot
        // A new reader in another process finds every slot held by a live process.
        w.open(otherCtx, 4)
        #expect(w.fails(otherCtx, .objects(4, .all("Item"), as: 11)) == .tooManyReaders)
    }

    @Test("Spec L7: an async group holds at most 20 commits")
    func asyncGroupsAreBounded() {
        var w = World()
        w.open(mainCtx, 1)
        for n in 1...25 {
            w.ok(
                mainCtx,
                .beginAsyncWrite(
                    1, [item(n)], ending: .commit(allowGrouping: true),
                    as: AsyncWriteID(n)))
        }
        for _ in 1...20 { w.ok(mainCtx, .turnLoop) }
        #expect(w.newest() == Version(21))
        #expect(w.state.realms[1]?.asyncGroups.map(\.commits.count) == [20])
        #expect(w.state.realms[1]?.asyncGroups.first?.isEnded == true)
        // The 21st block waits for the full group to be durable.
        #expect(!w.run(mainCtx, .turnLoop).events.contains(.asyncBlockStarted(21)))
        w.ok(mainCtx, .syncAsyncGroup(1, fails: false))
        #expect(w.wdlFile()?.durable == Version(21))
        w.ok(mainCtx, .turnLoop)  // completions
        #expect(w.wdlCompletions().map(\.0) == (1...20).map { AsyncWriteID($0) })
        for _ in 21...25 { w.ok(mainCtx, .turnLoop) }
        #expect(w.newest() == Version(26))
        #expect(w.state.realms[1]?.asyncGroups.map(\.commits.count) == [5])
        #expect(w.state.realms[1]?.asyncGroups.allSatisfy { $0.commits.count <= 20 } == true)
    }

    @Test("Spec L8: a commit beyond the reserved space fails as a failed commit; readers keep reading")
    func fileSizeLimit() {
        var w = World()
        w.open(mainCtx, 1)
        w.open(threadCtx, 2)
        w.open(otherCtx, 3)
        w.write(mainCtx, 1, [item(1)])
        w.ok(mainCtx, .freezeRealm(1, as: 50))
        #expect(w.wdlKeys(threadCtx, 2) == [1])
        w.ok(mainCtx, .beginWrite(1))
        w.ok(mainCtx, .apply(1, (2...20).map { item($0) }))
        let outcome = w.run(
            mainCtx,
            .commitWrite(
                1, withoutNotifying: [],
                fate: .failure(.mapCapacityExceeded)))
        #expect(outcome.result == .failure(.commitFailed(.mapCapacityExceeded)))
        if case .failure(let error) = outcome.result { #expect(error.code == .fail) }
        #expect(w.wdlInWrite(mainCtx, 1) == false)
        #expect(w.readVersion(1) == Version(2))
        #expect(w.newest() == Version(2))
        #expect(w.wdlFile()?.writer == nil)
        // The file grows with other commits; readers of the old versions keep reading.
        w.write(otherCtx, 3, (2...20).map { item($0) })
        #expect(w.wdlKeys(mainCtx, 50) == [1])
        #expect(w.wdlKeys(threadCtx, 2) == [1])
        w.ok(threadCtx, .turnLoop)
        #expect(w.wdlKeys(threadCtx, 2).count == 20)
    }
}
