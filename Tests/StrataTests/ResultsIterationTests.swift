import Foundation
import Strata
import Testing

/// A class with state of its own beside its `@Persisted` properties: its objects are never
/// reused by an iteration (their state would be carried to the next element).
private final class Tagged: Object {
    @Persisted var intCol: Int
    var tag = 0
}

/// What iterating Results guarantees whatever the iterator does to be fast (Spec V15): every
/// element the loop keeps stays that element, whether it is kept strongly, weakly, unowned,
/// through something made from it, or by state of its own class; and an element read ahead
/// reads what a fresh lookup reads, also after the realm changed during the loop.
@Suite struct ResultsIterationTests {
    private func realm(count: Int) throws -> Realm {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write { for value in 0..<count { realm.create(IntObj.self, value: ["intCol": value]) } }
        return realm
    }

    // Spec V15: objects kept by the loop body keep their own values.
    @Test func keptElementsStayTheirElement() throws {
        let realm = try realm(count: 200)
        var kept: [IntObj] = []
        for object in realm.objects(IntObj.self) where object.intCol % 3 == 0 { kept.append(object) }
        #expect(kept.map(\.intCol) == Array(stride(from: 0, to: 200, by: 3)))
        #expect(Set(kept.map(ObjectIdentifier.init)).count == kept.count)
    }

    // Spec V15: an element the body drops may be reused, but every element reads its own row.
    @Test func droppedElementsReadTheirOwnRows() throws {
        let realm = try realm(count: 300)
        var seen: [Int] = []
        for object in realm.objects(IntObj.self) { seen.append(object.intCol) }
        #expect(seen == Array(0..<300))
    }

    // Spec V15: a weak reference to an element never sees a later element: it names its own
    // element or, once that object is gone, nothing.
    @Test func weakReferencesNeverSeeALaterElement() throws {
        let realm = try realm(count: 50)
        var references: [Weak] = []
        for object in realm.objects(IntObj.self) {
            for (index, reference) in references.enumerated() {
                #expect(reference.object.map { $0.intCol == index } ?? true, "element \(index)")
            }
            references.append(Weak(object))
        }
        #expect(references.count == 50)
    }

    // Spec V15: an element kept through its List keeps its own List.
    @Test func elementsKeptThroughTheirListStayTheirElement() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write {
            for index in 0..<20 {
                let company = realm.create(Company.self, value: ["name": "c\(index)"])
                company.employees.append(Employee(value: ["name": "e\(index)", "age": index]))
            }
        }
        var lists: [List<Employee>] = []
        for company in realm.objects(Company.self) { lists.append(company.employees) }
        #expect(lists.map { $0.first?.age ?? -1 } == Array(0..<20))
    }

    // Spec V15: state a class keeps beside its properties is never carried to another element.
    @Test func stateOfTheUsersClassIsNeverCarriedAlong() throws {
        var configuration = testConfiguration()
        configuration.objectTypes = [Tagged.self]
        let realm = try Realm(configuration: configuration)
        try realm.write { for value in 0..<30 { realm.create(Tagged.self, value: ["intCol": value]) } }
        for object in realm.objects(Tagged.self) {
            #expect(object.tag == 0)
            object.tag = object.intCol + 1
        }
    }

    // Spec V15, W4: a write inside the loop changes what later elements read (they read the
    // realm's current state, not rows read ahead before the write), and a deleted element is
    // still yielded, invalidated.
    @Test func writesDuringTheLoopAreReadByLaterElements() throws {
        let realm = try realm(count: 150)
        let results = realm.objects(IntObj.self)
        var seen: [Int] = []
        var invalidated = 0
        for (index, object) in results.enumerated() {
            if index == 10 {
                try realm.write {
                    for other in realm.objects(IntObj.self) where other.intCol >= 100 { other.intCol += 1000 }
                    realm.delete(realm.objects(IntObj.self).where { $0.intCol == 20 })
                }
            }
            if object.isInvalidated {
                invalidated += 1
            } else {
                seen.append(object.intCol)
            }
        }
        #expect(invalidated == 1)
        #expect(seen == Array(0..<20) + Array(21..<100) + Array(1100..<1150))
    }

    // Spec V15: frozen Results iterate their version, also after the live realm moved.
    @Test func frozenResultsIterateTheirVersion() throws {
        let realm = try realm(count: 100)
        let frozen = realm.objects(IntObj.self).freeze()
        try realm.write { for object in realm.objects(IntObj.self) { object.intCol += 1 } }
        #expect(frozen.map(\.intCol) == Array(0..<100))
        var seen: [Int] = []
        for object in frozen { seen.append(object.intCol) }
        #expect(seen == Array(0..<100))
    }

    // Spec V16 (ResultsTests.testCallInvalidateDuringEnumeration): the request that would end
    // the iteration is a request too, rejected after invalidate(): after the last element, and
    // over Results with no element at all.
    @Test func theRequestThatWouldEndIsRejectedAfterInvalidate() throws {
        let realm = try realm(count: 1)
        var last = try realm.objects(IntObj.self)._makeIterator()
        var empty = try realm.objects(IntObj.self).where { $0.intCol > 5 }._makeIterator()
        #expect(try last._next()?.intCol == 0)
        realm.invalidate()
        for var iterator in [last, empty] {
            do {
                _ = try iterator._next()
                Issue.record("the request was not rejected")
            } catch {
                #expect(error.message == "Collection is no longer valid")
            }
        }
        // Iterations begun after it end with nil, as ever.
        last = try realm.objects(IntObj.self)._makeIterator()
        #expect(try last._next()?.intCol == 0)
        #expect(try last._next() == nil)
        empty = try realm.objects(IntObj.self).where { $0.intCol > 5 }._makeIterator()
        #expect(try empty._next() == nil)
    }

    // Spec V13, W5: a row an object keeps (handed over by a scan in a read, copied by one in
    // a write, found by a lookup) is never read past what invalidates the object: an
    // invalidate, the rollback of the write that created it; and a change made through another
    // object of the same stored object is read, not the kept row.
    @Test func keptRowsNeverOutliveWhatInvalidatesTheirObject() throws {
        let realm = try realm(count: 40)
        var scanned: [IntObj] = []
        for object in realm.objects(IntObj.self) { scanned.append(object) }
        let lookedUp = try #require(realm.objects(IntObj.self).first)
        #expect(try scanned[3]._value(forKey: "intCol") as? Int == 3)  // from the kept row

        try realm.write { realm.objects(IntObj.self)[3].intCol = 300 }  // another object of it
        #expect(try scanned[3]._value(forKey: "intCol") as? Int == 300)

        realm.invalidate()
        for object in [scanned[0], scanned[3], lookedUp] {
            #expect(throws: Realm.Error.self) { _ = try object._value(forKey: "intCol") }
        }

        realm.beginWrite()
        realm.create(IntObj.self, value: ["intCol": 1000])
        var created: IntObj?
        for object in realm.objects(IntObj.self) where object.intCol == 1000 { created = object }
        let made = try #require(created)
        #expect(try made._value(forKey: "intCol") as? Int == 1000)  // from the row copied in the write
        realm.cancelWrite()
        do {
            _ = try made._value(forKey: "intCol")
            Issue.record("a rolled-back object was read")
        } catch {
            #expect(error.message == "Object has been deleted or invalidated.")
        }
    }

    // Spec W12: a lookup hands its object the row it found; a later write is still seen.
    @Test func lookedUpObjectsSeeLaterWrites() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write { realm.create(PKInt.self, value: ["id": 7, "name": "before"]) }
        let object = try #require(realm.object(ofType: PKInt.self, forPrimaryKey: 7))
        #expect(object.name == "before")
        try realm.write { object.name = "after" }
        #expect(object.name == "after")
        #expect(realm.object(ofType: PKInt.self, forPrimaryKey: 7)?.name == "after")
        #expect(realm.object(ofType: PKInt.self, forPrimaryKey: 8) == nil)
    }

    // A row handed over in place may hold a value in overflow pages: that property is read by
    // searching the row again, the others from the row kept; in a scan, after a lookup, and
    // when the object is then updated (its whole row is read to be written back).
    @Test func valuesInOverflowPagesAreReadFromScansAndLookups() throws {
        let realm = try Realm(configuration: testConfiguration())
        let long = String(repeating: "a long name ", count: 800)
        try realm.write {
            for id in 0..<100 {
                realm.create(PKInt.self, value: ["id": id, "name": id % 10 == 0 ? long + "\(id)" : "short \(id)"])
            }
        }
        var names: [String] = []
        var ids: [Int] = []
        for object in realm.objects(PKInt.self) {
            ids.append(object.id)
            names.append(object.name)
        }
        #expect(ids == Array(0..<100))
        #expect(names == (0..<100).map { $0 % 10 == 0 ? long + "\($0)" : "short \($0)" })
        let twenty = try #require(realm.object(ofType: PKInt.self, forPrimaryKey: 20))
        #expect(twenty.id == 20)
        #expect(twenty.name == long + "20")
        try realm.write {
            twenty.id = 20  // the primary key, unchanged: allowed, read from the kept row
            let thirty = try #require(realm.object(ofType: PKInt.self, forPrimaryKey: 30))
            thirty.name = "now short"
        }
        #expect(realm.object(ofType: PKInt.self, forPrimaryKey: 30)?.name == "now short")
        #expect(twenty.name == long + "20")
    }
}

/// A weak reference to an element, kept in an array.
private final class Weak {
    weak var object: IntObj?
    init(_ object: IntObj) { self.object = object }
}
