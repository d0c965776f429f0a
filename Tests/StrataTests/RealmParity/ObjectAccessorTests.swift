import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/ObjectAccessorTests.swift, test by test, in our own words. Realm's
// accessor helpers also set Decimal128, ObjectId, enum, AnyRealmValue, RealmProperty,
// MutableSet and Map properties: those parts wait for those types. Left out:
// testLinkingObjectsDynamicGet (LinkingObjects), testRenamedProperties (property renaming,
// LinkingObjects, MutableSet), testSetEmbeddedLink (EmbeddedObject).
extension RealmParityObjects {
    @Suite struct ObjectAccessorTests {
        private func setAndTestAllPropertiesViaNormalAccess(_ object: SwiftObject, _ optObject: SwiftOptionalObject) {
            object.boolCol = true
            #expect(object.boolCol)
            object.boolCol = false
            #expect(!object.boolCol)
            for value in [-1, 0, 1] {
                object.intCol = value
                #expect(object.intCol == value)
                object.int8Col = Int8(value)
                #expect(object.int8Col == Int8(value))
                object.int16Col = Int16(value)
                #expect(object.int16Col == Int16(value))
                object.int32Col = Int32(value)
                #expect(object.int32Col == Int32(value))
                object.int64Col = Int64(value)
                #expect(object.int64Col == Int64(value))
            }
            object.floatCol = 20
            #expect(object.floatCol == 20)
            object.floatCol = 20.2
            #expect(object.floatCol == 20.2 as Float)
            object.floatCol = Float(16_777_217 as Double)
            #expect(Double(object.floatCol) == 16777216.0)
            object.doubleCol = 20
            #expect(object.doubleCol == 20)
            object.doubleCol = 20.2
            #expect(object.doubleCol == 20.2)
            object.doubleCol = 16_777_217
            #expect(object.doubleCol == 16_777_217)
            object.stringCol = ""
            #expect(object.stringCol == "")
            object.stringCol = RealmParityObjects.utf8TestString
            #expect(object.stringCol == RealmParityObjects.utf8TestString)
            let data = Data("b".utf8)
            object.binaryCol = data
            #expect(object.binaryCol == data)
            let date = Date(timeIntervalSinceReferenceDate: 2)
            object.dateCol = date
            #expect(object.dateCol == date)
            object.objectCol = SwiftBoolObject(value: [true])
            #expect(object.objectCol?.boolCol == true)

            optObject.optNSStringCol = ""
            #expect(optObject.optNSStringCol == "")
            optObject.optNSStringCol = RealmParityObjects.utf8TestString
            #expect(optObject.optNSStringCol == RealmParityObjects.utf8TestString)
            optObject.optNSStringCol = nil
            #expect(optObject.optNSStringCol == nil)
            optObject.optStringCol = ""
            #expect(optObject.optStringCol == "")
            optObject.optStringCol = RealmParityObjects.utf8TestString
            #expect(optObject.optStringCol == RealmParityObjects.utf8TestString)
            optObject.optStringCol = nil
            #expect(optObject.optStringCol == nil)
            optObject.optBinaryCol = data
            #expect(optObject.optBinaryCol == data)
            optObject.optBinaryCol = nil
            #expect(optObject.optBinaryCol == nil)
            optObject.optDateCol = date
            #expect(optObject.optDateCol == date)
            optObject.optDateCol = nil
            #expect(optObject.optDateCol == nil)
            for value in [Int.min, 0, Int.max] {
                optObject.optIntCol = value
                #expect(optObject.optIntCol == value)
            }
            optObject.optIntCol = nil
            #expect(optObject.optIntCol == nil)
            for value in [Int8.min, 0, Int8.max] {
                optObject.optInt8Col = value
                #expect(optObject.optInt8Col == value)
            }
            optObject.optInt8Col = nil
            #expect(optObject.optInt8Col == nil)
            for value in [Int16.min, 0, Int16.max] {
                optObject.optInt16Col = value
                #expect(optObject.optInt16Col == value)
            }
            optObject.optInt16Col = nil
            #expect(optObject.optInt16Col == nil)
            for value in [Int32.min, 0, Int32.max] {
                optObject.optInt32Col = value
                #expect(optObject.optInt32Col == value)
            }
            optObject.optInt32Col = nil
            #expect(optObject.optInt32Col == nil)
            for value in [Int64.min, 0, Int64.max] {
                optObject.optInt64Col = value
                #expect(optObject.optInt64Col == value)
            }
            optObject.optInt64Col = nil
            #expect(optObject.optInt64Col == nil)
            for value in [-Float.greatestFiniteMagnitude, 0, Float.greatestFiniteMagnitude] {
                optObject.optFloatCol = value
                #expect(optObject.optFloatCol == value)
            }
            optObject.optFloatCol = nil
            #expect(optObject.optFloatCol == nil)
            for value in [-Double.greatestFiniteMagnitude, 0, Double.greatestFiniteMagnitude] {
                optObject.optDoubleCol = value
                #expect(optObject.optDoubleCol == value)
            }
            optObject.optDoubleCol = nil
            #expect(optObject.optDoubleCol == nil)
            optObject.optBoolCol = true
            #expect(optObject.optBoolCol == true)
            optObject.optBoolCol = false
            #expect(optObject.optBoolCol == false)
            optObject.optBoolCol = nil
            #expect(optObject.optBoolCol == nil)
            optObject.optObjectCol = SwiftBoolObject(value: [true])
            #expect(optObject.optObjectCol?.boolCol == true)
            optObject.optObjectCol = nil
            #expect(optObject.optObjectCol == nil)
        }

        /// Realm reads numbers back as NSNumber: an Int8 property's value casts to Int too.
        private func setAndTestAllPropertiesViaSubscript(_ object: SwiftObject, _ optObject: SwiftOptionalObject) {
            object["boolCol"] = true
            #expect(object["boolCol"] as? Bool == true)
            object["boolCol"] = false
            #expect(object["boolCol"] as? Bool == false)
            for name in ["intCol", "int8Col", "int16Col", "int32Col", "int64Col"] {
                for value in [-1, 0, 1] {
                    object[name] = value
                    #expect(object[name] as? Int == value, "\(name)")
                }
            }
            object["floatCol"] = 20
            #expect(object["floatCol"] as? Float == 20)
            object["floatCol"] = 20.2
            #expect(object["floatCol"] as? Float == 20.2 as Float)
            object["floatCol"] = 16_777_217
            #expect(object["floatCol"] as? Float == 16_777_216)
            object["doubleCol"] = 20
            #expect(object["doubleCol"] as? Double == 20)
            object["doubleCol"] = 20.2
            #expect(object["doubleCol"] as? Double == 20.2)
            object["doubleCol"] = 16_777_217
            #expect(object["doubleCol"] as? Double == 16_777_217)
            object["stringCol"] = ""
            #expect(object["stringCol"] as? String == "")
            object["stringCol"] = RealmParityObjects.utf8TestString
            #expect(object["stringCol"] as? String == RealmParityObjects.utf8TestString)
            let data = Data("b".utf8)
            object["binaryCol"] = data
            #expect(object["binaryCol"] as? Data == data)
            let date = Date(timeIntervalSinceReferenceDate: 2)
            object["dateCol"] = date
            #expect(object["dateCol"] as? Date == date)
            object["objectCol"] = SwiftBoolObject(value: [true])
            #expect((object["objectCol"] as? SwiftBoolObject)?.boolCol == true)

            for name in ["optNSStringCol", "optStringCol"] {
                optObject[name] = ""
                #expect(optObject[name] as? String == "")
                optObject[name] = RealmParityObjects.utf8TestString
                #expect(optObject[name] as? String == RealmParityObjects.utf8TestString)
                optObject[name] = nil
                #expect(optObject[name] == nil)
            }
            optObject["optBinaryCol"] = data
            #expect(optObject["optBinaryCol"] as? Data == data)
            optObject["optBinaryCol"] = nil
            #expect(optObject["optBinaryCol"] == nil)
            optObject["optDateCol"] = date
            #expect(optObject["optDateCol"] as? Date == date)
            optObject["optDateCol"] = nil
            #expect(optObject["optDateCol"] == nil)
            optObject["optIntCol"] = Int.min
            #expect(optObject["optIntCol"] as? Int == Int.min)
            optObject["optIntCol"] = Int.max
            #expect(optObject["optIntCol"] as? Int == Int.max)
            optObject["optIntCol"] = nil
            #expect(optObject["optIntCol"] == nil)
            optObject["optInt8Col"] = Int8.min
            #expect(optObject["optInt8Col"] as? Int8 == Int8.min)
            optObject["optInt8Col"] = Int8.max
            #expect(optObject["optInt8Col"] as? Int == Int(Int8.max))
            optObject["optInt8Col"] = nil
            #expect(optObject["optInt8Col"] == nil)
            optObject["optInt16Col"] = Int16.min
            #expect(optObject["optInt16Col"] as? Int16 == Int16.min)
            optObject["optInt16Col"] = nil
            #expect(optObject["optInt16Col"] == nil)
            optObject["optInt32Col"] = Int32.max
            #expect(optObject["optInt32Col"] as? Int32 == Int32.max)
            optObject["optInt32Col"] = nil
            #expect(optObject["optInt32Col"] == nil)
            optObject["optInt64Col"] = Int64.min
            #expect(optObject["optInt64Col"] as? Int64 == Int64.min)
            optObject["optInt64Col"] = nil
            #expect(optObject["optInt64Col"] == nil)
            for value in [-Float.greatestFiniteMagnitude, 0, Float.greatestFiniteMagnitude] {
                optObject["optFloatCol"] = value
                #expect(optObject["optFloatCol"] as? Float == value)
            }
            optObject["optFloatCol"] = nil
            #expect(optObject["optFloatCol"] == nil)
            for value in [-Double.greatestFiniteMagnitude, 0, Double.greatestFiniteMagnitude] {
                optObject["optDoubleCol"] = value
                #expect(optObject["optDoubleCol"] as? Double == value)
            }
            optObject["optDoubleCol"] = nil
            #expect(optObject["optDoubleCol"] == nil)
            optObject["optBoolCol"] = true
            #expect(optObject["optBoolCol"] as? Bool == true)
            optObject["optBoolCol"] = false
            #expect(optObject["optBoolCol"] as? Bool == false)
            optObject["optBoolCol"] = nil
            #expect(optObject["optBoolCol"] == nil)
            optObject["optObjectCol"] = SwiftBoolObject(value: [true])
            #expect((optObject["optObjectCol"] as? SwiftBoolObject)?.boolCol == true)
            optObject["optObjectCol"] = nil
            #expect(optObject["optObjectCol"] == nil)
        }

        private func setAndTestListViaAccessor(_ object: SwiftListObject) {
            #expect(object["int"] is List<Int>)
            #expect(object["int8"] is List<Int8>)
            #expect(object["int16"] is List<Int16>)
            #expect(object["int32"] is List<Int32>)
            #expect(object["int64"] is List<Int64>)
            #expect(object["float"] is List<Float>)
            #expect(object["double"] is List<Double>)
            #expect(object["string"] is List<String>)
            #expect(object["data"] is List<Data>)
            #expect(object["date"] is List<Date>)
            #expect(object["uuid"] is List<UUID>)
            #expect(object["intOpt"] is List<Int?>)
            #expect(object["int8Opt"] is List<Int8?>)
            #expect(object["int16Opt"] is List<Int16?>)
            #expect(object["int32Opt"] is List<Int32?>)
            #expect(object["int64Opt"] is List<Int64?>)
            #expect(object["floatOpt"] is List<Float?>)
            #expect(object["doubleOpt"] is List<Double?>)
            #expect(object["stringOpt"] is List<String?>)
            #expect(object["dataOpt"] is List<Data?>)
            #expect(object["dateOpt"] is List<Date?>)
            #expect(object["uuidOpt"] is List<UUID?>)

            object["int"] = [1, 2, 3]
            #expect((object["int"] as? List<Int>).map(Array.init) == [1, 2, 3])
            object["int"] = [4, 5, 6]
            #expect((object["int"] as? List<Int>).map(Array.init) == [4, 5, 6])
            object["int8"] = object["int"]
            #expect((object["int8"] as? List<Int8>).map(Array.init) == [4, 5, 6])
            object["int"] = NSNull()
            #expect((object["int"] as? List<Int>)?.count == 0)
        }

        @Test func testUnmanagedAccessors() {
            setAndTestAllPropertiesViaNormalAccess(SwiftObject(), SwiftOptionalObject())
            setAndTestAllPropertiesViaSubscript(SwiftObject(), SwiftOptionalObject())
            setAndTestListViaAccessor(SwiftListObject())
        }

        @Test func testManagedAccessors() throws {
            let realm = try RealmParityObjects.realm()
            realm.beginWrite()
            let object = realm.create(SwiftObject.self)
            let optionalObject = realm.create(SwiftOptionalObject.self)
            setAndTestAllPropertiesViaNormalAccess(object, optionalObject)
            setAndTestAllPropertiesViaSubscript(object, optionalObject)
            setAndTestListViaAccessor(realm.create(SwiftListObject.self))
            realm.cancelWrite()
        }

        @Test func testIntSizes() throws {
            let realm = try RealmParityObjects.realm()
            let v8 = Int8(1) << 6
            let v16 = Int16(1) << 12
            let v32 = Int32(1) << 30
            let v64 = Int64(1) << 40
            try realm.write {
                let object = SwiftAllIntSizesObject()
                let names = ["int8", "int16", "int32", "int64"]
                let check = {
                    for name in names { object[name] = 0 }
                    object["int8"] = NSNumber(value: v8)
                    #expect(object["int8"] as? Int == Int(v8))
                    object["int16"] = NSNumber(value: v16)
                    #expect(object["int16"] as? Int == Int(v16))
                    object["int32"] = NSNumber(value: v32)
                    #expect(object["int32"] as? Int == Int(v32))
                    object["int64"] = NSNumber(value: v64)
                    #expect(object["int64"] as? NSNumber == NSNumber(value: v64))

                    for name in names { object[name] = 0 }
                    object.setValue(NSNumber(value: v8), forKey: "int8")
                    #expect(object.value(forKey: "int8") as? Int == Int(v8))
                    object.setValue(NSNumber(value: v16), forKey: "int16")
                    #expect(object.value(forKey: "int16") as? Int == Int(v16))
                    object.setValue(NSNumber(value: v32), forKey: "int32")
                    #expect(object.value(forKey: "int32") as? Int == Int(v32))
                    object.setValue(NSNumber(value: v64), forKey: "int64")
                    #expect(object.value(forKey: "int64") as? NSNumber == NSNumber(value: v64))

                    for name in names { object[name] = 0 }
                    object.int8 = v8
                    #expect(object.int8 == v8)
                    object.int16 = v16
                    #expect(object.int16 == v16)
                    object.int32 = v32
                    #expect(object.int32 == v32)
                    object.int64 = v64
                    #expect(object.int64 == v64)
                }
                check()
                realm.add(object)
                check()
            }
            let object = try #require(realm.objects(SwiftAllIntSizesObject.self).first)
            #expect(object.int8 == v8)
            #expect(object.int16 == v16)
            #expect(object.int32 == v32)
            #expect(object.int64 == v64)
        }

        @Test func testLongType() throws {
            let longNumber: Int64 = 17_179_869_184
            let intNumber: Int64 = 2_147_483_647
            let negativeLongNumber: Int64 = -17_179_869_184
            let updatedLongNumber: Int64 = 8_589_934_592
            let realm = try RealmParityObjects.realm()
            realm.beginWrite()
            realm.create(SwiftLongObject.self, value: [NSNumber(value: longNumber)])
            realm.create(SwiftLongObject.self, value: [NSNumber(value: intNumber)])
            realm.create(SwiftLongObject.self, value: [NSNumber(value: negativeLongNumber)])
            try realm.commitWrite()
            let objects = realm.objects(SwiftLongObject.self)
            #expect(objects.count == 3)
            #expect(objects[0].longCol == longNumber)
            #expect(objects[1].longCol == intNumber)
            #expect(objects[2].longCol == negativeLongNumber)
            realm.beginWrite()
            objects[0].longCol = updatedLongNumber
            try realm.commitWrite()
            #expect(objects[0].longCol == updatedLongNumber)
        }

        @Test("Spec V15") func testCollectionsDuringResultsFastEnumeration() throws {
            let realm = try RealmParityObjects.realm()
            let object1 = SwiftObject()
            let object2 = SwiftObject()
            let trueObject = SwiftBoolObject()
            trueObject.boolCol = true
            let falseObject = SwiftBoolObject()
            object1.arrayCol.append(trueObject)
            object1.arrayCol.append(falseObject)
            object2.arrayCol.append(trueObject)
            object2.arrayCol.append(falseObject)
            try realm.write {
                realm.add(object1)
                realm.add(object2)
            }
            let objects = realm.objects(SwiftObject.self)
            #expect(objects.first?.arrayCol.count == 2)
            #expect(objects.last?.arrayCol.count == 2)
            var iterator = objects.makeIterator()
            #expect(iterator.next()?.arrayCol.count == 2)
            for object in objects { #expect(object.arrayCol.count == 2) }
        }

        @Test("Spec W12") func testSettingOptionalPropertyOnDeletedObjectsThrows() throws {
            let realm = try RealmParityObjects.realm()
            try realm._beginWrite()
            let object = try realm._create(SwiftOptionalObject.self, value: [String: Any](), update: .error)
            let copy = try #require(realm.objects(SwiftOptionalObject.self).first)
            try realm._delete(object)
            for target in [copy, object] {
                expectRejected(rejection { try target._setValue(1, forKey: "optIntCol") }, "invalidated")
                expectRejected(rejection { try target._setValue(nil, forKey: "optIntCol") }, "invalidated")
            }
            try realm._cancelWrite()
        }

        /// Realm's test also keeps a RealmOptional, a RealmProperty and a MutableSet of an object
        /// that is gone; Strata has Lists.
        @Test func testPropertiesOutlivingParentObject() throws {
            let realm = try RealmParityObjects.realm()
            let list = try realm.write { () -> List<Int> in
                realm.create(SwiftListObject.self, value: ["int": [1]]).int
            }
            #expect(list.count == 1)
            #expect(list[0] == 1)
            try realm.write { list.append(2) }
            #expect(Array(list) == [1, 2])
            #expect(Array(try #require(realm.objects(SwiftListObject.self).first).int) == [1, 2])
            try realm.write { list.removeAll() }
            #expect(list.count == 0)
            #expect(Array(try #require(realm.objects(SwiftListObject.self).first).int) == [])
        }
    }
}
