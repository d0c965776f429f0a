import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/SwiftLinkTests.swift, in our words: to-one links between objects.
//
// Not here (Strata lacks the subject): testLinkingObjects and
// testLinkingObjectsWithNoPersistedProps (LinkingObjects / backlinks).

extension RealmParityLists {
    @Suite struct SwiftLinkTests {
        /// An unmanaged owner "Tim" of a new dog "Harvie".
        private func timAndHarvie() -> PLOwnerObject {
            let owner = PLOwnerObject()
            owner.name = "Tim"
            owner.dog = PLDogObject()
            owner.dog?.dogName = "Harvie"
            return owner
        }

        @Test func testBasicLink() throws {
            let realm = try ParityListFiles().realmWithTestPath()
            let owner = timAndHarvie()

            try realm.write { realm.add(owner) }

            let owners = realm.objects(PLOwnerObject.self)
            let dogs = realm.objects(PLDogObject.self)
            #expect(owners.count == 1, "one owner")
            #expect(dogs.count == 1, "one dog: adding the owner added its dog")
            #expect(owners[0].name == "Tim")
            #expect(dogs[0].dogName == "Harvie")

            #expect(owners[0].dog?.dogName == "Harvie", "Tim's dog is Harvie")
        }

        @Test func testMultipleOwnerLink() throws {
            let realm = try ParityListFiles().realmWithTestPath()
            let owner = timAndHarvie()

            try realm.write { realm.add(owner) }

            #expect(realm.objects(PLOwnerObject.self).count == 1)
            #expect(realm.objects(PLDogObject.self).count == 1)

            realm.beginWrite()
            let fiel = realm.create(PLOwnerObject.self, value: ["Fiel", NSNull()])
            #expect(fiel.dog == nil, "an explicit null overrides the default dog")
            fiel.dog = owner.dog
            try realm.commitWrite()

            #expect(realm.objects(PLOwnerObject.self).count == 2, "two owners")
            #expect(realm.objects(PLDogObject.self).count == 1, "still one dog: both owners link to it")
            #expect(plSameObject(fiel.dog, owner.dog))
        }

        @Test func testLinkRemoval() throws {
            let realm = try ParityListFiles().realmWithTestPath()
            let owner = timAndHarvie()

            try realm.write { realm.add(owner) }

            #expect(realm.objects(PLOwnerObject.self).count == 1)
            #expect(realm.objects(PLDogObject.self).count == 1)

            let dog = try #require(owner.dog)
            try realm.write { realm.delete(dog) }

            #expect(owner.dog == nil, "deleting the dog nullifies the link")

            // The owner read again.
            let owner2 = try #require(realm.objects(PLOwnerObject.self).first, "one owner")
            #expect(owner2.dog == nil, "deleting the dog nullifies the link")
            #expect(realm.objects(PLDogObject.self).count == 0, "no dogs")
        }
    }
}
