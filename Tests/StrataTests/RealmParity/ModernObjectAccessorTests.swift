import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/ModernObjectAccessorTests.swift, test by test, in our own words.
// Realm's helpers also cover Decimal128, ObjectId, enum, AnyRealmValue, MutableSet, Map and
// custom-persistable properties, and go through the internal Swift accessors as well (here the
// subscript stands for them). Left out: testReadInvalidEnumValue (enums).
extension RealmParityObjects {
    @Suite struct ModernObjectAccessorTests {
        let data = Data("b".utf8)
        let date = Date(timeIntervalSinceReferenceDate: 2)
        let uuid = UUID()
        let text = RealmParityObjects.utf8TestString

        private func setAndTestAllPropertiesViaNormalAccess(_ object: ModernAllTypesObject) {
            func test<T: Equatable>(
                _ keyPath: ReferenceWritableKeyPath<ModernAllTypesObject, T>, _ values: T...,
                sourceLocation: SourceLocation = #_sourceLocation
            ) {
                for value in values {
                    object[keyPath: keyPath] = value
                    #expect(object[keyPath: keyPath] == value, sourceLocation: sourceLocation)
                }
            }
            test(\.boolCol, true, false)
            test(\.intCol, -1, 0, 1)
            test(\.int8Col, -1, 0, 1)
            test(\.int16Col, -1, 0, 1)
            test(\.int32Col, -1, 0, 1)
            test(\.int64Col, -1, 0, 1)
            test(\.floatCol, -Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude, 20, 20.2)
            test(\.doubleCol, -Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude, 20, 20.2, 16_777_217)
            test(\.stringCol, "", text)
            test(\.binaryCol, data)
            test(\.dateCol, date)
            test(\.uuidCol, uuid)
            test(\.optBoolCol, true, false, nil)
            test(\.optIntCol, Int.min, 0, Int.max, nil)
            test(\.optInt8Col, Int8.min, 0, Int8.max, nil)
            test(\.optInt16Col, Int16.min, 0, Int16.max, nil)
            test(\.optInt32Col, Int32.min, 0, Int32.max, nil)
            test(\.optInt64Col, Int64.min, 0, Int64.max, nil)
            test(\.optFloatCol, -Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude, 20, 20.2, nil)
            test(
                \.optDoubleCol, -Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude, 20, 20.2, 16_777_217,
                nil)
            test(\.optStringCol, "", text, nil)
            test(\.optBinaryCol, data, nil)
            test(\.optDateCol, date, nil)
            test(\.optUuidCol, uuid, nil)

            let linked = ModernAllTypesObject()
            linked.pk = 1000 + (object.realm == nil ? 0 : 1)
            object.objectCol = linked
            #expect(object.objectCol?.pk == linked.pk)
            object.objectCol = nil
            #expect(object.objectCol == nil)
        }

        private func setAndTestAllPropertiesViaSubscript(_ object: ModernAllTypesObject) {
            func testNoConversion<T: Equatable>(
                _ name: String, _ type: T.Type, _ values: T...,
                sourceLocation: SourceLocation = #_sourceLocation
            ) {
                for value in values {
                    object[name] = value
                    #expect(object[name] as? T == value, sourceLocation: sourceLocation)
                }
                for value in values {
                    object.setValue(value, forKey: name)
                    #expect(object.value(forKey: name) as? T == value, sourceLocation: sourceLocation)
                }
            }
            func testNil(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
                object[name] = nil
                #expect(object[name] == nil, sourceLocation: sourceLocation)
                object.setValue(NSNull(), forKey: name)
                #expect(object.value(forKey: name) == nil, sourceLocation: sourceLocation)
            }
            testNoConversion("boolCol", Bool.self, true, false)
            testNoConversion("intCol", Int.self, -1, 0, 1)
            testNoConversion("int8Col", Int8.self, -1, 0, 1)
            testNoConversion("int16Col", Int16.self, -1, 0, 1)
            testNoConversion("int32Col", Int32.self, -1, 0, 1)
            testNoConversion("int64Col", Int64.self, -1, 0, 1)
            testNoConversion(
                "floatCol", Float.self, -Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude, 20, 20.2)
            testNoConversion(
                "doubleCol", Double.self, -Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude,
                20, 20.2, 16_777_217)
            testNoConversion("stringCol", String.self, "", text)
            testNoConversion("binaryCol", Data.self, data)
            testNoConversion("dateCol", Date.self, date)
            testNoConversion("uuidCol", UUID.self, uuid)

            testNoConversion("optBoolCol", Bool.self, true, false)
            testNoConversion("optIntCol", Int.self, Int.min, 0, Int.max)
            testNoConversion("optInt8Col", Int8.self, Int8.min, 0, Int8.max)
            testNoConversion("optInt16Col", Int16.self, Int16.min, 0, Int16.max)
            testNoConversion("optInt32Col", Int32.self, Int32.min, 0, Int32.max)
            testNoConversion("optInt64Col", Int64.self, Int64.min, 0, Int64.max)
            testNoConversion(
                "optFloatCol", Float.self, -Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude, 20, 20.2)
            testNoConversion(
                "optDoubleCol", Double.self, -Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude,
                20, 20.2, 16_777_217)
            testNoConversion("optStringCol", String.self, "", text)
            testNoConversion("optBinaryCol", Data.self, data)
            testNoConversion("optDateCol", Date.self, date)
            testNoConversion("optUuidCol", UUID.self, uuid)
            for name in [
                "optBoolCol", "optIntCol", "optInt8Col", "optInt16Col", "optInt32Col", "optInt64Col", "optFloatCol",
                "optDoubleCol", "optStringCol", "optBinaryCol", "optDateCol", "optUuidCol", "objectCol",
            ] {
                testNil(name)
            }
            let linked = ModernAllTypesObject()
            linked.pk = 2000 + (object.realm == nil ? 0 : 1)
            object["objectCol"] = linked
            #expect((object["objectCol"] as? ModernAllTypesObject)?.pk == linked.pk)
        }

        private func setAndTestList(_ object: ModernAllTypesObject) {
            func test<T: RealmCollectionValue & Equatable>(
                _ name: String,
                _ keyPath: ReferenceWritableKeyPath<ModernAllTypesObject, List<T>>,
                _ values: T..., sourceLocation: SourceLocation = #_sourceLocation
            ) {
                #expect(object[name] is List<T>, sourceLocation: sourceLocation)
                // The same List on every read, by name or by property.
                #expect(object[name] as AnyObject === object[name] as AnyObject, sourceLocation: sourceLocation)
                let list = object[keyPath: keyPath]
                #expect(object[name] as? List<T> === list, sourceLocation: sourceLocation)

                // Assigning a List copies its elements into the property's List.
                let list2 = List<T>()
                list2.append(objectsIn: values)
                object[keyPath: keyPath] = list2
                #expect(Array(list) == values, sourceLocation: sourceLocation)
                #expect(list2 !== object[name] as AnyObject, sourceLocation: sourceLocation)

                // Assigning the List to itself keeps its elements.
                object[keyPath: keyPath] = object[keyPath: keyPath]
                #expect(Array(list) == values, sourceLocation: sourceLocation)
                object.setValue(object.value(forKey: name), forKey: name)
                #expect(Array(list) == values, sourceLocation: sourceLocation)

                // By name, as by the property.
                list.removeAll()
                object[name] = list2
                #expect(Array(list) == values, sourceLocation: sourceLocation)
                #expect(list2 !== object[name] as AnyObject, sourceLocation: sourceLocation)
                object[name] = object[name]
                #expect(Array(list) == values, sourceLocation: sourceLocation)

                // Any sequence of elements will do.
                list.removeAll()
                object[name] = values
                #expect(Array(list) == values, sourceLocation: sourceLocation)
                #expect(object[name] as? List<T> === list, sourceLocation: sourceLocation)

                // NSNull empties the List.
                object[name] = NSNull()
                #expect(list.count == 0, sourceLocation: sourceLocation)
            }
            test("arrayBool", \.arrayBool, false, true)
            test("arrayInt", \.arrayInt, Int.min, 0, Int.max)
            test("arrayInt8", \.arrayInt8, Int8.min, 0, Int8.max)
            test("arrayInt16", \.arrayInt16, Int16.min, 0, Int16.max)
            test("arrayInt32", \.arrayInt32, Int32.min, 0, Int32.max)
            test("arrayInt64", \.arrayInt64, Int64.min, 0, Int64.max)
            test("arrayFloat", \.arrayFloat, -Float.greatestFiniteMagnitude, 0, Float.greatestFiniteMagnitude)
            test("arrayDouble", \.arrayDouble, -Double.greatestFiniteMagnitude, 0, Double.greatestFiniteMagnitude)
            test("arrayString", \.arrayString, "a", "b", "c")
            test("arrayBinary", \.arrayBinary, data)
            test("arrayDate", \.arrayDate, date)
            test("arrayUuid", \.arrayUuid, uuid)
            test("arrayOptBool", \.arrayOptBool, false, true, nil)
            test("arrayOptInt", \.arrayOptInt, Int.min, 0, Int.max, nil)
            test("arrayOptInt8", \.arrayOptInt8, Int8.min, 0, Int8.max, nil)
            test("arrayOptInt16", \.arrayOptInt16, Int16.min, 0, Int16.max, nil)
            test("arrayOptInt32", \.arrayOptInt32, Int32.min, 0, Int32.max, nil)
            test("arrayOptInt64", \.arrayOptInt64, Int64.min, 0, Int64.max, nil)
            test(
                "arrayOptFloat", \.arrayOptFloat, -Float.greatestFiniteMagnitude, 0, Float.greatestFiniteMagnitude, nil)
            test(
                "arrayOptDouble", \.arrayOptDouble, -Double.greatestFiniteMagnitude, 0, Double.greatestFiniteMagnitude,
                nil)
            test("arrayOptString", \.arrayOptString, "a", "b", "c", nil)
            test("arrayOptBinary", \.arrayOptBinary, data, nil)
            test("arrayOptDate", \.arrayOptDate, date, nil)
            test("arrayOptUuid", \.arrayOptUuid, uuid, nil)
        }

        @Test func testUnmanagedAccessors() {
            setAndTestAllPropertiesViaNormalAccess(ModernAllTypesObject())
            setAndTestAllPropertiesViaSubscript(ModernAllTypesObject())
            setAndTestList(ModernAllTypesObject())
        }

        @Test func testManagedAccessorsReadFromRealm() throws {
            let realm = try RealmParityObjects.realm()
            realm.beginWrite()
            let object = realm.create(ModernAllTypesObject.self)
            setAndTestAllPropertiesViaNormalAccess(object)
            setAndTestAllPropertiesViaSubscript(object)
            setAndTestList(object)
            realm.cancelWrite()
        }

        @Test func testManagedAccessorsAddedToRealm() throws {
            let realm = try RealmParityObjects.realm()
            realm.beginWrite()
            let object = ModernAllTypesObject()
            realm.add(object)
            setAndTestAllPropertiesViaNormalAccess(object)
            setAndTestAllPropertiesViaSubscript(object)
            setAndTestList(object)
            realm.cancelWrite()
        }

        /// Realm's test reads and writes through the typed properties, whose misuse traps; the
        /// SPI entry points make the same checks and throw.
        @Test("Spec C5, C6") func testThreadChecking() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { () -> ModernAllTypesObject in
                let object = realm.create(ModernAllTypesObject.self)
                object.arrayInt.removeAll()
                object.arrayInt8.removeAll()
                return object
            }
            let box = Unchecked((object, object.arrayInt))
            let errors = try onOtherThread { () -> [Realm.Error?] in
                let (object, list) = box.value
                return [
                    rejection { _ = try object._value(forKey: "intCol") },
                    rejection { try list._removeAll() },
                    rejection { try object._setValue(5, forKey: "int8Col") },
                    rejection { try object._setValue(List<Int8>(), forKey: "arrayInt8") },
                ]
            }
            for error in errors { expectRejected(error, "incorrect thread") }
        }

        @Test("Spec V13") func testInvalidationChecking() throws {
            let realm = try RealmParityObjects.realm()
            let object = try realm.write { () -> ModernAllTypesObject in
                let object = realm.create(ModernAllTypesObject.self)
                object.arrayInt.removeAll()
                object.arrayInt8.removeAll()
                return object
            }
            let list = object.arrayInt
            realm.invalidate()
            expectRejected(rejection { _ = try object._value(forKey: "intCol") }, "invalidated")
            expectRejected(rejection { try list._removeAll() }, "invalidated")
            expectRejected(rejection { try object._setValue(5, forKey: "int8Col") }, "invalidated")
            expectRejected(rejection { try object._setValue(List<Int8>(), forKey: "arrayInt8") }, "invalidated")
        }

        @Test func testObjectWithArcMethodFamilies() {
            let object = ObjectWithArcMethodCategoryNames()
            object.allocValue = "a"
            object.initValue = "b"
            object.copyValue = "c"
            object.mutableCopyValue = "d"
            object.newValue = "e"
            #expect(object.allocValue == "a")
            #expect(object.initValue == "b")
            #expect(object.copyValue == "c")
            #expect(object.mutableCopyValue == "d")
            #expect(object.newValue == "e")
        }
    }
}
