import Foundation
import Strata
import Testing

/// Results queries and sorting, and every List operation, on managed objects.
@Suite struct QueryAndListTests {
    private func employees(_ realm: Realm) throws {
        try realm.write {
            for (name, age, hired) in [
                ("Ada", 36, true), ("Alan", 41, false), ("Grace", 85, true),
                ("Barbara", 55, false), ("Anita", 29, true),
            ] {
                realm.create(Employee.self, value: ["name": name, "age": age, "hired": hired])
            }
        }
    }

    private func names(_ results: Results<Employee>) -> [String] { results.map(\.name) }

    // Spec V1, W4: queries read the realm's version; comparisons, &&, ||, ! and Bool properties.
    @Test func comparisonsAndLogic() throws {
        let realm = try Realm(configuration: testConfiguration())
        try employees(realm)
        let all = realm.objects(Employee.self).sorted(byKeyPath: "name")
        #expect(names(all.where { $0.age > 40 }) == ["Alan", "Barbara", "Grace"])
        #expect(names(all.where { $0.age >= 41 && $0.age <= 55 }) == ["Alan", "Barbara"])
        #expect(names(all.where { $0.age < 30 || $0.age == 85 }) == ["Anita", "Grace"])
        #expect(names(all.where { $0.age != 36 && $0.hired }) == ["Anita", "Grace"])
        #expect(names(all.where { !$0.hired }) == ["Alan", "Barbara"])
        #expect(names(all.where { !($0.age > 40) && $0.hired == true }) == ["Ada", "Anita"])
        #expect(names(all.where { $0.age.in([29, 41, 99]) }) == ["Alan", "Anita"])
        #expect(names(all.filter { $0.age > 50 }.where { $0.hired }) == ["Grace"])
    }

    // The string tests of the issue: contains, begins, ends, and case-insensitive forms.
    @Test func stringQueries() throws {
        let realm = try Realm(configuration: testConfiguration())
        try employees(realm)
        let all = realm.objects(Employee.self).sorted(byKeyPath: "name")
        #expect(names(all.where { $0.name.starts(with: "A") }) == ["Ada", "Alan", "Anita"])
        #expect(names(all.where { $0.name.ends(with: "a") }) == ["Ada", "Anita", "Barbara"])
        #expect(names(all.where { $0.name.contains("ar") }) == ["Barbara"])
        #expect(names(all.where { $0.name.contains("AR", options: .caseInsensitive) }) == ["Barbara"])
        #expect(names(all.where { $0.name.contains("AR") }).isEmpty)
        #expect(names(all.where { $0.age > 3 && $0.name.starts(with: "A") }) == ["Ada", "Alan", "Anita"])
        #expect(names(all.where { $0.name.equals("grace", options: .caseInsensitive) }) == ["Grace"])
    }

    // Sorting: by name and key path, ascending and descending, several keys, stable ties.
    @Test func sorting() throws {
        let realm = try Realm(configuration: testConfiguration())
        try employees(realm)
        let all = realm.objects(Employee.self)
        #expect(all.sorted(byKeyPath: "age").map(\.age) == [29, 36, 41, 55, 85])
        #expect(all.sorted(byKeyPath: "age", ascending: false).map(\.age) == [85, 55, 41, 36, 29])
        #expect(all.sorted(by: \.name).first?.name == "Ada")
        let byHiredThenAge = all.sorted(by: [
            SortDescriptor(keyPath: "hired", ascending: false),
            SortDescriptor(keyPath: "age"),
        ])
        #expect(names(byHiredThenAge) == ["Anita", "Ada", "Grace", "Alan", "Barbara"])
    }

    // Spec W4, V1: Results are live, first/last/subscript/index(of:) follow writes at once.
    // Spec V20, QueryTests.testSortByKeyPath: sorting through a to-one link; an owner without a
    // dog sorts last ascending and first descending, and a second descriptor breaks ties.
    @Test func testSortByKeyPath() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write {
            let lucy = realm.create(Dog.self, value: ["dogName": "Lucy", "age": 7])
            let freyja = realm.create(Dog.self, value: ["dogName": "Freyja", "age": 6])
            let ziggy = realm.create(Dog.self, value: ["dogName": "Ziggy", "age": 9])
            realm.create(Owner.self, value: ["name": "Mark", "dog": freyja])
            realm.create(Owner.self, value: ["name": "Diane", "dog": lucy])
            realm.create(Owner.self, value: ["name": "Hannah"])
            realm.create(Owner.self, value: ["name": "Don", "dog": ziggy])
            realm.create(Owner.self, value: ["name": "Diane Sr", "dog": ziggy])
        }
        let owners = realm.objects(Owner.self)
        #expect(owners.sorted(byKeyPath: "dog.age").map(\.name) == ["Mark", "Diane", "Don", "Diane Sr", "Hannah"])
        #expect(
            owners.sorted(byKeyPath: "dog.age", ascending: false).map(\.name)
                == ["Hannah", "Don", "Diane Sr", "Diane", "Mark"])
        #expect(
            owners.sorted(by: [SortDescriptor(keyPath: "dog.age"), "name"]).map(\.name)
                == ["Mark", "Diane", "Diane Sr", "Don", "Hannah"])
        #expect(
            owners.sorted(by: [SortDescriptor(keyPath: "dog.age", ascending: false), "name"]).map(\.name)
                == ["Hannah", "Diane Sr", "Don", "Diane", "Mark"])
        // The Swift key path forms name the same path.
        #expect(owners.sorted(by: \.dog?.age).map(\.name) == ["Mark", "Diane", "Don", "Diane Sr", "Hannah"])
        #expect(SortDescriptor(keyPath: \Owner.dog?.dogName).keyPath == "dog.dogName")
        // Live: a dog's age changing reorders its owners.
        try realm.write { owners.first { $0.name == "Mark" }?.dog?.age = 10 }
        #expect(owners.sorted(byKeyPath: "dog.age").map(\.name) == ["Diane", "Don", "Diane Sr", "Mark", "Hannah"])
    }

    // Spec V20, W12: setting a link checks its owner before the value, as Realm's setter
    // verifies the object is attached first: a deleted owner is refused as deleted also when
    // the value is another realm's object (the harness's generation 6 found the other order).
    @Test("Spec V20, W12: a link set on a deleted owner is refused for the owner before the value")
    func linkSetChecksTheOwnerFirst() throws {
        let realm = try Realm(configuration: testConfiguration())
        let other = try Realm(configuration: testConfiguration("other.realm"))
        try other.write { other.create(Dog.self, value: ["dogName": "Rex", "age": 3]) }
        let foreign = try #require(other.objects(Dog.self).first)
        try realm._beginWrite()
        let owner = realm.create(Owner.self, value: ["name": "Ann"])
        #expect(
            rejection { try owner._setValue(foreign, forKey: "dog") }?.message
                == "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        realm.delete(owner)
        #expect(
            rejection { try owner._setValue(foreign, forKey: "dog") }?.message
                == "Object has been deleted or invalidated.")
        #expect(
            rejection { try owner._setValue(nil, forKey: "dog") }?.message == "Object has been deleted or invalidated.")
        try realm._cancelWrite()
    }

    @Test func liveResults() throws {
        let realm = try Realm(configuration: testConfiguration())
        try employees(realm)
        let young = realm.objects(Employee.self).where { $0.age < 40 }.sorted(byKeyPath: "age")
        #expect(young.count == 2 && young.first?.name == "Anita" && young.last?.name == "Ada")
        #expect(young[1].name == "Ada")
        let ada = young[1]
        #expect(young.index(of: ada) == 1)
        realm.beginWrite()
        ada.age = 50
        #expect(young.count == 1 && young.last?.name == "Anita")
        #expect(young.index(of: ada) == nil)
        realm.cancelWrite()
        #expect(young.count == 2)
        #expect(young.realm == realm && !young.isFrozen && !young.isInvalidated)
    }

    // Every List operation (Spec W9: each needs a write).
    @Test func listOperations() throws {
        let realm = try Realm(configuration: testConfiguration())
        let company = Company()
        company.name = "ACME"
        try realm.write { realm.add(company) }
        let list = company.employees
        func employee(_ name: String) -> Employee {
            let made = Employee()
            made.name = name
            return made
        }
        var order: [String] { list.map(\.name) }
        try realm.write {
            list.append(employee("a"))
            list.append(objectsIn: [employee("b"), employee("c")])
            list.insert(employee("z"), at: 0)
        }
        #expect(order == ["z", "a", "b", "c"])
        #expect(list.count == 4 && list[3].name == "c")
        try realm.write {
            list.remove(at: 0)
            list.move(from: 0, to: 2)
            list.swapAt(0, 1)
        }
        #expect(order == ["c", "b", "a"])
        try realm.write {
            list[0] = employee("x")
            list.replace(index: 1, object: employee("y"))
            list.removeLast()
        }
        #expect(order == ["x", "y"])
        #expect(realm.objects(Employee.self).count == 6)  // removing from a List keeps the objects
        #expect(list.where { $0.name == "y" }.count == 1)
        #expect(list.index(of: list[1]) == 1)
        let frozen = list.freeze()
        #expect(frozen.isFrozen && Array(frozen.map(\.name)) == ["x", "y"])
        try realm.write { list.removeAll() }
        #expect(list.isEmpty && frozen.count == 2)
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.count == 0)
        let outOfBounds = rejection { _ = try list._element(at: 5) }
        #expect(outOfBounds?.message.contains("out of bounds") == true)
    }

    // Lists of values, assigning a List property, and unmanaged Lists as plain arrays.
    @Test func listsOfValues() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object = AllTypes()
        object.ints.append(objectsIn: [3, 1, 2])
        #expect(Array(object.ints) == [3, 1, 2] && object.ints.realm == nil)
        try realm.write { realm.add(object) }
        let ints = object.ints
        #expect(ints.realm == realm)  // the same List, now managed (Spec T1)
        try realm.write {
            ints.append(4)
            let replacement = List<Int>()
            replacement.append(objectsIn: [9, 8])
            object.ints = replacement
        }
        #expect(Array(object.ints) == [9, 8])
        #expect(Array(realm.objects(AllTypes.self).first?.ints ?? List()) == [9, 8])
    }

    // The range, offset and value methods of a managed List (the Realm parity suites in
    // RealmParity/ListTests.swift run most of them on unmanaged Lists), and the order of their
    // checks: arguments, then (removeFirst / removeLast) the count, then the write.
    @Test func managedListRangesValuesAndEquality() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object = AllTypes()
        try realm.write { realm.add(object) }
        let ints = object.ints
        try realm.write {
            ints.append(objectsIn: [0, 1, 2, 3, 4, 5, 6])
            ints.removeFirst(2)
            ints.removeLast(2)
            ints.insert(contentsOf: [10, 11], at: 1)
            ints[0..<2] = ints[3..<5]  // a slice of the List itself, longer or shorter alike
        }
        #expect(Array(ints) == [3, 4, 11, 3, 4])
        try realm.write {
            ints.removeSubrange(1...2)
            ints.replaceSubrange(0..<1, with: [7, 7, 7])
            ints.remove(atOffsets: [0, 4])
            ints.move(fromOffsets: [0], toOffset: 3)
        }
        #expect(Array(ints) == [7, 3, 7])
        #expect(ints.index(of: 3) == 1 && ints.index(of: 5) == nil)
        #expect(ints.sum() == 17 && ints.max() == 7 && ints.min() == 3)

        // Outside a write: the count is checked first, an edit that changes nothing passes.
        expectRejected(rejection { try ints._removeFirst(4) }, "It is not possible to remove more objects (4)")
        expectRejected(rejection { try ints._removeLast(1) }, "write transaction")
        expectRejected(rejection { try ints._removeFirst(-1) }, "Cannot pass a negative value for 'index'.")
        expectRejected(rejection { try ints._insert(contentsOf: [1], at: 0) }, "write transaction")
        #expect(rejection { try ints._remove(atOffsets: []) } == nil)
        #expect(rejection { try ints._insert(contentsOf: [Int](), at: 9) } == nil)
        #expect(rejection { try ints._removeFirst(0) } == nil)
        // A negative index is rejected before the write is checked.
        expectRejected(rejection { _ = try ints._remove(at: -1) }, "Cannot pass a negative value for 'index'.")
        expectRejected(rejection { try ints._swapAt(0, -1) }, "Cannot pass a negative value for 'index2'.")

        // Managed Lists are equal when they are the same property of the same object, read
        // through the same realm instance.
        let again = try #require(realm.objects(AllTypes.self).first).ints
        #expect(again == ints && again.isEqual(ints))
        let frozen = ints.freeze()
        #expect(frozen != ints && Array(frozen) == Array(ints))
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [7, 3, 7])
        #expect(unmanaged != ints && !ints.isEqual(unmanaged) && !ints.isEqual(Array(ints)))
        let other = AllTypes()
        try realm.write { realm.add(other) }
        try realm.write { other.ints.append(objectsIn: [7, 3, 7]) }
        #expect(other.ints != ints)
    }
}
