import Foundation
@_spi(StrataCheck) import Strata
import Testing

@Suite struct RealmSmokeTests {
    @Test func writeReadAndReopen() throws {
        let configuration = testConfiguration()
        do {
            let realm = try Realm(configuration: configuration)
            #expect(realm.isEmpty)
            try realm.write {
                let dog = Dog()
                dog.dogName = "Rex"
                dog.age = 3
                realm.add(dog)
                realm.create(Dog.self, value: ["dogName": "Fido", "age": 5])
            }
            #expect(realm.objects(Dog.self).count == 2)
            #expect(realm.objects(Dog.self).where { $0.age > 3 }.first?.dogName == "Fido")
            #expect(realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false).map(\.dogName) == ["Fido", "Rex"])
        }
        let reopened = try Realm(configuration: configuration)
        #expect(reopened.objects(Dog.self).map(\.dogName).sorted() == ["Fido", "Rex"])
    }

    @Test func allPropertyTypesRoundTrip() throws {
        let realm = try Realm(configuration: testConfiguration())
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = UUID()
        let object = AllTypes()
        object.int = -5
        object.int8 = 8
        object.int16 = 16
        object.int32 = 32
        object.int64 = 64
        object.bool = true
        object.double = 2.5
        object.float = 1.5
        object.string = "s"
        object.data = Data([1, 2, 3])
        object.date = date
        object.uuid = uuid
        object.optInt = 7
        object.optString = nil
        object.ints.append(objectsIn: [1, 2, 3])
        object.optStrings.append(objectsIn: ["a", nil])
        let linked = StrObj()
        linked.stringCol = "linked"
        object.link = linked
        object.objects.append(linked)
        try realm.write { realm.add(object) }
        let read = try #require(realm.objects(AllTypes.self).first)
        #expect(read.int == -5 && read.int8 == 8 && read.int16 == 16 && read.int32 == 32 && read.int64 == 64)
        #expect(read.bool && read.double == 2.5 && read.float == 1.5 && read.string == "s")
        #expect(read.data == Data([1, 2, 3]) && read.date == date && read.uuid == uuid)
        #expect(read.optInt == 7 && read.optString == nil && read.optBool == nil)
        #expect(Array(read.ints) == [1, 2, 3])
        #expect(Array(read.optStrings) == ["a", nil])
        #expect(read.link?.stringCol == "linked")
        #expect(read.objects.count == 1 && read.objects[0].stringCol == "linked")
        #expect(realm.objects(StrObj.self).count == 1)
    }
}
