import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/ObjectCreationTests.swift, test by test, in our own words (values of
// Decimal128, ObjectId, enum, AnyRealmValue, MutableSet and Map properties left out). Left out:
// testInitWithObjcName, testCreateWithObjcName, testCreateWithDifferentObjcName (Objective-C
// class names); testCreateWithOptionalIgnoredProperties (schema introspection);
// testDynamicCreateEmbeddedDirectly, testCreateEmbeddedWithDictionary,
// testCreateEmbeddedWithUnmanagedObjects, testCreateEmbeddedFromManagedObjectInSameRealm,
// testCreateEmbeddedFromManagedObjectInDifferentRealm, testCreateObjectWithNestedEmbeddedType,
// testAddEmbedded, testAddAndUpdateEmbedded, testAddAndUpdateChangedEmbedded (EmbeddedObject).
extension RealmParityObjects {
    @Suite struct ObjectCreationTests {
        // MARK: checks

        private func verify(
            _ object: SwiftObject, dictionary: [String: Any], boolObjectValue: Bool,
            boolObjectListValues: [Bool], sourceLocation: SourceLocation = #_sourceLocation
        ) {
            func number(_ key: String) -> NSNumber? {
                AnyValue(dictionary[key]).number
            }
            #expect(object.boolCol == number("boolCol")?.boolValue, sourceLocation: sourceLocation)
            #expect(object.intCol == number("intCol")?.intValue, sourceLocation: sourceLocation)
            #expect(object.int8Col == number("int8Col")?.int8Value, sourceLocation: sourceLocation)
            #expect(object.int16Col == number("int16Col")?.int16Value, sourceLocation: sourceLocation)
            #expect(object.int32Col == number("int32Col")?.int32Value, sourceLocation: sourceLocation)
            #expect(object.int64Col == number("int64Col")?.int64Value, sourceLocation: sourceLocation)
            #expect(object.floatCol == number("floatCol")?.floatValue, sourceLocation: sourceLocation)
            #expect(object.doubleCol == number("doubleCol")?.doubleValue, sourceLocation: sourceLocation)
            #expect(object.stringCol == dictionary["stringCol"] as? String, sourceLocation: sourceLocation)
            #expect(object.binaryCol == dictionary["binaryCol"] as? Data, sourceLocation: sourceLocation)
            #expect(object.dateCol == dictionary["dateCol"] as? Date, sourceLocation: sourceLocation)
            #expect(object.objectCol?.boolCol == boolObjectValue, sourceLocation: sourceLocation)
            #expect(object.arrayCol.map(\.boolCol) == boolObjectListValues, sourceLocation: sourceLocation)
        }

        /// The SwiftObject property names, in order.
        static let names = [
            "boolCol", "intCol", "int8Col", "int16Col", "int32Col", "int64Col", "floatCol", "doubleCol",
            "stringCol", "binaryCol", "dateCol", "objectCol", "uuidCol", "arrayCol",
        ]

        private func verify(
            _ object: SwiftObject, array: [Any], boolObjectValue: Bool, boolObjectListValues: [Bool],
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            var dictionary: [String: Any] = [:]
            for (name, value) in zip(Self.names, array) { dictionary[name] = value }
            verify(
                object, dictionary: dictionary, boolObjectValue: boolObjectValue,
                boolObjectListValues: boolObjectListValues, sourceLocation: sourceLocation)
        }

        private func defaultsWith(_ replacements: [String: Any]) -> [String: Any] {
            SwiftObject.defaultValues().merging(replacements) { $1 }
        }

        private static var baselineDictionary: [String: Any] {
            [
                "boolCol": true, "intCol": 1, "int8Col": 1 as Int8, "int16Col": 1 as Int16, "int32Col": 1 as Int32,
                "int64Col": 1 as Int64, "floatCol": 1.1 as Float, "doubleCol": 11.1, "stringCol": "b",
                "binaryCol": Data("b".utf8), "dateCol": Date(timeIntervalSince1970: 2),
                "objectCol": SwiftBoolObject(value: [true]), "uuidCol": RealmParityObjects.uuid137,
                "arrayCol": [SwiftBoolObject(value: [true]), SwiftBoolObject()],
            ]
        }

        private static var baselineArray: [Any] {
            [
                true, 1, Int8(1), Int16(1), Int32(1), Int64(1), 1.1 as Float, 11.1, "b", Data("b".utf8),
                Date(timeIntervalSince1970: 2), ["boolCol": true], RealmParityObjects.uuid137, [[true], [false]],
            ]
        }

        /// Valid values per property of SwiftObject (Realm's `validValuesForSwiftObjectType`).
        private func validValues(_ name: String, persisted: SwiftBoolObject) -> [Any] {
            switch name {
            case "boolCol": return [true, NSNumber(value: 0 as Int), NSNumber(value: 1 as Int)]
            case "intCol", "int8Col", "int16Col", "int32Col", "int64Col": return [NSNumber(value: 1 as Int)]
            case "floatCol", "doubleCol":
                return [NSNumber(value: 1 as Int), NSNumber(value: 1.1 as Float), NSNumber(value: 11.1 as Double)]
            case "stringCol": return ["b"]
            case "binaryCol": return [Data("b".utf8)]
            case "dateCol": return [Date(timeIntervalSince1970: 2)]
            case "objectCol": return [[true], ["boolCol": true], SwiftBoolObject(value: [true]), persisted]
            case "uuidCol":
                return [RealmParityObjects.uuid137, UUID(uuidString: "00000000-0000-0000-0000-000000000000") as Any]
            case "arrayCol":
                return [
                    [[true], [false]], [["boolCol": true], ["boolCol": false]],
                    [SwiftBoolObject(value: [true]), SwiftBoolObject(value: [false])], [persisted, [false]] as [Any],
                ]
            default: return []
            }
        }

        /// Invalid values per property (Realm's `invalidValuesForSwiftObjectType`).
        private func invalidValues(_ name: String, persisted: SwiftIntObject) -> [Any] {
            switch name {
            case "boolCol":
                return [
                    "invalid", NSNumber(value: 2 as Int), NSNumber(value: 1.1 as Float),
                    NSNumber(value: 11.1 as Double),
                ]
            case "intCol", "int8Col", "int16Col", "int32Col", "int64Col":
                return ["invalid", NSNumber(value: 1.1 as Float), NSNumber(value: 11.1 as Double)]
            case "floatCol", "doubleCol": return ["invalid", true, false]
            case "stringCol": return [0x197A71D, true, false]
            case "binaryCol", "dateCol", "uuidCol": return ["invalid"]
            case "objectCol": return ["invalid", ["a"], ["boolCol": "a"], SwiftIntObject()]
            case "arrayCol": return ["invalid", [["a"]], [["boolCol": "a"]], [[SwiftIntObject()]], [[persisted]]]
            default: return []
            }
        }

        /// A SwiftBoolObject(true) and a SwiftIntObject added to `realm`, for the value lists.
        private func persistedObjects(_ realm: Realm) throws -> (SwiftBoolObject, SwiftIntObject) {
            try realm.write { (realm.create(SwiftBoolObject.self, value: [true]), realm.create(SwiftIntObject.self)) }
        }

        // MARK: init

        @Test func testInitWithDefaults() {
            let object = SwiftObject()
            #expect(object.realm == nil)
            verify(object, dictionary: SwiftObject.defaultValues(), boolObjectValue: false, boolObjectListValues: [])
            #expect(object.objectCol?.realm == nil)
            #expect(object.arrayCol.realm == nil)
        }

        @Test func testInitWithOptionalWithoutDefaults() {
            let object = SwiftOptionalObject()
            for name in SwiftOptionalObject.propertyNames { #expect(object[name] == nil, "\(name)") }
        }

        private func verifyOptionalDefaults(_ object: SwiftOptionalDefaultValuesObject) {
            #expect(object.optNSStringCol == "A")
            #expect(object.optStringCol == "B")
            #expect(object.optBinaryCol == Data("C".utf8))
            #expect(object.optDateCol == Date(timeIntervalSince1970: 10))
            #expect(object.optUuidCol == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
            #expect(object.optIntCol == 1)
            #expect(object.optInt8Col == 1)
            #expect(object.optInt16Col == 1)
            #expect(object.optInt32Col == 1)
            #expect(object.optInt64Col == 1)
            #expect(object.optFloatCol == 2.2)
            #expect(object.optDoubleCol == 3.3)
            #expect(object.optBoolCol == true)
            #expect(object.optObjectCol?.boolCol == true)
        }

        @Test func testInitWithOptionalDefaults() {
            verifyOptionalDefaults(SwiftOptionalDefaultValuesObject())
        }

        @Test func testInitWithDictionary() throws {
            let realm = try RealmParityObjects.realm()
            let (persistedBool, persistedInt) = try persistedObjects(realm)
            for name in Self.names {
                for valid in validValues(name, persisted: persistedBool) {
                    var values = Self.baselineDictionary
                    values[name] = valid
                    let object = try SwiftObject._make(value: values)
                    verify(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
                }
                for invalid in invalidValues(name, persisted: persistedInt) {
                    var values = Self.baselineDictionary
                    values[name] = invalid
                    expectRejected(rejection { _ = try SwiftObject._make(value: values) }, "Invalid value")
                }
            }
        }

        @Test func testInitWithDefaultsAndDictionary() {
            let object = SwiftObject(value: ["intCol": 200])
            verify(object, dictionary: defaultsWith(["intCol": 200]), boolObjectValue: false, boolObjectListValues: [])
        }

        @Test func testInitWithArray() throws {
            let realm = try RealmParityObjects.realm()
            let (persistedBool, persistedInt) = try persistedObjects(realm)
            for (index, name) in Self.names.enumerated() {
                for valid in validValues(name, persisted: persistedBool) {
                    var values = Self.baselineArray
                    values[index] = valid
                    let object = try SwiftObject._make(value: values)
                    verify(object, array: values, boolObjectValue: true, boolObjectListValues: [true, false])
                }
                for invalid in invalidValues(name, persisted: persistedInt) {
                    var values = Self.baselineArray
                    values[index] = invalid
                    expectRejected(rejection { _ = try SwiftObject._make(value: values) }, "Invalid value")
                }
            }
            expectRejected(
                rejection { _ = try SwiftBoolObject._make(value: [true, false]) },
                "Invalid array input: more values (2) than properties (1).")
        }

        @Test func testInitWithKVCObject() {
            let objectWithInt = SwiftObject(value: ["intCol": 200])
            let copy = SwiftObject(value: objectWithInt)
            verify(copy, dictionary: defaultsWith(["intCol": 200]), boolObjectValue: false, boolObjectListValues: [])
        }

        @Test func testGenericInit() {
            func createObject<T: Object>() -> T { T() }
            let first: SwiftBoolObject = createObject()
            #expect(first.boolCol == SwiftBoolObject().boolCol)
        }

        // MARK: create

        @Test("Spec W9") func testCreateWithDefaults() throws {
            let realm = try RealmParityObjects.realm()
            expectRejected(
                rejection { _ = try realm._create(SwiftObject.self, value: [String: Any](), update: .error) },
                "write transaction")
            #expect(realm.objects(SwiftObject.self).count == 0)
            let object = try realm.write { realm.create(SwiftObject.self) }
            verify(object, dictionary: SwiftObject.defaultValues(), boolObjectValue: false, boolObjectListValues: [])
            #expect(object.realm == realm)
            #expect(object.objectCol?.realm == realm)
            #expect(object.arrayCol.realm == realm)
        }

        @Test func testCreateWithOptionalWithoutDefaults() throws {
            let realm = try RealmParityObjects.realm()
            try realm.write {
                let object = realm.create(SwiftOptionalObject.self)
                for name in SwiftOptionalObject.propertyNames { #expect(object[name] == nil, "\(name)") }
            }
        }

        @Test func testCreateWithOptionalDefaults() throws {
            let realm = try RealmParityObjects.realm()
            try realm.write { verifyOptionalDefaults(realm.create(SwiftOptionalDefaultValuesObject.self)) }
        }

        @Test func testCreateWithDictionary() throws {
            let realm = try RealmParityObjects.realm()
            let (persistedBool, persistedInt) = try persistedObjects(realm)
            for name in Self.names {
                for valid in validValues(name, persisted: persistedBool) {
                    var values = Self.baselineDictionary
                    values[name] = valid
                    realm.beginWrite()
                    let object = realm.create(SwiftObject.self, value: values)
                    verify(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
                    try realm.commitWrite()
                    verify(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
                }
                for invalid in invalidValues(name, persisted: persistedInt) {
                    var values = Self.baselineDictionary
                    values[name] = invalid
                    realm.beginWrite()
                    expectRejected(
                        rejection { _ = try realm._create(SwiftObject.self, value: values, update: .error) },
                        "Invalid value")
                    realm.cancelWrite()
                }
            }
        }

        @Test func testCreateWithDefaultsAndDictionary() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { realm.create(SwiftObject.self, value: ["intCol": 200]) }
            verify(object, dictionary: defaultsWith(["intCol": 200]), boolObjectValue: false, boolObjectListValues: [])
        }

        @Test func testCreateWithArray() throws {
            let realm = try RealmParityObjects.realm()
            let (persistedBool, persistedInt) = try persistedObjects(realm)
            for (index, name) in Self.names.enumerated() {
                for valid in validValues(name, persisted: persistedBool) {
                    var values = Self.baselineArray
                    values[index] = valid
                    realm.beginWrite()
                    let object = realm.create(SwiftObject.self, value: values)
                    verify(object, array: values, boolObjectValue: true, boolObjectListValues: [true, false])
                    try realm.commitWrite()
                    verify(object, array: values, boolObjectValue: true, boolObjectListValues: [true, false])
                }
                for invalid in invalidValues(name, persisted: persistedInt) {
                    var values = Self.baselineArray
                    values[index] = invalid
                    realm.beginWrite()
                    expectRejected(
                        rejection { _ = try realm._create(SwiftObject.self, value: values, update: .error) },
                        "Invalid value")
                    realm.cancelWrite()
                }
            }
        }

        @Test func testCreateWithKVCObject() throws {
            let realm = try RealmParityObjects.realm()
            let copy = try realm.write { () -> SwiftObject in
                let objectWithInt = realm.create(SwiftObject.self, value: ["intCol": 200])
                return realm.create(SwiftObject.self, value: objectWithInt)
            }
            verify(copy, dictionary: defaultsWith(["intCol": 200]), boolObjectValue: false, boolObjectListValues: [])
            #expect(realm.objects(SwiftObject.self).count == 2)
        }

        @Test("Spec W14") func testCreateWithNestedObjects() throws {
            let standalone = SwiftPrimaryStringObject(value: ["p0", 11])
            let realm = try RealmParityObjects.realm()
            let object = try realm.write {
                realm.create(SwiftLinkToPrimaryStringObject.self, value: ["p1", ["p1", 12] as [Any], [standalone]])
            }
            #expect(realm.objects(SwiftPrimaryStringObject.self).count == 2)
            let p0 = realm.object(ofType: SwiftPrimaryStringObject.self, forPrimaryKey: "p0")
            let p1 = realm.object(ofType: SwiftPrimaryStringObject.self, forPrimaryKey: "p1")
            #expect(standalone.realm == nil)
            #expect(standalone != p0)
            #expect(object.object == p1)
            #expect(object.objects.first == p0)

            let standalone1 = SwiftPrimaryStringObject(value: ["p3", 11])
            realm.beginWrite()
            expectRejected(
                rejection {
                    _ = try realm._create(
                        SwiftLinkToPrimaryStringObject.self, value: ["p3", ["p3", 11] as [Any], [standalone1]],
                        update: .error)
                }, "existing primary key value 'p3'")
            realm.cancelWrite()
        }

        private func updateWithNestedObjects(_ policy: Realm.UpdatePolicy) throws {
            let standalone = SwiftPrimaryStringObject(value: ["primary", 11])
            let realm = try RealmParityObjects.realm()
            let object = try realm.write {
                realm.create(
                    SwiftLinkToPrimaryStringObject.self,
                    value: ["otherPrimary", ["primary", 12] as [Any], [["primary", 12] as [Any]]], update: policy)
            }
            #expect(realm.objects(SwiftPrimaryStringObject.self).count == 1)
            let persisted = try #require(object.object)
            #expect(persisted.intCol == 12)
            #expect(standalone.realm == nil)
            #expect(object.objects.first == persisted)
        }

        @Test("Spec W10") func testUpdateWithNestedObjects() throws { try updateWithNestedObjects(.all) }

        @Test("Spec W10") func testUpdateChangedWithNestedObjects() throws { try updateWithNestedObjects(.modified) }

        @Test("Spec W14") func testCreateWithObjectsFromAnotherRealm() throws {
            let values: [String: Any] = Self.baselineDictionary
            let otherRealm = try Realm(configuration: RealmParityObjects.configuration("other.realm"))
            let otherObject = try otherRealm.write { otherRealm.create(SwiftObject.self, value: values) }
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { realm.create(SwiftObject.self, value: otherObject) }
            #expect(otherObject != object)
            verify(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
        }

        @Test("Spec W14") func testCreateWithDeeplyNestedObjectsFromAnotherRealm() throws {
            let values: [String: Any] = Self.baselineDictionary
            let realmA = try Realm(configuration: RealmParityObjects.configuration("a.realm"))
            let realmB = try RealmParityObjects.realm()
            let listA = try realmA.write {
                realmA.create(
                    SwiftListOfSwiftObject.self,
                    value: ["array": [SwiftObject(value: values), SwiftObject(value: values)]])
            }
            let listB = try realmB.write { realmB.create(SwiftListOfSwiftObject.self, value: listA) }
            #expect(listA != listB)
            #expect(listB.array.count == 2)
            for object in listB.array {
                verify(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
            }
        }

        private func updateWithObjectsFromAnotherRealm(_ policy: Realm.UpdatePolicy) throws {
            let testRealm = try Realm(configuration: RealmParityObjects.configuration("other.realm"))
            let otherObject = try testRealm.write {
                testRealm.create(
                    SwiftLinkToPrimaryStringObject.self, value: ["primary", NSNull(), [["2", 2] as [Any], ["4", 4]]])
            }
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { () -> SwiftLinkToPrimaryStringObject in
                realm.create(
                    SwiftLinkToPrimaryStringObject.self,
                    value: ["primary", ["10", 10] as [Any], [["11", 11] as [Any]]])
                return realm.create(SwiftLinkToPrimaryStringObject.self, value: otherObject, update: policy)
            }
            #expect(otherObject != object)
            #expect(realm.objects(SwiftLinkToPrimaryStringObject.self).count == 1)
            #expect(realm.objects(SwiftPrimaryStringObject.self).count == 4)
        }

        @Test("Spec W14") func testUpdateWithObjectsFromAnotherRealm() throws {
            try updateWithObjectsFromAnotherRealm(.all)
        }

        @Test("Spec W14") func testUpdateChangedWithObjectsFromAnotherRealm() throws {
            try updateWithObjectsFromAnotherRealm(.modified)
        }

        @Test func testCreateWithNSNullLinks() throws {
            let values: [String: Any] = [
                "boolCol": true, "intCol": 1, "floatCol": 1.1, "doubleCol": 11.1, "stringCol": "b",
                "binaryCol": Data("b".utf8), "dateCol": Date(timeIntervalSince1970: 2),
                "objectCol": NSNull(), "arrayCol": NSNull(),
            ]
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { realm.create(SwiftObject.self, value: values) }
            #expect(object.objectCol == nil)
            #expect(object.arrayCol.count == 0)
        }

        private func expectAllNil(
            _ object: SwiftOptionalPrimaryObject, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(object.id == nil, sourceLocation: sourceLocation)
            for name in SwiftOptionalObject.propertyNames where name != "optUuidCol" {
                #expect(object[name] == nil, "\(name)", sourceLocation: sourceLocation)
            }
        }

        private func expectNoneNil(
            _ object: SwiftOptionalPrimaryObject, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(object.id == nil, sourceLocation: sourceLocation)
            for name in SwiftOptionalObject.propertyNames where name != "optUuidCol" {
                #expect(object[name] != nil, "\(name)", sourceLocation: sourceLocation)
            }
        }

        private func filled() -> SwiftOptionalPrimaryObject {
            let object = SwiftOptionalPrimaryObject()
            object.optIntCol = 1
            object.optInt8Col = 1
            object.optInt16Col = 1
            object.optInt32Col = 1
            object.optInt64Col = 1
            object.optFloatCol = 1
            object.optDoubleCol = 1
            object.optBoolCol = true
            object.optDateCol = Date()
            object.optStringCol = ""
            object.optNSStringCol = ""
            object.optBinaryCol = Data()
            object.optObjectCol = SwiftBoolObject()
            return object
        }

        private func createOrUpdateNil(_ policy: Realm.UpdatePolicy) throws {
            let realm = try RealmParityObjects.realm()
            realm.beginWrite()
            let object = realm.create(
                SwiftOptionalPrimaryObject.self, value: SwiftOptionalPrimaryObject(), update: policy)
            expectAllNil(object)
            realm.create(SwiftOptionalPrimaryObject.self, value: filled(), update: policy)
            expectNoneNil(object)
            realm.create(SwiftOptionalPrimaryObject.self, value: SwiftOptionalPrimaryObject(), update: policy)
            expectAllNil(object)
            realm.cancelWrite()
        }

        @Test("Spec W10") func testCreateOrUpdateNil() throws { try createOrUpdateNil(.all) }

        @Test("Spec W10") func testCreateOrUpdateModifiedNil() throws { try createOrUpdateNil(.modified) }

        @Test func testCreateOrUpdateDynamicUnmanagedType() throws {
            let realm = try RealmParityObjects.realm()
            let unmanaged = SwiftOptionalPrimaryObject()
            realm.beginWrite()
            #expect(
                rejection { _ = try realm._create(type(of: unmanaged), value: unmanaged, update: .modified) } == nil)
            realm.cancelWrite()
        }

        private func createOrUpdateDynamicManagedType(_ policy: Realm.UpdatePolicy) throws {
            let realm = try RealmParityObjects.realm()
            let managed = SwiftOptionalPrimaryObject()
            try realm.write { realm.add(managed) }
            realm.beginWrite()
            #expect(rejection { _ = try realm._create(type(of: managed), value: managed, update: policy) } == nil)
            realm.cancelWrite()
        }

        @Test func testCreateOrUpdateDynamicManagedType() throws { try createOrUpdateDynamicManagedType(.all) }

        @Test func testCreateOrUpdateModifiedDynamicManagedType() throws {
            try createOrUpdateDynamicManagedType(.modified)
        }

        @Test func testCreateOrUpdateWithMismatchedStaticAndDynamicTypes() throws {
            let realm = try RealmParityObjects.realm()
            let object: Object = SwiftOptionalPrimaryObject()
            try realm.write {
                let created = realm.create(type(of: object), value: object)
                #expect(type(of: created) == SwiftOptionalPrimaryObject.self)
                let updated = realm.create(type(of: object), value: object, update: .all)
                #expect(type(of: updated) == SwiftOptionalPrimaryObject.self)
            }
        }

        // MARK: add

        @Test("Spec W10") func testAddWithExisingNestedObjects() throws {
            let realm = try RealmParityObjects.realm()
            let existing = try realm.write { realm.create(SwiftBoolObject.self) }
            let object = SwiftObject(value: ["objectCol": existing])
            try realm.write { realm.add(object) }
            #expect(object.realm != nil)
            #expect(object.objectCol?.isSameObject(as: existing) == true)
        }

        private func addAndUpdateWithExistingNestedObjects(_ policy: Realm.UpdatePolicy) throws {
            let realm = try RealmParityObjects.realm()
            let existing = try realm.write { realm.create(SwiftPrimaryStringObject.self, value: ["primary", 1]) }
            let object = try realm.write { () -> SwiftLinkToPrimaryStringObject in
                let object = SwiftLinkToPrimaryStringObject(value: ["primary", ["primary", 2] as [Any]])
                realm.add(object, update: policy)
                return object
            }
            #expect(object.realm != nil)
            #expect(object.object == existing)
            #expect(existing.intCol == 2)
        }

        @Test("Spec W10") func testAddAndUpdateWithExisingNestedObjects() throws {
            try addAndUpdateWithExistingNestedObjects(.all)
        }

        @Test("Spec W10") func testAddAndUpdateChangedWithExisingNestedObjects() throws {
            try addAndUpdateWithExistingNestedObjects(.modified)
        }

        @Test func testAddObjectCycle() throws {
            weak var weakObj1: SwiftCircleObject?
            weak var weakObj2: SwiftCircleObject?
            try {
                let obj1 = SwiftCircleObject(value: [])
                let obj2 = SwiftCircleObject(value: [obj1, [obj1]])
                obj1.obj = obj2
                obj1.array.append(obj2)
                weakObj1 = obj1
                weakObj2 = obj2
                let realm = try RealmParityObjects.realm()
                try realm.write { realm.add(obj1) }
                #expect(obj1.realm == realm)
                #expect(obj2.realm == realm)
            }()
            #expect(weakObj1 == nil)
            #expect(weakObj2 == nil)
        }

        private func addOrUpdateNil(_ policy: Realm.UpdatePolicy) throws {
            let realm = try RealmParityObjects.realm()
            realm.beginWrite()
            let object = SwiftOptionalPrimaryObject()
            realm.add(object)
            expectAllNil(object)
            realm.add(filled(), update: policy)
            expectNoneNil(object)
            realm.add(SwiftOptionalPrimaryObject(), update: policy)
            expectAllNil(object)
            realm.cancelWrite()
        }

        @Test("Spec W10") func testAddOrUpdateNil() throws { try addOrUpdateNil(.all) }

        @Test("Spec W10") func testAddOrUpdateModifiedNil() throws { try addOrUpdateNil(.modified) }

        @Test func testProperOrderingOfProperties() {
            let values: [Any] = [
                // The superclass's columns come first.
                [["intCol": 42], ["intCol": 9001]], 100, 200,
                // Then the class's, in declaration order.
                1, [["stringCol": "hello"], ["stringCol": "world"]], 2,
                [["stringCol": "goodbye"], ["stringCol": "cruel"], ["stringCol": "world"]], NSNull(), 3, 300,
            ]
            let object = SwiftGenericPropsOrderingObject(value: values)
            #expect(object.firstNumber == 1)
            #expect(object.secondNumber == 2)
            #expect(object.thirdNumber == 3)
            #expect(object.firstArray.map(\.stringCol) == ["hello", "world"])
            #expect(object.secondArray.map(\.stringCol) == ["goodbye", "cruel", "world"])
            #expect(object.firstOptionalNumber == nil)
            #expect(object.secondOptionalNumber == 300)
            #expect(object.parentFirstList.map(\.intCol) == [42, 9001])
            #expect(object.parentFirstNumber == 100)
            #expect(object.parentSecondNumber == 200)
        }

        @Test func testPrivateOptionalNonobjcString() throws {
            let realm = try RealmParityObjects.realm()
            try realm.write {
                let object = ObjectWithPrivateOptionals()
                object.value = 5
                realm.add(object)
                #expect(realm.objects(ObjectWithPrivateOptionals.self).first?.value == 5)
            }
        }
    }
}

/// A test value as an NSNumber (Swift numbers and NSNumbers alike), for comparisons.
private struct AnyValue {
    let value: Any?
    init(_ value: Any?) { self.value = value }
    var number: NSNumber? {
        switch value {
        case let number as NSNumber: return number
        default: return nil
        }
    }
}
