import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/ObjectTests.swift, test by test, in our own words. Left out (their
// subjects are later work): testObjectSchema, testObjectSchemaForObjectWithConvenienceInitializer,
// testSharedSchemaUnmanaged, testSharedSchemaManaged, testBaseClassesDoNotHaveSharedSchema,
// testSchemaHasPrimaryKey, testIgnoredProperties, testIndexedProperties,
// testIndexedOptionalProperties (schema introspection); testValueForKeyMutableSet,
// testMutableSetPropertyNotifications (MutableSet); testValueForKeyLinkingObjects,
// testBacklinkPropertyKeyPathNotifications1-5 (LinkingObjects); testDynamicMemberSubscript,
// testDynamicList, testDynamicMutableSet, testFreezeDynamicObject (dynamic API);
// testObjectiveCTypeProperties (Objective-C types); testAsyncSequenceObserve,
// testAsyncSequenceObserveCustomActor (Combine publishers; compiled out by Realm for Swift 6).
extension RealmParityObjects {
    @Suite struct ObjectTests {
        // MARK: realm, invalidation, description

        @Test("Spec C8: an object's realm can be read from another thread") func testRealm() throws {
            #expect(SwiftStringObject().realm == nil)
            let configuration = RealmParityObjects.configuration()
            let realm = try Realm(configuration: configuration)
            let persisted = try realm.write { () -> SwiftStringObject in
                let object = realm.create(SwiftStringObject.self)
                #expect(object.realm == realm)
                return object
            }
            #expect(persisted.realm == realm)
            let box = Unchecked(persisted)
            let sameAsThere = try onOtherThread { () -> Bool in
                let there = try Realm(configuration: configuration)
                return box.value.realm == there || box.value.realm == nil
            }
            #expect(!sameAsThere)
        }

        @Test("Spec W12") func testInvalidated() throws {
            let object = SwiftObject()
            #expect(!object.isInvalidated)
            let realm = try RealmParityObjects.realm()
            try realm.write {
                realm.add(object)
                #expect(!object.isInvalidated)
            }
            try realm.write {
                realm.deleteAll()
                #expect(object.isInvalidated)
            }
            #expect(object.isInvalidated)
        }

        @Test("Spec W12") func testInvalidatedWithCustomObjectClasses() throws {
            var configuration = RealmParityObjects.configuration()
            configuration.objectTypes = [SwiftObject.self, SwiftBoolObject.self]
            let realm = try Realm(configuration: configuration)
            let object = SwiftObject()
            #expect(!object.isInvalidated)
            try realm.write {
                realm.add(object)
                #expect(!object.isInvalidated)
            }
            try realm.write {
                realm.deleteAll()
                #expect(object.isInvalidated)
            }
            #expect(object.isInvalidated)
        }

        /// `text` with every list's address replaced by `<0x>`.
        private func withoutAddresses(_ text: String) -> String {
            text.replacingOccurrences(of: "<0x[0-9a-f]+>", with: "<0x>", options: .regularExpression)
        }

        @Test func testDescription() throws {
            let object = SwiftObject()
            let expected =
                "SwiftObject {\n\tboolCol = 0;\n\tintCol = 123;\n\tint8Col = 123;\n\tint16Col = 123;\n"
                + "\tint32Col = 123;\n\tint64Col = 123;\n\tfloatCol = 1.23;\n\tdoubleCol = 12.3;\n\tstringCol = a;\n"
                + "\tbinaryCol = <61 — 1 total bytes>;\n\tdateCol = 1970-01-01 00:00:01 +0000;\n"
                + "\tobjectCol = SwiftBoolObject {\n\t\tboolCol = 0;\n\t};\n"
                + "\tuuidCol = 137DECC8-B300-4954-A233-F89909F4FD89;\n"
                + "\tarrayCol = List<SwiftBoolObject> <0x> (\n\t\n\t);\n}"
            #expect(withoutAddresses(object.description) == expected)

            let recursive = SwiftRecursiveObject()
            recursive.objects.append(recursive)
            let recursiveExpected =
                "SwiftRecursiveObject {\n\tobjects = List<SwiftRecursiveObject> <0x> (\n"
                + "\t\t[0] SwiftRecursiveObject {\n\t\t\tobjects = List<SwiftRecursiveObject> <0x> (\n"
                + "\t\t\t\t[0] SwiftRecursiveObject {\n\t\t\t\t\tobjects = <Maximum depth exceeded>;\n"
                + "\t\t\t\t}\n\t\t\t);\n\t\t}\n\t);\n}"
            #expect(withoutAddresses(recursive.description) == recursiveExpected)

            let realm = try RealmParityObjects.realm()
            try realm.write { realm.add(object) }
            #expect(withoutAddresses(object.description) == expected)
            try realm.write { realm.delete(object) }
            #expect(object.description == "[invalid object]")
        }

        // MARK: primary keys

        @Test("Spec W9") func testCannotUpdatePrimaryKey() throws {
            let realm = try RealmParityObjects.realm()
            let reason = "Primary key can't be changed after an object is inserted"

            let intObject = SwiftPrimaryIntObject()
            intObject.intCol = 1
            intObject.intCol = 0
            #expect(intObject.intCol == 0)
            let optionalIntObject = SwiftPrimaryOptionalIntObject()
            optionalIntObject.intCol = 1
            optionalIntObject.intCol = 0
            #expect(optionalIntObject.intCol == 0)
            let stringObject = SwiftPrimaryStringObject()
            stringObject.stringCol = "a"
            stringObject.stringCol = "b"
            #expect(stringObject.stringCol == "b")
            let first = try #require(UUID(uuidString: "8a12daba-8b23-11eb-8dcd-0242ac130003"))
            let second = try #require(UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e"))
            let third = try #require(UUID(uuidString: "4ee1fa48-8b23-11eb-8dcd-0242ac130003"))
            let uuidObject = SwiftPrimaryUUIDObject()
            uuidObject.uuidCol = first
            uuidObject.uuidCol = second
            #expect(uuidObject.uuidCol == second)

            try realm._beginWrite()
            try realm._add(intObject)
            expectRejected(rejection { try intObject._setValue(2, forKey: "intCol") }, reason)
            try realm._add(optionalIntObject)
            expectRejected(rejection { try optionalIntObject._setValue(2, forKey: "intCol") }, reason)
            try realm._add(stringObject)
            expectRejected(rejection { try stringObject._setValue("c", forKey: "stringCol") }, reason)
            try realm._add(uuidObject)
            expectRejected(rejection { try uuidObject._setValue(third, forKey: "uuidCol") }, reason)
            // Setting the same value is no change.
            #expect(rejection { try uuidObject._setValue(second, forKey: "uuidCol") } == nil)
            try realm._cancelWrite()
        }

        @Test func testDynamicDefaultPropertyValues() throws {
            func expectDifferent(_ first: SwiftDynamicDefaultObject, _ second: SwiftDynamicDefaultObject) {
                #expect(first.intCol != second.intCol)
                #expect(first.floatCol != second.floatCol)
                #expect(first.doubleCol != second.doubleCol)
                #expect(first.dateCol != second.dateCol)
                #expect(first.stringCol != second.stringCol)
                #expect(first.binaryCol != second.binaryCol)
            }
            expectDifferent(SwiftDynamicDefaultObject(), SwiftDynamicDefaultObject())
            let realm = try RealmParityObjects.realm()
            try realm.write {
                expectDifferent(
                    realm.create(SwiftDynamicDefaultObject.self), realm.create(SwiftDynamicDefaultObject.self))
            }
        }

        // MARK: value(forKey:), setValue(_:forKey:), subscripts

        private func expectDefaultValues(_ object: SwiftObject) {
            #expect(object.value(forKey: "boolCol") as? Bool == false)
            #expect(object.value(forKey: "intCol") as? Int == 123)
            #expect(object.value(forKey: "int8Col") as? Int8 == 123)
            #expect(object.value(forKey: "int16Col") as? Int16 == 123)
            #expect(object.value(forKey: "int32Col") as? Int32 == 123)
            #expect(object.value(forKey: "int64Col") as? Int64 == 123)
            #expect(object.value(forKey: "floatCol") as? Float == 1.23 as Float)
            #expect(object.value(forKey: "doubleCol") as? Double == 12.3)
            #expect(object.value(forKey: "stringCol") as? String == "a")
            #expect(object.value(forKey: "uuidCol") as? UUID == RealmParityObjects.uuid137)
            #expect(object.value(forKey: "binaryCol") as? Data == Data("a".utf8))
            #expect(object.value(forKey: "dateCol") as? Date == Date(timeIntervalSince1970: 1))
            #expect((object.value(forKey: "objectCol") as? SwiftBoolObject)?.boolCol == false)
            #expect(object.value(forKey: "arrayCol") is List<SwiftBoolObject>)
        }

        @Test func testValueForKey() throws {
            expectDefaultValues(SwiftObject())
            let realm = try RealmParityObjects.realm()
            try realm.write {
                expectDefaultValues(realm.create(SwiftObject.self))
                let added = SwiftObject()
                realm.add(added)
                expectDefaultValues(added)
            }
        }

        @Test func testValueForKeyOptionals() throws {
            func expectNils(_ object: SwiftOptionalObject) {
                for name in SwiftOptionalObject.propertyNames {
                    #expect(object.value(forKey: name) == nil, "\(name)")
                }
            }
            expectNils(SwiftOptionalObject())
            let realm = try RealmParityObjects.realm()
            try realm.write {
                expectNils(realm.create(SwiftOptionalObject.self))
                let added = SwiftOptionalObject()
                realm.add(added)
                expectNils(added)
            }
        }

        @Test func testValueForKeyList() throws {
            func expectEmpty(_ object: SwiftListObject) {
                #expect((object.value(forKey: "int") as? List<Int>)?.first == nil)
                #expect((object.value(forKey: "int8") as? List<Int8>)?.first == nil)
                #expect((object.value(forKey: "int16") as? List<Int16>)?.first == nil)
                #expect((object.value(forKey: "int32") as? List<Int32>)?.first == nil)
                #expect((object.value(forKey: "int64") as? List<Int64>)?.first == nil)
                #expect((object.value(forKey: "float") as? List<Float>)?.first == nil)
                #expect((object.value(forKey: "double") as? List<Double>)?.first == nil)
                #expect((object.value(forKey: "string") as? List<String>)?.first == nil)
                #expect((object.value(forKey: "data") as? List<Data>)?.first == nil)
                #expect((object.value(forKey: "date") as? List<Date>)?.first == nil)
                #expect((object.value(forKey: "uuid") as? List<UUID>)?.first == nil)
                #expect((object.value(forKey: "intOpt") as? List<Int?>)?.isEmpty == true)
                #expect((object.value(forKey: "int8Opt") as? List<Int8?>)?.isEmpty == true)
                #expect((object.value(forKey: "int16Opt") as? List<Int16?>)?.isEmpty == true)
                #expect((object.value(forKey: "int32Opt") as? List<Int32?>)?.isEmpty == true)
                #expect((object.value(forKey: "int64Opt") as? List<Int64?>)?.isEmpty == true)
                #expect((object.value(forKey: "floatOpt") as? List<Float?>)?.isEmpty == true)
                #expect((object.value(forKey: "doubleOpt") as? List<Double?>)?.isEmpty == true)
                #expect((object.value(forKey: "stringOpt") as? List<String?>)?.isEmpty == true)
                #expect((object.value(forKey: "dataOpt") as? List<Data?>)?.isEmpty == true)
                #expect((object.value(forKey: "dateOpt") as? List<Date?>)?.isEmpty == true)
                #expect((object.value(forKey: "uuidOpt") as? List<UUID?>)?.isEmpty == true)
            }
            expectEmpty(SwiftListObject())
            let realm = try RealmParityObjects.realm()
            try realm.write {
                expectEmpty(realm.create(SwiftListObject.self))
                let added = SwiftListObject()
                realm.add(added)
                expectEmpty(added)
            }
        }

        @Test func testSettingUnmanagedObjectValuesWithSwiftDictionary() {
            let json: [String: Any] = ["name": "foo", "array": [["stringCol": "bar"]], "intArray": [["intCol": 50]]]
            let object = SwiftArrayPropertyObject()
            for (key, value) in json { object.setValue(value, forKey: key) }
            #expect(object.name == "foo")
            #expect(object.array.first?.stringCol == "bar")
            #expect(object.intArray.first?.intCol == 50)
        }

        @Test func testSettingUnmanagedObjectValuesWithBadSwiftDictionary() {
            let json: [String: Any] = [
                "name": "foo", "array": [["stringCol": NSObject()]], "intArray": [["intCol": 50]],
            ]
            let object = SwiftArrayPropertyObject()
            let error = rejection { for (key, value) in json { try object._setValue(value, forKey: key) } }
            expectRejected(error, "Invalid value")
            expectRejected(error, "for 'string' property 'SwiftStringObject.stringCol'.")
        }

        /// Sets every property type through `set` and reads it back through `get` (Realm's
        /// `setAndTestAllTypes`, without the types Strata does not have).
        private func setAndTestAllTypes(
            _ set: (SwiftObject, Any?, String) -> Void, _ get: (SwiftObject, String) -> Any?,
            _ object: SwiftObject
        ) {
            set(object, true, "boolCol")
            #expect(get(object, "boolCol") as? Bool == true)
            set(object, 321, "intCol")
            #expect(get(object, "intCol") as? Int == 321)
            set(object, Int8(1), "int8Col")
            #expect(get(object, "int8Col") as? Int8 == 1)
            set(object, Int16(321), "int16Col")
            #expect(get(object, "int16Col") as? Int16 == 321)
            set(object, Int32(321), "int32Col")
            #expect(get(object, "int32Col") as? Int32 == 321)
            set(object, Int64(321), "int64Col")
            #expect(get(object, "int64Col") as? Int64 == 321)
            set(object, NSNumber(value: 32.1 as Float), "floatCol")
            #expect(get(object, "floatCol") as? Float == 32.1 as Float)
            set(object, 3.21, "doubleCol")
            #expect(get(object, "doubleCol") as? Double == 3.21)
            set(object, "z", "stringCol")
            #expect(get(object, "stringCol") as? String == "z")
            set(object, Data("z".utf8), "binaryCol")
            #expect(get(object, "binaryCol") as? Data == Data("z".utf8))
            set(object, Date(timeIntervalSince1970: 333), "dateCol")
            #expect(get(object, "dateCol") as? Date == Date(timeIntervalSince1970: 333))
            set(object, RealmParityObjects.uuid137, "uuidCol")
            #expect(get(object, "uuidCol") as? UUID == RealmParityObjects.uuid137)

            let boolObject = SwiftBoolObject(value: [true])
            set(object, boolObject, "objectCol")
            #expect((get(object, "objectCol") as? SwiftBoolObject)?.isSameObject(as: boolObject) == true)
            #expect((get(object, "objectCol") as? SwiftBoolObject)?.boolCol == true)

            let list = List<SwiftBoolObject>()
            list.append(boolObject)
            set(object, list, "arrayCol")
            #expect((get(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 1)
            #expect((get(object, "arrayCol") as? List<SwiftBoolObject>)?.first?.isSameObject(as: boolObject) == true)
            list.removeAll()
            set(object, list, "arrayCol")
            #expect((get(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 0)
            set(object, [boolObject], "arrayCol")
            #expect((get(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 1)
            #expect((get(object, "arrayCol") as? List<SwiftBoolObject>)?.first?.isSameObject(as: boolObject) == true)
            set(object, nil, "arrayCol")
            #expect((get(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 0)
            set(object, [boolObject], "arrayCol")
            set(object, NSNull(), "arrayCol")
            #expect((get(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 0)

            if let realm = object.realm {
                let matching = realm.objects(SwiftBoolObject.self).where { $0.boolCol == true }
                set(object, matching, "arrayCol")
                #expect((get(object, "arrayCol") as? List<SwiftBoolObject>)?.count == matching.count)
                #expect(
                    (get(object, "arrayCol") as? List<SwiftBoolObject>)?.first?.isSameObject(as: boolObject) == true)
            }
        }

        @Test func testSetValueForKey() throws {
            let set: (SwiftObject, Any?, String) -> Void = { $0.setValue($1, forKey: $2) }
            let get: (SwiftObject, String) -> Any? = { $0.value(forKey: $1) }
            setAndTestAllTypes(set, get, SwiftObject())
            let realm = try RealmParityObjects.realm()
            try realm.write { setAndTestAllTypes(set, get, realm.create(SwiftObject.self)) }
        }

        @Test func testSubscript() throws {
            let set: (SwiftObject, Any?, String) -> Void = { $0[$2] = $1 }
            let get: (SwiftObject, String) -> Any? = { $0[$1] }
            setAndTestAllTypes(set, get, SwiftObject())
            let realm = try RealmParityObjects.realm()
            try realm.write { setAndTestAllTypes(set, get, realm.create(SwiftObject.self)) }
        }

        // MARK: observation

        /// What one observer received, as text ("intCol nil→2", "deleted").
        final class Log: @unchecked Sendable {
            private let lock = NSLock()
            private var stored: [String] = []
            var entries: [String] { lock.withLock { stored } }

            func record<T>(_ change: ObjectChange<T>) {
                let text: String
                switch change {
                case .change(_, let properties):
                    text = properties.map { "\($0.name) \(Self.text($0.oldValue))→\(Self.text($0.newValue))" }
                        .joined(separator: ", ")
                case .deleted: text = "deleted"
                case .error(let error): text = "error \(error)"
                }
                lock.withLock { stored.append(text) }
            }

            static func text(_ value: Any?) -> String {
                guard let value = AnyOptional.flatten(value) else { return "nil" }
                if value is List<SwiftEmployeeObject> || value is List<SwiftRecursiveObject> { return "nil" }
                return "\(value)"
            }
        }

        private func createObject(_ realm: Realm, _ value: Int = 0) throws -> SwiftObject {
            try realm.write { realm.create(SwiftObject.self, value: ["intCol": value]) }
        }

        private func onAnotherThread(
            _ configuration: Realm.Configuration,
            _ change: @escaping @Sendable (Realm) throws -> Void
        ) throws {
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                try realm.write { try change(realm) }
            }
        }

        @Test("Spec N19") func testObserveUnmanagedObject() {
            expectRejected(rejection { _ = try SwiftIntObject()._observe { _ in } }, "managed")
            expectRejected(rejection { _ = try SwiftIntObject()._observe(keyPaths: ["intCol"]) { _ in } }, "managed")
        }

        @Test("Spec N20") func testDeleteObservedObject() throws {
            try onLoopThread {
                let realm = try RealmParityObjects.realm()
                realm.beginWrite()
                let object0 = realm.create(SwiftIntObject.self, value: [0])
                let object1 = realm.create(SwiftIntObject.self, value: [0])
                try realm.commitWrite()
                let log0 = Log()
                let log1 = Log()
                let token0 = object0.observe { log0.record($0) }
                let token1 = object1.observe(keyPaths: ["intCol"]) { log1.record($0) }
                realm.beginWrite()
                realm.delete(object0)
                realm.delete(object1)
                try realm.commitWrite()
                #expect(settleRunLoop { log0.entries.count == 1 && log1.entries.count == 1 })
                #expect(log0.entries == ["deleted"])
                #expect(log1.entries == ["deleted"])
                token0.invalidate()
                token1.invalidate()
            }
        }

        @Test("Spec N21") func testObserveInvalidKeyPath() throws {
            let realm = try RealmParityObjects.realm()
            let object = try createObject(realm)
            expectRejected(
                rejection { _ = try object._observe(keyPaths: ["notAProperty"]) { _ in } },
                "roperty 'notAProperty' not found in object of type 'SwiftObject'")
            expectRejected(
                rejection { _ = try object._observe(keyPaths: ["arrayCol.alsoNotAProperty"]) { _ in } },
                "roperty 'alsoNotAProperty' not found in object of type 'SwiftBoolObject'")
        }

        /// Observes a new object with `observe`, runs `change` in a local write and returns what
        /// the observer got once the run loop has delivered.
        private func observeLocalChange(
            keyPaths: [String]?, expecting count: Int,
            _ change: @escaping @Sendable (SwiftObject) -> Void
        ) throws -> [String] {
            let result = ResultBox<[String]>()
            try onLoopThread {
                let realm = try RealmParityObjects.realm()
                let object = try createObject(realm)
                let log = Log()
                let token = object.observe(keyPaths: keyPaths) { log.record($0) }
                try realm.write { change(object) }
                _ = settleRunLoop { log.entries.count >= count }
                token.invalidate()
                result.set(.success(log.entries))
            }
            return try result.get()
        }

        @Test("Spec N20") func testModifyObservedObjectLocally() throws {
            #expect(try observeLocalChange(keyPaths: nil, expecting: 1) { $0.intCol = 2 } == ["intCol nil→2"])
        }

        @Test("Spec N21") func testModifyObservedKeyPathLocally() throws {
            #expect(try observeLocalChange(keyPaths: ["intCol"], expecting: 1) { $0.intCol = 2 } == ["intCol nil→2"])
        }

        @Test("Spec N21") func testModifyUnobservedKeyPathLocally() throws {
            #expect(try observeLocalChange(keyPaths: ["boolCol"], expecting: 0) { $0.intCol = 3 } == [])
        }

        @Test("Spec N21") func testModifyMultipleObservedPartialKeyPathLocally() throws {
            try onLoopThread {
                let realm = try RealmParityObjects.realm()
                let object = try createObject(realm)
                var log = Log()
                var token = object.observe(keyPaths: [\SwiftObject.intCol, \SwiftObject.stringCol]) { log.record($0) }
                try realm.write { object.intCol = 2 }
                #expect(settleRunLoop { log.entries.count == 1 })
                #expect(log.entries == ["intCol nil→2"])
                token.invalidate()

                log = Log()
                let current = log
                token = object.observe(keyPaths: [\SwiftObject.intCol, \SwiftObject.stringCol]) { current.record($0) }
                try realm.write { object.stringCol = "new string" }
                #expect(settleRunLoop { current.entries.count == 1 })
                #expect(current.entries == ["stringCol nil→new string"])
                token.invalidate()
            }
        }

        @Test("Spec N21") func testModifyUnobservedPartialKeyPathLocally() throws {
            try onLoopThread {
                let realm = try RealmParityObjects.realm()
                let object = try createObject(realm)
                let log = Log()
                let token = object.observe(keyPaths: [\SwiftObject.boolCol, \SwiftObject.stringCol]) { log.record($0) }
                try realm.write { object.intCol = 3 }
                #expect(settleRunLoop { true })
                #expect(log.entries == [])
                token.invalidate()
            }
        }

        /// Observes an object, lets another thread change it, refreshes and returns what came.
        private func observeRemoteChange(
            initial: Int, keyPaths: [String]?, expecting count: Int,
            _ change: @escaping @Sendable (SwiftObject) -> Void
        ) throws -> [String] {
            let result = ResultBox<[String]>()
            let configuration = RealmParityObjects.configuration()
            try onLoopThread {
                let realm = try Realm(configuration: configuration)
                let object = try createObject(realm, initial)
                let log = Log()
                let token = object.observe(keyPaths: keyPaths) { log.record($0) }
                try onAnotherThread(configuration) { realm in
                    change(try required(realm.objects(SwiftObject.self).first, "the object"))
                }
                realm.refresh()
                _ = settleRunLoop { log.entries.count >= count }
                token.invalidate()
                result.set(.success(log.entries))
            }
            return try result.get()
        }

        @Test("Spec N20") func testModifyObservedObjectRemotely() throws {
            #expect(
                try observeRemoteChange(initial: 1, keyPaths: nil, expecting: 1) { $0.intCol = 2 } == ["intCol 1→2"])
        }

        @Test("Spec N21") func testModifyObservedKeyPathRemotely() throws {
            #expect(
                try observeRemoteChange(initial: 123, keyPaths: ["intCol"], expecting: 1) { $0.intCol = 2 }
                    == ["intCol 123→2"])
        }

        @Test("Spec N21") func testModifyUnobservedKeyPathRemotely() throws {
            #expect(try observeRemoteChange(initial: 0, keyPaths: ["boolCol"], expecting: 0) { $0.intCol += 1 } == [])
        }

        @Test("Spec N20") func testListPropertyNotifications() throws {
            let configuration = RealmParityObjects.configuration()
            try onLoopThread {
                let realm = try Realm(configuration: configuration)
                let object = try realm.write { realm.create(SwiftRecursiveObject.self) }
                let log = Log()
                let token = object.observe { log.record($0) }
                try onAnotherThread(configuration) { realm in
                    let object = try required(realm.objects(SwiftRecursiveObject.self).first, "the object")
                    object.objects.append(object)
                }
                #expect(settleRunLoop { log.entries.count == 1 })
                #expect(log.entries == ["objects nil→nil"])
                token.invalidate()
            }
        }

        @Test("Spec N21") func testListPropertyKeyPathNotifications() throws {
            try onLoopThread {
                let realm = try RealmParityObjects.realm()
                realm.beginWrite()
                let employee = realm.create(SwiftEmployeeObject.self)
                let company = realm.create(SwiftCompanyObject.self)
                company.employees.append(employee)
                try realm.commitWrite()

                func observed(_ keyPaths: [String], expecting count: Int, _ change: () -> Void) throws -> [String] {
                    let log = Log()
                    let token = company.observe(keyPaths: keyPaths) { log.record($0) }
                    try realm.write { change() }
                    _ = settleRunLoop { log.entries.count >= count }
                    token.invalidate()
                    return log.entries
                }
                let changed = ["employees nil→nil"]
                #expect(try observed(["employees"], expecting: 0) { employee.hired = true } == [])
                #expect(try observed(["employees.hired"], expecting: 1) { employee.hired = false } == changed)
                #expect(try observed(["employees.hired"], expecting: 0) { employee.age = 35 } == [])
                #expect(try observed(["employees.hired"], expecting: 1) { realm.delete(employee) } == changed)
                #expect(
                    try observed(["employees.hired"], expecting: 1) {
                        company.employees.append(realm.create(SwiftEmployeeObject.self))
                    } == changed)
                #expect(
                    try observed(["employees.hired"], expecting: 1) {
                        company.employees[0] = realm.create(SwiftEmployeeObject.self)
                    } == changed)
                #expect(
                    try observed(["employees"], expecting: 1) {
                        company.employees.append(realm.create(SwiftEmployeeObject.self))
                    } == changed)
                #expect(
                    try observed(["employees"], expecting: 1) {
                        company.employees[0] = realm.create(SwiftEmployeeObject.self)
                    } == changed)
                #expect(try observed(["employees"], expecting: 0) { company.name = "changed" } == [])
            }
        }

        /// An owner with a dog, observed with `keyPaths` while `change` runs in a local write.
        private func observeOwner(
            _ keyPaths: [String], expecting count: Int,
            _ change: @escaping @Sendable (Realm, SwiftOwnerObject, SwiftDogObject) -> Void
        ) throws
            -> [String]
        {
            let result = ResultBox<[String]>()
            try onLoopThread {
                let realm = try RealmParityObjects.realm()
                realm.beginWrite()
                let person = realm.create(SwiftOwnerObject.self)
                let dog = realm.create(SwiftDogObject.self)
                person.dog = dog
                try realm.commitWrite()
                let log = Log()
                let token = person.observe(keyPaths: keyPaths) { log.record($0) }
                try realm.write { change(realm, person, dog) }
                _ = settleRunLoop { log.entries.count >= count }
                token.invalidate()
                result.set(.success(log.entries))
            }
            return try result.get()
        }

        @Test("Spec N21") func testLinkPropertyKeyPathNotifications1() throws {
            #expect(try observeOwner(["dog.dogName"], expecting: 1) { _, _, dog in dog.dogName = "rex" }.count == 1)
        }

        @Test("Spec N21") func testLinkPropertyKeyPathNotifications2() throws {
            #expect(
                try observeOwner(["dog.dogName"], expecting: 1) { _, person, _ in person.dog = SwiftDogObject() }.count
                    == 1)
        }

        @Test("Spec N21") func testLinkPropertyKeyPathNotifications3() throws {
            #expect(try observeOwner(["dog"], expecting: 0) { _, person, _ in person.name = "Teddy" } == [])
        }

        @Test("Spec N21") func testLinkPropertyKeyPathNotifications4() throws {
            #expect(try observeOwner(["dog"], expecting: 0) { _, _, dog in dog.dogName = "fido" } == [])
        }

        /// An added SwiftOptionalDefaultValuesObject observed while other threads set its
        /// `optIntCol` in turn; each observer's callbacks, waited for up to `expecting` of them.
        private func optionalNotifications(keyPaths: [[String]?], values: [Int?], expecting: [Int]) throws -> [[String]]
        {
            let result = ResultBox<[[String]]>()
            let configuration = RealmParityObjects.configuration()
            try onLoopThread {
                let realm = try Realm(configuration: configuration)
                let object = SwiftOptionalDefaultValuesObject()
                try realm.write { realm.add(object) }
                var all: [[String]] = []
                for ((paths, value), count) in zip(zip(keyPaths, values), expecting) {
                    let log = Log()
                    let token = object.observe(keyPaths: paths) { log.record($0) }
                    try onAnotherThread(configuration) { realm in
                        try required(realm.objects(SwiftOptionalDefaultValuesObject.self).first, "the object")
                            .optIntCol = value
                    }
                    realm.refresh()
                    _ = settleRunLoop { log.entries.count >= count }
                    token.invalidate()
                    all.append(log.entries)
                }
                result.set(.success(all))
            }
            return try result.get()
        }

        @Test("Spec N20") func testOptionalPropertyNotifications() throws {
            let logs = try optionalNotifications(
                keyPaths: [nil, nil, nil], values: [2, nil, 3], expecting: [1, 1, 1])
            #expect(logs == [["optIntCol 1→2"], ["optIntCol 2→nil"], ["optIntCol nil→3"]])
        }

        @Test("Spec N21") func testOptionalPropertyKeyPathNotifications() throws {
            let logs = try optionalNotifications(
                keyPaths: [["optIntCol"], ["optStringCol"], ["optIntCol"], ["optIntCol"]],
                values: [2, 3, nil, 2], expecting: [1, 0, 1, 1])
            #expect(logs == [["optIntCol 1→2"], [], ["optIntCol 3→nil"], ["optIntCol nil→2"]])
        }

        @Test("Spec N18") func testObserveOnDifferentQueue() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { realm.create(SwiftIntObject.self, value: [1]) }
            let queue = DispatchQueue(label: "label")
            let log = Log()
            let received = DispatchSemaphore(value: 0)
            let token = object.observe(on: queue) { change in
                log.record(change)
                received.signal()
            }
            queue.sync {}
            try realm.write { object.intCol = 2 }
            #expect(received.wait(timeout: .now() + hangGuardSeconds) == .success)
            #expect(log.entries == ["intCol 1→2"])
            token.invalidate()
            queue.sync {}
        }

        @Test("Spec N18") func testObserveKeyPathOnDifferentQueue() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { () -> SwiftObject in
                let object = realm.create(SwiftObject.self)
                object.intCol = 1
                return object
            }
            let queue = DispatchQueue(label: "label")
            let log = Log()
            let received = DispatchSemaphore(value: 0)
            let token = object.observe(keyPaths: ["intCol"], on: queue) { change in
                log.record(change)
                received.signal()
            }
            queue.sync {}
            try realm.write { object.intCol = 2 }
            #expect(received.wait(timeout: .now() + hangGuardSeconds) == .success)
            #expect(log.entries == ["intCol 1→2"])
            token.invalidate()
            queue.sync {}
        }

        @Test("Spec N18") func testInvalidateObserverOnDifferentQueueBeforeRegistration() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { realm.create(SwiftIntObject.self, value: [1]) }
            let queue = DispatchQueue(label: "label")
            let gate = DispatchSemaphore(value: 0)
            queue.async { gate.wait() }
            let first = Log()
            let second = Log()
            let received = DispatchSemaphore(value: 0)
            let token1 = object.observe(on: queue) { first.record($0) }
            let token2 = object.observe(on: queue) { change in
                second.record(change)
                received.signal()
            }
            token1.invalidate()
            gate.signal()
            queue.sync {}
            try realm.write { object.intCol = 2 }
            #expect(received.wait(timeout: .now() + hangGuardSeconds) == .success)
            #expect(first.entries == [])
            #expect(second.entries == ["intCol 1→2"])
            token2.invalidate()
            queue.sync {}
        }

        @globalActor actor ParityActor {
            static let shared = ParityActor()
        }

        @Test("Spec N18, C15") func testObserveOnActor() async throws {
            let configuration = RealmParityObjects.configuration()
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                try realm.write {
                    realm.create(SwiftObject.self, value: ["intCol": 0])
                    realm.create(SwiftObject.self, value: ["intCol": 0])
                }
            }
            let log1 = Log()
            let log2 = Log()
            let token1 = try await Self.observe(configuration, index: 0, log1, typed: false)
            let token2 = try await Self.observe(configuration, index: 1, log2, typed: true)
            try await ParityActorWrites.writeBoth(configuration)
            let deadline = Date().addingTimeInterval(hangGuardSeconds)
            while (log1.entries.isEmpty || log2.entries.isEmpty) && Date() < deadline {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(log1.entries == ["intCol 0→2"])
            #expect(log2.entries == ["intCol 0→3"])
            token1.invalidate()
            token2.invalidate()
        }

        /// Observes the `index`th SwiftObject of a realm of the calling thread on `ParityActor`
        /// (by name, or by key path when `typed`).
        private static func observe(
            _ configuration: Realm.Configuration, index: Int, _ log: Log,
            typed: Bool
        ) async throws -> NotificationToken {
            let realm = try Realm(configuration: configuration)
            let object = realm.objects(SwiftObject.self)[index]
            if typed {
                return await object.observe(keyPaths: [\SwiftObject.intCol], on: ParityActor.shared) { _, change in
                    log.record(change)
                }
            }
            return await object.observe(keyPaths: ["intCol"], on: ParityActor.shared) { _, change in log.record(change)
            }
        }

        @globalActor actor ParityWriterActor {
            static let shared = ParityWriterActor()
        }

        /// The writes of `testObserveOnActor`, by async writes of a realm confined to another
        /// actor (as Realm's are of the main thread's realm): the first changes only unobserved
        /// properties.
        @ParityWriterActor enum ParityActorWrites {
            static func writeBoth(_ configuration: Realm.Configuration) async throws {
                let realm = try await Realm(configuration: configuration, actor: ParityWriterActor.shared)
                let objects = realm.objects(SwiftObject.self)
                try await realm.asyncWrite {
                    objects[0].boolCol = true
                    objects[1].boolCol = true
                }
                try await realm.asyncWrite {
                    objects[0].intCol = 2
                    objects[1].intCol = 3
                }
            }
        }

        @Test("Spec N18, N23") func testObserveOnAlreadyCancelledTask() async throws {
            let configuration = RealmParityObjects.configuration()
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.create(SwiftObject.self) }
            }
            let task = Task { () -> Bool in
                withUnsafeCurrentTask { $0?.cancel() }
                let realm = try Realm(configuration: configuration)
                let object = try required(realm.objects(SwiftObject.self).first, "the object")
                let token = await object.observe(on: ParityActor.shared) { _, _ in }
                return token.invalidate()
            }
            #expect(try await task.value == false)
        }

        // MARK: equality

        @Test func testEqualityForObjectTypeWithPrimaryKey() throws {
            let realm = try RealmParityObjects.realm()
            let pk = "123456"
            let testObject = SwiftPrimaryStringObject()
            testObject.stringCol = pk
            testObject.intCol = 12345
            let unmanaged = SwiftPrimaryStringObject()
            unmanaged.stringCol = pk
            unmanaged.intCol = 12345
            let otherObject = SwiftPrimaryStringObject()
            otherObject.stringCol = "not" + pk
            otherObject.intCol = 12345
            try realm.write { realm.add([testObject, otherObject]) }

            #expect(testObject != otherObject)
            #expect(testObject != unmanaged)
            let retrieved = try #require(realm.object(ofType: SwiftPrimaryStringObject.self, forPrimaryKey: pk))
            #expect(testObject == retrieved)
            #expect(testObject.hashValue == retrieved.hashValue)
            #expect(testObject.isSameObject(as: retrieved))
        }

        @Test func testEqualityForObjectTypeWithoutPrimaryKey() throws {
            let realm = try RealmParityObjects.realm()
            let testObject = SwiftStringObject()
            testObject.stringCol = "123456"
            let alias = testObject
            try realm.write { realm.add(testObject) }
            #expect(testObject == alias)
            let retrieved = try #require(realm.objects(SwiftStringObject.self).first)
            #expect(testObject != retrieved)
            #expect(testObject.isSameObject(as: retrieved))
        }

        @Test("Spec F13") func testEqualityForFrozenObjectTypeWithoutPrimaryKey() throws {
            let realm = try RealmParityObjects.realm()
            let testObject = try realm.write { realm.create(SwiftStringObject.self) }
            let frozen = testObject.freeze()
            let retrieved = try #require(realm.objects(SwiftStringObject.self).first).freeze()
            #expect(frozen == retrieved)
        }

        @Test func testRetrievingObjectWithRuntimeType() throws {
            let realm = try RealmParityObjects.realm()
            let unmanagedObject = SwiftPrimaryStringObject()
            unmanagedObject.stringCol = UUID().uuidString
            let managedObject = SwiftPrimaryStringObject()
            managedObject.stringCol = UUID().uuidString
            try realm.write { realm.add(managedObject) }
            #expect(realm.object(ofType: type(of: unmanagedObject), forPrimaryKey: managedObject.stringCol) != nil)
            #expect(realm.object(ofType: type(of: managedObject), forPrimaryKey: managedObject.stringCol) != nil)
        }

        @Test func testRetrievingObjectsWithRuntimeType() throws {
            let realm = try RealmParityObjects.realm()
            let unmanagedObject = SwiftStringObject()
            unmanagedObject.stringCol = "foo"
            let managedObject = SwiftStringObject()
            managedObject.stringCol = "bar"
            try realm.write { realm.add(managedObject) }
            #expect(realm.objects(type(of: unmanagedObject)).count == 1)
            #expect(realm.objects(type(of: managedObject)).count == 1)
            // The base class itself names no stored type (Realm: RLMSchemaInfo's message).
            expectRejected(
                rejection { _ = try realm._objects(Object.self) },
                "Object type 'Object' is not managed by the Realm.")
        }

        // MARK: freeze and thaw

        @Test("Spec F1") func testIsFrozen() throws {
            let object = SwiftStringObject()
            #expect(!object.isFrozen)
            let realm = try RealmParityObjects.realm()
            try realm.write { realm.add(object) }
            #expect(!object.isFrozen)
            let frozen = object.freeze()
            #expect(!object.isFrozen)
            #expect(frozen.isFrozen)
        }

        @Test("Spec F11") func testFreezeUnmanaged() {
            expectRejected(rejection { _ = try SwiftStringObject()._freeze() }, "Unmanaged objects cannot be frozen.")
        }

        @Test("Spec F12") func testModifyFrozenObject() throws {
            let object = SwiftStringObject()
            let realm = try RealmParityObjects.realm()
            try realm.write { realm.add(object) }
            let frozen = object.freeze()
            expectRejected(
                rejection { try frozen._setValue("foo", forKey: "stringCol") },
                "Attempting to modify a frozen object - call thaw on the Object instance first.")
        }

        @Test("Spec F1") func testFreezeAllPropertyTypes() throws {
            let realm = try RealmParityObjects.realm()
            let (object, optionalObject, listObject) = try realm.write {
                (
                    realm.create(
                        SwiftObject.self,
                        value: [
                            "boolCol": true, "intCol": 456, "floatCol": 4.56 as Float, "doubleCol": 45.6,
                            "stringCol": "b",
                            "binaryCol": Data("b".utf8), "dateCol": Date(timeIntervalSince1970: 2), "objectCol": [true],
                            "uuidCol": UUID(),
                        ]),
                    realm.create(
                        SwiftOptionalObject.self,
                        value: [
                            "optNSStringCol": "NSString", "optStringCol": "String", "optBinaryCol": Data(),
                            "optDateCol": Date(),
                            "optIntCol": 1, "optInt8Col": 2, "optInt16Col": 3, "optInt32Col": 4, "optInt64Col": 5,
                            "optFloatCol": 6.1, "optDoubleCol": 7.2, "optBoolCol": true,
                        ]),
                    realm.create(
                        SwiftListObject.self,
                        value: [
                            "int": [1], "int8": [2], "int16": [3], "int32": [4], "int64": [5], "float": [6.6 as Float],
                            "double": [7.7], "string": ["8"], "data": [Data("9".utf8)],
                            "date": [Date(timeIntervalSince1970: 10)],
                            "intOpt": [11, nil], "int8Opt": [12, nil], "int16Opt": [13, nil], "int32Opt": [14, nil],
                            "int64Opt": [15, nil], "floatOpt": [16.16, nil], "doubleOpt": [17.17, nil],
                            "stringOpt": ["18", nil],
                            "dataOpt": [Data("19".utf8), nil], "dateOpt": [Date(timeIntervalSince1970: 20), nil],
                            "uuid": [UUID()], "uuidOpt": [UUID(), nil],
                        ])
                )
            }
            let frozen = object.freeze()
            #expect(object.boolCol == frozen.boolCol)
            #expect(object.intCol == frozen.intCol)
            #expect(object.floatCol == frozen.floatCol)
            #expect(object.doubleCol == frozen.doubleCol)
            #expect(object.stringCol == frozen.stringCol)
            #expect(object.binaryCol == frozen.binaryCol)
            #expect(object.dateCol == frozen.dateCol)
            #expect(object.objectCol?.boolCol == frozen.objectCol?.boolCol)
            #expect(object.uuidCol == frozen.uuidCol)

            let frozenOptional = optionalObject.freeze()
            #expect(optionalObject.optNSStringCol == frozenOptional.optNSStringCol)
            #expect(optionalObject.optStringCol == frozenOptional.optStringCol)
            #expect(optionalObject.optBinaryCol == frozenOptional.optBinaryCol)
            #expect(optionalObject.optDateCol == frozenOptional.optDateCol)
            #expect(optionalObject.optIntCol == frozenOptional.optIntCol)
            #expect(optionalObject.optInt8Col == frozenOptional.optInt8Col)
            #expect(optionalObject.optInt16Col == frozenOptional.optInt16Col)
            #expect(optionalObject.optInt32Col == frozenOptional.optInt32Col)
            #expect(optionalObject.optInt64Col == frozenOptional.optInt64Col)
            #expect(optionalObject.optFloatCol == frozenOptional.optFloatCol)
            #expect(optionalObject.optDoubleCol == frozenOptional.optDoubleCol)
            #expect(optionalObject.optBoolCol == frozenOptional.optBoolCol)
            #expect(optionalObject.optUuidCol == frozenOptional.optUuidCol)

            let frozenList = listObject.freeze()
            #expect(Array(listObject.int) == Array(frozenList.int))
            #expect(Array(listObject.int8) == Array(frozenList.int8))
            #expect(Array(listObject.int16) == Array(frozenList.int16))
            #expect(Array(listObject.int32) == Array(frozenList.int32))
            #expect(Array(listObject.int64) == Array(frozenList.int64))
            #expect(Array(listObject.float) == Array(frozenList.float))
            #expect(Array(listObject.double) == Array(frozenList.double))
            #expect(Array(listObject.string) == Array(frozenList.string))
            #expect(Array(listObject.data) == Array(frozenList.data))
            #expect(Array(listObject.date) == Array(frozenList.date))
            #expect(Array(listObject.intOpt) == Array(frozenList.intOpt))
            #expect(Array(listObject.int8Opt) == Array(frozenList.int8Opt))
            #expect(Array(listObject.int16Opt) == Array(frozenList.int16Opt))
            #expect(Array(listObject.int32Opt) == Array(frozenList.int32Opt))
            #expect(Array(listObject.int64Opt) == Array(frozenList.int64Opt))
            #expect(Array(listObject.floatOpt) == Array(frozenList.floatOpt))
            #expect(Array(listObject.doubleOpt) == Array(frozenList.doubleOpt))
            #expect(Array(listObject.stringOpt) == Array(frozenList.stringOpt))
            #expect(Array(listObject.dataOpt) == Array(frozenList.dataOpt))
            #expect(Array(listObject.dateOpt) == Array(frozenList.dateOpt))
            #expect(Array(listObject.uuid) == Array(frozenList.uuid))
            #expect(Array(listObject.uuidOpt) == Array(frozenList.uuidOpt))
            #expect(listObject.intOpt.count == 2)
        }

        @Test("Spec F7, F12, W18") func testThaw() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
            let frozen = object.freeze()
            #expect(frozen.isFrozen)
            let frozenRealm = try #require(frozen.realm)
            expectRejected(rejection { try frozenRealm.write {} }, "Can't perform transactions on a frozen Realm")
            let live = try #require(frozen.thaw())
            #expect(!live.isFrozen)
            #expect(live.boolCol == frozen.boolCol)
            try #require(live.realm).write { live.boolCol = false }
            #expect(live.boolCol != frozen.boolCol)
        }

        @Test("Spec F10") func testThawUnmanaged() {
            expectRejected(rejection { _ = try SwiftBoolObject()._thaw() }, "Unmanaged objects cannot be thawed.")
        }

        @Test("Spec F9") func testThawDeleted() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
            let frozen = object.freeze()
            try realm.write { realm.delete(object) }
            #expect(frozen.thaw() == nil)
        }

        @Test("Spec F2, F8") func testThawPreviousVersion() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
            let frozen = object.freeze()
            #expect(frozen.isFrozen)
            try realm.write { object.boolCol = false }
            #expect(frozen.boolCol)
            let thawed = try #require(frozen.thaw())
            #expect(!thawed.isFrozen)
            #expect(!thawed.boolCol)
        }

        @Test("Spec F8, T5, V3") func testThawUpdatedOnDifferentThread() throws {
            let configuration = RealmParityObjects.configuration()
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
            let frozen = object.freeze()
            let thawed = try #require(frozen.thaw())
            let reference = ThreadSafeReference(to: thawed)
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                let resolved = try required(realm.resolve(reference), "the resolved object")
                try realm.write { resolved.boolCol = false }
            }
            #expect(try #require(frozen.thaw()).boolCol)
            #expect(thawed.boolCol)
            realm.refresh()
            #expect(try #require(frozen.thaw()).boolCol == false)
            #expect(!thawed.boolCol)
        }
    }
}
