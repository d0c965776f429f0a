import Foundation
import Strata
import StrataTestSupport
import Testing

// Realm's Realm/Tests/LinkingObjectsTests.mm and the LinkingObjects tests of RealmSwift's
// SwiftLinkTests, ThreadSafeReferenceTests and RealmCollectionTypeTests
// (LinkingObjectsEquatabilityTests), in our words (Spec V26). The generic RealmCollectionTests
// run on LinkingObjects as the `LinkingObjectsCollectionTypeTests` variant of
// RealmCollectionTypeTests.swift.
//
// Not here: LinkingObjectsTests.testRenamedProperties (Strata has no property renaming),
// `sortedResultsUsingKeyPath`/`objectsWhere` of an unmanaged object's LinkingObjects (Realm
// answers with empty Results; Strata refuses, `Docs/limits.md`), typed queries through
// LinkingObjects and comparing objects with them (QueryTests.testLinkingObjects: `%@ IN
// linkingObjects`), collection operators other than `@count` over them.

/// The namespace of the suite: `swift test --filter RealmParityLinkingObjects`.
enum RealmParityLinkingObjects {}

/// Realm's `PersonObject`: a person whose children's `parents` name them.
final class PKPerson: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var children: List<PKPerson>
    @Persisted(originProperty: "children") var parents: LinkingObjects<PKPerson>
}

/// Realm's `SwiftDogObject` and `SwiftOwnerObject`.
final class PKDog: Object {
    @Persisted var dogName = ""
    @Persisted var age = 0
    @Persisted(originProperty: "dog") var owners: LinkingObjects<PKOwner>
}

final class PKOwner: Object {
    @Persisted var name = ""
    @Persisted var dog: PKDog?
}

/// Realm's `OnlyComputedProps` and `LinkToOnlyComputed`: a class with no stored property.
final class PKOnlyComputed: Object {
    @Persisted(originProperty: "link") var backlinks: LinkingObjects<PKLinkToOnlyComputed>
}

final class PKLinkToOnlyComputed: Object {
    @Persisted var value = 0
    @Persisted var link: PKOnlyComputed?
}

/// Backlinks through a set and a Map.
final class PKTag: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "tags") var taggedBySet: LinkingObjects<PKTagOwner>
    @Persisted(originProperty: "named") var taggedByMap: LinkingObjects<PKTagOwner>
}

final class PKTagOwner: Object {
    @Persisted var tags: MutableSet<PKTag>
    @Persisted var named: Map<String, PKTag?>
}

/// Origins realm-core's schema validation refuses.
final class PKMissingOrigin: Object {
    @Persisted var id = 0
    @Persisted(originProperty: "noSuchProperty") var owners: LinkingObjects<PKOwner>
}

final class PKNotALinkOrigin: Object {
    @Persisted var id = 0
    @Persisted(originProperty: "name") var owners: LinkingObjects<PKOwner>
}

final class PKOtherTypeOrigin: Object {
    @Persisted var id = 0
    @Persisted(originProperty: "dog") var owners: LinkingObjects<PKOwner>
}

private let linkingTypes: [Object.Type] = [
    PKPerson.self, PKDog.self, PKOwner.self, PKOnlyComputed.self, PKLinkToOnlyComputed.self, PKTag.self,
    PKTagOwner.self,
]

private func linkingRealm(_ directory: URL = temporaryDirectory()) throws -> Realm {
    try Realm(configuration: linkingConfiguration(directory))
}

private func linkingConfiguration(_ directory: URL) -> Realm.Configuration {
    Realm.Configuration(fileURL: directory.appendingPathComponent("test.realm"), objectTypes: linkingTypes)
}

/// The names of `objects`, in order.
private func names<C: Sequence>(_ objects: C) -> [String] where C.Element == PKPerson { objects.map(\.name) }

extension RealmParityLinkingObjects {
    @Suite struct LinkingObjectsTests {
        @Test("Spec V26: parents appear as their Lists gain the child and go when it is deleted")
        func testBasics() throws {
            let realm = try linkingRealm()
            realm.beginWrite()
            let hannah = realm.create(PKPerson.self, value: ["Hannah", 0])
            let mark = realm.create(PKPerson.self, value: ["Mark", 30, [hannah]])
            let hannahsParents = hannah.parents
            #expect(names(hannahsParents) == ["Mark"], "live inside the write")
            try realm.commitWrite()
            #expect(names(hannahsParents) == ["Mark"])
            #expect(hannahsParents.first?.isSameObject(as: mark) == true)

            try realm.write { _ = realm.create(PKPerson.self, value: ["Diane", 29, [hannah]]) }
            #expect(names(hannahsParents) == ["Mark", "Diane"], "the held LinkingObjects are live")

            try realm.write { realm.delete(hannah) }
            #expect(names(hannahsParents) == [], "the target's deletion empties them")
            #expect(hannahsParents.count == 0)
        }

        @Test("Spec V26: an unmanaged object's LinkingObjects are empty and cannot be observed")
        func testLinkingObjectsOnUnmanagedObject() throws {
            let don = PKPerson(value: ["Don", 60, []])
            #expect(don.parents.count == 0)
            #expect(don.parents.first == nil)
            #expect(don.parents.last == nil)
            for _ in don.parents { Issue.record("an element in empty LinkingObjects") }
            #expect(don.parents.min(ofProperty: "age") as Int? == nil)
            #expect(don.parents.max(ofProperty: "age") as Int? == nil)
            #expect(don.parents.sum(ofProperty: "age") as Int == 0)
            #expect(don.parents.average(ofProperty: "age") as Double? == nil)
            #expect(don.parents.realm == nil)
            #expect(!don.parents.isInvalidated)
            let mark = PKPerson(value: ["Mark", 30, []])
            #expect(don.parents.index(of: mark) == nil)
            #expect(don.parents.index(matching: "TRUEPREDICATE") == nil)
            expectRejected(
                rejection { _ = try don.parents._observe { _ in } },
                "Change notifications are only supported on managed collections.")
        }

        @Test("Spec V26, F2: a frozen object's LinkingObjects stay at its version")
        func testLinkingObjectsOnFrozenObject() throws {
            let realm = try linkingRealm()
            let (hannah, mark) = try realm.write { () -> (PKPerson, PKPerson) in
                let hannah = realm.create(PKPerson.self, value: ["Hannah", 0])
                return (hannah, realm.create(PKPerson.self, value: ["Mark", 30, [hannah]]))
            }
            let frozenHannah = hannah.freeze()
            let frozenMark = mark.freeze()
            #expect(frozenHannah.parents.isFrozen)
            #expect(frozenHannah.parents.map { $0.isSameObject(as: frozenMark) } == [true])

            let diane = try realm.write { realm.create(PKPerson.self, value: ["Diane", 29, [hannah]]) }
            let frozenHannah2 = hannah.freeze()
            #expect(names(frozenHannah.parents) == ["Mark"])
            #expect(names(frozenHannah2.parents) == ["Mark", "Diane"])
            #expect(frozenHannah2.parents.last?.isSameObject(as: diane.freeze()) == true)

            try realm.write { realm.delete(hannah) }
            #expect(names(frozenHannah.parents) == ["Mark"])
            #expect(names(frozenHannah2.parents) == ["Mark", "Diane"])
        }

        @Test("Spec V26, V1: queries of LinkingObjects are live: a parent that drops the child leaves them")
        func testFilteredLinkingObjects() throws {
            let realm = try linkingRealm()
            realm.beginWrite()
            let hannah = realm.create(PKPerson.self, value: ["Hannah", 0])
            let mark = realm.create(PKPerson.self, value: ["Mark", 30, [hannah]])
            _ = realm.create(PKPerson.self, value: ["Diane", 29, [hannah]])
            let resultsA = hannah.parents.filter("age > 25")
            let resultsB = hannah.parents.where { $0.age > 25 }
            let resultsC = hannah.parents.filter("age > 25")
            mark.children.removeAll()
            try realm.commitWrite()

            #expect(resultsA.count == 1)
            #expect(resultsB.index(matching: "name = 'Mark'") == nil)
            #expect(names(resultsC) == ["Diane"])
            #expect(names(hannah.parents.sorted(byKeyPath: "age")) == ["Diane"])
        }

        /// Observes `hannah.parents` on a loop thread: `change` runs after the initial callback,
        /// `settle` decides when the callbacks are in.
        private func observedParents(
            _ configuration: Realm.Configuration, withMark: Bool,
            change: @escaping @Sendable (Realm.Configuration) throws -> Void,
            expected: Int
        ) throws -> [String] {
            let box = ResultBox<[String]>()
            try onLoopThread {
                let realm = try Realm(configuration: configuration)
                let hannah = try realm.write { () -> PKPerson in
                    let hannah = realm.create(PKPerson.self, value: ["Hannah", 0])
                    if withMark { realm.create(PKPerson.self, value: ["Mark", 30, [hannah]]) }
                    return hannah
                }
                let log = PCChangeLog()
                let token = hannah.parents.observe { change in
                    log.record(change) { parents in " " + names(parents).joined(separator: ",") }
                }
                _ = settleRunLoop { log.entries.count == 1 }
                try onOtherThread { try change(configuration) }
                _ = settleRunLoop { log.entries.count >= expected }
                token.invalidate()
                box.set(.success(log.entries))
            }
            return try box.get()
        }

        @Test("Spec N8: the first callback is the initial one, with the parents")
        func testNotificationSentInitially() throws {
            let entries = try observedParents(
                linkingConfiguration(temporaryDirectory()), withMark: true, change: { _ in }, expected: 1)
            #expect(entries == ["initial 1 Mark"])
        }

        @Test("Spec V26, N16, N6: a parent created on another thread is an insertion")
        func testNotificationSentAfterCommit() throws {
            let entries = try observedParents(
                linkingConfiguration(temporaryDirectory()), withMark: false,
                change: { configuration in
                    let realm = try Realm(configuration: configuration)
                    try realm.write {
                        let hannah = try required(realm.objects(PKPerson.self).first, "Hannah")
                        realm.create(PKPerson.self, value: ["Mark", 30, [hannah]])
                    }
                }, expected: 2)
            #expect(entries == ["initial 0 ", "update 1 d[] i[0] m[] Mark"])
        }

        @Test("Spec N7: a commit that changes no backlink calls nothing")
        func testNotificationNotSentForUnrelatedChange() throws {
            // Two unrelated commits, then one that adds a parent: the callbacks come in commit
            // order, so a callback for the unrelated ones would come before the insertion.
            let entries = try observedParents(
                linkingConfiguration(temporaryDirectory()), withMark: false,
                change: { configuration in
                    let realm = try Realm(configuration: configuration)
                    try realm.write {}
                    try realm.write { realm.create(PKPerson.self, value: ["Unrelated", 1]) }
                    try realm.write {
                        let hannah = try required(realm.objects(PKPerson.self).first, "Hannah")
                        realm.create(PKPerson.self, value: ["Mark", 30, [hannah]])
                    }
                }, expected: 2)
            #expect(entries == ["initial 0 ", "update 1 d[] i[0] m[] Mark"])
        }

        @Test("Spec V26, N16, C10: changes yields the initial parents, then each update, frozen")
        func testChangesStream() async throws {
            let configuration = linkingConfiguration(temporaryDirectory())
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                try realm.write { _ = realm.create(PKPerson.self, value: ["Hannah", 0]) }
            }
            let owner = try ChangeStreamTests.QueueRealm(configuration)
            let stream = try owner.queue.sync {
                try required(try required(owner.realm, "realm").objects(PKPerson.self).first, "Hannah").parents.changes
            }
            var iterator = stream.makeAsyncIterator()
            guard case .initial(let initial) = await iterator.next() else {
                Issue.record("no initial change")
                return
            }
            #expect(initial.isFrozen && initial.isEmpty)
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                try realm.write {
                    let hannah = try required(realm.objects(PKPerson.self).first, "Hannah")
                    realm.create(PKPerson.self, value: ["Mark", 30, [hannah]])
                }
            }
            guard case .update(let parents, let deletions, let insertions, let modifications) = await iterator.next()
            else {
                Issue.record("no update")
                return
            }
            #expect(parents.isFrozen && names(parents) == ["Mark"])
            #expect(deletions.isEmpty && insertions == [0] && modifications.isEmpty)
            owner.close()
        }

        @Test("Spec V26, N16, N6: deleting the parent is a deletion")
        func testDeletingObjectWithNotificationsRegistered() throws {
            let entries = try observedParents(
                linkingConfiguration(temporaryDirectory()), withMark: true,
                change: { configuration in
                    let realm = try Realm(configuration: configuration)
                    try realm.write { realm.delete(realm.objects(PKPerson.self).where { $0.name == "Mark" }) }
                }, expected: 2)
            #expect(entries == ["initial 1 Mark", "update 0 d[0] i[] m[] "])
        }

        @Test("Spec V26: one element per link: a List holding the child twice names the parent twice")
        func testLinkCountedPerLink() throws {
            let realm = try linkingRealm()
            let hannah = try realm.write { () -> PKPerson in
                let hannah = realm.create(PKPerson.self, value: ["Hannah", 0])
                realm.create(PKPerson.self, value: ["Mark", 30, [hannah, hannah]])
                return hannah
            }
            #expect(names(hannah.parents) == ["Mark", "Mark"])
            #expect(hannah.parents.sum(ofProperty: "age") as Int == 60)
        }

        @Test("Spec V26: backlinks through a MutableSet and a Map of links")
        func testSetAndMapOrigins() throws {
            let realm = try linkingRealm()
            let (tag, owner) = try realm.write { () -> (PKTag, PKTagOwner) in
                let tag = realm.create(PKTag.self, value: ["red"])
                let owner = realm.create(PKTagOwner.self)
                owner.tags.insert(tag)
                owner.named["a"] = tag
                owner.named["b"] = tag
                return (tag, owner)
            }
            #expect(tag.taggedBySet.count == 1)
            #expect(tag.taggedByMap.count == 2, "two keys hold it")
            try realm.write {
                owner.tags.remove(tag)
                owner.named["a"] = .some(nil)
            }
            #expect(tag.taggedBySet.count == 0)
            #expect(tag.taggedByMap.count == 1)
            try realm.write { realm.delete(owner) }
            #expect(tag.taggedByMap.isEmpty)
        }

        @Test("Spec V26: the origin property must exist, be a link and link to the class (realm-core's words)")
        func testOriginValidation() throws {
            func opening(_ type: Object.Type) -> Realm.Error? {
                rejection {
                    _ = try Realm._open(
                        configuration: Realm.Configuration(
                            fileURL: temporaryDirectory().appendingPathComponent("bad.realm"),
                            objectTypes: [type, PKOwner.self, PKDog.self]), queue: nil)
                }
            }
            expectRejected(
                opening(PKMissingOrigin.self),
                "Schema validation failed due to the following errors:\n- Property 'PKOwner.noSuchProperty' "
                    + "declared as origin of linking objects property 'PKMissingOrigin.owners' does not exist")
            expectRejected(
                opening(PKNotALinkOrigin.self),
                "Property 'PKOwner.name' declared as origin of linking objects property 'PKNotALinkOrigin.owners' "
                    + "is not a link")
            expectRejected(
                opening(PKOtherTypeOrigin.self),
                "Property 'PKOwner.dog' declared as origin of linking objects property 'PKOtherTypeOrigin.owners' "
                    + "links to type 'PKDog'")
        }

        @Test("Spec V26: a LinkingObjects property cannot be set")
        func testLinkingObjectsAreReadOnly() throws {
            let realm = try linkingRealm()
            let dog = try realm.write { realm.create(PKDog.self, value: ["Rex", 1]) }
            #expect(dog.owners.propertyName == "dog")
            #expect(dog.owners.count == 0)
        }
    }

    @Suite struct QueriesThroughLinkingObjects {
        /// Hannah (0) and Ben (5), children of Mark (30) and Diane (29); Mark lists Ben twice.
        private func family() throws -> Realm {
            let realm = try linkingRealm()
            try realm.write {
                let hannah = realm.create(PKPerson.self, value: ["Hannah", 0])
                let ben = realm.create(PKPerson.self, value: ["Ben", 5])
                realm.create(PKPerson.self, value: ["Mark", 30, [hannah, ben, ben]])
                realm.create(PKPerson.self, value: ["Diane", 29, [hannah]])
            }
            return realm
        }

        private func names(_ realm: Realm, _ format: String, _ args: Any...) throws -> [String] {
            try realm.objects(PKPerson.self)._filter(format, arguments: args).map(\.name)
        }

        @Test("Spec V23, V26: ANY and NONE through a LinkingObjects property, also after a link")
        func testAnyThroughLinkingObjects() throws {
            let realm = try family()
            #expect(try names(realm, "ANY parents.name == 'Diane'") == ["Hannah"])
            #expect(try names(realm, "ANY parents.name == %@", "Mark") == ["Hannah", "Ben"])
            #expect(try names(realm, "ANY parents.age > 29") == ["Hannah", "Ben"])
            #expect(try names(realm, "NONE parents.age > 29") == ["Mark", "Diane"])
            #expect(try names(realm, "SOME parents.children.name == 'Ben'") == ["Hannah", "Ben"])
            #expect(try names(realm, "ANY children.parents.name == 'Diane'") == ["Mark", "Diane"])
            let dogs = try linkingRealm()
            try dogs.write {
                let rex = dogs.create(PKDog.self, value: ["Rex", 3])
                dogs.create(PKOwner.self, value: ["Tim", rex])
                dogs.create(PKDog.self, value: ["Fido", 1])
            }
            #expect(
                try dogs.objects(PKDog.self)._filter("ANY owners.name == 'Tim'", arguments: []).map(\.dogName) == [
                    "Rex"
                ])
            #expect(try dogs.objects(PKOwner.self)._filter("ANY dog.owners.name == 'Tim'", arguments: []).count == 1)
        }

        @Test("Spec V23, V26: @count of a LinkingObjects property counts its links")
        func testCountOfLinkingObjects() throws {
            let realm = try family()
            #expect(try names(realm, "parents.@count == 2") == ["Hannah", "Ben"], "Ben is listed twice by Mark")
            #expect(try names(realm, "parents.@count == 0") == ["Mark", "Diane"])
            #expect(try names(realm, "parents.@count > age") == ["Hannah"])
            expectRejected(
                rejection { _ = try names(realm, "children.@count > parents.@count") },
                "Key paths including aggregate operations cannot be compared with other aggregate operations.")
        }

        @Test("Spec V23, V26: @sum, @avg, @min and @max of a LinkingObjects property, once per link")
        func testOperatorsOfLinkingObjects() throws {
            let realm = try family()
            #expect(try names(realm, "parents.@max.age == 30") == ["Hannah", "Ben"])
            #expect(try names(realm, "parents.@min.age < 30") == ["Hannah"])
            #expect(try names(realm, "parents.@sum.age == 60") == ["Ben"], "Mark lists Ben twice")
            #expect(try names(realm, "parents.@sum.age == 0") == ["Mark", "Diane"], "a sum of nothing is 0")
            #expect(try names(realm, "parents.@avg.age > 29.5") == ["Ben"])
            #expect(try names(realm, "parents.@max.age == nil") == ["Mark", "Diane"], "a maximum of nothing is null")
            #expect(try names(realm, "parents.@max.age > age") == ["Hannah", "Ben"])
        }

        @Test("Spec V23, V26: the typed where through LinkingObjects: their objects' properties as ANY, count")
        func testTypedQueriesThroughLinkingObjects() throws {
            let realm = try family()
            let people = realm.objects(PKPerson.self)
            #expect(people.where { $0.parents.name == "Diane" }.map(\.name) == ["Hannah"])
            #expect(people.where { $0.parents.age > 29 }.map(\.name) == ["Hannah", "Ben"])
            #expect(people.where { !($0.parents.age > 29) }.map(\.name) == ["Mark", "Diane"])
            #expect(people.where { $0.parents.count == 2 }.map(\.name) == ["Hannah", "Ben"])
            #expect(people.where { $0.parents.count == 0 && $0.age > 29 }.map(\.name) == ["Mark"])
            // The same predicates as the format spellings.
            #expect(
                people.where { $0.parents.name.starts(with: "Ma") }.map(\.name)
                    == (try names(realm, "ANY parents.name BEGINSWITH 'Ma'")))
            let dogs = try linkingRealm()
            try dogs.write {
                let rex = dogs.create(PKDog.self, value: ["Rex", 3])
                dogs.create(PKOwner.self, value: ["Tim", rex])
                dogs.create(PKOwner.self, value: ["Ann", dogs.create(PKDog.self, value: ["Fido", 1])])
            }
            #expect(dogs.objects(PKDog.self).where { $0.owners.name == "Tim" }.map(\.dogName) == ["Rex"])
            #expect(dogs.objects(PKOwner.self).where { $0.dog.owners.name == "Tim" }.map(\.name) == ["Tim"])
        }

        @Test("Spec V23, V26: a LinkingObjects key path needs ANY or NONE; operators are checked")
        func testLinkingObjectsQueryRefusals() throws {
            let realm = try family()
            expectRejected(
                rejection { _ = try names(realm, "parents.name == 'Mark'") },
                "Key paths that include a collection property must use aggregate operations")
            expectRejected(
                rejection { _ = try names(realm, "ANY parents == nil") },
                "Key paths that include a collection property must use aggregate operations")
            expectRejected(
                rejection { _ = try names(realm, "parents.@max.name > 1") },
                "@max must be followed by a numeric property.")
            expectRejected(
                rejection { _ = try names(realm, "parents.@first.age > 1") },
                "Unsupported collection operation '@first'")
            expectRejected(
                rejection { _ = try names(realm, "parents.@max > 1") },
                "@max on a collection of objects cannot appear at the end of a keypath.")
        }

        @Test("Spec V26: value(forKey:) of a LinkingObjects property (ObjectTests.testValueForKeyLinkingObjects)")
        func testValueForKeyLinkingObjects() throws {
            let realm = try linkingRealm()
            let dog = PKDog()
            let owner = PKOwner(value: ["owner name", dog])
            let unmanaged = try #require(try dog._value(forKey: "owners") as? LinkingObjects<PKOwner>)
            #expect(unmanaged.count == 0)
            try realm.write { realm.add(owner) }
            let owners = try #require(try dog._value(forKey: "owners") as? LinkingObjects<PKOwner>)
            #expect(owners.first?.name == "owner name")
            #expect(owners.propertyName == "dog")
        }
    }

    @Suite struct SwiftLinkTests {
        @Test("Spec V26: backlinks appear once the owner is added and go when the link is cleared")
        func testLinkingObjects() throws {
            let realm = try linkingRealm()
            let owner = PKOwner()
            owner.name = "Tim"
            owner.dog = PKDog()
            owner.dog?.dogName = "Harvie"
            #expect(owner.dog?.owners.count == 0, "not available until the object is persisted")

            try realm.write { realm.add(owner) }
            let owners = try #require(owner.dog).owners
            #expect(owners.count == 1)
            #expect(owners.first?.name == owner.name)

            try realm.write { owner.dog = nil }
            #expect(owners.count == 0)
        }

        @Test("Spec V26: a class with LinkingObjects and no stored property")
        func testLinkingObjectsWithNoPersistedProps() throws {
            let realm = try linkingRealm()
            let target = PKOnlyComputed()
            let source1 = PKLinkToOnlyComputed()
            source1.value = 1
            source1.link = target
            #expect(target.backlinks.count == 0, "not available until the object is persisted")

            try realm.write { realm.add(source1) }
            #expect(target.backlinks.count == 1)
            #expect(target.backlinks.first?.value == source1.value)

            let source2 = PKLinkToOnlyComputed()
            source2.value = 2
            source2.link = target
            #expect(target.backlinks.count == 1, "an unpersisted source is not there")
            try realm.write { realm.add(source2) }
            #expect(target.backlinks.map(\.value) == [1, 2])
        }
    }

    @Suite struct ThreadSafeReferenceTests {
        @Test("Spec T5, V26: LinkingObjects handed over resolve live on the other thread")
        func testPassThreadSafeReferenceToLinkingObjects() throws {
            let directory = temporaryDirectory()
            let realm = try linkingRealm(directory)
            let dogA = PKDog(value: ["dogName": "Cookie", "age": 10])
            let unaccessedDogB = PKDog(value: ["dogName": "Skipper", "age": 7])
            try realm.write {
                realm.add(PKOwner(value: ["name": "Andrea", "dog": dogA]))
                realm.add(PKOwner(value: ["name": "Mike", "dog": unaccessedDogB]))
            }
            #expect(dogA.owners.count == 1)
            #expect(dogA.owners[0].name == "Andrea")
            let ownersARef = ThreadSafeReference(to: dogA.owners)
            let ownersBRef = ThreadSafeReference(to: unaccessedDogB.owners)
            let seen = try onOtherThread { () -> [String] in
                let realm = try linkingRealm(directory)
                let ownersA = try required(realm.resolve(ownersARef), "owners A")
                let ownersB = try required(realm.resolve(ownersBRef), "owners B")
                var seen = [ownersA[0].name, ownersB[0].name]
                try realm.write { (ownersA[0].dog, ownersB[0].dog) = (ownersB[0].dog, ownersA[0].dog) }
                seen += [ownersA[0].name, ownersB[0].name, "\(ownersA.count)\(ownersB.count)"]
                return seen
            }
            #expect(seen == ["Andrea", "Mike", "Mike", "Andrea", "11"])
            #expect(dogA.owners.count == 1)
            #expect(dogA.owners[0].name == "Andrea", "this thread's realm has not refreshed")
            realm.refresh()
            #expect(dogA.owners[0].name == "Mike")
        }

        /// Realm's `TestThreadSafeWrapperStruct` with its `owners`.
        private struct OwnersHolder {
            @ThreadSafe var owners: LinkingObjects<PKOwner>?
        }

        @Test("Spec T9, V26: @ThreadSafe LinkingObjects read on another thread")
        func testThreadSafeWrapperLinkingObjects() throws {
            let directory = temporaryDirectory()
            let realm = try linkingRealm(directory)
            let dog = try realm.write { () -> PKDog in
                let dog = realm.create(PKDog.self, value: ["dogName": "Cookie", "age": 10])
                realm.create(PKOwner.self, value: ["name": "Andrea", "dog": dog])
                return dog
            }
            let holder = Unchecked(OwnersHolder(owners: dog.owners))
            #expect(holder.value.owners?.count == 1)
            let seen = try onOtherThread { () -> [String] in
                let owners = try required(holder.value.owners, "the owners")
                let before = owners[0].name
                let ownerRealm = try required(owners.realm, "their realm")
                try ownerRealm.write { owners[0].name = "Mike" }
                return [before, owners[0].name]
            }
            #expect(seen == ["Andrea", "Mike"])
            realm.refresh()
            #expect(holder.value.owners?[0].name == "Mike")
        }
    }

    @Suite struct LinkingObjectsEquatabilityTests {
        @Test("Two reads of a LinkingObjects property are two collections; one equals itself")
        func testEquatability() throws {
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: temporaryDirectory().appendingPathComponent("equatable.realm"),
                    objectTypes: parityCollectionTypes))
            let (parentA, parentB) = try realm.write { () -> (PCLinkTarget, PCLinkTarget) in
                let parentA = realm.create(PCLinkTarget.self, value: [0])
                let parentB = realm.create(PCLinkTarget.self, value: [0])
                realm.create(PCNullableStringObjectWithLink.self).linkCol = parentA
                realm.create(PCNullableStringObjectWithLink.self).linkCol = parentB
                return (parentA, parentB)
            }
            #expect(parentA.stringObjects != parentA.stringObjects)
            #expect(parentA.stringObjects != parentB.stringObjects)
            let reference = parentA.stringObjects
            #expect(reference == reference)
        }
    }
}
