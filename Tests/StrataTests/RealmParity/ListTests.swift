import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/ListTests.swift, in our words. Realm's `ListTests` is abstract: each
// test runs once per subclass, which differ only in how the list's owner is made. Here each test
// takes that subclass as its argument (`PLListVariant`), so every (subclass, test) pair of Realm
// is one test case. `ListRRCMethodsTests` (unmanaged lists only) is its own suite below.
//
// Not here (Strata lacks the subject): testValueForKey and testValueForKeyOptional (key-value
// coding on collections, Decimal128, ObjectId, RealmOptional), testAppendEmbedded and
// testSetEmbedded (EmbeddedObject). Left out of tests that are here: the NSPredicate and
// query forms of `index(matching:)` in testPrimitive (queries over list elements), the
// Decimal128 and ObjectId lists of testPrimitiveIterationAcrossNil.
//
// Rejections: where RealmSwift raises an exception, the public API traps; the tests call the
// `package` throwing form of the same method and check the error.

/// The subclasses of Realm's `ListTests`: how the tested list's owner comes to be.
enum PLListVariant: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// `ListStandaloneTests`: an unmanaged owner.
    case standalone = "ListStandaloneTests"
    /// `ListNewlyAddedTests`: an unmanaged owner added to the realm; its own List object.
    case newlyAdded = "ListNewlyAddedTests"
    /// `ListNewlyCreatedTests`: an owner made by `create` in the realm.
    case newlyCreated = "ListNewlyCreatedTests"
    /// `ListRetrievedTests`: an owner created, then read back with `objects`.
    case retrieved = "ListRetrievedTests"

    var testDescription: String { rawValue }
}

/// The state of one Realm `ListTests` test after its `setUp`: two committed strings, the owner
/// and its list, and a write open on the test realm (which `finish()` commits, as `tearDown`).
final class PLListCase {
    let variant: PLListVariant
    let files = ParityListFiles()
    let realm: Realm
    let str1 = PLStringObject(stringCol: "1")
    let str2 = PLStringObject(stringCol: "2")
    let arrayObject: PLArrayPropertyObject
    let array: List<PLStringObject>

    init(_ variant: PLListVariant) throws {
        self.variant = variant
        realm = try files.realmWithTestPath()
        arrayObject = try PLListCase.createArray(variant, realm: realm)
        array = arrayObject.array
        try realm.write {
            realm.add(str1)
            realm.add(str2)
        }
        realm.beginWrite()
    }

    /// `tearDown`: commits the write `init` began.
    func finish() throws {
        if realm.isInWriteTransaction { try realm.commitWrite() }
    }

    /// Runs one test between `setUp` and `tearDown`.
    static func run(_ variant: PLListVariant, _ body: (PLListCase) throws -> Void) throws {
        let testCase = try PLListCase(variant)
        try body(testCase)
        try testCase.finish()
    }

    private static func createArray(_ variant: PLListVariant, realm: Realm) throws -> PLArrayPropertyObject {
        let object: PLArrayPropertyObject
        switch variant {
        case .standalone:
            object = PLArrayPropertyObject()
            #expect(object.realm == nil)
            return object
        case .newlyAdded:
            object = PLArrayPropertyObject()
            object.name = "name"
            try realm.write { realm.add(object) }
        case .newlyCreated:
            realm.beginWrite()
            object = realm.create(PLArrayPropertyObject.self, value: ["name"])
            try realm.commitWrite()
        case .retrieved:
            realm.beginWrite()
            realm.create(PLArrayPropertyObject.self, value: ["name"])
            try realm.commitWrite()
            object = try #require(realm.objects(PLArrayPropertyObject.self).first)
        }
        #expect(object.realm != nil)
        return object
    }

    /// `createArrayWithLinks()`: an owner of a list of `PLSwiftObject`, made in the default
    /// realm as the variant says.
    func createArrayWithLinks() throws -> PLListOfSwiftObject {
        let object: PLListOfSwiftObject
        switch variant {
        case .standalone:
            object = PLListOfSwiftObject()
            #expect(object.realm == nil)
            return object
        case .newlyAdded:
            let realm = try files.defaultRealm()
            object = PLListOfSwiftObject()
            try realm.write { realm.add(object) }
        case .newlyCreated:
            let realm = try files.defaultRealm()
            realm.beginWrite()
            object = realm.create(PLListOfSwiftObject.self)
            try realm.commitWrite()
        case .retrieved:
            let realm = try files.defaultRealm()
            realm.beginWrite()
            realm.create(PLListOfSwiftObject.self)
            try realm.commitWrite()
            object = try #require(realm.objects(PLListOfSwiftObject.self).first)
        }
        #expect(object.realm != nil)
        return object
    }
}

/// A rejection naming a negative index argument.
private func expectNegative(
    _ error: Realm.Error?, _ parameter: String = "index",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectRejected(error, "Cannot pass a negative value for '\(parameter)'.", sourceLocation: sourceLocation)
}

/// A rejection of an index past the end.
private func expectOutOfBounds(_ error: Realm.Error?, sourceLocation: SourceLocation = #_sourceLocation) {
    expectRejected(error, "is out of bounds (must be less than", sourceLocation: sourceLocation)
}

extension RealmParityLists {
    @Suite struct ListTests {
        private static let variants = PLListVariant.allCases

        @Test(arguments: variants)
        func testPrimitive(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { _ in
                let obj = PLListObject()
                obj.int.append(5)
                #expect(obj.int.first == 5)
                #expect(obj.int.last == 5)
                #expect(obj.int[0] == 5)
                obj.int.append(objectsIn: [6, 7, 8] as [Int])
                #expect(obj.int.index(of: 6) == 1)
                #expect(obj.int.index(of: 9) == nil)
                #expect(obj.int.max() == 8)
                #expect(obj.int.sum() == 26)

                obj.string.append("str")
                #expect(obj.string.first == "str")
                #expect(obj.string[0] == "str")
            }
        }

        @Test(arguments: variants)
        func testPrimitiveIterationAcrossNil(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { _ in
                let obj = PLListObject()
                #expect(!obj.int.contains(5))
                #expect(!obj.int8.contains(5))
                #expect(!obj.int16.contains(5))
                #expect(!obj.int32.contains(5))
                #expect(!obj.int64.contains(5))
                #expect(!obj.float.contains(3.141592))
                #expect(!obj.double.contains(3.141592))
                #expect(!obj.string.contains("foobar"))
                #expect(!obj.data.contains(Data()))
                #expect(!obj.date.contains(Date()))
                #expect(!obj.uuid.contains(UUID()))
                #expect(!obj.uuidOpt.contains(UUID()))

                #expect(!obj.intOpt.contains { $0 == nil })
                #expect(!obj.int8Opt.contains { $0 == nil })
                #expect(!obj.int16Opt.contains { $0 == nil })
                #expect(!obj.int32Opt.contains { $0 == nil })
                #expect(!obj.int64Opt.contains { $0 == nil })
                #expect(!obj.floatOpt.contains { $0 == nil })
                #expect(!obj.doubleOpt.contains { $0 == nil })
                #expect(!obj.stringOpt.contains { $0 == nil })
                #expect(!obj.dataOpt.contains { $0 == nil })
                #expect(!obj.dateOpt.contains { $0 == nil })
                #expect(!obj.uuidOpt.contains { $0 == nil })
            }
        }

        @Test(arguments: variants)
        func testInvalidated(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                #expect(!test.array.isInvalidated)
                if let realm = test.arrayObject.realm {
                    realm.delete(test.arrayObject)
                    #expect(test.array.isInvalidated)
                }
            }
        }

        @Test(arguments: variants)
        func testFastEnumerationWithMutation(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                array.append(objectsIn: [
                    str1, str2, str1, str2, str1, str2, str1, str2, str1, str2,
                    str1, str2, str1, str2, str1, str2, str1, str2, str1, str2,
                ])
                var text = ""
                for obj in array {
                    text += obj.stringCol
                    array.append(objectsIn: [str1])
                }
                #expect(text == "12121212121212121212")
                #expect(array.count == 40)
            }
        }

        @Test(arguments: variants)
        func testAppendObject(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                for str in [str1, str2, str1] {
                    array.append(str)
                }
                #expect(array.count == 3)
                plExpectSame(str1, array[0])
                plExpectSame(str2, array[1])
                plExpectSame(str1, array[2])
            }
        }

        @Test(arguments: variants)
        func testAppendArray(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                array.append(objectsIn: [str1, str2, str1])
                #expect(array.count == 3)
                plExpectSame(str1, array[0])
                plExpectSame(str2, array[1])
                plExpectSame(str1, array[2])
            }
        }

        @Test(arguments: variants)
        func testAppendResults(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let array = test.array
                array.append(objectsIn: try test.files.realmWithTestPath().objects(PLStringObject.self))
                #expect(array.count == 2)
                plExpectSame(test.str1, array[0])
                plExpectSame(test.str2, array[1])
            }
        }

        @Test(arguments: variants)
        func testInsert(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                #expect(array.count == 0)

                array.insert(str1, at: 0)
                #expect(array.count == 1)
                plExpectSame(str1, array[0])

                array.insert(str2, at: 0)
                #expect(array.count == 2)
                plExpectSame(str2, array[0])
                plExpectSame(str1, array[1])

                expectOutOfBounds(rejection { try array._insert(str2, at: 200) })
                expectNegative(rejection { try array._insert(str2, at: -200) })
                #expect(array.count == 2)
            }
        }

        @Test(arguments: variants)
        func testRemoveAtIndex(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                array.append(objectsIn: [str1, str2, str1])

                array.remove(at: 1)
                plExpectSame(str1, array[0])
                plExpectSame(str1, array[1])

                expectOutOfBounds(rejection { _ = try array._remove(at: 2) })
                expectNegative(rejection { _ = try array._remove(at: -2) })
                #expect(array.count == 2)
            }
        }

        @Test(arguments: variants)
        func testRemoveAtOffsets(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                array.append(objectsIn: [str1, str2, str1])
                array.remove(atOffsets: [0, 2])

                #expect(array.count == 1)
                plExpectSame(str2, array[0])

                array.remove(atOffsets: [])
                #expect(array.count == 1)

                expectOutOfBounds(rejection { try array._remove(atOffsets: [1]) })
                #expect(array.count == 1)
            }
        }

        @Test(arguments: variants)
        func testRemoveLast(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                array.append(objectsIn: [str1, str2])

                array.removeLast()
                #expect(array.count == 1)
                plExpectSame(str1, array[0])

                array.removeLast()
                #expect(array.count == 0)

                // Removing from an empty list is rejected.
                expectRejected(
                    rejection { try array._removeLast() },
                    "It is not possible to remove more objects (1) from a list than it already contains (0).")
            }
        }

        @Test(arguments: variants)
        func testRemoveAll(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let array = test.array
                array.append(objectsIn: [test.str1, test.str2])

                array.removeAll()
                #expect(array.count == 0)

                array.removeAll()  // nothing left to remove: does nothing
                #expect(array.count == 0)
            }
        }

        @Test(arguments: variants)
        func testReplace(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                array.append(objectsIn: [str1, str1])

                array.replace(index: 0, object: str2)
                #expect(array.count == 2)
                plExpectSame(str2, array[0])
                plExpectSame(str1, array[1])

                array.replace(index: 1, object: str2)
                #expect(array.count == 2)
                plExpectSame(str2, array[0])
                plExpectSame(str2, array[1])

                expectOutOfBounds(rejection { try array._replace(index: 200, with: str2) })
                expectNegative(rejection { try array._replace(index: -200, with: str2) })
            }
        }

        @Test(arguments: variants)
        func testMove(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let array = test.array
                array.append(objectsIn: [test.str1, test.str2])

                array.move(from: 1, to: 0)
                #expect(array.map(\.stringCol) == ["2", "1"])

                array.move(from: 0, to: 1)
                #expect(array.map(\.stringCol) == ["1", "2"])

                array.move(from: 0, to: 0)
                #expect(array.map(\.stringCol) == ["1", "2"])

                expectOutOfBounds(rejection { try array._move(from: 0, to: 2) })
                expectOutOfBounds(rejection { try array._move(from: 2, to: 0) })
                #expect(array.map(\.stringCol) == ["1", "2"])
            }
        }

        @Test(arguments: variants)
        func testMoveFromOffsets(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let array = test.array
                let str3 = PLStringObject(stringCol: "3")
                array.append(objectsIn: [test.str1, test.str2, str3])

                array.move(fromOffsets: IndexSet([1]), toOffset: 0)
                #expect(array.map(\.stringCol) == ["2", "1", "3"])

                array.move(fromOffsets: IndexSet([0]), toOffset: 3)
                #expect(array.map(\.stringCol) == ["1", "3", "2"])

                array.move(fromOffsets: IndexSet([0]), toOffset: 1)
                #expect(array.map(\.stringCol) == ["1", "3", "2"])

                array.move(fromOffsets: IndexSet([2]), toOffset: 1)
                #expect(array.map(\.stringCol) == ["1", "2", "3"])

                expectOutOfBounds(rejection { try array._move(fromOffsets: IndexSet([0]), toOffset: 4) })
                expectOutOfBounds(rejection { try array._move(fromOffsets: IndexSet([4]), toOffset: 0) })

                array.move(fromOffsets: IndexSet([]), toOffset: 1)
                #expect(array.map(\.stringCol) == ["1", "2", "3"])

                array.move(fromOffsets: IndexSet([0, 2]), toOffset: 1)
                #expect(array.map(\.stringCol) == ["1", "3", "2"])
            }
        }

        @Test(arguments: variants)
        func testReplaceRange(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                array.append(objectsIn: [str1, str1])

                array.replaceSubrange(0..<1, with: [str2])
                #expect(array.count == 2)
                plExpectSame(str2, array[0])
                plExpectSame(str1, array[1])

                array.replaceSubrange(1..<2, with: [str2])
                #expect(array.count == 2)
                plExpectSame(str2, array[0])
                plExpectSame(str2, array[1])

                array.replaceSubrange(0..<0, with: [str2])
                #expect(array.count == 3)
                plExpectSame(str2, array[0])
                plExpectSame(str2, array[1])
                plExpectSame(str2, array[2])

                array.replaceSubrange(0..<3, with: [])
                #expect(array.count == 0)

                expectOutOfBounds(rejection { try array._replaceSubrange(200..<201, with: [str2]) })
                expectNegative(rejection { try array._replaceSubrange(-200..<200, with: [str2]) })
                expectOutOfBounds(rejection { try array._replaceSubrange(0..<200, with: [str2]) })
                #expect(array.count == 0)
            }
        }

        @Test(arguments: variants)
        func testSwapAt(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let (array, str1, str2) = (test.array, test.str1, test.str2)
                array.append(objectsIn: [str1, str2])

                array.swapAt(0, 1)
                #expect(array.count == 2)
                plExpectSame(str2, array[0])
                plExpectSame(str1, array[1])

                array.swapAt(1, 1)
                #expect(array.count == 2)
                plExpectSame(str2, array[0])
                plExpectSame(str1, array[1])

                expectNegative(rejection { try array._swapAt(-1, 0) }, "index1")
                expectNegative(rejection { try array._swapAt(0, -1) }, "index2")
                expectOutOfBounds(rejection { try array._swapAt(1000, 0) })
                expectOutOfBounds(rejection { try array._swapAt(0, 1000) })
            }
        }

        @Test(arguments: variants)
        func testChangesArePersisted(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let array = test.array
                if let realm = array.realm {
                    array.append(objectsIn: [test.str1, test.str2])

                    let otherArray = try #require(realm.objects(PLArrayPropertyObject.self).first).array
                    #expect(otherArray.count == 2)
                } else {
                    #expect(variant == .standalone)
                }
            }
        }

        @Test(arguments: variants)
        func testPopulateEmptyArray(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let array = test.array
                #expect(array.count == 0, "the list starts empty")

                let obj = PLStringObject(stringCol: "a")
                array.append(obj)
                array.append(try test.files.realmWithTestPath().create(PLStringObject.self, value: ["b"]))
                array.append(obj)

                #expect(array.count == 3)
                #expect(array[0].stringCol == "a")
                #expect(array[1].stringCol == "b")
                #expect(array[2].stringCol == "a")

                // The list can be enumerated.
                for element in array {
                    #expect(!element.description.isEmpty, "every object has a description")
                }
                if let realm = array.realm {
                    // Appending the unmanaged object added it once, as itself.
                    #expect(obj.realm == realm)
                    #expect(realm.objects(PLStringObject.self).count == 4)
                }
            }
        }

        @Test(arguments: variants)
        func testEnumeratingListWithListProperties(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { test in
                let arrayObject = try test.createArrayWithLinks()

                arrayObject.realm?.beginWrite()
                for _ in 0..<10 {
                    arrayObject.array.append(PLSwiftObject())
                }
                try arrayObject.realm?.commitWrite()

                #expect(arrayObject.array.count == 10)

                for object in arrayObject.array {
                    #expect(object.intCol == 123)
                    #expect(object.objectCol?.boolCol == false)
                    #expect(object.arrayCol.count == 0)
                }
            }
        }

        @Test(arguments: variants)
        func testUnmanagedListComparison(_ variant: PLListVariant) throws {
            try PLListCase.run(variant) { _ in
                let obj = PLIntObject(intCol: 5)
                let obj2 = PLIntObject(intCol: 6)
                let obj3 = PLIntObject(intCol: 8)

                let objects = [obj, obj2, obj3]
                let objects2 = [obj, obj2]

                let list1 = List<PLIntObject>()
                let list2 = List<PLIntObject>()
                #expect(list1 == list2, "empty lists are equal by ==")

                list1.append(objectsIn: objects)
                list2.append(objectsIn: objects)

                let list3 = List<PLIntObject>()
                list3.append(objectsIn: objects2)

                #expect(list1 !== list2, "two instances")

                #expect(list1 == list2, "lists of the same objects are equal by ==")
                #expect(list1 != list3, "lists of different objects are not equal by ==")

                #expect(list1.isEqual(list2), "lists of the same objects are equal by isEqual")
                #expect(!list1.isEqual(list3), "lists of different objects are not equal by isEqual")

                #expect(Array(list1) == Array(list2), "as arrays, the same")
                #expect(Array(list1) != Array(list3), "as arrays, different")
                list3.append(obj3)
                #expect(list1 == list3, "equal once they hold the same objects")
            }
        }
    }

    /// Realm's `ListRRCMethodsTests`: the range-replacing methods of an unmanaged List of objects
    /// against the same calls on a Swift array.
    @Suite struct ListRRCMethodsTests {
        private let list: List<PLIntObject>
        /// The values of `list` at `setUp`; each test edits its own copy (`var array = initial`).
        private let initial: [Int]

        /// `setUp`: a list of 0 to 6 and the array of its values.
        init() {
            list = ListRRCMethodsTests.createListObject().intArray
            initial = list.map(\.intCol)
        }

        private static func makeObjects(from values: [Int]) -> [PLIntObject] {
            values.map { PLIntObject(intCol: $0) }
        }

        private static func createListObject(_ values: [Int] = [0, 1, 2, 3, 4, 5, 6]) -> PLArrayPropertyObject {
            let object = PLArrayPropertyObject()
            #expect(object.realm == nil)
            object.intArray.append(objectsIn: makeObjects(from: values))
            return object
        }

        private func compare(_ array: [Int], sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(list.map(\.intCol) == array, sourceLocation: sourceLocation)
        }

        @Test func testSubscript() {
            var array = initial
            list[0] = PLIntObject(intCol: 5)
            list[1..<4] = ListRRCMethodsTests.createListObject([10, 11, 12]).intArray[0..<2]
            array[0] = 5
            array[1..<4] = [10, 11]
            compare(array)
        }

        @Test func testReplaceWithCollectionIndices() {
            var array = initial
            let newElements = [1, 2, 3]
            list.replaceSubrange(list.indices, with: ListRRCMethodsTests.makeObjects(from: newElements))
            array.replaceSubrange(array.indices, with: newElements)
            compare(array)
        }

        @Test func testRemoveWithCollectionIndices() {
            list.removeSubrange(list.indices)
            #expect(list.isEmpty)
        }

        @Test func testRemoveFirst() {
            var array = initial
            list.removeFirst()
            array.removeFirst()
            compare(array)
        }

        @Test func testRemoveFirstFew() {
            var array = initial
            list.removeFirst(3)
            array.removeFirst(3)
            compare(array)
        }

        @Test func testRemoveFirstInvalid() {
            expectNegative(rejection { try list._removeFirst(-1) })
            expectRejected(
                rejection { try list._removeFirst(100) },
                "It is not possible to remove more objects (100) from a list than it already contains (7).")
            #expect(list.count == 7)
        }

        @Test func testRemoveLastFew() {
            var array = initial
            list.removeLast(3)
            array.removeLast(3)
            compare(array)
        }

        @Test func testInsert() {
            var array = initial
            let newElements = [10, 11, 12, 13]
            list.insert(contentsOf: ListRRCMethodsTests.makeObjects(from: newElements), at: 2)
            array.insert(contentsOf: newElements, at: 2)
            compare(array)
        }

        @Test func testRemoveClosedSubrange() {
            var array = initial
            let subrange: ClosedRange<Int> = 1...3
            list.removeSubrange(subrange)
            array.removeSubrange(subrange)
            compare(array)
        }

        @Test func testRemoveOpenSubrange() {
            var array = initial
            let subrange: Range<Int> = 1..<3
            list.removeSubrange(subrange)
            array.removeSubrange(subrange)
            compare(array)
        }

        @Test func testReplaceClosedSubrange() {
            var array = initial
            let subrange: ClosedRange<Int> = 2...5
            let newElements = [10, 11, 12, 13, 14, 15, 16]
            list.replaceSubrange(subrange, with: ListRRCMethodsTests.makeObjects(from: newElements))
            array.replaceSubrange(subrange, with: newElements)
            compare(array)
        }

        @Test func testReplaceOpenSubrange() {
            var array = initial
            let subrange: Range<Int> = 2..<5
            let newElements = [10, 11, 12, 13, 14, 15, 16]
            list.replaceSubrange(subrange, with: ListRRCMethodsTests.makeObjects(from: newElements))
            array.replaceSubrange(subrange, with: newElements)
            compare(array)
        }
    }
}
