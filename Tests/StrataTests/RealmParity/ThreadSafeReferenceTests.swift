import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/ThreadSafeReferenceTests.swift, in our words: the classes
// ThreadSafeReferenceTests and ThreadSafeWrapperTests. (Realm's ThreadSafeWrapperTests subclasses
// ThreadSafeReferenceTests, so XCTest runs the reference tests a second time under that name;
// here they run once.)
//
// As in RealmTests.swift, `PRFiles` stands for Realm's TestCase files (`Realm()` is
// `files.defaultRealm()`), and Realm's `dispatchSyncNewThread` is `onOtherThread`: a new thread
// whose realms are closed when it ends. Rejections are checked through the `package`
// throwing forms (`ThreadSafeReference._make(to:)`, `Realm._resolve`, `ThreadSafe._set`).
//
// Not here (Strata lacks the subject): testPassThreadSafeReferenceToMutableSet,
// testPassThreadSafeReferenceToLinkingObjects, testPassThreadSafeReferenceToAnyRealmCollection,
// testThreadSafeWrapperToMap, testThreadSafeWrapperToMutableSet,
// testThreadSafeWrapperLinkingObjects, testThreadSafeWrapperToAnyRealmCollection. The MutableSet
// part of testInvalidThreadSafeReferenceConstruction is left out of it. Left out because the
// rejection they check is a trap with no throwing form: testThreadSafeWrapperInvalidConstruction
// and testThreadSafeUnmanagedArgument (`ThreadSafe.init(wrappedValue:)` with an unmanaged object).

extension RealmParityRealm {
    @Suite struct ThreadSafeReferenceTests {
        /// Resolves a reference, checking that it cannot be resolved a second time (Spec T2).
        static func assertResolve<T>(
            _ realm: Realm, _ reference: ThreadSafeReference<T>,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> T? {
            #expect(!reference.isInvalidated, sourceLocation: sourceLocation)
            let object = try realm._resolve(reference)
            #expect(reference.isInvalidated, sourceLocation: sourceLocation)
            expectRejected(
                rejection { _ = try realm._resolve(reference) },
                "Can only resolve a thread safe reference once", sourceLocation: sourceLocation)
            return object
        }

        @Test("Spec T1: references to unmanaged or deleted values are refused")
        func testInvalidThreadSafeReferenceConstruction() throws {
            let files = PRFiles()
            let stringObject = PRStringObject()
            let arrayParent = PRArrayPropertyObject()
            arrayParent.name = "arrayObject"
            arrayParent.array.append(PRStringObject(stringCol: "a"))
            let arrayObject = arrayParent.array

            expectRejected(
                rejection { _ = try ThreadSafeReference._make(to: stringObject) },
                "Cannot construct reference to unmanaged object")
            expectRejected(
                rejection { _ = try ThreadSafeReference._make(to: arrayObject) },
                "Cannot construct reference to unmanaged object")

            let realm = try files.defaultRealm()
            realm.beginWrite()
            realm.add(stringObject)
            realm.add(arrayParent)
            realm.deleteAll()
            try realm.commitWrite()

            expectRejected(
                rejection { _ = try ThreadSafeReference._make(to: stringObject) },
                "Cannot construct reference to invalidated object")
            expectRejected(
                rejection { _ = try ThreadSafeReference._make(to: arrayObject) },
                "Cannot construct reference to invalidated object")
        }

        @Test("Spec T2, T5: another file's realm resolves nil; each reference resolves once")
        func testInvalidThreadSafeReferenceUsage() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            realm.beginWrite()
            let stringObject = realm.create(PRStringObject.self, value: ["stringCol": "hello"])
            let ref1 = ThreadSafeReference(to: stringObject)
            try realm.commitWrite()
            let ref2 = ThreadSafeReference(to: stringObject)
            let ref3 = ThreadSafeReference(to: stringObject)

            try onOtherThread {
                #expect(try files.realmWithTestPath()._resolve(ref1) == nil)
                let realm = try files.defaultRealm()
                _ = try realm._resolve(ref2)
                expectRejected(
                    rejection { _ = try realm._resolve(ref2) },
                    "Can only resolve a thread safe reference once")
                // A different reference to the same object resolves.
                #expect(try Self.assertResolve(realm, ref3)?.stringCol == "hello")
            }
        }

        @Test("Spec T4, T5: a new realm resolves at the source version; after refresh the deleted object is nil")
        func testPassThreadSafeReferenceToDeletedObject() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            let intObject = PRIntObject()
            try realm.write {
                realm.add(intObject)
            }
            let ref1 = ThreadSafeReference(to: intObject)
            let ref2 = ThreadSafeReference(to: intObject)
            #expect(intObject.intCol == 0)
            try onOtherThread {
                let realm = try files.defaultRealm()
                try realm.write {
                    realm.deleteAll()
                }
            }
            try onOtherThread {
                let realm = try files.defaultRealm()
                #expect(try Self.assertResolve(realm, ref1)?.intCol == 0)
                realm.refresh()
                #expect(try Self.assertResolve(realm, ref2) == nil)
            }
        }

        @Test("Spec T3, T7: objects resolved on another thread are written there; the source sees it after refresh")
        func testPassThreadSafeReferencesToMultipleObjects() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            let (stringObject, intObject) = (PRStringObject(), PRIntObject())
            try realm.write {
                realm.add(stringObject)
                realm.add(intObject)
            }
            let stringObjectRef = ThreadSafeReference(to: stringObject)
            let intObjectRef = ThreadSafeReference(to: intObject)
            #expect(stringObject.stringCol == "")
            #expect(intObject.intCol == 0)
            try onOtherThread {
                let realm = try files.defaultRealm()
                let stringObject = try #require(try Self.assertResolve(realm, stringObjectRef))
                let intObject = try #require(try Self.assertResolve(realm, intObjectRef))
                try realm.write {
                    stringObject.stringCol = "the meaning of life"
                    intObject.intCol = 42
                }
            }
            #expect(stringObject.stringCol == "")
            #expect(intObject.intCol == 0)
            realm.refresh()
            #expect(stringObject.stringCol == "the meaning of life")
            #expect(intObject.intCol == 42)
        }

        @Test("Spec T6, T7: a resolved List is the same list; its changes reach the source after refresh")
        func testPassThreadSafeReferenceToList() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            let company = PRCompanyObject()
            try realm.write {
                realm.add(company)
                company.employees.append(PREmployeeObject(name: "jg"))
            }
            #expect(company.employees.count == 1)
            #expect(company.employees[0].name == "jg")
            let listRef = ThreadSafeReference(to: company.employees)
            try onOtherThread {
                let realm = try files.defaultRealm()
                let employees = try #require(try Self.assertResolve(realm, listRef))
                #expect(employees.count == 1)
                #expect(employees[0].name == "jg")

                try realm.write {
                    employees.removeAll()
                    employees.append(PREmployeeObject(name: "jp"))
                    employees.append(PREmployeeObject(name: "az"))
                }
                #expect(employees.count == 2)
                #expect(employees[0].name == "jp")
                #expect(employees[1].name == "az")
            }
            #expect(company.employees.count == 1)
            #expect(company.employees[0].name == "jg")
            realm.refresh()
            #expect(company.employees.count == 2)
            #expect(company.employees[0].name == "jp")
            #expect(company.employees[1].name == "az")
        }

        @Test("Spec T4, T6, T7: resolved Results keep query and sort, read at the source version until refreshed")
        func testPassThreadSafeReferenceToResults() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            let allObjects = realm.objects(PRStringObject.self)
            let results =
                allObjects
                .where { $0.stringCol != "C" }
                .sorted(byKeyPath: "stringCol", ascending: false)
            let resultsRef = ThreadSafeReference(to: results)
            try realm.write {
                realm.create(PRStringObject.self, value: ["A"])
                realm.create(PRStringObject.self, value: ["B"])
                realm.create(PRStringObject.self, value: ["C"])
                realm.create(PRStringObject.self, value: ["D"])
            }
            #expect(allObjects.count == 4)
            #expect(results.count == 3)
            #expect(results.map(\.stringCol) == ["D", "B", "A"])
            try onOtherThread {
                let realm = try files.defaultRealm()
                let results = try #require(try Self.assertResolve(realm, resultsRef))
                let allObjects = realm.objects(PRStringObject.self)
                #expect(allObjects.count == 0)
                #expect(results.count == 0)
                realm.refresh()
                #expect(allObjects.count == 4)
                #expect(results.count == 3)
                #expect(results.map(\.stringCol) == ["D", "B", "A"])
                try realm.write {
                    realm.delete(results[2])
                    realm.delete(results[0])
                    realm.create(PRStringObject.self, value: ["E"])
                }
                #expect(allObjects.count == 3)
                #expect(results.count == 2)
                #expect(results.map(\.stringCol) == ["E", "B"])
            }
            #expect(allObjects.count == 4)
            #expect(results.count == 3)
            #expect(results.map(\.stringCol) == ["D", "B", "A"])
            realm.refresh()
            #expect(allObjects.count == 3)
            #expect(results.count == 2)
            #expect(results.map(\.stringCol) == ["E", "B"])
        }
    }

    @Suite struct ThreadSafeWrapperTests {
        /// Realm's `wrapperStruct()`: a string and an int object, created in the default realm.
        static func wrapperStruct(_ files: PRFiles) throws -> PRThreadSafeWrapperStruct {
            let realm = try files.defaultRealm()
            let (stringObj, intObj) = try realm.write { () -> (PRStringObject, PRIntObject) in
                (
                    realm.create(PRStringObject.self, value: ["stringCol": "before"]),
                    realm.create(PRIntObject.self, value: ["intCol": 1])
                )
            }
            return PRThreadSafeWrapperStruct(stringObject: stringObj, intObject: intObj)
        }

        @Test("Spec T10: each thread reads the wrapped objects in its own realm, again and again")
        func testThreadSafeWrapper() throws {
            let files = PRFiles()
            let testStruct = try Self.wrapperStruct(files)
            #expect(testStruct.stringObject?.stringCol == "before")
            #expect(testStruct.intObject?.intCol == 1)

            try onOtherThread {
                try files.defaultRealm().write({
                    try #require(testStruct.stringObject).stringCol = "after"
                    try #require(testStruct.intObject).intCol = 2
                })
            }
            #expect(testStruct.stringObject?.stringCol == "after")
            #expect(testStruct.intObject?.intCol == 2)

            // Edit the values again: the same reference is not resolved twice.
            try onOtherThread {
                try files.defaultRealm().write({
                    try #require(testStruct.stringObject).stringCol = "after, again"
                    try #require(testStruct.intObject).intCol = 3
                })
            }
            #expect(testStruct.stringObject?.stringCol == "after, again")
            #expect(testStruct.intObject?.intCol == 3)
        }

        @Test("Spec T10: wrapped objects deleted on another thread read nil")
        func testThreadSafeWrapperDeleteObject() throws {
            let files = PRFiles()
            let testStruct = try Self.wrapperStruct(files)
            #expect(testStruct.stringObject?.stringCol == "before")
            #expect(testStruct.intObject?.intCol == 1)

            try onOtherThread {
                let realm = try files.defaultRealm()
                try realm.write({
                    realm.delete(try #require(testStruct.stringObject))
                    realm.delete(try #require(testStruct.intObject))
                })
            }
            #expect(testStruct.stringObject == nil)
            #expect(testStruct.intObject == nil)
        }

        @Test("Spec T10: objects assigned on another thread are read here")
        func testThreadSafeWrapperReassign() throws {
            let files = PRFiles()
            let testStruct = try Self.wrapperStruct(files)
            #expect(testStruct.stringObject?.stringCol == "before")
            #expect(testStruct.intObject?.intCol == 1)

            try onOtherThread {
                let realm = try files.defaultRealm()
                try realm.write({
                    let stringObj = realm.create(PRStringObject.self, value: ["stringCol": "after"])
                    let intObj = realm.create(PRIntObject.self, value: ["intCol": 2])

                    testStruct.stringObject = stringObj
                    testStruct.intObject = intObj
                })
            }
            #expect(testStruct.stringObject?.stringCol == "after")
            #expect(testStruct.intObject?.intCol == 2)
        }

        @Test("Spec T10: nil assigned on another thread reads nil; later objects are read again")
        func testThreadSafeWrapperReassignToNil() throws {
            let files = PRFiles()
            let testStruct = try Self.wrapperStruct(files)
            #expect(testStruct.stringObject?.stringCol == "before")
            #expect(testStruct.intObject?.intCol == 1)

            try onOtherThread {
                let realm = try files.defaultRealm()
                try realm.write({
                    testStruct.stringObject = nil
                    testStruct.intObject = nil
                })
            }
            #expect(testStruct.stringObject == nil)
            #expect(testStruct.intObject == nil)

            try onOtherThread {
                let realm = try files.defaultRealm()
                try realm.write({
                    testStruct.stringObject = realm.create(PRStringObject.self, value: ["stringCol": "after, again"])
                    testStruct.intObject = realm.create(PRIntObject.self, value: ["intCol": 3])
                })
            }
            #expect(testStruct.stringObject?.stringCol == "after, again")
            #expect(testStruct.intObject?.intCol == 3)
        }

        @Test("Spec T9, T10: a wrapper made with nil reads nil, then what other threads assign")
        func testThreadSafeWrapperNilConstruction() throws {
            let files = PRFiles()
            let testStruct = PRThreadSafeWrapperStruct(stringObject: nil, intObject: nil)
            #expect(testStruct.stringObject == nil)
            #expect(testStruct.intObject == nil)

            let config = {
                var config = files.defaultConfiguration
                config.objectTypes = [PRStringObject.self, PRIntObject.self]
                return config
            }()
            try onOtherThread {
                let realm = try Realm(configuration: config)
                try realm.write({
                    testStruct.stringObject = realm.create(PRStringObject.self, value: ["stringCol": "after"])
                    testStruct.intObject = realm.create(PRIntObject.self, value: ["intCol": 2])
                })
            }
            #expect(testStruct.stringObject?.stringCol == "after")
            #expect(testStruct.intObject?.intCol == 2)

            // Edit the values again: the same reference is not resolved twice.
            try onOtherThread {
                let realm = try Realm(configuration: config)
                try realm.write({
                    try #require(testStruct.stringObject).stringCol = "after, again"
                    try #require(testStruct.intObject).intCol = 3
                })
            }
            #expect(testStruct.stringObject?.stringCol == "after, again")
            #expect(testStruct.intObject?.intCol == 3)
        }

        @Test func testThreadSafeWrapperDifferentConfig() throws {
            let files = PRFiles()
            let testStruct = try Self.wrapperStruct(files)
            #expect(testStruct.stringObject?.stringCol == "before")
            #expect(testStruct.intObject?.intCol == 1)

            try onOtherThread {
                var config = files.defaultConfiguration
                config.fileURL = files.directory.appendingPathComponent("newpath.realm")
                config.objectTypes = [PREmployeeObject.self, PRStringObject.self, PRIntObject.self]

                let realm = try Realm(configuration: config)  // another file than the original's
                try realm.write({
                    let stringObj = realm.create(PRStringObject.self, value: ["stringCol": "after"])
                    let intObj = realm.create(PRIntObject.self, value: ["intCol": 2])

                    testStruct.stringObject = stringObj
                    testStruct.intObject = intObj
                })
            }
            #expect(testStruct.stringObject?.stringCol == "after")
            #expect(testStruct.intObject?.intCol == 2)
        }

        @Test("Spec T9: assigning an unmanaged object is refused, also inside a write")
        func testThreadSafeWrapperInvalidReassign() throws {
            let files = PRFiles()
            let testStruct = try Self.wrapperStruct(files)
            #expect(testStruct.stringObject?.stringCol == "before")
            #expect(testStruct.intObject?.intCol == 1)

            try onOtherThread {
                let realm = try files.defaultRealm()
                try realm.write {
                    expectRejected(
                        rejection { try testStruct.setStringObject(PRStringObject()) },
                        "Only managed objects may be wrapped as thread safe.")
                }
            }
        }

        @Test("Spec T4, T10: a wrapped List changed on another thread reads the change here")
        func testThreadSafeWrapperToList() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            let company = PRCompanyObject()
            try realm.write {
                realm.add(company)
                company.employees.append(PREmployeeObject(name: "jg"))
            }

            #expect(company.employees.count == 1)
            #expect(company.employees[0].name == "jg")
            let testStruct = PRThreadSafeWrapperStruct(employees: company.employees)
            try onOtherThread {
                let realm = try files.defaultRealm()
                #expect(testStruct.employees?.count == 1)
                #expect(testStruct.employees?[0].name == "jg")

                try realm.write {
                    try #require(testStruct.employees).removeAll()
                    try #require(testStruct.employees).append(PREmployeeObject(name: "jp"))
                    try #require(testStruct.employees).append(PREmployeeObject(name: "az"))
                }
                #expect(testStruct.employees?.count == 2)
                #expect(testStruct.employees?[0].name == "jp")
                #expect(testStruct.employees?[1].name == "az")
            }
            #expect(testStruct.employees?.count == 2)
            #expect(testStruct.employees?[0].name == "jp")
            #expect(testStruct.employees?[1].name == "az")
        }

        @Test("Spec T4, T10: wrapped Results keep query and sort on every thread")
        func testThreadSafeWrapperToResults() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            let allObjects = realm.objects(PRStringObject.self)
            let results =
                allObjects
                .where { $0.stringCol != "C" }
                .sorted(byKeyPath: "stringCol", ascending: false)
            let resultsStruct = PRThreadSafeWrapperStruct(results: results)
            try realm.write {
                realm.create(PRStringObject.self, value: ["A"])
                realm.create(PRStringObject.self, value: ["B"])
                realm.create(PRStringObject.self, value: ["C"])
                realm.create(PRStringObject.self, value: ["D"])
            }
            #expect(allObjects.count == 4)
            #expect(resultsStruct.results?.count == 3)
            #expect(resultsStruct.results?.map(\.stringCol) == ["D", "B", "A"])
            try onOtherThread {
                let realm = try files.defaultRealm()
                let allObjects = realm.objects(PRStringObject.self)
                #expect(allObjects.count == 4)
                #expect(resultsStruct.results?.count == 3)
                #expect(resultsStruct.results?.map(\.stringCol) == ["D", "B", "A"])
                try realm.write {
                    realm.delete(try #require(resultsStruct.results)[2])
                    realm.delete(try #require(resultsStruct.results)[0])
                    realm.create(PRStringObject.self, value: ["E"])
                }
                #expect(allObjects.count == 3)
                #expect(resultsStruct.results?.count == 2)
                #expect(resultsStruct.results?.map(\.stringCol) == ["E", "B"])
            }
            realm.refresh()
            #expect(allObjects.count == 3)
            #expect(resultsStruct.results?.count == 2)
            #expect(resultsStruct.results?.map(\.stringCol) == ["E", "B"])
        }

        @Test("Spec T10: local @ThreadSafe variables are read on another thread")
        func testThreadSafeWrapperInline() throws {
            let files = PRFiles()
            let values = ["A", "B", "C", "D"]
            do {
                let realm = try files.defaultRealm()
                try realm.write {
                    for value in values { realm.create(PRStringObject.self, value: [value]) }
                }
            }

            let realm = try files.defaultRealm()
            // Swift 6 checks a closure's use of a wrapped local as a use of the (non-Sendable)
            // wrapped value, which is why Realm compiles this test only before Swift 6; the
            // closures here read the wrapper itself (`_results`), which is Sendable.
            @ThreadSafe var results = realm.objects(PRStringObject.self)
            let resultsWrapper = _results
            try onOtherThread {
                guard let results = resultsWrapper.wrappedValue else {
                    Issue.record("no results")
                    return
                }
                for idx in results.indices {
                    #expect(results[idx].stringCol == values[idx])
                }
            }
            @ThreadSafe var swiftStringObject = results?.first
            let objectWrapper = _swiftStringObject
            try onOtherThread {
                guard let swiftStringObject = objectWrapper.wrappedValue else {
                    Issue.record("no results")
                    return
                }
                #expect(swiftStringObject.stringCol == "A")
            }
        }

        /// Realm's `mutateStringCol(stringObj:)`: a @ThreadSafe argument written on another thread.
        static func mutateStringCol(@ThreadSafe stringObj: PRStringObject?, files: PRFiles) throws {
            let wrapper = _stringObj  // the argument's wrapper (see testThreadSafeWrapperInline)
            try onOtherThread {
                let realm = try files.defaultRealm()
                try realm.write {
                    wrapper.wrappedValue?.stringCol = "after"
                }
            }
        }

        @Test("Spec T10: a @ThreadSafe argument is written on another thread")
        func testThreadSafeFunctionArgument() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            @ThreadSafe var stringObj = try realm.write {
                realm.create(PRStringObject.self, value: ["stringCol": "before"])
            }

            #expect(stringObj?.stringCol == "before")
            try Self.mutateStringCol(stringObj: stringObj, files: files)
            realm.refresh()
            #expect(stringObj?.stringCol == "after")
        }

        @Test("Spec T11, C10: 100 concurrent reads and writes through one @ThreadSafe variable")
        func testThreadSafeMultipleDispatch() throws {
            let files = PRFiles()
            let realm = try files.defaultRealm()
            @ThreadSafe var obj = try realm.write {
                realm.create(PRStringObject.self, value: ["stringCol": "before"])
            }
            let failures = ResultBox<[String]>()
            failures.set(.success([]))
            let wrapper = _obj  // the closure reads the wrapper (see testThreadSafeWrapperInline)

            DispatchQueue.concurrentPerform(iterations: 100) { _ in
                do {
                    try wrapper.wrappedValue?.realm?.write {
                        wrapper.wrappedValue?.stringCol = "middle"
                    }
                } catch {
                    failures.update { $0.append("\(error)") }
                }
            }

            #expect(try failures.get().isEmpty)
            #expect(obj?.stringCol != "before")
        }
    }
}
