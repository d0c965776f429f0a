import Testing

@testable import StrataModel

// Unit tests of the model rules the harness findings settled: object identities are never
// reused (Spec W12, with W5, T5, F9, F11), frozen realms are shared per process and version
// (F6, W11), a List append refuses other realms' objects (W14, W12), and a resolve after
// invalidate() starts at the newest version (T4, V13).

private func idCommit(_ realm: RealmID) -> Operation {
    .commitWrite(realm, withoutNotifying: [], fate: .success)
}

private func idCreate(_ realm: RealmID, _ key: Int, _ value: Int?, as handle: HandleID) -> Operation {
    .create(realm, type: "Item", primaryKey: key, value: value, update: .error, as: handle)
}

@Suite struct IdentityAndSharingModelTests {
    @Test("Spec W12, W5: an object of a cancelled write stays invalid after its key is created again")
    func cancelledCreateIsNotRevived() {
        var w = World()
        w.open(World.main, 1)
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, idCreate(1, 0, 1, as: 10))
        w.ok(World.main, .cancelWrite(1))
        #expect(w.ok(World.main, .isInvalidated(10)) == .bool(true))
        // The next write creates the same primary key: another object, not the cancelled one.
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .create(1, type: "Other", primaryKey: 5, value: 5, update: .error, as: 11))
        w.ok(World.main, idCreate(1, 0, 2, as: 12))
        w.ok(World.main, idCommit(1))
        #expect(w.ok(World.main, .isInvalidated(10)) == .bool(true))
        #expect(w.fails(World.main, .read(10)) == .objectInvalidated)
        #expect(w.ok(World.main, .isInvalidated(12)) == .bool(false))
        // Identities come from the file, not from a version's data: a rollback gives none back,
        // so the object created first afterwards (Other 5) did not get the cancelled one's.
        #expect(w.state.handles[11]?.target != w.state.handles[10]?.target)
        #expect(w.state.handles[12]?.target != w.state.handles[10]?.target)
    }

    @Test("Spec W12, T5, F9: a deleted object stays deleted when its primary key is created again")
    func deletedObjectIsNotRevived() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        w.ok(World.main, .freezeHandle(10, as: 11))
        w.ok(World.main, .makeReference(10, as: 1))
        w.write(World.main, 1, [.delete(type: "Item", primaryKey: 1)])
        w.write(World.main, 1, [item(1, 7)])
        #expect(w.ok(World.main, .isInvalidated(10)) == .bool(true))
        #expect(w.ok(World.main, .thawHandle(11, as: 12)) == .handle(nil))  // Spec F9
        w.open(World.thread, 2)
        #expect(w.items(World.thread, 2, handle: 14) == [1])  // at the newest version (T4: it stays)
        #expect(w.ok(World.thread, .resolve(1, in: 2, as: 13)) == .handle(nil))  // Spec T5
    }

    @Test("Spec F11, W12: an object re-created in the write, and a new object's List, cannot be frozen")
    func recreatedObjectAndNewListCannotBeFrozen() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .delete(1, 10))
        w.ok(World.main, idCreate(1, 1, 3, as: 11))
        #expect(w.fails(World.main, .freezeHandle(11, as: 12)) == .freezeInCreatingWrite)
        w.ok(World.main, .listOf(11, as: 13))
        #expect(w.fails(World.main, .freezeHandle(13, as: 14)) == .freezeInCreatingWrite)
        w.ok(World.main, idCommit(1))
        w.ok(World.main, .freezeHandle(13, as: 15))  // committed now: it can be frozen
    }

    @Test("Spec F6, V4: an invalidated frozen realm reads nothing, but refresh() still returns false")
    func invalidatedFrozenRealmRefusesReadsOnly() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .freezeRealm(1, as: 2))
        w.ok(World.main, .invalidate(2))
        #expect(w.ok(World.main, .refresh(2)) == .bool(false))
        #expect(w.fails(World.main, .objects(2, .all("Item"), as: 10)) == .frozenRealmInvalidated)
        #expect(w.fails(World.main, idCreate(2, 2, 2, as: 11)) == .notInWrite)
        #expect(w.fails(World.main, .beginWrite(2)) == .frozenTransaction)
    }

    @Test("Spec F6: frozen realms of one version are one instance: invalidating one reaches them all")
    func frozenRealmsOfAVersionShareTheirInvalidation() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .objects(1, .all("Item"), as: 10))
        w.ok(World.main, .freezeRealm(1, as: 2))
        w.ok(World.main, .freezeHandle(10, as: 11))  // frozen at the same version
        w.ok(World.main, .invalidate(2))
        #expect(w.fails(World.main, .read(11)) == .frozenRealmInvalidated)
        #expect(w.ok(World.main, .isInvalidated(11)) == .bool(true))
        // A freeze at that version while the invalidated instance is held gives it back.
        w.ok(World.main, .freezeRealm(1, as: 3))
        #expect(w.fails(World.main, .objects(3, .all("Item"), as: 12)) == .frozenRealmInvalidated)
        // A newer version is another instance.
        w.write(World.main, 1, [item(2)])
        w.ok(World.main, .freezeRealm(1, as: 4))
        w.ok(World.main, .objects(4, .all("Item"), as: 13))
        #expect(w.ok(World.main, .read(13)) != .done)
    }

    @Test(
        "Spec W11, F6: deleting through another frozen realm of the object's version is a write outside a transaction")
    func deleteThroughASharedFrozenRealm() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .freezeRealm(1, as: 2))
        w.ok(World.main, .freezeRealm(1, as: 3))
        w.ok(World.main, .objectForPrimaryKey(3, type: "Item", primaryKey: 1, as: 10))
        #expect(w.fails(World.main, .delete(2, 10)) == .notInWrite)
        // A realm of another file is another instance.
        w.open(World.main, 5, World.otherFile)
        w.ok(World.main, .beginWrite(5))
        #expect(w.fails(World.main, .delete(5, 10)) == .deleteFromOtherRealm)
    }

    @Test("Spec W14, W12: a List links only valid objects of its own realm")
    func appendRefusesOtherRealmsAndInvalidObjects() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2), item(3)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 10))
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 11))
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 3, as: 12))
        w.ok(World.main, .freezeHandle(11, as: 13))
        w.ok(World.main, .listOf(10, as: 14))
        w.ok(World.main, .beginWrite(1))
        #expect(w.fails(World.main, .append(list: 14, element: 13)) == .addToOtherRealm)
        w.ok(World.main, .delete(1, 12))
        let deleted = w.fails(World.main, .append(list: 14, element: 12))
        #expect(deleted == .addInvalidated)
        #expect(deleted?.message.contains("deleted or invalidated") == true)
        w.ok(World.main, .append(list: 14, element: 11))
    }

    @Test("Spec T4, V13: a resolve after invalidate() starts at the newest version, not the source")
    func resolveAfterInvalidateStartsAtTheNewest() {
        var w = World()
        w.open(World.main, 1)
        w.open(World.thread, 2)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .objects(1, .all("Item"), as: 10))
        w.ok(World.main, .makeReference(10, as: 1))  // pins its source version
        let source = w.readVersion(1)
        #expect(w.items(World.thread, 2, handle: 20) == [1])
        w.write(World.thread, 2, [item(2)])
        w.ok(World.thread, .invalidate(2))
        w.ok(World.thread, .resolve(1, in: 2, as: 21))
        #expect(w.readVersion(2) == w.newest())
        #expect(w.readVersion(2) != source)
    }
}
