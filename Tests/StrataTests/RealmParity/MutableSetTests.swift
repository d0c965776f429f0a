import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/MutableSetTests.swift, in our words. Realm's `MutableSetTests` is
// abstract: each test runs once per subclass, which differ only in how the set's owner is made.
// Here each test takes that subclass as its argument (`PSSetVariant`).
//
// Not here (Strata lacks the subject): testValueForKey and testValueForKeyOptional (key-value
// coding on collections, Decimal128, ObjectId, RealmOptional). Left out of
// testPrimitiveIterationAcrossNil: its Decimal128 and ObjectId sets.

/// The subclasses of Realm's `MutableSetTests`: how the tested set's owner comes to be.
enum PSSetVariant: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case standalone = "MutableSetStandaloneTests"
    case newlyAdded = "MutableSetNewlyAddedTests"
    case newlyCreated = "MutableSetNewlyCreatedTests"
    case retrieved = "MutableSetRetrievedTests"

    var testDescription: String { rawValue }
}

/// The state of one Realm `MutableSetTests` test after its `setUp`: three committed strings, two
/// owners and their sets, and a write open on the test realm (which `finish()` commits).
final class PSSetCase {
    let variant: PSSetVariant
    let files = ParitySetFiles()
    let realm: Realm
    let str1 = PLStringObject(stringCol: "1")
    let str2 = PLStringObject(stringCol: "2")
    let str3 = PLStringObject(stringCol: "3")
    let setObject: PSMutableSetPropertyObject
    let set: MutableSet<PLStringObject>
    let set2: MutableSet<PLStringObject>

    init(_ variant: PSSetVariant) throws {
        self.variant = variant
        realm = try files.realmWithTestPath()
        setObject = try PSSetCase.createSet(variant, realm: realm)
        set = setObject.set
        set2 = try PSSetCase.createSet(variant, realm: realm).set
        try realm.write {
            realm.add(str1)
            realm.add(str2)
            realm.add(str3)
        }
        realm.beginWrite()
    }

    static func run(_ variant: PSSetVariant, _ body: (PSSetCase) throws -> Void) throws {
        let testCase = try PSSetCase(variant)
        try body(testCase)
        if testCase.realm.isInWriteTransaction { try testCase.realm.commitWrite() }
    }

    private static func createSet(_ variant: PSSetVariant, realm: Realm) throws -> PSMutableSetPropertyObject {
        switch variant {
        case .standalone:
            let object = PSMutableSetPropertyObject()
            #expect(object.realm == nil)
            return object
        case .newlyAdded:
            let object = PSMutableSetPropertyObject()
            object.name = "name"
            try realm.write { realm.add(object) }
            #expect(object.realm != nil)
            return object
        case .newlyCreated:
            realm.beginWrite()
            let object = realm.create(PSMutableSetPropertyObject.self, value: ["name"])
            try realm.commitWrite()
            return object
        case .retrieved:
            realm.beginWrite()
            realm.create(PSMutableSetPropertyObject.self, value: ["name"])
            try realm.commitWrite()
            return try #require(realm.objects(PSMutableSetPropertyObject.self).last)
        }
    }

    /// `createSetWithLinks()`: an owner of a set of `PSSwiftObject` in the default realm.
    func createSetWithLinks() throws -> PSMutableSetOfSwiftObject {
        if variant == .standalone { return PSMutableSetOfSwiftObject() }
        let realm = try files.defaultRealm()
        switch variant {
        case .standalone, .newlyAdded:
            let object = PSMutableSetOfSwiftObject()
            try realm.write { realm.add(object) }
            return object
        case .newlyCreated:
            realm.beginWrite()
            let object = realm.create(PSMutableSetOfSwiftObject.self)
            try realm.commitWrite()
            return object
        case .retrieved:
            realm.beginWrite()
            realm.create(PSMutableSetOfSwiftObject.self)
            try realm.commitWrite()
            return try #require(realm.objects(PSMutableSetOfSwiftObject.self).first)
        }
    }
}

extension RealmParitySets {
    @Suite struct MutableSetTests {
        private static let variants = PSSetVariant.allCases

        @Test(arguments: variants)
        func testPrimitive(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { _ in
                let object = PSMutableSetObject()
                object.int.insert(5)
                #expect(object.int.first == 5)
                #expect(object.int.last == 5)
                #expect(object.int[0] == 5)
                object.int.insert(objectsIn: [6, 7, 8])
                #expect(object.int.max() == 8)
                #expect(object.int.sum() == 26)
                object.string.insert("str")
                #expect(object.string.first == "str")
                #expect(object.string[0] == "str")
            }
        }

        @Test(arguments: variants)
        func testPrimitiveIterationAcrossNil(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { _ in
                let object = PSMutableSetObject()
                #expect(!object.int.contains(5))
                #expect(!object.int8.contains(5))
                #expect(!object.int16.contains(5))
                #expect(!object.int32.contains(5))
                #expect(!object.int64.contains(5))
                #expect(!object.float.contains(3.141592))
                #expect(!object.double.contains(3.141592))
                #expect(!object.string.contains("foobar"))
                #expect(!object.data.contains(Data()))
                #expect(!object.date.contains(Date()))
                #expect(!object.uuidOpt.contains(UUID()))
                #expect(!object.intOpt.contains { $0 == nil })
                #expect(!object.int8Opt.contains { $0 == nil })
                #expect(!object.int16Opt.contains { $0 == nil })
                #expect(!object.int32Opt.contains { $0 == nil })
                #expect(!object.int64Opt.contains { $0 == nil })
                #expect(!object.floatOpt.contains { $0 == nil })
                #expect(!object.doubleOpt.contains { $0 == nil })
                #expect(!object.stringOpt.contains { $0 == nil })
                #expect(!object.dataOpt.contains { $0 == nil })
                #expect(!object.dateOpt.contains { $0 == nil })
                #expect(!object.uuidOpt.contains { $0 == nil })
            }
        }

        @Test(arguments: variants)
        func testInvalidated(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                #expect(!c.set.isInvalidated)
                if let realm = c.setObject.realm {
                    realm.delete(c.setObject)
                    #expect(c.set.isInvalidated)
                }
            }
        }

        @Test(arguments: variants)
        func testFastEnumerationWithMutation(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.insert(objectsIn: Array(repeating: [c.str1, c.str2], count: 10).flatMap { $0 })
                var text = ""
                for object in c.set {
                    text += object.stringCol
                    c.set.insert(objectsIn: [c.str1])
                }
                #expect(text.count == 2)
                #expect(c.set.contains(c.str1))
                #expect(c.set.contains(c.str2))
            }
        }

        @Test(arguments: variants)
        func testAppendObject(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                for object in [c.str1, c.str2, c.str1] { c.set.insert(object) }
                #expect(c.set.count == 2)
                #expect(c.set.contains(c.str1))
                #expect(c.set.contains(c.str2))
            }
        }

        @Test(arguments: variants)
        func testInsert(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.insert(objectsIn: [c.str1, c.str2, c.str1])
                #expect(c.set.count == 2)
                #expect(c.set.contains(c.str1))
                #expect(c.set.contains(c.str2))
            }
        }

        @Test(arguments: variants)
        func testAppendResults(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.insert(objectsIn: c.realm.objects(PLStringObject.self))
                #expect(c.set.count == 3)
                for object in c.set {
                    #expect(
                        object.isSameObject(as: c.str1) || object.isSameObject(as: c.str2)
                            || object.isSameObject(as: c.str3))
                }
            }
        }

        @Test(arguments: variants)
        func testRemoveAll(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.insert(objectsIn: [c.str1, c.str2])
                c.set.removeAll()
                #expect(c.set.count == 0)
                c.set.removeAll()
                #expect(c.set.count == 0)
            }
        }

        @Test(arguments: variants)
        func testRemoveObject(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.insert(objectsIn: [c.str1, c.str2])
                #expect(c.set.contains(c.str1))
                #expect(c.set.count == 2)
                c.set.remove(c.str1)
                #expect(!c.set.contains(c.str1))
                #expect(c.set.count == 1)
                c.set.removeAll()
                #expect(c.set.count == 0)
                #expect(!c.set.contains(c.str1))
                #expect(!c.set.contains(c.str2))
            }
        }

        @Test(arguments: variants)
        func testChangesArePersisted(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                guard let realm = c.set.realm else { return }
                c.set.insert(objectsIn: [c.str1, c.str2])
                let otherSet = try #require(realm.objects(PSMutableSetPropertyObject.self).first).set
                #expect(otherSet.count == 2)
            }
        }

        @Test(arguments: variants)
        func testPopulateEmptySet(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                #expect(c.set.count == 0)
                let object = PLStringObject(stringCol: "a")
                c.set.insert(object)
                c.set.insert(c.realm.create(PLStringObject.self, value: ["b"]))
                c.set.insert(object)
                #expect(c.set.count == 2)
                for element in c.set {
                    #expect(element.stringCol == "a" || element.stringCol == "b")
                    #expect(!element.description.isEmpty)
                }
            }
        }

        @Test(arguments: variants)
        func testEnumeratingSetWithSetProperties(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                let setObject = try c.createSetWithLinks()
                setObject.realm?.beginWrite()
                for _ in 0..<10 { setObject.set.insert(PSSwiftObject()) }
                try setObject.realm?.commitWrite()
                #expect(setObject.set.count == 10)
                for object in setObject.set {
                    #expect(object.intCol == 123)
                    #expect(object.objectCol?.boolCol == false)
                    #expect(object.setCol.count == 0)
                }
            }
        }

        @Test(arguments: variants)
        func testUnmanagedSetComparison(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { _ in
                let objects = [PLIntObject(intCol: 5), PLIntObject(intCol: 6), PLIntObject(intCol: 8)]
                let set1 = MutableSet<PLIntObject>()
                let set2 = MutableSet<PLIntObject>()
                #expect(set1 == set2)
                set1.insert(objectsIn: objects)
                set2.insert(objectsIn: objects)
                let set3 = MutableSet<PLIntObject>()
                set3.insert(objectsIn: objects.prefix(2))
                #expect(set1 !== set2)
                #expect(set1 == set2)
                #expect(set1 != set3)
                #expect(set1.isEqual(set2))
                #expect(!set1.isEqual(set3))
                #expect(Array(set1) == Array(set2))
                #expect(Array(set1) != Array(set3))
                #expect(Set(set1) == Set(set2))
                #expect(Set(set1) != Set(set3))
                set3.insert(objects[2])
                #expect(set1 == set3)
            }
        }

        @Test(arguments: variants)
        func testSubset(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.removeAll()
                c.set2.removeAll()
                c.set.insert(objectsIn: [c.str1, c.str2, c.str1])
                c.set2.insert(objectsIn: [c.str1])
                #expect(c.set.count == 2)
                #expect(c.set2.count == 1)
                #expect(c.set2.isSubset(of: c.set))
                #expect(!c.set.isSubset(of: c.set2))
            }
        }

        @Test(arguments: variants)
        func testUnion(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.insert(objectsIn: [c.str1, c.str2])
                c.set2.insert(objectsIn: [c.str2, c.str3])
                c.set.formUnion(c.set2)
                #expect(c.set.count == 3)
                #expect(c.set2.isSubset(of: c.set))
                #expect(!c.set.isSubset(of: c.set2))
            }
        }

        @Test(arguments: variants)
        func testIntersection(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.insert(objectsIn: [c.str1, c.str2])
                c.set2.insert(objectsIn: [c.str2, c.str3])
                #expect(c.set.intersects(c.set2))
                #expect(c.set2.intersects(c.set))
                c.set.formIntersection(c.set2)
                #expect(c.set.intersects(c.set2))
                #expect(c.set.count == 1)
                #expect(c.set.contains(c.str2))
            }
        }

        @Test(arguments: variants)
        func testSubtract(_ variant: PSSetVariant) throws {
            try PSSetCase.run(variant) { c in
                c.set.insert(objectsIn: [c.str1, c.str2])
                c.set2.insert(objectsIn: [c.str2, c.str3])
                c.set.subtract(c.set2)
                #expect(c.set.count == 1)
                #expect(c.set.contains(c.str1))
            }
        }
    }
}
