import Foundation
import Strata
import Testing

// Regression tests of the divergences the harness (strata-fuzz) found between the API and the
// model, one test per finding, each citing the behaviours and Spec rules that decided it.
// Rejections are observed through the throwing `package` entry points.

/// Helpers private to this file.
private enum HF {
    /// The object with integer primary key `id`, created in its own write.
    @discardableResult
    static func create(_ realm: Realm, _ id: Int, _ name: String) throws -> PKInt {
        try realm.write { realm.create(PKInt.self, value: ["id": id, "name": name]) }
    }

    static let invalidated = "invalidated"
    static let incorrectThread = "incorrect thread"
    static let frozenInvalidated = "Cannot read from a frozen Realm which has been invalidated."
}

@Suite struct HarnessFindingsTests {
    // MARK: - identities are never reused (finding 1)

    // Spec W12, F9, T5: deleting an object and creating another with its primary key
    // does not revive the deleted object's accessor, frozen copy or reference.
    @Test func deletedObjectIsNotRevivedByItsPrimaryKey() throws {
        let realm = try Realm(configuration: testConfiguration())
        let old = try HF.create(realm, 1, "old")
        let frozen = try old._freeze()
        let reference = try ThreadSafeReference._make(to: old)
        let results = realm.objects(PKInt.self)
        try realm.write { realm.delete(old) }
        let new = try HF.create(realm, 1, "new")
        #expect(old.isInvalidated)
        expectRejected(rejection { _ = try old._value(forKey: "name") }, HF.invalidated)
        expectRejected(rejection { try realm.write { try old._setValue("x", forKey: "name") } }, HF.invalidated)
        #expect(results.index(of: old) == nil)
        #expect(results.index(of: new) == 0)
        #expect(try frozen._thaw() == nil)  // Spec F9
        let configuration = realm.configuration
        let resolved = try onOtherThread { () -> Bool in
            let other = try Realm(configuration: configuration)
            #expect(other.objects(PKInt.self).count == 1)  // reads the newest version (T4: it stays)
            return try other._resolve(reference) == nil
        }
        #expect(resolved)  // Spec T5: nil, not the new object
        #expect(new.name == "new")
    }

    // Spec W5, W12, T5; the corpus case cancelled-create-revives-accessor:
    // an object created in a cancelled write stays invalid when the key is created again.
    @Test func cancelledCreateIsNotRevived() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm._beginWrite()
        let cancelled = try realm._create(PKInt.self, value: ["id": 7, "name": "cancelled"], update: .error)
        let plain = try realm._create(IntObj.self, value: ["intCol": 1], update: .error)
        let reference = try ThreadSafeReference._make(to: cancelled)
        try realm._cancelWrite()
        #expect(cancelled.isInvalidated)
        #expect(plain.isInvalidated)
        try realm._beginWrite()
        let again = try realm._create(PKInt.self, value: ["id": 7, "name": "again"], update: .error)
        let plainAgain = try realm._create(IntObj.self, value: ["intCol": 2], update: .error)  // the same key
        try realm._commitWrite()
        #expect(cancelled.isInvalidated)
        #expect(plain.isInvalidated)
        expectRejected(rejection { _ = try cancelled._value(forKey: "name") }, HF.invalidated)
        expectRejected(rejection { _ = try plain._value(forKey: "intCol") }, HF.invalidated)
        #expect(try realm._resolve(reference) == nil)
        #expect(again.name == "again")
        #expect(plainAgain.intCol == 2)
    }

    // Spec F11, W12: re-created in the write is created in the write, and the List of
    // an object created in the write cannot be frozen either.
    @Test func recreatedObjectAndNewListCannotBeFrozen() throws {
        let realm = try Realm(configuration: testConfiguration())
        let old = try HF.create(realm, 1, "old")
        try realm._beginWrite()
        try realm._delete(old)
        let new = try realm._create(PKInt.self, value: ["id": 1, "name": "new"], update: .error)
        expectRejected(rejection { _ = try new._freeze() }, "Cannot freeze an object in the same write transaction")
        let holder = Holder()
        try realm._add(holder)
        expectRejected(
            rejection { _ = try holder.intArray._freeze() },
            "Cannot freeze an object in the same write transaction")
        try realm._commitWrite()
        #expect(try new._freeze().name == "new")
    }

    // MARK: - thaw of live values checks the thread (finding 2)

    // Spec C5, C6: thaw() of a live object, Results or List is a member like
    // any other: from another thread it is rejected.
    @Test func thawOfLiveValuesFromAnotherThread() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let objectBox = Unchecked(holder)
        let resultsBox = Unchecked(realm.objects(IntObj.self))
        let listBox = Unchecked(holder.intArray)
        let errors = try onOtherThread { () -> [Realm.Error?] in
            [
                rejection { _ = try objectBox.value._thaw() },
                rejection { _ = try resultsBox.value._thaw() },
                rejection { _ = try listBox.value._thaw() },
            ]
        }
        for error in errors { expectRejected(error, HF.incorrectThread) }
        #expect(try holder._thaw() === holder)  // on its own thread: itself (Spec F1's rule for values)
    }

    // MARK: - references (finding 3)

    // Spec T1, V13: a reference to an invalidated value names the reference's error,
    // not the collection's.
    @Test func referenceToInvalidatedValues() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try realm.write { () -> Holder in
            let holder = Holder()
            realm.add(holder)
            return holder
        }
        let results = realm.objects(Holder.self)
        let list = holder.intArray
        try realm._invalidate()
        for error in [
            rejection { _ = try ThreadSafeReference._make(to: results) },
            rejection { _ = try ThreadSafeReference._make(to: list) },
            rejection { _ = try ThreadSafeReference._make(to: holder) },
        ] {
            expectRejected(error, "Cannot construct reference to invalidated object")
        }
        let frozen = try realm._freeze()
        let frozenResults = try frozen._objects(Holder.self)
        try frozen._invalidate()
        expectRejected(
            rejection { _ = try ThreadSafeReference._make(to: frozenResults) },
            "Cannot construct reference to invalidated object")
    }

    // Spec T5: a reference typed by a superclass resolves to the object's own class.
    @Test func referenceToObjectResolvesTheSubclass() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object: Object = try HF.create(realm, 3, "three")
        let reference = try ThreadSafeReference._make(to: object)
        let configuration = realm.configuration
        let name = try onOtherThread { () -> String in
            let other = try Realm(configuration: configuration)
            let resolved = try required(try other._resolve(reference), "the resolved object")
            return try required(resolved as? PKInt, "a PKInt").name
        }
        #expect(name == "three")
    }

    // Spec T4, T8: Results referenced inside a write that commits resolve, in
    // a realm that never read, at the committed version (the reference pins it), not before.
    @Test func resultsReferenceMadeInACommittedWrite() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm._beginWrite()
        _ = try realm._create(PKInt.self, value: ["id": 1, "name": "one"], update: .error)
        let reference = try ThreadSafeReference._make(to: realm.objects(PKInt.self))
        try realm._commitWrite()
        try HF.create(realm, 2, "two")  // the source moves on; the reference keeps its version
        let configuration = realm.configuration
        let count = try onOtherThread { () -> Int in
            let other = try Realm(configuration: configuration)
            return try required(try other._resolve(reference), "the Results")._count()
        }
        #expect(count == 1)
    }

    // Spec T4, V13: a resolve after invalidate() starts at the newest version, as every
    // first read after invalidate() does.
    @Test func resolveAfterInvalidateStartsAtTheNewest() throws {
        let realm = try Realm(configuration: testConfiguration())
        try HF.create(realm, 1, "one")
        let reference = try ThreadSafeReference._make(to: realm.objects(PKInt.self))  // pins this version
        let configuration = realm.configuration
        try onOtherThread {
            let other = try Realm(configuration: configuration)
            try HF.create(other, 2, "two")
        }
        try realm._invalidate()
        let resolved = try required(try realm._resolve(reference), "the Results")
        #expect(try resolved._count() == 2)
    }

    // MARK: - delete through frozen realms (finding 4)

    // Spec W11, F6, W9: frozen realms of one version are one instance, so deleting one's
    // object through the other is a write outside a transaction; another file's realm is another.
    @Test func deleteThroughASharedFrozenRealm() throws {
        let realm = try Realm(configuration: testConfiguration())
        try HF.create(realm, 1, "one")
        let first = try realm._freeze()
        let second = try realm._freeze()
        #expect(first == second)
        let object = try required(try second._object(ofType: PKInt.self, forPrimaryKey: 1), "the object")
        expectRejected(rejection { try first._delete(object) }, "in a write transaction")
        let other = try Realm(configuration: testConfiguration("other.realm"))
        try other._beginWrite()
        expectRejected(
            rejection { try other._delete(object) }, "Can only delete an object from the Realm it belongs to.")
        try other._cancelWrite()
    }

    // MARK: - invalidated frozen realms (finding 5)

    // Spec F6, V4, F12, W9: an invalidated frozen realm refuses reads only, and
    // everything frozen at its version shares its invalidation.
    @Test func invalidatedFrozenRealmRefusesReadsOnly() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let frozenResults = try realm.objects(IntObj.self)._freeze()
        let frozenHolder = try holder._freeze()
        let frozenList = try holder.intArray._freeze()
        let element = try required(realm.objects(IntObj.self).first, "the element")
        let frozen = try realm._freeze()
        try frozen._invalidate()
        #expect(try frozen._refresh() == false)  // Spec V4
        expectRejected(rejection { _ = try frozenResults._count() }, HF.frozenInvalidated)
        expectRejected(rejection { _ = try frozenList._count() }, HF.frozenInvalidated)
        #expect(frozenResults.isInvalidated)
        #expect(frozenHolder.isInvalidated)
        expectRejected(
            rejection { _ = try frozen._create(IntObj.self, value: ["intCol": 1], update: .error) },
            "in a write transaction")
        try realm._beginWrite()
        // Realm asks whether the object (the List) is still attached before anything else.
        expectRejected(
            rejection { try frozenHolder._setValue([IntObj](), forKey: "intArray") },
            "Object has been deleted or invalidated.")
        expectRejected(rejection { try frozenList._append(element) }, "List is no longer valid.")
        try realm._cancelWrite()
        // A freeze at that version while the invalidated instance is held gives it back.
        expectRejected(rejection { _ = try realm._freeze()._objects(IntObj.self) }, HF.frozenInvalidated)
        #expect(try realm.objects(IntObj.self)._count() == 1)  // the live realm is unaffected
    }

    // Spec F6, F5: freezing an object, a List or Results at the version of an
    // invalidated shared frozen realm gives values of that realm (the freeze itself reads
    // nothing there), and every read through them is refused. Found by the harness (the
    // engine refused a List's freeze while the model gave a handle).
    @Test func freezeAtAnInvalidatedVersionGivesItsValues() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let frozen = try realm._freeze()
        try frozen._invalidate()
        let list = try holder.intArray._freeze()
        let results = try realm.objects(IntObj.self)._freeze()
        let object = try holder._freeze()
        #expect(list.realm?.isFrozen == true && results.isFrozen && object.isFrozen)
        #expect(list.isInvalidated && results.isInvalidated && object.isInvalidated)
        expectRejected(rejection { _ = try list._count() }, HF.frozenInvalidated)
        expectRejected(rejection { _ = try results._count() }, HF.frozenInvalidated)
        #expect(try list._freeze() === list, "Spec F5: freezing a frozen List returns it")
        // Spec F11 still holds where the frozen realm reads nothing: a List of an object the
        // open write created has no committed state to freeze.
        try realm._beginWrite()
        let created = try realm._create(Holder.self, value: [:], update: .error)
        expectRejected(rejection { _ = try created.intArray._freeze() }, "same write transaction as it was created in")
        try realm._cancelWrite()
    }

    // MARK: - Lists and objects after invalidate() and of other realms (finding 6)

    // Spec V13, W14, W12: a List from before invalidate() stays invalid; a List links
    // only valid objects of its own realm.
    @Test func listsAfterInvalidateAndForeignElements() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let list = holder.intArray
        try realm._invalidate()
        try realm._beginWrite()
        expectRejected(rejection { _ = try list._count() }, HF.invalidated)
        expectRejected(rejection { try list._append(IntObj()) }, HF.invalidated)
        expectRejected(rejection { _ = try holder._value(forKey: "intArray") }, HF.invalidated)
        try realm._cancelWrite()

        let live = try required(realm.objects(Holder.self).first, "the holder").intArray
        let element = try required(realm.objects(IntObj.self).first, "the element")
        let frozenElement = try element._freeze()
        try realm._beginWrite()
        expectRejected(rejection { try live._append(frozenElement) }, "Object is already managed by another Realm")
        let doomed = try realm._create(IntObj.self, value: ["intCol": 9], update: .error)
        try realm._delete(doomed)
        expectRejected(rejection { try live._append(doomed) }, "deleted or invalidated")
        try live._append(element)
        try realm._commitWrite()
        #expect(try live._count() == 2)
    }
}
