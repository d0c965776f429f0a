import Testing

import struct StrataStorage.SplitMix64

@testable import StrataModel

// Unit tests of the reference model against Spec/notifications.md (N1 to N24) and
// Spec/async-writes.md (A1 to A18). Every test drives the model through `World`; loop turns
// (`.turnLoop`) and background syncs (`.syncAsyncGroup`) are the engine's choices and appear as
// explicit steps. Where a rule speaks of something the model abstracts (closures, AsyncSequence,
// tasks, MutableSet, Map keys), the test uses the model's counterpart and says so.

// MARK: - Helpers (file-private: other test files share the module)

extension SplitMix64 {
    /// A value in `0..<bound` by modulo, the draw these randomized tests were written with, so
    /// each seed replays the cases it always did.
    fileprivate mutating func draw(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
    fileprivate mutating func coin() -> Bool { next() & 1 == 1 }
}

private func change(del: [Int] = [], ins: [Int] = [], mod: [Int] = []) -> CollectionChange {
    CollectionChange(deletions: del, insertions: ins, modifications: mod)
}

private func other(_ key: Int, _ value: Int = 0) -> Mutation {
    .create(type: "Other", primaryKey: key, value: value)
}

private func setItem(_ key: Int, _ value: Int?) -> Mutation {
    .setValue(type: "Item", primaryKey: key, value: value)
}

private func deleteItem(_ key: Int) -> Mutation { .delete(type: "Item", primaryKey: key) }

/// The change sets of `observer`'s update callbacks, in order.
private func updates(_ events: [Event], of observer: ObserverID) -> [CollectionChange] {
    events.compactMap {
        if case .update(observer, let change, _) = $0 { return change }
        return nil
    }
}

/// The collections `observer`'s initial and update callbacks carried, in order.
private func deliveries(_ events: [Event], of observer: ObserverID) -> [[ObjectID]] {
    events.compactMap {
        switch $0 {
        case .initial(observer, let contents), .update(observer, _, let contents): return contents
        default: return nil
        }
    }
}

/// Callbacks that ran for `observer` (failures of its actions left out).
private func callbacks(_ events: [Event], of observer: ObserverID) -> [Event] {
    events.filter {
        switch $0 {
        case .didChange(observer), .refreshRequired(observer), .initial(observer, _),
            .update(observer, _, _), .objectChanged(observer, _), .objectDeleted(observer):
            return true
        default:
            return false
        }
    }
}

private func started(_ events: [Event]) -> [AsyncWriteID] {
    events.compactMap { if case .asyncBlockStarted(let id) = $0 { return id } else { return nil } }
}

private func committed(_ events: [Event]) -> [AsyncWriteID] {
    events.compactMap { if case .asyncCommitted(let id, _) = $0 { return id } else { return nil } }
}

private func completed(_ events: [Event]) -> [AsyncWriteID] {
    events.compactMap { if case .asyncCompleted(let id, _) = $0 { return id } else { return nil } }
}

private func isAscending(_ indices: [Int]) -> Bool {
    zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 }
}

private func grouped(_ allowGrouping: Bool) -> AsyncBlockEnding {
    .commit(allowGrouping: allowGrouping)
}

/// Whether an async completion carried an error.
private func isFailedCompletion(_ event: Event) -> Bool {
    if case .asyncCompleted(_, .some) = event { return true }
    return false
}

extension World {
    fileprivate var durable: Version? { state.files[World.file.location]?.durable }

    /// A handle identifier no step has used yet.
    fileprivate func freshHandle() -> HandleID {
        HandleID(max(10_000, state.handles.keys.map(\.rawValue).max() ?? 0) + 1)
    }

    /// The elements `query` shows through `realm` now.
    fileprivate mutating func contents(
        _ context: ContextID, _ realm: RealmID, _ query: Query = .all("Item"),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [ObjectID] {
        let handle = freshHandle()
        ok(context, .objects(realm, query, as: handle), sourceLocation: sourceLocation)
        let value = ok(context, .read(handle), sourceLocation: sourceLocation)
        guard case .elements(let readings) = value else { return [] }
        return readings.map(\.id)
    }

    /// The object `type`/`key` as `realm` reads it now, nil when missing.
    fileprivate mutating func reading(
        _ context: ContextID, _ realm: RealmID, type: String = "Item", key: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ObjectReading? {
        let fresh = freshHandle()
        guard
            case .handle(let handle?) = ok(
                context, .objectForPrimaryKey(realm, type: type, primaryKey: key, as: fresh),
                sourceLocation: sourceLocation)
        else { return nil }
        guard case .object(let reading) = ok(context, .read(handle), sourceLocation: sourceLocation)
        else { return nil }
        return reading
    }

    /// A managed object accessor (it must exist).
    fileprivate mutating func objectHandle(
        _ context: ContextID, _ realm: RealmID, type: String = "Item",
        key: Int, sourceLocation: SourceLocation = #_sourceLocation
    )
        -> HandleID
    {
        let handle = freshHandle()
        ok(
            context, .objectForPrimaryKey(realm, type: type, primaryKey: key, as: handle),
            sourceLocation: sourceLocation)
        return handle
    }

    /// Observes `query` through `realm`; returns the Results accessor.
    @discardableResult
    fileprivate mutating func observe(
        _ context: ContextID, _ realm: RealmID, _ query: Query = .all("Item"),
        action: CallbackAction = .none, on queue: ContextID? = nil,
        cancelled: Bool = false, as id: ObserverID,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HandleID {
        let handle = freshHandle()
        ok(context, .objects(realm, query, as: handle), sourceLocation: sourceLocation)
        ok(
            context,
            .observeCollection(
                handle, action: action, on: queue,
                inCancelledTask: cancelled, as: id),
            sourceLocation: sourceLocation)
        return handle
    }

    /// One loop turn of `context`; returns the events it produced.
    @discardableResult
    fileprivate mutating func turn(_ context: ContextID = World.main) -> [Event] {
        run(context, .turnLoop).events
    }

    /// Whether `realm` has nothing queued, running, unsynced or owed.
    fileprivate func asyncIdle(_ realm: RealmID) -> Bool {
        guard let state = state.realms[realm] else { return true }
        return state.asyncQueue.isEmpty && state.asyncGroups.isEmpty
            && state.completionsOwed.isEmpty && state.write?.asyncBlock == nil
    }

    /// Turns `context`'s loop and finishes every ended group's sync until `realm` is idle.
    /// Returns the events of every step.
    @discardableResult
    fileprivate mutating func drainAsync(_ realm: RealmID, in context: ContextID = World.main) -> [Event] {
        var events: [Event] = []
        var rounds = 0
        while !asyncIdle(realm), rounds < 1_000 {
            rounds += 1
            events += turn(context)
            if state.realms[realm]?.asyncGroups.first?.isEnded == true {
                events += run(context, .syncAsyncGroup(realm, fails: false)).events
            }
        }
        #expect(asyncIdle(realm), "async work of \(realm) did not drain")
        return events
    }
}

// MARK: - Notifications (N)

@Suite struct NotificationsAsyncModelTests {
    // MARK: Realm observers

    @Test("Spec N1: a local commit, even an empty write, runs .didChange before it returns")
    func localCommitNotifiesSynchronously() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .observeRealm(1, action: .none, as: 1))
        let empty = w.run(
            World.main,
            .writeBlock(
                1, [], ending: .commit, withoutNotifying: [],
                fate: .success))
        #expect(empty.result == .success(.done))
        #expect(empty.events == [.didChange(1)])
        #expect(w.newest() == 2)
        // beginWrite/commitWrite: the callback runs inside commitWrite.
        #expect(w.run(World.main, .beginWrite(1)).events.isEmpty)
        w.ok(World.main, .apply(1, [item(1)]))
        let commit = w.run(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(commit.events == [.didChange(1)])
        // The callback receives the observed realm: the model's observer belongs to realm 1,
        // whose configuration (fileURL) is the file that was written.
        #expect(w.state.observers[1]?.realm == 1)
        #expect(w.ok(World.main, .readConfiguration(1)) == .configuration(World.file))
    }

    @Test("Spec N2: an invalidated token is never called again, also from inside its callback")
    func invalidatedTokensStop() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .observeRealm(1, action: .none, as: 1))
        w.write(World.main, 1, [item(1)])
        #expect(w.events(of: 1) == [.didChange(1)])
        #expect(w.ok(World.main, .invalidateToken(1)) == .bool(true))
        w.write(World.main, 1, [item(2)])
        w.turn()
        #expect(w.events(of: 1) == [.didChange(1)])

        // Two observers that invalidate their own token inside their callback, two commits:
        // 2 calls in total.
        w.ok(World.main, .observeRealm(1, action: .invalidateToken(2), as: 2))
        w.ok(World.main, .observeRealm(1, action: .invalidateToken(3), as: 3))
        w.write(World.main, 1, [item(3)])
        w.write(World.main, 1, [item(4)])
        #expect(w.events(of: 2) == [.didChange(2)])
        #expect(w.events(of: 3) == [.didChange(3)])
        #expect(w.events(of: 2).count + w.events(of: 3).count == 2)

        // A collection observer invalidating itself in its initial callback.
        w.observe(World.main, 1, action: .invalidateToken(4), as: 4)
        w.turn()
        w.write(World.main, 1, [item(5)])
        w.turn()
        #expect(w.events(of: 4).count == 1)
        if case .initial = w.events(of: 4).first {} else { Issue.record("no initial for 4") }
    }

    @Test("Spec N3, V7, V9: every move notifies; autorefresh off announces .refreshRequired")
    func everyMoveNotifies() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        #expect(w.contents(World.thread, 2) == [])  // realm 2 reads at v1
        w.ok(World.thread, .observeRealm(2, action: .none, as: 1))

        // Autorefresh on: another realm's commit moves realm 2 on its next turn (V7).
        let commit = w.run(
            World.main,
            .writeBlock(
                1, [item(1)], ending: .commit,
                withoutNotifying: [], fate: .success))
        #expect(!commit.events.contains(.didChange(1)))
        #expect(w.readVersion(2) == 1)
        #expect(w.turn(World.main).isEmpty)
        #expect(w.turn(World.thread) == [.moved(2, to: 2), .didChange(1)])

        // Autorefresh off: .refreshRequired on a later turn, and no move (V9).
        w.ok(World.thread, .setAutorefresh(2, false))
        w.write(World.main, 1, [item(2)])  // v3
        #expect(w.events(of: 1) == [.didChange(1)])
        #expect(w.turn(World.thread) == [.refreshRequired(1)])
        #expect(w.readVersion(2) == 2)
        #expect(w.turn(World.thread).isEmpty)  // announced once

        // refresh() moves and runs .didChange, although .refreshRequired ran earlier.
        let refresh = w.run(World.thread, .refresh(2))
        #expect(refresh.result == .success(.bool(true)))
        #expect(refresh.events == [.moved(2, to: 3), .didChange(1)])

        // beginWrite moves first, and that move notifies.
        w.write(World.main, 1, [item(3)])  // v4
        let begin = w.run(World.thread, .beginWrite(2))
        #expect(begin.events == [.moved(2, to: 4), .didChange(1)])
        w.ok(World.thread, .cancelWrite(2))

        // Resolving a reference made at a newer version moves, and that move notifies.
        w.write(World.main, 1, [item(4)])  // v5
        let source = w.objectHandle(World.main, 1, key: 4)
        w.ok(World.main, .makeReference(source, as: 1))
        let resolved = w.freshHandle()
        let resolve = w.run(World.thread, .resolve(1, in: 2, as: resolved))
        #expect(resolve.events == [.moved(2, to: 5), .didChange(1)])
        #expect(w.readVersion(2) == 5)
        #expect(w.events(of: 1).filter { $0 == .didChange(1) }.count == 4)
    }

    @Test("Spec N4: skipped tokens miss the commit, and its changes stay out of later change sets")
    func skippedTokensSkipForGood() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.write(World.main, 1, [item(1), item(2), item(3), item(4)])
        w.observe(World.main, 1, as: 1)  // t
        w.observe(World.main, 1, as: 2)  // u, not skipped
        w.ok(World.main, .observeRealm(1, action: .none, as: 3))
        w.turn()

        // write(withoutNotifying:): no callback for t (nor the skipped realm token 3).
        let skipped = w.run(
            World.main,
            .writeBlock(
                1, [item(5)], ending: .commit,
                withoutNotifying: [1, 3], fate: .success))
        #expect(skipped.events.isEmpty)
        let afterLocal = w.turn()
        #expect(updates(afterLocal, of: 2) == [change(ins: [4])])
        #expect(updates(afterLocal, of: 1).isEmpty)

        // A remote insert: t's next update has insertions [5] only.
        #expect(w.contents(World.thread, 2).count == 5)
        w.write(World.thread, 2, [item(6)])
        let afterRemote = w.turn()
        #expect(updates(afterRemote, of: 1) == [change(ins: [5])])
        #expect(updates(afterRemote, of: 2) == [change(ins: [5])])
        #expect(afterRemote.contains(.didChange(3)))  // the move notifies token 3 again

        // commitWrite(withoutNotifying:) likewise.
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .apply(1, [item(7)]))
        let commit = w.run(World.main, .commitWrite(1, withoutNotifying: [1, 3], fate: .success))
        #expect(commit.events.isEmpty)
        #expect(updates(w.turn(), of: 1).isEmpty)
        w.write(World.thread, 2, [item(8)])
        #expect(updates(w.turn(), of: 1) == [change(ins: [7])])
        #expect(updates(w.events, of: 1) == [change(ins: [5]), change(ins: [7])])
    }

    @Test("Spec N5: a commit inside .didChange does not call that callback again, now or later")
    func realmObserversDoNotReenter() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])  // v2
        w.ok(World.main, .observeRealm(1, action: .write([setItem(1, 9)]), as: 1))
        let first = w.run(
            World.main,
            .writeBlock(
                1, [item(2)], ending: .commit,
                withoutNotifying: [], fate: .success))
        #expect(first.result == .success(.done))
        #expect(first.events == [.didChange(1)])
        #expect(w.newest() == 4)  // the outer commit (v3) and the callback's own (v4)
        #expect(w.reading(World.main, 1, key: 1)?.value == 9)
        // The nested notification is dropped, not queued.
        #expect(w.turn().isEmpty)
        #expect(w.run(World.main, .refresh(1)).events.isEmpty)
        w.write(World.main, 1, [item(3)])
        #expect(w.events(of: 1) == [.didChange(1), .didChange(1)])
        #expect(w.newest() == 6)
    }

    @Test("Spec N5: beginWrite in a collection callback moves the realm, no nested callback")
    func collectionObserversDoNotReenter() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.write(World.main, 1, [item(1), other(1)])  // v2
        w.ok(World.main, .setAutorefresh(1, false))
        let ids = w.contents(World.main, 1)
        let writeOther = Mutation.setValue(type: "Other", primaryKey: 1, value: 5)
        w.observe(World.main, 1, action: .write([writeOther]), as: 1)
        w.write(World.thread, 2, [item(2)])  // v3: realm 1 stays at v2 (autorefresh off)
        let turn = w.turn()
        // The initial callback shows v2; its write moves realm 1 to v3 and commits v4, and the
        // pass inside that beginWrite does not call observer 1 again.
        #expect(callbacks(turn, of: 1) == [.initial(1, ids)])
        #expect(turn.contains(.moved(1, to: 3)))
        #expect(w.newest() == 4)
        #expect(w.readVersion(1) == 4)
        // What it missed (item 2) comes later as an ordinary update; its own write (another
        // type) changes nothing it observes.
        let later = w.turn()
        #expect(updates(later, of: 1) == [change(ins: [1])])
        #expect(w.turn().isEmpty)
    }

    @Test("Spec N6: callbacks run on the realm's scheduler, in version order, at its version")
    func deliveryContextAndOrder() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.open(World.actor, 3)
        w.observe(World.thread, 2, as: 1)
        w.observe(World.actor, 3, as: 2)
        // Only the owner's loop delivers.
        #expect(w.turn(World.main).isEmpty)
        #expect(w.turn(World.queue).isEmpty)
        #expect(w.turn(World.thread) == [.initial(1, [])])
        #expect(w.turn(World.actor) == [.initial(2, [])])
        var versionsSeen: [Version] = []
        for key in 1...4 {
            w.write(World.main, 1, [item(key)])
            if key == 3 { w.write(World.main, 1, [setItem(1, 10)]) }
            #expect(w.turn(World.main).isEmpty)
            #expect(w.turn(World.queue).isEmpty)
            let threadTurn = w.turn(World.thread)
            let delivered = deliveries(threadTurn, of: 1)
            #expect(delivered.count == 1)
            // The delivered collection equals the observed one at the realm's read version.
            #expect(delivered.last == w.contents(World.thread, 2))
            #expect(delivered.last?.count == key)
            if let version = w.readVersion(2) { versionsSeen.append(version) }
            let actorTurn = w.turn(World.actor)
            #expect(deliveries(actorTurn, of: 2).last == w.contents(World.actor, 3))
        }
        // Increasing version order for each observer.
        #expect(isAscending(versionsSeen.map(\.rawValue)))
        #expect(deliveries(w.events, of: 1) == deliveries(w.events, of: 2))
    }

    @Test("Spec N7, N13: free coalescing, one update per awaited commit, exact applying")
    func coalescingAndApplying() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.observe(World.thread, 2, as: 1)
        w.turn(World.thread)
        // Each commit waited for separately: one update per commit, counts 0, 1, 2.
        w.write(World.main, 1, [item(1)])
        w.turn(World.thread)
        w.write(World.main, 1, [item(2)])
        w.turn(World.thread)
        #expect(deliveries(w.events, of: 1).map(\.count) == [0, 1, 2])
        #expect(updates(w.events, of: 1) == [change(ins: [0]), change(ins: [1])])

        // Three commits before one turn: one update covering them, exact under N7's apply rule.
        w.write(World.main, 1, [item(3), item(4)])
        w.write(World.main, 1, [deleteItem(1)])
        w.write(World.main, 1, [setItem(2, 20), item(0)])
        let before = deliveries(w.events, of: 1).last ?? []
        let turn = w.turn(World.thread)
        let changes = updates(turn, of: 1)
        #expect(changes.count == 1)
        let after = deliveries(turn, of: 1).last ?? []
        #expect(after == w.contents(World.thread, 2))
        if let delta = changes.first {
            #expect(ChangeSet.apply(delta, to: before, new: after) == after)
            // Old [1, 2] → new [0, 2, 3, 4]: 1 deleted, 0, 3 and 4 inserted, 2 modified (old 1).
            #expect(delta == change(del: [0], ins: [0, 2, 3], mod: [1]))
        }
        // The next update never spans the delivered version: it applies to what was delivered.
        w.write(World.main, 1, [deleteItem(4)])
        let next = w.turn(World.thread)
        if let delta = updates(next, of: 1).first, let contents = deliveries(next, of: 1).last {
            #expect(ChangeSet.apply(delta, to: after, new: contents) == contents)
            #expect(delta == change(del: [3]))  // [0, 2, 3, 4] minus 4
        } else {
            Issue.record("no update after deleting item 4")
        }
    }

    @Test("Spec N7, N13: randomized oracle: apply(between(old, new)) == new, ascending")
    func randomizedChangeSetOracle() {
        var world = World()
        world.open(World.main, 1)
        for seed in [UInt64(1), 7, 42, 2_024, 0xDEAD_BEEF] {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<400 {
                // Collections of objects have distinct elements; Lists may repeat one.
                let allowDuplicates = rng.coin()
                func randomArray(_ rng: inout SplitMix64) -> [ObjectID] {
                    let count = rng.draw(below: 12)
                    if allowDuplicates {
                        return (0..<count).map { _ in ObjectID(rng.draw(below: 6) + 1) }
                    }
                    var pool = (1...12).map { ObjectID($0) }
                    var result: [ObjectID] = []
                    for _ in 0..<count { result.append(pool.remove(at: rng.draw(below: pool.count))) }
                    return result
                }
                let old = randomArray(&rng)
                let new = randomArray(&rng)
                let modified = Set((1...12).filter { _ in rng.coin() }.map { ObjectID($0) })
                let change = ChangeSet.between(old: old, new: new) { modified.contains($0) }
                #expect(
                    ChangeSet.apply(change, to: old, new: new) == new,
                    "\(old) → \(new): \(change)")
                #expect(
                    isAscending(change.deletions) && isAscending(change.insertions)
                        && isAscending(change.modifications), "\(change)")
                #expect(change.deletions.allSatisfy { old.indices.contains($0) })
                #expect(change.insertions.allSatisfy { new.indices.contains($0) })
                // Modifications are OLD indices of kept elements.
                #expect(
                    change.modifications.allSatisfy {
                        old.indices.contains($0) && !change.deletions.contains($0)
                            && modified.contains(old[$0])
                    })
                #expect(old.count - change.deletions.count + change.insertions.count == new.count)
                if old == new { #expect(change.deletions.isEmpty && change.insertions.isEmpty) }
            }
        }
        // The oracle is the model's own: a delivered change of a World applies the same way.
        world.observe(World.main, 1, as: 1)
        world.turn()
        world.write(World.main, 1, [item(2), item(1)])
        let turn = world.turn()
        if let change = updates(turn, of: 1).first, let contents = deliveries(turn, of: 1).last {
            #expect(ChangeSet.apply(change, to: [], new: contents) == contents)
        } else {
            Issue.record("no update")
        }
    }

    @Test("Spec N7, N13, N10: randomized histories: every update applies and equals the Results")
    func randomizedDeliveries() {
        let queries = [
            Query.all("Item"), Query(source: .table("Item"), minimumValue: 3),
            Query(source: .table("Item"), minimumValue: 2, sort: .value),
        ]
        for seed in [UInt64(3), 11, 99] {
            var rng = SplitMix64(seed: seed)
            var w = World()
            w.open(World.main, 1)
            w.open(World.thread, 2)
            for (index, query) in queries.enumerated() {
                w.observe(World.main, 1, query, as: ObserverID(index + 1))
            }
            w.turn()
            var keys: Set<Int> = []
            var delivered: [ObserverID: [ObjectID]] = [1: [], 2: [], 3: []]
            var checked = w.events.count
            var updateCount = 0
            // Updates run in loop turns and in the passes inside main's own beginWrite (N17).
            func check(_ w: World) {
                for event in w.events[checked...] {
                    guard case .update(let id, let change, let contents) = event else { continue }
                    let applied = ChangeSet.apply(change, to: delivered[id] ?? [], new: contents)
                    #expect(applied == contents, "seed \(seed): \(change)")
                    #expect(!change.isEmpty)
                    #expect(
                        isAscending(change.deletions) && isAscending(change.insertions)
                            && isAscending(change.modifications))
                    delivered[id] = contents
                    updateCount += 1
                }
                checked = w.events.count
            }
            for _ in 0..<60 {
                if rng.draw(below: 3) == 0 {
                    w.turn()
                    check(w)
                    for (index, query) in queries.enumerated() {
                        // After a turn each delivered collection equals the Results now.
                        let now = w.contents(World.main, 1, query)
                        #expect(delivered[ObserverID(index + 1)] == now)
                    }
                    checked = w.events.count
                    continue
                }
                var mutations: [Mutation] = []
                var working = keys
                for _ in 0...rng.draw(below: 3) {
                    let key = rng.draw(below: 8)
                    if !working.contains(key) {
                        mutations.append(item(key, rng.draw(below: 6)))
                        working.insert(key)
                    } else if rng.coin() {
                        mutations.append(deleteItem(key))
                        working.remove(key)
                    } else {
                        mutations.append(setItem(key, rng.draw(below: 6)))
                    }
                }
                let writer: (ContextID, RealmID) = rng.coin() ? (World.main, 1) : (World.thread, 2)
                w.write(writer.0, writer.1, mutations)
                check(w)
                keys = working
            }
            #expect(updateCount >= 20, "seed \(seed): only \(updateCount) updates checked")
        }
    }

    @Test("Spec N26: a write that ends without committing calls no observer, now or on a later turn")
    func writesThatDoNotCommitNotifyNobody() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .observeRealm(1, action: .none, as: 1))
        w.observe(World.main, 1, as: 2)
        let object = w.objectHandle(World.main, 1, key: 1)
        w.ok(World.main, .observeObject(object, keyPaths: nil, as: 3))
        w.ok(World.thread, .observeRealm(2, action: .none, as: 4))
        w.observe(World.thread, 2, as: 5)
        w.turn(World.main)
        w.turn(World.thread)
        let observers: [ObserverID] = [1, 2, 3, 4, 5]
        let heard = observers.map { w.events(of: $0) }
        // cancelWrite(), a throwing block and a block that cancels: no version, no callback.
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .apply(1, [item(2), setItem(1, 5)]))
        w.ok(World.main, .cancelWrite(1))
        w.run(
            World.main,
            .writeBlock(
                1, [item(3), setItem(1, 6)], ending: .throwError(code: 7),
                withoutNotifying: [], fate: .success))
        w.ok(
            World.main,
            .writeBlock(
                1, [deleteItem(1)], ending: .cancelInBlock, withoutNotifying: [],
                fate: .success))
        #expect(w.newest() == Version(2))
        for _ in 0..<2 {
            w.turn(World.main)
            w.turn(World.thread)
        }
        #expect(observers.map { w.events(of: $0) } == heard)
        // The next commit is heard as usual, with its own change only.
        w.write(World.thread, 2, [item(9)])
        w.turn(World.main)
        #expect(w.events(of: 1).count == heard[0].count + 1)
        #expect(updates(w.events, of: 2).last == change(ins: [1]))
        #expect(w.events(of: 3).count == heard[2].count)  // the object did not change
    }

    @Test("Spec N8: the initial callback is never inside observe; it shows the read version")
    func initialCallbackIsLater() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        let handle = w.freshHandle()
        w.ok(World.main, .objects(1, .all("Item"), as: handle))
        let observe = w.run(
            World.main,
            .observeCollection(
                handle, action: .none, on: nil,
                inCancelledTask: false, as: 1))
        #expect(observe.result == .success(.done))
        #expect(observe.events.isEmpty)
        // Another realm commits before the loop turns: the autorefreshing realm has moved by
        // the time the initial callback runs, which shows v3.
        w.open(World.thread, 2)
        w.write(World.thread, 2, [item(2)])
        #expect(w.events(of: 1).isEmpty)
        let ids = w.contents(World.thread, 2)
        #expect(w.turn() == [.moved(1, to: 3), .initial(1, ids)])  // no change information

        // Inside a refresh() that delivers.
        w.observe(World.main, 1, as: 2)
        let refresh = w.run(World.main, .refresh(1))
        #expect(refresh.result == .success(.bool(false)))
        #expect(refresh.events == [.initial(2, ids)])

        // Spec V11, N17: beginWrite runs pending collection callbacks before the transaction
        // begins, an initial one included, even when the realm did not move.
        w.observe(World.main, 1, as: 3)
        let begin = w.run(World.main, .beginWrite(1))
        #expect(begin.events == [.initial(3, ids)])
        w.ok(World.main, .cancelWrite(1))
    }

    @Test("Spec N8, V10: ten realms at versions 2..11 all first show the newest contents")
    func initialAfterAutorefreshShowsNewest() {
        var w = World()
        w.open(World.main, 100)
        var observers: [(ContextID, ObserverID)] = []
        for index in 1...10 {
            w.write(World.main, 100, [item(index)])
            let context = ContextID(20 + index)
            w.ok(context, .addContext(context, process: 1, kind: .thread(hasEventLoop: true)))
            let realm = RealmID(20 + index)
            w.open(context, realm)
            w.observe(context, realm, as: ObserverID(index))
            #expect(w.readVersion(realm) == Version(index + 1))
            observers.append((context, ObserverID(index)))
        }
        // Turned in reverse order: every first callback shows all 10 items.
        for (context, observer) in observers.reversed() {
            let turn = w.turn(context)
            let first = callbacks(turn, of: observer).first
            guard case .initial(observer, let contents)? = first else {
                Issue.record("no initial for \(observer)")
                continue
            }
            #expect(contents.count == 10)
        }
    }

    @Test("Spec N9: an observer added inside a callback starts with the next turn or refresh()")
    func observersAddedInCallbacksStartNextPass() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        let ids = w.contents(World.main, 1)
        // Added inside a collection callback during a loop turn.
        w.observe(World.main, 1, action: .observeCollection(.all("Item"), as: 2), as: 1)
        #expect(w.turn() == [.initial(1, ids)])
        #expect(w.turn() == [.initial(2, ids)])
        // From then on it is called for every change like the others. (Observer 1's action
        // runs again and its registration of 2 is refused: a callbackFailed event.)
        w.write(World.main, 1, [item(2)])
        let turn = w.turn()
        #expect(updates(turn, of: 1) == [change(ins: [1])])
        #expect(updates(turn, of: 2) == [change(ins: [1])])

        // Added inside a realm callback during a commit: delivered by the next refresh().
        w.ok(World.main, .observeRealm(1, action: .observeCollection(.all("Item"), as: 4), as: 3))
        let commit = w.run(
            World.main,
            .writeBlock(
                1, [item(3)], ending: .commit,
                withoutNotifying: [], fate: .success))
        #expect(callbacks(commit.events, of: 4).isEmpty)
        let all = w.contents(World.main, 1)
        let refresh = w.run(World.main, .refresh(1))
        #expect(callbacks(refresh.events, of: 4) == [.initial(4, all)])

        // ...or by the next loop turn.
        w.ok(World.main, .observeRealm(1, action: .observeCollection(.all("Item"), as: 6), as: 5))
        w.write(World.main, 1, [item(4)])
        let four = w.contents(World.main, 1)
        #expect(callbacks(w.turn(), of: 6) == [.initial(6, four)])
        w.write(World.main, 1, [item(5)])
        let fifth = w.turn()
        for observer: ObserverID in [1, 2, 4, 6] {
            #expect(updates(fifth, of: observer) == [change(ins: [4])])
        }
    }

    @Test("Spec N10: the delivered collection keeps the Results' query and sort")
    func resultsKeepQueryAndOrder() {
        var w = World()
        w.open(World.main, 1)
        let query = Query(source: .table("Item"), minimumValue: 1, sort: .value)
        w.write(World.main, 1, [item(1, 5), item(2, -11)])
        w.observe(World.main, 1, query, as: 1)
        let initial = w.turn()
        #expect(deliveries(initial, of: 1).map(\.count) == [1])
        w.write(World.main, 1, [item(3, 2), item(4, -1)])
        let turn = w.turn()
        #expect(updates(turn, of: 1) == [change(ins: [0])])
        let delivered = deliveries(turn, of: 1).last ?? []
        #expect(delivered == w.contents(World.main, 1, query))
        #expect(delivered.count == 2)
        // Sorted by value: item 3 (2) before item 1 (5).
        let first = w.reading(World.main, 1, key: 3)?.id
        #expect(delivered.first == first)
        // Filtering the delivered collection further equals the narrower query.
        let narrower = Query(source: .table("Item"), minimumValue: 3, sort: .value)
        let values = Dictionary(
            uniqueKeysWithValues: [1, 3].compactMap { key in
                w.reading(World.main, 1, key: key).map { ($0.id, $0.value ?? .min) }
            })
        let filtered = delivered.filter { (values[$0] ?? .min) >= 3 }
        #expect(filtered == w.contents(World.main, 1, narrower))
    }

    @Test("Spec N11: only actual changes of the observed collection call back")
    func onlyActualChangesCallBack() {
        var w = World()
        w.open(World.main, 1)
        w.write(
            World.main, 1,
            (0...9).map { item($0, $0) } + [other(1), other(2), other(3)]
                + [.append(ownerType: "Other", ownerKey: 1, elementType: "Item", elementKey: 5)])
        let matches = Query(source: .table("Item"), minimumValue: 5)
        let sorted = Query(source: .table("Item"), minimumValue: 5, sort: .value)
        w.observe(World.main, 1, matches, as: 1)
        w.observe(World.main, 1, sorted, as: 2)
        for (owner, id) in [(1, ObserverID(3)), (2, ObserverID(4))] {
            let ownerHandle = w.objectHandle(World.main, 1, type: "Other", key: owner)
            let list = w.freshHandle()
            w.ok(World.main, .listOf(ownerHandle, as: list))
            w.ok(
                World.main,
                .observeCollection(
                    list, action: .none, on: nil,
                    inCancelledTask: false, as: id))
        }
        w.turn()
        #expect(w.events.count == 4)
        let observers: [ObserverID] = [1, 2, 3, 4]

        func quiet(_ mutations: [Mutation], _ w: inout World) -> Bool {
            w.write(World.main, 1, mutations)
            let turn = w.turn()
            return observers.allSatisfy { callbacks(turn, of: $0).isEmpty }
        }
        #expect(quiet([other(4)], &w))  // another type only
        #expect(quiet([.setValue(type: "Other", primaryKey: 3, value: 7)], &w))
        #expect(
            quiet(
                [
                    .append(
                        ownerType: "Other", ownerKey: 3, elementType: "Item",
                        elementKey: 6)
                ], &w))  // another parent's list
        #expect(quiet([setItem(1, 2)], &w))  // a non-match stays a non-match
        #expect(quiet([deleteItem(0)], &w))  // non-matches shift the storage order only
        #expect(quiet([item(10, 1)], &w))  // inserting a non-match
        #expect(quiet([.delete(type: "Other", primaryKey: 2)], &w))  // an empty List's owner
        // A process that only opens and reads notifies nobody.
        let before = w.events.count
        w.open(World.otherProcess, 9)
        #expect(w.contents(World.otherProcess, 9).count == 10)
        w.turn(World.otherProcess)
        w.turn(World.main)
        #expect(w.events.count == before)

        func fires(_ mutations: [Mutation], _ observer: ObserverID, _ w: inout World)
            -> CollectionChange?
        {
            w.write(World.main, 1, mutations)
            let changes = updates(w.turn(), of: observer)
            #expect(changes.count == 1)
            return changes.first
        }
        #expect(fires([item(11, 6)], 1, &w) == change(ins: [5]))  // a match inserted
        #expect(fires([setItem(6, 8)], 1, &w) == change(mod: [1]))  // a match still matching
        #expect(fires([setItem(7, 1)], 1, &w) == change(del: [2]))  // stops matching
        #expect(fires([setItem(2, 9)], 1, &w) == change(ins: [0]))  // starts matching
        #expect(fires([deleteItem(9)], 1, &w) == change(del: [4]))  // a match deleted
        #expect(fires([setItem(5, 50)], 3, &w) == change(mod: [0]))  // a List element changed
    }

    @Test("Spec N12, V9: with autorefresh off, refresh() runs pending callbacks before it returns")
    func refreshDeliversSynchronously() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.write(World.main, 1, [item(1, 1)])
        w.ok(World.main, .setAutorefresh(1, false))
        w.observe(World.main, 1, as: 1)
        let object = w.objectHandle(World.main, 1, key: 1)
        w.ok(World.main, .observeObject(object, keyPaths: nil, as: 2))
        w.ok(World.main, .observeRealm(1, action: .none, as: 3))
        w.turn()
        #expect(w.contents(World.thread, 2).count == 1)
        w.write(World.thread, 2, [setItem(1, 2), item(2)])
        // A commit by another realm calls no collection or object observer.
        #expect(w.turn() == [.refreshRequired(3)])
        #expect(w.turn().isEmpty)
        let ids = w.contents(World.thread, 2)
        let refresh = w.run(World.main, .refresh(1))
        #expect(refresh.result == .success(.bool(true)))
        #expect(
            refresh.events == [
                .moved(1, to: 3), .didChange(3),
                .update(1, change(ins: [1], mod: [0]), ids),
                .objectChanged(2, [PropertyChange(name: .value, oldValue: "1", newValue: "2")]),
            ])
        #expect(w.turn().isEmpty)
        let again = w.run(World.main, .refresh(1))
        #expect(again == Outcome(result: .success(.bool(false)), events: []))
    }

    @Test("Spec N13: deletions old, insertions new, modifications OLD; order-independent")
    func changeIndices() {
        func update(after mutations: [Mutation]) -> [CollectionChange] {
            var w = World()
            w.open(World.main, 1)
            w.write(World.main, 1, (1...4).map { item($0, $0) })
            w.observe(World.main, 1, as: 1)
            w.turn()
            w.write(World.main, 1, mutations)
            return updates(w.turn(), of: 1)
        }
        // Deleting 2 and changing 3→4 over [1,2,3,4]: deletions [1], modifications [2] (old).
        let expected = [change(del: [1], mod: [2])]
        #expect(update(after: [deleteItem(2), setItem(3, 4)]) == expected)
        #expect(update(after: [setItem(3, 4), deleteItem(2)]) == expected)
        // Deleting everything after the first in any order: deletions [1,2,3].
        let deletions = [deleteItem(2), deleteItem(3), deleteItem(4)]
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]] {
            #expect(update(after: order.map { deletions[$0] }) == [change(del: [1, 2, 3])])
        }
        // Mixed, in every order: the same ascending lists.
        let mixed = [item(0), deleteItem(3), setItem(4, 40), item(5)]
        let reference = update(after: mixed)
        #expect(reference == [change(del: [2], ins: [0, 4], mod: [3])])
        #expect(update(after: mixed.reversed()) == reference)
        #expect(update(after: [mixed[2], mixed[0], mixed[3], mixed[1]]) == reference)
        // Inserted and deleted in the same transaction: nowhere; alone: no callback.
        #expect(update(after: [item(5), deleteItem(5)]).isEmpty)
        #expect(update(after: [item(5), item(6), deleteItem(5)]) == [change(ins: [4])])
    }

    @Test("Spec N14: set order (modelled as objects keyed by value) and Map values ordered by key")
    func setAndMapOrdering() {
        // The model has no MutableSet. Its counterpart: a set of Ints as objects whose primary
        // key is the element, in key order (the set's order), filtered `0 < x < 5` via
        // value = -x >= -4. Changing an element x→y removes x and adds y.
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, (1...9).map { item($0, -$0) })
        let setQuery = Query(source: .table("Item"), minimumValue: -4)
        w.observe(World.main, 1, setQuery, as: 1)
        w.turn()
        #expect(deliveries(w.events, of: 1).last?.count == 4)
        w.write(World.main, 1, [deleteItem(2), deleteItem(1), item(10, -10)])  // delete 2, 1→10
        #expect(updates(w.turn(), of: 1) == [change(del: [0, 1])])
        w.write(World.main, 1, [deleteItem(9), item(11, -11)])  // 9→11
        #expect(updates(w.turn(), of: 1).isEmpty)

        // Results from a Map are ordered by key: "key" sorts before "key0".
        var m = World()
        m.open(World.main, 1)
        m.write(
            World.main, 1,
            [other(1)] + (0...9).map { item($0, -$0) }
                + (0...9).map {
                    (key: Int) -> Mutation in
                    .setMapValue(
                        ownerType: "Other", ownerKey: 1, key: "key\(key)", elementType: "Item",
                        elementKey: key)
                })
        guard let owner = m.reading(World.main, 1, type: "Other", key: 1)?.id else {
            Issue.record("no owner")
            return
        }
        let mapQuery = Query(source: .mapValues(owner: owner), minimumValue: -4)
        m.observe(World.main, 1, mapQuery, as: 1)
        m.turn()
        #expect(deliveries(m.events, of: 1).last?.count == 5)
        m.write(
            World.main, 1,
            [
                item(10, -1),
                .setMapValue(
                    ownerType: "Other", ownerKey: 1,
                    key: "key", elementType: "Item",
                    elementKey: 10),
            ])
        #expect(updates(m.turn(), of: 1) == [change(ins: [0])])
        m.write(
            World.main, 1,
            [
                .setMapValue(
                    ownerType: "Other", ownerKey: 1, key: "key1",
                    elementType: "Item", elementKey: nil)
            ])
        #expect(updates(m.turn(), of: 1) == [change(del: [2])])
    }

    @Test("Spec N15: Map keys deleted, inserted, modified; a replacement reports every key")
    func mapChangeKeys() {
        // The model reports Map changes to collection observers as Results over the values
        // (N14) and to object observers as the `map` property; the key lists of a Map
        // observer are the `ChangeSet.mapChange` oracle, applied here to the maps the model
        // stores before and after a commit.
        var w = World()
        w.open(World.main, 1)
        func set(_ key: String, _ element: Int?) -> Mutation {
            .setMapValue(
                ownerType: "Other", ownerKey: 1, key: key, elementType: "Item",
                elementKey: element)
        }
        w.write(
            World.main, 1,
            [
                other(1), item(1), item(2), item(3), set("a", 1), set("b", 2),
                set("c", 3),
            ])
        let ownerHandle = w.objectHandle(World.main, 1, type: "Other", key: 1)
        w.ok(World.main, .observeObject(ownerHandle, keyPaths: nil, as: 1))
        guard let owner = w.reading(World.main, 1, type: "Other", key: 1)?.id else {
            Issue.record("no owner")
            return
        }
        func storedMap(_ w: World) -> [String: ObjectID?] {
            guard let newest = w.newest() else { return [:] }
            return w.state.files[World.file.location]?.versions[newest]?.objects[owner]?.map ?? [:]
        }
        let before = storedMap(w)
        w.write(World.main, 1, [set("b", 3), set("c", nil), set("d", 1)])
        let after = storedMap(w)
        let keys = ChangeSet.mapChange(
            old: before, new: after, replacedWhole: false,
            setKeys: ["b", "c", "d"])
        #expect(keys.deleted == ["c"])
        #expect(keys.inserted == ["d"])
        #expect(keys.modified == ["b"])
        let whole = ChangeSet.mapChange(old: before, new: after, replacedWhole: true, setKeys: [])
        #expect(whole.deleted == ["a", "b", "c"])
        #expect(whole.inserted == ["a", "b", "c", "d"])  // "a" and "b" are in both
        #expect(whole.modified.isEmpty)
        // The object observer reports the map property as changed.
        let turn = w.turn()
        guard case .objectChanged(1, let changes)? = callbacks(turn, of: 1).first else {
            Issue.record("no object change")
            return
        }
        #expect(changes.map(\.name) == [.map])
    }

    @Test("Spec N16: LinkingObjects change sets apply exactly")
    func linkingObjectsChangeSets() {
        var w = World()
        w.open(World.main, 1)
        w.write(
            World.main, 1,
            [item(100)]
                + (1...10).flatMap { key in
                    [
                        other(key, key),
                        .append(
                            ownerType: "Other", ownerKey: key, elementType: "Item",
                            elementKey: 100),
                    ]
                })
        guard let child = w.reading(World.main, 1, key: 100)?.id else {
            Issue.record("no child")
            return
        }
        let query = Query(source: .linkingObjects(target: child, ownerType: "Other"))
        w.observe(World.main, 1, query, as: 1)
        w.turn()
        var last = deliveries(w.events, of: 1).last ?? []
        #expect(last.count == 10)
        func step(_ mutations: [Mutation], _ w: inout World) -> CollectionChange? {
            w.write(World.main, 1, mutations)
            let turn = w.turn()
            guard let change = updates(turn, of: 1).first,
                let contents = deliveries(turn, of: 1).last
            else { return nil }
            #expect(ChangeSet.apply(change, to: last, new: contents) == contents)
            #expect(contents == w.contents(World.main, 1, query))
            last = contents
            return change
        }
        #expect(
            step(
                [
                    other(11),
                    .append(
                        ownerType: "Other", ownerKey: 11, elementType: "Item",
                        elementKey: 100),
                ], &w) == change(ins: [10]))
        #expect(step([.setValue(type: "Other", primaryKey: 4, value: 40)], &w) == change(mod: [3]))
        #expect(step([.delete(type: "Other", primaryKey: 6)], &w) != nil)  // exact indices free
        #expect(
            step((1...11).filter { $0 != 6 }.map { .delete(type: "Other", primaryKey: $0) }, &w)
                == change(del: Array(0..<10)))
    }

    @Test("Spec N17, N5: writes in a callback reach the others as separate, ordered updates")
    func writesInsideCallbacks() {
        // The model's callback performs one fixed action per call, so observer #2's loop of
        // writes is modelled as a chain: #2 writes (removing result 4) inside its callback, and
        // each commit's realm observers 10, 11, 12 write the next one (results 3, 2, 1) inside
        // it. Every write is committed while #2's callback runs. Setting the value to 0 makes an
        // object stop matching (value >= 1) and is idempotent, so repeated writes are harmless.
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, (1...4).map { item($0, $0) })
        let query = Query(source: .table("Item"), minimumValue: 1)
        w.observe(World.main, 1, query, as: 1)
        w.observe(World.main, 1, query, action: .write([setItem(4, 0)]), as: 2)
        w.observe(World.main, 1, query, as: 3)
        w.ok(World.main, .observeRealm(1, action: .write([setItem(3, 0)]), as: 10))
        w.ok(World.main, .observeRealm(1, action: .write([setItem(2, 0)]), as: 11))
        w.ok(World.main, .observeRealm(1, action: .write([setItem(1, 0)]), as: 12))
        let ids = w.contents(World.main, 1, query)
        w.turn()
        w.turn()
        w.turn()
        #expect(w.contents(World.main, 1, query).isEmpty)
        let expected: [Event] = [
            .initial(1, ids), .update(1, change(del: [3]), Array(ids[0..<3])),
            .update(1, change(del: [2]), Array(ids[0..<2])),
            .update(1, change(del: [1]), Array(ids[0..<1])), .update(1, change(del: [0]), []),
        ]
        #expect(callbacks(w.events, of: 1) == expected)
        let forThree = expected.map { event -> Event in
            switch event {
            case .initial(_, let contents): return .initial(3, contents)
            case .update(_, let change, let contents): return .update(3, change, contents)
            default: return event
            }
        }
        #expect(callbacks(w.events, of: 3) == forThree)
        // Observer #2 (the writer): the rule counts 5 for it, some while it is in a write. The
        // model never re-enters a running callback (N5), so it gets its initial and then one
        // update for everything committed meanwhile.
        #expect(
            callbacks(w.events, of: 2) == [
                .initial(2, ids),
                .update(2, change(del: [0, 1, 2, 3]), []),
            ])
        #expect(
            !w.events.contains {
                if case .callbackFailed = $0 { return true }
                return false
            })
    }

    @Test("Spec N18, N6: observe(on:) delivers on its queue, initially the registered contents")
    func observeOnQueue() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2)])
        let registered = w.contents(World.main, 1)
        w.observe(World.main, 1, on: World.queue, as: 1)
        w.write(World.main, 1, [item(3)])
        #expect(w.turn(World.main).isEmpty)
        #expect(w.turn(World.queue) == [.initial(1, registered)])
        let three = w.contents(World.main, 1)
        #expect(w.turn(World.queue) == [.update(1, change(ins: [2]), three)])
        w.write(World.main, 1, [deleteItem(1), deleteItem(2), deleteItem(3)])
        #expect(w.turn(World.main).isEmpty)
        #expect(w.turn(World.queue) == [.update(1, change(del: [0, 1, 2]), [])])
        // Unmanaged: the model's unmanaged accessor stands for an unmanaged collection.
        let unmanaged = w.freshHandle()
        w.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 9, value: 9, as: unmanaged))
        let error = w.fails(
            World.main,
            .observeCollection(
                unmanaged, action: .none,
                on: World.queue,
                inCancelledTask: false, as: 2))
        #expect(error == .unmanagedObservation)
        #expect(error?.message == "Change notifications are only supported on managed collections.")
    }

    @Test("Spec N19: read-only realms and unmanaged objects cannot be observed")
    func readOnlyAndUnmanagedRejected() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        let readOnly = Configuration(location: World.file.location, readOnly: true)
        w.open(World.otherProcess, 2, readOnly)
        let results = w.freshHandle()
        w.ok(World.otherProcess, .objects(2, .all("Item"), as: results))
        let error = w.fails(
            World.otherProcess,
            .observeCollection(
                results, action: .none, on: nil,
                inCancelledTask: false, as: 1))
        #expect(error == .readOnlyObservation)
        #expect(
            error?.message
                == "Read-only Realms do not change and do not have change notifications.")
        #expect(w.state.observers[1] == nil)

        let unmanaged = w.freshHandle()
        w.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 5, value: 5, as: unmanaged))
        for paths in [nil, ["value"]] as [[String]?] {
            let error = w.fails(World.main, .observeObject(unmanaged, keyPaths: paths, as: 2))
            #expect(error?.message.contains("managed") == true)
        }
        #expect(w.state.observers[2] == nil)
    }

    @Test("Spec N20, N12: object changes: no old values for own commits, old and new for others'")
    func objectChangeOldValues() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.write(World.main, 1, [item(1, 1)])
        let object = w.objectHandle(World.main, 1, key: 1)
        w.ok(World.main, .observeObject(object, keyPaths: nil, as: 1))
        // Another realm's commit, delivered synchronously by refresh() (autorefresh off).
        w.ok(World.main, .setAutorefresh(1, false))
        _ = w.contents(World.thread, 2)
        w.write(World.thread, 2, [setItem(1, 2)])
        #expect(w.turn().isEmpty)
        #expect(
            w.run(World.main, .refresh(1)).events == [
                .moved(1, to: 3),
                .objectChanged(1, [PropertyChange(name: .value, oldValue: "1", newValue: "2")]),
            ])
        // Autorefresh: 2→nil, then nil→3.
        w.ok(World.main, .setAutorefresh(1, true))
        w.write(World.thread, 2, [setItem(1, nil)])
        #expect(
            callbacks(w.turn(), of: 1) == [
                .objectChanged(1, [PropertyChange(name: .value, oldValue: "2", newValue: nil)])
            ])
        w.write(World.thread, 2, [setItem(1, 3)])
        #expect(
            callbacks(w.turn(), of: 1) == [
                .objectChanged(1, [PropertyChange(name: .value, oldValue: nil, newValue: "3")])
            ])
        // The observing realm's own commit: oldValue nil.
        w.write(World.main, 1, [setItem(1, 4)])
        #expect(
            callbacks(w.turn(), of: 1) == [
                .objectChanged(1, [PropertyChange(name: .value, oldValue: nil, newValue: "4")])
            ])
        // Deleting the object notifies once.
        w.write(World.thread, 2, [deleteItem(1)])
        #expect(callbacks(w.turn(), of: 1) == [.objectDeleted(1)])
        w.write(World.thread, 2, [item(1, 5)])
        #expect(callbacks(w.turn(), of: 1).isEmpty)
    }

    @Test("Spec N21: key paths report exactly the changed observed properties; Lists as nil")
    func keyPathFilters() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.write(
            World.main, 1,
            [
                item(1, 1), item(2, 2), item(3, 3),
                .append(
                    ownerType: "Item", ownerKey: 1, elementType: "Item",
                    elementKey: 2),
            ])
        let owner = w.objectHandle(World.main, 1, key: 1)
        w.ok(World.main, .observeObject(owner, keyPaths: ["value"], as: 1))
        w.ok(World.main, .observeObject(owner, keyPaths: ["list"], as: 2))
        w.ok(World.main, .observeObject(owner, keyPaths: ["list.value"], as: 3))
        w.ok(World.main, .observeObject(owner, keyPaths: ["value", "map"], as: 4))
        let listChange = [PropertyChange(name: .list, oldValue: nil, newValue: nil)]

        // A scalar change: only the observers of that path, exactly that property.
        w.write(World.main, 1, [setItem(1, 10)])
        var turn = w.turn()
        #expect(
            callbacks(turn, of: 1) == [
                .objectChanged(1, [PropertyChange(name: .value, oldValue: nil, newValue: "10")])
            ])
        #expect(callbacks(turn, of: 2).isEmpty && callbacks(turn, of: 3).isEmpty)
        #expect(
            callbacks(turn, of: 4) == [
                .objectChanged(4, [PropertyChange(name: .value, oldValue: nil, newValue: "10")])
            ])

        // Append (local and remote): the List paths fire, reported as the List with nil values.
        w.write(
            World.main, 1,
            [
                .append(
                    ownerType: "Item", ownerKey: 1, elementType: "Item",
                    elementKey: 3)
            ])
        turn = w.turn()
        #expect(callbacks(turn, of: 1).isEmpty && callbacks(turn, of: 4).isEmpty)
        #expect(callbacks(turn, of: 2) == [.objectChanged(2, listChange)])
        #expect(callbacks(turn, of: 3) == [.objectChanged(3, listChange)])
        _ = w.contents(World.thread, 2)
        w.write(
            World.thread, 2,
            [
                .append(
                    ownerType: "Item", ownerKey: 1, elementType: "Item",
                    elementKey: 2)
            ])
        turn = w.turn()
        #expect(callbacks(turn, of: 2) == [.objectChanged(2, listChange)])
        #expect(callbacks(turn, of: 1).isEmpty)

        // Removal from the List.
        w.ok(World.main, .beginWrite(1))
        let list = w.freshHandle()
        w.ok(World.main, .listOf(owner, as: list))
        w.ok(World.main, .removeFromList(list, at: 0))
        w.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        turn = w.turn()
        #expect(callbacks(turn, of: 2) == [.objectChanged(2, listChange)])
        #expect(callbacks(turn, of: 3) == [.objectChanged(3, listChange)])
        #expect(callbacks(turn, of: 1).isEmpty)

        // Deleting an element changes the List too.
        w.write(World.main, 1, [deleteItem(3)])
        turn = w.turn()
        #expect(callbacks(turn, of: 2) == [.objectChanged(2, listChange)])
        #expect(callbacks(turn, of: 3) == [.objectChanged(3, listChange)])

        // A nested path ("list.value") fires when an element's value changes, reported as the
        // List with nil values; the plain "list" path does not.
        w.write(World.main, 1, [setItem(2, 20)])
        turn = w.turn()
        #expect(callbacks(turn, of: 3) == [.objectChanged(3, listChange)])
        #expect(callbacks(turn, of: 2).isEmpty)
        // An unknown nested path is rejected too.
        #expect(
            w.fails(World.main, .observeObject(owner, keyPaths: ["list.nope"], as: 6))
                == .unknownKeyPath(property: "nope", type: "Item"))

        // An unknown path is rejected.
        let error = w.fails(World.main, .observeObject(owner, keyPaths: ["notAProperty"], as: 5))
        #expect(error == .unknownKeyPath(property: "notAProperty", type: "Item"))
        #expect(error?.message == "Invalid property name: property 'notAProperty' not found in object of type 'Item'")
    }

    @Test("Spec N22: an upsert with update .modified reports only properties whose values changed")
    func upsertReportsOnlyChangedProperties() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])
        let object = w.objectHandle(World.main, 1, key: 1)
        w.ok(World.main, .observeObject(object, keyPaths: nil, as: 1))
        func upsert(_ value: Int?, _ policy: UpdatePolicy, _ w: inout World) -> [Event] {
            w.ok(World.main, .beginWrite(1))
            let handle = w.freshHandle()
            w.ok(
                World.main,
                .create(
                    1, type: "Item", primaryKey: 1, value: value, update: policy,
                    as: handle))
            w.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
            return callbacks(w.turn(), of: 1)
        }
        #expect(upsert(1, .modified, &w).isEmpty)  // same value: nothing changed
        #expect(
            upsert(2, .modified, &w) == [
                .objectChanged(1, [PropertyChange(name: .value, oldValue: nil, newValue: "2")])
            ])
        // With .all the property is set and reported even with the same value.
        #expect(
            upsert(2, .all, &w) == [
                .objectChanged(1, [PropertyChange(name: .value, oldValue: nil, newValue: "2")])
            ])
    }

    @Test("Spec N23: observe(on: actor) in a cancelled task: never called, invalidate() false")
    func observeInCancelledTask() {
        // The model's counterpart of a cancelled task is the `inCancelledTask` flag.
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.observe(World.main, 1, on: World.actor, cancelled: true, as: 1)
        w.observe(World.main, 1, on: World.actor, as: 2)
        w.turn(World.actor)
        w.write(World.main, 1, [item(2)])
        w.turn(World.actor)
        w.turn(World.main)
        #expect(w.events(of: 1).isEmpty)
        #expect(deliveries(w.events, of: 2).map(\.count) == [1, 2])
        #expect(w.ok(World.main, .invalidateToken(1)) == .bool(false))
        #expect(w.ok(World.main, .invalidateToken(2)) == .bool(true))
    }

    @Test("Spec N24, N3: another process's commit wakes observers here on a later turn")
    func crossProcessCommitWakesObservers() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.otherProcess, 2)
        w.observe(World.otherProcess, 2, as: 1)
        w.ok(World.otherProcess, .observeRealm(2, action: .none, as: 2))
        w.turn(World.otherProcess)
        let commit = w.run(
            World.main,
            .writeBlock(
                1, [item(1)], ending: .commit,
                withoutNotifying: [], fate: .success))
        #expect(commit.events.isEmpty)
        let ids = w.contents(World.main, 1)
        #expect(
            w.turn(World.otherProcess) == [
                .moved(2, to: 2), .didChange(2), .update(1, change(ins: [0]), ids),
            ])
        // Autorefresh off in the other process: .refreshRequired, as N3.
        w.ok(World.otherProcess, .setAutorefresh(2, false))
        w.write(World.main, 1, [item(2)])
        #expect(w.turn(World.otherProcess) == [.refreshRequired(2)])
    }

    @Test("Spec N24, X8: two processes share an in-memory realm and see each other's commits")
    func inMemoryRealmSharedAcrossProcesses() {
        var w = World()
        let memory = Configuration(location: .inMemory(identifier: "shared"))
        w.open(World.main, 1, memory)
        w.open(World.otherProcess, 2, memory)
        w.write(World.main, 1, [item(1, 0)])
        w.observe(World.main, 1, as: 1)
        w.observe(World.otherProcess, 2, as: 2)
        w.turn(World.main)
        w.turn(World.otherProcess)
        for round in 1...100 {
            let (context, realm) =
                round % 2 == 1
                ? (World.main, RealmID(1)) : (World.otherProcess, RealmID(2))
            w.turn(context)
            #expect(w.reading(context, realm, key: 1)?.value == round - 1)
            w.write(context, realm, [setItem(1, round)])
        }
        w.turn(World.main)
        w.turn(World.otherProcess)
        #expect(w.reading(World.main, 1, key: 1)?.value == 100)
        #expect(w.reading(World.otherProcess, 2, key: 1)?.value == 100)
        // Each process's observer saw the other's commits (a modification per turn).
        // Main turns in odd rounds 3...99 and once at the end (50); the other process in even
        // rounds 2...100 and once at the end, for its own last commit (51).
        #expect(updates(w.events, of: 1).count == 50)
        #expect(updates(w.events, of: 2).count == 51)
        #expect(updates(w.events, of: 1).allSatisfy { $0 == change(mod: [0]) })
        #expect(updates(w.events, of: 2).allSatisfy { $0 == change(mod: [0]) })
    }
}

// MARK: - Async writes (A)

extension NotificationsAsyncModelTests {
    @Test("Spec A1, D11: writeAsync returns first, runs later at the newest version, completes")
    func writeAsyncRunsLaterCommitsCompletes() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        _ = w.contents(World.main, 1)  // realm 1 reads v1
        w.ok(World.main, .setAutorefresh(1, false))
        _ = w.contents(World.thread, 2)
        w.write(World.thread, 2, [item(1, 1)])  // v2; realm 1 stays at v1
        let queued = w.run(World.main, .writeAsync(1, [setItem(1, 5)], as: 1))
        #expect(queued.result == .success(.done))
        #expect(queued.events.isEmpty)
        #expect(w.newest() == 2)
        // Only the realm's own scheduler runs it.
        #expect(w.turn(World.thread).isEmpty)
        #expect(w.turn(World.queue).isEmpty)
        let turn = w.turn()
        // Inside a write begun at the newest version (v2): the commit is v3.
        #expect(turn == [.moved(1, to: 2), .asyncBlockStarted(1), .asyncCommitted(1, 3)])
        #expect(w.durable == 2)
        #expect(completed(w.turn()).isEmpty)  // not durable yet: no completion
        w.ok(World.main, .syncAsyncGroup(1, fails: false))
        #expect(w.durable == 3)
        #expect(w.turn() == [.asyncCompleted(1, nil)])
        #expect(w.reading(World.main, 1, key: 1)?.value == 5)  // the completion sees the data
    }

    @Test("Spec A2: blocks run FIFO, each seeing earlier commits; completions in that order")
    func asyncBlocksRunFIFO() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .writeAsync(1, [item(1, 1)], as: 1))
        w.ok(World.main, .writeAsync(1, [setItem(1, 2), item(2)], as: 2))  // needs block 1's
        w.ok(
            World.main,
            .beginAsyncWrite(
                1, [setItem(2, 3)], ending: grouped(true),
                as: 3))
        var events: [Event] = []
        var rounds = 0
        while !w.asyncIdle(1), rounds < 100 {
            rounds += 1
            let turn = w.turn()
            // Never nested: at most one block starts per turn, and none is open between steps.
            #expect(started(turn).count <= 1)
            #expect(w.state.realms[1]?.write == nil)
            events += turn
            if w.state.realms[1]?.asyncGroups.first?.isEnded == true {
                w.ok(World.main, .syncAsyncGroup(1, fails: false))
            }
        }
        #expect(started(events) == [1, 2, 3])
        #expect(committed(events) == [1, 2, 3])
        #expect(completed(events) == [1, 2, 3])
        #expect(!events.contains(where: isFailedCompletion))
        #expect(w.reading(World.main, 1, key: 1)?.value == 2)
        #expect(w.reading(World.main, 1, key: 2)?.value == 3)
        // A block queued while others wait (the model's counterpart of beginAsyncWrite inside
        // a running block) is queued behind them.
        w.ok(World.main, .writeAsync(1, [item(3)], as: 4))
        w.ok(World.main, .writeAsync(1, [item(4)], as: 5))
        #expect(started(w.drainAsync(1)) == [4, 5])
    }

    @Test("Spec A3, W5: cancelWrite inside a block rolls it back and ends its transaction")
    func cancelWriteInsideBlock() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])
        w.ok(World.main, .beginAsyncWrite(1, [setItem(1, 9), item(2)], ending: .cancel, as: 1))
        w.ok(World.main, .writeAsync(1, [item(3)], as: 2))
        let turn = w.turn()
        // A beginAsyncWrite block has no completion of its own (only commitAsyncWrite takes one).
        #expect(turn == [.asyncBlockStarted(1)])
        #expect(w.ok(World.main, .isInWriteTransaction(1)) == .bool(false))
        #expect(w.newest() == 2)
        #expect(w.reading(World.main, 1, key: 1)?.value == 1)
        #expect(w.reading(World.main, 1, key: 2) == nil)
        // The queue goes on.
        let rest = w.drainAsync(1)
        #expect(started(rest) == [2] && completed(rest) == [2])
        #expect(w.reading(World.main, 1, key: 3) != nil)
    }

    @Test("Spec A4, A10, D11: cancelAsyncWrite removes a queued block or drops a completion")
    func cancelAsyncWrite() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .writeAsync(1, [item(1)], as: 1))
        w.ok(World.main, .writeAsync(1, [item(2)], as: 2))
        w.ok(World.main, .writeAsync(1, [item(3)], as: 3))
        w.ok(World.main, .cancelAsyncWrite(1, 2))
        let events = w.drainAsync(1)
        #expect(started(events) == [1, 3])
        #expect(completed(events) == [1, 3])
        #expect(w.reading(World.main, 1, key: 2) == nil)
        #expect(w.reading(World.main, 1, key: 3) != nil)

        // With the id commitAsyncWrite returned: only the completion goes; the commit stays and
        // becomes durable.
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .apply(1, [item(4)]))
        w.ok(World.main, .commitAsyncWrite(1, allowGrouping: false, as: 10))
        let version = w.newest()
        w.ok(World.main, .cancelAsyncWrite(1, 10))
        w.ok(World.main, .syncAsyncGroup(1, fails: false))
        w.turn()
        w.turn()
        #expect(w.durable == version)
        #expect(w.reading(World.main, 1, key: 4) != nil)
        #expect(!completed(w.events).contains(10))
        // writeAsync's id names its block: once the block has run, its commit's completion has an
        // id of its own that the caller never sees, so cancelling the block's id does nothing
        // (A4: "called for the block that is running, it does nothing"; Realm's writeAsync is
        // beginAsyncWrite with a commitAsyncWrite inside).
        w.ok(World.main, .writeAsync(1, [item(5)], as: 11))
        w.turn()
        #expect(committed(w.events).contains(11))
        w.ok(World.main, .cancelAsyncWrite(1, 11))
        w.drainAsync(1)
        #expect(completed(w.events).contains(11))
        #expect(w.reading(World.main, 1, key: 5) != nil)
        // Exactly once for every commit not cancelled (A10).
        #expect(completed(w.events) == [1, 3, 11])
        // (A block that is running cannot be named by a step: the model runs each block within
        // one loop turn.)
    }

    @Test("Spec A5, W3: commitAsyncWrite without an open write is rejected")
    func commitAsyncWriteNeedsOpenWrite() {
        var w = World()
        w.open(World.main, 1)
        let error = w.fails(World.main, .commitAsyncWrite(1, allowGrouping: false, as: 1))
        #expect(error == .noWriteToCommit)
        #expect(error?.message == "Can't commit a non-existing write transaction")
        w.ok(World.main, .beginAsyncWrite(1, [item(1)], ending: grouped(false), as: 2))
        let again = w.fails(World.main, .commitAsyncWrite(1, allowGrouping: true, as: 3))
        #expect(again == .noWriteToCommit)
        // The queued block is untouched.
        #expect(started(w.drainAsync(1)) == [2])
        #expect(w.newest() == 2)
    }

    @Test("Spec A6, V12, D11: an async commit is published and read at once, before it is durable")
    func asyncCommitVisibleAtOnce() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .apply(1, [item(1)]))
        let commit = w.run(World.main, .commitAsyncWrite(1, allowGrouping: false, as: 1))
        #expect(commit.events == [.asyncCommitted(1, 2)])
        #expect(w.readVersion(1) == 2 && w.newest() == 2)
        #expect(w.durable == 1)
        #expect(w.reading(World.main, 1, key: 1) != nil)
        #expect(w.contents(World.thread, 2).count == 1)  // published: others read it too
        #expect(completed(w.turn()).isEmpty)
        w.ok(World.main, .syncAsyncGroup(1, fails: false))
        #expect(w.turn() == [.asyncCompleted(1, nil)])

        // Inside an async block.
        w.ok(World.main, .beginAsyncWrite(1, [item(2)], ending: grouped(false), as: 2))
        let turn = w.turn()
        #expect(committed(turn) == [2])
        #expect(w.reading(World.main, 1, key: 2) != nil)
        #expect(w.durable == 2)
        #expect(completed(w.drainAsync(1)) == [2])
        #expect(w.durable == 3)
    }

    @Test("Spec A7, W1: a synchronous write goes before queued blocks, which then see its data")
    func synchronousWritesGoFirst() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .writeAsync(1, [setItem(2, 20)], as: 1))  // needs the sync write's item
        let begin = w.run(World.main, .beginWrite(1))
        #expect(begin.result == .success(.done))
        #expect(started(begin.events).isEmpty)
        w.ok(World.main, .writeAsync(1, [setItem(2, 21)], as: 2))  // queued during the write
        #expect(started(w.turn()).isEmpty)  // no block runs while the write is open
        w.ok(World.main, .apply(1, [item(2, 2)]))
        w.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        let events = w.drainAsync(1)
        #expect(started(events) == [1, 2])
        #expect(!events.contains(where: isFailedCompletion))
        #expect(w.reading(World.main, 1, key: 2)?.value == 21)

        // Cancelling the synchronous write leaves the queued blocks as they were.
        w.ok(World.main, .writeAsync(1, [setItem(2, 22)], as: 3))
        let queue = w.state.realms[1]?.asyncQueue
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .apply(1, [setItem(2, 99)]))
        w.ok(World.main, .cancelWrite(1))
        #expect(w.state.realms[1]?.asyncQueue == queue)
        #expect(w.ok(World.main, .isPerformingAsynchronousWriteOperations(1)) == .bool(true))
        #expect(started(w.drainAsync(1)) == [3])
        #expect(w.reading(World.main, 1, key: 2)?.value == 22)
        // (The model's blocks take the lock only within their loop turn; an engine block that
        // acquired it in the background is the engine's internal choice, not a model state.)
    }

    @Test("Spec A8, D13: beginWrite makes async commits durable and runs their completions")
    func synchronousWritesFlushAsyncCommits() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .beginAsyncWrite(1, [item(1)], ending: grouped(true), as: 1))
        w.ok(World.main, .beginAsyncWrite(1, [item(2)], ending: grouped(true), as: 2))
        w.turn()
        w.turn()
        #expect(committed(w.events) == [1, 2])
        #expect(w.durable == 1)
        let begin = w.run(World.main, .beginWrite(1))
        #expect(begin.events == [.asyncCompleted(1, nil), .asyncCompleted(2, nil)])
        #expect(w.durable == 3)
        w.ok(World.main, .cancelWrite(1))

        // A synchronous write {} likewise, before its own commit's notification.
        w.ok(World.main, .observeRealm(1, action: .none, as: 1))
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .apply(1, [item(3)]))
        w.ok(World.main, .commitAsyncWrite(1, allowGrouping: true, as: 3))
        let write = w.run(
            World.main,
            .writeBlock(
                1, [item(4)], ending: .commit,
                withoutNotifying: [], fate: .success))
        #expect(write.events == [.asyncCompleted(3, nil), .didChange(1)])
        #expect(w.durable == 5)
        #expect(completed(w.events) == [1, 2, 3])
    }

    @Test("Spec A9, D10, L7: groups end at a barrier, at 20 commits or when the queue empties")
    func groupingBoundaries() {
        func run(_ count: Int, grouping: (Int) -> Bool) -> (syncs: [Version], events: [Event]) {
            var w = World()
            w.open(World.main, 1)
            for key in 1...count {
                w.ok(
                    World.main,
                    .beginAsyncWrite(
                        1, [item(key)],
                        ending: .commit(allowGrouping: grouping(key)),
                        as: AsyncWriteID(key)))
            }
            var syncs: [Version] = []
            var rounds = 0
            while !w.asyncIdle(1), rounds < 1_000 {
                rounds += 1
                w.turn()
                if w.state.realms[1]?.asyncGroups.first?.isEnded == true {
                    w.ok(World.main, .syncAsyncGroup(1, fails: false))
                    if let durable = w.durable { syncs.append(durable) }
                }
            }
            #expect(w.asyncIdle(1))
            return (syncs, w.events)
        }
        // 41 grouped commits: durable after the 20th (v21), the 40th (v41) and the 41st (v42).
        let grouped = run(41) { _ in true }
        #expect(grouped.syncs == [21, 41, 42])
        #expect(completed(grouped.events) == (1...41).map { AsyncWriteID($0) })
        // A group's completions run after it is durable and before any later block starts.
        let trace = grouped.events.filter {
            if case .asyncBlockStarted = $0 { return true }
            if case .asyncCompleted = $0 { return true }
            return false
        }
        let expected: [Event] =
            (1...20).map { .asyncBlockStarted(AsyncWriteID($0)) }
            + (1...20).map { .asyncCompleted(AsyncWriteID($0), nil) }
            + (21...40).map { .asyncBlockStarted(AsyncWriteID($0)) }
            + (21...40).map { .asyncCompleted(AsyncWriteID($0), nil) }
            + [.asyncBlockStarted(41), .asyncCompleted(41, nil)]
        #expect(trace == expected)
        // A barrier every 6th commit makes every 6th durable.
        let barriers = run(12) { $0 % 6 != 0 }
        #expect(barriers.syncs == [7, 13])
    }

    @Test("Spec A10, A8: N async commits give exactly N completions, none twice")
    func eachCompletionRunsOnce() {
        var w = World()
        w.open(World.main, 1)
        for key in 1...6 {
            w.ok(
                World.main,
                .beginAsyncWrite(
                    1, [item(key)], ending: grouped(key % 2 == 0),
                    as: AsyncWriteID(key)))
        }
        w.turn()
        w.turn()
        w.write(World.main, 1, [item(100)])  // flushes the commits made so far
        w.ok(World.main, .cancelAsyncWrite(1, 5))  // not started yet: never runs
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .apply(1, [item(7)]))
        w.ok(World.main, .commitAsyncWrite(1, allowGrouping: false, as: 7))
        w.drainAsync(1)
        w.turn()
        w.ok(World.main, .invalidate(1))
        w.turn()
        let done = completed(w.events)
        #expect(done.sorted() == [1, 2, 3, 4, 6, 7])
        #expect(Set(done).count == done.count)
        #expect(committed(w.events).count == done.count)
    }

    @Test("Spec A11: a block commits a captured unmanaged object and an earlier object's change")
    func blocksCaptureLikeSynchronousWrites() {
        // The model's blocks carry what they capture as mutations: the unmanaged object's data
        // and the managed object's type and primary key.
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])
        let managed = w.objectHandle(World.main, 1, key: 1)
        let unmanaged = w.freshHandle()
        w.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 7, value: 70, as: unmanaged))
        guard case .object(let reading?) = w.ok(World.main, .read(unmanaged)) else {
            Issue.record("no unmanaged reading")
            return
        }
        w.ok(
            World.main,
            .writeAsync(
                1,
                [
                    .create(type: reading.type, primaryKey: reading.primaryKey, value: reading.value),
                    setItem(1, 11),
                ], as: 1))
        w.drainAsync(1)
        guard case .object(let after?) = w.ok(World.main, .read(managed)) else {
            Issue.record("no managed reading")
            return
        }
        #expect(after.value == 11)
        #expect(w.reading(World.main, 1, key: 7)?.value == 70)
    }

    @Test("Spec A12, W18: async writes on read-only, frozen and closed realms are rejected")
    func asyncWritesRejected() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.open(World.otherProcess, 2, Configuration(location: World.file.location, readOnly: true))
        #expect(w.ok(World.main, .freezeRealm(1, as: 3)) == .realm(3))
        let cases: [(ContextID, RealmID, String)] = [
            (World.otherProcess, 2, "Can't perform transactions on read-only Realms."),
            (World.main, 3, "Can't perform transactions on a frozen Realm"),
        ]
        for (context, realm, message) in cases {
            let async = w.fails(context, .writeAsync(realm, [item(2)], as: 1))
            #expect(async?.message == message)
            let begin = w.fails(
                context,
                .beginAsyncWrite(
                    realm, [item(2)],
                    ending: grouped(false), as: 1))
            #expect(begin?.message == message)
        }
        w.ok(World.main, .close(1))
        #expect(w.fails(World.main, .writeAsync(1, [item(2)], as: 1)) == .realmClosed)
        let closed = w.fails(World.main, .beginAsyncWrite(1, [item(2)], ending: .cancel, as: 1))
        #expect(closed?.message == "Cannot access realm that has been closed.")
        #expect(w.newest() == 2)
    }

    @Test("Spec A13, D13, W7: invalidate and close drop queued blocks, keep and complete commits")
    func invalidateAndCloseWithPendingWork() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .writeAsync(1, [item(1)], as: 1))
        w.ok(World.main, .invalidate(1))
        w.turn()
        w.turn()
        #expect(started(w.events).isEmpty && completed(w.events).isEmpty)
        #expect(w.newest() == 1)
        #expect(w.state.files[World.file.location]?.writer == nil)
        #expect(w.ok(World.main, .isPerformingAsynchronousWriteOperations(1)) == .bool(false))

        // After an async commit: invalidate keeps it, makes it durable and runs its completion.
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .apply(1, [item(2)]))
        w.ok(World.main, .commitAsyncWrite(1, allowGrouping: true, as: 2))
        w.ok(World.main, .writeAsync(1, [item(3)], as: 3))
        let invalidate = w.run(World.main, .invalidate(1))
        #expect(invalidate.events == [.asyncCompleted(2, nil)])
        #expect(w.durable == 2)
        w.turn()
        #expect(!started(w.events).contains(3))
        #expect(w.reading(World.main, 1, key: 2) != nil && w.reading(World.main, 1, key: 3) == nil)

        // close likewise, and the lock is free for others.
        w.open(World.thread, 4)
        w.ok(World.thread, .beginWrite(4))
        w.ok(World.thread, .apply(4, [item(4)]))
        w.ok(World.thread, .commitAsyncWrite(4, allowGrouping: false, as: 4))
        w.ok(World.thread, .writeAsync(4, [item(5)], as: 5))
        let close = w.run(World.thread, .close(4))
        #expect(close.events == [.asyncCompleted(4, nil)])
        #expect(w.durable == 3)
        w.turn(World.thread)
        #expect(!started(w.events).contains(5))
        #expect(w.state.files[World.file.location]?.writer == nil)
        w.write(World.main, 1, [item(6)])
        #expect(w.reading(World.main, 1, key: 4) != nil && w.reading(World.main, 1, key: 5) == nil)
    }

    @Test("Spec A14, D12: a failing block rolls back, its completion gets the error")
    func failingBlocksRollBack() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        // A duplicate primary key: the block fails.
        w.ok(World.main, .beginAsyncWrite(1, [item(2), item(1)], ending: grouped(false), as: 1))
        w.ok(
            World.main,
            .asyncWrite(
                1, [item(3)], ending: .throwError(code: 42),
                taskCancelled: false, as: 2))
        w.ok(World.main, .writeAsync(1, [item(4)], as: 3))
        let events = w.drainAsync(1)
        #expect(events.contains(.asyncCompleted(1, .primaryKeyExists(type: "Item", primaryKey: 1))))
        #expect(events.contains(.asyncCompleted(2, .thrownByBlock(code: 42))))
        #expect(events.contains(.asyncCompleted(3, nil)))
        #expect(completed(events) == [1, 2, 3])
        #expect(committed(events) == [3])
        #expect(w.ok(World.main, .isInWriteTransaction(1)) == .bool(false))
        #expect(w.reading(World.main, 1, key: 2) == nil && w.reading(World.main, 1, key: 3) == nil)
        #expect(w.reading(World.main, 1, key: 4) != nil)

        // The commit fails (the group's durable write): every completion gets the error.
        w.ok(World.main, .beginAsyncWrite(1, [item(5)], ending: grouped(true), as: 4))
        w.ok(World.main, .beginAsyncWrite(1, [item(6)], ending: grouped(true), as: 5))
        w.turn()
        w.turn()
        w.ok(World.main, .syncAsyncGroup(1, fails: true))
        let failed = w.turn()
        #expect(
            failed == [
                .asyncCompleted(4, .commitFailed(.beforeSlot)),
                .asyncCompleted(5, .commitFailed(.beforeSlot)),
            ])
        #expect(w.ok(World.main, .isInWriteTransaction(1)) == .bool(false))
        // (A block without a completion reporting on the scheduler is not modelled: every
        // async operation of the model has a completion or an awaiting caller.)
    }

    @Test("Spec A15, A17: asyncWrite commits, completes, clears both flags; a throw rethrows")
    func asyncWriteValuesAndErrors() {
        var w = World()
        w.open(World.main, 1)
        w.ok(
            World.main,
            .asyncWrite(
                1, [item(1)], ending: grouped(false),
                taskCancelled: false, as: 1))
        #expect(w.ok(World.main, .isPerformingAsynchronousWriteOperations(1)) == .bool(true))
        let turn = w.turn()
        #expect(turn == [.asyncBlockStarted(1), .asyncCommitted(1, 2)])
        w.ok(World.main, .syncAsyncGroup(1, fails: false))
        // asyncWrite returns after the commit: the model's completion is the awaiting caller.
        #expect(w.turn() == [.asyncCompleted(1, nil)])
        #expect(w.ok(World.main, .isInWriteTransaction(1)) == .bool(false))
        #expect(w.ok(World.main, .isPerformingAsynchronousWriteOperations(1)) == .bool(false))

        // The block throws: rolled back, exactly that error.
        w.ok(
            World.main,
            .asyncWrite(
                1, [item(2)], ending: .throwError(code: 7),
                taskCancelled: false, as: 2))
        #expect(w.turn() == [.asyncBlockStarted(2), .asyncCompleted(2, .thrownByBlock(code: 7))])
        #expect(w.reading(World.main, 1, key: 2) == nil)
        #expect(w.newest() == 2)
        #expect(w.ok(World.main, .isInWriteTransaction(1)) == .bool(false))
        #expect(w.ok(World.main, .isPerformingAsynchronousWriteOperations(1)) == .bool(false))
        // (Reading the flags inside a block, and a cancelWrite() followed by a throw, are not
        // expressible: a model block is data that runs within one loop turn.)
    }

    @Test("Spec A16: asyncWrite in a cancelled task throws CancellationError, never runs")
    func asyncWriteInCancelledTask() {
        var w = World()
        w.open(World.actor, 1)
        let error = w.fails(
            World.actor,
            .asyncWrite(
                1, [item(1)], ending: grouped(false),
                taskCancelled: true, as: 1))
        #expect(error == .cancelled)
        #expect(error?.code == .cancelled)
        #expect(error?.message == "CancellationError")
        w.turn(World.actor)
        w.turn(World.actor)
        #expect(started(w.events).isEmpty && completed(w.events).isEmpty)
        #expect(w.newest() == 1)
        #expect(w.ok(World.actor, .isPerformingAsynchronousWriteOperations(1)) == .bool(false))
        // (Cancellation while waiting for the lock is not modelled: a queued asyncWrite has no
        // task to cancel in the model.)
    }

    @Test("Spec A17: isPerformingAsynchronousWriteOperations from queueing to last completion")
    func isPerformingFlag() {
        var w = World()
        w.open(World.main, 1)
        func flag(_ w: inout World) -> Bool {
            w.ok(World.main, .isPerformingAsynchronousWriteOperations(1)) == .bool(true)
        }
        #expect(!flag(&w))
        w.ok(World.main, .writeAsync(1, [item(1)], as: 1))
        #expect(flag(&w))  // queued
        w.turn()
        #expect(committed(w.events) == [1])
        #expect(flag(&w))  // committed, not durable
        w.ok(World.main, .syncAsyncGroup(1, fails: false))
        #expect(flag(&w))  // durable, completion owed
        w.turn()
        #expect(completed(w.events) == [1])
        #expect(!flag(&w))
        // An async commit of a synchronous write.
        w.ok(World.main, .beginWrite(1))
        #expect(!flag(&w))
        w.ok(World.main, .apply(1, [item(2)]))
        w.ok(World.main, .commitAsyncWrite(1, allowGrouping: false, as: 2))
        #expect(flag(&w))
        w.ok(World.main, .syncAsyncGroup(1, fails: false))
        #expect(flag(&w))
        w.turn()
        #expect(!flag(&w))
    }

    @Test("Spec A18, A2, A9: any schedule keeps FIFO, completion order and the scheduler")
    func engineChoicesKeepTheConstraints() {
        func history(seed: UInt64?) -> (
            started: [AsyncWriteID], completed: [AsyncWriteID],
            items: [ObjectID]
        ) {
            var w = World()
            w.open(World.main, 1)
            w.open(World.thread, 2, World.otherFile)
            for key in 1...7 {
                w.ok(
                    World.main,
                    .beginAsyncWrite(
                        1, [item(key)],
                        ending: .commit(allowGrouping: key % 3 != 0),
                        as: AsyncWriteID(key)))
            }
            w.ok(World.thread, .writeAsync(2, [other(1, 1)], as: 100))
            var rng = SplitMix64(seed: seed ?? 0)
            let contexts = [World.main, World.thread, World.queue, World.actor, World.otherProcess]
            var rounds = 0
            while !(w.asyncIdle(1) && w.asyncIdle(2)), rounds < 2_000 {
                rounds += 1
                let choice = seed == nil ? 0 : rng.draw(below: contexts.count + 2)
                if choice < contexts.count {
                    let context = contexts[choice]
                    let events = w.turn(context)
                    // Realm 1's blocks run only on main's loop, realm 2's only on the thread's.
                    let ids = started(events) + completed(events)
                    if context != World.main { #expect(ids.allSatisfy { $0 == 100 }) }
                    if context != World.thread { #expect(!ids.contains(100)) }
                } else {
                    for realm: RealmID in [1, 2]
                    where w.state.realms[realm]?.asyncGroups.first?.isEnded == true {
                        w.ok(World.main, .syncAsyncGroup(realm, fails: false))
                    }
                }
                if seed == nil, w.asyncIdle(1) { w.drainAsync(2, in: World.thread) }
                if seed == nil, !w.asyncIdle(1) {
                    if w.state.realms[1]?.asyncGroups.first?.isEnded == true {
                        w.ok(World.main, .syncAsyncGroup(1, fails: false))
                    }
                }
            }
            #expect(w.asyncIdle(1) && w.asyncIdle(2))
            let own = w.events.filter {
                switch $0 {
                case .asyncBlockStarted(let id), .asyncCompleted(let id, _): return id != 100
                default: return false
                }
            }
            return (started(own), completed(own), w.contents(World.main, 1))
        }
        let reference = history(seed: nil)
        #expect(reference.started == (1...7).map { AsyncWriteID($0) })
        #expect(reference.completed == (1...7).map { AsyncWriteID($0) })
        for seed in [UInt64(5), 17, 123, 9_001] {
            let other = history(seed: seed)
            #expect(other.started == reference.started)
            #expect(other.completed == reference.completed)
            #expect(other.items == reference.items)
        }
    }
}

extension NotificationsAsyncModelTests {
    @Test("Spec T4, T8, D10: a reference pins its version while async commits follow; an unread realm begins there")
    func referenceMadeBeforeAsyncCommitsResolvesAtItsVersion() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .setAutorefresh(1, false))
        w.write(World.main, 1, [item(1, 1)])  // v2, durable
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .makeReference(100, as: 1))  // pins v2 (T8)
        w.ok(World.main, .writeAsync(1, [item(2, 2)], as: 1))
        w.turn()  // v3 published, not durable: realm 1 reads v3, v2 is kept for recovery only
        #expect(w.durable == 2)
        #expect(w.newest() == 3)
        w.open(World.thread, 2)
        w.ok(World.thread, .resolve(1, in: 2, as: 101))
        #expect(w.readVersion(2) == 2)
    }
}
