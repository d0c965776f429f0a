import Testing

@testable import StrataModel

// Unit tests of the reference model against Spec/versions.md (V1 to V18) and
// Spec/confinement.md (C1 to C15). Every test drives the model through `World` and checks the
// observable consequences of the rules it cites: returned values, rejections, events and read
// versions.

/// The primary keys of the elements a read returned.
private func keys(_ value: Value) -> [Int] {
    guard case .elements(let readings) = value else { return [] }
    return readings.map(\.primaryKey)
}

/// The object a read returned.
private func reading(_ value: Value) -> ObjectReading? {
    guard case .object(let reading) = value else { return nil }
    return reading
}

/// The versions `realm` moved to during a step, in order.
private func moves(of realm: RealmID, in events: [Event]) -> [Version] {
    events.compactMap { event in
        guard case .moved(let moved, let version) = event, moved == realm else { return nil }
        return version
    }
}

/// Whether a rejection's message contains `fragment`.
private func says(_ error: ModelError?, _ fragment: String) -> Bool {
    error?.message.contains(fragment) ?? false
}

private let wrongThreadMessage = "Realm accessed from incorrect thread"

@Suite struct VersionsAndConfinementModelTests {
    // MARK: - V: versions and refresh

    @Test("Spec V1: a read sees exactly its read version plus its own write, never later commits")
    func readSeesExactlyItsReadVersion() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        world.open(World.otherProcess, 3)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        #expect(world.readVersion(2) == Version(1))
        world.write(World.main, 1, [item(1)])  // v2: another realm of the same process
        world.write(World.otherProcess, 3, [item(2)])  // v3: another process
        #expect(world.newest() == Version(3))
        // Later commits of other realms are invisible until the realm moves.
        #expect(keys(world.ok(World.thread, .read(10))) == [])
        #expect(
            world.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 1, as: 11))
                == .handle(nil))
        #expect(world.ok(World.thread, .isEmpty(2)) == .bool(true))
        #expect(world.readVersion(2) == Version(1))
        // The main realm reads v2: its own commit, not the other process's later one.
        #expect(world.items(World.main, 1, handle: 12) == [1])
        // Inside a write: the version it began at plus the transaction's own changes.
        world.ok(World.thread, .beginWrite(2))
        world.ok(World.thread, .apply(2, [item(3), .setValue(type: "Item", primaryKey: 1, value: 10)]))
        #expect(keys(world.ok(World.thread, .read(10))) == [1, 2, 3])
        world.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 1, as: 13))
        #expect(reading(world.ok(World.thread, .read(13)))?.value == 10)
        // Nobody else sees the uncommitted changes.
        #expect(keys(world.ok(World.main, .read(12))) == [1])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 14))
        #expect(reading(world.ok(World.main, .read(14)))?.value == 1)
        world.ok(World.thread, .cancelWrite(2))
        #expect(keys(world.ok(World.thread, .read(10))) == [1, 2])
        #expect(reading(world.ok(World.thread, .read(13)))?.value == 1)
    }

    @Test("Spec V2: reading, observing, thaw and commits of other realms never move a realm")
    func nothingElseMovesARealm() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        world.write(World.main, 1, [item(1)])  // v2
        world.write(World.main, 1, [item(2)])  // v3
        // Other contexts' loops turning do not move it either.
        world.ok(World.main, .turnLoop)
        world.ok(World.otherProcess, .turnLoop)
        // Reads of every kind.
        #expect(keys(world.ok(World.thread, .read(10))) == [])
        #expect(
            world.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 1, as: 11))
                == .handle(nil))
        #expect(world.ok(World.thread, .isEmpty(2)) == .bool(true))
        #expect(world.ok(World.thread, .getAutorefresh(2)) == .bool(true))
        // Observing.
        world.ok(World.thread, .observeRealm(2, action: .none, as: 20))
        world.ok(
            World.thread,
            .observeCollection(
                10, action: .none, on: nil, inCancelledTask: false,
                as: 21))
        // thaw() of a realm and of an object frozen at v3 in another context.
        world.ok(World.main, .freezeRealm(1, as: 30))
        #expect(world.ok(World.thread, .thawRealm(30, as: 31)) == .realm(2))
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 12))
        world.ok(World.main, .freezeHandle(12, as: 13))
        #expect(world.ok(World.thread, .thawHandle(13, as: 14)) == .handle(nil))
        // Reading the frozen realm from the thread.
        #expect(world.items(World.thread, 30, handle: 15) == [1, 2])
        #expect(world.readVersion(2) == Version(1))
        #expect(moves(of: 2, in: world.events).isEmpty)
        #expect(world.events(of: 20).isEmpty)
        #expect(keys(world.ok(World.thread, .read(10))) == [])
    }

    @Test(
        "Spec V2, V3: refresh, autorefresh, beginWrite, resolve and the read after invalidate move to the newest version"
    )
    func everyWayOfMovingGoesToTheNewestVersion() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        world.open(World.otherProcess, 3)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        // refresh()
        world.write(World.main, 1, [item(1)])  // v2
        world.write(World.main, 1, [item(2)])  // v3
        let refreshed = world.run(World.thread, .refresh(2))
        #expect(refreshed.result == .success(.bool(true)))
        #expect(moves(of: 2, in: refreshed.events) == [Version(3)])
        // autorefresh on a turn of the realm's loop
        world.write(World.main, 1, [item(3)])  // v4
        world.write(World.otherProcess, 3, [item(4)])  // v5
        let turned = world.run(World.thread, .turnLoop)
        #expect(moves(of: 2, in: turned.events) == [Version(5)])
        // beginWrite, with autorefresh off
        world.ok(World.thread, .setAutorefresh(2, false))
        world.write(World.main, 1, [item(5)])  // v6
        world.write(World.otherProcess, 3, [item(6)])  // v7
        let began = world.run(World.thread, .beginWrite(2))
        #expect(began.result == .success(.done))
        #expect(moves(of: 2, in: began.events) == [Version(7)])
        world.ok(World.thread, .cancelWrite(2))
        // Resolving a reference made at v8 moves to the newest (v9), not to the source version.
        world.write(World.main, 1, [item(7)])  // v8
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 7, as: 11))
        world.ok(World.main, .makeReference(11, as: 1))
        world.write(World.otherProcess, 3, [item(8)])  // v9
        let resolved = world.run(World.thread, .resolve(1, in: 2, as: 12))
        #expect(resolved.result == .success(.handle(12)))
        #expect(moves(of: 2, in: resolved.events) == [Version(9)])
        // The first read after invalidate().
        world.ok(World.thread, .invalidate(2))
        world.write(World.otherProcess, 3, [item(9)])  // v10
        #expect(world.items(World.thread, 2, handle: 13) == Array(1...9))
        #expect(world.newest() == Version(10))
        #expect(world.readVersion(2) == Version(10))
    }

    @Test("Spec V3: the one exception is a first read at a thread-safe reference's source version")
    func firstReadAtReferenceSourceVersion() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        world.write(World.main, 1, [item(1)])  // v2; the main realm stays there (pins it)
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .makeReference(10, as: 1))
        world.ok(World.main, .makeReference(10, as: 2))
        world.write(World.thread, 2, [item(2)])  // v3
        // A realm that never read starts at the source version (T4)...
        world.open(World.queue, 3)
        #expect(world.ok(World.queue, .resolve(1, in: 3, as: 11)) == .handle(11))
        #expect(world.readVersion(3) == Version(2))
        // ...every other move goes to the newest.
        #expect(world.items(World.queue, 3, handle: 12) == [1])
        #expect(world.ok(World.queue, .refresh(3)) == .bool(true))
        #expect(world.readVersion(3) == Version(3))
        #expect(keys(world.ok(World.queue, .read(12))) == [1, 2])
    }

    @Test("Spec V4: refresh() returns true exactly when it moved to a newer version")
    func refreshReturnsWhetherItMoved() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.main, 1, handle: 10) == [])
        #expect(world.ok(World.main, .refresh(1)) == .bool(false))  // already at the newest
        world.write(World.thread, 2, [item(1)])
        #expect(world.ok(World.main, .refresh(1)) == .bool(true))
        #expect(world.readVersion(1) == world.newest())
        #expect(world.ok(World.main, .refresh(1)) == .bool(false))  // no commit in between
        // A frozen realm never moves: refresh() returns false though a newer version exists.
        world.ok(World.main, .freezeRealm(1, as: 20))
        world.write(World.thread, 2, [item(2)])
        #expect(world.ok(World.main, .refresh(20)) == .bool(false))
        #expect(world.readVersion(20) == Version(2))
        #expect(world.items(World.main, 20, handle: 11) == [1])
        #expect(world.ok(World.main, .refresh(1)) == .bool(true))
        #expect(world.items(World.main, 1, handle: 12) == [1, 2])
        #expect(world.ok(World.main, .refresh(1)) == .bool(false))
    }

    @Test("Spec V5, V4: refresh() inside a .didChange callback does nothing and returns false")
    func refreshInsideDidChangeDoesNothing() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        world.ok(World.thread, .observeRealm(2, action: .refresh, as: 20))
        world.write(World.main, 1, [item(1)])  // v2
        let turned = world.run(World.thread, .turnLoop)
        #expect(
            turned.events == [
                .moved(2, to: Version(2)), .didChange(20),
                .callbackRefreshed(20, false),
            ])
        world.write(World.main, 1, [item(2)])  // v3
        let refreshed = world.run(World.thread, .refresh(2))
        #expect(refreshed.result == .success(.bool(true)))
        #expect(
            refreshed.events == [
                .moved(2, to: Version(3)), .didChange(20),
                .callbackRefreshed(20, false),
            ])
        #expect(world.readVersion(2) == Version(3))
    }

    @Test("Spec V5, V9: refresh() inside a .refreshRequired callback moves to the newest and returns true")
    func refreshInsideRefreshRequiredMoves() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        world.ok(World.thread, .setAutorefresh(2, false))
        world.ok(World.thread, .observeRealm(2, action: .refresh, as: 20))
        world.write(World.main, 1, [item(1)])  // v2
        world.write(World.main, 1, [item(2)])  // v3
        let turned = world.run(World.thread, .turnLoop)
        #expect(turned.events.first == .refreshRequired(20))
        #expect(turned.events.contains(.callbackRefreshed(20, true)))
        #expect(moves(of: 2, in: turned.events) == [Version(3)])
        #expect(world.readVersion(2) == Version(3))
        #expect(keys(world.ok(World.thread, .read(10))) == [1, 2])
    }

    @Test("Spec V6: autorefresh starts true, reads back what was set and belongs to the cached instance")
    func autorefreshBelongsToTheCachedInstance() {
        var world = World()
        #expect(world.open(World.main, 1) == 1)
        #expect(world.ok(World.main, .getAutorefresh(1)) == .bool(true))
        world.ok(World.main, .setAutorefresh(1, false))
        #expect(world.ok(World.main, .getAutorefresh(1)) == .bool(false))
        world.ok(World.main, .setAutorefresh(1, true))
        #expect(world.ok(World.main, .getAutorefresh(1)) == .bool(true))
        world.ok(World.main, .setAutorefresh(1, false))
        // A second holder of the same cached instance sees the value.
        #expect(world.open(World.main, 2) == 1)
        #expect(world.ok(World.main, .getAutorefresh(1)) == .bool(false))
        // An instance in another context has its own value.
        #expect(world.open(World.thread, 3) == 3)
        #expect(world.ok(World.thread, .getAutorefresh(3)) == .bool(true))
        // Still held once: the value stays.
        world.ok(World.main, .release(1))
        #expect(world.ok(World.main, .getAutorefresh(1)) == .bool(false))
        // Every holder released: the next Realm() autorefreshes again.
        world.ok(World.main, .release(1))
        #expect(world.open(World.main, 4) == 4)
        #expect(world.ok(World.main, .getAutorefresh(4)) == .bool(true))
    }

    @Test("Spec V7, V3: autorefresh moves a realm on a later turn of its own loop, never inside the committer's call")
    func autorefreshMovesOnALaterTurnOfItsOwnLoop() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        world.open(World.otherProcess, 3)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        world.ok(World.thread, .observeRealm(2, action: .none, as: 20))
        let commit = world.run(
            World.main,
            .writeBlock(
                1, [item(1)], ending: .commit,
                withoutNotifying: [], fate: .success))
        #expect(commit.result == .success(.done))
        #expect(moves(of: 2, in: commit.events).isEmpty)
        #expect(!commit.events.contains(.didChange(20)))
        #expect(world.readVersion(2) == Version(1))
        // Only the realm's own loop moves it.
        #expect(moves(of: 2, in: world.run(World.main, .turnLoop).events).isEmpty)
        #expect(moves(of: 2, in: world.run(World.otherProcess, .turnLoop).events).isEmpty)
        #expect(world.readVersion(2) == Version(1))
        let turned = world.run(World.thread, .turnLoop)
        #expect(turned.events == [.moved(2, to: Version(2)), .didChange(20)])
        #expect(keys(world.ok(World.thread, .read(10))) == [1])
        // Commits of another process: one move, straight to the newest.
        world.write(World.otherProcess, 3, [item(2)])  // v3
        world.write(World.otherProcess, 3, [item(3)])  // v4
        #expect(world.readVersion(2) == Version(2))
        let again = world.run(World.thread, .turnLoop)
        #expect(again.events == [.moved(2, to: Version(4)), .didChange(20)])
        #expect(keys(world.ok(World.thread, .read(10))) == [1, 2, 3])
    }

    @Test("Spec V8: a realm whose thread never returns to its loop sees no commit until refresh()")
    func noTurnNoMove() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.plainThread, 2)
        world.open(World.thread, 3)
        world.open(World.otherProcess, 4)
        #expect(world.items(World.plainThread, 2, handle: 10) == [])
        #expect(world.items(World.thread, 3, handle: 11) == [])
        world.write(World.main, 1, [item(1)])
        world.write(World.otherProcess, 4, [item(2)])
        // Every other loop turns; the blocked thread (3) and the loopless one (2) never do.
        world.ok(World.main, .turnLoop)
        world.ok(World.queue, .turnLoop)
        world.ok(World.otherProcess, .turnLoop)
        #expect(world.readVersion(2) == Version(1))
        #expect(world.readVersion(3) == Version(1))
        #expect(keys(world.ok(World.plainThread, .read(10))) == [])
        #expect(keys(world.ok(World.thread, .read(11))) == [])
        #expect(world.ok(World.plainThread, .refresh(2)) == .bool(true))
        #expect(keys(world.ok(World.plainThread, .read(10))) == [1, 2])
        #expect(world.ok(World.thread, .refresh(3)) == .bool(true))
        #expect(keys(world.ok(World.thread, .read(11))) == [1, 2])
        // Whatever autorefresh says.
        world.ok(World.plainThread, .setAutorefresh(2, false))
        world.write(World.main, 1, [item(3)])
        world.ok(World.main, .turnLoop)
        #expect(keys(world.ok(World.plainThread, .read(10))) == [1, 2])
        #expect(world.ok(World.plainThread, .refresh(2)) == .bool(true))
        #expect(keys(world.ok(World.plainThread, .read(10))) == [1, 2, 3])
    }

    @Test("Spec V9: with autorefresh off a commit never moves the realm until refresh, asyncRefresh or a write")
    func autorefreshOffNeverMoves() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        world.open(World.otherProcess, 3)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        world.ok(World.thread, .setAutorefresh(2, false))
        world.ok(World.thread, .observeRealm(2, action: .none, as: 20))
        world.write(World.main, 1, [item(1)])  // v2
        let turned = world.run(World.thread, .turnLoop)
        #expect(turned.events == [.refreshRequired(20)])
        #expect(world.readVersion(2) == Version(1))
        #expect(keys(world.ok(World.thread, .read(10))) == [])
        world.write(World.otherProcess, 3, [item(2)])  // v3
        world.ok(World.thread, .turnLoop)
        world.ok(World.thread, .turnLoop)
        #expect(world.readVersion(2) == Version(1))
        #expect(moves(of: 2, in: world.events).isEmpty)
        // refresh()
        #expect(world.ok(World.thread, .refresh(2)) == .bool(true))
        #expect(keys(world.ok(World.thread, .read(10))) == [1, 2])
        // beginWrite
        world.write(World.main, 1, [item(3)])  // v4
        world.ok(World.thread, .turnLoop)
        #expect(world.readVersion(2) == Version(3))
        let began = world.run(World.thread, .beginWrite(2))
        #expect(moves(of: 2, in: began.events) == [Version(4)])
        world.ok(World.thread, .cancelWrite(2))
        // asyncRefresh() (main thread)
        world.ok(World.main, .setAutorefresh(1, false))
        world.write(World.thread, 2, [item(4)])  // v5
        world.ok(World.main, .turnLoop)
        #expect(world.readVersion(1) == Version(4))
        #expect(world.ok(World.main, .asyncRefresh(1)) == .bool(true))
        #expect(world.readVersion(1) == Version(5))
        #expect(world.items(World.main, 1, handle: 11) == [1, 2, 3, 4])
    }

    @Test("Spec V10: the first read of a new realm and the first read after invalidate() start at the newest version")
    func firstReadStartsAtTheNewestVersion() {
        var world = World()
        world.open(World.main, 1)
        #expect(world.readVersion(1) == nil)
        world.open(World.otherProcess, 3)
        world.write(World.otherProcess, 3, [item(1)])  // v2
        world.write(World.otherProcess, 3, [item(2)])  // v3
        #expect(world.items(World.main, 1, handle: 10) == [1, 2])
        #expect(world.readVersion(1) == Version(3))
        world.ok(World.main, .invalidate(1))
        world.write(World.otherProcess, 3, [item(3)])  // v4
        #expect(world.readVersion(1) == nil)
        #expect(
            world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 3, as: 11))
                == .handle(11))
        #expect(world.readVersion(1) == Version(4))
        #expect(world.newest() == Version(4))
    }

    @Test("Spec V11: beginWrite moves to the newest version first; its observers see the new data before it returns")
    func beginWriteMovesFirst() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        world.ok(World.thread, .setAutorefresh(2, false))
        world.ok(World.thread, .observeRealm(2, action: .none, as: 20))
        world.ok(
            World.thread,
            .observeCollection(
                10, action: .none, on: nil, inCancelledTask: false,
                as: 21))
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 21) == [.initial(21, [])])
        world.write(World.main, 1, [item(1)])  // v2
        let began = world.run(World.thread, .beginWrite(2))
        #expect(began.result == .success(.done))
        #expect(Array(began.events.prefix(2)) == [.moved(2, to: Version(2)), .didChange(20)])
        var sawNewData = false
        if case .update(21, let change, let contents) = began.events.dropFirst(2).first {
            sawNewData = change.insertions == [0] && contents.count == 1
        }
        #expect(sawNewData)
        #expect(world.state.realms[2]?.write?.startVersion == Version(2))
        world.ok(World.thread, .cancelWrite(2))
        // Nothing newer: no move, no callback.
        let again = world.run(World.thread, .beginWrite(2))
        #expect(again.result == .success(.done))
        #expect(again.events.isEmpty)
        world.ok(World.thread, .cancelWrite(2))
        // write {} moves first too: the block's commit builds on the newest version.
        world.write(World.main, 1, [item(2)])  // v3
        let block = world.run(
            World.thread,
            .writeBlock(
                2, [item(3)], ending: .commit,
                withoutNotifying: [], fate: .success))
        #expect(Array(block.events.prefix(2)) == [.moved(2, to: Version(3)), .didChange(20)])
        #expect(world.newest() == Version(4))
        #expect(keys(world.ok(World.thread, .read(10))) == [1, 2, 3])
        // The start of an async write block moves too, whatever autorefresh says.
        world.ok(World.main, .setAutorefresh(1, false))
        world.ok(World.main, .writeAsync(1, [item(4)], as: 1))
        let turned = world.run(World.main, .turnLoop)
        let movedAt = turned.events.firstIndex(of: .moved(1, to: Version(4)))
        let startedAt = turned.events.firstIndex(of: .asyncBlockStarted(1))
        #expect(movedAt != nil && startedAt != nil && movedAt! < startedAt!)
        #expect(turned.events.contains(.asyncCommitted(1, Version(5))))
    }

    @Test("Spec V11: a move made by a write inside .refreshRequired does not call that callback again")
    func beginWriteInsideRefreshRequiredDoesNotReenter() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        world.ok(World.thread, .setAutorefresh(2, false))
        world.ok(World.thread, .observeRealm(2, action: .write([item(9)]), as: 20))
        world.write(World.main, 1, [item(1)])  // v2
        let turned = world.run(World.thread, .turnLoop)
        #expect(moves(of: 2, in: turned.events) == [Version(2)])
        #expect(world.events(of: 20) == [.refreshRequired(20)])
        #expect(world.newest() == Version(3))
        #expect(world.readVersion(2) == Version(3))
        #expect(keys(world.ok(World.thread, .read(10))) == [1, 9])
    }

    @Test("Spec V12: the committer reads the version its own commit created, whatever autorefresh says")
    func committerSeesItsOwnCommit() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.main, 1, handle: 10) == [])
        world.ok(World.main, .setAutorefresh(1, false))
        // commitWrite
        world.ok(World.main, .beginWrite(1))
        world.ok(World.main, .apply(1, [item(1)]))
        world.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(world.newest() == Version(2))
        #expect(world.readVersion(1) == Version(2))
        #expect(world.ok(World.main, .refresh(1)) == .bool(false))
        // write {}
        world.write(World.main, 1, [item(2)])
        #expect(world.readVersion(1) == Version(3))
        #expect(world.ok(World.main, .refresh(1)) == .bool(false))
        // an async block's commit
        world.ok(World.main, .writeAsync(1, [item(3)], as: 1))
        let turned = world.run(World.main, .turnLoop)
        #expect(turned.events.contains(.asyncCommitted(1, Version(4))))
        #expect(world.readVersion(1) == Version(4))
        // commitAsyncWrite
        world.ok(World.main, .beginWrite(1))
        world.ok(World.main, .apply(1, [item(4)]))
        let committed = world.run(World.main, .commitAsyncWrite(1, allowGrouping: false, as: 2))
        #expect(committed.events.contains(.asyncCommitted(2, Version(5))))
        #expect(world.readVersion(1) == Version(5))
        #expect(world.ok(World.main, .refresh(1)) == .bool(false))
        #expect(keys(world.ok(World.main, .read(10))) == [1, 2, 3, 4])
        // Only another realm's commit gives refresh something to find.
        world.write(World.thread, 2, [item(5)])
        #expect(world.ok(World.main, .refresh(1)) == .bool(true))
        #expect(world.readVersion(1) == Version(6))
    }

    @Test("Spec V13: invalidate() releases the pin and invalidates every earlier accessor for good")
    func invalidateReleasesThePinAndEveryAccessor() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        world.write(
            World.main, 1,
            [
                item(1), item(2),
                .append(
                    ownerType: "Item", ownerKey: 1,
                    elementType: "Item", elementKey: 2),
            ])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .objects(1, .all("Item"), as: 11))
        world.ok(World.main, .listOf(10, as: 12))
        #expect(keys(world.ok(World.main, .read(12))) == [2])
        world.write(World.thread, 2, [item(3)])  // v3; the main realm pins v2
        let location = World.file.location
        #expect(world.state.files[location]?.versions[Version(2)] != nil)
        world.ok(World.main, .invalidate(1))
        #expect(world.readVersion(1) == nil)
        #expect(world.state.files[location]?.versions[Version(2)] == nil)  // reclaimed
        for handle: HandleID in [10, 11, 12] {
            #expect(says(world.fails(World.main, .read(handle)), "invalidated"))
            #expect(world.ok(World.main, .isInvalidated(handle)) == .bool(true))
        }
        // The next read starts at the newest version; the old accessors stay invalid.
        #expect(world.items(World.main, 1, handle: 13) == [1, 2, 3])
        #expect(world.readVersion(1) == Version(3))
        world.ok(World.main, .beginWrite(1))
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 3, as: 14))
        #expect(says(world.fails(World.main, .setValue(10, 5)), "invalidated"))
        #expect(says(world.fails(World.main, .append(list: 12, element: 14)), "invalidated"))
        world.ok(World.main, .apply(1, [item(4)]))
        world.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        for handle: HandleID in [10, 11, 12] {
            #expect(says(world.fails(World.main, .read(handle)), "invalidated"))
            #expect(world.ok(World.main, .isInvalidated(handle)) == .bool(true))
        }
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 15))
        #expect(reading(world.ok(World.main, .read(15)))?.listKeys == [2])
    }

    @Test("Spec V19, V13, V14, T4: invalidate() again changes nothing; before any read it only marks the realm")
    func invalidateAgainChangesNothing() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        // Before the realm ever read: nothing to release, no error; again, nothing at all.
        world.ok(World.main, .invalidate(1))
        #expect(world.readVersion(1) == nil)
        let marked = world.state
        world.ok(World.main, .invalidate(1))
        #expect(world.state == marked)
        world.write(World.main, 1, [item(1)])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .observeRealm(1, action: .none, as: 20))
        world.ok(World.main, .invalidate(1))
        // Again, any number of times, with no read in between: the same state.
        let once = world.state
        world.ok(World.main, .invalidate(1))
        world.ok(World.main, .invalidate(1))
        #expect(world.state == once)
        #expect(world.ok(World.main, .isInvalidated(10)) == .bool(true))
        // The observer stays (V14) and the next read begins at the newest version (V10).
        world.write(World.thread, 2, [item(2)])
        world.ok(World.main, .turnLoop)
        #expect(world.events(of: 20).last == .didChange(20))
        #expect(world.items(World.main, 1, handle: 11) == [1, 2])
        #expect(world.readVersion(1) == world.newest())
        // Before any read, invalidate() still counts for a resolve: it begins at the newest
        // version, where a realm that never read begins at the reference's (T4).
        world.ok(World.main, .makeReference(11, as: 1))
        world.ok(World.main, .makeReference(11, as: 2))
        let source = world.readVersion(1)
        world.write(World.thread, 2, [item(3)])
        world.open(World.queue, 3)
        world.ok(World.queue, .resolve(1, in: 3, as: 12))
        #expect(world.readVersion(3) == source)
        world.open(World.secondQueue, 4)
        world.ok(World.secondQueue, .invalidate(4))
        world.ok(World.secondQueue, .resolve(2, in: 4, as: 13))
        #expect(world.readVersion(4) == world.newest())
    }

    @Test("Spec V13: invalidate() ends a write transaction without committing it")
    func invalidateEndsTheWrite() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.main, 1, handle: 10) == [])
        world.ok(World.main, .beginWrite(1))
        world.ok(World.main, .apply(1, [item(5)]))
        world.ok(World.main, .invalidate(1))
        #expect(world.ok(World.main, .isInWriteTransaction(1)) == .bool(false))
        #expect(world.newest() == Version(1))
        // The write lock is free: another realm's write does not wait.
        #expect(world.run(World.thread, .beginWrite(2)).result == .success(.done))
        #expect(world.items(World.thread, 2, handle: 11) == [])
        world.ok(World.thread, .cancelWrite(2))
        #expect(world.items(World.main, 1, handle: 12) == [])
    }

    @Test("Spec V13, V10: after invalidate() a read-only realm's next read starts at the newest version")
    func invalidateOnAReadOnlyRealm() {
        var world = World()
        world.open(World.main, 1)
        world.write(World.main, 1, [item(1)])
        let readOnly = Configuration(location: World.file.location, readOnly: true)
        #expect(world.open(World.otherProcess, 3, readOnly) == 3)
        #expect(world.items(World.otherProcess, 3, handle: 10) == [1])
        world.write(World.main, 1, [item(2)])
        world.ok(World.otherProcess, .invalidate(3))
        #expect(world.readVersion(3) == nil)
        #expect(says(world.fails(World.otherProcess, .read(10)), "invalidated"))
        #expect(world.items(World.otherProcess, 3, handle: 11) == [1, 2])
        #expect(world.readVersion(3) == world.newest())
        #expect(says(world.fails(World.otherProcess, .read(10)), "invalidated"))
    }

    @Test("Spec V15: iteration yields the elements that matched when it began, even across refresh and writes")
    func enumerationIsOverASnapshot() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        world.write(World.main, 1, [item(1), item(2), item(3), item(4)])
        world.ok(World.main, .objects(1, .all("Item"), as: 10))
        guard case .elements(let start) = world.ok(World.main, .read(10)) else {
            Issue.record("no elements")
            return
        }
        let ids = start.map(\.id)
        #expect(world.ok(World.main, .iterate(10, as: 1)) == .count(4))
        #expect(world.ok(World.main, .iteratorNext(1, as: 20)) == .handle(20))
        // Another realm deletes 3 and adds 5; the iterating realm refreshes.
        world.ok(World.thread, .beginWrite(2))
        world.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 3, as: 30))
        world.ok(World.thread, .delete(2, 30))
        world.ok(World.thread, .apply(2, [item(5)]))
        world.ok(World.thread, .commitWrite(2, withoutNotifying: [], fate: .success))
        #expect(world.ok(World.main, .refresh(1)) == .bool(true))
        #expect(world.ok(World.main, .iteratorNext(1, as: 21)) == .handle(21))
        // The iterating realm writes inside the loop: deletes 2, adds 0.
        world.ok(World.main, .beginWrite(1))
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 31))
        world.ok(World.main, .delete(1, 31))
        world.ok(World.main, .apply(1, [item(0)]))
        world.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(world.ok(World.main, .iteratorNext(1, as: 22)) == .handle(22))
        #expect(world.ok(World.main, .iteratorNext(1, as: 23)) == .handle(23))
        #expect(world.ok(World.main, .iteratorNext(1, as: 24)) == .handle(nil))
        // The original elements, in the original order.
        let yielded = [20, 21, 22, 23].map { world.state.handles[HandleID($0)]?.target }
        #expect(yielded == ids.map { HandleTarget.object($0) })
        // Deleted meanwhile: still yielded, reporting invalidated.
        #expect(world.ok(World.main, .isInvalidated(20)) == .bool(false))
        #expect(world.ok(World.main, .isInvalidated(21)) == .bool(true))
        #expect(world.ok(World.main, .isInvalidated(22)) == .bool(true))
        #expect(world.ok(World.main, .isInvalidated(23)) == .bool(false))
        #expect(reading(world.ok(World.main, .read(23)))?.primaryKey == 4)
        #expect(keys(world.ok(World.main, .read(10))) == [0, 1, 4, 5])
    }

    @Test("Spec V16: after invalidate() the iterator's next request is rejected, outside or inside a write")
    func invalidateDuringEnumeration() {
        var world = World()
        world.open(World.main, 1)
        world.write(World.main, 1, [item(1), item(2), item(3)])
        // Outside a write.
        world.ok(World.main, .objects(1, .all("Item"), as: 10))
        world.ok(World.main, .iterate(10, as: 1))
        #expect(world.ok(World.main, .iteratorNext(1, as: 20)) == .handle(20))
        world.ok(World.main, .invalidate(1))
        let error = world.fails(World.main, .iteratorNext(1, as: 21))
        #expect(error == .iteratorInvalidated)
        #expect(says(error, "Collection is no longer valid"))
        #expect(world.items(World.main, 1, handle: 11) == [1, 2, 3])  // a new read...
        #expect(world.fails(World.main, .iteratorNext(1, as: 21)) == .iteratorInvalidated)  // ...no
        // Inside a write, iteration begun inside it.
        world.ok(World.main, .beginWrite(1))
        world.ok(World.main, .objects(1, .all("Item"), as: 12))
        world.ok(World.main, .iterate(12, as: 2))
        #expect(world.ok(World.main, .iteratorNext(2, as: 22)) == .handle(22))
        world.ok(World.main, .invalidate(1))
        #expect(world.ok(World.main, .isInWriteTransaction(1)) == .bool(false))
        #expect(says(world.fails(World.main, .iteratorNext(2, as: 23)), "Collection is no longer valid"))
        // Iteration begun before a write, invalidated inside it.
        world.ok(World.main, .objects(1, .all("Item"), as: 13))
        world.ok(World.main, .iterate(13, as: 3))
        world.ok(World.main, .beginWrite(1))
        #expect(world.ok(World.main, .iteratorNext(3, as: 24)) == .handle(24))
        world.ok(World.main, .invalidate(1))
        #expect(says(world.fails(World.main, .iteratorNext(3, as: 25)), "Collection is no longer valid"))
    }

    @Test("Spec V17: asyncRefresh() returns false at the newest version and true once it moved to the newest")
    func asyncRefreshMovesToTheNewest() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.main, 1, handle: 10) == [])
        let idle = world.run(World.main, .asyncRefresh(1))
        #expect(idle.result == .success(.bool(false)))
        #expect(idle.events.isEmpty)
        world.write(World.thread, 2, [item(1)])  // v2
        world.write(World.thread, 2, [item(2)])  // v3
        let moved = world.run(World.main, .asyncRefresh(1))
        #expect(moved.result == .success(.bool(true)))
        #expect(moves(of: 1, in: moved.events) == [Version(3)])
        #expect(keys(world.ok(World.main, .read(10))) == [1, 2])
        // With autorefresh off and an observer.
        world.ok(World.main, .setAutorefresh(1, false))
        world.ok(World.main, .observeRealm(1, action: .none, as: 20))
        world.write(World.thread, 2, [item(3)])  // v4
        let observed = world.run(World.main, .asyncRefresh(1))
        #expect(observed.result == .success(.bool(true)))
        #expect(observed.events == [.moved(1, to: Version(4)), .didChange(20)])
        #expect(world.ok(World.main, .asyncRefresh(1)) == .bool(false))
        // On an actor.
        world.open(World.actor, 3)
        #expect(world.items(World.actor, 3, handle: 11) == [1, 2, 3])
        world.write(World.main, 1, [item(4)])  // v5
        #expect(world.ok(World.actor, .asyncRefresh(3)) == .bool(true))
        #expect(world.readVersion(3) == Version(5))
    }

    @Test("Spec V17: asyncRefresh() from a cancelled task returns false and does not move the realm")
    func asyncRefreshInACancelledTaskDoesNotMove() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.main, 1, handle: 10) == [])
        let before = world.readVersion(1)
        world.write(World.thread, 2, [item(1)])
        let cancelled = world.run(World.main, .asyncRefreshInCancelledTask(1))
        #expect(cancelled.result == .success(.bool(false)))
        #expect(cancelled.events.isEmpty)
        #expect(world.readVersion(1) == before)
        // Spec C12 still comes first.
        #expect(
            says(
                world.fails(World.thread, .asyncRefreshInCancelledTask(2)),
                "asyncRefresh() can only be called on main thread or actor-isolated Realms"))
        #expect(world.ok(World.main, .asyncRefresh(1)) == .bool(true))
        #expect(world.readVersion(1) != before)
        #expect(keys(world.ok(World.main, .read(10))) == [1])
    }

    @Test("Spec V18: opening and reading while another realm holds the write lock never waits")
    func readersNeverWaitForTheWriter() {
        var world = World()
        world.open(World.thread, 2)
        world.write(World.thread, 2, [item(1)])  // v2
        world.ok(World.thread, .beginWrite(2))
        world.ok(World.thread, .apply(2, [item(9)]))
        // Same process.
        #expect(
            world.run(World.main, .open(World.file, confinement: .callingContext, as: 1)).result
                == .success(.realm(1)))
        let read = world.run(World.main, .objects(1, .all("Item"), as: 10))
        #expect(read.result == .success(.handle(10)))
        #expect(keys(world.ok(World.main, .read(10))) == [1])
        #expect(world.readVersion(1) == Version(2))
        // Another process.
        #expect(
            world.run(World.otherProcess, .open(World.file, confinement: .callingContext, as: 3))
                .result == .success(.realm(3)))
        #expect(world.items(World.otherProcess, 3, handle: 11) == [1])
        // Only writers wait.
        #expect(world.run(World.main, .beginWrite(1)).result == .blocked)
        world.ok(World.thread, .commitWrite(2, withoutNotifying: [], fate: .success))
        #expect(world.ok(World.main, .refresh(1)) == .bool(true))
        #expect(keys(world.ok(World.main, .read(10))) == [1, 9])
    }

    // MARK: - C: thread confinement

    @Test("Spec C1: one cached instance per context and configuration")
    func oneCachedInstancePerContextAndConfiguration() {
        var world = World()
        let first = world.open(World.main, 1)
        let again = world.open(World.main, 2)
        let equal = world.open(World.main, 3, Configuration(location: .path("/data/a.realm")))
        let otherFile = world.open(World.main, 4, World.otherFile)
        let otherContext = world.open(World.thread, 5)
        #expect(first == 1)
        #expect(again == first && equal == first)
        #expect(otherFile == 4 && otherFile != first)
        #expect(otherContext == 5 && otherContext != first)
        #expect(world.state.realms[2] == nil && world.state.realms[3] == nil)
        #expect(world.state.realms[1]?.holders == 3)
    }

    @Test("Spec C2: an object's realm is the instance that created or fetched it")
    func anObjectsRealmIsItsCreatingInstance() {
        var world = World()
        world.open(World.main, 1)
        world.ok(World.main, .beginWrite(1))
        world.ok(World.main, .create(1, type: "Item", primaryKey: 1, value: 1, update: .error, as: 10))
        #expect(world.ok(World.main, .realmOf(10)) == .realm(1))
        world.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(world.ok(World.main, .realmOf(10)) == .realm(1))
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 11))
        #expect(world.ok(World.main, .realmOf(11)) == .realm(1))
        // Another context's Realm() is another instance, and so is its object's realm.
        #expect(world.open(World.thread, 2) == 2)
        world.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 1, as: 12))
        #expect(world.ok(World.thread, .realmOf(12)) == .realm(2))
        #expect(world.fails(World.thread, .realmOf(10)) == .wrongThread)
    }

    @Test("Spec C3: Realm(queue:) is cached per serial queue and differs from the queue's thread realm")
    func queueConfinedInstances() {
        var world = World()
        let onQueue = Operation.open(World.file, confinement: .queue(World.queue), as: 1)
        #expect(world.ok(World.queue, onQueue) == .realm(1))
        #expect(
            world.ok(World.queue, .open(World.file, confinement: .queue(World.queue), as: 2))
                == .realm(1))
        #expect(
            world.ok(
                World.secondQueue,
                .open(
                    World.file, confinement: .queue(World.secondQueue),
                    as: 3)) == .realm(3))
        // Realm(queue: .main) on main is main's Realm().
        #expect(world.open(World.main, 4) == 4)
        #expect(
            world.ok(World.main, .open(World.file, confinement: .queue(World.main), as: 5))
                == .realm(4))
        // Inside a block on q: Realm() is another instance; Realm(queue: q2) is rejected.
        #expect(world.open(World.queue, 6) == 6)
        let error = world.fails(
            World.queue,
            .open(
                World.file, confinement: .queue(World.secondQueue),
                as: 7))
        #expect(error == .incorrectQueue)
        #expect(says(error, "Realm opened from incorrect dispatch queue."))
        #expect(world.state.realms[7] == nil)
        // Both q instances work, each in its own right.
        world.write(World.queue, 1, [item(1)])
        #expect(world.items(World.queue, 6, handle: 10) == [1])
    }

    @Test("Spec C4: Realm(queue:) must run on its serial queue")
    func queueValidation() {
        var world = World()
        let offQueue = world.fails(World.main, .open(World.file, confinement: .queue(World.queue), as: 1))
        #expect(offQueue == .incorrectQueue)
        #expect(says(offQueue, "Realm opened from incorrect dispatch queue."))
        #expect(
            world.fails(World.thread, .open(World.file, confinement: .queue(World.main), as: 1))
                == .incorrectQueue)
        let concurrent = world.fails(
            World.concurrent,
            .open(World.file, confinement: .queue(World.concurrent), as: 1))
        #expect(concurrent == .notSerialQueue(label: "cq"))
        #expect(concurrent?.message.hasPrefix("Invalid queue 'cq' (") == true)
        #expect(says(concurrent, "): Realms can only be confined to serial queues or the main queue."))
        // A global queue.
        let global: ContextID = 9
        world.ok(
            global,
            .addContext(
                global, process: 1,
                kind: .concurrentQueue(label: "com.apple.root.default-qos")))
        let onGlobal = world.fails(global, .open(World.file, confinement: .queue(global), as: 1))
        #expect(onGlobal?.message.hasPrefix("Invalid queue 'com.apple.root.default-qos' (") == true)
        #expect(says(onGlobal, "Realms can only be confined to serial queues or the main queue."))
        #expect(world.state.realms.isEmpty)
        #expect(
            world.ok(World.main, .open(World.file, confinement: .queue(World.main), as: 1))
                == .realm(1))
    }

    @Test("Spec C5: a managed object is checked on every access; an unmanaged one is not")
    func managedObjectsAreCheckedOnEveryAccess() {
        var world = World()
        world.open(World.main, 1)
        world.write(
            World.main, 1,
            [
                item(1), item(2),
                .append(
                    ownerType: "Item", ownerKey: 1,
                    elementType: "Item", elementKey: 2),
            ])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .listOf(10, as: 11))
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 12))
        let error = world.fails(World.thread, .read(10))
        #expect(error == .wrongThread)
        #expect(says(error, wrongThreadMessage))
        world.ok(World.main, .beginWrite(1))
        let before = world.state
        for context in [World.thread, World.plainThread, World.queue, World.actor] {
            #expect(world.fails(context, .read(10)) == .wrongThread)
            #expect(world.fails(context, .setValue(10, 5)) == .wrongThread)
            #expect(world.fails(context, .listOf(10, as: 13)) == .wrongThread)
            #expect(world.fails(context, .append(list: 11, element: 12)) == .wrongThread)
            #expect(world.fails(context, .removeFromList(11, at: 0)) == .wrongThread)
            #expect(world.fails(context, .setMapValue(10, key: "k", element: 12)) == .wrongThread)
        }
        #expect(world.state == before)
        world.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(reading(world.ok(World.main, .read(10)))?.value == 1)
        #expect(reading(world.ok(World.main, .read(10)))?.listKeys == [2])
        // An unmanaged object is a plain value, usable anywhere.
        world.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 7, value: 1, as: 20))
        #expect(reading(world.ok(World.thread, .read(20)))?.value == 1)
        world.ok(World.plainThread, .setValue(20, 9))
        #expect(reading(world.ok(World.actor, .read(20)))?.value == 9)
        #expect(reading(world.ok(World.main, .read(20)))?.value == 9)
    }

    @Test("Spec C6: every member of a live collection is checked")
    func collectionsAreCheckedOnEveryCall() {
        var world = World()
        world.open(World.main, 1)
        world.write(
            World.main, 1,
            [
                item(1), item(2),
                .append(ownerType: "Item", ownerKey: 1, elementType: "Item", elementKey: 2),
                .setMapValue(ownerType: "Item", ownerKey: 1, key: "k", elementType: "Item", elementKey: 2),
            ])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 9))
        guard let owner = reading(world.ok(World.main, .read(10)))?.id,
            let target = reading(world.ok(World.main, .read(9)))?.id
        else {
            Issue.record("objects missing")
            return
        }
        world.ok(World.main, .objects(1, .all("Item"), as: 11))  // Results
        world.ok(World.main, .listOf(10, as: 12))  // List
        world.ok(
            World.main,
            .objects(
                1, Query(source: .table("Item"), minimumValue: 2, sort: .value),
                as: 13))  // filtered, sorted Results
        world.ok(World.main, .objects(1, Query(source: .mapValues(owner: owner)), as: 14))  // Map
        world.ok(
            World.main,
            .objects(
                1, Query(source: .linkingObjects(target: target, ownerType: "Item")),
                as: 15))  // LinkingObjects
        world.ok(World.main, .iterate(11, as: 1))
        let before = world.state
        for handle: HandleID in [11, 12, 13, 14, 15] {
            for context in [World.thread, World.plainThread, World.queue, World.actor] {
                let error = world.fails(context, .read(handle))
                #expect(error == .wrongThread)
                #expect(says(error, wrongThreadMessage))
                #expect(world.fails(context, .isInvalidated(handle)) == .wrongThread)
                #expect(world.fails(context, .element(handle, at: 0, as: 30)) == .wrongThread)
                #expect(world.fails(context, .iterate(handle, as: 2)) == .wrongThread)
            }
            #expect(
                world.fails(
                    World.thread,
                    .observeCollection(
                        handle, action: .none, on: nil,
                        inCancelledTask: false, as: 20))
                    == .wrongThread)
        }
        #expect(world.fails(World.thread, .iteratorNext(1, as: 31)) == .wrongThread)
        #expect(world.state == before)
        // The owner uses them all.
        #expect(keys(world.ok(World.main, .read(11))) == [1, 2])
        #expect(keys(world.ok(World.main, .read(12))) == [2])
        #expect(keys(world.ok(World.main, .read(13))) == [2])
        #expect(keys(world.ok(World.main, .read(14))) == [2])
        #expect(keys(world.ok(World.main, .read(15))) == [1])
    }

    @Test("Spec C7: freeze() of a live object or collection is checked")
    func freezeIsChecked() {
        var world = World()
        world.open(World.main, 1)
        world.write(
            World.main, 1,
            [
                item(1), item(2),
                .append(
                    ownerType: "Item", ownerKey: 1,
                    elementType: "Item", elementKey: 2),
            ])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .objects(1, .all("Item"), as: 11))
        world.ok(World.main, .listOf(10, as: 12))
        let before = world.state
        for handle: HandleID in [10, 11, 12] {
            for context in [World.thread, World.plainThread, World.queue, World.actor] {
                let error = world.fails(context, .freezeHandle(handle, as: 20))
                #expect(error == .wrongThread)
                #expect(says(error, wrongThreadMessage))
            }
        }
        #expect(world.fails(World.thread, .freezeRealm(1, as: 30)) == .wrongThread)
        #expect(world.state == before)
        // The owner freezes them; the frozen values then read anywhere.
        #expect(world.ok(World.main, .freezeHandle(10, as: 20)) == .handle(20))
        #expect(world.ok(World.main, .freezeHandle(11, as: 21)) == .handle(21))
        #expect(world.ok(World.main, .freezeHandle(12, as: 22)) == .handle(22))
        #expect(reading(world.ok(World.thread, .read(20)))?.isFrozen == true)
        #expect(keys(world.ok(World.thread, .read(21))) == [1, 2])
        #expect(keys(world.ok(World.thread, .read(22))) == [2])
    }

    @Test("Spec C8: every member of a live realm is checked, except configuration and release")
    func theRealmItselfIsChecked() {
        var world = World()
        world.open(World.main, 1)
        world.write(World.main, 1, [item(1)])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 2, value: 2, as: 11))
        let outsideWrite: [Operation] = [
            .refresh(1), .asyncRefresh(1), .setAutorefresh(1, false), .getAutorefresh(1),
            .invalidate(1), .beginWrite(1),
            .writeBlock(1, [item(5)], ending: .commit, withoutNotifying: [], fate: .success),
            .objects(1, .all("Item"), as: 50),
            .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 51), .isEmpty(1),
            .isInWriteTransaction(1), .freezeRealm(1, as: 52), .thawRealm(1, as: 53), .close(1),
            .observeRealm(1, action: .none, as: 54), .writeAsync(1, [item(6)], as: 1),
            .asyncWrite(
                1, [item(7)], ending: .commit(allowGrouping: false), taskCancelled: false,
                as: 2),
            .isPerformingAsynchronousWriteOperations(1), .writeCopy(1, toPath: "/data/copy.realm"),
        ]
        let contexts = [World.thread, World.plainThread, World.queue, World.actor]
        var before = world.state
        for operation in outsideWrite {
            for context in contexts {
                let error = world.fails(context, operation)
                #expect(error == .wrongThread, "\(context): \(operation)")
                #expect(says(error, wrongThreadMessage))
            }
        }
        #expect(world.state == before)
        // Inside the owner's write.
        world.ok(World.main, .beginWrite(1))
        let insideWrite: [Operation] = [
            .commitWrite(1, withoutNotifying: [], fate: .success), .cancelWrite(1),
            .apply(1, [item(8)]),
            .create(1, type: "Item", primaryKey: 9, value: 9, update: .error, as: 55),
            .add(1, 11, update: .error), .delete(1, 10), .deleteAll(1),
            .commitAsyncWrite(1, allowGrouping: false, as: 3), .cancelAsyncWrite(1, 1),
        ]
        before = world.state
        for operation in insideWrite {
            for context in contexts {
                #expect(world.fails(context, operation) == .wrongThread, "\(context): \(operation)")
            }
        }
        #expect(world.state == before)
        #expect(world.ok(World.main, .isInWriteTransaction(1)) == .bool(true))
        world.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        #expect(world.newest() == Version(3))
        // configuration and release work from any context.
        for context in contexts {
            #expect(world.ok(context, .readConfiguration(1)) == .configuration(World.file))
        }
        world.ok(World.plainThread, .release(1))
        // Spec C1: the accessors made through the realm still hold it; it ends with the last.
        #expect(world.state.realms[1]?.isClosed == false)
        for handle in world.state.handles.filter({ $0.value.realm == 1 }).keys.sorted() {
            world.ok(World.plainThread, .releaseHandle(handle))
        }
        #expect(world.state.realms[1]?.isClosed == true)
        #expect(world.ok(World.thread, .readConfiguration(1)) == .configuration(World.file))
    }

    @Test("Spec C9: one configuration opens realms in several contexts that refresh and write normally")
    func configurationsCrossContexts() {
        var world = World()
        world.open(World.main, 1)
        guard case .configuration(let configuration) = world.ok(World.thread, .readConfiguration(1))
        else {
            Issue.record("no configuration")
            return
        }
        #expect(configuration == World.file)
        #expect(
            world.ok(World.queue, .open(configuration, confinement: .queue(World.queue), as: 2))
                == .realm(2))
        #expect(
            world.ok(
                World.secondQueue,
                .open(
                    configuration, confinement: .queue(World.secondQueue),
                    as: 3)) == .realm(3))
        #expect(world.open(World.thread, 4, configuration) == 4)
        world.write(World.queue, 2, [item(1)])
        world.write(World.secondQueue, 3, [item(2)])
        world.write(World.thread, 4, [item(3)])
        #expect(world.ok(World.queue, .refresh(2)) == .bool(true))
        #expect(world.items(World.queue, 2, handle: 10) == [1, 2, 3])
        #expect(world.ok(World.secondQueue, .refresh(3)) == .bool(true))
        #expect(world.items(World.secondQueue, 3, handle: 11) == [1, 2, 3])
        #expect(world.items(World.thread, 4, handle: 12) == [1, 2, 3])
        #expect(world.items(World.main, 1, handle: 13) == [1, 2, 3])
    }

    @Test("Spec C10: frozen realms, objects and collections are usable from any context, interleaved")
    func frozenValuesCrossContexts() {
        var world = World()
        world.open(World.main, 1)
        world.write(World.main, 1, [item(1), item(2)])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .objects(1, .all("Item"), as: 11))
        world.ok(World.main, .freezeRealm(1, as: 20))
        world.ok(World.main, .freezeHandle(10, as: 12))
        world.ok(World.main, .freezeHandle(11, as: 13))
        let contexts = [
            World.thread, World.plainThread, World.queue, World.concurrent, World.actor,
            World.secondQueue,
        ]
        for (offset, context) in contexts.enumerated() {
            let frozen = reading(world.ok(context, .read(12)))
            #expect(frozen?.value == 1 && frozen?.isFrozen == true)
            #expect(keys(world.ok(context, .read(13))) == [1, 2])
            #expect(world.ok(context, .isInvalidated(12)) == .bool(false))
            #expect(world.items(context, 20, handle: HandleID(100 + offset)) == [1, 2])
            #expect(world.ok(context, .refresh(20)) == .bool(false))
        }
        // Iterations from two contexts, interleaved.
        world.ok(World.thread, .iterate(13, as: 1))
        world.ok(World.queue, .iterate(13, as: 2))
        #expect(world.ok(World.thread, .iteratorNext(1, as: 30)) == .handle(30))
        #expect(world.ok(World.queue, .iteratorNext(2, as: 31)) == .handle(31))
        #expect(world.ok(World.queue, .iteratorNext(2, as: 32)) == .handle(32))
        #expect(world.ok(World.thread, .iteratorNext(1, as: 33)) == .handle(33))
        #expect(reading(world.ok(World.actor, .read(33)))?.primaryKey == 2)
        // Later commits do not change them.
        world.write(World.main, 1, [item(3), .setValue(type: "Item", primaryKey: 1, value: 5)])
        #expect(reading(world.ok(World.thread, .read(12)))?.value == 1)
        #expect(keys(world.ok(World.queue, .read(13))) == [1, 2])
        // The live originals stay confined.
        #expect(world.fails(World.thread, .read(10)) == .wrongThread)
        #expect(world.fails(World.thread, .read(11)) == .wrongThread)
        #expect(world.fails(World.thread, .refresh(1)) == .wrongThread)
    }

    @Test("Spec C10: thread-safe references, @ThreadSafe cells and configurations cross contexts")
    func referencesAndConfigurationsCrossContexts() {
        var world = World()
        world.open(World.main, 1)
        world.write(World.main, 1, [item(1), item(2)])
        world.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        world.ok(World.main, .objects(1, .all("Item"), as: 11))
        world.ok(World.main, .makeReference(10, as: 1))
        world.ok(World.main, .makeReference(11, as: 2))
        world.open(World.thread, 2)
        world.open(World.queue, 3)
        world.open(World.actor, 4)
        #expect(world.ok(World.thread, .resolve(1, in: 2, as: 20)) == .handle(20))
        #expect(reading(world.ok(World.thread, .read(20)))?.primaryKey == 1)
        #expect(world.ok(World.queue, .resolve(2, in: 3, as: 21)) == .handle(21))
        #expect(keys(world.ok(World.queue, .read(21))) == [1, 2])
        world.ok(World.main, .assignThreadSafe(1, 10))
        #expect(world.ok(World.actor, .readThreadSafe(1, in: 4, as: 22)) == .handle(22))
        #expect(reading(world.ok(World.actor, .read(22)))?.primaryKey == 1)
        #expect(world.ok(World.thread, .readThreadSafe(1, in: 2, as: 23)) == .handle(23))
        #expect(world.ok(World.plainThread, .readConfiguration(1)) == .configuration(World.file))
        // Each resolved accessor belongs to its own context.
        #expect(world.fails(World.main, .read(20)) == .wrongThread)
        #expect(world.fails(World.thread, .read(22)) == .wrongThread)
    }

    @Test("Spec C10: read-only realms are confined per context; closing one leaves the others readable")
    func readOnlyRealmsAreConfined() {
        var world = World()
        world.open(World.main, 1)
        world.write(World.main, 1, [item(1)])
        world.ok(World.main, .release(1))
        let readOnly = Configuration(location: World.file.location, readOnly: true)
        #expect(world.open(World.thread, 2, readOnly) == 2)
        #expect(world.open(World.queue, 3, readOnly) == 3)
        #expect(world.open(World.actor, 4, readOnly) == 4)
        #expect(world.items(World.thread, 2, handle: 10) == [1])
        #expect(world.items(World.queue, 3, handle: 11) == [1])
        #expect(world.items(World.actor, 4, handle: 12) == [1])
        #expect(world.fails(World.thread, .read(11)) == .wrongThread)
        #expect(world.fails(World.queue, .objects(4, .all("Item"), as: 13)) == .wrongThread)
        world.ok(World.queue, .close(3))
        #expect(world.items(World.thread, 2, handle: 14) == [1])
        #expect(world.items(World.actor, 4, handle: 15) == [1])
    }

    @Test("Spec C11: observers need a scheduler")
    func observersNeedAScheduler() {
        var world = World()
        world.open(World.plainThread, 1)
        world.ok(World.plainThread, .objects(1, .all("Item"), as: 10))
        world.write(World.plainThread, 1, [item(1)])
        world.ok(World.plainThread, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 11))
        let before = world.state
        let error = world.fails(World.plainThread, .observeRealm(1, action: .none, as: 20))
        #expect(error == .noRunLoop)
        #expect(says(error, "Can only add notification blocks from within runloops."))
        #expect(
            world.fails(
                World.plainThread,
                .observeCollection(
                    10, action: .none, on: nil,
                    inCancelledTask: false, as: 21))
                == .noRunLoop)
        #expect(world.fails(World.plainThread, .observeObject(11, keyPaths: nil, as: 22)) == .noRunLoop)
        #expect(world.state == before)
        // Inside a thread's loop.
        world.open(World.thread, 2)
        world.ok(World.thread, .objects(2, .all("Item"), as: 12))
        world.ok(World.thread, .observeRealm(2, action: .none, as: 23))
        world.ok(
            World.thread,
            .observeCollection(
                12, action: .none, on: nil, inCancelledTask: false,
                as: 24))
        // From a block on a queue-confined realm's queue.
        #expect(
            world.ok(World.queue, .open(World.file, confinement: .queue(World.queue), as: 3))
                == .realm(3))
        world.ok(World.queue, .objects(3, .all("Item"), as: 13))
        world.ok(World.queue, .observeRealm(3, action: .none, as: 25))
        world.ok(
            World.queue,
            .observeCollection(
                13, action: .none, on: nil, inCancelledTask: false,
                as: 26))
        world.ok(World.queue, .turnLoop)
        #expect(world.events(of: 26).count == 1)
        world.open(World.main, 4)
        world.write(World.main, 4, [item(2)])
        world.ok(World.queue, .turnLoop)
        #expect(world.events(of: 25) == [.didChange(25)])
    }

    @Test("Spec C12: asyncRefresh() and asyncWrite() need the main thread or an actor")
    func asyncCallsNeedMainOrAnActor() {
        var world = World()
        world.open(World.thread, 1)
        world.open(World.plainThread, 2)
        #expect(
            world.ok(World.queue, .open(World.file, confinement: .queue(World.queue), as: 3))
                == .realm(3))
        let elsewhere: [(ContextID, RealmID)] = [
            (World.thread, 1), (World.plainThread, 2),
            (World.queue, 3),
        ]
        let before = world.state
        for (context, realm) in elsewhere {
            let refresh = world.fails(context, .asyncRefresh(realm))
            #expect(refresh == .asyncRefreshContext)
            #expect(
                says(
                    refresh,
                    "asyncRefresh() can only be called on main thread or actor-isolated Realms"))
            let write = world.fails(
                context,
                .asyncWrite(
                    realm, [item(1)],
                    ending: .commit(allowGrouping: false),
                    taskCancelled: false, as: 1))
            #expect(write == .asyncWriteContext)
            #expect(says(write, "asyncWrite() can only be called on main thread or actor-isolated Realms"))
        }
        #expect(world.state == before)
        // The main thread and an actor.
        world.open(World.main, 4)
        world.open(World.actor, 5)
        #expect(world.items(World.main, 4, handle: 10) == [])
        #expect(world.ok(World.main, .asyncRefresh(4)) == .bool(false))
        world.ok(
            World.main,
            .asyncWrite(
                4, [item(1)], ending: .commit(allowGrouping: false),
                taskCancelled: false, as: 2))
        #expect(world.run(World.main, .turnLoop).events.contains(.asyncBlockStarted(2)))
        #expect(world.items(World.actor, 5, handle: 11) == [1])
        world.ok(
            World.actor,
            .asyncWrite(
                5, [item(2)], ending: .commit(allowGrouping: false),
                taskCancelled: false, as: 3))
        #expect(world.run(World.actor, .turnLoop).events.contains(.asyncBlockStarted(3)))
        #expect(world.ok(World.main, .asyncRefresh(4)) == .bool(true))
        #expect(keys(world.ok(World.main, .read(10))) == [1, 2])
    }

    @Test("Spec C13: notification tokens can be invalidated from any thread, also inside callbacks")
    func tokensAreNotConfined() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        world.open(World.otherProcess, 3)
        #expect(world.items(World.main, 1, handle: 10) == [])
        #expect(world.items(World.thread, 2, handle: 11) == [])
        world.ok(World.main, .observeRealm(1, action: .none, as: 20))
        #expect(world.ok(World.plainThread, .invalidateToken(20)) == .bool(true))
        // Each thread's callback invalidates the other thread's token.
        world.ok(World.thread, .observeRealm(2, action: .invalidateToken(22), as: 21))
        world.ok(World.main, .observeRealm(1, action: .invalidateToken(21), as: 22))
        world.write(World.otherProcess, 3, [item(1)])
        world.ok(World.main, .turnLoop)
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 22) == [.didChange(22)])
        #expect(world.events(of: 21).isEmpty)  // invalidated before its callback began
        world.write(World.otherProcess, 3, [item(2)])
        world.ok(World.main, .turnLoop)
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 20).isEmpty)
        #expect(world.events(of: 21).isEmpty)
        #expect(world.events(of: 22) == [.didChange(22), .didChange(22)])
        // The remaining token, invalidated from yet another thread.
        #expect(world.ok(World.queue, .invalidateToken(22)) == .bool(true))
        world.write(World.otherProcess, 3, [item(3)])
        world.ok(World.main, .turnLoop)
        #expect(world.events(of: 22).count == 2)
        #expect(world.readVersion(1) == Version(4))
    }

    @Test("Spec C14: a context that never turns its loop does not hold up other contexts' notifications")
    func aBlockedContextDoesNotHoldUpOthers() {
        var world = World()
        world.open(World.thread, 1)
        world.open(World.main, 2)
        world.ok(World.queue, .open(World.file, confinement: .queue(World.queue), as: 3))
        world.open(World.otherProcess, 4)
        world.open(World.actor, 5)
        world.ok(World.thread, .objects(1, .all("Item"), as: 10))
        world.ok(World.main, .objects(2, .all("Item"), as: 11))
        world.ok(World.thread, .observeRealm(1, action: .none, as: 20))
        world.ok(
            World.thread,
            .observeCollection(
                10, action: .none, on: nil, inCancelledTask: false,
                as: 21))
        world.ok(World.thread, .turnLoop)
        world.ok(World.main, .observeRealm(2, action: .none, as: 22))
        world.ok(
            World.main,
            .observeCollection(
                11, action: .none, on: nil, inCancelledTask: false,
                as: 23))
        world.ok(World.main, .turnLoop)
        #expect(world.items(World.queue, 3, handle: 12) == [])
        world.ok(World.queue, .observeRealm(3, action: .none, as: 24))
        #expect(world.items(World.otherProcess, 4, handle: 13) == [])
        world.ok(World.otherProcess, .observeRealm(4, action: .none, as: 25))
        // The thread now blocks; a commit follows.
        world.write(World.actor, 5, [item(1)])
        world.ok(World.main, .turnLoop)
        world.ok(World.queue, .turnLoop)
        world.ok(World.otherProcess, .turnLoop)
        #expect(world.events(of: 22) == [.didChange(22)])
        #expect(world.events(of: 23).count == 2)  // initial, then the update
        #expect(world.events(of: 24) == [.didChange(24)])
        #expect(world.events(of: 25) == [.didChange(25)])
        #expect(world.events(of: 20).isEmpty)
        #expect(world.events(of: 21).count == 1)  // the initial callback only
        #expect(world.readVersion(1) == Version(1))
        // Its own observers get theirs once it turns.
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 20) == [.didChange(20)])
        #expect(world.events(of: 21).count == 2)
    }

    @Test("Spec C15: an actor-confined realm is used from its actor only, and notifies on it")
    func actorConfinedRealms() {
        var world = World()
        #expect(world.open(World.actor, 1) == 1)
        world.open(World.main, 2)
        // Every use from the actor succeeds.
        world.write(World.actor, 1, [item(1)])
        #expect(world.items(World.actor, 1, handle: 10) == [1])
        world.ok(World.actor, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 11))
        #expect(world.ok(World.actor, .refresh(1)) == .bool(false))
        #expect(world.ok(World.actor, .asyncRefresh(1)) == .bool(false))
        world.ok(World.actor, .observeRealm(1, action: .none, as: 20))
        world.ok(World.actor, .freezeHandle(11, as: 12))
        // Every use from elsewhere is rejected.
        let before = world.state
        for context in [World.main, World.thread, World.queue, World.plainThread] {
            #expect(world.fails(context, .read(11)) == .wrongThread)
            #expect(world.fails(context, .read(10)) == .wrongThread)
            #expect(world.fails(context, .refresh(1)) == .wrongThread)
            #expect(world.fails(context, .beginWrite(1)) == .wrongThread)
            #expect(world.fails(context, .freezeHandle(11, as: 13)) == .wrongThread)
            #expect(world.fails(context, .observeRealm(1, action: .none, as: 21)) == .wrongThread)
        }
        #expect(world.state == before)
        // Notifications run on the actor.
        world.write(World.main, 2, [item(2)])
        world.ok(World.main, .turnLoop)
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 20).isEmpty)
        world.ok(World.actor, .turnLoop)
        #expect(world.events(of: 20) == [.didChange(20)])
        // Async writes run, and complete, on the actor.
        world.ok(
            World.actor,
            .asyncWrite(
                1, [item(3)], ending: .commit(allowGrouping: false),
                taskCancelled: false, as: 1))
        #expect(!world.run(World.main, .turnLoop).events.contains(.asyncBlockStarted(1)))
        let started = world.run(World.actor, .turnLoop)
        #expect(started.events.contains(.asyncBlockStarted(1)))
        #expect(started.events.contains(.asyncCommitted(1, Version(4))))
        world.ok(World.actor, .syncAsyncGroup(1, fails: false))
        #expect(!world.run(World.main, .turnLoop).events.contains(.asyncCompleted(1, nil)))
        #expect(world.run(World.actor, .turnLoop).events.contains(.asyncCompleted(1, nil)))
    }

    @Test("Spec V14: invalidate() keeps the realm's observers")
    func invalidateKeepsObservers() {
        var world = World()
        world.open(World.main, 1)
        world.open(World.thread, 2)
        #expect(world.items(World.thread, 2, handle: 10) == [])
        world.ok(World.thread, .observeRealm(2, action: .none, as: 20))
        world.ok(World.thread, .invalidate(2))
        #expect(world.state.observers[20]?.isActive == true)
        world.write(World.main, 1, [item(1)])
        #expect(world.events(of: 20).isEmpty)  // not inside the committer's call
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 20) == [.didChange(20)])
        #expect(world.readVersion(2) == nil)  // notified, still without a read
        world.write(World.main, 1, [item(2)])
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 20) == [.didChange(20), .didChange(20)])
        // A read after invalidate() starts at the newest version: nothing more is owed.
        #expect(world.items(World.thread, 2, handle: 11) == [1, 2])
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 20).count == 2)
        // With autorefresh off the invalidated realm is told to refresh instead.
        world.ok(World.thread, .setAutorefresh(2, false))
        world.ok(World.thread, .invalidate(2))
        world.write(World.main, 1, [item(3)])
        world.ok(World.thread, .turnLoop)
        #expect(world.events(of: 20) == [.didChange(20), .didChange(20), .refreshRequired(20)])
        #expect(world.items(World.thread, 2, handle: 12) == [1, 2, 3])
    }
}
