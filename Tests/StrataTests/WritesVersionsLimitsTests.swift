import Foundation
import Strata
import Testing

// Behaviours WRT, VER and AVL of the behaviour catalog (Spec/coverage.md), against Spec/writes.md (W),
// versions.md (V) and limits.md (L). Rejections are observed through the throwing
// `package` entry points; nothing here calls an API in a way that traps, except
// inside exit tests (Spec V16), which run in a child process.
//
// Not here: Spec V4, V5 (realm observers: RealmObserverTests)
// (Swift observers cannot throw) (asyncRefresh) (writeAsync).

/// An error a write block throws (Spec W6).
private struct WVLBlockError: Error, Equatable {
    let id: Int
}

/// "bg": opens the realm of `configuration` on a new thread and commits `change` there.
private func commitOnOtherThread(
    _ configuration: Realm.Configuration,
    _ change: @escaping @Sendable (Realm) throws -> Void
) throws {
    try onOtherThread {
        let realm = try Realm(configuration: configuration)
        try realm.write { try change(realm) }
    }
}

private func addIntObj(_ realm: Realm, _ value: Int) throws {
    _ = try realm._create(IntObj.self, value: ["intCol": value], update: .error)
}

private func limitedConfiguration(_ limit: UInt?) -> Realm.Configuration {
    var configuration = testConfiguration()
    configuration.maximumNumberOfActiveVersions = limit
    return configuration
}

@Suite struct WritesVersionsLimitsTests {
    // MARK: - WRT

    // Spec W2
    @Test func nestedWriteIsRejected() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm.write {
            try addIntObj(realm, 1)
            let nestedBegin = rejection { try realm._beginWrite() }
            #expect(nestedBegin?.code == .programmerError)
            #expect(nestedBegin?.message.contains("The Realm is already in a write transaction") == true)
            let nestedWrite = rejection { try realm.write {} }
            #expect(nestedWrite?.code == .programmerError)
            #expect(nestedWrite?.message.contains("The Realm is already in a write transaction") == true)
            // Through another handle of the same thread: the same instance.
            let again = try Realm(configuration: configuration)
            #expect(again == realm)
            let viaHandle = rejection { try again._beginWrite() }
            #expect(viaHandle?.code == .programmerError)
            #expect(viaHandle?.message.contains("The Realm is already in a write transaction") == true)
            // The open transaction is left unchanged.
            #expect(realm.isInWriteTransaction)
            #expect(realm.objects(IntObj.self).count == 1)
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // Spec W4, V12
    @Test func writerSeesItsOwnChanges() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write {
            _ = try realm._create(StrObj.self, value: ["stringCol": "1"], update: .error)
            #expect(realm.objects(StrObj.self).count == 1)
            #expect(realm.objects(StrObj.self).first?.stringCol == "1")
        }
        #expect(realm.objects(StrObj.self).count == 1)
        #expect(realm.objects(StrObj.self).first?.stringCol == "1")
    }

    // Spec W3
    @Test func commitAndCancelNeedAnOpenWrite() throws {
        let realm = try Realm(configuration: testConfiguration())
        let commit = rejection { try realm._commitWrite() }
        #expect(commit?.code == .programmerError)
        #expect(commit?.message.contains("Can't commit a non-existing write transaction") == true)
        let publicCommit = rejection { try realm.commitWrite() }
        #expect(publicCommit?.message.contains("Can't commit a non-existing write transaction") == true)
        let cancel = rejection { try realm._cancelWrite() }
        #expect(cancel?.code == .programmerError)
        #expect(cancel?.message.contains("Can't cancel a non-existing write transaction") == true)
        #expect(!realm.isInWriteTransaction)
    }

    // Spec W3: transaction state belongs to each Realm, not to the thread.
    @Test func writeStateBelongsToEachRealm() throws {
        let a = try Realm(configuration: testConfiguration("a.realm"))
        let b = try Realm(configuration: testConfiguration("b.realm"))
        try a._beginWrite()
        let cancel = rejection { try b._cancelWrite() }
        #expect(cancel?.code == .programmerError)
        #expect(cancel?.message.contains("Can't cancel a non-existing write transaction") == true)
        let commit = rejection { try b._commitWrite() }
        #expect(commit?.code == .programmerError)
        #expect(commit?.message.contains("Can't commit a non-existing write transaction") == true)
        #expect(a.isInWriteTransaction)
        #expect(!b.isInWriteTransaction)
        try a._cancelWrite()
        #expect(!a.isInWriteTransaction)
    }

    // Spec W5
    @Test func cancelInsideWriteBlockEndsItWithoutCommit() throws {
        let realm = try Realm(configuration: testConfiguration())
        var inWriteAfterCancel = true
        try realm.write {
            try addIntObj(realm, 1)
            try realm._cancelWrite()
            inWriteAfterCancel = realm.isInWriteTransaction
        }
        #expect(!inWriteAfterCancel)
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(IntObj.self).count == 0)
        #expect(try realm._refresh() == false)  // nothing was committed
    }

    // Spec W6
    @Test func throwingWriteBlockRollsBackAndRethrows() throws {
        let realm = try Realm(configuration: testConfiguration())
        #expect(throws: WVLBlockError(id: 7)) {
            try realm.write {
                try addIntObj(realm, 1)
                try addIntObj(realm, 2)
                throw WVLBlockError(id: 7)
            }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(IntObj.self).count == 0)
        #expect(throws: WVLBlockError(id: 8)) {
            try realm.write { throw WVLBlockError(id: 8) }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(IntObj.self).count == 0)
        // The realm takes writes again.
        try realm.write { try addIntObj(realm, 3) }
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // Spec W7, W8: invalidate during a write rolls back and frees the write lock.
    @Test func invalidateDuringWriteRollsBack() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm._beginWrite()
        try addIntObj(realm, 1)
        #expect(realm.objects(IntObj.self).count == 1)
        try realm._invalidate()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(IntObj.self).count == 0)
        let other = onOtherThreadWithin(seconds: hangGuardSeconds) { () throws -> Int in
            let bg = try Realm(configuration: configuration)
            try bg.write { try addIntObj(bg, 2) }
            return bg.objects(IntObj.self).count
        }
        #expect(try other?.get() == 1, "another thread could not write after invalidate (write lock held?)")
    }

    // Spec W7, W8: releasing a realm that is in a write rolls back and frees the lock.
    @Test func releasingRealmInWriteRollsBack() throws {
        let configuration = testConfiguration()
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm._beginWrite()
            try addIntObj(realm, 1)
        }
        let reopened = try Realm(configuration: configuration)
        #expect(reopened.objects(IntObj.self).count == 0)
        let other = onOtherThreadWithin(seconds: hangGuardSeconds) { () throws -> Int in
            let bg = try Realm(configuration: configuration)
            try bg.write { try addIntObj(bg, 2) }
            return bg.objects(IntObj.self).count
        }
        #expect(try other?.get() == 1, "another thread could not write after the writer was released")
    }

    // ObjectCreationTests.testCreateWithDictionary's pattern (Spec C1, W7): `Realm()` again in the
    // same context, while an instance nobody references any more is in a write, is that
    // instance, write and all.
    @Test("Spec C1, W7: a realm in a write is held by its context; Realm() again returns it")
    func aReleasedRealmInAWriteIsReturnedAgain() throws {
        let configuration = testConfiguration()
        let committed = try onOtherThread { () -> Int in
            try Realm(configuration: configuration)._beginWrite()
            let again = try Realm(configuration: configuration)
            #expect(again.isInWriteTransaction, "a new instance: the write was lost")
            try addIntObj(again, 1)
            try Realm(configuration: configuration)._commitWrite()
            #expect(try !Realm(configuration: configuration).isInWriteTransaction)
            return try Realm(configuration: configuration).objects(IntObj.self).count
        }
        #expect(committed == 1)
        #expect(try Realm(configuration: configuration).objects(IntObj.self).count == 1)
    }

    // objc RealmTests.testRollbackTransactionWithoutExplicitCommitOrCancel (Spec W7, W8): the
    // held write ends with its thread: rolled back, and the lock is free.
    @Test("Spec W7, W8: a thread's exit releases its realm's abandoned write")
    func aThreadExitRollsBackItsAbandonedWrite() throws {
        let configuration = testConfiguration()
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm._beginWrite()
            try addIntObj(realm, 1)
        }
        let written = onOtherThreadWithin(seconds: hangGuardSeconds) { () throws -> Int in
            let other = try Realm(configuration: configuration)
            try other.write { try addIntObj(other, 2) }
            return other.objects(IntObj.self).count
        }
        #expect(try written?.get() == 1, "the exited thread's write was kept, or its lock never freed")
    }

    // Spec W4, W5
    @Test func isEmptyFollowsTheTransaction() throws {
        let realm = try Realm(configuration: testConfiguration())
        #expect(try realm._isEmpty())
        try realm._beginWrite()
        try addIntObj(realm, 1)
        #expect(try !realm._isEmpty())
        try realm._cancelWrite()
        #expect(try realm._isEmpty())
        try realm.write { try addIntObj(realm, 1) }
        #expect(try !realm._isEmpty())
    }

    // Spec W9. Strata has no throwing form of `append(objectsIn:)`, `removeLast()` or
    // List `setValue(forKey:)`; subscript assignment is `_replace`. The owner's list property
    // set by name is checked instead of List.setValue(forKey:).
    @Test func listMutationsOutsideWriteAreRejected() throws {
        let realm = try Realm(configuration: testConfiguration())
        var holder: Holder!
        var element: IntObj!
        try realm.write {
            element = try realm._create(IntObj.self, value: ["intCol": 1], update: .error)
            holder = try realm._create(Holder.self, value: ["intArray": [element!]], update: .error)
        }
        let list = holder.intArray
        let attempts: [(String, () throws -> Void)] = [
            ("append managed", { try list._append(element) }),
            ("append unmanaged", { try list._append(IntObj()) }),
            ("insert", { try list._insert(element, at: 0) }),
            ("remove at", { _ = try list._remove(at: 0) }),
            ("remove all", { try list._removeAll() }),
            ("replace / subscript set", { try list._replace(index: 0, with: element) }),
            ("move", { try list._move(from: 0, to: 0) }),
            ("swap", { try list._swapAt(0, 0) }),
            ("owner setValue(forKey:)", { try holder._setValue([element!], forKey: "intArray") }),
        ]
        for (name, attempt) in attempts {
            let error = rejection(attempt)
            #expect(error?.code == .programmerError, "\(name)")
            #expect(error?.message.contains("write transaction") == true, "\(name): \(String(describing: error))")
        }
        #expect(try list._count() == 1)
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // Spec W10
    @Test func addingIsIdempotent() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write {
            let object = IntObj()
            object.intCol = 5
            try realm._add(object)
            try realm._add(object)
        }
        #expect(realm.objects(IntObj.self).count == 1)
        try realm.write {
            let first = PKStr()
            first.stringCol = "key"
            first.intCol = 1
            let second = PKStr()
            second.stringCol = "key"
            second.intCol = 2
            try realm._add(first, update: .all)
            try realm._add(second, update: .all)
        }
        #expect(realm.objects(PKStr.self).count == 1)
        #expect(try realm._object(ofType: PKStr.self, forPrimaryKey: "key")?.intCol == 2)
    }

    // Spec W11
    @Test func deleteErrors() throws {
        let a = try Realm(configuration: testConfiguration("a.realm"))
        let b = try Realm(configuration: testConfiguration("b.realm"))
        var objectOfA: IntObj!
        var companyOfA: Company!
        try a.write {
            objectOfA = try a._create(IntObj.self, value: ["intCol": 1], update: .error)
            try addIntObj(a, 2)
            companyOfA = try a._create(
                Company.self, value: ["name": "c", "employees": [["name": "e", "age": 1, "hired": true]]],
                update: .error)
        }
        try b.write { try addIntObj(b, 9) }
        let belongs = "Can only delete an object from the Realm it belongs to."
        let collectionsBelong = "Can only delete objects from the Realm they belong to."  // -[RLMRealm deleteObjects:]

        // Unmanaged, outside and inside a write.
        let unmanagedOutside = rejection { try a._delete(IntObj()) }
        #expect(unmanagedOutside?.code == .programmerError)
        #expect(unmanagedOutside?.message.contains(belongs) == true)
        try a._beginWrite()
        let unmanagedInside = rejection { try a._delete(IntObj()) }
        #expect(unmanagedInside?.code == .programmerError)
        #expect(unmanagedInside?.message.contains(belongs) == true)
        try a._cancelWrite()

        // A's objects, Results and List through B, whether or not either is in a write.
        for (aWrites, bWrites) in [(false, false), (false, true), (true, false), (true, true)] {
            if aWrites { try a._beginWrite() }
            if bWrites { try b._beginWrite() }
            let attempts: [(String, String, () throws -> Void)] = [
                ("object", belongs, { try b._delete(objectOfA) }),
                ("array", belongs, { try b._delete([objectOfA!]) }),
                ("results", collectionsBelong, { try b._delete(a.objects(IntObj.self)) }),
                ("list", collectionsBelong, { try b._delete(companyOfA.employees) }),
            ]
            for (name, message, attempt) in attempts {
                let error = rejection(attempt)
                #expect(error?.code == .programmerError, "\(name) A:\(aWrites) B:\(bWrites)")
                #expect(error?.message == message, "\(name) A:\(aWrites) B:\(bWrites): \(String(describing: error))")
            }
            if aWrites { try a._cancelWrite() }
            if bWrites { try b._cancelWrite() }
        }
        #expect(a.objects(IntObj.self).count == 2)
        #expect(a.objects(Employee.self).count == 1)
        #expect(b.objects(IntObj.self).count == 1)
        #expect(!objectOfA.isInvalidated)

        // Deleting an already-deleted object.
        try a.write { try a._delete(objectOfA) }
        try a._beginWrite()
        let again = rejection { try a._delete(objectOfA) }
        #expect(again?.code == .programmerError)
        #expect(again?.message.contains("Object has been deleted or invalidated.") == true)
        #expect(a.objects(IntObj.self).count == 1)
        try a._cancelWrite()
    }

    // Spec W12
    @Test func deletionInvalidatesAtOnce() throws {
        let realm = try Realm(configuration: testConfiguration())
        var object: IntObj!
        try realm.write { object = try realm._create(IntObj.self, value: ["intCol": 1], update: .error) }
        try realm._beginWrite()
        try realm._delete(object)
        #expect(object.isInvalidated)  // before the commit
        #expect(object.realm == nil)
        let read = rejection { _ = try object._value(forKey: "intCol") }
        #expect(read?.code == .programmerError)
        #expect(read?.message.contains("invalidated") == true)
        let add = rejection { try realm._add(object) }
        #expect(add?.code == .programmerError)
        #expect(add?.message.contains("deleted or invalidated") == true)
        let create = rejection { _ = try realm._create(Holder.self, value: ["intArray": [object!]], update: .error) }
        #expect(create?.code == .programmerError)
        #expect(create?.message.contains("deleted or invalidated") == true)
        #expect(realm.objects(Holder.self).count == 0)
        try realm._commitWrite()
        #expect(object.isInvalidated)
        #expect(realm.objects(IntObj.self).count == 0)

        // deleteAll invalidates every held accessor and empties every type.
        var owner: Owner!
        var dog: Dog!
        try realm.write {
            owner = try realm._create(
                Owner.self, value: ["name": "o", "dog": ["dogName": "d", "age": 2]], update: .error)
            dog = owner.dog
        }
        #expect(realm.objects(Owner.self).count == 1 && realm.objects(Dog.self).count == 1)
        try realm._beginWrite()
        try realm._deleteAll()
        #expect(owner.isInvalidated)
        #expect(dog.isInvalidated)
        // Realm's deleteAll clears the tables: accessors keep naming their realm.
        #expect(owner.realm == realm && dog.realm == realm)
        #expect(realm.objects(Owner.self).count == 0)
        #expect(realm.objects(Dog.self).count == 0)
        try realm._commitWrite()
        #expect(realm.objects(Owner.self).count == 0)
        #expect(realm.objects(Dog.self).count == 0)
    }

    // Spec W5: scalars and links.
    @Test func cancelRestoresScalarsAndLinks() throws {
        let realm = try Realm(configuration: testConfiguration())
        var number: IntObj!
        var linker: LinkObj!
        var one: StrObj!
        var two: StrObj!
        try realm.write {
            number = try realm._create(IntObj.self, value: ["intCol": 0], update: .error)
            linker = try realm._create(LinkObj.self, value: [String: Any](), update: .error)
            one = try realm._create(StrObj.self, value: ["stringCol": "one"], update: .error)
            two = try realm._create(StrObj.self, value: ["stringCol": "two"], update: .error)
        }

        try realm._beginWrite()
        number.intCol = 1
        try realm._cancelWrite()
        #expect(number.intCol == 0)
        #expect(!realm.isInWriteTransaction)

        try realm._beginWrite()
        linker.link = one
        try realm._cancelWrite()
        #expect(linker.link == nil)

        try realm._beginWrite()
        let fresh = StrObj()
        fresh.stringCol = "new"
        linker.link = fresh
        #expect(realm.objects(StrObj.self).count == 3)
        try realm._cancelWrite()
        #expect(linker.link == nil)
        #expect(realm.objects(StrObj.self).count == 2)

        try realm.write { linker.link = one }
        try realm._beginWrite()
        linker.link = nil
        try realm._cancelWrite()
        #expect(linker.link?.stringCol == "one")

        try realm._beginWrite()
        linker.link = two
        try realm._cancelWrite()
        #expect(linker.link?.stringCol == "one")
        #expect(!realm.isInWriteTransaction)
    }

    // Spec W5: List appends, removals and replacements.
    @Test func cancelRestoresLists() throws {
        let realm = try Realm(configuration: testConfiguration())
        var holder: Holder!
        var first: IntObj!
        var second: IntObj!
        try realm.write {
            first = try realm._create(IntObj.self, value: ["intCol": 1], update: .error)
            second = try realm._create(IntObj.self, value: ["intCol": 2], update: .error)
            holder = try realm._create(Holder.self, value: ["intArray": [first!]], update: .error)
        }
        let changes: [(String, () throws -> Void)] = [
            ("append existing", { try holder.intArray._append(second) }),
            (
                "append unmanaged",
                {
                    let unmanaged = IntObj()
                    unmanaged.intCol = 3
                    try holder.intArray._append(unmanaged)
                }
            ),
            ("remove at 0", { _ = try holder.intArray._remove(at: 0) }),
            ("replace 0", { try holder.intArray._replace(index: 0, with: second) }),
        ]
        for (name, change) in changes {
            try realm._beginWrite()
            try change()
            try realm._cancelWrite()
            #expect(holder.intArray.map(\.intCol) == [1], "\(name)")
            #expect(realm.objects(IntObj.self).count == 2, "\(name)")
            #expect(!realm.isInWriteTransaction, "\(name)")
        }
    }

    // Spec W14
    @Test func createCopiesDeeplyAcrossRealms() throws {
        let a = try Realm(configuration: testConfiguration("a.realm"))
        let b = try Realm(configuration: testConfiguration("b.realm"))
        var chain: LinkObj!
        var employee: Employee!
        try a.write {
            chain = try a._create(LinkObj.self, value: ["link": ["stringCol": "target"]], update: .error)
            employee = try a._create(Employee.self, value: ["name": "fromA", "age": 30, "hired": true], update: .error)
        }
        var copy: LinkObj!
        try b.write { copy = try b._create(LinkObj.self, value: chain!, update: .error) }
        #expect(a.objects(LinkObj.self).count == 1 && a.objects(StrObj.self).count == 1)
        #expect(b.objects(LinkObj.self).count == 1 && b.objects(StrObj.self).count == 1)
        #expect(copy.realm == b)
        #expect(copy.link?.realm == b)
        #expect(copy.link?.stringCol == "target")
        #expect(chain.realm == a)
        #expect(chain.link?.realm == a)

        // An array literal holding an object of A.
        let literal: [Any] = ["3", [["2", 20, false] as [Any], employee!] as [Any]]
        var company: Company!
        try b.write { company = try b._create(Company.self, value: literal, update: .error) }
        #expect(b.objects(Company.self).count == 1)
        #expect(b.objects(Employee.self).count == 2)  // B: 3 new objects in all
        #expect(company.employees.map(\.name) == ["2", "fromA"])
        #expect(company.employees.allSatisfy { $0.realm == b })
        #expect(a.objects(Employee.self).count == 1)
        #expect(a.objects(Company.self).count == 0)
        #expect(employee.realm == a)
    }

    // Spec W13. Strata has no MutableSet or Map, so only the List part applies.
    @Test func deletingAListDeletesItsTargets() throws {
        let realm = try Realm(configuration: testConfiguration())
        var company: Company!
        var other: Company!
        try realm.write {
            company = try realm._create(
                Company.self,
                value: [
                    "name": "c",
                    "employees": [
                        ["name": "x", "age": 1, "hired": true], ["name": "y", "age": 2, "hired": false],
                    ],
                ], update: .error)
            other = try realm._create(
                Company.self, value: ["name": "d", "employees": company.employees], update: .error)
        }
        #expect(realm.objects(Employee.self).count == 2)
        #expect(other.employees.count == 2)
        try realm.write { try realm._delete(company.employees) }
        #expect(realm.objects(Employee.self).count == 0)
        #expect(company.employees.count == 0)
        #expect(other.employees.count == 0)
        #expect(realm.objects(Company.self).count == 2)
    }

    // Spec W4
    @Test func resultsAreLiveInsideAWrite() throws {
        let realm = try Realm(configuration: testConfiguration())
        let zeros = realm.objects(IntObj.self).where { $0.intCol == 0 }
        try realm.write {
            let object = try realm._create(IntObj.self, value: ["intCol": 0], update: .error)
            #expect(zeros.first?.intCol == 0)
            #expect(zeros.last?.intCol == 0)
            object.intCol = 1
            #expect(zeros.first == nil)
            #expect(zeros.last == nil)
        }
        #expect(zeros.first == nil)
        #expect(realm.objects(IntObj.self).where { $0.intCol == 1 }.count == 1)
    }

    // Spec V15
    @Test func writesDuringEnumeration() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write { for _ in 0..<40 { try addIntObj(realm, 0) } }
        var visited = 0
        for object in realm.objects(IntObj.self).where({ $0.intCol == 0 }) {
            try realm._beginWrite()
            object.intCol = 1
            try realm._commitWrite()
            visited += 1
        }
        #expect(visited == 40)
        #expect(realm.objects(IntObj.self).where { $0.intCol == 1 }.count == 40)
        #expect(realm.objects(IntObj.self).where { $0.intCol == 0 }.count == 0)
    }

    // MARK: - VER

    // Spec V6
    @Test func autorefreshDefaultsToTrueAndReadsBack() throws {
        let realm = try Realm(configuration: testConfiguration())
        #expect(realm.autorefresh)
        realm.autorefresh = false
        #expect(!realm.autorefresh)
        realm.autorefresh = true
        #expect(realm.autorefresh)
    }

    // Spec V7: the effect of autorefresh without observers. The realm does not move
    // inside bg's commit, and moves once its own run loop turns.
    @Test func autorefreshMovesOnALaterRunLoopTurn() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let strings = realm.objects(StrObj.self)
        #expect(strings.count == 0)
        try commitOnOtherThread(configuration) { bg in
            _ = try bg._create(StrObj.self, value: ["stringCol": "string"], update: .error)
        }
        #expect(strings.count == 0)  // not moved during bg's commit
        #expect(spinRunLoop(seconds: hangGuardSeconds) { strings.count == 1 })
        #expect(strings.count == 1)
        #expect(strings.first?.stringCol == "string")
        #expect(try realm._refresh() == false)  // autorefresh already moved it to the newest
    }

    // Spec V8: a thread that never returns to its run loop does not move.
    @Test func noRunLoopTurnNoMove() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        #expect(realm.autorefresh)
        #expect(realm.objects(IntObj.self).count == 0)
        try commitOnOtherThread(configuration) { bg in try addIntObj(bg, 1) }
        Thread.sleep(forTimeInterval: 0.3)  // blocks without turning the loop
        #expect(realm.objects(IntObj.self).count == 0)
        #expect(try realm._refresh() == true)
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // Spec V1, V4
    @Test func realmStaysPinnedUntilRefresh() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(IntObj.self).count == 0)
        try commitOnOtherThread(configuration) { bg in try addIntObj(bg, 1) }
        #expect(try realm._refresh() == true)
        #expect(realm.objects(IntObj.self).count == 1)
        try commitOnOtherThread(configuration) { bg in try addIntObj(bg, 2) }
        #expect(realm.objects(IntObj.self).count == 1)
        #expect(try realm._refresh() == true)
        #expect(realm.objects(IntObj.self).count == 2)
        #expect(try realm._refresh() == false)
    }

    // Spec V11, without observers: beginWrite moves to the newest version whatever
    // autorefresh says. (The `.didChange` timing part needs observers.)
    @Test func beginWriteMovesToNewestFirst() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        for autorefresh in [true, false] {
            realm.autorefresh = autorefresh
            let before = realm.objects(IntObj.self).count
            try commitOnOtherThread(configuration) { bg in try addIntObj(bg, 1) }
            #expect(realm.objects(IntObj.self).count == before, "autorefresh \(autorefresh)")
            try realm._beginWrite()
            #expect(realm.objects(IntObj.self).count == before + 1, "autorefresh \(autorefresh)")
            try realm._cancelWrite()
            #expect(realm.objects(IntObj.self).count == before + 1, "autorefresh \(autorefresh)")
        }
    }

    // Spec V13
    @Test func listStaysInvalidAfterInvalidate() throws {
        let realm = try Realm(configuration: testConfiguration())
        var holder: Holder!
        try realm.write {
            let element = try realm._create(IntObj.self, value: ["intCol": 1], update: .error)
            holder = try realm._create(Holder.self, value: ["intArray": [element]], update: .error)
        }
        let list = holder.intArray
        #expect(try list._count() == 1)
        try realm._invalidate()
        #expect(list.isInvalidated)

        func expectInvalidated(_ name: String, _ body: () throws -> Void) {
            let error = rejection(body)
            #expect(error?.code == .programmerError, "\(name)")
            #expect(error?.message.contains("invalidated") == true, "\(name): \(String(describing: error))")
        }
        expectInvalidated("count") { _ = try list._count() }
        expectInvalidated("element") { _ = try list._element(at: 0) }
        // A new read does not revive it.
        #expect(realm.objects(Holder.self).count == 1)
        expectInvalidated("count after new read") { _ = try list._count() }
        // Nor does a new write.
        try realm._beginWrite()
        let element = try #require(realm.objects(IntObj.self).first)
        expectInvalidated("count in write") { _ = try list._count() }
        expectInvalidated("element in write") { _ = try list._element(at: 0) }
        expectInvalidated("append") { try list._append(element) }
        expectInvalidated("insert") { try list._insert(element, at: 0) }
        expectInvalidated("remove") { _ = try list._remove(at: 0) }
        expectInvalidated("removeAll") { try list._removeAll() }
        expectInvalidated("replace") { try list._replace(index: 0, with: element) }
        expectInvalidated("move") { try list._move(from: 0, to: 0) }
        expectInvalidated("swap") { try list._swapAt(0, 0) }
        try realm._cancelWrite()
        #expect(list.isInvalidated)
        #expect(realm.objects(Holder.self).first?.intArray.count == 1)
    }

    // Spec V13, V10
    @Test func readRestartsAtNewestAfterInvalidate() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        var old: IntObj!
        try realm.write { old = try realm._create(IntObj.self, value: ["intCol": 1], update: .error) }
        try realm._invalidate()
        #expect(realm._readVersion == nil)  // the pin is released
        #expect(old.isInvalidated)
        try commitOnOtherThread(configuration) { bg in try addIntObj(bg, 2) }
        let first = try #require(realm.objects(IntObj.self).sorted(byKeyPath: "intCol").first)
        #expect(!first.isInvalidated)
        #expect(first.intCol == 1)
        #expect(realm.objects(IntObj.self).count == 2)  // started at the newest version
        try realm.write { try addIntObj(realm, 3) }
        #expect(realm.objects(IntObj.self).count == 3)
        #expect(old.isInvalidated)
    }

    // Spec V13
    @Test func invalidateOnReadOnlyRealm() throws {
        let configuration = testConfiguration()
        try onOtherThread {
            let writer = try Realm(configuration: configuration)
            try writer.write { try addIntObj(writer, 5) }
        }
        var readOnly = configuration
        readOnly.readOnly = true
        let realm = try Realm(configuration: readOnly)
        let held = try #require(realm.objects(IntObj.self).first)
        #expect(held.intCol == 5)
        try realm._invalidate()
        #expect(held.isInvalidated)
        let fresh = try #require(realm.objects(IntObj.self).first)
        #expect(!fresh.isInvalidated)
        #expect(fresh.intCol == 5)
    }

    // Spec V15
    @Test func refreshDuringEnumerationKeepsTheSnapshot() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        try realm.write { for value in 0..<40 { try addIntObj(realm, value) } }
        let results = realm.objects(IntObj.self)
        #expect(results.count == 40)
        try commitOnOtherThread(configuration) { bg in try bg._delete(bg.objects(IntObj.self)) }
        var yielded = 0
        var invalidated = 0
        for object in results {
            _ = try realm._refresh()
            yielded += 1
            if object.isInvalidated { invalidated += 1 }
        }
        #expect(yielded == 40)
        #expect(invalidated == 40)
        #expect(results.count == 0)
    }

    /// The child-process body of Spec V16's test: invalidates while iterating; the iterator must then trap.
    static func invalidateDuringIteration(inWrite: Bool) throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write { for value in 0..<20 { try addIntObj(realm, value) } }
        if inWrite { try realm._beginWrite() }
        var yielded = 0
        for _ in realm.objects(IntObj.self) {
            yielded += 1
            if yielded == 2 { try realm._invalidate() }
        }
        FileHandle.standardError.write(Data("iteration ended normally after \(yielded) elements\n".utf8))
    }

    // Spec V16. The iterator has no throwing form, so this runs in an exit test: the
    // child process must stop with 'Collection is no longer valid'.
    @Test func invalidateDuringEnumerationOutsideWrite() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try WritesVersionsLimitsTests.invalidateDuringIteration(inWrite: false)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Collection is no longer valid"), "\(stderr)")
    }

    // Spec V16, inside a write.
    @Test func invalidateDuringEnumerationInsideWrite() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try WritesVersionsLimitsTests.invalidateDuringIteration(inWrite: true)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Collection is no longer valid"), "\(stderr)")
    }

    // Spec V6
    @Test func autorefreshBelongsToTheCachedInstance() throws {
        let configuration = testConfiguration()
        do {
            let realm = try Realm(configuration: configuration)
            realm.autorefresh = false
            let same = try Realm(configuration: configuration)
            #expect(same == realm)
            #expect(!same.autorefresh)  // held: the same instance
        }
        let reopened = try Realm(configuration: configuration)
        #expect(reopened.autorefresh)
    }

    // Spec V18: while this thread holds the write lock with an uncommitted object, another
    // thread opens the file and reads without waiting for it, at the newest published version
    // (the committed object only). The reader is given a minute; one that waited for the
    // writer would never finish, since the write ends only after the reader returned.
    @Test func readersDoNotWaitForTheWriter() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm.write { try addIntObj(realm, 1) }
        try realm._beginWrite()
        try addIntObj(realm, 2)
        let read = onOtherThreadWithin(seconds: hangGuardSeconds) { () -> [Int] in
            let reader = try Realm(configuration: configuration)
            return reader.objects(IntObj.self).map(\.intCol)
        }
        let values = try #require(read, "the reader waited for the writer").get()
        #expect(values == [1])
        #expect(realm.isInWriteTransaction)
        try realm._commitWrite()
        let after = try onOtherThread { try Realm(configuration: configuration).objects(IntObj.self).count }
        #expect(after == 2)
    }

    // MARK: - AVL

    // Spec L2
    @Test func activeVersionLimitFailsBeginWrite() throws {
        let realm = try Realm(configuration: limitedConfiguration(3))
        var frozen = [try realm._freeze()]
        for _ in 0..<3 {
            try realm.write {}
            frozen.append(try realm._freeze())
        }
        let message = "Number of active versions (4) in the Realm exceeded the limit of 3"
        let begin = rejection { try realm._beginWrite() }
        #expect(begin?.code == .fail)
        #expect(begin?.message.contains(message) == true, "\(String(describing: begin))")
        #expect(!realm.isInWriteTransaction)
        let write = rejection { try realm.write { try addIntObj(realm, 1) } }
        #expect(write?.code == .fail)
        #expect(write?.message.contains(message) == true, "\(String(describing: write))")
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(IntObj.self).count == 0)
        #expect(Set(frozen.compactMap(\._readVersion)).count == 4)  // keeps the four pins alive
    }

    // Spec L2: "count > limit fails", checked when the write begins.
    @Test func limitIsCheckedAtBeginWithGreaterThan() throws {
        let realm = try Realm(configuration: limitedConfiguration(3))
        var frozen = [try realm._freeze()]
        for _ in 0..<2 {
            try realm.write {}
            frozen.append(try realm._freeze())
        }
        // Three versions are active: the begin succeeds and the commit creates a fourth.
        #expect(rejection { try realm._beginWrite() } == nil)
        try addIntObj(realm, 1)
        #expect(rejection { try realm._commitWrite() } == nil)
        #expect(realm.objects(IntObj.self).count == 1)
        let next = rejection { try realm._beginWrite() }
        #expect(next?.code == .fail)
        #expect(
            next?.message.contains("Number of active versions (4) in the Realm exceeded the limit of 3") == true,
            "\(String(describing: next))")
        #expect(Set(frozen.compactMap(\._readVersion)).count == 3)
    }

    // Spec L2, W1: the limit is checked under the write lock. Another thread holds the lock
    // while two versions are active; this thread's write waits; the holder commits a third.
    // The waiting write then fails: it would begin with three versions active. (Found by
    // StrataCheck once runs drew an active-version limit.)
    @Test func aWriteThatWaitedCountsTheHoldersCommit() throws {
        let configuration = limitedConfiguration(2)
        let realm = try Realm(configuration: configuration)
        let frozen = try realm._freeze()  // pins the first version
        try realm.write {}  // the realm reads (pins) the second
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            do {
                let other = try Realm(configuration: configuration)
                try other._beginWrite()
                holding.signal()
                release.wait()
                try addIntObj(other, 1)
                try other._commitWrite()
            } catch {
                Issue.record("holder: \(error)")
                holding.signal()
            }
        }
        holder.start()
        holding.wait()
        // Two versions are active now: the frozen one and the newest, which both realms read.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { release.signal() }
        let error = rejection { try realm._beginWrite() }
        #expect(error?.code == .fail)
        #expect(error?.message.contains("exceeded the limit of 2") == true, "\(String(describing: error))")
        #expect(!realm.isInWriteTransaction)
        #expect(frozen.isFrozen)
    }

    // Spec L3: an async write is checked against the active-version limit again when its block
    // would begin (Realm checks only when it is queued): queued with three versions active (limit 3), it is
    // overtaken by a synchronous write (Spec A7) that leaves four; the block then never runs
    // and its completion gets the limit's error. Nothing was written by it.
    @Test func asyncWritesCheckTheLimitWhenTheBlockWouldBegin() throws {
        let configuration = limitedConfiguration(3)
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            var frozen = [try realm._freeze()]
            for _ in 0..<2 {
                try realm.write {}
                frozen.append(try realm._freeze())
            }
            var ran = false
            var completions: [Realm.Error?] = []
            let queued = rejection {
                _ = try realm._writeAsync(
                    {
                        ran = true
                        realm.create(IntObj.self)
                    },
                    onComplete: { error in completions.append(error as? Realm.Error) })
            }
            #expect(queued == nil, "queued with three versions active: \(String(describing: queued))")
            try realm.write {}  // four versions active now: three frozen, the newest
            #expect(spinRunLoop(seconds: hangGuardSeconds) { !completions.isEmpty })
            #expect(!ran, "the block ran over the limit")
            let error = try #require(completions.first ?? nil, "the completion had no error")
            #expect(error.code == .fail)
            #expect(
                error.message.contains("Number of active versions (4) in the Realm exceeded the limit of 3"),
                "\(error)")
            #expect(completions.count == 1)
            #expect(!realm.isInWriteTransaction)
            #expect(realm.objects(IntObj.self).count == 0)
            #expect(Set(frozen.compactMap(\._readVersion)).count == 3)
        }
    }

    // Spec L4
    @Test func nilAndZeroMeanNoLimit() throws {
        for limit in [nil, 0] as [UInt?] {
            let realm = try Realm(configuration: limitedConfiguration(limit))
            var frozen = [try realm._freeze()]
            for value in 0..<8 {
                let error = rejection { try realm.write { try addIntObj(realm, value) } }
                #expect(error == nil, "limit \(String(describing: limit)): \(String(describing: error))")
                frozen.append(try realm._freeze())
            }
            #expect(realm.objects(IntObj.self).count == 8)
            #expect(Set(frozen.compactMap(\._readVersion)).count == 9)
        }
    }

    // Spec L5, L1: releasing a pinning Results reference or frozen realm lets writes
    // begin again.
    @Test func releasingPinsRestoresWrites() throws {
        let realm = try Realm(configuration: limitedConfiguration(2))
        #expect(realm.objects(IntObj.self).count == 0)
        var reference: ThreadSafeReference<Results<IntObj>>? = try ThreadSafeReference._make(
            to: realm.objects(IntObj.self))
        try realm.write { try addIntObj(realm, 1) }
        var frozen: Realm? = try realm._freeze()
        try realm.write { try addIntObj(realm, 2) }
        // Active: the reference's version, the frozen one and the newest.
        let blocked = rejection { try realm._beginWrite() }
        #expect(blocked?.code == .fail)
        #expect(
            blocked?.message.contains("Number of active versions (3) in the Realm exceeded the limit of 2") == true,
            "\(String(describing: blocked))")
        #expect(reference?.isInvalidated == false)
        reference = nil  // 3 -> 2
        #expect(rejection { try realm._beginWrite() } == nil)
        try addIntObj(realm, 3)
        try realm._commitWrite()
        // Pin the newest version with a second frozen realm and commit past it: three again.
        var frozenAgain: Realm? = try realm._freeze()
        try realm.write { try addIntObj(realm, 4) }
        let blockedAgain = rejection { try realm._beginWrite() }
        #expect(blockedAgain?.code == .fail)
        #expect(
            blockedAgain?.message.contains("Number of active versions (3) in the Realm exceeded the limit of 2")
                == true,
            "\(String(describing: blockedAgain))")
        #expect(frozen?.isFrozen == true && frozenAgain?.isFrozen == true)
        frozen = nil
        frozenAgain = nil
        #expect(rejection { try realm.write { try addIntObj(realm, 5) } } == nil)
        #expect(realm.objects(IntObj.self).count == 5)
    }
}

// MARK: - Seed statements: invalidate, write's value, primary keys, create, add, delete

/// A primary-keyed class with an optional property (Spec W21).
private final class WVLNote: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var note: String?
    @Persisted var count: Int
}

/// A primary-keyed link target (Spec W22).
private final class WVLTag: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var label: String
}

/// Links and a List to primary-keyed objects (Spec W22); a primary key of its own, so that it
/// can be added with an update policy (W20).
private final class WVLTagged: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var tag: WVLTag?
    @Persisted var tags: List<WVLTag>
}

/// Objects that can link to each other in a cycle (Spec W22).
private final class WVLNode: Object {
    @Persisted var name: String
    @Persisted var next: WVLNode?
}

private func seedConfiguration() -> Realm.Configuration {
    Realm.Configuration(
        fileURL: temporaryDirectory().appendingPathComponent("seed.realm"),
        objectTypes: allFixtureTypes + [WVLNote.self, WVLTag.self, WVLTagged.self, WVLNode.self])
}

/// Callbacks counted on the observing thread (a class, so closures share it).
private final class WVLCalls {
    var count = 0
}

extension WritesVersionsLimitsTests {
    @Test("Spec V19, V13, V14, T4: invalidate() again changes nothing; before any read it only marks the realm")
    func invalidateAgainChangesNothing() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            try realm._invalidate()  // never read: nothing to release, no error
            #expect(realm._readVersion == nil)
            let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            let calls = WVLCalls()
            let token = realm.observe { _, _ in calls.count += 1 }
            realm.invalidate()
            #expect(object.isInvalidated)
            // Again, with no read in between: no error, the same state.
            realm.invalidate()
            try realm._invalidate()
            #expect(realm._readVersion == nil)
            #expect(object.isInvalidated)
            #expect(!realm.isInWriteTransaction)
            // The observer stays (V14); the next read begins at the newest version (V10).
            try commitOnOtherThread(configuration) { $0.create(IntObj.self, value: ["intCol": 2]) }
            #expect(spinRunLoop { calls.count == 1 })
            #expect(realm.objects(IntObj.self).count == 2)
            #expect(object.isInvalidated)
            token.invalidate()
            // Before a realm ever read, invalidate() still counts for a resolve: it begins at the
            // newest version, where a realm that never read begins at the reference's (T4).
            let plain = try ThreadSafeReference._make(to: realm.objects(IntObj.self))
            let marked = try ThreadSafeReference._make(to: realm.objects(IntObj.self))
            try commitOnOtherThread(configuration) { $0.create(IntObj.self, value: ["intCol": 3]) }
            let neverRead = try onOtherThread { () -> Int in
                let fresh = try Realm(configuration: configuration)
                return try required(try fresh._resolve(plain), "resolved Results").count
            }
            let invalidatedFirst = try onOtherThread { () -> Int in
                let fresh = try Realm(configuration: configuration)
                try fresh._invalidate()
                return try required(try fresh._resolve(marked), "resolved Results").count
            }
            #expect(neverRead == 2)
            #expect(invalidatedFirst == 3)
        }
    }

    @Test("Spec W19, N1: write returns its block's value after the commit, also when the block cancelled")
    func writeReturnsTheBlocksValue() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let calls = WVLCalls()
            let token = realm.observe { _, _ in calls.count += 1 }
            let (object, seenInBlock) = try realm.write { () -> (StrObj, Int) in
                (realm.create(StrObj.self, value: ["stringCol": "1"]), calls.count)
            }
            #expect(seenInBlock == 0)
            #expect(calls.count == 1)  // the commit's observers ran before write returned
            #expect(object.stringCol == "1" && !object.isInvalidated && object.realm == realm)
            #expect(!realm.isInWriteTransaction)
            let number = try realm.write { () -> Int in
                realm.create(StrObj.self, value: ["stringCol": "2"])
                realm.cancelWrite()
                return 42
            }
            #expect(number == 42)
            #expect(realm.objects(StrObj.self).count == 1)
            token.invalidate()
        }
    }

    @Test("Spec W20: object(forPrimaryKey:) and update policies: .error refuses, .modified and .all update in place")
    func primaryKeysAndUpdatePolicies() throws {
        let realm = try Realm(configuration: testConfiguration())
        let first = try realm.write { realm.create(PKInt.self, value: ["id": 1, "name": "a"]) }
        #expect(realm.object(ofType: PKInt.self, forPrimaryKey: 1)?.isSameObject(as: first) == true)
        #expect(realm.object(ofType: PKInt.self, forPrimaryKey: 2) == nil)
        expectRejected(
            rejection { _ = try realm._object(ofType: IntObj.self, forPrimaryKey: 1) },
            "'IntObj' does not have a primary key defined")
        // A policy on a type without a primary key is refused first, also outside a write.
        let noKey = "'IntObj' does not have a primary key and can not be updated"
        expectRejected(rejection { try realm._add(IntObj(), update: .modified) }, noKey)
        expectRejected(rejection { _ = try realm._create(IntObj.self, value: ["intCol": 1], update: .all) }, noKey)
        let duplicate = PKInt(value: ["id": 1, "name": "y"])
        try realm.write {
            realm.create(PKInt.self, value: ["id": 2, "name": "b"])
            #expect(realm.object(ofType: PKInt.self, forPrimaryKey: 2)?.name == "b")  // the write's own (W4)
            // .error: refused, nothing changes.
            let exists = "Attempting to create an object of type 'PKInt' with an existing primary key value '1'"
            expectRejected(
                rejection { _ = try realm._create(PKInt.self, value: ["id": 1, "name": "x"], update: .error) },
                exists)
            expectRejected(rejection { try realm._add(duplicate, update: .error) }, exists)
            #expect(duplicate.realm == nil)
            #expect(first.name == "a")
            // .modified and .all: the existing object, updated in place, nothing inserted.
            let updated = realm.create(PKInt.self, value: ["id": 1, "name": "c"], update: .modified)
            #expect(updated.isSameObject(as: first))
            #expect(first.name == "c" && !first.isInvalidated)
            realm.add(duplicate, update: .all)
            #expect(duplicate.realm == realm && duplicate.isSameObject(as: first))
            #expect(first.name == "y")
            #expect(realm.objects(PKInt.self).count == 2)
            expectRejected(rejection { try realm._add(IntObj(), update: .all) }, noKey)
        }
        #expect(realm.object(ofType: PKInt.self, forPrimaryKey: 1)?.name == "y")
    }

    @Test("Spec W21: create reads a dictionary, an array in property order or an object; nothing in it becomes managed")
    func whatCreateReadsFromItsValue() throws {
        let realm = try Realm(configuration: seedConfiguration())
        try realm.write {
            // A dictionary: what it lacks takes the initial value in a new object...
            let note = realm.create(WVLNote.self, value: ["id": 1, "note": "x"])
            #expect(note.note == "x" && note.count == 0)
            // ...and keeps its value in an updated one; nil and NSNull set an optional to nil.
            realm.create(WVLNote.self, value: ["id": 1, "count": 5], update: .modified)
            #expect(note.note == "x" && note.count == 5)
            realm.create(WVLNote.self, value: ["id": 1, "note": NSNull()], update: .all)
            #expect(note.note == nil && note.count == 5)
            realm.create(WVLNote.self, value: ["id": 1, "note": "y"], update: .all)
            realm.create(WVLNote.self, value: ["id": 1, "note": nil] as [String: Any?], update: .modified)
            #expect(note.note == nil)
            // An array, in declaration order: values it lacks are as absent keys; more are refused.
            let fromArray = realm.create(WVLNote.self, value: [2, "z"])
            #expect(fromArray.id == 2 && fromArray.note == "z" && fromArray.count == 0)
            expectRejected(
                rejection { _ = try realm._create(WVLNote.self, value: [3, "w", 1, 9], update: .error) },
                "Invalid array input: more values (4) than properties (3).")
            #expect(realm.objects(WVLNote.self).count == 2)
            // An object, managed or not: every property is read; the object stays as it was.
            let unmanaged = WVLNote(value: ["id": 4, "note": "u", "count": 7])
            let copy = realm.create(WVLNote.self, value: unmanaged)
            #expect(unmanaged.realm == nil && copy.realm == realm)
            #expect(copy.id == 4 && copy.note == "u" && copy.count == 7)
            // Nested values take the same forms and are created with it; an object of this
            // realm given there is linked as it is.
            let company = realm.create(
                Company.self,
                value: [
                    "name": "c",
                    "employees": [
                        ["name": "e1", "age": 30, "hired": true], ["e2", 31, false],
                    ] as [Any],
                ])
            #expect(company.employees.map(\.name) == ["e1", "e2"])
            let existing = try #require(company.employees.first)
            let other = realm.create(Company.self, value: ["name": "d", "employees": [existing]])
            #expect(other.employees.first?.isSameObject(as: existing) == true)
            #expect(realm.objects(Employee.self).count == 2)
        }
    }

    @Test("Spec W22: add takes its unmanaged links and List elements along, each once, under its policy")
    func addTakesItsLinksAlong() throws {
        let configuration = seedConfiguration()
        let realm = try Realm(configuration: configuration)
        let kept = try realm.write { realm.create(Employee.self, value: ["name": "kept", "age": 1]) }
        try realm.write {
            let company = Company(value: ["name": "c"])
            let newcomer = Employee(value: ["name": "new"])
            company.employees.append(newcomer)
            company.employees.append(kept)
            company.employees.append(newcomer)
            realm.add(company)
            #expect(company.realm == realm && newcomer.realm == realm)
            #expect(company.employees.map(\.name) == ["new", "kept", "new"])
            #expect(realm.objects(Employee.self).count == 2)  // the newcomer once, the kept one as it was
            // A cycle of unmanaged objects: each added once.
            let a = WVLNode(value: ["name": "a"])
            let b = WVLNode(value: ["name": "b"])
            a.next = b
            b.next = a
            realm.add(a)
            #expect(realm.objects(WVLNode.self).count == 2)
            #expect(b.realm == realm && b.next?.isSameObject(as: a) == true)
        }
        // Linked objects with a primary key follow the policy; a managed one is linked unchanged.
        try realm.write { realm.create(WVLTag.self, value: ["id": 1, "label": "old"]) }
        let existingTag = try #require(realm.object(ofType: WVLTag.self, forPrimaryKey: 1))
        try realm.write {
            let tagged = WVLTagged(value: ["id": 1])
            tagged.tag = WVLTag(value: ["id": 1, "label": "new"])
            tagged.tags.append(WVLTag(value: ["id": 2, "label": "two"]))
            expectRejected(
                rejection { try realm._add(tagged, update: .error) },
                "Attempting to create an object of type 'WVLTag' with an existing primary key value '1'")
            realm.cancelWrite()
        }
        try realm.write {
            let tagged = WVLTagged(value: ["id": 2])
            tagged.tag = WVLTag(value: ["id": 1, "label": "new"])
            tagged.tags.append(WVLTag(value: ["id": 2, "label": "two"]))
            realm.add(tagged, update: .modified)
            #expect(existingTag.label == "new")
            #expect(realm.objects(WVLTag.self).count == 2)
            let linking = WVLTagged(value: ["id": 3])
            linking.tag = existingTag
            realm.add(linking, update: .all)
            #expect(linking.tag?.isSameObject(as: existingTag) == true && existingTag.label == "new")
        }
        // A linked object of another realm instance is refused with W23's message.
        let other = try Realm(configuration: testConfiguration("other.realm"))
        let foreign = try other.write { other.create(Dog.self, value: ["dogName": "f"]) }
        try realm.write {
            let owner = Owner(value: ["name": "o"])
            owner.dog = foreign
            expectRejected(rejection { try realm._add(owner) }, "Object is already managed by another Realm")
            #expect(foreign.realm == other)
            realm.cancelWrite()
        }
        #expect(realm.objects(Owner.self).count == 0)
    }

    @Test("Spec W23, W14: add of another realm instance's object is refused whatever the policy, and adds nothing")
    func addOfAnotherRealmsObject() throws {
        let configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let other = try Realm(configuration: testConfiguration("other.realm"))
        let foreign = try other.write { other.create(PKInt.self, value: ["id": 1, "name": "f"]) }
        let own = try realm.write { realm.create(PKInt.self, value: ["id": 2, "name": "o"]) }
        let frozen = own.freeze()
        let elsewhere = try onOtherThread { () -> Unchecked<PKInt> in
            let there = try Realm(configuration: configuration)
            return Unchecked(try required(there.object(ofType: PKInt.self, forPrimaryKey: 2), "object"))
        }
        let message = "Object is already managed by another Realm. Use create instead to copy it into this Realm."
        expectRejected(rejection { try realm._add(foreign) }, "write transaction")  // the write first
        try realm.write {
            for policy: Realm.UpdatePolicy in [.error, .modified, .all] {
                expectRejected(rejection { try realm._add(foreign, update: policy) }, message)
                expectRejected(rejection { try realm._add(frozen, update: policy) }, message)
                expectRejected(rejection { try realm._add(elsewhere.value, update: policy) }, message)
            }
            #expect(realm.objects(PKInt.self).count == 1)
            #expect(foreign.realm == other)
            // create copies it instead (W14).
            let copy = realm.create(PKInt.self, value: foreign)
            #expect(copy.realm == realm && copy.name == "f")
        }
        #expect(other.objects(PKInt.self).count == 1)
        // An invalid object is refused as such before the other realm.
        try other.write { other.delete(foreign) }
        try realm.write {
            expectRejected(rejection { try realm._add(foreign) }, "deleted or invalidated")
        }
    }

    @Test("Spec W24, W11: delete takes its objects when it begins: shrinking Results, Lists and slices go whole")
    func deleteTakesItsObjectsWhenItBegins() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write { for value in 0..<10 { realm.create(IntObj.self, value: ["intCol": value]) } }
        let live = realm.objects(IntObj.self)
        try realm.write {
            // Results every deletion shrinks.
            realm.delete(live.where { $0.intCol < 4 })
            #expect(live.count == 6)
            // A slice and a prefix of live Results.
            realm.delete(live[0..<3])
            #expect(live.map(\.intCol) == [7, 8, 9])
            realm.delete(live.prefix(2))
            #expect(live.map(\.intCol) == [9])
            // An element W11 refuses: refused before anything is deleted.
            let survivor = try #require(live.first)
            expectRejected(
                rejection { try realm._delete([survivor, IntObj()]) },
                "Can only delete an object from the Realm it belongs to.")
            #expect(live.count == 1 && !survivor.isInvalidated)
        }
        let holder = try realm.write { () -> Holder in
            let holder = Holder()
            for value in 0..<4 { holder.intArray.append(IntObj(value: ["intCol": value])) }
            realm.add(holder)
            return holder
        }
        try realm.write {
            realm.delete(holder.intArray[1...])  // a slice of a List, which shrinks as they go
            #expect(holder.intArray.map(\.intCol) == [0])
            realm.delete(holder.intArray)
            #expect(holder.intArray.isEmpty)
        }
        #expect(live.count == 1)
    }

    @Test("Spec W25, C5: an unmanaged object's List is never invalidated and belongs to no realm")
    func anUnmanagedObjectsListIsNeverInvalidated() throws {
        var holder: Holder? = Holder()
        let list = try #require(holder?.intArray)
        list.append(IntObj())
        #expect(!list.isInvalidated && list.realm == nil)
        holder = nil
        #expect(!list.isInvalidated && list.count == 1)
        let realm = try Realm(configuration: testConfiguration())
        #expect(realm.objects(IntObj.self).count == 0)
        realm.invalidate()
        #expect(!list.isInvalidated)
        let sendable = Unchecked(list)
        try onOtherThread {
            #expect(!sendable.value.isInvalidated && sendable.value.realm == nil)
            #expect(sendable.value.count == 1)
        }
    }
}
