import Foundation
import Strata
import Testing

// Behaviours THR, FRZ, TSR and TSW of the behaviour catalog (Spec/coverage.md), one test
// per behaviour ID, each citing the Spec rules (confinement.md, freeze.md, references.md) it
// checks. Rejections are observed through the throwing `package` entry points; no
// test calls an API in a way that traps. Work on "another thread" runs through `onOtherThread`
// (a new thread, no run loop turned), so no realm of a test moves unless the test moves it.

/// Helpers private to this file.
private enum TFR {
    /// Creates one IntObj per value, in one write.
    static func ints(_ realm: Realm, _ values: [Int]) throws {
        try realm.write {
            for value in values { realm.create(IntObj.self, value: ["intCol": value]) }
        }
    }

    /// Creates one StrObj per value, in one write.
    static func strings(_ realm: Realm, _ values: [String]) throws {
        try realm.write {
            for value in values { realm.create(StrObj.self, value: ["stringCol": value]) }
        }
    }

    static let incorrectThread = "incorrect thread"
}

@Suite struct ThreadsFreezeReferencesTests {
    // MARK: - THR: thread confinement

    // Spec C1
    @Test func sameInstancePerThread() throws {
        let configuration = testConfiguration()
        let first = try Realm(configuration: configuration)
        let second = try Realm(configuration: configuration)
        #expect(first == second)
        let otherFile = try Realm(configuration: testConfiguration("other.realm"))
        #expect(first != otherFile)
        let fromOtherThread = try onOtherThread { Unchecked(try Realm(configuration: configuration)) }
        #expect(fromOtherThread.value != first)
        #expect(fromOtherThread.value.configuration.fileURL == configuration.fileURL)
    }

    // Spec C2
    @Test func objectRealmIsCreatingInstance() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let (created, added) = try realm.write { () -> (IntObj, IntObj) in
            let created = realm.create(IntObj.self, value: ["intCol": 1])
            let added = IntObj()
            realm.add(added)
            #expect(created.realm == realm)
            #expect(added.realm == realm)
            return (created, added)
        }
        #expect(created.realm == realm)
        #expect(added.realm == realm)
        let objectRealm = Unchecked(try required(created.realm, "obj.realm"))
        let differs = try onOtherThread { () -> Bool in
            let other = try Realm(configuration: configuration)
            return other != objectRealm.value
        }
        #expect(differs)
    }

    // Spec C5
    @Test func managedObjectsAreCheckedOnEveryAccess() throws {
        let realm = try Realm(configuration: testConfiguration())
        let (object, holder) = try realm.write { () -> (IntObj, Holder) in
            let object = realm.create(IntObj.self, value: ["intCol": 1])
            let holder = Holder()
            holder.intArray.append(IntObj())
            realm.add(holder)
            return (object, holder)
        }
        let list = holder.intArray
        let objectBox = Unchecked(object)
        let holderBox = Unchecked(holder)
        let listBox = Unchecked(list)
        let errors = try onOtherThread { () -> [Realm.Error?] in
            [
                rejection { _ = try objectBox.value._value(forKey: "intCol") },  // read a property
                rejection { try objectBox.value._setValue(2, forKey: "intCol") },  // set a scalar
                rejection { try holderBox.value._setValue([IntObj()], forKey: "intArray") },  // assign a List
                rejection { try listBox.value._append(IntObj()) },  // mutate a List
            ]
        }
        #expect(errors.count == 4)
        for error in errors { expectRejected(error, TFR.incorrectThread) }
        // Nothing changed.
        #expect(object.intCol == 1)
        #expect(list.count == 1)
        // An unmanaged object's properties can be set and read from any thread.
        let unmanaged = IntObj()
        let unmanagedBox = Unchecked(unmanaged)
        let readThere = try onOtherThread { () -> Int? in
            unmanagedBox.value.intCol = 42
            return try unmanagedBox.value._value(forKey: "intCol") as? Int
        }
        #expect(readThere == 42)
        #expect(unmanaged.intCol == 42)
    }

    // Spec C6
    @Test func collectionsAreCheckedOnEveryCall() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, [1, 2, 3])
        let holder = try addHolderWithOneInt(to: realm)
        let results = realm.objects(IntObj.self).where { $0.intCol > 0 }
        #expect(results.count == 3)
        let resultsBox = Unchecked(results)
        let listBox = Unchecked(holder.intArray)
        let errors = try onOtherThread { () -> [Realm.Error?] in
            [
                rejection { _ = try resultsBox.value._count() },
                rejection { _ = try resultsBox.value._element(at: 0) },
                rejection { _ = try ThreadSafeReference._make(to: resultsBox.value) },
                rejection { _ = try listBox.value._count() },
                rejection { _ = try listBox.value._element(at: 0) },
            ]
        }
        #expect(errors.count == 5)
        for error in errors { expectRejected(error, TFR.incorrectThread) }
        #expect(results.count == 3)
    }

    // Spec C7
    @Test func freezeFromWrongThreadIsRejected() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let objectBox = Unchecked(holder)
        let resultsBox = Unchecked(realm.objects(IntObj.self))
        let listBox = Unchecked(holder.intArray)
        let errors = try onOtherThread { () -> [Realm.Error?] in
            [
                rejection { _ = try objectBox.value._freeze() },
                rejection { _ = try resultsBox.value._freeze() },
                rejection { _ = try listBox.value._freeze() },
            ]
        }
        #expect(errors.count == 3)
        for error in errors { expectRejected(error, "Realm accessed from incorrect thread") }
        #expect(try holder._freeze().isFrozen)  // the owner may freeze it
    }

    // Spec C8
    @Test func realmOfExitedThreadReadsConfigurationAndReleases() throws {
        let configuration = testConfiguration()
        do {
            let orphan = try onOtherThread { () -> Unchecked<Realm> in
                let realm = try Realm(configuration: configuration)
                try TFR.ints(realm, [1])
                return Unchecked(realm)
            }
            // The opening thread has exited: configuration and isFrozen are readable here...
            #expect(orphan.value.configuration.fileURL == configuration.fileURL)
            #expect(!orphan.value.isFrozen)
            // ...every other use is a wrong-thread error (Spec C8)...
            expectRejected(rejection { _ = try orphan.value._isEmpty() }, TFR.incorrectThread)
            expectRejected(rejection { _ = try orphan.value._refresh() }, TFR.incorrectThread)
        }
        // ...and releasing it here (end of the scope above) leaves the file usable.
        let realm = try Realm(configuration: configuration)
        try TFR.ints(realm, [2])
        #expect(realm.objects(IntObj.self).count == 2)
    }

    // seed 000 "Frozen Objects": isFrozen "is always thread-safe" (Spec C6, C8).
    @Test("Spec C6, C8: isFrozen answers from any context")
    func isFrozenAnswersAnywhere() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        let list = try realm.write { () -> List<IntObj> in
            let holder = realm.create(Holder.self)
            holder.intArray.append(object)
            return holder.intArray
        }
        let values = Unchecked((realm, realm.objects(IntObj.self), object, list, realm.freeze()))
        let answers = try onOtherThread { () -> [Bool] in
            let (live, results, object, list, frozen) = values.value
            return [live.isFrozen, results.isFrozen, object.isFrozen, list.isFrozen, frozen.isFrozen]
        }
        #expect(answers == [false, false, false, false, true])
    }

    // Spec C3: queue-confined instances are cached per queue. The `.main` parts need
    // the main thread, which no test reaches under `swift test` on Linux (main-actor work runs
    // on a dispatch worker there).
    @Test func queueConfinedInstancesAreCachedPerQueue() throws {
        let configuration = testConfiguration()
        let q1 = DispatchQueue(label: "strata.tfr.thr10.q1")
        let q2 = DispatchQueue(label: "strata.tfr.thr10.q2")
        let onQ1 = try q1.sync { Unchecked(try Realm(configuration: configuration, queue: q1)) }
        let onQ1Again = try q1.sync { Unchecked(try Realm(configuration: configuration, queue: q1)) }
        let onQ2 = try q2.sync { Unchecked(try Realm(configuration: configuration, queue: q2)) }
        let threadBound = try Realm(configuration: configuration)
        #expect(onQ1.value == onQ1Again.value)
        #expect(onQ1.value != onQ2.value)
        #expect(threadBound != onQ1.value)
        #expect(threadBound != onQ2.value)
        let (distinct, crossQueue) = try q1.sync { () -> (Bool, Realm.Error?) in
            let bound = try Realm(configuration: configuration)
            let confined = try Realm(configuration: configuration, queue: q1)
            let error = rejection { _ = try Realm._open(configuration: configuration, queue: q2) }
            return (bound != confined && confined == onQ1.value, error)
        }
        #expect(distinct)
        expectRejected(crossQueue, "Realm opened from incorrect dispatch queue.")
    }

    // Spec C4
    @Test func queueValidation() throws {
        let configuration = testConfiguration()
        let serial = DispatchQueue(label: "strata.tfr.thr11.serial")
        // Not running on the queue.
        expectRejected(
            rejection { _ = try Realm._open(configuration: configuration, queue: serial) },
            "Realm opened from incorrect dispatch queue.")
        // The main queue from a thread other than main.
        expectRejected(
            rejection { _ = try Realm._open(configuration: configuration, queue: .main) },
            "Realm opened from incorrect dispatch queue.")
        // A concurrent queue, from a block running on it.
        // Strata tells a concurrent queue by a probe block that only a concurrent queue can
        // start while this block runs (Linux Dispatch cannot report a queue's width; `Docs/limits.md`).
        // The probe needs a free worker of the queue's root pool: target the user-interactive
        // pool, which the other tests running in parallel do not fill with blocked workers.
        let concurrent = DispatchQueue(label: "concurrent queue", qos: .userInteractive, attributes: .concurrent)
        let concurrentError = concurrent.sync {
            rejection { _ = try Realm._open(configuration: configuration, queue: concurrent) }
        }
        expectRejected(
            concurrentError,
            "Invalid queue 'concurrent queue' (OS_dispatch_queue_concurrent): "
                + "Realms can only be confined to serial queues or the main queue.")
        // A global queue, likewise.
        let global = DispatchQueue.global()
        let globalError = global.sync { rejection { _ = try Realm._open(configuration: configuration, queue: global) } }
        expectRejected(globalError, "Realms can only be confined to serial queues or the main queue.")
        // A serial queue, from a block running on it, is fine.
        let accepted = serial.sync { rejection { _ = try Realm._open(configuration: configuration, queue: serial) } }
        #expect(accepted == nil)
    }

    // Spec C9
    @Test func configurationsCrossContexts() throws {
        let configuration = testConfiguration()
        let q1 = DispatchQueue(label: "strata.tfr.thr13.q1")
        let q2 = DispatchQueue(label: "strata.tfr.thr13.q2")
        try q1.sync {
            let realm = try Realm(configuration: configuration, queue: q1)
            try TFR.ints(realm, [1])
        }
        let countOnQ2 = try q2.sync { () -> Int in
            let realm = try Realm(configuration: configuration, queue: q2)
            _ = try realm._refresh()
            return try realm._objects(IntObj.self)._count()
        }
        #expect(countOnQ2 == 1)

        // A configuration read from a realm of thread A opens a realm on thread B that refreshes.
        let realmA = try Realm(configuration: configuration)
        #expect(realmA.objects(IntObj.self).count == 1)
        let boxA = Unchecked(realmA)
        let (before, moved, after) = try onOtherThread { () -> (Int, Bool, Int) in
            let realmB = try Realm(configuration: boxA.value.configuration)
            let before = try realmB._objects(IntObj.self)._count()
            try onOtherThread {
                let writer = try Realm(configuration: configuration)
                try TFR.ints(writer, [2])
            }
            let moved = try realmB._refresh()
            let after = try realmB._objects(IntObj.self)._count()
            try TFR.ints(realmB, [3])
            return (before, moved, after)
        }
        #expect(before == 1)
        #expect(moved)
        #expect(after == 2)
        #expect(realmA.refresh())
        #expect(realmA.objects(IntObj.self).count == 3)
    }

    // MARK: - FRZ: freeze and thaw

    // Spec F1
    @Test func isFrozenFreezeAndThawOfRealm() throws {
        let realm = try Realm(configuration: testConfiguration())
        #expect(!realm.isFrozen)
        let frozen = try realm._freeze()
        #expect(frozen.isFrozen)
        #expect(!realm.isFrozen)
        let thawed = try frozen._thaw()
        #expect(!thawed.isFrozen)
        #expect(try realm._thaw() == realm)
    }

    // Spec F2, V4
    @Test func frozenRealmNeverRefreshes() throws {
        let realm = try Realm(configuration: testConfiguration())
        let frozen = try realm._freeze()
        #expect(try frozen._refresh() == false)
        try TFR.ints(realm, [1])
        #expect(try frozen._refresh() == false)
        #expect(try frozen._objects(IntObj.self)._count() == 0)
        #expect(try realm._refresh() == false)  // already at the latest version
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // Spec F3, W18: beginWrite and write {} on a frozen realm, also one reached
    // through a frozen object or collection, are rejected with Realm's message.
    @Test func frozenRealmsTakeNoWrites() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, [1])
        let object = try required(realm.objects(IntObj.self).first, "object")
        let frozenRealm = try realm._freeze()
        let frozenObject = try object._freeze()
        let frozenResults = try realm.objects(IntObj.self)._freeze()
        let fragment = "Can't perform transactions on a frozen Realm"
        expectRejected(rejection { try frozenRealm._beginWrite() }, fragment)
        expectRejected(rejection { try frozenRealm.write {} }, fragment)
        let objectRealm = try required(frozenObject.realm, "frozenObj.realm")
        expectRejected(rejection { try objectRealm._beginWrite() }, fragment)
        expectRejected(rejection { try objectRealm.write {} }, fragment)
        let collectionRealm = try required(frozenResults.realm, "frozenCollection.realm")
        expectRejected(rejection { try collectionRealm._beginWrite() }, fragment)
        expectRejected(rejection { try collectionRealm.write {} }, fragment)
        #expect(!frozenRealm.isInWriteTransaction)
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // Spec F5
    @Test func freezingFrozenReturnsItself() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let frozenRealm = try realm._freeze()
        #expect(try frozenRealm._freeze() == frozenRealm)
        let frozenObject = try holder._freeze()
        #expect(try frozenObject._freeze() === frozenObject)
        let frozenResults = try realm.objects(Holder.self)._freeze()
        let refrozenResults = try frozenResults._freeze()
        #expect(refrozenResults.isFrozen)
        #expect(refrozenResults.realm == frozenResults.realm)
        #expect(try refrozenResults._count() == 1)
        let frozenList = try holder.intArray._freeze()
        #expect(try frozenList._freeze() === frozenList)
        // Two freezes of the same live object are two distinct instances.
        #expect(try holder._freeze() !== holder._freeze())
    }

    // Spec F6
    @Test func invalidatedFrozenRealmCannotBeRead() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, [1])
        let frozen = try realm._freeze()
        #expect(try frozen._objects(IntObj.self)._count() == 1)
        try frozen._invalidate()
        expectRejected(
            rejection { _ = try frozen._objects(IntObj.self) },
            "Cannot read from a frozen Realm which has been invalidated.")
        #expect(realm.objects(IntObj.self).count == 1)  // the live realm is unaffected
    }

    // Spec F7
    @Test func thawingRealmReturnsContextsLiveInstance() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let frozen = try realm._freeze()
        #expect(try frozen._isEmpty())
        try TFR.ints(realm, [1])
        #expect(try !realm._isEmpty())
        let thawed = try frozen._thaw()
        #expect(thawed == realm)
        #expect(!thawed.isFrozen)
        #expect(try frozen._isEmpty())
        #expect(try !thawed._isEmpty())
        // On a thread with no live realm of the file, thaw opens one.
        let frozenBox = Unchecked(frozen)
        let (isFrozen, isEmpty, isCached) = try onOtherThread { () -> (Bool, Bool, Bool) in
            let thawedThere = try frozenBox.value._thaw()
            let cached = try Realm(configuration: configuration)
            return (thawedThere.isFrozen, try thawedThere._isEmpty(), thawedThere == cached)
        }
        #expect(!isFrozen)
        #expect(!isEmpty)
        #expect(isCached)
    }

    // Spec F10
    @Test func writeThroughThawedRealmOnOtherThread() throws {
        let realm = try Realm(configuration: testConfiguration())
        #expect(realm.objects(BoolObj.self).count == 0)
        let frozen = Unchecked(try realm._freeze())
        try onOtherThread {
            let live = try frozen.value._thaw()
            try live.write { live.create(BoolObj.self, value: ["boolCol": true]) }
        }
        #expect(realm.objects(BoolObj.self).count == 0)
        #expect(realm.refresh())
        #expect(realm.objects(BoolObj.self).count == 1)
    }

    // Spec F11
    @Test func whatCannotBeFrozen() throws {
        let realm = try Realm(configuration: testConfiguration())
        expectRejected(rejection { _ = try IntObj()._freeze() }, "Unmanaged objects cannot be frozen.")

        try TFR.ints(realm, [1, 7])
        let objects = realm.objects(IntObj.self).sorted(byKeyPath: "intCol")
        let existing = try required(objects.first, "existing")
        let doomed = try required(objects.last, "doomed")
        try realm.write { realm.delete(doomed) }
        expectRejected(rejection { _ = try doomed._freeze() }, "Object has been deleted or invalidated.")

        try realm._beginWrite()
        let created = realm.create(IntObj.self, value: ["intCol": 5])
        expectRejected(
            rejection { _ = try created._freeze() },
            "Cannot freeze an object in the same write transaction as it was created in.")
        existing.intCol = 2
        let frozen = try existing._freeze()
        #expect(frozen.intCol == 1)  // the value at the start of the transaction
        #expect(existing.intCol == 2)
        try realm._cancelWrite()
        #expect(frozen.intCol == 1)
    }

    // Spec F12
    @Test func frozenObjectsAreImmutable() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, [1])
        let object = try required(realm.objects(IntObj.self).first, "object")
        let frozen = try object._freeze()
        let fragment = "Attempting to modify a frozen object - call thaw on the Object instance first."
        expectRejected(rejection { try frozen._setValue(2, forKey: "intCol") }, fragment)
        try realm._beginWrite()
        expectRejected(rejection { try frozen._setValue(3, forKey: "intCol") }, fragment)
        try realm._cancelWrite()
        #expect(frozen.intCol == 1)
        #expect(object.intCol == 1)
    }

    // Spec F13
    @Test func frozenObjectHashing() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, Array(0..<200))
        let all = realm.objects(IntObj.self)
        var frozenSet = Set<IntObj>()
        var liveSet = Set<IntObj>()
        for index in 0..<100 {
            liveSet.insert(all[index])
            frozenSet.insert(try all[index]._freeze())
        }
        var mismatches: [String] = []
        for object in all {
            if liveSet.contains(object) { mismatches.append("live set holds fresh live \(object.intCol)") }
            if frozenSet.contains(object) { mismatches.append("frozen set holds live \(object.intCol)") }
            if frozenSet.contains(try object._freeze()) != (object.intCol < 100) {
                mismatches.append("frozen membership wrong for \(object.intCol)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    // Spec F10
    @Test func thawedObjectsAreLive() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, [1])
        let live = try required(realm.objects(IntObj.self).first, "object")
        let frozen = try live._freeze()
        let thawed = try required(try frozen._thaw(), "thawed")
        #expect(!thawed.isFrozen)
        #expect(thawed.intCol == 1)
        try realm.write { thawed.intCol = 5 }
        #expect(thawed.intCol == 5)
        #expect(live.intCol == 5)
        #expect(frozen.intCol == 1)
        expectRejected(rejection { _ = try IntObj()._thaw() }, "Unmanaged objects cannot be thawed.")
    }

    // Spec F8
    @Test func thawReadsLatestVersionOfThawingRealm() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object = try realm.write { realm.create(BoolObj.self, value: ["boolCol": true]) }
        let frozen = try object._freeze()
        #expect(frozen.boolCol == object.boolCol)
        try realm.write { object.boolCol = false }
        #expect(frozen.boolCol)
        let thawed = try required(try frozen._thaw(), "thawed")
        #expect(!thawed.isFrozen)
        #expect(thawed.boolCol == false)
        #expect(frozen.boolCol)
    }

    // Spec F8, V2
    @Test func thawNeverRefreshes() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 0]) }
        let reference = try ThreadSafeReference._make(to: object)
        let frozen = try onOtherThread { () -> Frozen<IntObj> in
            let bg = try Realm(configuration: configuration)
            let there = try required(try bg._resolve(reference), "resolved")
            try bg.write { there.intCol = 1 }
            return Frozen(try there._freeze())
        }
        #expect(frozen.value.intCol == 1)
        let thawed = try required(try frozen.value._thaw(), "thawed")
        #expect(thawed.intCol == 0)  // main has not moved
        #expect(object.intCol == 0)
        #expect(realm.refresh())
        #expect(thawed.intCol == 1)
        #expect(try frozen.value._thaw()?.intCol == 1)
    }

    // Spec F14: every property type, and deep freezing of lists and links.
    @Test func frozenCopyOfEveryPropertyType() throws {
        let realm = try Realm(configuration: testConfiguration())
        let date = Date(timeIntervalSince1970: 1_650_000_000.5)
        let uuid = UUID()
        let object = AllTypes()
        object.int = -3
        object.int8 = 8
        object.int16 = 16
        object.int32 = 32
        object.int64 = 64
        object.bool = true
        object.double = 3.25
        object.float = 1.5
        object.string = "text"
        object.data = Data([9, 8, 7])
        object.date = date
        object.uuid = uuid
        object.optInt = 5
        object.optBool = nil
        object.optDouble = 2.5
        object.optFloat = nil
        object.optString = "opt"
        object.optData = nil
        object.optDate = date
        object.optUUID = nil
        object.ints.append(objectsIn: [1, 2, 3])
        object.optStrings.append(objectsIn: ["a", nil, "c"])
        let linked = StrObj()
        linked.stringCol = "linked"
        object.link = linked
        object.objects.append(linked)
        object.indexed = "idx"
        try realm.write { realm.add(object) }
        let frozen = try object._freeze()
        #expect(frozen.isFrozen)
        #expect(frozen.int == object.int && frozen.int8 == object.int8 && frozen.int16 == object.int16)
        #expect(frozen.int32 == object.int32 && frozen.int64 == object.int64 && frozen.bool == object.bool)
        #expect(frozen.double == object.double && frozen.float == object.float && frozen.string == object.string)
        #expect(frozen.data == object.data && frozen.date == object.date && frozen.uuid == object.uuid)
        #expect(frozen.optInt == object.optInt && frozen.optBool == object.optBool)
        #expect(frozen.optDouble == object.optDouble && frozen.optFloat == object.optFloat)
        #expect(frozen.optString == object.optString && frozen.optData == object.optData)
        #expect(frozen.optDate == object.optDate && frozen.optUUID == object.optUUID)
        #expect(frozen.indexed == object.indexed)
        #expect(Array(frozen.ints) == [1, 2, 3])
        #expect(Array(frozen.optStrings) == ["a", nil, "c"])
        #expect(frozen.ints.isFrozen && frozen.optStrings.isFrozen && frozen.objects.isFrozen)
        let frozenLink = try required(frozen.link, "frozen.link")
        #expect(frozenLink.isFrozen && frozenLink.stringCol == "linked")
        #expect(frozen.objects.count == 1)
        #expect(frozen.objects[0].isFrozen && frozen.objects[0].stringCol == "linked")
    }

    // Spec F2
    @Test func frozenCollectionsDoNotChange() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, [1, 2, 3])
        let results = realm.objects(IntObj.self)
        let frozenResults = try results._freeze()
        try TFR.ints(realm, [4])
        #expect(results.count == 4)
        #expect(try frozenResults._count() == 3)
        #expect(try frozenResults.where { $0.intCol == 4 }._count() == 0)

        let holder = try realm.write { () -> Holder in
            let holder = Holder()
            holder.intArray.append(IntObj())
            holder.intArray.append(IntObj())
            realm.add(holder)
            return holder
        }
        let frozenList = try holder.intArray._freeze()
        try realm.write { _ = try holder.intArray._remove(at: 1) }
        #expect(holder.intArray.count == 1)
        #expect(try frozenList._count() == 2)
    }

    // Spec F15, C10
    @Test func frozenResultsIteratedInParallel() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, Array(1...20))
        let frozen = Frozen(try realm.objects(IntObj.self)._freeze())
        let sums = ResultBox<[Int]>()
        sums.set(.success([]))
        DispatchQueue.concurrentPerform(iterations: 100) { _ in
            var sum = 0
            do {
                let results = frozen.value
                for index in 0..<(try results._count()) {
                    sum += try required(try results._element(at: index)._value(forKey: "intCol") as? Int, "intCol")
                }
            } catch {
                sum = -1
            }
            sums.update { $0.append(sum) }
        }
        let collected = try sums.get()
        #expect(collected.count == 100)
        #expect(collected.allSatisfy { $0 == (1...20).reduce(0, +) })
    }

    // Spec F8: thawing Results does not refresh.
    @Test func thawedResultsDoNotRefresh() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        try TFR.strings(realm, ["1", "2"])
        let collection = realm.objects(StrObj.self)
        #expect(collection.count == 2 && collection.first?.stringCol == "1")
        let reference = try ThreadSafeReference._make(to: collection)
        let (frozen, frozenQuery) = try onOtherThread { () -> (Frozen<Results<StrObj>>, Frozen<Results<StrObj>>) in
            let bg = try Realm(configuration: configuration)
            let there = try required(try bg._resolve(reference), "resolved")
            try bg.write { try there._element(at: 0).stringCol = "3" }
            try bg.write { bg.delete(try there._element(at: there._count() - 1)) }
            let query = there.where { $0.stringCol == "1" }
            return (Frozen(try there._freeze()), Frozen(try query._freeze()))
        }
        #expect(try frozen.value._count() == 1 && frozen.value.first?.stringCol == "3")
        #expect(try frozenQuery.value._count() == 0)
        let thawed = try required(try frozen.value._thaw(), "thawed")
        let thawedQuery = try required(try frozenQuery.value._thaw(), "thawed query")
        #expect(thawed.count == 2 && thawed.first?.stringCol == "1")
        #expect(thawedQuery.count == 1)
        #expect(realm.refresh())
        #expect(thawed.count == 1 && thawed.first?.stringCol == "3")
        #expect(thawedQuery.count == 0)
        #expect(try frozen.value._count() == 1 && frozen.value.first?.stringCol == "3")
        #expect(try frozenQuery.value._count() == 0)
    }

    // Spec F8: thawing a List (and a query on it) does not refresh.
    @Test func thawedListDoesNotRefresh() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let company = try realm.write { () -> Company in
            let company = realm.create(Company.self, value: ["name": "c"])
            company.employees.append(realm.create(Employee.self, value: ["name": "1"]))
            company.employees.append(realm.create(Employee.self, value: ["name": "2"]))
            return company
        }
        let collection = company.employees
        #expect(collection.count == 2 && collection.first?.name == "1")
        let reference = try ThreadSafeReference._make(to: collection)
        let (frozen, frozenQuery) = try onOtherThread { () -> (Frozen<List<Employee>>, Frozen<Results<Employee>>) in
            let bg = try Realm(configuration: configuration)
            let there = try required(try bg._resolve(reference), "resolved")
            try bg.write { try there._element(at: 0).name = "3" }
            try bg.write { bg.delete(try there._element(at: there._count() - 1)) }
            let query = there.where { $0.name == "1" }
            return (Frozen(try there._freeze()), Frozen(try query._freeze()))
        }
        #expect(try frozen.value._count() == 1 && frozen.value.first?.name == "3")
        #expect(try frozenQuery.value._count() == 0)
        let thawed = try required(try frozen.value._thaw(), "thawed")
        let thawedQuery = try required(try frozenQuery.value._thaw(), "thawed query")
        #expect(thawed.count == 2 && thawed.first?.name == "1")
        #expect(thawedQuery.count == 1)
        #expect(realm.refresh())
        #expect(thawed.count == 1 && thawed.first?.name == "3")
        #expect(thawedQuery.count == 0)
        #expect(try frozen.value._count() == 1 && frozen.value.first?.name == "3")
        #expect(try frozenQuery.value._count() == 0)
    }

    // Spec F9
    @Test func thawingDeletedObjectGivesNil() throws {
        let realm = try Realm(configuration: testConfiguration())
        try TFR.ints(realm, [1, 2])
        let collection = realm.objects(IntObj.self)
        let frozenElement = try required(collection.first, "first")._freeze()
        #expect(frozenElement.isFrozen)
        try realm.write { realm.delete(collection) }
        #expect(try frozenElement._thaw() == nil)
        #expect(frozenElement.intCol == 1)
    }

    // Spec F16
    @Test func readOnlyRealmCanBeFrozen() throws {
        var configuration = testConfiguration()
        do {
            let writable = try Realm(configuration: configuration)
            try TFR.ints(writable, [1])
        }
        configuration.readOnly = true
        let readOnly = try Realm(configuration: configuration)
        let frozen = try readOnly._freeze()
        #expect(frozen.isFrozen)
        #expect(try frozen._objects(IntObj.self)._count() == 1)
        #expect(readOnly.objects(IntObj.self).count == 1)
    }

    // Spec F2, F17: snapshots at many versions keep values and links through many
    // later writes. (The catalog's live notifiers alongside belong to the notification tests.)
    @Test func frozenSnapshotsSurviveManyWrites() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try realm.write { () -> LinkObj in
            let holder = realm.create(LinkObj.self, value: [String: Any]())
            holder.link = realm.create(StrObj.self, value: ["stringCol": "v0"])
            return holder
        }
        struct Snapshot {
            let write: Int
            let realm: Realm
            let holder: LinkObj
            let results: Results<StrObj>
        }
        var snapshots: [Snapshot] = []
        let writes = 2_000
        for write in 1...writes {
            try realm.write {
                if write % 4 == 0 {
                    holder.link = realm.create(StrObj.self, value: ["stringCol": "v\(write)"])
                } else {
                    holder.link?.stringCol = "v\(write)"
                }
            }
            if write % 100 == 0 {
                let frozenRealm = try realm._freeze()
                snapshots.append(
                    Snapshot(
                        write: write, realm: frozenRealm, holder: try holder._freeze(),
                        results: try frozenRealm._objects(StrObj.self)))
            }
        }
        var mismatches: [String] = []
        for snapshot in snapshots {
            let text = snapshot.holder.link?.stringCol
            if text != "v\(snapshot.write)" { mismatches.append("\(snapshot.write): link reads \(text ?? "nil")") }
            let count = try snapshot.results._count()
            if count != 1 + snapshot.write / 4 { mismatches.append("\(snapshot.write): \(count) StrObj") }
            if try snapshot.realm._objects(LinkObj.self)._count() != 1 {
                mismatches.append("\(snapshot.write): LinkObj")
            }
        }
        #expect(snapshots.count == writes / 100)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(holder.link?.stringCol == "v\(writes)")
    }

    // MARK: - TSR: thread-safe references

    // Spec T1
    @Test func referencesToUnmanagedValuesAreRejected() throws {
        let fragment = "Cannot construct reference to unmanaged object"
        expectRejected(rejection { _ = try ThreadSafeReference._make(to: StrObj()) }, fragment)
        expectRejected(rejection { _ = try ThreadSafeReference._make(to: Holder().intArray) }, fragment)
        expectRejected(rejection { _ = try ThreadSafeReference._make(to: List<IntObj>()) }, fragment)
    }

    // Spec T1: the object and its List, read from the managed object, after deletion.
    @Test func referencesToDeletedValuesAreRejected() throws {
        let realm = try Realm(configuration: testConfiguration())
        let stringObject = StrObj()
        let arrayParent = Holder()
        arrayParent.intArray.append(IntObj())
        try realm._beginWrite()
        realm.add(stringObject)
        realm.add(arrayParent)
        let managedList = arrayParent.intArray
        realm.deleteAll()
        try realm._commitWrite()
        let fragment = "Cannot construct reference to invalidated object"
        expectRejected(rejection { _ = try ThreadSafeReference._make(to: stringObject) }, fragment)
        expectRejected(rejection { _ = try ThreadSafeReference._make(to: managedList) }, fragment)
        expectRejected(rejection { _ = try ThreadSafeReference._make(to: arrayParent.intArray) }, fragment)
    }

    // Spec T1: Realm's own test holds the List taken from the object *before* it was
    // added ("those objects" of Spec T1); once added and deleted it is an invalidated List.
    @Test func listTakenBeforeAddIsInvalidatedAfterDelete() throws {
        let realm = try Realm(configuration: testConfiguration())
        let arrayParent = Holder()
        arrayParent.intArray.append(IntObj())
        let arrayObject = arrayParent.intArray
        try realm._beginWrite()
        realm.add(arrayParent)
        realm.deleteAll()
        try realm._commitWrite()
        expectRejected(
            rejection { _ = try ThreadSafeReference._make(to: arrayObject) },
            "Cannot construct reference to invalidated object")
    }

    // Spec T2
    @Test func referencesResolveOnceAndIndependently() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm._beginWrite()
        let object = realm.create(StrObj.self, value: ["stringCol": "hello"])
        let ref1 = try ThreadSafeReference._make(to: object)
        try realm._commitWrite()
        let ref2 = try ThreadSafeReference._make(to: object)
        let ref3 = try ThreadSafeReference._make(to: object)
        let otherConfiguration = testConfiguration("other.realm")
        let outcome = try onOtherThread { () -> (Bool, Bool, String?, Realm.Error?, Bool, String?, Bool) in
            let other = try Realm(configuration: otherConfiguration)
            let first = try other._resolve(ref1)
            let bg = try Realm(configuration: configuration)
            let second = try bg._resolve(ref2)?.stringCol
            let again = rejection { _ = try bg._resolve(ref2) }
            let ref3Before = ref3.isInvalidated
            let third = try bg._resolve(ref3)?.stringCol
            return (first == nil, ref1.isInvalidated, second, again, ref3Before, third, ref3.isInvalidated)
        }
        #expect(outcome.0)  // another file: nil (Spec T5)
        #expect(outcome.1)
        #expect(outcome.2 == "hello")
        expectRejected(outcome.3, "Can only resolve a thread safe reference once")
        #expect(outcome.4 == false)
        #expect(outcome.5 == "hello")  // ref3 still resolves after ref2 was used
        #expect(outcome.6)
    }

    // Spec T5
    @Test func referenceResolvedInAnotherFileIsNil() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm._beginWrite()
        let object = realm.create(StrObj.self, value: ["stringCol": "hello"])
        let reference = try ThreadSafeReference._make(to: object)
        try realm._commitWrite()
        let otherConfiguration = testConfiguration("empty.realm")
        let (resolvedNil, errorFree) = try onOtherThread { () -> (Bool, Bool) in
            let other = try Realm(configuration: otherConfiguration)
            do {
                return (try other._resolve(reference) == nil, true)
            } catch {
                return (false, false)
            }
        }
        #expect(errorFree)
        #expect(resolvedNil)
        #expect(object.stringCol == "hello")
    }

    // Spec T4, T6, T7
    @Test func resultsReferenceMadeBeforeInserts() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let all = realm.objects(StrObj.self)
        let results = all.where { $0.stringCol != "C" }.sorted(byKeyPath: "stringCol", ascending: false)
        let reference = try ThreadSafeReference._make(to: results)
        try TFR.strings(realm, ["A", "B", "C", "D"])
        #expect(all.count == 4)
        #expect(results.map(\.stringCol) == ["D", "B", "A"])
        let seen = try onOtherThread { () -> [String] in
            let bg = try Realm(configuration: configuration)
            let there = try required(try bg._resolve(reference), "resolved")
            let bgAll = bg.objects(StrObj.self)
            var log: [String] = []
            func note() throws {
                var names: [String] = []
                for index in 0..<(try there._count()) { names.append(try there._element(at: index).stringCol) }
                log.append("\(try bgAll._count())/\(try there._count()) \(names.joined(separator: ","))")
            }
            try note()
            _ = try bg._refresh()
            try note()
            try bg.write {
                bg.delete(try there._element(at: 2))
                bg.delete(try there._element(at: 0))
                bg.create(StrObj.self, value: ["stringCol": "E"])
            }
            try note()
            return log
        }
        #expect(seen == ["0/0 ", "4/3 D,B,A", "3/2 E,B"])
        #expect(all.count == 4)
        #expect(results.map(\.stringCol) == ["D", "B", "A"])
        #expect(realm.refresh())
        #expect(all.count == 3)
        #expect(results.map(\.stringCol) == ["E", "B"])
    }

    // Spec T3, T7, V1
    @Test func referencesToSeveralObjects() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let (stringObject, intObject) = try realm.write { () -> (StrObj, IntObj) in
            let stringObject = StrObj()
            let intObject = IntObj()
            realm.add(stringObject)
            realm.add(intObject)
            return (stringObject, intObject)
        }
        let stringReference = try ThreadSafeReference._make(to: stringObject)
        let intReference = try ThreadSafeReference._make(to: intObject)
        #expect(stringObject.stringCol == "" && intObject.intCol == 0)
        try onOtherThread {
            let bg = try Realm(configuration: configuration)
            let string = try required(try bg._resolve(stringReference), "string")
            let int = try required(try bg._resolve(intReference), "int")
            try bg.write {
                string.stringCol = "the meaning of life"
                int.intCol = 42
            }
        }
        #expect(stringObject.stringCol == "")
        #expect(intObject.intCol == 0)
        #expect(realm.refresh())
        #expect(stringObject.stringCol == "the meaning of life")
        #expect(intObject.intCol == 42)
    }

    // Spec T4, T7
    @Test func resolveIntoNewerRealmReadsTargetVersion() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 7]) }
        let reference = try ThreadSafeReference._make(to: object)
        try realm.write { object.intCol = 9 }
        let (otherBefore, resolvedValue, otherAfter) = try onOtherThread { () -> (Int, Int, Int) in
            let bg = try Realm(configuration: configuration)
            let other = try required(bg.objects(IntObj.self).first, "other accessor")
            let before = other.intCol
            let resolved = try required(try bg._resolve(reference), "resolved")
            let value = resolved.intCol
            try bg.write { resolved.intCol = 10 }
            return (before, value, other.intCol)
        }
        #expect(otherBefore == 9)
        #expect(resolvedValue == 9)
        #expect(otherAfter == 10)
        #expect(object.intCol == 9)
        #expect(realm.refresh())
        #expect(object.intCol == 10)
    }

    // Spec T5
    @Test func referencesMadeInsideWrites() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm._beginWrite()
        let kept = realm.create(IntObj.self, value: ["intCol": 7])
        let keptReference = try ThreadSafeReference._make(to: kept)
        try realm._commitWrite()

        try realm._beginWrite()
        let cancelled = realm.create(IntObj.self, value: ["intCol": 8])
        let cancelledReference = try ThreadSafeReference._make(to: cancelled)
        let holder = realm.create(Holder.self, value: [String: Any]())
        let listReference = try ThreadSafeReference._make(to: holder.intArray)
        try realm._cancelWrite()

        let (keptValue, cancelledIsNil, listInvalid) = try onOtherThread { () -> (Int?, Bool, Bool?) in
            let bg = try Realm(configuration: configuration)
            let keptValue = try bg._resolve(keptReference)?.intCol
            let cancelledIsNil = try bg._resolve(cancelledReference) == nil
            let list = try bg._resolve(listReference)
            return (keptValue, cancelledIsNil, list?.isInvalidated)
        }
        #expect(keptValue == 7)
        #expect(cancelledIsNil)
        #expect(listInvalid == true)
    }

    // Spec T5
    @Test func ownerDeletedBetweenMakeAndResolve() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try realm.write { () -> Holder in
            let holder = Holder()
            for value in 1...2 {
                let element = IntObj()
                element.intCol = value
                holder.intArray.append(element)
            }
            realm.add(holder)
            return holder
        }
        let objectReference = try ThreadSafeReference._make(to: holder)
        let listReference = try ThreadSafeReference._make(to: holder.intArray)
        let resultsReference = try ThreadSafeReference._make(to: holder.intArray.where { $0.intCol > 0 })
        try realm.write { realm.delete(holder) }
        // Resolved in the realm that deleted it, now at the newer version (as core's test does).
        #expect(try realm._resolve(objectReference) == nil)
        let list = try required(try realm._resolve(listReference), "list")
        #expect(list.isInvalidated)
        let results = try required(try realm._resolve(resultsReference), "results")
        #expect(!results.isInvalidated)
        #expect(try results._count() == 0)
    }

    // `Realm.resolve(_:)`'s warning (Spec T8, L1, L5): every unresolved reference, to an
    // object, a List or Results, pins its source version until it is resolved or deallocated.
    @Test("Spec T8, L1, L5: every unresolved reference pins its source version")
    func everyUnresolvedReferencePinsItsVersion() throws {
        var limited = testConfiguration()
        limited.maximumNumberOfActiveVersions = 1
        let configuration = limited
        let realm = try Realm(configuration: configuration)
        let holder = try realm.write { () -> Holder in
            let holder = Holder()
            let element = IntObj()
            element.intCol = 1
            holder.intArray.append(element)
            realm.add(holder)
            return holder
        }
        let element = try required(holder.intArray.first, "element")
        func expectPinnedUntilReleased<T: ThreadConfined>(_ make: () throws -> T, _ what: String) throws {
            var reference: ThreadSafeReference<T>? = try ThreadSafeReference._make(to: make())
            try realm.write { element.intCol += 1 }
            let pinned = rejection { try realm._beginWrite() }
            expectRejected(pinned, "Number of active versions (2) in the Realm exceeded the limit of 1", code: .fail)
            #expect(!realm.isInWriteTransaction, "\(what)")
            #expect(reference?.isInvalidated == false)
            reference = nil  // deallocated unresolved: the pin ends
            let released = rejection { try realm.write { element.intCol += 1 } }
            #expect(released == nil, "\(what): still pinned after the reference was released")
        }
        try expectPinnedUntilReleased({ element }, "object")
        try expectPinnedUntilReleased({ holder.intArray }, "List")
        try expectPinnedUntilReleased({ realm.objects(IntObj.self) }, "Results")

        // Resolving ends the pin too.
        let reference = try ThreadSafeReference._make(to: element)
        try realm.write { element.intCol += 1 }
        let resolved = try onOtherThread { () -> Int? in
            let bg = try Realm(configuration: configuration)
            return try bg._resolve(reference)?.intCol
        }
        #expect(resolved == 7, "a realm that never read begins at the reference's source version")
        #expect(rejection { try realm.write { element.intCol += 1 } } == nil)
    }

    // `Realm.resolve(_:)`'s warning and ThreadSafeReferenceTests.testResolveDeletedObject's
    // premise (Spec T4, T8): the pinned source version still holds an object deleted since, so a
    // realm that has not read yet resolves it there.
    @Test("Spec T4, T8: a realm that never read resolves at the pinned source version")
    func anUnreadRealmResolvesADeletedObjectAtTheSourceVersion() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let object = try realm.write { realm.create(StrObj.self, value: ["stringCol": "kept"]) }
        let reference = try ThreadSafeReference._make(to: object)
        try realm.write { realm.delete(object) }
        #expect(realm.objects(StrObj.self).isEmpty)
        let seen = try onOtherThread { () -> (String?, Int) in
            let bg = try Realm(configuration: configuration)
            let resolved = try bg._resolve(reference)
            let count = bg.objects(StrObj.self).count
            return (resolved?.stringCol, count)
        }
        #expect(seen.0 == "kept")
        #expect(seen.1 == 1, "the new realm reads the source version, before the delete")
    }

    // MARK: - TSW: @ThreadSafe

    // Spec T9. Initializing the wrapper (or a @ThreadSafe argument) with an unmanaged
    // object traps through the non-throwing init; the assignment path is checked here.
    @Test func unmanagedValuesAreRejected() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let object = try realm.write { realm.create(StrObj.self, value: ["stringCol": "before"]) }
        let wrapper = ThreadSafe<StrObj>(wrappedValue: object)
        let fragment = "Only managed objects may be wrapped as thread safe."
        expectRejected(rejection { try wrapper._set(StrObj()) }, fragment)
        let errors = try onOtherThread { () -> [Realm.Error?] in
            let outside = rejection { try wrapper._set(StrObj()) }
            let bg = try Realm(configuration: configuration)
            try bg._beginWrite()
            let inside = rejection { try wrapper._set(StrObj()) }
            try bg._cancelWrite()
            return [outside, inside]
        }
        for error in errors { expectRejected(error, fragment) }
        #expect(try wrapper._get()?.stringCol == "before")  // no effect
    }

    // Spec T9, T10
    @Test func nilConstructionThenAssignmentsOnOtherThreads() throws {
        let configuration = testConfiguration()
        let stringWrapper = ThreadSafe<StrObj>(wrappedValue: nil)
        let intWrapper = ThreadSafe<IntObj>(wrappedValue: nil)
        #expect(try stringWrapper._get() == nil)
        #expect(try intWrapper._get() == nil)
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(StrObj.self).count == 0)
        for (text, number) in [("after", 2), ("after, again", 3)] {
            try onOtherThread {
                let bg = try Realm(configuration: configuration)
                try bg.write {
                    try stringWrapper._set(bg.create(StrObj.self, value: ["stringCol": text]))
                    try intWrapper._set(bg.create(IntObj.self, value: ["intCol": number]))
                }
            }
            #expect(try stringWrapper._get()?.stringCol == text)
            #expect(try intWrapper._get()?.intCol == number)
        }
    }

    // Spec T10: bg deletes the wrapped objects (reading them through the wrappers in
    // its write); main then reads nil, without refreshing.
    @Test func deletedWrappedObjectsReadNil() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let (stringObject, intObject) = try realm.write { () -> (StrObj, IntObj) in
            (realm.create(StrObj.self, value: ["stringCol": "before"]), realm.create(IntObj.self, value: ["intCol": 1]))
        }
        let stringWrapper = ThreadSafe<StrObj>(wrappedValue: stringObject)
        let intWrapper = ThreadSafe<IntObj>(wrappedValue: intObject)
        #expect(try stringWrapper._get()?.stringCol == "before")
        #expect(try intWrapper._get()?.intCol == 1)
        try onOtherThread {
            let bg = try Realm(configuration: configuration)
            try bg.write {
                bg.delete(try required(try stringWrapper._get(), "string"))
                bg.delete(try required(try intWrapper._get(), "int"))
            }
        }
        #expect(try stringWrapper._get() == nil)
        #expect(try intWrapper._get() == nil)
    }

    // Spec T10
    @Test func reassignmentsAndNilOnOtherThreads() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let (stringObject, intObject) = try realm.write { () -> (StrObj, IntObj) in
            (realm.create(StrObj.self, value: ["stringCol": "before"]), realm.create(IntObj.self, value: ["intCol": 1]))
        }
        let stringWrapper = ThreadSafe<StrObj>(wrappedValue: stringObject)
        let intWrapper = ThreadSafe<IntObj>(wrappedValue: intObject)
        func assign(_ text: String?, _ number: Int?) throws {
            try onOtherThread {
                let bg = try Realm(configuration: configuration)
                try bg.write {
                    try stringWrapper._set(text.map { bg.create(StrObj.self, value: ["stringCol": $0]) })
                    try intWrapper._set(number.map { bg.create(IntObj.self, value: ["intCol": $0]) })
                }
            }
        }
        try assign("after", 2)
        #expect(try stringWrapper._get()?.stringCol == "after")
        #expect(try intWrapper._get()?.intCol == 2)
        try assign(nil, nil)
        #expect(try stringWrapper._get() == nil)
        #expect(try intWrapper._get() == nil)
        try assign("after, again", 3)
        #expect(try stringWrapper._get()?.stringCol == "after, again")
        #expect(try intWrapper._get()?.intCol == 3)
    }

    // Spec T10, T4: a wrapped List changed on bg reads the change on main without a
    // refresh.
    @Test func wrappedListCrossesThreads() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let company = try realm.write { () -> Company in
            let company = realm.create(Company.self, value: ["name": "c"])
            company.employees.append(realm.create(Employee.self, value: ["name": "jg"]))
            return company
        }
        let wrapper = ThreadSafe<List<Employee>>(wrappedValue: company.employees)
        let (beforeThere, afterThere) = try onOtherThread { () -> ([String], [String]) in
            let bg = try Realm(configuration: configuration)
            let before = try required(try wrapper._get(), "list").map(\.name)
            try bg.write {
                let employees = try required(try wrapper._get(), "list")
                try employees._removeAll()
                try employees._append(bg.create(Employee.self, value: ["name": "jp"]))
                try employees._append(bg.create(Employee.self, value: ["name": "az"]))
            }
            return (before, try required(try wrapper._get(), "list").map(\.name))
        }
        #expect(beforeThere == ["jg"])
        #expect(afterThere == ["jp", "az"])
        let onMain = try required(try wrapper._get(), "list")
        #expect(onMain.count == 2)
        #expect(onMain.map(\.name) == ["jp", "az"])
    }

    // Spec T10, T4: wrapped Results keep their query and sort across threads.
    @Test func wrappedResultsCrossThreads() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let all = realm.objects(StrObj.self)
        let wrapper = ThreadSafe<Results<StrObj>>(
            wrappedValue: all.where { $0.stringCol != "C" }.sorted(byKeyPath: "stringCol", ascending: false))
        try TFR.strings(realm, ["A", "B", "C", "D"])
        #expect(all.count == 4)
        #expect(try wrapper._get()?.map(\.stringCol) == ["D", "B", "A"])
        let seen = try onOtherThread { () -> [String] in
            let bg = try Realm(configuration: configuration)
            let bgAll = bg.objects(StrObj.self)
            let count = try bgAll._count()
            let before = try required(try wrapper._get(), "results").map(\.stringCol)
            try bg.write {
                bg.delete(try required(try wrapper._get(), "results")._element(at: 2))
                bg.delete(try required(try wrapper._get(), "results")._element(at: 0))
                bg.create(StrObj.self, value: ["stringCol": "E"])
            }
            let after = try required(try wrapper._get(), "results").map(\.stringCol)
            return [
                "\(count) " + before.joined(separator: ","), "\(try bgAll._count()) " + after.joined(separator: ","),
            ]
        }
        #expect(seen == ["4 D,B,A", "3 E,B"])
        #expect(realm.refresh())
        #expect(all.count == 3)
        #expect(try wrapper._get()?.map(\.stringCol) == ["E", "B"])
    }

    // `Realm.resolve(_:)`'s Note and realm-core's refresh_target_realm (Spec T4, N3, N12): a
    // resolve that moves its realm is a refresh: the realm's observers hear of the move and
    // pending collection callbacks run before the resolve returns.
    @Test("Spec T4, N3, N12: a resolve from a newer version refreshes, callbacks included")
    func aResolveThatMovesRunsPendingCallbacks() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var counts: [Int] = []
            let token = realm.objects(IntObj.self).observe { change in
                if case .initial(let results) = change { counts.append(results.count) }
                if case .update(let results, _, _, _) = change { counts.append(results.count) }
            }
            #expect(spinRunLoop { counts == [0] })
            realm.autorefresh = false
            var didChange = 0
            let realmToken = realm.observe { _, _ in didChange += 1 }
            let reference = try onOtherThread { () -> ThreadSafeReference<IntObj> in
                let writer = try Realm(configuration: configuration)
                let object = try writer.write { writer.create(IntObj.self, value: ["intCol": 7]) }
                return ThreadSafeReference(to: object)
            }
            #expect(counts == [0])
            let resolved = try realm._resolve(reference)
            #expect(resolved?.intCol == 7)
            #expect(didChange == 1, "the realm's observers were not told of the move")
            #expect(counts == [0, 1], "the resolve returned before the pending callback ran")
            token.invalidate()
            realmToken.invalidate()
        }
    }

    // `Realm.resolve(_:)`: "Will refresh this Realm if the source Realm was at a later version
    // than this one" (Spec T10, T4): a `@ThreadSafe` read is a resolve, so a realm behind the
    // value's version moves to the newest before the value is read.
    @Test("Spec T10, T4: reading a @ThreadSafe value moves a realm that is behind")
    func aThreadSafeReadRefreshesARealmBehindTheValue() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(StrObj.self).isEmpty)  // reading the empty version
        let cell = try onOtherThread { () -> ThreadSafe<StrObj> in
            let writer = try Realm(configuration: configuration)
            let object = try writer.write { writer.create(StrObj.self, value: ["stringCol": "new"]) }
            try writer.write { writer.create(StrObj.self, value: ["stringCol": "newer"]) }
            return ThreadSafe(wrappedValue: object)
        }
        #expect(realm.objects(StrObj.self).isEmpty, "the realm did not move by itself")
        #expect(try cell._get()?.stringCol == "new")
        #expect(realm.objects(StrObj.self).count == 2, "the read moved the realm to the newest version")
    }

    // Spec T11, C10
    @Test func concurrentReadsAndWritesThroughWrapper() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let object = try realm.write { realm.create(StrObj.self, value: ["stringCol": "before"]) }
        let wrapper = ThreadSafe<StrObj>(wrappedValue: object)
        let failures = ResultBox<[String]>()
        failures.set(.success([]))
        for value in ["middle", "after"] {
            DispatchQueue.concurrentPerform(iterations: 100) { _ in
                do {
                    let resolved = try required(try wrapper._get(), "wrapped object")
                    let objectRealm = try required(resolved.realm, "obj.realm")
                    try objectRealm.write {
                        try required(try wrapper._get(), "wrapped object in write").stringCol = value
                    }
                } catch {
                    failures.update { $0.append("\(error)") }
                }
            }
        }
        let collected = try failures.get()
        #expect(collected.isEmpty, "\(collected.prefix(3))")
        let final = try wrapper._get()?.stringCol
        #expect(final != nil)
        #expect(final != "before")
    }
}

// MARK: - Seed statements: frozen realms' values, thaw of live values and in actors, lifetime

/// An actor with a realm of its own (Spec C15) that thaws frozen values in its isolation.
private actor TFRThawer {
    var realm: Realm?

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    /// Thaws `frozen` here, with no suspension in between: whether the value belongs to the
    /// actor's realm, to the realm `Realm()` gives on the thread this runs on, and is live.
    func thaw(_ frozen: Unchecked<IntObj>) throws -> (actorRealm: Bool, threadRealm: Bool, live: Bool) {
        let actorRealm = try required(realm, "the actor's realm")
        let thawed = try required(try frozen.value._thaw(), "the thawed object")
        let threadRealm = try Realm(configuration: actorRealm.configuration)
        return (thawed.realm == actorRealm, thawed.realm == threadRealm, !thawed.isFrozen)
    }
}

extension ThreadsFreezeReferencesTests {
    @Test("Spec F18, F2: everything read through a frozen realm is frozen, belongs to it and reads its version")
    func valuesReadThroughAFrozenRealmAreFrozen() throws {
        let realm = try Realm(configuration: testConfiguration())
        _ = try addHolderWithOneInt(to: realm)
        try realm.write {
            realm.create(PKInt.self, value: ["id": 1, "name": "a"])
            realm.create(Owner.self, value: ["name": "o", "dog": ["dogName": "d"]])
        }
        let frozen = realm.freeze()
        let results = frozen.objects(Holder.self)
        #expect(results.isFrozen && results.realm == frozen)
        let holder = try #require(results.first)
        #expect(holder.isFrozen && holder.realm == frozen && holder.realm?.isFrozen == true)
        #expect(holder.intArray.isFrozen && holder.intArray.realm == frozen)
        #expect(holder.intArray.first?.isFrozen == true && holder.intArray.first?.realm == frozen)
        let byKey = try #require(frozen.object(ofType: PKInt.self, forPrimaryKey: 1))
        #expect(byKey.isFrozen && byKey.realm == frozen)
        let dog = try #require(frozen.objects(Owner.self).first?.dog)
        #expect(dog.isFrozen && dog.realm == frozen)
        let query = frozen.objects(PKInt.self).where { $0.id > 0 }
        #expect(query.isFrozen && query.first?.isFrozen == true)
        // They read the frozen version, whatever the live realm does.
        try realm.write { realm.delete(realm.objects(PKInt.self)) }
        #expect(frozen.objects(PKInt.self).count == 1 && byKey.name == "a" && query.count == 1)
        // The same reads through the live realm are live.
        #expect(!realm.objects(Holder.self).isFrozen && realm.objects(Holder.self).first?.isFrozen == false)
    }

    @Test("Spec F19, C5, C6: thaw() of a live object, List or Results returns it, in its own context only")
    func thawOfALiveValueReturnsIt() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let holder = try addHolderWithOneInt(to: realm)
        let list = holder.intArray
        let results = realm.objects(IntObj.self)
        #expect(try holder._thaw() === holder)
        #expect(try list._thaw() === list)
        let thawed = try #require(try results._thaw())
        #expect(!thawed.isFrozen && thawed.realm == realm)
        try realm.write { realm.create(IntObj.self, value: ["intCol": 2]) }
        #expect(thawed.count == 2 && results.count == 2)  // still live, the same query
        let elsewhere = Unchecked((holder, list, results))
        try onOtherThread {
            expectRejected(rejection { _ = try elsewhere.value.0._thaw() }, TFR.incorrectThread)
            expectRejected(rejection { _ = try elsewhere.value.1._thaw() }, TFR.incorrectThread)
            expectRejected(rejection { _ = try elsewhere.value.2._thaw() }, TFR.incorrectThread)
        }
    }

    @Test(
        "Spec F20, C15, C1: thaw() in an actor's isolation gives the thread's realm, not the actor's",
        .hangGuard)
    func thawInAnActorGivesTheThreadsRealm() async throws {
        let configuration = testConfiguration()
        let frozen = try { () throws -> Unchecked<IntObj> in
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            return Unchecked(object.freeze())
        }()
        let thawer = TFRThawer()
        try await thawer.open(configuration)
        let answer = try await thawer.thaw(frozen)
        #expect(answer.live)
        #expect(!answer.actorRealm, "thaw() gave the actor's realm")
        #expect(answer.threadRealm, "thaw() did not give the realm of the thread it ran on")
    }

    @Test("Spec F21, F17, F15: frozen values stay readable after every live instance of the file is gone")
    func frozenValuesOutliveTheLiveRealm() throws {
        let configuration = testConfiguration()
        weak var live: AnyObject?
        let (frozenRealm, frozenResults, frozenObject) = try { () throws -> (Realm, Results<IntObj>, IntObj) in
            let realm = try Realm(configuration: configuration)
            live = realm._instance
            let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 7]) }
            let frozen = (realm.freeze(), realm.objects(IntObj.self).freeze(), object.freeze())
            realm.invalidate()
            return frozen
        }()
        #expect(live == nil, "a live instance of the file is still held")
        #expect(frozenRealm.objects(IntObj.self).first?.intCol == 7)
        #expect(frozenResults.count == 1 && frozenResults.first?.intCol == 7)
        #expect(frozenObject.intCol == 7 && !frozenObject.isInvalidated)
        // A new live instance's commits change nothing for them; other threads read them too.
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.deleteAll() }
        }
        let shared = Unchecked((frozenRealm, frozenResults, frozenObject))
        try onOtherThread {
            #expect(shared.value.0.objects(IntObj.self).count == 1)
            #expect(shared.value.1.first?.intCol == 7)
            #expect(shared.value.2.intCol == 7)
        }
    }
}
