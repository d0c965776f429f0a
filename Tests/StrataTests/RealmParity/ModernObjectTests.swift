import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/ModernObjectTests.swift, test by test, in our own words. Left out:
// testObjectSchema, testObjectSchemaForObjectWithConvenienceInitializer (schema introspection);
// testAddingPreviouslyObservedObjectReusesExistingCollectionObjects (key-value observing).
extension RealmParityObjects {
    @Suite struct ModernObjectTests {
        /// Realm's test also covers ObjectId and enum primary keys.
        @Test("Spec W9") func testCannotUpdatePrimaryKey() throws {
            let reason = "Primary key can't be changed after an object is inserted"
            let realm = try RealmParityObjects.realm()
            try realm._beginWrite()
            func test<O: Object, K>(
                _ object: O, _ first: K, _ second: K, _ read: (O) -> K?, _ equal: (K?, K) -> Bool,
                sourceLocation: SourceLocation = #_sourceLocation
            ) throws {
                object["pk"] = first
                #expect(equal(read(object), first), sourceLocation: sourceLocation)
                object.setValue(second, forKey: "pk")
                #expect(equal(read(object), second), sourceLocation: sourceLocation)
                try realm._add(object)
                expectRejected(
                    rejection { try object._setValue(first, forKey: "pk") }, reason,
                    sourceLocation: sourceLocation)
                #expect(equal(read(object), second), sourceLocation: sourceLocation)
            }
            func same<T: Equatable>(_ value: T?, _ expected: T) -> Bool { value == expected }
            func sameOptional<T: Equatable>(_ value: T??, _ expected: T?) -> Bool { value.flatMap { $0 } == expected }
            try test(ModernPrimaryIntObject(), 1, 2, { $0.pk }, same)
            try test(ModernPrimaryInt8Object(), Int8(1), Int8(2), { $0.pk }, same)
            try test(ModernPrimaryInt16Object(), Int16(1), Int16(2), { $0.pk }, same)
            try test(ModernPrimaryInt32Object(), Int32(1), Int32(2), { $0.pk }, same)
            try test(ModernPrimaryInt64Object(), Int64(1), Int64(2), { $0.pk }, same)
            try test(ModernPrimaryOptionalIntObject(), Int?(1), Int?.none, { $0.pk }, sameOptional)
            try test(ModernPrimaryOptionalInt8Object(), Int8?(1), Int8?.none, { $0.pk }, sameOptional)
            try test(ModernPrimaryOptionalInt16Object(), Int16?(1), Int16?.none, { $0.pk }, sameOptional)
            try test(ModernPrimaryOptionalInt32Object(), Int32?(1), Int32?.none, { $0.pk }, sameOptional)
            try test(ModernPrimaryOptionalInt64Object(), Int64?(1), Int64?.none, { $0.pk }, sameOptional)
            try test(ModernPrimaryStringObject(), "a", "b", { $0.pk }, same)
            try test(ModernPrimaryOptionalStringObject(), String?("a"), String?.none, { $0.pk }, sameOptional)
            try test(ModernPrimaryUUIDObject(), UUID(), UUID(), { $0.pk }, same)
            try test(ModernPrimaryOptionalUUIDObject(), UUID?(UUID()), UUID?.none, { $0.pk }, sameOptional)
            // Each kind of key finds its object.
            #expect(realm.object(ofType: ModernPrimaryInt8Object.self, forPrimaryKey: Int8(2)) != nil)
            #expect(realm.object(ofType: ModernPrimaryOptionalInt32Object.self, forPrimaryKey: Int32?.none) != nil)
            #expect(realm.object(ofType: ModernPrimaryOptionalUUIDObject.self, forPrimaryKey: UUID?.none) != nil)
            try realm._cancelWrite()
        }

        @Test func testDynamicDefaultPropertyValues() throws {
            func expectDifferent(_ first: ModernDynamicDefaultObject, _ second: ModernDynamicDefaultObject) {
                #expect(first.intCol != second.intCol)
                #expect(first.floatCol != second.floatCol)
                #expect(first.doubleCol != second.doubleCol)
                #expect(first.dateCol != second.dateCol)
                #expect(first.stringCol != second.stringCol)
                #expect(first.binaryCol != second.binaryCol)
            }
            expectDifferent(ModernDynamicDefaultObject(), ModernDynamicDefaultObject())
            let realm = try RealmParityObjects.realm()
            try realm.write {
                expectDifferent(
                    realm.create(ModernDynamicDefaultObject.self), realm.create(ModernDynamicDefaultObject.self))
            }
        }

        @Test func testWillSetDidSet() throws {
            let object = SetterObservers()
            var calls = 0
            object.willSetCallback = {
                #expect(object.value == 0)
                calls += 1
            }
            object.didSetCallback = {
                #expect(object.value == 1)
                calls += 1
            }
            object.value = 1
            #expect(calls == 2)

            let realm = try RealmParityObjects.realm()
            realm.beginWrite()
            realm.add(object)
            object.willSetCallback = {
                #expect(object.value == 1)
                calls += 1
            }
            object.didSetCallback = {
                #expect(object.value == 2)
                calls += 1
            }
            object.value = 2
            #expect(calls == 4)
            realm.cancelWrite()
            object.willSetCallback = nil
            object.didSetCallback = nil
        }

        /// Realm's test also covers a MutableSet and a Map property.
        @Test("Spec T1") func testAddingObjectReusesExistingCollectionObjects() throws {
            let object = ModernAllTypesObject()
            let list = object.arrayCol
            #expect(list.realm == nil)
            #expect(list === object.arrayCol)
            let realm = try RealmParityObjects.realm()
            try realm.write { realm.add(object) }
            #expect(list.realm != nil)
            #expect(list === object.arrayCol)
        }
    }
}
