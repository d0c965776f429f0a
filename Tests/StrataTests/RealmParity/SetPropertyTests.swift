import Foundation
import Strata
import Testing

// Realm's Realm/Tests/SetPropertyTests.m (the Objective-C tests of RLMSet), in our words, for
// the behaviours RealmSwift's MutableSet shares with it, and Spec V24's order, equality and
// refusals. Names are Realm's; what a test checks beyond Realm's is said in its description.

extension RealmParitySets {
    @Suite struct SetPropertyTests {
        /// Three managed owners whose string sets hold `values[i]`, committed.
        private func owners(_ values: [[String]]) throws -> (Realm, [PSMutableSetObject]) {
            let realm = try ParitySetFiles().realmWithTestPath()
            var owners: [PSMutableSetObject] = []
            try realm.write {
                for strings in values {
                    let owner = realm.create(PSMutableSetObject.self)
                    owner.string.insert(objectsIn: strings)
                    owners.append(owner)
                }
            }
            return (realm, owners)
        }

        @Test("Spec V24: a managed set reads in set order, whatever the insertion order; unmanaged keeps it")
        func testManagedSetOrder() throws {
            let (realm, owners) = try owners([["ten", "one", "nine", "two", "eight"]])
            #expect(Array(owners[0].string) == ["eight", "nine", "one", "ten", "two"])
            let unmanaged = PSMutableSetObject()
            unmanaged.string.insert(objectsIn: ["ten", "one", "ten"])
            #expect(Array(unmanaged.string) == ["ten", "one"])
            try realm.write {
                let owner = realm.create(PSMutableSetObject.self)
                owner.intOpt.insert(objectsIn: [3, nil, -1, 3, nil])
                #expect(Array(owner.intOpt) == [nil, -1, 3])
                owner.double.insert(objectsIn: [2, .nan, -0.5, .nan])
                #expect(owner.double.count == 3, "one NaN")
                #expect(owner.double[0].isNaN && Array(owner.double.dropFirst()) == [-0.5, 2])
                // Two canonically equivalent spellings are two elements (their bytes differ), in
                // realm-core's order of signed chars: 0xC3 (-61) before 'e' (0x65).
                owner.string.insert(objectsIn: ["e\u{301}", "\u{E9}", "e\u{301}", "z"])
                #expect(Array(owner.string.map { Array($0.unicodeScalars) }) == [["\u{E9}"], ["e", "\u{301}"], ["z"]])
            }
        }

        @Test("Spec V24: create and a set property's assignment keep each element once, in set order")
        func testCreateWithRepeatedElements() throws {
            let realm = try ParitySetFiles().realmWithTestPath()
            try realm.write {
                let created = realm.create(PSMutableSetObject.self, value: ["int": [3, 1, 3, 2, 1]])
                #expect(Array(created.int) == [1, 2, 3])
                let replacement = MutableSet<Int>()
                replacement.insert(objectsIn: [9, 7, 9])
                created.int = replacement
                #expect(Array(created.int) == [7, 9])
                let added = PSMutableSetObject()
                added.string.insert(objectsIn: ["b", "a"])
                realm.add(added)
                #expect(Array(added.string) == ["a", "b"], "the added object's own set, now managed")
            }
            let reopened = try #require(realm.objects(PSMutableSetObject.self).first)
            #expect(Array(reopened.int) == [7, 9])
        }

        @Test("Spec V24: a managed operand must be managed; set operations refused outside a write")
        func testManagedIsSubsetOfSet() throws {
            let (_, owners) = try owners([
                ["ten", "one", "nine", "two", "eight"], ["five", "six", "seven", "eight", "nine"],
                ["two", "one", "ten"],
            ])
            let unmanaged = PSMutableSetObject()
            expectRejected(
                rejection { _ = try owners[0].string._isSubset(of: unmanaged.string) },
                "Right hand side value must be a managed Set.")
            #expect(!owners[0].string.isSubset(of: owners[1].string))
            #expect(owners[2].string.isSubset(of: owners[0].string))
        }

        @Test("Spec V24, W9: intersecting needs a write; the operand must be managed")
        func testManagedIntersect() throws {
            let (realm, owners) = try owners([
                ["ten", "one", "nine", "two", "eight"], ["five", "six", "seven", "eight", "nine"], ["nine", "eight"],
            ])
            expectRejected(
                rejection { try owners[0].string._formIntersection(owners[1].string) },
                "Can only perform [RLMSet intersectSet:] in a Realm in a write transaction - call beginWriteTransaction on an RLMRealm instance first."
            )
            #expect(owners[0].string.intersects(owners[1].string))
            realm.beginWrite()
            expectRejected(
                rejection { try owners[0].string._formIntersection(PSMutableSetObject().string) },
                "Right hand side value must be a managed Set.")
            owners[0].string.formIntersection(owners[1].string)
            try realm.commitWrite()
            #expect(owners[0].string.intersects(owners[1].string))
            #expect(Array(owners[0].string) == ["eight", "nine"])
        }

        @Test("Spec V24, W9: union needs a write")
        func testManagedUnion() throws {
            let (realm, owners) = try owners([
                ["one", "two", "three", "four", "five"], ["one", "two", "three"],
                ["one", "two", "three", "four", "five"],
            ])
            expectRejected(
                rejection { try owners[0].string._formUnion(owners[1].string) }, "[RLMSet unionSet:]")
            try realm.write {
                owners[0].string.formUnion(owners[1].string)
                owners[1].string.formUnion(owners[2].string)
            }
            #expect(owners[0].string.count == 5)
            #expect(owners[1].string.count == 5)
        }

        @Test("Spec V24, W9: minus needs a write; the rest reads in set order")
        func testManagedMinus() throws {
            let (realm, owners) = try owners([
                ["one", "two", "three", "four", "five"], ["one", "two", "three"],
                ["one", "two", "three", "four", "five"],
            ])
            expectRejected(rejection { try owners[0].string._subtract(owners[1].string) }, "[RLMSet minusSet:]")
            try realm.write {
                owners[0].string.subtract(owners[1].string)
                owners[1].string.subtract(owners[2].string)
            }
            #expect(Array(owners[0].string) == ["five", "four"])
            #expect(owners[1].string.count == 0)
        }

        @Test("Spec V24, W9: every mutation outside a write is refused with the Set's message")
        func testMutatingMethodsCheckForWriteTransaction() throws {
            let (_, owners) = try owners([["a"]])
            let set = owners[0].string
            #expect(set.count == 1)
            for mutation in [
                { try set._insert("b") }, { try set._insert(objectsIn: ["b"]) }, { try set._remove("a") },
                { try set._removeAll() },
            ] as [() throws -> Void] {
                expectRejected(rejection(mutation), "Cannot modify Set outside of a write transaction.")
            }
            #expect(Array(set) == ["a"])
        }

        @Test("Spec V24, V13: a set whose owner is deleted is invalid, with the Set's message")
        func testDeleteObjectWithSetProperty() throws {
            let (realm, owners) = try owners([["a"]])
            let set = owners[0].string
            realm.beginWrite()
            #expect(!set.isInvalidated)
            realm.delete(owners[0])
            #expect(set.isInvalidated)
            expectRejected(
                rejection { try set._insert("b") },
                "Set is no longer valid. Either the parent object was deleted or the containing Realm has been invalidated or closed."
            )
            realm.cancelWrite()
        }

        @Test("Spec V24, W13: deleting an object removes it from every set that holds it")
        func testDeleteObjectInSetProperty() throws {
            let realm = try ParitySetFiles().realmWithTestPath()
            realm.beginWrite()
            let owner = realm.create(PSMutableSetPropertyObject.self, value: ["name": "o", "set": [["a"], ["b"]]])
            let other = realm.create(PSMutableSetPropertyObject.self, value: ["name": "p"])
            let first = try #require(owner.set.first)
            other.set.insert(first)
            realm.delete(first)
            #expect(!owner.set.isInvalidated)
            #expect(first.isInvalidated)
            #expect(owner.set.count == 1 && other.set.count == 0)
            realm.delete(owner.set)
            #expect(owner.set.count == 0, "delete(set) deletes its objects (W13)")
            #expect(realm.objects(PLStringObject.self).count == 0)
            try realm.commitWrite()
        }

        @Test("Spec V24: a set of objects orders them by key, queries, sorts and aggregates them")
        func testObjectAggregate() throws {
            let realm = try ParitySetFiles().realmWithTestPath()
            try realm.write {
                let owner = realm.create(PSMutableSetPropertyObject.self)
                let objects = (0..<5).map { realm.create(PLIntObject.self, value: [$0 * 10]) }
                owner.intSet.insert(objectsIn: objects.reversed())
                owner.intSet.insert(objects[2])
                #expect(owner.intSet.map(\.intCol) == [0, 10, 20, 30, 40], "by key, the order they were created in")
                #expect(owner.intSet.where { $0.intCol > 15 }.count == 3)
                #expect(owner.intSet.filter("intCol < %d", 15).count == 2)
                #expect(owner.intSet.sorted(byKeyPath: "intCol", ascending: false).first?.intCol == 40)
                #expect(owner.intSet.sum(ofProperty: "intCol") as Int == 100)
                #expect(owner.intSet.max(of: \.intCol) == 40)
                #expect(owner.intSet.index(of: objects[3]) == 3)
                #expect(owner.intSet.index(matching: "intCol == 20") == 2)
                #expect(!owner.intSet.contains(PLIntObject(intCol: 0)), "an unmanaged object is no element")
            }
        }

        @Test("Spec V24, N6 to N13: a set's change sets index its order; an insert of a held element notifies nothing")
        func testNotificationSentAfterCommit() throws {
            let configuration = ParitySetFiles().testConfiguration
            try onLoopThread {
                let realm = try Realm(configuration: configuration)
                var owner: PSMutableSetObject?
                try realm.write { owner = realm.create(PSMutableSetObject.self, value: ["int": [10, 30]]) }
                let set = try required(owner?.int, "the set")
                var changes: [(values: [Int], deletions: [Int], insertions: [Int])] = []
                let token = set.observe { change in
                    switch change {
                    case .initial(let set): changes.append((Array(set), [], []))
                    case .update(let set, let deletions, let insertions, _):
                        changes.append((Array(set), deletions, insertions))
                    case .error(let error): Issue.record("\(error)")
                    }
                }
                defer { token.invalidate() }
                #expect(spinRunLoop { changes.count == 1 })
                try realm.write { set.insert(20) }
                #expect(spinRunLoop { changes.count == 2 })
                #expect(changes.last?.values == [10, 20, 30])
                #expect(changes.last?.deletions == [] && changes.last?.insertions == [1])
                try realm.write { set.insert(20) }
                #expect(!spinRunLoop(seconds: 0.3) { changes.count > 2 }, "the insert of 20 again notified")
                try realm.write { set.remove(10) }
                #expect(spinRunLoop { changes.count == 3 })
                #expect(changes.last?.deletions == [0] && changes.last?.insertions == [])
            }
        }

        @Test("Spec V24, F1, F8, T1: a set freezes, thaws and crosses threads by reference")
        func testFrozenSetsDoNotUpdate() throws {
            let files = ParitySetFiles()
            let realm = try files.realmWithTestPath()
            var owner: PSMutableSetObject?
            try realm.write { owner = realm.create(PSMutableSetObject.self, value: ["string": ["b", "a"]]) }
            let set = try #require(owner?.string)
            let frozen = set.freeze()
            #expect(frozen.isFrozen && frozen.freeze() === frozen)
            try realm.write { set.insert("c") }
            #expect(Array(frozen) == ["a", "b"] && Array(set) == ["a", "b", "c"])
            #expect(frozen.thaw().map(Array.init) == ["a", "b", "c"])
            let reference = ThreadSafeReference(to: set)
            let resolved = try onOtherThread { () throws -> [String] in
                let other = try files.realmWithTestPath()
                return try required(other.resolve(reference), "the resolved set").map { $0 }
            }
            #expect(resolved == ["a", "b", "c"])
            expectRejected(
                rejection { _ = try PSMutableSetObject().string._freeze() },
                "This method may only be called on RLMSet instances retrieved from an RLMRealm")
        }

        @Test("Spec V24: a set describes itself as Realm's MutableSet, in set order")
        func testSetDescription() throws {
            let (_, owners) = try owners([["b", "a"]])
            let description = owners[0].string.description
            #expect(description.hasPrefix("MutableSet<string> <0x"))
            #expect(description.contains("[0] a,\n\t[1] b\n)"))
            #expect(owners[0].description.contains("string = MutableSet<string> <0x"))
        }

        @Test("Spec V24: a managed set's operand of another realm instance is refused with Realm's words")
        func testOperandOfAnotherRealm() throws {
            let files = ParitySetFiles()
            let realm = try files.realmWithTestPath()
            let other = try files.defaultRealm()
            var mine: PSMutableSetObject?
            var theirs: PSMutableSetObject?
            try realm.write { mine = realm.create(PSMutableSetObject.self) }
            try other.write { theirs = other.create(PSMutableSetObject.self) }
            let set = try #require(mine?.string)
            let foreign = try #require(theirs?.string)
            expectRejected(
                rejection { _ = try set._intersects(foreign) }, "Cannot insersect sets managed by different Realms.")
            realm.beginWrite()
            expectRejected(
                rejection { try set._formUnion(foreign) }, "Cannot insersect sets managed by different Realms.")
            realm.cancelWrite()
        }

        @Test("Spec V24: what needs a realm refuses an unmanaged set with RLMSet's words")
        func testUnmanagedSetMethods() throws {
            let set = PSMutableSetPropertyObject().intSet
            let words = "This method may only be called on RLMSet instances retrieved from an RLMRealm"
            expectRejected(rejection { _ = try set._freeze() }, words)
            expectRejected(rejection { _ = try set._thaw() }, words)
            #expect(set.realm == nil && !set.isFrozen && !set.isInvalidated)
            set.insert(PLIntObject(intCol: 3))
            #expect(set.count == 1 && set.sum(ofProperty: "intCol") as Int == 3, "aggregates need no realm")
        }

        @Test("Spec V24, W12: a deleted object is refused by contains and remove; another realm's is no element")
        func testDeleteObjectInUnmanagedSet() throws {
            let realm = try ParitySetFiles().realmWithTestPath()
            realm.beginWrite()
            let owner = realm.create(PSMutableSetPropertyObject.self)
            let kept = realm.create(PLIntObject.self, value: [1])
            let gone = realm.create(PLIntObject.self, value: [2])
            owner.intSet.insert(objectsIn: [kept, gone])
            realm.delete(gone)
            expectRejected(
                rejection { _ = try owner.intSet._contains(gone) }, "Object has been deleted or invalidated.")
            expectRejected(rejection { try owner.intSet._remove(gone) }, "Object has been deleted or invalidated.")
            owner.intSet.remove(PLIntObject(intCol: 1))
            #expect(owner.intSet.count == 1, "an unmanaged object is no element: nothing removed")
            try realm.commitWrite()
            expectRejected(
                rejection { try realm._delete(owner.intSet) }, "Cannot modify Set outside of a write transaction.")
        }

        @Test("Spec V24: setValue(_:forKey:) and assigning the property's own set keep it a set")
        func testSetValueForKey() throws {
            let realm = try ParitySetFiles().realmWithTestPath()
            try realm.write {
                let owner = realm.create(PSMutableSetObject.self)
                owner.setValue([5, 3, 5] as [Int], forKey: "int")
                #expect(Array(owner.int) == [3, 5])
                owner.setValue(Set([9, 8]), forKey: "int")
                #expect(Array(owner.int) == [8, 9], "a Swift Set is a value for a set")
                owner.int = owner.int
                #expect(Array(owner.int) == [8, 9])
            }
        }

        @Test("Spec V24, X19: a List property becoming a MutableSet needs a migration, which empties it")
        func testListToSetNeedsMigration() throws {
            let url = temporaryDirectory().appendingPathComponent("tags.realm")
            try onOtherThread {
                let listed = try Realm(
                    configuration: Realm.Configuration(fileURL: url, objectTypes: [PSListed.PSTagged.self]))
                try listed.write { listed.create(PSListed.PSTagged.self, value: ["tags": [2, 1, 2]]) }
            }
            var same = Realm.Configuration(fileURL: url, objectTypes: [PSTagged.self])
            expectRejected(
                rejection { _ = try Realm(configuration: same) },
                "- Property 'PSTagged.tags' has been changed from 'array<int>' to 'set<int>'.", code: .schemaMismatch)
            same.schemaVersion = 1
            let migrated = try Realm(configuration: same)
            do {
                let tagged = try #require(migrated.objects(PSTagged.self).first)
                #expect(tagged.tags.count == 0, "a changed type's values are dropped, as Realm drops them")
            }
        }
    }
}
