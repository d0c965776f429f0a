import Foundation
import Strata
import StrataTestSupport
import Testing

// RealmSwift's SectionedResultsTests, in our words (Spec V27): sections of Results, Lists and
// sets of objects and of values, their keys, subscripts, iteration, freeze and thaw, and the
// change sets of observers of the whole and of one section, on the realm's context and on a
// queue. Beyond Realm's: sections of LinkingObjects and AnyRealmCollection, the key a
// section follows, and the misuse Realm refuses.
//
// Not here: the projection variants (Strata has no projections), AnyRealmValue and
// Decimal128 keys and elements (not yet in Strata), sectioning Results of values (Strata's
// Results hold objects; Lists and sets of values section directly).

/// The namespace of the suite: `swift test --filter RealmParitySectionedResults`.
enum RealmParitySectionedResults {}

/// Realm's `ModernAllTypesObject`, the properties the sectioned tests read.
final class SRObject: Object {
    @Persisted var stringCol = ""
    @Persisted var intCol = 0
    @Persisted var boolCol = false
    @Persisted var arrayString: List<String>
    @Persisted var setString: MutableSet<String>
    @Persisted var arrayInt: List<Int>
    @Persisted var setInt: MutableSet<Int>
    @Persisted var arrayOptInt: List<Int?>
    @Persisted var setOptInt: MutableSet<Int?>
    @Persisted var arrayDouble: List<Double>
    @Persisted var setDouble: MutableSet<Double>
    @Persisted var arrayBool: List<Bool>
    @Persisted var setBool: MutableSet<Bool>
    @Persisted var arrayOptString: List<String?>
    @Persisted var setOptString: MutableSet<String?>
    @Persisted var arrayDate: List<Date>
    @Persisted var setDate: MutableSet<Date>
    @Persisted var arrayData: List<Data>
    @Persisted var setData: MutableSet<Data>
    @Persisted var children: List<SRObject>
    @Persisted var childSet: MutableSet<SRObject>
    @Persisted var parent: SRObject?
    @Persisted(originProperty: "parent") var offspring: LinkingObjects<SRObject>

    /// Realm's `firstLetter`: a computed property reading `stringCol`.
    var firstLetter: String? { stringCol.first.map { String($0) } }
}

private func sectionedRealm(_ directory: URL = temporaryDirectory()) throws -> Realm {
    try Realm(configuration: sectionedConfiguration(directory))
}

private func sectionedConfiguration(_ directory: URL) -> Realm.Configuration {
    Realm.Configuration(fileURL: directory.appendingPathComponent("test.realm"), objectTypes: [SRObject.self])
}

/// Realm's `createObjects`: banana (with its List and set of four words), box, apple, chalk.
@discardableResult
private func createObjects(_ realm: Realm) throws -> Realm {
    try realm.write {
        realm.deleteAll()
        let banana = realm.create(SRObject.self, value: ["stringCol": "banana"])
        banana.arrayString.append(objectsIn: ["banana", "box", "apple", "chalk"])
        banana.setString.insert(objectsIn: ["banana", "box", "apple", "chalk"])
        for word in ["box", "apple", "chalk"] { realm.create(SRObject.self, value: ["stringCol": word]) }
    }
    return realm
}

/// The section keys, then each section's elements, of `sectioned`.
private func layout<K, E>(_ sectioned: SectionedResults<K, E>, _ show: (E) -> String) -> String {
    sectioned.map { section in "\(section.key):" + section.map(show).joined(separator: ",") }.joined(separator: " ")
}

private func words<K>(_ sectioned: SectionedResults<K, SRObject>) -> String { layout(sectioned) { $0.stringCol } }

private func words(_ sectioned: SectionedResults<String?, SRObject>) -> String {
    sectioned.map { section in "\(section.key ?? "nil"):" + section.map(\.stringCol).joined(separator: ",") }
        .joined(separator: " ")
}

/// A sectioned change, written for comparison.
private func describe<C, N>(_ change: SectionedResultsChange<C>, count: (C) -> N) -> String {
    switch change {
    case .initial(let collection): return "initial \(count(collection))"
    case .update(let collection, let deletions, let insertions, let modifications, let inserted, let deleted):
        func paths(_ paths: [IndexPath]) -> String { paths.map { "\($0.section).\($0.item)" }.joined(separator: ",") }
        return "update \(count(collection)) d[\(paths(deletions))] i[\(paths(insertions))] m[\(paths(modifications))]"
            + " +s\(Array(inserted)) -s\(Array(deleted))"
    }
}

/// A section's count for a log: "gone" once no element has its key (reading it would trap).
private func sectionCount<K, E>(_ section: ResultsSection<K, E>) -> String {
    section.isInvalidated ? "gone" : "\(section.count)"
}

private func onLoop<R>(_ body: @escaping @Sendable () throws -> R) throws -> R {
    let box = ResultBox<R>()
    try onLoopThread { box.set(.success(try body())) }
    return try box.get()
}

/// The actor sectioned results are observed on.
private actor SRActor {
    static let shared = SRActor()
}

/// Waits (giving up the thread between checks) until `condition` holds, for at most
/// `hangGuardSeconds` of 10 ms sleeps.
private func waitUntil(_ condition: @Sendable () -> Bool) async -> Bool {
    for _ in 0..<Int(hangGuardSeconds * 100) {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

/// A log of changes, appended to by callbacks on one queue and read after a semaphore.
private final class SRLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ entry: String) { lock.withLock { stored.append(entry) } }
    var entries: [String] { lock.withLock { stored } }
}

extension RealmParitySectionedResults {
    @Suite struct SectionedResultsTests {
        @Test("Spec V27: Results sectioned by a key path, by a key path with sort descriptors and by a block")
        func testCreationFromResults() throws {
            let realm = try createObjects(sectionedRealm())
            let results = realm.objects(SRObject.self)
            for (ascending, keys) in [(true, ["a", "b", "c"]), (false, ["c", "b", "a"])] {
                let byKeyPath = results.sectioned(by: \.firstLetter, ascending: ascending)
                #expect(byKeyPath.count == 3)
                #expect(byKeyPath.map(\.key) == keys)
                let sort = [SortDescriptor(keyPath: "stringCol", ascending: ascending)]
                let withSort = results.sectioned(by: \.firstLetter, sortDescriptors: sort)
                #expect(withSort.map(\.key) == keys)
                let byBlock = results.sectioned(by: { String($0.stringCol.prefix(1)) }, sortDescriptors: sort)
                #expect(byBlock.count == 3)
                #expect(byBlock.map(\.key) == keys)
            }
            #expect(words(results.sectioned(by: \.firstLetter)) == "a:apple b:banana,box c:chalk")
            #expect(words(results.sectioned(by: \.firstLetter, ascending: false)) == "c:chalk b:box,banana a:apple")
        }

        @Test("Spec V27: a List of strings sectioned by first letter, ascending and descending")
        func testCreationFromList() throws {
            let realm = try createObjects(sectionedRealm())
            let list = realm.objects(SRObject.self)[0].arrayString
            let ascending = list.sectioned(by: { String($0.prefix(1)) }, ascending: true)
            #expect(ascending.map(\.key) == ["a", "b", "c"])
            #expect(layout(ascending) { $0 } == "a:apple b:banana,box c:chalk")
            let descending = list.sectioned(by: { String($0.prefix(1)) }, ascending: false)
            #expect(descending.map(\.key) == ["c", "b", "a"])
            #expect(layout(descending) { $0 } == "c:chalk b:box,banana a:apple")
        }

        @Test("Spec V27: a set of strings sectioned by first letter, ascending and descending")
        func testCreateFromMutableSet() throws {
            let realm = try createObjects(sectionedRealm())
            let set = realm.objects(SRObject.self)[0].setString
            #expect(set.sectioned(by: { String($0.prefix(1)) }, ascending: true).map(\.key) == ["a", "b", "c"])
            #expect(set.sectioned(by: { String($0.prefix(1)) }, ascending: false).map(\.key) == ["c", "b", "a"])
        }

        @Test("Spec V27: allKeys are the section keys in section order")
        func testAllKeys() throws {
            let realm = try createObjects(sectionedRealm())
            #expect(realm.objects(SRObject.self).sectioned(by: \.firstLetter).allKeys == ["a", "b", "c"])
        }

        @Test("Spec V27: a section by position, an element by position and by index path")
        func testSubscript() throws {
            let realm = try createObjects(sectionedRealm())
            let sectioned = realm.objects(SRObject.self).sectioned(by: \.firstLetter, ascending: true)
            let section = sectioned[0]
            #expect(section.count == 1)
            #expect(section[0].stringCol == "apple")
            #expect(sectioned[IndexPath(item: 0, section: 0)].stringCol == "apple")
            #expect(sectioned[IndexPath(item: 1, section: 1)].stringCol == "box")
            #expect(section.id == "a")
        }

        @Test("Spec V27: iterating sections and their elements visits every object once, in order")
        func testFastEnumeration() throws {
            let realm = try createObjects(sectionedRealm())
            var keys: [String?] = []
            var strings: [String] = []
            for section in realm.objects(SRObject.self).sectioned(by: \.firstLetter, ascending: true) {
                keys.append(section.key)
                for object in section { strings.append(object.stringCol) }
            }
            #expect(keys == ["a", "b", "c"])
            #expect(strings == ["apple", "banana", "box", "chalk"])
        }

        @Test("Spec V27, N25: a second observer hears a write the first skips (write(withoutNotifying:))")
        func testObservation() throws {
            let logs = try onLoop { () throws -> [[String]] in
                let realm = try createObjects(sectionedRealm())
                let results = realm.objects(SRObject.self)
                let sectioned = results.sectioned(by: \.firstLetter, ascending: true)
                let first = SRLog()
                let token = sectioned.observe { first.append(describe($0, count: \.count)) }
                _ = settleRunLoop { first.entries.count == 1 }
                let second = SRLog()
                let token2 = sectioned.observe { second.append(describe($0, count: \.count)) }
                _ = settleRunLoop { second.entries.count == 1 }
                try realm.write(withoutNotifying: [token]) { realm.delete(results) }
                _ = settleRunLoop { second.entries.count == 2 }
                token.invalidate()
                token2.invalidate()
                return [first.entries, second.entries]
            }
            #expect(logs[0] == ["initial 3"])
            #expect(logs[1] == ["initial 3", "update 0 d[] i[] m[] +s[] -s[0, 1, 2]"])
        }

        @Test("Spec V27, N21: a key-path observer hears section moves and its property, not other writes")
        func testObserveWithKeyPathFilter() throws {
            let entries = try onLoop { () throws -> [String] in
                let realm = try createObjects(sectionedRealm())
                let results = realm.objects(SRObject.self)
                let sectioned = results.sectioned(by: \.firstLetter, ascending: true)
                let log = SRLog()
                let token = sectioned.observe(keyPaths: [\SRObject.boolCol]) {
                    log.append(describe($0, count: \.count))
                }
                _ = settleRunLoop { log.entries.count == 1 }
                let apple = results.where { $0.stringCol.starts(with: "a") }[0]
                try realm.write { apple.stringCol = "box" }  // moves it to section b
                _ = settleRunLoop { log.entries.count == 2 }
                try realm.write { apple.boolCol = true }  // the observed property
                _ = settleRunLoop { log.entries.count == 3 }
                try realm.write { apple.stringCol = "box" }  // neither
                try realm.write { apple.stringCol = "box" }
                try realm.write { apple.boolCol = false }  // observed: the log's end
                _ = settleRunLoop { log.entries.count == 4 }
                token.invalidate()
                return log.entries
            }
            // apple, now "box", sorts after banana and box (a stable sort keeps table order).
            #expect(
                entries == [
                    "initial 3", "update 2 d[] i[0.2] m[] +s[] -s[0]", "update 2 d[] i[] m[0.2] +s[] -s[]",
                    "update 2 d[] i[] m[0.2] +s[] -s[]",
                ])
        }

        @Test("Spec V27, N21: a section's key-path observer hears its property only")
        func testObserveWithKeyPathFilterOnSection() throws {
            let entries = try onLoop { () throws -> [String] in
                let realm = try createObjects(sectionedRealm())
                let results = realm.objects(SRObject.self)
                let section = results.sectioned(by: \.firstLetter, ascending: true)[0]
                let log = SRLog()
                let token = section.observe(keyPaths: [\SRObject.boolCol]) {
                    log.append(describe($0, count: sectionCount))
                }
                _ = settleRunLoop { log.entries.count == 1 }
                let apple = results.where { $0.stringCol.starts(with: "a") }[0]
                try realm.write { apple.boolCol = true }
                _ = settleRunLoop { log.entries.count == 2 }
                try realm.write { apple.intCol = 123 }
                try realm.write { apple.intCol = 456 }
                try realm.write { apple.boolCol = false }  // observed: the log's end
                _ = settleRunLoop { log.entries.count == 3 }
                token.invalidate()
                return log.entries
            }
            #expect(entries == ["initial 1", "update 1 d[] i[] m[0.0] +s[] -s[]", "update 1 d[] i[] m[0.0] +s[] -s[]"])
        }

        @Test("Spec V27, N18: on a queue: sections deleted and inserted, elements moving between them, a modification")
        func testObserveOnQueue() throws {
            let realm = try createObjects(sectionedRealm())
            let results = realm.objects(SRObject.self)
            let sectioned = results.sectioned(by: \.firstLetter, ascending: true)
            let log = SRLog()
            let semaphore = DispatchSemaphore(value: 0)
            let token = sectioned.observe(keyPaths: ["stringCol"], on: DispatchQueue(label: "sectioned")) { change in
                log.append(describe(change, count: \.count) + (Thread.isMainThread ? " main" : ""))
                semaphore.signal()
            }
            #expect(semaphore.wait(timeout: .now() + hangGuardSeconds) == .success)
            try realm.write {
                realm.delete([results[2], results[0]])  // apple, banana (table order: banana, box, apple, chalk)
                results[0].stringCol = "bog"  // was box
                realm.create(SRObject.self, value: ["stringCol": "zebra"])
            }
            #expect(semaphore.wait(timeout: .now() + hangGuardSeconds) == .success)
            try realm.write {
                results[0].stringCol = "bogg"
                results[1].intCol = 1  // not observed
            }
            #expect(semaphore.wait(timeout: .now() + hangGuardSeconds) == .success)
            token.invalidate()
            #expect(
                log.entries == [
                    "initial 3",
                    "update 3 d[1.0,1.1] i[0.0,2.0] m[] +s[2] -s[0]",
                    "update 3 d[] i[] m[0.0] +s[] -s[]",
                ])
        }

        /// Realm's testObservationOnSection's writes, observed through sections 'a' and 'b'.
        private static func sectionWrites(_ realm: Realm) throws {
            let results = realm.objects(SRObject.self)
            try realm.write { realm.delete([results[2], results[0]]) }  // apple, banana
            try realm.write {}
            try realm.write {
                results[0].stringCol = "bog"  // was box
                realm.create(SRObject.self, value: ["stringCol": "bag"])
            }
            try realm.write {}
            try realm.write { realm.create(SRObject.self, value: ["stringCol": "app"]) }
            try realm.write {}
        }

        @Test("Spec V27: a section's observer hears its own section only, its index paths in the whole")
        func testObservationOnSection() throws {
            let logs = try onLoop { () throws -> [[String]] in
                let realm = try createObjects(sectionedRealm())
                let sectioned = realm.objects(SRObject.self).sectioned(by: \.firstLetter, ascending: true)
                let a = SRLog()
                let b = SRLog()
                let token1 = sectioned[0].observe(keyPaths: ["stringCol"]) {
                    a.append(describe($0, count: sectionCount))
                }
                let token2 = sectioned[1].observe(keyPaths: ["stringCol"]) {
                    b.append(describe($0, count: sectionCount))
                }
                _ = settleRunLoop { a.entries.count == 1 && b.entries.count == 1 }
                try Self.sectionWrites(realm)
                _ = settleRunLoop { a.entries.count == 3 && b.entries.count == 3 }
                token1.invalidate()
                token2.invalidate()
                return [a.entries, b.entries]
            }
            #expect(
                logs[0] == ["initial 1", "update gone d[] i[] m[] +s[] -s[0]", "update 1 d[] i[0.0] m[] +s[0] -s[]"])
            #expect(
                logs[1] == [
                    "initial 2", "update 1 d[1.0] i[] m[] +s[] -s[]", "update 2 d[0.0] i[0.0,0.1] m[] +s[] -s[]",
                ])
        }

        @Test("Spec V27, N18: section observers on a queue")
        func testObservationOnSectionOnQueue() throws {
            let realm = try createObjects(sectionedRealm())
            let sectioned = realm.objects(SRObject.self).sectioned(by: \.firstLetter, ascending: true)
            let a = SRLog()
            let b = SRLog()
            let queue = DispatchQueue(label: "sections")
            let token1 = sectioned[0].observe(keyPaths: ["stringCol"], on: queue) {
                a.append(describe($0, count: sectionCount))
            }
            let token2 = sectioned[1].observe(keyPaths: ["stringCol"], on: queue) {
                b.append(describe($0, count: sectionCount))
            }
            #expect(spinRunLoop { a.entries.count == 1 && b.entries.count == 1 })
            let results = realm.objects(SRObject.self)
            try realm.write { realm.delete([results[2], results[0]]) }
            #expect(spinRunLoop { a.entries.count == 2 && b.entries.count == 2 })
            try realm.write {
                results[0].stringCol = "bog"
                realm.create(SRObject.self, value: ["stringCol": "bag"])
            }
            #expect(spinRunLoop { b.entries.count == 3 })
            try realm.write { realm.create(SRObject.self, value: ["stringCol": "app"]) }
            #expect(spinRunLoop { a.entries.count == 3 })
            token1.invalidate()
            token2.invalidate()
            #expect(
                a.entries == ["initial 1", "update gone d[] i[] m[] +s[] -s[0]", "update 1 d[] i[0.0] m[] +s[0] -s[]"])
            #expect(
                b.entries == [
                    "initial 2", "update 1 d[1.0] i[] m[] +s[] -s[]", "update 2 d[0.0] i[0.0,0.1] m[] +s[] -s[]",
                ])
        }

        @Test("Spec V27, F2: sections of frozen Results stay; thawed, they are live")
        func testFrozenResults() throws {
            let realm = try createObjects(sectionedRealm())
            let frozen = realm.objects(SRObject.self).freeze()
            try realm.write { realm.create(SRObject.self, value: ["stringCol": "z"]) }
            for (ascending, keys) in [(true, ["a", "b", "c"]), (false, ["c", "b", "a"])] {
                let sectioned = frozen.sectioned(by: \.firstLetter, ascending: ascending)
                #expect(sectioned.isFrozen)
                #expect(sectioned.map(\.key) == keys)
                let thawed = try #require(sectioned.thaw())
                #expect(!thawed.isFrozen)
                #expect(thawed.map(\.key) == (ascending ? keys + ["z"] : ["z"] + keys))
            }
        }

        @Test("Spec V27, F2: frozen sections stay at their version; thawed, they follow the realm")
        func testFrozen() throws {
            let realm = try createObjects(sectionedRealm())
            let results = realm.objects(SRObject.self)
            #expect(!results.isFrozen)
            for (ascending, keys, added) in [(true, ["a", "b", "c"], "d"), (false, ["d", "c", "b", "a"], "e")] {
                let frozen = results.sectioned(by: \.firstLetter, ascending: ascending).freeze()
                try realm.write { realm.create(SRObject.self, value: ["stringCol": added]) }
                #expect(frozen.isFrozen)
                #expect(frozen.map(\.key) == keys)
                let thawed = try #require(frozen.thaw())
                #expect(!thawed.isFrozen)
                #expect(thawed.map(\.key) == (ascending ? keys + [added] : [added] + keys))
            }
        }

        @Test("Spec V27, F2: a frozen section keeps its elements; thawed, it has the new one of its key")
        func testFrozenSection() throws {
            let realm = try createObjects(sectionedRealm())
            let results = realm.objects(SRObject.self)
            for (ascending, key) in [(true, "a"), (false, "c")] {
                let frozen = results.sectioned(by: \.firstLetter, ascending: ascending)[0].freeze()
                try realm.write { realm.create(SRObject.self, value: ["stringCol": key]) }
                #expect(frozen.isFrozen)
                #expect(frozen.count == 1)
                #expect(frozen.key == key)
                let thawed = try #require(frozen.thaw())
                #expect(!thawed.isFrozen)
                #expect(thawed.count == 2)
                #expect(thawed.key == key)
            }
        }

        @Test("Spec V27: a sectioning equals itself, not another sectioning of the same collection")
        func testEquality() throws {
            let realm = try createObjects(sectionedRealm())
            let list = realm.objects(SRObject.self)[0].arrayString
            let first = list.sectioned(by: { String($0.prefix(1)) })
            let second = list.sectioned(by: { String($0.prefix(1)) })
            #expect(first == first)
            #expect(first != second)
            #expect(first[0] != first[1], "two keys are two sections")
        }

        // MARK: beyond Realm's tests

        @Test("Spec V27: Lists, sets, LinkingObjects and AnyRealmCollection of objects section alike")
        func testCreationFromObjectCollections() throws {
            let realm = try createObjects(sectionedRealm())
            let banana = try #require(realm.objects(SRObject.self).where { $0.stringCol == "banana" }.first)
            try realm.write {
                for object in realm.objects(SRObject.self) where object.stringCol != "banana" {
                    banana.children.append(object)
                    banana.childSet.insert(object)
                    object.parent = banana
                }
            }
            let expected = "a:apple b:box c:chalk"
            #expect(words(banana.children.sectioned(by: \.firstLetter)) == expected)
            #expect(words(banana.childSet.sectioned(by: \.firstLetter)) == expected)
            #expect(words(banana.offspring.sectioned(by: \.firstLetter)) == expected)
            #expect(words(AnyRealmCollection(banana.children).sectioned(by: \.firstLetter)) == expected)
            #expect(words(banana.children.sectioned(by: \.intCol)) == "0:box,apple,chalk", "ties keep List order")
        }

        @Test("Spec V27: a section follows its key: live, it moves with the sections; gone, it is invalidated")
        func testSectionFollowsItsKey() throws {
            let realm = try createObjects(sectionedRealm())
            let sectioned = realm.objects(SRObject.self).sectioned(by: \.firstLetter)
            let b = sectioned[1]
            #expect(b.key == "b" && b.count == 2)
            let apple = try #require(realm.objects(SRObject.self).where { $0.stringCol == "apple" }.first)
            try realm.write { apple.stringCol = "bat" }
            #expect(sectioned.allKeys == ["b", "c"])
            #expect(b.count == 3, "the section of 'b' is now the first and holds bat")
            #expect(b.map(\.stringCol) == ["banana", "bat", "box"])
            try realm.write { realm.delete(realm.objects(SRObject.self).where { $0.stringCol.starts(with: "b") }) }
            #expect(b.isInvalidated)
            #expect(!sectioned.isInvalidated)
            #expect(sectioned.allKeys == ["c"])
        }

        @Test("Spec V27: a key that returns after another key joins its first section")
        func testKeyBlockNotFollowingTheSort() throws {
            let realm = try createObjects(sectionedRealm())
            // Sorted apple, banana, box, chalk; keyed by length parity: 1, 0, 1, 1.
            let sectioned = realm.objects(SRObject.self).sectioned(
                by: { $0.stringCol.count % 2 }, sortDescriptors: [SortDescriptor(keyPath: "stringCol")])
            #expect(words(sectioned) == "1:apple,box,chalk 0:banana")
        }

        @Test("Spec V27, T5: a reference to sectioned results and to a section resolves on another thread")
        func testThreadSafeReference() throws {
            let realm = try createObjects(sectionedRealm())
            let configuration = realm.configuration
            let sectioned = realm.objects(SRObject.self).sectioned(by: \.firstLetter)
            let toAll = ThreadSafeReference(to: sectioned)
            let toSection = ThreadSafeReference(to: sectioned[1])
            let toValues = ThreadSafeReference(
                to: realm.objects(SRObject.self)[0].arrayString.sectioned(
                    by: { String($0.prefix(1)) }, ascending: false))
            let resolved = try onOtherThread { () throws -> [String] in
                let other = try Realm(configuration: configuration)
                let all = try #require(other.resolve(toAll))
                let section = try #require(other.resolve(toSection))
                let values = try #require(other.resolve(toValues))
                return [
                    words(all), "\(section.key ?? "nil"):" + section.map(\.stringCol).joined(separator: ","),
                    values.map { $0.key }.joined(separator: ","),
                ]
            }
            #expect(resolved == ["a:apple b:banana,box c:chalk", "b:banana,box", "c,b,a"])
        }

        @Test("Spec V27, N18, C15: sectioned results observed on an actor")
        func testObserveOnActor() async throws {
            let realm = try createObjects(sectionedRealm())
            let configuration = realm.configuration
            let log = SRLog()
            let token = await realm.objects(SRObject.self).sectioned(by: \.firstLetter)
                .observe(on: SRActor.shared) { _, change in log.append(describe(change, count: \.count)) }
            #expect(await waitUntil { log.entries.count == 1 })
            try onOtherThread {
                let other = try Realm(configuration: configuration)
                try other.write { other.create(SRObject.self, value: ["stringCol": "dog"]) }
            }
            #expect(await waitUntil { log.entries.count == 2 })
            token.invalidate()
            #expect(log.entries == ["initial 3", "update 4 d[] i[3.0] m[] +s[3] -s[]"])
        }

        @Test("Spec V27, N4: a commit that skips the observer moves its sections on")
        func testSkippedCommitMovesSectionsOn() throws {
            let entries = try onLoop { () throws -> [String] in
                let realm = try createObjects(sectionedRealm())
                let results = realm.objects(SRObject.self)
                let sectioned = results.sectioned(by: \.firstLetter)
                let log = SRLog()
                let token = sectioned.observe { log.append(describe($0, count: \.count)) }
                _ = settleRunLoop { log.entries.count == 1 }
                try realm.write(withoutNotifying: [token]) { realm.delete(results.where { $0.stringCol == "apple" }) }
                try realm.write { realm.create(SRObject.self, value: ["stringCol": "axe"]) }
                _ = settleRunLoop { log.entries.count == 2 }
                token.invalidate()
                return log.entries
            }
            // After the skipped commit the sections are b, c: "axe" makes a section a again.
            #expect(entries == ["initial 3", "update 3 d[] i[0.0] m[] +s[0] -s[]"])
        }

        @Test("Spec V27, N11: sections of a List of values follow the List; a reorder alone is not heard")
        func testObserveValues() throws {
            let entries = try onLoop { () throws -> [String] in
                let realm = try createObjects(sectionedRealm())
                let list = realm.objects(SRObject.self)[0].arrayString
                let sectioned = list.sectioned(by: { String($0.prefix(1)) })
                let log = SRLog()
                let token = sectioned.observe { log.append(describe($0, count: \.count)) }
                _ = settleRunLoop { log.entries.count == 1 }
                try realm.write { list.append("avocado") }
                _ = settleRunLoop { log.entries.count == 2 }
                // The same values in another order: the List's own observer hears it (and so has
                // the delivery that would reach the sections), the sections do not.
                let listLog = SRLog()
                let listToken = list.observe { _ in listLog.append("list") }
                _ = settleRunLoop { listLog.entries.count == 1 }
                try realm.write { list.move(from: 0, to: 3) }
                _ = settleRunLoop { listLog.entries.count == 2 }
                #expect(log.entries.count == 2, "a reorder alone reached the sections")
                listToken.invalidate()
                try realm.write { list.remove(at: list.firstIndex(of: "chalk") ?? 0) }  // the log's end
                _ = settleRunLoop { log.entries.count == 3 }
                token.invalidate()
                return log.entries
            }
            // Sorted apple, avocado, banana, box, chalk; then chalk's section goes.
            #expect(entries == ["initial 3", "update 3 d[] i[0.1] m[] +s[] -s[]", "update 2 d[] i[] m[] +s[] -s[2]"])
        }

        @Test("Spec V27, F: sections frozen inside a write are those of the version the write began at")
        func testFreezeInsideAWrite() throws {
            let realm = try createObjects(sectionedRealm())
            let sectioned = realm.objects(SRObject.self).sectioned(by: \.firstLetter)
            _ = sectioned.count  // worked out before the write
            realm.beginWrite()
            realm.create(SRObject.self, value: ["stringCol": "apricot"])
            #expect(words(sectioned) == "a:apple,apricot b:banana,box c:chalk", "live: the write's object")
            let frozen = sectioned.freeze()
            let frozenResults = realm.objects(SRObject.self).freeze()
            realm.cancelWrite()
            // Both frozen in the write: the same version, whatever Strata freezes there.
            #expect(frozen.map { $0.count }.reduce(0, +) == frozenResults.count)
            #expect(words(frozen) == words(frozenResults.sectioned(by: \.firstLetter)))
        }

        @Test("Spec V27: keys are told apart as stored values: strings by bytes, every NaN one key")
        func testKeysAreStoredValues() throws {
            let realm = try sectionedRealm()
            let object = try realm.write { () -> SRObject in
                let object = realm.create(SRObject.self)
                object.arrayString.append(objectsIn: ["\u{E9}", "e\u{301}", "\u{E9}"])
                object.arrayDouble.append(objectsIn: [.nan, 1, .nan])
                return object
            }
            let strings = object.arrayString.sectioned(by: { $0 })
            #expect(strings.count == 2, "precomposed and decomposed spellings are two keys, as realm-core's bytes")
            #expect(strings.map(\.count).sorted() == [1, 2])
            let doubles = object.arrayDouble.sectioned(by: { $0 })
            #expect(doubles.count == 2, "the NaNs share one section")
            let nanSection = try #require(doubles.first { $0.key.isNaN })
            #expect(!nanSection.isInvalidated)
            #expect(nanSection.count == 2)
        }

        @Test("Spec V27: Realm's refusals: no sort descriptor, a key path not the primary sort, a link as key")
        func testSectionedMisuse() throws {
            let realm = try createObjects(sectionedRealm())
            let results = realm.objects(SRObject.self)
            expectRejected(
                rejection { _ = try results._sectioned(by: \.firstLetter, sortDescriptors: []) },
                "Can not section Results with empty sortDescriptor parameter.")
            expectRejected(
                rejection { _ = try results._sectioned(sortDescriptors: []) { $0.stringCol } },
                "There must be at least one SortDescriptor when using SectionedResults.")
            expectRejected(
                rejection {
                    _ = try results._sectioned(by: \.firstLetter, sortDescriptors: [SortDescriptor(keyPath: "intCol")])
                },
                "The section key path must match the primary sort descriptor.")
            let byParent = results.sectioned(sortDescriptors: [SortDescriptor(keyPath: "stringCol")]) { $0.parent }
            expectRejected(rejection { _ = try byParent._count() }, "Links are not supported as section keys.")
            let section = results.sectioned(by: \.firstLetter)[0]
            try realm.write { realm.delete(results.where { $0.stringCol == "apple" }) }
            expectRejected(rejection { _ = try section._count() }, "Access to invalidated Results objects")
        }
    }
}

// MARK: primitives (Realm's BasePrimitiveSectionedResultsTests and the optional variant)

/// `sectioned` of a managed List and set of values, ascending and descending: each section's
/// key and values, and the frozen and thawed forms (Realm's testCreationFromList,
/// testCreationFromMutableSet, testFrozenFromParentCollection and testFrozen).
/// A value as the primitive tests print it: Data as its bytes.
private func shown(_ value: Any) -> String {
    if let data = value as? Data { return "\(Array(data))" }
    return "\(value)"
}

private func checkPrimitives<V: RealmCollectionValue & _Persistable, K: _Persistable & Hashable>(
    _ list: (SRObject) -> List<V>, _ set: (SRObject) -> MutableSet<V>, values: [V],
    key: @escaping (V) -> K, ascending: String, descending: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let realm = try sectionedRealm()
    let object = try realm.write { () -> SRObject in
        let object = realm.create(SRObject.self)
        list(object).append(objectsIn: values)
        set(object).insert(objectsIn: values)
        return object
    }
    func show(_ sectioned: SectionedResults<K, V>) -> String {
        sectioned.map { section in "\(section.key):" + section.map(shown).joined(separator: ",") }
            .joined(separator: " ")
    }
    #expect(show(list(object).sectioned(by: key, ascending: true)) == ascending, sourceLocation: sourceLocation)
    #expect(show(list(object).sectioned(by: key, ascending: false)) == descending, sourceLocation: sourceLocation)
    #expect(show(set(object).sectioned(by: key, ascending: true)) == ascending, sourceLocation: sourceLocation)
    #expect(show(set(object).sectioned(by: key, ascending: false)) == descending, sourceLocation: sourceLocation)

    let live = list(object).sectioned(by: key)
    #expect(!live.isFrozen, sourceLocation: sourceLocation)
    let fromFrozenParent = list(object).freeze().sectioned(by: key)
    let frozen = live.freeze()
    try realm.write { list(object).removeAll() }
    for sectioned in [fromFrozenParent, frozen] {
        #expect(sectioned.isFrozen, sourceLocation: sourceLocation)
        #expect(show(sectioned) == ascending, "frozen before the List was emptied", sourceLocation: sourceLocation)
        let thawed = try #require(sectioned.thaw(), sourceLocation: sourceLocation)
        #expect(!thawed.isFrozen, sourceLocation: sourceLocation)
        #expect(thawed.count == 0, "thawed: the emptied List", sourceLocation: sourceLocation)
    }
}

extension RealmParitySectionedResults {
    @Suite struct PrimitiveSectionedResultsTests {
        @Test("Spec V27: Int values by parity, Bool by value, Double by whole part, String by first letter")
        func testCreationFromListAndSet() throws {
            try checkPrimitives(
                \.arrayInt, \.setInt, values: [5, 4, 3, 2, 1], key: { $0 % 2 },
                ascending: "1:1,3,5 0:2,4", descending: "1:5,3,1 0:4,2")
            try checkPrimitives(
                \.arrayBool, \.setBool, values: [true, false], key: { $0 },
                ascending: "false:false true:true", descending: "true:true false:false")
            try checkPrimitives(
                \.arrayDouble, \.setDouble, values: [2.5, 1.5, 2.25, 0.5], key: { Int($0) },
                ascending: "0:0.5 1:1.5 2:2.25,2.5", descending: "2:2.5,2.25 1:1.5 0:0.5")
            try checkPrimitives(
                \.arrayString, \.setString, values: ["box", "apple", "banana", "chalk"], key: { String($0.prefix(1)) },
                ascending: "a:apple b:banana,box c:chalk", descending: "c:chalk b:box,banana a:apple")
        }

        @Test("Spec V27: Date values by year, Data by length")
        func testCreationFromListAndSetOfDatesAndData() throws {
            let dates = [2_000_000_000, 0, 1_000_000_000].map { Date(timeIntervalSince1970: TimeInterval($0)) }
            try checkPrimitives(
                \.arrayDate, \.setDate, values: dates, key: { $0.timeIntervalSince1970 > 1e9 },
                ascending: "false:\(dates[1]),\(dates[2]) true:\(dates[0])",
                descending: "true:\(dates[0]) false:\(dates[2]),\(dates[1])")
            try checkPrimitives(
                \.arrayData, \.setData, values: [Data([2, 1]), Data([1]), Data([2])], key: { $0.count },
                ascending: "1:[1],[2] 2:[2, 1]", descending: "2:[2, 1] 1:[2],[1]")
        }

        @Test("Spec V27: optional values: nil sorts first ascending and is a section of its own")
        func testCreationFromListOptional() throws {
            try checkPrimitives(
                \.arrayOptInt, \.setOptInt, values: [5, 4, nil, 3, 2, 1], key: { $0.map { $0 % 2 } },
                ascending:
                    "nil:nil Optional(1):Optional(1),Optional(3),Optional(5) Optional(0):Optional(2),Optional(4)",
                descending:
                    "Optional(1):Optional(5),Optional(3),Optional(1) Optional(0):Optional(4),Optional(2) nil:nil")
            try checkPrimitives(
                \.arrayOptString, \.setOptString, values: ["b", nil, "a"], key: { $0 == nil },
                ascending: "true:nil false:Optional(\"a\"),Optional(\"b\")",
                descending: "false:Optional(\"b\"),Optional(\"a\") true:nil")
        }
    }
}
