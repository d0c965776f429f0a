import Testing

@testable import StrataModel

// Unit tests of the reference model against Spec/freeze.md (F1 to F17), Spec/references.md
// (T1 to T11) and Spec/files.md (X1 to X18). Every test drives the model through `World`.

private func fzKeys(_ value: Value) -> [Int]? {
    guard case .elements(let readings) = value else { return nil }
    return readings.map(\.primaryKey)
}

private func fzReadings(_ value: Value) -> [ObjectReading]? {
    guard case .elements(let readings) = value else { return nil }
    return readings
}

private func fzObject(_ value: Value) -> ObjectReading? {
    guard case .object(let reading) = value else { return nil }
    return reading
}

private func fzHandle(_ value: Value) -> HandleID? {
    guard case .handle(let handle) = value else { return nil }
    return handle
}

private func fzRealm(_ value: Value) -> RealmID? {
    guard case .realm(let realm) = value else { return nil }
    return realm
}

private func fzSet(_ key: Int, _ value: Int?) -> Mutation {
    .setValue(type: "Item", primaryKey: key, value: value)
}

private func fzDelete(_ key: Int) -> Mutation { .delete(type: "Item", primaryKey: key) }

private func fzAppend(_ owner: Int, _ element: Int) -> Mutation {
    .append(ownerType: "Item", ownerKey: owner, elementType: "Item", elementKey: element)
}

private func fzMap(_ owner: Int, _ key: String, _ element: Int?) -> Mutation {
    .setMapValue(
        ownerType: "Item", ownerKey: owner, key: key, elementType: "Item",
        elementKey: element)
}

private func fzReadOnly(_ configuration: Configuration) -> Configuration {
    var copy = configuration
    copy.readOnly = true
    return copy
}

private func fzCommit(_ realm: RealmID) -> Operation {
    .commitWrite(realm, withoutNotifying: [], fate: .success)
}

private let fzLocation = World.file.location

@Suite struct FreezeReferencesFilesModelTests {

    // MARK: F: freeze and thaw

    @Test("Spec F1: isFrozen, freeze and thaw of a realm")
    func freezeAndThawOfARealm() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        #expect(w.state.realms[1]?.isFrozen == false)
        #expect(w.ok(World.main, .freezeRealm(1, as: 10)) == .realm(10))
        #expect(w.state.realms[10]?.isFrozen == true)
        #expect(w.state.realms[1]?.isFrozen == false)  // freeze leaves the realm live
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 1, as: 100))
        #expect(fzObject(w.ok(World.main, .read(100)))?.isFrozen == true)
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 101))
        #expect(fzObject(w.ok(World.main, .read(101)))?.isFrozen == false)
        // frozen.thaw() is a live realm (here the context's cached one).
        #expect(w.ok(World.main, .thawRealm(10, as: 20)) == .realm(1))
        // live.thaw() is that live realm itself.
        #expect(w.ok(World.main, .thawRealm(1, as: 21)) == .realm(1))
        #expect(w.state.realms[21] == nil)
        // Thawed in a context without an instance: a new live realm.
        #expect(w.ok(World.thread, .thawRealm(10, as: 22)) == .realm(22))
        #expect(w.state.realms[22]?.isFrozen == false)
        #expect(w.state.realms[22]?.owner == World.thread)
        // The live realm still takes writes.
        w.write(World.main, 1, [item(2)])
        #expect(w.items(World.main, 1, handle: 102) == [1, 2])
    }

    @Test("Spec F2: a frozen realm and what is read through it never change")
    func frozenRealmNeverChanges() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1), item(2, 2)])
        let atLeastTwo = Query(source: .table("Item"), minimumValue: 2)
        w.ok(World.main, .freezeRealm(1, as: 10))
        let frozenVersion = w.readVersion(10)
        #expect(frozenVersion == Version(2))
        w.ok(World.main, .objects(10, .all("Item"), as: 100))
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 1, as: 101))
        w.ok(World.main, .objects(10, atLeastTwo, as: 102))
        #expect(fzKeys(w.ok(World.main, .read(100))) == [1, 2])
        // Live notifiers registered alongside.
        w.ok(World.main, .observeRealm(1, action: .none, as: 1))
        w.ok(World.main, .objects(1, .all("Item"), as: 103))
        w.ok(World.main, .observeCollection(103, action: .none, on: nil, inCancelledTask: false, as: 2))
        w.ok(World.main, .turnLoop)
        w.write(World.main, 1, [item(3, 3), fzSet(1, 50), fzDelete(2)])
        w.write(World.main, 1, [item(4, 4)])
        w.ok(World.main, .turnLoop)
        #expect(w.events(of: 1).contains(.didChange(1)))
        #expect(w.ok(World.main, .refresh(10)) == .bool(false))
        #expect(w.readVersion(10) == frozenVersion)
        #expect(fzKeys(w.ok(World.main, .read(100))) == [1, 2])
        #expect(fzObject(w.ok(World.main, .read(101)))?.value == 1)
        #expect(fzKeys(w.ok(World.main, .read(102))) == [2])
        #expect(w.ok(World.main, .iterate(100, as: 1)) == .count(2))
        // New queries on the frozen realm evaluate against the frozen version.
        w.ok(World.main, .objects(10, atLeastTwo, as: 104))
        #expect(fzKeys(w.ok(World.main, .read(104))) == [2])
        w.ok(World.main, .objects(1, atLeastTwo, as: 105))
        #expect(fzKeys(w.ok(World.main, .read(105))) == [1, 3, 4])
        #expect(w.readVersion(10) == frozenVersion)
    }

    @Test("Spec F3: frozen realms, also reached through frozen values, take no writes")
    func frozenRealmsTakeNoWrites() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .freezeRealm(1, as: 10))
        #expect(w.fails(World.main, .beginWrite(10)) == .frozenTransaction)
        #expect(
            w.fails(
                World.main,
                .writeBlock(
                    10, [item(2)], ending: .commit, withoutNotifying: [],
                    fate: .success)) == .frozenTransaction)
        #expect(
            w.fails(
                World.main,
                .beginAsyncWrite(
                    10, [item(2)], ending: .commit(allowGrouping: false),
                    as: 1)) == .frozenTransaction)
        #expect(w.fails(World.thread, .beginWrite(10)) == .frozenTransaction)
        // frozenObj.realm!
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .freezeHandle(100, as: 101))
        let objectRealm = fzRealm(w.ok(World.main, .realmOf(101)))
        #expect(objectRealm != nil)
        if let objectRealm {
            #expect(w.state.realms[objectRealm]?.isFrozen == true)
            #expect(w.fails(World.main, .beginWrite(objectRealm)) == .frozenTransaction)
            #expect(
                w.fails(
                    World.main,
                    .writeBlock(
                        objectRealm, [item(2)], ending: .commit,
                        withoutNotifying: [], fate: .success))
                    == .frozenTransaction)
            #expect(
                w.fails(
                    World.main,
                    .beginAsyncWrite(
                        objectRealm, [item(2)],
                        ending: .commit(allowGrouping: false), as: 2))
                    == .frozenTransaction)
        }
        // frozenCollection.realm!
        w.ok(World.main, .objects(1, .all("Item"), as: 102))
        w.ok(World.main, .freezeHandle(102, as: 103))
        let collectionRealm = fzRealm(w.ok(World.main, .realmOf(103)))
        #expect(collectionRealm != nil)
        if let collectionRealm {
            #expect(w.fails(World.main, .beginWrite(collectionRealm)) == .frozenTransaction)
            #expect(
                w.fails(
                    World.main,
                    .writeBlock(
                        collectionRealm, [item(2)], ending: .commit,
                        withoutNotifying: [], fate: .success))
                    == .frozenTransaction)
        }
        // Nothing was written.
        #expect(w.newest() == Version(2))
        #expect(w.items(World.main, 1, handle: 104) == [1])
    }

    @Test("Spec F4: frozen realms, collections and objects take no observers")
    func frozenValuesTakeNoObservers() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2), fzAppend(1, 2)])
        w.ok(World.main, .freezeRealm(1, as: 10))
        #expect(w.fails(World.main, .observeRealm(10, action: .none, as: 1)) == .frozenObservation)
        w.ok(World.main, .objects(10, .all("Item"), as: 100))
        #expect(
            w.fails(
                World.main,
                .observeCollection(
                    100, action: .none, on: nil,
                    inCancelledTask: false, as: 2))
                == .frozenObservation)
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 1, as: 101))
        w.ok(World.main, .listOf(101, as: 102))
        #expect(
            w.fails(
                World.main,
                .observeCollection(
                    102, action: .none, on: nil,
                    inCancelledTask: false, as: 3))
                == .frozenObservation)
        #expect(w.fails(World.main, .observeObject(101, keyPaths: nil, as: 4)) == .frozenObservation)
        // A live object frozen afterwards.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 103))
        w.ok(World.main, .freezeHandle(103, as: 104))
        #expect(w.fails(World.main, .observeObject(104, keyPaths: ["value"], as: 5)) == .frozenObservation)
        #expect(
            ModelError.frozenObservation.message
                == "Frozen Realms do not change and do not have change notifications.")
        #expect(w.state.observers.isEmpty)
    }

    @Test("Spec F5: freezing a frozen value returns it; freezing a live object twice gives two")
    func freezingFrozenValuesReturnsThem() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2), fzAppend(1, 2)])
        #expect(w.ok(World.main, .freezeRealm(1, as: 10)) == .realm(10))
        #expect(w.ok(World.main, .freezeRealm(10, as: 11)) == .realm(10))
        #expect(w.state.realms[11] == nil)
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        #expect(w.ok(World.main, .freezeHandle(100, as: 101)) == .handle(101))
        #expect(w.ok(World.main, .freezeHandle(101, as: 102)) == .handle(101))
        #expect(w.state.handles[102] == nil)
        w.ok(World.main, .objects(1, .all("Item"), as: 103))
        #expect(w.ok(World.main, .freezeHandle(103, as: 104)) == .handle(104))
        #expect(w.ok(World.main, .freezeHandle(104, as: 105)) == .handle(104))
        w.ok(World.main, .listOf(100, as: 106))
        #expect(w.ok(World.main, .freezeHandle(106, as: 107)) == .handle(107))
        #expect(w.ok(World.main, .freezeHandle(107, as: 108)) == .handle(107))
        // A value read through a frozen realm is frozen already.
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 2, as: 109))
        #expect(w.ok(World.main, .freezeHandle(109, as: 110)) == .handle(109))
        // The same live object frozen twice: two distinct instances.
        #expect(w.ok(World.main, .freezeHandle(100, as: 111)) == .handle(111))
        #expect(w.state.handles[101] != nil && w.state.handles[111] != nil)
    }

    @Test("Spec F6: an invalidated frozen realm cannot be read")
    func invalidatedFrozenRealmCannotBeRead() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .freezeRealm(1, as: 10))
        w.ok(World.main, .objects(10, .all("Item"), as: 100))
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 1, as: 101))
        w.ok(World.main, .iterate(100, as: 1))
        w.ok(World.main, .invalidate(10))
        #expect(w.fails(World.main, .objects(10, .all("Item"), as: 102)) == .frozenRealmInvalidated)
        // An iteration's next request is a read too (Spec V16 for live realms).
        #expect(w.fails(World.main, .iteratorNext(1, as: 106)) == .frozenRealmInvalidated)
        #expect(w.fails(World.thread, .objects(10, .all("Other"), as: 103)) == .frozenRealmInvalidated)
        #expect(
            w.fails(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 1, as: 104))
                == .frozenRealmInvalidated)
        #expect(w.fails(World.main, .read(100)) == .frozenRealmInvalidated)
        #expect(w.fails(World.main, .read(101)) == .frozenRealmInvalidated)
        #expect(
            ModelError.frozenRealmInvalidated.message
                == "Cannot read from a frozen Realm which has been invalidated.")
        // The live realm is unaffected.
        #expect(w.items(World.main, 1, handle: 105) == [1])
    }

    @Test("Spec F7: thawing a realm gives the context's live instance at its own version")
    func thawingARealmGivesTheContextsInstance() {
        var w = World()
        w.open(World.main, 1)
        #expect(w.items(World.main, 1, handle: 100) == [])
        w.ok(World.main, .freezeRealm(1, as: 10))  // frozen while empty
        w.write(World.main, 1, [item(1), item(2)])
        // The cached instance of the calling context.
        #expect(w.ok(World.main, .thawRealm(10, as: 20)) == .realm(1))
        #expect(w.state.realms[20] == nil)
        #expect(w.items(World.main, 1, handle: 101) == [1, 2])
        #expect(w.items(World.main, 10, handle: 102) == [])
        // No instance in this context: one is opened; it reads the newest data, not the frozen.
        #expect(w.ok(World.thread, .thawRealm(10, as: 21)) == .realm(21))
        #expect(w.state.realms[21]?.isFrozen == false)
        #expect(w.items(World.thread, 21, handle: 103) == [1, 2])
        #expect(w.ok(World.thread, .thawRealm(10, as: 22)) == .realm(21))
        #expect(w.readVersion(10) == Version(1))
    }

    @Test("Spec F8, V2: thaw never refreshes; a thawed accessor follows its live realm")
    func thawNeverRefreshes() {
        var w = World()
        let atLeastFive = Query(source: .table("Item"), minimumValue: 5)
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])
        w.open(World.thread, 2)
        #expect(w.items(World.thread, 2, handle: 100) == [1])  // the thread reads v2
        w.write(World.main, 1, [fzSet(1, 10), item(2, 20)])  // v3
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 110))
        w.ok(World.main, .freezeHandle(110, as: 111))
        w.ok(World.main, .objects(1, atLeastFive, as: 112))
        w.ok(World.main, .freezeHandle(112, as: 113))
        #expect(fzObject(w.ok(World.main, .read(111)))?.value == 10)
        #expect(fzKeys(w.ok(World.main, .read(113))) == [1, 2])
        // Thawed on the thread, whose live realm still reads v2.
        #expect(w.ok(World.thread, .thawHandle(111, as: 120)) == .handle(120))
        #expect(w.ok(World.thread, .thawHandle(113, as: 121)) == .handle(121))
        #expect(w.readVersion(2) == Version(2))
        #expect(w.state.handles[120]?.realm == 2)
        #expect(fzObject(w.ok(World.thread, .read(120)))?.value == 1)
        #expect(fzObject(w.ok(World.thread, .read(120)))?.isFrozen == false)
        #expect(fzKeys(w.ok(World.thread, .read(121))) == [])  // the query, at v2
        // Once the live realm moves, the same accessors and new thaws read the newer data.
        w.ok(World.thread, .turnLoop)
        #expect(w.readVersion(2) == Version(3))
        #expect(fzObject(w.ok(World.thread, .read(120)))?.value == 10)
        #expect(fzKeys(w.ok(World.thread, .read(121))) == [1, 2])
        w.ok(World.thread, .thawHandle(111, as: 122))
        #expect(fzObject(w.ok(World.thread, .read(122)))?.value == 10)
    }

    @Test("Spec F8, C1: an instance opened for a thaw lives while the thawed accessor does")
    func anInstanceOpenedForAThawEndsWithItsAccessor() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .freezeHandle(100, as: 101))
        // The thread holds no instance: the thaw opens one, held by the thawed accessor only.
        #expect(w.ok(World.thread, .thawHandle(101, as: 110)) == .handle(110))
        let opened = w.state.handles[110]?.realm
        #expect(opened.map { w.state.realms[$0]?.holders } == 0)
        w.write(World.main, 1, [fzSet(1, 10)])
        #expect(fzObject(w.ok(World.thread, .read(110)))?.value == 1)  // that instance stays put
        // Dropping the accessor ends the instance; the next thaw opens one at the newest version.
        w.ok(World.thread, .releaseHandle(110))
        #expect(opened.map { w.state.realms[$0]?.isClosed } == true)
        w.ok(World.thread, .thawHandle(101, as: 111))
        #expect(fzObject(w.ok(World.thread, .read(111)))?.value == 10)
    }

    @Test("Spec F18: what is read through a frozen realm is frozen and belongs to it")
    func valuesReadThroughAFrozenRealmAreFrozen() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2), fzAppend(1, 2)])
        w.ok(World.main, .freezeRealm(1, as: 10))
        w.ok(World.main, .objects(10, .all("Item"), as: 100))
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 1, as: 101))
        w.ok(World.main, .element(100, at: 1, as: 102))
        w.ok(World.main, .listOf(101, as: 103))
        #expect(fzReadings(w.ok(World.main, .read(100)))?.allSatisfy(\.isFrozen) == true)
        #expect(fzReadings(w.ok(World.main, .read(103)))?.allSatisfy(\.isFrozen) == true)
        for handle: HandleID in [101, 102] {
            #expect(fzObject(w.ok(World.main, .read(handle)))?.isFrozen == true)
            // Its realm is the frozen realm, never a live one.
            #expect(w.ok(World.main, .realmOf(handle)) == .realm(10))
        }
        // The same reads through the live realm are live.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 104))
        #expect(fzObject(w.ok(World.main, .read(104)))?.isFrozen == false)
        #expect(w.ok(World.main, .realmOf(104)) == .realm(1))
    }

    @Test("Spec F19: thaw() of a live object, List or Results returns it, in its own context")
    func thawOfALiveValueReturnsIt() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2), fzAppend(1, 2)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .listOf(100, as: 101))
        w.ok(World.main, .objects(1, .all("Item"), as: 102))
        let before = w.state.handles.count
        for (handle, thawed): (HandleID, HandleID) in [(100, 110), (101, 111), (102, 112)] {
            #expect(w.ok(World.main, .thawHandle(handle, as: thawed)) == .handle(handle))
            #expect(w.state.handles[thawed] == nil)
            // From another context: refused as every use of a live value there is (C5, C6).
            #expect(w.fails(World.thread, .thawHandle(handle, as: thawed)) == .wrongThread)
        }
        #expect(w.state.handles.count == before)
    }

    @Test("Spec F20: the model takes no thaw in an actor's isolation, where the API uses the thread's realm")
    func thawInAnActorIsNotModelled() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .freezeHandle(100, as: 101))
        w.ok(World.main, .freezeRealm(1, as: 10))
        w.open(World.actor, 5)
        // Not the actor's realm: the model has no thread for the actor, so it refuses the step
        // instead of answering what the API does not do.
        for operation: Operation in [.thawHandle(101, as: 102), .thawRealm(10, as: 11)] {
            guard case .invalidStep? = w.fails(World.actor, operation) else {
                Issue.record("\(operation) in an actor should not be modelled")
                continue
            }
        }
        #expect(w.state.handles[102] == nil && w.state.realms[11] == nil)
        // A live value thawed in its own actor is still itself (F19).
        w.ok(World.actor, .objectForPrimaryKey(5, type: "Item", primaryKey: 1, as: 103))
        #expect(w.ok(World.actor, .thawHandle(103, as: 104)) == .handle(103))
    }

    @Test("Spec F21, F17: frozen values read on after the live realm that made them is gone")
    func frozenValuesOutliveTheLiveRealm() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1), item(2, 2)])
        w.ok(World.main, .freezeRealm(1, as: 10))
        w.ok(World.main, .objects(10, .all("Item"), as: 100))
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 101))
        w.ok(World.main, .freezeHandle(101, as: 102))
        w.ok(World.main, .releaseHandle(101))
        w.ok(World.main, .release(1))
        #expect(w.state.realms[1]?.isClosed == true)  // no live instance of the file is left
        #expect(fzKeys(w.ok(World.main, .read(100))) == [1, 2])
        #expect(fzObject(w.ok(World.main, .read(102)))?.value == 1)
        // From another context too, and after another process's commit.
        w.open(World.otherProcess, 2)
        w.write(World.otherProcess, 2, [fzDelete(1)])
        #expect(fzKeys(w.ok(World.thread, .read(100))) == [1, 2])
        #expect(fzObject(w.ok(World.thread, .read(102)))?.value == 1)
    }

    @Test("Spec F9: thawing an object missing at the live version gives nil")
    func thawingAMissingObjectGivesNil() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .freezeHandle(100, as: 101))
        w.write(World.main, 1, [fzDelete(1)])
        #expect(w.ok(World.main, .thawHandle(101, as: 102)) == .handle(nil))
        #expect(w.state.handles[102] == nil)
        w.open(World.thread, 2)
        #expect(w.ok(World.thread, .thawHandle(101, as: 103)) == .handle(nil))
        // An object created after the thawing context's read version does not exist there.
        w.open(World.plainThread, 3)
        #expect(w.items(World.plainThread, 3, handle: 104) == [2])
        w.write(World.main, 1, [item(3)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 3, as: 105))
        w.ok(World.main, .freezeHandle(105, as: 106))
        #expect(w.ok(World.plainThread, .thawHandle(106, as: 107)) == .handle(nil))
        // Still frozen and readable.
        #expect(fzObject(w.ok(World.plainThread, .read(101)))?.primaryKey == 1)
    }

    @Test("Spec F10, V1: a thawed object is live; writes through it leave the frozen one alone")
    func thawedObjectsAreLive() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .freezeHandle(100, as: 101))
        w.open(World.thread, 2)
        w.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 1, as: 102))
        #expect(w.ok(World.main, .thawHandle(101, as: 110)) == .handle(110))
        let frozen = fzObject(w.ok(World.main, .read(101)))
        let thawed = fzObject(w.ok(World.main, .read(110)))
        #expect(frozen?.isFrozen == true)
        #expect(thawed?.isFrozen == false)
        var expected = frozen
        expected?.isFrozen = false
        #expect(thawed == expected)
        #expect(w.fails(World.main, .setValue(110, 42)) == .notInWrite)
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .setValue(110, 42))
        #expect(fzObject(w.ok(World.main, .read(110)))?.value == 42)
        w.ok(World.main, fzCommit(1))
        #expect(fzObject(w.ok(World.main, .read(110)))?.value == 42)
        #expect(fzObject(w.ok(World.main, .read(100)))?.value == 42)
        #expect(fzObject(w.ok(World.main, .read(101)))?.value == 1)
        // Another context sees the write once it moves.
        #expect(fzObject(w.ok(World.thread, .read(102)))?.value == 1)
        w.ok(World.thread, .turnLoop)
        #expect(fzObject(w.ok(World.thread, .read(102)))?.value == 42)
        // Unmanaged objects cannot be thawed.
        w.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 9, value: 9, as: 120))
        #expect(w.fails(World.main, .thawHandle(120, as: 121)) == .unmanagedThaw)
        #expect(ModelError.unmanagedThaw.message == "Unmanaged objects cannot be thawed.")
    }

    @Test("Spec F11: unmanaged, deleted and just-created objects cannot be frozen")
    func whatCannotBeFrozen() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1), item(2, 2)])
        w.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 8, value: 8, as: 100))
        #expect(w.fails(World.main, .freezeHandle(100, as: 101)) == .unmanagedFreeze)
        #expect(ModelError.unmanagedFreeze.message == "Unmanaged objects cannot be frozen.")
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 102))
        w.write(World.main, 1, [fzDelete(2)])
        #expect(w.fails(World.main, .freezeHandle(102, as: 103)) == .objectInvalidated)
        #expect(ModelError.objectInvalidated.message == "Object has been deleted or invalidated.")
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .create(1, type: "Item", primaryKey: 5, value: 5, update: .error, as: 104))
        #expect(w.fails(World.main, .freezeHandle(104, as: 105)) == .freezeInCreatingWrite)
        #expect(
            ModelError.freezeInCreatingWrite.message
                == "Cannot freeze an object in the same write transaction as it was created in.")
        // A pre-existing object frozen inside a write shows the transaction's start.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 106))
        w.ok(World.main, .setValue(106, 99))
        #expect(w.ok(World.main, .freezeHandle(106, as: 107)) == .handle(107))
        #expect(fzObject(w.ok(World.main, .read(107)))?.value == 1)
        w.ok(World.main, .objects(1, .all("Item"), as: 108))
        w.ok(World.main, .freezeHandle(108, as: 109))
        #expect(fzKeys(w.ok(World.main, .read(109))) == [1])
        w.ok(World.main, fzCommit(1))
        #expect(fzObject(w.ok(World.main, .read(106)))?.value == 99)
        #expect(fzObject(w.ok(World.main, .read(107)))?.value == 1)
        #expect(w.state.handles[101] == nil && w.state.handles[103] == nil && w.state.handles[105] == nil)
    }

    @Test("Spec F12: frozen objects and their Lists are immutable")
    func frozenObjectsAreImmutable() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1), item(2, 2), fzAppend(1, 2)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .freezeHandle(100, as: 101))
        w.ok(World.main, .listOf(101, as: 102))
        #expect(w.fails(World.main, .setValue(101, 5)) == .frozenModify)
        w.ok(World.main, .beginWrite(1))
        #expect(w.fails(World.main, .setValue(101, 5)) == .frozenModify)
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 103))
        // A frozen List is never in a write: Realm's List message (W9).
        #expect(w.fails(World.main, .append(list: 102, element: 103)) == .notInWrite)
        #expect(w.fails(World.main, .removeFromList(102, at: 0)) == .notInWrite)
        // So is a frozen object's Map (V25): "Cannot modify Dictionary outside of a write transaction."
        #expect(w.fails(World.main, .setMapValue(101, key: "k", element: nil)) == .notInWrite)
        #expect(w.fails(World.main, .removeMapKey(101, key: "k")) == .notInWrite)
        w.ok(World.main, .freezeRealm(1, as: 10))
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 2, as: 104))
        #expect(w.fails(World.main, .setValue(104, 7)) == .frozenModify)
        w.ok(World.main, fzCommit(1))
        #expect(
            ModelError.frozenModify.message
                == "Attempting to modify a frozen object - call thaw on the Object instance first.")
        #expect(fzObject(w.ok(World.main, .read(101)))?.value == 1)
        #expect(fzObject(w.ok(World.main, .read(101)))?.listKeys == [2])
        #expect(fzObject(w.ok(World.main, .read(100)))?.value == 1)
    }

    @Test("Spec F13: frozen objects are equal exactly when same object at the same version")
    func frozenObjectEquality() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .freezeHandle(100, as: 101))
        w.ok(World.main, .freezeHandle(100, as: 102))
        #expect(w.ok(World.main, .frozenEqual(101, 102)) == .bool(true))
        #expect(w.ok(World.main, .frozenEqual(102, 101)) == .bool(true))
        // Through a frozen realm at the same version: the same frozen object.
        w.ok(World.main, .freezeRealm(1, as: 10))
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 1, as: 103))
        #expect(w.ok(World.main, .frozenEqual(101, 103)) == .bool(true))
        // Another object at the same version.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 104))
        w.ok(World.main, .freezeHandle(104, as: 105))
        #expect(w.ok(World.main, .frozenEqual(101, 105)) == .bool(false))
        // A frozen object never equals a live accessor.
        #expect(w.ok(World.main, .frozenEqual(101, 100)) == .bool(false))
        #expect(w.ok(World.main, .frozenEqual(100, 101)) == .bool(false))
        // Two separately fetched live accessors are distinct.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 106))
        #expect(w.ok(World.main, .frozenEqual(100, 106)) == .bool(false))
        // The same object key in another file is another object.
        w.open(World.main, 2, World.otherFile)
        w.write(World.main, 2, [item(1)])
        w.ok(World.main, .objectForPrimaryKey(2, type: "Item", primaryKey: 1, as: 107))
        w.ok(World.main, .freezeHandle(107, as: 108))
        #expect(w.ok(World.main, .frozenEqual(101, 108)) == .bool(false))
        // The same object frozen at another version, even with equal values.
        w.write(World.main, 1, [item(3)])
        w.ok(World.main, .freezeHandle(100, as: 109))
        #expect(fzObject(w.ok(World.main, .read(109))) != nil)
        #expect(w.ok(World.main, .frozenEqual(101, 109)) == .bool(false))
        w.ok(World.main, .freezeHandle(100, as: 110))
        #expect(w.ok(World.main, .frozenEqual(109, 110)) == .bool(true))
    }

    @Test("Spec F14: freezing is deep")
    func freezingIsDeep() {
        var w = World()
        w.open(World.main, 1)
        w.write(
            World.main, 1,
            [
                .create(type: "Item", primaryKey: 1, value: nil), item(2, 2), item(3, 3), fzAppend(1, 2),
                fzAppend(1, 3),
                fzMap(1, "a", 3), fzMap(1, "b", nil),
            ])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        let live = fzObject(w.ok(World.main, .read(100)))
        w.ok(World.main, .listOf(100, as: 101))
        let liveList = fzReadings(w.ok(World.main, .read(101)))
        w.ok(World.main, .freezeHandle(100, as: 110))
        let frozen = fzObject(w.ok(World.main, .read(110)))
        #expect(frozen != nil)
        #expect(frozen?.isFrozen == true)
        #expect(frozen?.value == nil)  // an optional property that is nil stays nil
        var expected = live
        expected?.isFrozen = true
        #expect(frozen == expected)
        // The List property, its elements and their links.
        w.ok(World.main, .listOf(110, as: 111))
        let frozenList = fzReadings(w.ok(World.main, .read(111)))
        #expect(frozenList?.map(\.primaryKey) == [2, 3])
        #expect(frozenList?.allSatisfy(\.isFrozen) == true)
        #expect(frozenList?.map(\.value) == liveList?.map(\.value))
        w.ok(World.main, .element(111, at: 0, as: 112))
        let element = fzObject(w.ok(World.main, .read(112)))
        #expect(element?.isFrozen == true)
        #expect(element?.primaryKey == 2 && element?.value == 2)
        // The Map property's values and the LinkingObjects, through the frozen realm.
        let frozenRealm = fzRealm(w.ok(World.main, .realmOf(110)))
        #expect(frozenRealm != nil)
        if let frozenRealm, let owner = live?.id, let target = element?.id {
            w.ok(World.main, .objects(frozenRealm, Query(source: .mapValues(owner: owner)), as: 113))
            let mapValues = fzReadings(w.ok(World.main, .read(113)))
            #expect(mapValues?.map(\.primaryKey) == [3])
            #expect(mapValues?.allSatisfy(\.isFrozen) == true)
            w.ok(
                World.main,
                .objects(
                    frozenRealm,
                    Query(
                        source: .linkingObjects(
                            target: target, ownerType: "Item")), as: 114))
            let linking = fzReadings(w.ok(World.main, .read(114)))
            #expect(linking?.map(\.primaryKey) == [1])
            #expect(linking?.allSatisfy(\.isFrozen) == true)
        }
        // Later live changes reach none of it.
        w.write(World.main, 1, [fzSet(1, 7), fzDelete(2), item(4), fzAppend(1, 4), fzMap(1, "a", 4)])
        #expect(fzObject(w.ok(World.main, .read(110))) == expected)
        #expect(fzKeys(w.ok(World.main, .read(111))) == [2, 3])
        #expect(fzObject(w.ok(World.main, .read(112)))?.value == 2)
        #expect(fzKeys(w.ok(World.main, .read(113))) == [3])
        #expect(fzObject(w.ok(World.main, .read(100)))?.listKeys == [3, 4])
    }

    @Test("Spec F15, C10: frozen values are used from many contexts without wrong-thread errors")
    func frozenValuesAreSharedFreely() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2), item(3)])
        w.ok(World.main, .freezeRealm(1, as: 10))
        w.ok(World.main, .objects(10, .all("Item"), as: 100))
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 101))
        w.ok(World.main, .freezeHandle(101, as: 102))
        let contexts: [ContextID] = [
            World.main, World.thread, World.plainThread, World.queue,
            World.concurrent, World.actor, World.secondQueue,
        ]
        var handle = 1000
        for iteration in 0..<100 {
            let context = contexts[iteration % contexts.count]
            #expect(fzKeys(w.ok(context, .read(100))) == [1, 2, 3])
            #expect(w.ok(context, .iterate(100, as: IteratorID(iteration))) == .count(3))
            var yielded: [Int] = []
            while true {
                handle += 1
                guard
                    let next = fzHandle(
                        w.ok(
                            context,
                            .iteratorNext(
                                IteratorID(iteration),
                                as: HandleID(handle))))
                else { break }
                if let key = fzObject(w.ok(context, .read(next)))?.primaryKey { yielded.append(key) }
            }
            #expect(yielded == [1, 2, 3])
            #expect(fzObject(w.ok(context, .read(102)))?.primaryKey == 2)
        }
        for context in contexts {
            handle += 1
            #expect(
                w.ok(context, .objects(10, .all("Item"), as: HandleID(handle)))
                    == .handle(HandleID(handle)))
        }
        // The live object, by contrast, is confined.
        #expect(w.fails(World.thread, .read(101)) == .wrongThread)
    }

    @Test("Spec F16, X10: a read-only realm can be frozen and reads the same data")
    func readOnlyRealmsCanBeFrozen() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2)])
        w.ok(World.main, .close(1))
        w.open(World.main, 2, fzReadOnly(World.file))
        #expect(w.items(World.main, 2, handle: 100) == [1, 2])
        #expect(w.ok(World.main, .freezeRealm(2, as: 10)) == .realm(10))
        #expect(w.state.realms[10]?.isFrozen == true)
        #expect(w.readVersion(10) == w.readVersion(2))
        #expect(w.items(World.main, 10, handle: 101) == [1, 2])
        #expect(w.items(World.thread, 10, handle: 102) == [1, 2])
    }

    @Test("Spec F17, L1: a frozen realm and what derives from it pin the version until released")
    func frozenValuesPinTheirVersion() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])  // v2
        w.ok(World.main, .freezeRealm(1, as: 10))
        w.ok(World.main, .objectForPrimaryKey(10, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .objects(10, .all("Item"), as: 101))
        w.write(World.main, 1, [item(2)])  // v3
        w.write(World.main, 1, [item(3)])  // v4
        #expect(w.state.activeVersions(of: fzLocation) == [2, 4])
        w.ok(World.main, .release(10))
        #expect(w.state.activeVersions(of: fzLocation) == [2, 4])
        #expect(fzObject(w.ok(World.main, .read(100)))?.value == 1)
        w.ok(World.main, .releaseHandle(100))
        #expect(w.state.activeVersions(of: fzLocation) == [2, 4])
        #expect(fzKeys(w.ok(World.main, .read(101))) == [1])
        w.ok(World.main, .releaseHandle(101))
        #expect(w.state.activeVersions(of: fzLocation) == [4])
        #expect(w.state.files[fzLocation]?.versions[Version(2)] == nil)
        #expect(w.state.realms[10] == nil)
        // A frozen object made by freezing a live one pins its version too.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 102))
        w.ok(World.main, .freezeHandle(102, as: 103))
        w.write(World.main, 1, [item(4)])  // v5
        #expect(w.state.activeVersions(of: fzLocation) == [4, 5])
        w.ok(World.main, .releaseHandle(103))
        #expect(w.state.activeVersions(of: fzLocation) == [5])
    }

    // MARK: T: thread-safe references

    @Test("Spec T1: references need managed, valid values")
    func referencesNeedManagedValidValues() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2), fzAppend(1, 2)])
        w.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 5, value: 5, as: 100))
        #expect(w.fails(World.main, .makeReference(100, as: 1)) == .referenceToUnmanaged)
        #expect(
            ModelError.referenceToUnmanaged.message
                == "Cannot construct reference to unmanaged object, which can be passed across threads directly")
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 101))
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 102))
        w.ok(World.main, .listOf(102, as: 103))
        w.write(World.main, 1, [fzDelete(2), fzDelete(1)])
        #expect(w.fails(World.main, .makeReference(101, as: 2)) == .referenceToInvalidated)
        #expect(w.fails(World.main, .makeReference(103, as: 3)) == .referenceToInvalidated)
        #expect(
            ModelError.referenceToInvalidated.message
                == "Cannot construct reference to invalidated object")
        #expect(w.state.references.isEmpty)
    }

    @Test("Spec T2: a reference resolves once; several references are independent")
    func aReferenceResolvesOnce() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .makeReference(100, as: 1))
        w.ok(World.main, .makeReference(100, as: 2))
        w.ok(World.main, .objects(1, .all("Item"), as: 101))
        w.ok(World.main, .makeReference(101, as: 3))
        w.open(World.thread, 2)
        #expect(w.ok(World.thread, .resolve(2, in: 2, as: 110)) == .handle(110))
        #expect(w.ok(World.thread, .resolve(1, in: 2, as: 111)) == .handle(111))
        #expect(w.fails(World.thread, .resolve(1, in: 2, as: 112)) == .resolveTwice)
        #expect(w.fails(World.thread, .resolve(2, in: 2, as: 113)) == .resolveTwice)
        #expect(fzObject(w.ok(World.thread, .read(110)))?.primaryKey == 1)
        #expect(fzObject(w.ok(World.thread, .read(111)))?.primaryKey == 1)
        #expect(w.ok(World.thread, .resolve(3, in: 2, as: 114)) == .handle(114))
        w.open(World.queue, 3)
        #expect(w.fails(World.queue, .resolve(3, in: 3, as: 115)) == .resolveTwice)
        #expect(w.fails(World.main, .resolve(3, in: 1, as: 116)) == .resolveTwice)
        #expect(ModelError.resolveTwice.message == "Can only resolve a thread safe reference once.")
        #expect(w.state.handles[112] == nil && w.state.handles[115] == nil)
    }

    @Test("Spec T3: a reference made in one context resolves in any other")
    func referencesCrossContexts() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        let targets: [(ContextID, RealmID)] = [
            (World.thread, 2), (World.plainThread, 3),
            (World.queue, 4), (World.actor, 5),
            (World.secondQueue, 6),
        ]
        for (index, (context, realm)) in targets.enumerated() {
            let reference = ReferenceID(index + 1)
            let handle = HandleID(200 + index)
            w.ok(World.main, .makeReference(100, as: reference))
            w.open(context, realm)
            #expect(w.ok(context, .resolve(reference, in: realm, as: handle)) == .handle(handle))
            #expect(fzObject(w.ok(context, .read(handle)))?.value == 1)
        }
        // And back: made on a queue, resolved on main.
        w.ok(World.queue, .objects(4, .all("Item"), as: 300))
        w.ok(World.queue, .makeReference(300, as: 10))
        #expect(w.ok(World.main, .resolve(10, in: 1, as: 301)) == .handle(301))
        #expect(fzKeys(w.ok(World.main, .read(301))) == [1])
    }

    @Test("Spec T4, T8, V3: an unread target begins at the source version, which the reference pins")
    func resolveInAnUnreadRealm() {
        var w = World()
        w.open(World.main, 1)
        #expect(w.items(World.main, 1, handle: 100) == [])  // main reads v1
        w.ok(World.main, .objects(1, .all("Item"), as: 101))
        w.ok(World.main, .makeReference(101, as: 1))  // Results at v1
        w.write(World.main, 1, [item(1)])  // v2
        w.open(World.thread, 2)
        #expect(w.readVersion(2) == nil)
        #expect(w.ok(World.thread, .resolve(1, in: 2, as: 110)) == .handle(110))
        #expect(w.readVersion(2) == Version(1))
        #expect(fzKeys(w.ok(World.thread, .read(110))) == [])  // count 0, though main committed
        #expect(w.items(World.main, 1, handle: 102) == [1])
        // An object reference pins its source version too (T8): it is kept for the resolve.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 103))
        w.ok(World.main, .makeReference(103, as: 2))  // at v2
        w.write(World.main, 1, [item(2)])  // v3
        w.write(World.main, 1, [fzDelete(1)])  // v4: the object is gone at the newest
        #expect(w.state.files[fzLocation]?.versions[Version(2)] != nil)
        w.open(World.queue, 3)
        #expect(w.ok(World.queue, .resolve(2, in: 3, as: 111)) == .handle(111))
        #expect(w.readVersion(3) == Version(2))
        #expect(fzObject(w.ok(World.queue, .read(111)))?.primaryKey == 1)
        #expect(w.state.files[fzLocation]?.versions[Version(2)] != nil, "the new realm reads it")
    }

    @Test("Spec T4, V2, V3: an older target moves to the newest; a current or newer one stays")
    func resolveMovesOnlyOlderTargets() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])  // v2
        w.open(World.thread, 2)
        #expect(w.items(World.thread, 2, handle: 100) == [1])  // thread at v2
        w.write(World.main, 1, [item(2)])  // v3
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 101))
        w.ok(World.main, .makeReference(101, as: 1))  // source v3
        w.write(World.main, 1, [item(3)])  // v4
        #expect(w.ok(World.thread, .resolve(1, in: 2, as: 110)) == .handle(110))
        #expect(w.readVersion(2) == Version(4))  // the newest, not the source version
        #expect(w.events.contains(.moved(2, to: Version(4))))
        #expect(w.items(World.thread, 2, handle: 111) == [1, 2, 3])

        // The target at the source version: no move, though a newer version exists.
        var v = World()
        v.open(World.main, 1)
        v.write(World.main, 1, [item(1)])  // v2, main at v2
        v.open(World.thread, 2)
        #expect(v.items(World.thread, 2, handle: 100) == [1])  // thread at v2
        v.ok(World.main, .objects(1, .all("Item"), as: 101))
        v.ok(World.main, .makeReference(101, as: 1))  // source v2
        v.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 102))
        v.ok(World.main, .makeReference(102, as: 2))  // source v2
        v.open(World.queue, 3)
        v.write(World.queue, 3, [item(2)])  // v3
        #expect(v.ok(World.thread, .resolve(1, in: 2, as: 110)) == .handle(110))
        #expect(v.readVersion(2) == Version(2))
        #expect(fzKeys(v.ok(World.thread, .read(110))) == [1])
        // The target newer than the source: no move either, resolved at the target's version.
        v.open(World.plainThread, 4)
        #expect(v.items(World.plainThread, 4, handle: 103) == [1, 2])  // at v3
        #expect(v.ok(World.plainThread, .resolve(2, in: 4, as: 111)) == .handle(111))
        #expect(v.readVersion(4) == Version(3))
        #expect(fzObject(v.ok(World.plainThread, .read(111)))?.primaryKey == 1)
    }

    @Test("Spec T4: a reference made inside a write that commits has the committed version as source")
    func referenceMadeInsideAWrite() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])  // v2
        w.open(World.thread, 2)
        #expect(w.items(World.thread, 2, handle: 100) == [1])  // thread at v2
        w.open(World.queue, 3)  // unread
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .create(1, type: "Item", primaryKey: 5, value: 5, update: .error, as: 101))
        w.ok(World.main, .objects(1, .all("Item"), as: 102))
        w.ok(World.main, .makeReference(101, as: 1))
        w.ok(World.main, .makeReference(102, as: 2))
        w.ok(World.main, fzCommit(1))  // v3
        w.write(World.main, 1, [item(6)])  // v4
        // The unread realm begins at the committed version v3.
        #expect(w.ok(World.queue, .resolve(2, in: 3, as: 110)) == .handle(110))
        #expect(w.readVersion(3) == Version(3))
        #expect(fzKeys(w.ok(World.queue, .read(110))) == [1, 5])
        // The thread at v2 is older than v3: it moves to the newest and finds the object.
        #expect(w.ok(World.thread, .resolve(1, in: 2, as: 111)) == .handle(111))
        #expect(w.readVersion(2) == Version(4))
        #expect(fzObject(w.ok(World.thread, .read(111)))?.primaryKey == 5)
    }

    @Test("Spec T5: what a resolve returns for missing objects, Lists and other files")
    func whatAResolveReturns() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2), item(3), fzAppend(1, 2)])  // v2
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 100))
        w.ok(World.main, .makeReference(100, as: 1))
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 101))
        let owner = fzObject(w.ok(World.main, .read(101)))?.id ?? ObjectID(0)
        w.ok(World.main, .listOf(101, as: 102))
        w.ok(World.main, .makeReference(102, as: 2))
        w.ok(World.main, .objects(1, Query(source: .list(owner: owner)), as: 103))
        #expect(fzKeys(w.ok(World.main, .read(103))) == [2])
        w.ok(World.main, .makeReference(103, as: 3))
        w.write(World.main, 1, [fzDelete(2), fzDelete(1)])  // v3
        w.open(World.thread, 2)
        #expect(w.items(World.thread, 2, handle: 104) == [3])  // at v3
        // A deleted object: nil, no error.
        #expect(w.ok(World.thread, .resolve(1, in: 2, as: 110)) == .handle(nil))
        // A List whose owner is missing: an invalid List.
        #expect(w.ok(World.thread, .resolve(2, in: 2, as: 111)) == .handle(111))
        #expect(w.ok(World.thread, .isInvalidated(111)) == .bool(true))
        #expect(w.fails(World.thread, .read(111)) == .listInvalidated)
        // Results over such a List: valid and empty.
        #expect(w.ok(World.thread, .resolve(3, in: 2, as: 112)) == .handle(112))
        #expect(w.ok(World.thread, .isInvalidated(112)) == .bool(false))
        #expect(w.ok(World.thread, .read(112)) == .elements([]))
        // An object created in a cancelled write.
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .create(1, type: "Item", primaryKey: 9, value: 9, update: .error, as: 105))
        w.ok(World.main, .makeReference(105, as: 4))
        w.ok(World.main, .cancelWrite(1))
        #expect(w.ok(World.thread, .resolve(4, in: 2, as: 113)) == .handle(nil))
        // A realm for another file.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 3, as: 106))
        w.ok(World.main, .makeReference(106, as: 5))
        w.open(World.thread, 3, World.otherFile)
        #expect(w.ok(World.thread, .resolve(5, in: 3, as: 114)) == .handle(nil))
        #expect(
            w.state.handles[110] == nil && w.state.handles[113] == nil
                && w.state.handles[114] == nil)
    }

    @Test("Spec T6: resolved collections keep their definition, at the target's version")
    func resolvedCollectionsKeepTheirDefinition() {
        var w = World()
        w.open(World.main, 1)
        w.write(
            World.main, 1,
            [
                item(1, 30), item(2, 10), item(3, 20), item(4, 5),
                fzAppend(1, 2), fzAppend(1, 3), fzMap(1, "b", 3), fzMap(1, "a", 2),
            ])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 101))
        let owner = fzObject(w.ok(World.main, .read(100)))?.id ?? ObjectID(0)
        let target = fzObject(w.ok(World.main, .read(101)))?.id ?? ObjectID(0)
        let sorted = Query(source: .table("Item"), minimumValue: 10, sort: .value)
        let linking = Query(source: .linkingObjects(target: target, ownerType: "Item"))
        let mapValues = Query(source: .mapValues(owner: owner))
        // Two sets of references at v2: the collections are never read before.
        for (offset, base) in [(0, 110), (4, 120)] {
            w.ok(World.main, .objects(1, sorted, as: HandleID(base)))
            w.ok(World.main, .objects(1, linking, as: HandleID(base + 1)))
            w.ok(World.main, .listOf(100, as: HandleID(base + 2)))
            w.ok(World.main, .objects(1, mapValues, as: HandleID(base + 3)))
            for index in 0..<4 {
                w.ok(World.main, .makeReference(HandleID(base + index), as: ReferenceID(offset + index + 1)))
            }
        }
        // Resolved in an unread realm: at v2.
        w.open(World.thread, 2)
        for index in 0..<4 {
            w.ok(World.thread, .resolve(ReferenceID(index + 1), in: 2, as: HandleID(210 + index)))
        }
        #expect(fzKeys(w.ok(World.thread, .read(210))) == [2, 3, 1])
        #expect(fzKeys(w.ok(World.thread, .read(211))) == [1])
        #expect(fzKeys(w.ok(World.thread, .read(212))) == [2, 3])
        #expect(fzKeys(w.ok(World.thread, .read(213))) == [2, 3])
        // A newer version; resolved in a realm that reads it.
        w.open(World.queue, 3)
        w.write(
            World.queue, 3,
            [
                item(5, 15), fzAppend(1, 4), fzSet(4, 12), fzAppend(5, 2),
                fzMap(1, "c", 4),
            ])  // v3
        w.open(World.plainThread, 4)
        #expect(w.items(World.plainThread, 4, handle: 219) == [1, 2, 3, 4, 5])
        for index in 0..<4 {
            w.ok(World.plainThread, .resolve(ReferenceID(index + 5), in: 4, as: HandleID(220 + index)))
        }
        #expect(w.readVersion(4) == Version(3))
        #expect(fzKeys(w.ok(World.plainThread, .read(220))) == [2, 4, 5, 3, 1])
        #expect(fzKeys(w.ok(World.plainThread, .read(221))) == [1, 5])
        #expect(fzKeys(w.ok(World.plainThread, .read(222))) == [2, 3, 4])
        #expect(fzKeys(w.ok(World.plainThread, .read(223))) == [2, 3, 4])
        // The first set still reads at v2 on the thread.
        #expect(fzKeys(w.ok(World.thread, .read(210))) == [2, 3, 1])
    }

    @Test("Spec T7, V1: writes through resolved values are visible in the target only")
    func writesThroughResolvedValues() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .makeReference(100, as: 1))
        w.open(World.thread, 2)
        #expect(w.ok(World.thread, .resolve(1, in: 2, as: 110)) == .handle(110))
        w.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 1, as: 111))
        w.ok(World.thread, .objects(2, .all("Item"), as: 112))
        w.ok(World.thread, .beginWrite(2))
        w.ok(World.thread, .setValue(110, 77))
        w.ok(World.thread, fzCommit(2))
        #expect(fzObject(w.ok(World.thread, .read(111)))?.value == 77)
        #expect(fzReadings(w.ok(World.thread, .read(112)))?.map(\.value) == [77])
        #expect(fzObject(w.ok(World.main, .read(100)))?.value == 1)
        #expect(w.ok(World.main, .refresh(1)) == .bool(true))
        #expect(fzObject(w.ok(World.main, .read(100)))?.value == 77)
    }

    @Test("Spec T8, L1: every unresolved reference pins its source version until resolved or released")
    func everyUnresolvedReferencePins() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])  // v2
        w.ok(World.main, .objects(1, .all("Item"), as: 100))
        w.ok(World.main, .makeReference(100, as: 1))  // Results at v2
        w.write(World.main, 1, [item(2)])  // v3
        w.ok(World.main, .objects(1, .all("Item"), as: 101))
        w.ok(World.main, .makeReference(101, as: 2))  // Results at v3
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 102))
        w.ok(World.main, .makeReference(102, as: 3))  // object at v3
        w.ok(World.main, .listOf(102, as: 103))
        w.ok(World.main, .makeReference(103, as: 4))  // List at v3
        w.write(World.main, 1, [item(3)])  // v4
        #expect(w.state.activeVersions(of: fzLocation) == [2, 3, 4])
        // Released: the pin ends.
        w.ok(World.main, .releaseReference(1))
        #expect(w.state.activeVersions(of: fzLocation) == [3, 4])
        #expect(w.state.files[fzLocation]?.versions[Version(2)] == nil)
        // Resolved: the pin ends; the object and List references, still unresolved, keep v3.
        w.open(World.thread, 2)
        #expect(w.items(World.thread, 2, handle: 104) == [1, 2, 3])  // at v4
        #expect(w.ok(World.thread, .resolve(2, in: 2, as: 110)) == .handle(110))
        #expect(w.state.activeVersions(of: fzLocation) == [3, 4])
        #expect(fzKeys(w.ok(World.thread, .read(110))) == [1, 2, 3])
        #expect(w.ok(World.thread, .resolve(3, in: 2, as: 111)) == .handle(111))
        #expect(fzObject(w.ok(World.thread, .read(111)))?.primaryKey == 1)
        #expect(w.state.activeVersions(of: fzLocation) == [3, 4], "the List reference still pins v3")
        #expect(w.ok(World.thread, .resolve(4, in: 2, as: 112)) == .handle(112))
        #expect(w.ok(World.thread, .read(112)) == .elements([]))
        #expect(w.state.activeVersions(of: fzLocation) == [4])
        #expect(w.state.files[fzLocation]?.versions[Version(3)] == nil)
        // An object reference alone pins its source version while the realm moves on.
        w.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 3, as: 113))
        w.ok(World.thread, .makeReference(113, as: 5))  // at v4
        w.write(World.main, 1, [item(4)])  // v5
        w.ok(World.thread, .turnLoop)
        #expect(w.state.activeVersions(of: fzLocation) == [4, 5])
        w.ok(World.thread, .releaseReference(5))
        #expect(w.state.activeVersions(of: fzLocation) == [5])
    }

    @Test("Spec T9: @ThreadSafe accepts managed values or nil")
    func threadSafeAcceptsManagedValuesOrNil() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .makeUnmanaged(type: "Item", primaryKey: 5, value: 5, as: 100))
        #expect(w.fails(World.main, .assignThreadSafe(1, 100)) == .threadSafeUnmanaged)
        #expect(w.fails(World.thread, .assignThreadSafe(1, 100)) == .threadSafeUnmanaged)
        w.ok(World.main, .beginWrite(1))
        #expect(w.fails(World.main, .assignThreadSafe(1, 100)) == .threadSafeUnmanaged)
        w.ok(World.main, .cancelWrite(1))
        #expect(
            ModelError.threadSafeUnmanaged.message
                == "Only managed objects may be wrapped as thread safe.")
        #expect(w.state.cells[1] == nil)
        // nil is accepted and reads as nil.
        w.ok(World.main, .assignThreadSafe(2, nil))
        #expect(w.ok(World.main, .readThreadSafe(2, in: 1, as: 101)) == .handle(nil))
        // A rejected assignment leaves the managed value in place.
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 102))
        w.ok(World.main, .assignThreadSafe(3, 102))
        #expect(w.fails(World.main, .assignThreadSafe(3, 100)) == .threadSafeUnmanaged)
        #expect(w.ok(World.main, .readThreadSafe(3, in: 1, as: 103)) == .handle(103))
        #expect(fzObject(w.ok(World.main, .read(103)))?.primaryKey == 1)
    }

    @Test("Spec T10: @ThreadSafe reads resolve the last assigned value in the reading context")
    func threadSafeReadsInTheReadingContext() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1), item(2, 2)])  // v2
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .assignThreadSafe(1, 100))
        w.open(World.thread, 2)
        for handle in [110, 111, 112] as [HandleID] {
            #expect(w.ok(World.thread, .readThreadSafe(1, in: 2, as: handle)) == .handle(handle))
            #expect(fzObject(w.ok(World.thread, .read(handle)))?.primaryKey == 1)
            #expect(w.state.handles[handle]?.realm == 2)
        }
        // Assigned on the thread, read on main.
        w.ok(World.thread, .objectForPrimaryKey(2, type: "Item", primaryKey: 2, as: 113))
        w.ok(World.thread, .assignThreadSafe(1, 113))
        #expect(w.ok(World.main, .readThreadSafe(1, in: 1, as: 101)) == .handle(101))
        #expect(fzObject(w.ok(World.main, .read(101)))?.primaryKey == 2)
        w.ok(World.main, .assignThreadSafe(1, nil))
        #expect(w.ok(World.main, .readThreadSafe(1, in: 1, as: 102)) == .handle(nil))
        #expect(w.ok(World.thread, .readThreadSafe(1, in: 2, as: 114)) == .handle(nil))
        w.ok(World.main, .assignThreadSafe(1, 100))
        w.write(World.main, 1, [fzDelete(1)])  // v3
        // Still readable where the object exists at the resolving version (the thread at v2);
        // the read keeps a fresh reference at v2.
        #expect(w.readVersion(2) == Version(2))
        #expect(w.ok(World.thread, .readThreadSafe(1, in: 2, as: 115)) == .handle(115))
        #expect(w.state.cells[1]?.sourceVersion == Version(2))
        // Deleted at the resolving version: nil, and the property stays nil.
        #expect(w.ok(World.main, .readThreadSafe(1, in: 1, as: 103)) == .handle(nil))
        #expect(w.state.cells[1] == nil)
        w.ok(World.thread, .turnLoop)
        #expect(w.ok(World.thread, .readThreadSafe(1, in: 2, as: 116)) == .handle(nil))
    }

    @Test("Spec T10, T4: an assignment made in a later write replaces the value once committed")
    func threadSafeAssignmentInsideAWrite() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1, 1)])  // v2
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .assignThreadSafe(1, 100))
        w.open(World.thread, 2)
        #expect(w.items(World.thread, 2, handle: 110) == [1])  // thread at v2
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .create(1, type: "Item", primaryKey: 3, value: 3, update: .error, as: 101))
        w.ok(World.main, .assignThreadSafe(1, 101))
        w.ok(World.main, fzCommit(1))  // v3
        // An unread realm begins at the committed version v3 (v2 is still pinned by the thread).
        w.open(World.queue, 3)
        #expect(w.ok(World.queue, .readThreadSafe(1, in: 3, as: 120)) == .handle(120))
        #expect(w.readVersion(3) == Version(3))
        #expect(fzObject(w.ok(World.queue, .read(120)))?.primaryKey == 3)
        // The thread reads at v2, older than the committed source v3: it moves and finds it.
        #expect(w.ok(World.thread, .readThreadSafe(1, in: 2, as: 111)) == .handle(111))
        #expect(fzObject(w.ok(World.thread, .read(111)))?.primaryKey == 3)
        #expect(w.readVersion(2) == Version(3))
        #expect(w.ok(World.main, .readThreadSafe(1, in: 1, as: 102)) == .handle(102))
        #expect(fzObject(w.ok(World.main, .read(102)))?.primaryKey == 3)
        // Assigned in a write that is cancelled: the object never existed, so it reads as nil.
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .create(1, type: "Item", primaryKey: 4, value: 4, update: .error, as: 103))
        w.ok(World.main, .assignThreadSafe(1, 103))
        w.ok(World.main, .cancelWrite(1))
        #expect(w.ok(World.thread, .readThreadSafe(1, in: 2, as: 112)) == .handle(nil))
        #expect(w.ok(World.main, .readThreadSafe(1, in: 1, as: 104)) == .handle(nil))
    }

    @Test("Spec T11: 100 interleaved reads, writes and assignments of one @ThreadSafe property")
    func threadSafeUnderInterleavedUse() {
        var w = World()
        let sites: [(ContextID, RealmID)] = [
            (World.main, 1), (World.thread, 2), (World.queue, 3),
            (World.actor, 4), (World.secondQueue, 5),
        ]
        for (context, realm) in sites { w.open(context, realm) }
        w.write(World.main, 1, [item(1, 0)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 100))
        w.ok(World.main, .assignThreadSafe(1, 100))
        var written: Set<Int> = []
        for iteration in 1...100 {
            let (context, realm) = sites[iteration % sites.count]
            let handle = HandleID(1000 + iteration)
            #expect(w.ok(context, .readThreadSafe(1, in: realm, as: handle)) == .handle(handle))
            #expect(fzObject(w.ok(context, .read(handle)))?.primaryKey == 1)
            w.ok(context, .beginWrite(realm))
            w.ok(context, .setValue(handle, iteration))
            w.ok(context, fzCommit(realm))
            written.insert(iteration)
            w.ok(context, .assignThreadSafe(1, handle))
        }
        #expect(w.ok(World.main, .readThreadSafe(1, in: 1, as: 2000)) == .handle(2000))
        let final = fzObject(w.ok(World.main, .read(2000)))?.value
        #expect(final.map { written.contains($0) } == true)
        #expect(final == 100)
        // The last of several assignments from different contexts wins.
        w.write(World.main, 1, [item(2), item(3)])
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 2, as: 2001))
        w.ok(World.main, .assignThreadSafe(1, 2001))
        w.ok(World.queue, .refresh(3))
        w.ok(World.queue, .objectForPrimaryKey(3, type: "Item", primaryKey: 3, as: 2002))
        w.ok(World.queue, .assignThreadSafe(1, 2002))
        #expect(w.ok(World.actor, .readThreadSafe(1, in: 4, as: 2003)) == .handle(2003))
        #expect(fzObject(w.ok(World.actor, .read(2003)))?.primaryKey == 3)
    }

    // MARK: X: files, in-memory, read-only, copies, configuration

    @Test("Spec X1: fileExists and deleteFiles")
    func fileExistsAndDeleteFiles() {
        var w = World()
        let config = Configuration(location: .path("/data/x1.realm"))
        #expect(w.ok(World.main, .fileExists(config)) == .bool(false))
        w.open(World.main, 1, config)
        w.write(World.main, 1, [item(1)])
        #expect(w.ok(World.main, .fileExists(config)) == .bool(true))
        w.ok(World.main, .close(1))
        #expect(w.ok(World.main, .fileExists(config)) == .bool(true))
        #expect(w.ok(World.main, .deleteFiles(config)) == .bool(true))
        #expect(w.ok(World.main, .fileExists(config)) == .bool(false))
        #expect(w.ok(World.main, .deleteFiles(config)) == .bool(false))
        // Under a directory that does not exist.
        w.ok(World.main, .setPathCondition("/nowhere/x.realm", .parentMissing))
        let missing = Configuration(location: .path("/nowhere/x.realm"))
        #expect(w.ok(World.main, .deleteFiles(missing)) == .bool(false))
        // Reopened after deletion: a new, empty file.
        w.open(World.main, 2, config)
        #expect(w.items(World.main, 2, handle: 100) == [])
    }

    @Test("Spec X2: files open in any process cannot be deleted")
    func openFilesCannotBeDeleted() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        let error = w.fails(World.main, .deleteFiles(World.file))
        #expect(error == .alreadyOpen(path: "/data/a.realm"))
        #expect(error?.code == .alreadyOpen)
        #expect(error?.message == "Cannot delete files of an open Realm: '/data/a.realm' is still in use.")
        #expect(w.ok(World.main, .fileExists(World.file)) == .bool(true))
        // Open only in another process.
        w.open(World.otherProcess, 2)
        w.ok(World.main, .close(1))
        #expect(w.fails(World.main, .deleteFiles(World.file))?.code == .alreadyOpen)
        w.ok(World.otherProcess, .close(2))
        w.open(World.main, 3)
        #expect(w.items(World.main, 3, handle: 100) == [1])  // every file left in place
        w.ok(World.main, .close(3))
        #expect(w.ok(World.main, .deleteFiles(World.file)) == .bool(true))
    }

    @Test(
        "Spec X28, X2: an open and deleteFiles are each one step: an open first keeps the file, one after gets a new one"
    )
    func deleteFilesAndAnOpenAreOrdered() {
        var w = World()
        let config = Configuration(location: .path("/data/x28.realm"))
        w.open(World.main, 1, config)
        w.write(World.main, 1, [item(1)])
        // The open came first: the deletion fails and the file stays.
        #expect(w.fails(World.thread, .deleteFiles(config))?.code == .alreadyOpen)
        w.ok(World.main, .close(1))
        // The deletion came first: the open after it creates a new, empty file.
        #expect(w.ok(World.thread, .deleteFiles(config)) == .bool(true))
        w.open(World.main, 2, config)
        #expect(w.items(World.main, 2, handle: 100) == [])
        #expect(w.ok(World.main, .fileExists(config)) == .bool(true))
    }

    @Test("Spec X3: writeCopy writes the read version to a file that opens, writes and freezes")
    func writeCopy() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])  // v2, main at v2
        w.open(World.queue, 3)
        w.write(World.queue, 3, [item(2)])  // v3
        #expect(w.readVersion(1) == Version(2))
        w.ok(World.main, .writeCopy(1, toPath: "/data/copy.realm"))
        let copy = Configuration(location: .path("/data/copy.realm"))
        #expect(w.ok(World.main, .fileExists(copy)) == .bool(true))
        w.open(World.thread, 2, copy)
        #expect(w.items(World.thread, 2, handle: 100) == [1])
        w.write(World.thread, 2, [item(5)])
        #expect(w.items(World.thread, 2, handle: 101) == [1, 5])
        #expect(w.ok(World.thread, .freezeRealm(2, as: 10)) == .realm(10))
        #expect(w.items(World.thread, 10, handle: 102) == [1, 5])
        // The source is unchanged.
        #expect(w.items(World.main, 1, handle: 103) == [1])
    }

    @Test("Spec X4: writeCopy errors leave no destination")
    func writeCopyErrors() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .writeCopy(1, toPath: "/data/dest.realm"))
        w.write(World.main, 1, [item(2)])
        let exists = w.fails(World.main, .writeCopy(1, toPath: "/data/dest.realm"))
        #expect(exists?.code == .fileExists)
        #expect(exists?.message == "Failed to open file at path '/data/dest.realm': File exists")
        w.open(World.thread, 2, Configuration(location: .path("/data/dest.realm")))
        #expect(w.items(World.thread, 2, handle: 100) == [1])  // the existing file is untouched
        let cases: [(String, PathCondition, ModelErrorCode, String)] = [
            ("/missing/c.realm", .parentMissing, .fileNotFound, ": parent directory does not exist"),
            ("/readonly/c.realm", .notWritable, .filePermissionDenied, ": Permission denied"),
            ("/data/fd.realm", .noFileDescriptors, .fileOperationFailed, ": Too many open files"),
        ]
        for (path, condition, code, fragment) in cases {
            w.ok(World.main, .setPathCondition(path, condition))
            let error = w.fails(World.main, .writeCopy(1, toPath: path))
            #expect(error?.code == code)
            #expect(error?.message.contains("Failed to open file at path '\(path)'") == true)
            #expect(error?.message.contains(fragment) == true)
            #expect(w.ok(World.main, .fileExists(Configuration(location: .path(path)))) == .bool(false))
        }
    }

    @Test("Spec X5: a seed file is copied before the first open only")
    func seedFilePath() {
        var w = World()
        let seedPath = "/data/seed.realm"
        let seed = Configuration(location: .path(seedPath))
        w.open(World.main, 1, seed)
        w.write(World.main, 1, [item(1), item(2)])
        w.ok(World.main, .close(1))
        let seeded = Configuration(location: .path("/data/seeded.realm"), seedFilePath: seedPath)
        #expect(w.ok(World.main, .fileExists(seeded)) == .bool(false))
        w.open(World.main, 2, seeded)
        #expect(w.items(World.main, 2, handle: 100) == [1, 2])
        w.write(World.main, 2, [item(3)])
        w.ok(World.main, .close(2))
        w.open(World.main, 3, seed)
        w.write(World.main, 3, [item(4)])
        w.ok(World.main, .close(3))
        w.open(World.main, 4, seeded)
        #expect(w.items(World.main, 4, handle: 101) == [1, 2, 3])
    }

    @Test("Spec X6: open errors carry their codes and messages and create nothing")
    func openErrors() {
        var w = World()
        let cases: [(String, PathCondition, Bool, ModelErrorCode, String)] = [
            (
                "/file/sub.realm", .parentNotDirectory, false, .fileOperationFailed,
                "Failed to open file at path '/file/sub.realm.lock': parent path is not a directory"
            ),
            (
                "/data/small.realm", .tooSmall(byteCount: 12), false, .invalidDatabase,
                "file is non-empty but too small (12 bytes) to be a valid Realm."
            ),
            (
                "/data/dir.realm", .isDirectory, false, .fileOperationFailed,
                "Failed to open Realm file at path '/data/dir.realm': Is a directory"
            ),
            (
                "/data/noperm.realm", .notReadable, false, .filePermissionDenied,
                "Permission denied. Please use a path where your app has read-write permissions."
            ),
            (
                "/data/noperm2.realm", .notReadable, true, .filePermissionDenied,
                "Permission denied. Please use a path where your app has read permissions."
            ),
        ]
        for (index, (path, condition, readOnly, code, fragment)) in cases.enumerated() {
            w.ok(World.main, .setPathCondition(path, condition))
            let config = Configuration(location: .path(path), readOnly: readOnly)
            let error = w.fails(
                World.main,
                .open(
                    config, confinement: .callingContext,
                    as: RealmID(index + 1)))
            #expect(error?.code == code)
            #expect(error?.message.contains(fragment) == true, "\(String(describing: error))")
            #expect(w.state.realms[RealmID(index + 1)] == nil)
            #expect(w.ok(World.main, .fileExists(config)) == .bool(false))
        }
    }

    @Test("Spec X7: asyncOpen read-only of a missing file fails; otherwise it opens")
    func asyncOpen() {
        var w = World()
        let path = Configuration(location: .path("/data/async.realm"))
        let error = w.fails(World.main, .asyncOpen(fzReadOnly(path), as: 1))
        #expect(error?.code == .fileNotFound)
        #expect(w.state.realms[1] == nil)
        #expect(w.ok(World.main, .fileExists(path)) == .bool(false))
        #expect(w.state.realms.isEmpty)
        #expect(w.ok(World.main, .asyncOpen(path, as: 2)) == .realm(2))
        #expect(w.ok(World.main, .fileExists(path)) == .bool(true))
        #expect(w.state.realms[2]?.owner == World.main)
        #expect(w.items(World.main, 2, handle: 100) == [])
        #expect(w.fails(World.thread, .objects(2, .all("Item"), as: 101)) == .wrongThread)
        #expect(w.ok(World.queue, .asyncOpen(path, as: 3)) == .realm(3))
        #expect(w.state.realms[3]?.owner == World.queue)
    }

    @Test("Spec X8: an in-memory realm lives while any instance is open")
    func inMemoryLifetime() {
        var w = World()
        let memory = Configuration(location: .inMemory(identifier: "shared"))
        w.open(World.main, 1, memory)
        w.write(World.main, 1, [item(1)])
        w.open(World.thread, 2, memory)
        #expect(w.items(World.thread, 2, handle: 100) == [1])
        w.write(World.thread, 2, [item(2)])
        #expect(w.ok(World.main, .refresh(1)) == .bool(true))
        #expect(w.items(World.main, 1, handle: 101) == [1, 2])
        w.open(World.otherProcess, 3, memory)
        #expect(w.items(World.otherProcess, 3, handle: 102) == [1, 2])
        w.ok(World.main, .close(1))
        #expect(w.items(World.thread, 2, handle: 103) == [1, 2])
        w.ok(World.thread, .close(2))
        w.open(World.main, 4, memory)
        #expect(w.items(World.main, 4, handle: 104) == [1, 2])
        w.ok(World.main, .close(4))
        w.ok(World.otherProcess, .close(3))
        w.open(World.main, 5, memory)
        #expect(w.items(World.main, 5, handle: 105) == [])
    }

    @Test("Spec X9: in-memory identifiers are isolated; the path ends with the identifier")
    func inMemoryIsolation() {
        var w = World()
        let one = Configuration(location: .inMemory(identifier: "one"))
        let two = Configuration(location: .inMemory(identifier: "two"))
        w.open(World.main, 1, one)
        w.write(World.main, 1, [item(1)])
        w.open(World.main, 2, two)
        #expect(w.items(World.main, 2, handle: 100) == [])
        w.write(World.main, 2, [item(7)])
        #expect(w.items(World.main, 1, handle: 101) == [1])
        #expect(w.items(World.main, 2, handle: 102) == [7])
        let reported = one.location.path(temporaryDirectory: "/tmp")
        #expect(reported.hasPrefix("/tmp/"))
        #expect(reported.hasSuffix("one"))
    }

    @Test("Spec X10, W18, A12, N19, V13: a read-only realm reads, refuses writes and observers")
    func readOnlyConfiguration() {
        var w = World()
        #expect(Configuration.defaultConfiguration.readOnly == false)
        #expect(World.file.readOnly == false)
        #expect(
            w.fails(
                World.main,
                .open(
                    fzReadOnly(World.file), confinement: .callingContext,
                    as: 9))?.code == .fileNotFound)
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .close(1))
        w.open(World.main, 2, fzReadOnly(World.file))
        #expect(w.items(World.main, 2, handle: 100) == [1])
        #expect(w.fails(World.main, .beginWrite(2)) == .readOnlyTransaction)
        #expect(
            w.fails(
                World.main,
                .writeBlock(
                    2, [item(2)], ending: .commit, withoutNotifying: [],
                    fate: .success)) == .readOnlyTransaction)
        #expect(w.fails(World.main, .writeAsync(2, [item(2)], as: 1)) == .readOnlyTransaction)
        #expect(
            w.fails(
                World.main,
                .beginAsyncWrite(
                    2, [item(2)], ending: .commit(allowGrouping: false),
                    as: 2)) == .readOnlyTransaction)
        #expect(
            w.fails(
                World.main,
                .observeCollection(
                    100, action: .none, on: nil,
                    inCancelledTask: false, as: 1))
                == .readOnlyObservation)
        w.ok(World.main, .invalidate(2))
        #expect(w.readVersion(2) == nil)
        #expect(w.items(World.main, 2, handle: 101) == [1])
        #expect(w.ok(World.main, .freezeRealm(2, as: 10)) == .realm(10))
        #expect(w.newest() == Version(2))
    }

    @Test("Spec X11: one access mode per path per process")
    func oneAccessModePerPath() {
        var w = World()
        w.open(World.main, 1)
        let readOnly = fzReadOnly(World.file)
        let error = w.fails(World.thread, .open(readOnly, confinement: .callingContext, as: 2))
        #expect(error == .differentReadPermissions(path: "/data/a.realm"))
        #expect(
            error?.message
                == "Realm at path '/data/a.realm' already opened with different read permissions")
        #expect(
            w.fails(World.main, .open(readOnly, confinement: .callingContext, as: 3))
                == .differentReadPermissions(path: "/data/a.realm"))
        // Another process has its own access mode.
        #expect(
            w.ok(World.otherProcess, .open(readOnly, confinement: .callingContext, as: 4))
                == .realm(4))
        // The reverse: read-only open first.
        w.ok(World.main, .close(1))
        w.open(World.thread, 5, readOnly)
        #expect(
            w.fails(World.main, .open(World.file, confinement: .callingContext, as: 6))
                == .differentReadPermissions(path: "/data/a.realm"))
        #expect(
            w.fails(World.queue, .open(World.file, confinement: .callingContext, as: 7))
                == .differentReadPermissions(path: "/data/a.realm"))
        #expect(w.state.realms[6] == nil && w.state.realms[7] == nil)
    }

    @Test("Spec X12: read-only opens work on immutable files and unwritable directories")
    func readOnlyOpensOnImmutableFiles() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .close(1))
        w.ok(World.main, .setPathCondition("/data/a.realm", .immutable))
        let error = w.fails(World.main, .open(World.file, confinement: .callingContext, as: 2))
        #expect(error?.code == .filePermissionDenied)
        #expect(
            error?.message.contains(
                "Operation not permitted. Please use a path where your app has read-write permissions.")
                == true)
        w.open(World.main, 3, fzReadOnly(World.file))
        #expect(w.items(World.main, 3, handle: 100) == [1])
        w.ok(World.main, .setPathCondition("/data/a.realm", .notWritable))
        let sites: [(ContextID, RealmID)] = [(World.thread, 4), (World.queue, 5), (World.actor, 6)]
        for (context, realm) in sites {
            w.open(context, realm, fzReadOnly(World.file))
            #expect(w.items(context, realm, handle: HandleID(100 + realm.rawValue)) == [1])
        }
    }

    @Test("Spec X13: read-only instances in several contexts; closing one leaves the others")
    func readOnlyRealmsOnSeveralContexts() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1), item(2)])
        w.ok(World.main, .close(1))
        let readOnly = fzReadOnly(World.file)
        w.open(World.main, 2, readOnly)
        w.open(World.thread, 3, readOnly)
        w.open(World.queue, 4, readOnly)
        #expect(w.items(World.main, 2, handle: 100) == [1, 2])
        #expect(w.items(World.thread, 3, handle: 101) == [1, 2])
        w.ok(World.main, .close(2))
        #expect(w.items(World.thread, 3, handle: 102) == [1, 2])
        #expect(w.items(World.queue, 4, handle: 103) == [1, 2])
        #expect(w.fails(World.main, .objects(2, .all("Item"), as: 104)) == .realmClosed)
    }

    @Test("Spec X14: in a read-only file lacking a type's table, the type reads as empty")
    func readOnlyMissingTable() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .close(1))
        var types = Schema.standard.types
        types["Extra"] = Schema.standardColumns
        let readOnly = Configuration(
            location: World.file.location, readOnly: true,
            schema: Schema(types: types))
        w.open(World.main, 2, readOnly)
        #expect(
            w.state.files[fzLocation]?.versions.values.allSatisfy {
                $0.schema.types["Extra"] == nil
            } == true)
        w.ok(World.main, .objects(2, .all("Extra"), as: 100))
        #expect(w.ok(World.main, .read(100)) == .elements([]))
        w.ok(World.main, .objects(2, Query(source: .table("Extra"), minimumValue: 3), as: 101))
        #expect(w.ok(World.main, .read(101)) == .elements([]))
        w.ok(World.main, .objects(2, Query(source: .table("Extra"), sort: .value), as: 102))
        #expect(w.ok(World.main, .read(102)) == .elements([]))
        #expect(
            w.ok(World.main, .objectForPrimaryKey(2, type: "Extra", primaryKey: 1, as: 103))
                == .handle(nil))
        #expect(w.ok(World.main, .iterate(100, as: 1)) == .count(0))
        #expect(w.ok(World.main, .iteratorNext(1, as: 104)) == .handle(nil))
        let bounds = w.fails(World.main, .element(100, at: 0, as: 105))
        #expect(bounds?.message.contains("out of bounds") == true)
        let delete = w.fails(World.main, .delete(2, 100))
        #expect(delete == .resultsOutsideWrite)
        #expect(delete?.message == "Cannot modify Results outside of a write transaction.")
        #expect(w.items(World.main, 2, handle: 106) == [1])
    }

    @Test("Spec X15: a read-only open of a file lacking a declared column is a schema mismatch")
    func readOnlyMissingColumn() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .close(1))
        var types = Schema.standard.types
        types["Item"] = Schema.standardColumns.union(["extra"])
        let readOnly = Configuration(
            location: World.file.location, readOnly: true,
            schema: Schema(types: types))
        let error = w.fails(World.main, .open(readOnly, confinement: .callingContext, as: 2))
        #expect(error?.code == .schemaMismatch)
        #expect(w.state.realms[2] == nil)
        // The declared schema the file has opens read-only.
        w.open(World.main, 3, fzReadOnly(World.file))
        #expect(w.items(World.main, 3, handle: 100) == [1])
    }

    @Test("Spec X16: the default configuration and its value semantics")
    func defaultConfiguration() {
        var w = World()
        let defaults = Configuration.defaultConfiguration
        w.open(World.main, 1, defaults)
        guard case .configuration(let opened) = w.ok(World.main, .readConfiguration(1)) else {
            Issue.record("readConfiguration returned no configuration")
            return
        }
        #expect(opened.location == defaults.location)  // fileURL
        #expect(defaults.location.isInMemory == false)  // inMemoryIdentifier == nil
        #expect(defaults.encryptionKeyByteCount == nil)
        #expect(defaults.readOnly == false)
        #expect(defaults.seedFilePath == nil)
        var copy = defaults
        copy.readOnly = true
        #expect(Configuration.defaultConfiguration.readOnly == false)
        #expect(Configuration.defaultConfiguration == defaults)
        // inMemoryIdentifier and fileURL exclude each other.
        copy.location = .inMemory(identifier: "m")
        #expect(copy.location.isInMemory)
        copy.location = .path("/data/x.realm")
        #expect(copy.location == .path("/data/x.realm") && !copy.location.isInMemory)
    }

    @Test("Spec X17: encryption keys of the wrong length are rejected; encryption is unsupported")
    func encryptionKeys() {
        var w = World()
        let path = FileLocation.path("/data/enc.realm")
        let short = Configuration(location: path, encryptionKeyByteCount: 32)
        let error = w.fails(World.main, .open(short, confinement: .callingContext, as: 1))
        #expect(error == .encryptionKeyLength)
        #expect(error?.message == "Encryption key must be exactly 64 bytes long")
        let full = Configuration(location: path, encryptionKeyByteCount: 64)
        let unsupported = w.fails(World.main, .open(full, confinement: .callingContext, as: 2))
        #expect(unsupported?.code == .fail)
        #expect(unsupported?.message == "Encryption is not supported")
        #expect(w.ok(World.main, .fileExists(full)) == .bool(false))
        #expect(w.state.realms.isEmpty)
        let none = Configuration(location: path, encryptionKeyByteCount: nil)
        #expect(w.ok(World.main, .open(none, confinement: .callingContext, as: 3)) == .realm(3))
    }

    @Test("Spec X18, V7: a file committed by one process opens in another; commits cross over")
    func anotherProcessesRealm() {
        var w = World()
        w.open(World.main, 1)
        w.write(World.main, 1, [item(1)])
        w.open(World.otherProcess, 2)
        #expect(w.state.realms[2]?.process != w.state.realms[1]?.process)
        #expect(w.items(World.otherProcess, 2, handle: 100) == [1])
        w.write(World.otherProcess, 2, [item(2)])
        #expect(w.items(World.main, 1, handle: 101) == [1])
        #expect(w.ok(World.main, .refresh(1)) == .bool(true))
        #expect(w.items(World.main, 1, handle: 102) == [1, 2])
        w.write(World.main, 1, [item(3)])
        #expect(w.items(World.otherProcess, 2, handle: 103) == [1, 2])
        w.ok(World.otherProcess, .turnLoop)
        #expect(w.items(World.otherProcess, 2, handle: 104) == [1, 2, 3])
    }
}
