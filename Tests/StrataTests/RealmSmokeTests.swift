import Foundation
import Strata
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
            #expect(
                realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false).map(\.dogName) == ["Fido", "Rex"])
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

    // `add` reads the common scalar types in place and the rest through their wrappers, into
    // one row it reuses from object to object of a class; a linked object of another class
    // (added inside the add) makes its own. Every object reads back its own values.
    @Test func everyAddedObjectKeepsItsOwnValues() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write {
            for index in 0..<5 {
                let object = AllTypes()
                object.int = index
                object.bool = index % 2 == 0
                object.double = Double(index) + 0.5
                object.string = "s\(index)"
                object.int8 = Int8(index)
                object.optInt = index == 3 ? nil : index * 10
                if index % 2 == 1 {
                    let linked = StrObj()
                    linked.stringCol = "linked \(index)"
                    object.link = linked
                }
                realm.add(object)
            }
        }
        let read = realm.objects(AllTypes.self).sorted(byKeyPath: "int")
        #expect(read.map(\.int) == [0, 1, 2, 3, 4])
        #expect(read.map(\.bool) == [true, false, true, false, true])
        #expect(read.map(\.double) == [0.5, 1.5, 2.5, 3.5, 4.5])
        #expect(read.map(\.string) == ["s0", "s1", "s2", "s3", "s4"])
        #expect(read.map(\.int8) == [0, 1, 2, 3, 4])
        #expect(read.map(\.optInt) == [0, 10, 20, nil, 40])
        #expect(read.map { $0.link?.stringCol } == [nil, "linked 1", nil, "linked 3", nil])
    }
}

/// A class whose properties start from the type's default, from a constant and from an
/// expression evaluated per instance.
final class InitialValues: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var count = 7
    @Persisted var token = UUID().uuidString
    @Persisted var tags: List<InitialValues>
}

@Suite struct CreateInitialValuesTests {
    // Realm: create(value:) gives a missing property the class's initial value. Strata skips
    // making an instance when every missing one is its type's default, and must still run the
    // class's own expressions when one is missing.
    @Test func createFillsMissingPropertiesWithTheirInitialValues() throws {
        let directory = temporaryDirectory()
        let realm = try Realm(
            configuration: Realm.Configuration(
                fileURL: directory.appendingPathComponent("initial.realm"), objectTypes: [InitialValues.self]))
        try realm.write {
            realm.create(InitialValues.self, value: ["id": 1, "count": 3, "token": "given"])
            realm.create(InitialValues.self, value: ["id": 2])
            realm.create(InitialValues.self, value: ["id": 3])
        }
        let given = try #require(realm.object(ofType: InitialValues.self, forPrimaryKey: 1))
        #expect(given.name == "" && given.count == 3 && given.token == "given" && given.tags.isEmpty)
        let second = try #require(realm.object(ofType: InitialValues.self, forPrimaryKey: 2))
        let third = try #require(realm.object(ofType: InitialValues.self, forPrimaryKey: 3))
        #expect(second.name == "" && second.count == 7 && second.tags.isEmpty)
        #expect(!second.token.isEmpty && second.token != third.token, "each create evaluates the expression")
        // An update of an existing object keeps what it has where nothing is given.
        try realm.write { realm.create(InitialValues.self, value: ["id": 1, "name": "one"], update: .modified) }
        #expect(given.name == "one" && given.count == 3 && given.token == "given")
    }
}
