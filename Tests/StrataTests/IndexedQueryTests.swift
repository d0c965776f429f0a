import Foundation
import Strata
import StrataStorage
import StrataTestSupport
import Testing

/// Indexed properties of every indexable kind (Realm's String, Int, Bool, Date, UUID), and an
/// unindexed one for mixed predicates.
final class IndexedPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted(indexed: true) var age: Int
    @Persisted(indexed: true) var nick: String?
    @Persisted(indexed: true) var flag: Bool
    @Persisted(indexed: true) var when: Date
    @Persisted(indexed: true) var tag: UUID
    @Persisted var plain: Int
}

/// Equality and `in` queries on indexed properties read the objects the index names (Spec
/// W26); what they return must be what a scan returns, in the same order, inside and outside
/// writes, after updates, deletes and cancelled writes.
@Suite struct IndexedQueryTests {
    static let names = [
        "ann", "bob", "", "K", "\u{212A}", String(repeating: "long name ", count: 12) + "1",
        String(repeating: "long name ", count: 12) + "2",
    ]
    static let dates = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1.5), Date(timeIntervalSince1970: -7),
    ]
    static let tags = [UUID(), UUID(), UUID()]

    static func configuration() -> Realm.Configuration {
        Realm.Configuration(
            fileURL: temporaryDirectory().appendingPathComponent("indexed.realm"), objectTypes: [IndexedPerson.self])
    }

    /// Every query shape checked, with the scan's answer: the ids of the objects meeting it.
    static func check(_ realm: Realm, _ label: String) {
        let all = Array(realm.objects(IndexedPerson.self))
        func same(_ results: Results<IndexedPerson>, _ expected: (IndexedPerson) -> Bool, _ what: String) {
            let ids = all.filter(expected).map(\.id)
            // `first` and `isEmpty` first, while the Results are not evaluated: they stop at the
            // first match (through the index or the scan); then from the evaluation.
            #expect(results.first?.id == ids.first, "\(label): first of \(what)")
            #expect(results.isEmpty == ids.isEmpty, "\(label): isEmpty of \(what)")
            #expect(results.map(\.id) == ids, "\(label): \(what)")
            #expect(results.first?.id == ids.first, "\(label): evaluated first of \(what)")
        }
        for name in names {
            same(
                realm.objects(IndexedPerson.self).where { $0.name == name }, { $0.name.utf8.elementsEqual(name.utf8) },
                "name == \(name)")
            same(
                realm.objects(IndexedPerson.self).where { $0.name.equals(name) },
                { $0.name.utf8.elementsEqual(name.utf8) }, "name.equals(\(name))")
            same(
                realm.objects(IndexedPerson.self).where { $0.nick == name },
                { $0.nick?.utf8.elementsEqual(name.utf8) == true },
                "nick == \(name)")
        }
        same(realm.objects(IndexedPerson.self).where { $0.nick == nil }, { $0.nick == nil }, "nick == nil")
        for age in 0..<4 {
            same(realm.objects(IndexedPerson.self).where { $0.age == age }, { $0.age == age }, "age == \(age)")
            same(
                realm.objects(IndexedPerson.self).where { $0.age == age && $0.plain > 0 },
                { $0.age == age && $0.plain > 0 },
                "age == \(age) && plain > 0")
            same(
                realm.objects(IndexedPerson.self).where { $0.plain == 1 && $0.age == age },
                { $0.plain == 1 && $0.age == age },
                "plain == 1 && age == \(age)")
            same(
                realm.objects(IndexedPerson.self).where { $0.age == age || $0.flag }, { $0.age == age || $0.flag },
                "age == \(age) || flag")
        }
        same(
            realm.objects(IndexedPerson.self).where { $0.age.in([3, 0, 3]) }, { $0.age == 3 || $0.age == 0 }, "age in")
        same(realm.objects(IndexedPerson.self).where { $0.flag == true }, { $0.flag }, "flag")
        for date in dates {
            same(realm.objects(IndexedPerson.self).where { $0.when == date }, { $0.when == date }, "when")
        }
        for tag in tags { same(realm.objects(IndexedPerson.self).where { $0.tag == tag }, { $0.tag == tag }, "tag") }
        let sorted = realm.objects(IndexedPerson.self).where { $0.age == 1 }.sorted(byKeyPath: "name")
        #expect(
            sorted.map(\.id)
                == all.filter { $0.age == 1 }.sorted { ($0.name, $0.id) < ($1.name, $1.id) }.map(\.id)
                || sorted.map(\.name) == all.filter { $0.age == 1 }.map(\.name).sorted(),
            "\(label): sorted")
    }

    // Spec W26: a random mix of creates, updates, deletes and cancelled writes; every query
    // shape agrees with a scan after each commit and inside each write, before it commits.
    @Test func equalityOnIndexedPropertiesMatchesAScan() throws {
        let realm = try Realm(configuration: Self.configuration())
        var random = SplitMix64(seed: 22)
        func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        for round in 0..<25 {
            realm.beginWrite()
            for _ in 0..<(1 + draw(8)) {
                let id = draw(30)
                if draw(4) == 0 {
                    if let object = realm.object(ofType: IndexedPerson.self, forPrimaryKey: id) { realm.delete(object) }
                    continue
                }
                let value: [String: Any] = [
                    "id": id, "name": Self.names[draw(Self.names.count)], "age": draw(4),
                    "nick": draw(3) == 0 ? NSNull() : Self.names[draw(Self.names.count)] as Any, "flag": draw(2) == 0,
                    "when": Self.dates[draw(Self.dates.count)], "tag": Self.tags[draw(Self.tags.count)],
                    "plain": draw(3),
                ]
                realm.create(IndexedPerson.self, value: value, update: .modified)
            }
            Self.check(realm, "round \(round), inside the write")
            if draw(5) == 0 {
                realm.cancelWrite()
            } else {
                try realm.commitWrite()
            }
            Self.check(realm, "round \(round), after it")
        }
        #expect(realm.objects(IndexedPerson.self).count > 5)
    }

    // Strings are equal when their bytes are, as realm-core compares them: "K" and the Kelvin
    // sign (canonically equivalent, so equal to Swift) are different names, indexed or not.
    @Test func stringEqualityComparesBytesAsRealmDoes() throws {
        let realm = try Realm(configuration: Self.configuration())
        try realm.write {
            realm.create(IndexedPerson.self, value: ["id": 1, "name": "K", "plain": 1])
            realm.create(IndexedPerson.self, value: ["id": 2, "name": "\u{212A}", "plain": 1])
        }
        #expect(realm.objects(IndexedPerson.self).where { $0.name == "K" }.map(\.id) == [1])
        #expect(realm.objects(IndexedPerson.self).where { $0.name == "\u{212A}" }.map(\.id) == [2])
        #expect(realm.objects(IndexedPerson.self).where { $0.plain == 1 && $0.name != "K" }.map(\.id) == [2])
        // An update to the other spelling is a modification: the bytes change.
        try realm.write { realm.create(IndexedPerson.self, value: ["id": 2, "name": "K"], update: .modified) }
        #expect(realm.object(ofType: IndexedPerson.self, forPrimaryKey: 2)?.name.utf8.elementsEqual("K".utf8) == true)
        #expect(realm.objects(IndexedPerson.self).where { $0.name == "K" }.map(\.id) == [1, 2])
    }

    // Spec W26: the file's table has the indexes the class declares (the primary key has its
    // own), and verify() finds its entries complete.
    @Test func theFileHoldsTheDeclaredIndexes() throws {
        let configuration = Self.configuration()
        let path = try #require(configuration.fileURL).path
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for id in 0..<50 {
                    realm.create(
                        IndexedPerson.self, value: ["id": id, "name": "n\(id % 4)", "age": id % 3, "plain": id])
                }
            }
        }
        #expect(waitUntilClosed(path))
        let store = try Store.open(.file(path), options: StoreOptions(create: false))
        defer { store.close() }
        #expect(try store.verify().isClean)
        let read = try store.beginRead()
        defer { read.end() }
        let table = try #require(read.table(named: "IndexedPerson"))
        // Columns in declaration order: id 0, name 1, age 2, nick 3, flag 4, when 5, tag 6, plain 7.
        #expect(table.indexedColumns == 0b111_1110)
        #expect(try read.indexedKeys(table, column: 2, equalTo: .int(1))?.count == 17)
    }
}
