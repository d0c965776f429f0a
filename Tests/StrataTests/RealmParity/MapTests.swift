import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/MapTests.swift, in our words. Realm's `MapTests` is abstract: each
// test runs once per subclass, which differ in how the map's owner is made (`PDMapVariant`).
//
// Not here (Strata lacks the subject): testValueForKey and testValueForKeyOptional (key-value
// coding on collections), testAppendEmbedded and testSetEmbedded (EmbeddedObject),
// testFilter, testKeyedSortable, testAllKeysQuery and testAllValuesQuery (queries over a map's
// values need Results of values), testObserveKeyPath* and testObserveOnActor* (key-path
// filtered and actor observers of maps), the Decimal128 and ObjectId maps.

enum PDMapVariant: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case standalone = "MapStandaloneTests"
    case newlyAdded = "MapNewlyAddedTests"
    case newlyCreated = "MapNewlyCreatedTests"
    case retrieved = "MapRetrievedTests"

    var testDescription: String { rawValue }
}

/// One Realm `MapTests` test after its `setUp`: two committed strings and a write open on the
/// test realm (cancelled afterwards, as `tearDown` does).
final class PDMapCase {
    let variant: PDMapVariant
    let realm: Realm
    let str1 = PLStringObject(stringCol: "1")
    let str2 = PLStringObject(stringCol: "2")

    init(_ variant: PDMapVariant, files: ParityMapFiles = ParityMapFiles()) throws {
        self.variant = variant
        realm = try files.realmWithTestPath()
        try realm.write {
            realm.add(str1)
            realm.add(str2)
        }
        realm.beginWrite()
    }

    static func run(_ variant: PDMapVariant, _ body: (PDMapCase) throws -> Void) throws {
        let testCase = try PDMapCase(variant)
        try body(testCase)
        if testCase.realm.isInWriteTransaction { testCase.realm.cancelWrite() }
    }

    /// `createMapObject()`: an owner made as the variant says (inside the open write).
    func createMapObject() throws -> PDMapPropertyObject {
        switch variant {
        case .standalone:
            return PDMapPropertyObject()
        case .newlyAdded:
            let object = PDMapPropertyObject()
            realm.add(object)
            return object
        case .newlyCreated:
            let object = realm.create(PDMapPropertyObject.self, value: ["name"])
            try realm.commitWrite()
            realm.beginWrite()
            return object
        case .retrieved:
            realm.create(PDMapPropertyObject.self, value: ["name"])
            try realm.commitWrite()
            realm.beginWrite()
            return try #require(realm.objects(PDMapPropertyObject.self).first)
        }
    }

    func createMap() throws -> Map<String, PLStringObject?> { try createMapObject().map }
}

extension RealmParityMaps {
    @Suite struct MapTests {
        private static let variants = PDMapVariant.allCases

        @Test(arguments: variants)
        func testPrimitive(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let object = PDMapObject()
                // Realm's test uses an unmanaged object; the managed variants add it, so the
                // aggregates also run over stored values.
                if variant != .standalone { c.realm.add(object) }
                object.int["key"] = 5
                #expect(object.int["key"] == 5)
                #expect(object.int["doesntExist"] == nil)
                object.int["keyB"] = 6
                object.int["keyC"] = 7
                object.int["keyD"] = 8
                #expect(object.int.max() == 8)
                #expect(object.int.min() == 5)
                #expect(object.int.sum() == 26)
                #expect(object.int.average() == 6.5)
                object.string["key"] = "str"
                #expect(object.string["key"] == "str")
            }
        }

        @Test(arguments: variants)
        func testPrimitiveIterationAcrossNil(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { _ in
                let object = PDMapObject()
                #expect(!object.int.contains(where: { $0 == "0" || $1 == 5 }))
                #expect(!object.string.contains(where: { $0 == "0" || $1 == "foobar" }))
                #expect(!object.data.contains(where: { $0 == "0" || $1 == Data() }))
                #expect(!object.uuid.contains(where: { $0 == "0" || $1 == UUID() }))
                #expect(!object.intOpt.contains { $1 == nil })
                #expect(!object.stringOpt.contains { $1 == nil })
                object.intOpt.updateValue(nil, forKey: "none")
                #expect(object.intOpt.contains { $1 == nil }, "a nil value stored by updateValue")
                #expect(object.intOpt.count == 1)
            }
        }

        @Test(arguments: variants)
        func testInvalidated(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let owner = PDMapOfIntObject()
                c.realm.add(owner)
                #expect(!owner.map.isInvalidated)
                c.realm.delete(owner)
                #expect(owner.map.isInvalidated)
            }
        }

        @Test(arguments: variants)
        func testFastEnumerationWithMutation(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                for index in 0...5 { map["key\(index)"] = c.str1 }
                var text = ""
                for entry in map {
                    text += entry.value?.stringCol ?? "?"
                    map[entry.key] = c.str2
                }
                #expect(text == "111111")
                #expect(map.values.allSatisfy { $0?.stringCol == "2" })
            }
        }

        @Test(arguments: variants)
        func testMapDescription(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                for index in 0...5 { map["key\(index)"] = PLStringObject(stringCol: String(index)) }
                #expect(map.description.hasPrefix("Map<string, PLStringObject>"))
                #expect(map.description.contains("[key3]: PLStringObject {\n\t\tstringCol = 3;\n\t}"))
            }
        }

        @Test(arguments: variants)
        func testAppendObject(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                map["key1"] = c.str1
                map["key2"] = c.str2
                #expect(map.count == 2)
                #expect(map["key1"]??.stringCol == "1")
                #expect(map["key2"]??.stringCol == "2")
            }
        }

        @Test(arguments: variants)
        func testInsert(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                #expect(map.count == 0)
                #expect(map[c.str1.stringCol] == nil)
                map[c.str1.stringCol] = c.str1
                #expect(map.count == 1)
                #expect(map[c.str2.stringCol] == nil)
                map[c.str2.stringCol] = c.str2
                #expect(map.count == 2)
            }
        }

        @Test(arguments: variants)
        func testRemove(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                map[c.str1.stringCol] = c.str1
                #expect(map.count == 1 && map[c.str1.stringCol] != nil)
                map.removeObject(for: c.str1.stringCol)
                #expect(map.count == 0 && map[c.str1.stringCol] == nil)
                map[c.str1.stringCol] = c.str1
                #expect(map.count == 1)
                map[c.str1.stringCol] = nil
                #expect(map.count == 0 && map[c.str1.stringCol] == nil)
            }
        }

        @Test(arguments: variants)
        func testRemoveAll(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                for index in 0..<5 { map[String(index)] = c.str1 }
                #expect(map.count == 5)
                map.removeAll()
                #expect(map.count == 0)
            }
        }

        @Test("Spec V25, W13: deleting an object makes its value nil and keeps the key", arguments: variants)
        func testDeleteObjectFromMap(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                guard let realm = map.realm else { return }
                map["key"] = c.str1
                map["other"] = c.str2
                #expect(map["key"]??.stringCol == c.str1.stringCol)
                realm.delete(c.str1)
                #expect(map["key"] != nil && map["key"]! == nil, "the key stays, its value nil")
                #expect(map.count == 2 && map["other"]??.stringCol == "2")
            }
        }

        @Test(arguments: variants)
        func testMerge(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                map["a"] = c.str1
                map.merge(["b": c.str2]) { old, _ in
                    Issue.record("combine called with no duplicates")
                    return old
                }
                #expect(map.count == 2)
                #expect(c.str1.isSameObject(as: map["a"]!!) && c.str2.isSameObject(as: map["b"]!!))
                map.merge(["b": c.str1]) { old, _ in old }
                #expect(c.str2.isSameObject(as: map["b"]!!))
                map.merge(["b": c.str1]) { _, new in new }
                #expect(c.str1.isSameObject(as: map["b"]!!))
                map.merge(["a": c.str1]) { _, _ in PLStringObject(stringCol: "c") }
                #expect(map.count == 2 && map["a"]??.stringCol == "c")
            }
        }

        @Test(arguments: variants)
        func testChangesArePersisted(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                map["key"] = c.str1
                map["key2"] = c.str2
                guard let realm = map.realm else { return }
                let read = try #require(realm.objects(PDMapPropertyObject.self).first).map
                #expect(read["key"]??.stringCol == "1" && read["key2"]??.stringCol == "2")
            }
        }

        @Test(arguments: variants)
        func testPopulateEmptyMap(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                #expect(map.count == 0)
                map["a"] = PLStringObject(stringCol: "a")
                map["b"] = c.realm.create(PLStringObject.self, value: ["b"])
                map[c.str1.stringCol] = c.str1
                #expect(map.count == 3)
                #expect(map["a"]??.stringCol == "a" && map["b"]??.stringCol == "b")
                var count = 0
                for entry in map {
                    #expect(!entry.key.isEmpty && entry.value?.description.isEmpty == false)
                    count += 1
                }
                #expect(count == 3)
            }
        }

        @Test("Spec V25: entries iterate in key order", arguments: variants)
        func testEnumeratingMap(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let map = try c.createMap()
                for index in (0..<10).reversed() { map["key\(index)"] = PLStringObject(stringCol: "key\(index)") }
                #expect(map.count == 10)
                #expect(map.map(\.key) == (0..<10).map { "key\($0)" })
                for (key, value) in map.asKeyValueSequence() { #expect(key == value?.stringCol) }
                #expect(map.keys == (0..<10).map { "key\($0)" })
            }
        }

        @Test(arguments: variants)
        func testUnmanagedMapComparison(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { _ in
                let objects = [
                    "obj": PLIntObject(intCol: 5), "obj2": PLIntObject(intCol: 6), "obj3": PLIntObject(intCol: 8),
                ]
                let map1 = Map<String, PLIntObject?>()
                let map2 = Map<String, PLIntObject?>()
                #expect(map1 == map2)
                map1.merge(objects.mapValues { Optional($0) }) { a, _ in a }
                map2.merge(objects.mapValues { Optional($0) }) { a, _ in a }
                let map3 = Map<String, PLIntObject?>()
                map3.merge(objects.filter { $0.key != "obj3" }.mapValues { Optional($0) }) { a, _ in a }
                #expect(map1 !== map2)
                #expect(map1 == map2 && map1 != map3)
                #expect(map1.isEqual(map2) && !map1.isEqual(map3))
                map3["obj3"] = objects["obj3"]
                #expect(map1 == map3)
            }
        }

        @Test("Spec V25, N15, N6 to N13: a map's change sets name keys", arguments: [PDMapVariant.newlyCreated])
        func testNotificationSentAfterCommit(_ variant: PDMapVariant) throws {
            let files = ParityMapFiles()
            let configuration = files.testConfiguration
            try onLoopThread {
                let realm = try Realm(configuration: configuration)
                var owner: PDMapPropertyObject?
                try realm.write { owner = realm.create(PDMapPropertyObject.self) }
                let map = try required(owner?.map, "the map")
                var updates: [(deletions: [String], insertions: [String], modifications: [String])] = []
                var initial = 0
                let token = map.observe { change in
                    switch change {
                    case .initial: initial += 1
                    case .update(_, let deletions, let insertions, let modifications):
                        updates.append((deletions, insertions, modifications))
                    case .error(let error): Issue.record("\(error)")
                    }
                }
                defer { token.invalidate() }
                #expect(spinRunLoop { initial == 1 })
                try realm.write {
                    map["myNewKey"] = PLStringObject(stringCol: "one")
                    map["anotherNewKey"] = PLStringObject(stringCol: "two")
                }
                #expect(spinRunLoop { updates.count == 1 })
                #expect(updates.last?.insertions == ["anotherNewKey", "myNewKey"])
                try realm.write { map["myNewKey"] = PLStringObject(stringCol: "three") }
                #expect(spinRunLoop { updates.count == 2 })
                #expect(updates.last?.modifications == ["myNewKey"] && updates.last?.insertions == [])
                try realm.write { map["myNewKey"] = nil }
                #expect(spinRunLoop { updates.count == 3 })
                #expect(updates.last?.deletions == ["myNewKey"])
                try realm.write { map["anotherNewKey"]??.stringCol = "changed" }
                #expect(spinRunLoop { updates.count == 4 })
                #expect(updates.last?.modifications == ["anotherNewKey"], "a change of a value's object")
            }
        }

        @Test("Spec V25: an unmanaged map cannot be observed")
        func testNotificationSentInitially() throws {
            expectRejected(
                rejection { _ = try PDMapPropertyObject().map._observe { _ in } },
                "Change notifications are only supported on managed collections.")
        }

        @Test("Spec V25, W9, V13: keys, a write, a live owner; create, freeze, thaw and references")
        func testManagedMapRules() throws {
            let files = ParityMapFiles()
            let realm = try files.realmWithTestPath()
            var owner: PDMapObject?
            try realm.write {
                owner = realm.create(
                    PDMapObject.self, value: ["int": ["b": 2, "a": 1], "object": ["x": ["x"], "y": NSNull()]])
            }
            let object = try #require(owner)
            #expect(object.int.keys == ["a", "b"] && object.int.values == [1, 2])
            #expect(object.object.count == 2 && object.object["y"]! == nil && object.object["x"]??.stringCol == "x")
            expectRejected(
                rejection { try object.int._updateValue(3, forKey: "c") },
                "Cannot modify Dictionary outside of a write transaction.")
            realm.beginWrite()
            expectRejected(
                rejection { try object.int._updateValue(3, forKey: "a.b") },
                "Dictionary::insert: key must not contain '.'")
            expectRejected(
                rejection { try object.int._updateValue(3, forKey: "$a") },
                "Dictionary::insert: key must not start with '$'")
            object.int["c"] = 3
            try realm.commitWrite()
            let frozen = object.int.freeze()
            try realm.write { object.int["d"] = 4 }
            #expect(frozen.isFrozen && frozen.keys == ["a", "b", "c"] && object.int.count == 4)
            // A frozen map is never in a write (Spec F12, V25), even while its realm is in one.
            try realm.write {
                expectRejected(
                    rejection { try frozen._removeObject(for: "a") },
                    "Cannot modify Dictionary outside of a write transaction.")
            }
            #expect(frozen.thaw()?.count == 4)
            let reference = ThreadSafeReference(to: object.int)
            let resolved = try onOtherThread { () throws -> [String] in
                try required(try files.realmWithTestPath().resolve(reference), "the map").keys
            }
            #expect(resolved == ["a", "b", "c", "d"])
            try realm.write { realm.delete(object) }
            #expect(frozen.count == 3, "a frozen map keeps its version")
            expectRejected(
                rejection { _ = try object.int._count() },
                "Dictionary is no longer valid. Either the parent object was deleted or the containing Realm has been invalidated or closed."
            )
            expectRejected(
                rejection { _ = try PDMapObject().int._freeze() },
                "This method may only be called on RLMDictionary instances retrieved from an RLMRealm")
        }

        @Test(
            "MapTests.testKeyedAggregatable: aggregates of a property of a map's objects, managed or not",
            arguments: variants)
        func testKeyedAggregatable(_ variant: PDMapVariant) throws {
            try PDMapCase.run(variant) { c in
                let owner = PDMapOfIntObject()
                if variant != .standalone { c.realm.add(owner) }
                let shared = PLIntObject(intCol: 4)
                owner.map["a"] = PLIntObject(intCol: 1)
                owner.map["b"] = shared
                owner.map["c"] = shared
                owner.map.updateValue(nil, forKey: "d")
                #expect(owner.map.min(ofProperty: "intCol") as Int? == 1)
                #expect(owner.map.max(ofProperty: "intCol") as Int? == 4)
                #expect(owner.map.sum(ofProperty: "intCol") as Int == 9, "an object under two keys counts twice")
                #expect(owner.map.average(ofProperty: "intCol") as Double? == 3, "nil values are skipped")
            }
        }

        @Test("Spec V25, W13: an object under two keys; replacing it and deleting it change only its keys")
        func testSameObjectUnderTwoKeys() throws {
            let files = ParityMapFiles()
            let configuration = files.testConfiguration
            try onLoopThread {
                let realm = try Realm(configuration: configuration)
                var owner: PDMapOfIntObject?
                var shared: PLIntObject?
                try realm.write {
                    owner = realm.create(PDMapOfIntObject.self)
                    shared = realm.create(PLIntObject.self, value: [7])
                    owner?.map["a"] = shared
                    owner?.map["b"] = shared
                }
                let map = try required(owner?.map, "the map")
                var updates: [(deletions: [String], insertions: [String], modifications: [String])] = []
                let token = map.observe { change in
                    if case .update(_, let deletions, let insertions, let modifications) = change {
                        updates.append((deletions, insertions, modifications))
                    }
                }
                defer { token.invalidate() }
                #expect(!spinRunLoop(seconds: 0.2) { !updates.isEmpty })
                try realm.write {
                    let moved = map["a"] ?? nil
                    map["a"] = nil
                    map["c"] = moved
                }
                #expect(spinRunLoop { updates.count == 1 })
                #expect(updates.last?.deletions == ["a"] && updates.last?.insertions == ["c"])
                try realm.write { realm.delete(try required(shared, "the object")) }
                #expect(spinRunLoop { updates.count == 2 })
                #expect(updates.last?.modifications == ["b", "c"], "both keys' values became nil")
                #expect(map.count == 2 && map["b"]! == nil)
            }
        }

        @Test("Spec V25, X19: a migration reads and writes a map as a dictionary")
        func testMigrationReadsAndWritesMaps() throws {
            let url = temporaryDirectory().appendingPathComponent("maps.realm")
            try onOtherThread {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [PDMapObject.self]))
                try realm.write { realm.create(PDMapObject.self, value: ["int": ["b": 2, "a": 1]]) }
            }
            var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [PDMapObject.self])
            configuration.migrationBlock = { migration, _ in
                migration.enumerateObjects(ofType: "PDMapObject") { old, new in
                    let entries = old?["int"] as? [String: Any?] ?? [:]
                    new?["int"] = entries.mapValues { ($0 as? Int ?? 0) * 10 }
                }
            }
            let realm = try Realm(configuration: configuration)
            let object = try #require(realm.objects(PDMapObject.self).first)
            #expect(object.int.keys == ["a", "b"] && object.int.values == [10, 20])
        }

        @Test("Spec V25, W13: a map of non-optional objects loses the key of a deleted object")
        func testRequiredObjectMapLosesDeletedKeys() throws {
            let realm = try ParityMapFiles().realmWithTestPath()
            try realm.write {
                let owner = realm.create(PDMapOfRequiredObject.self)
                let kept = realm.create(PLIntObject.self, value: [1])
                let gone = realm.create(PLIntObject.self, value: [2])
                owner.map["kept"] = kept
                owner.map["gone"] = gone
                realm.delete(gone)
                #expect(owner.map.keys == ["kept"] && owner.map["kept"]?.intCol == 1)
            }
        }

        @Test("Spec V25: key-value coding names an entry, a property of its object, and converts a value")
        func testKeyValueCoding() throws {
            let realm = try ParityMapFiles().realmWithTestPath()
            try realm.write {
                let owner = realm.create(PDMapPropertyObject.self)
                owner.map.setValue(PLStringObject(stringCol: "x"), forKey: "a")
                owner.map.setValue(["y"], forKey: "b")  // an object's value, as create takes it
                owner.map.updateValue(nil, forKey: "c")
                #expect((owner.map.value(forKey: "a") as? PLStringObject)?.stringCol == "x")
                #expect(owner.map.value(forKeyPath: "b.stringCol") as? String == "y")
                #expect(owner.map.value(forKey: "c") == nil && owner.map.keys == ["a", "b", "c"], "a null value")
                #expect(owner.map.value(forKeyPath: "absent.stringCol") == nil)
                owner.map.setValue(NSNull(), forKey: "a")
                #expect(owner.map.keys == ["a", "b", "c"] && owner.map["a"]! == nil, "NSNull is a null value")
                owner.map.setValue(nil, forKey: "a")
                #expect(owner.map.keys == ["b", "c"], "nil removes the key")
                let numbers = realm.create(PDMapObject.self)
                numbers.int.setValue(NSNumber(value: 7), forKey: "n")
                #expect(numbers.int["n"] == 7, "a number is converted as a property's value")
                expectRejected(rejection { try numbers.int._setValue(NSNull(), forKey: "n") }, "Invalid value")
                expectRejected(
                    rejection { try numbers.int._setValue("seven", forKey: "n") }, "Invalid value 'seven'")
            }
        }
    }
}
