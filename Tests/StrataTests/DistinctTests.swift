import Foundation
import Strata
import StrataTestSupport
import Testing

final class DistinctSample: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var group: Int?
    @Persisted var name: String
    @Persisted var rank: Int
}

final class DistinctOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var samples: List<DistinctSample>
}

/// Spec V22's edges that Realm's `ResultsDistinctTests` do not reach: the order of sorts and
/// distincts, null as one value, strings by their bytes, Lists, liveness, frozen Results and
/// references.
@Suite struct DistinctTests {
    static func realm() throws -> Realm {
        let realm = try Realm(
            configuration: Realm.Configuration(
                fileURL: temporaryDirectory().appendingPathComponent("distinct.realm"),
                objectTypes: [DistinctSample.self, DistinctOwner.self]))
        try realm.write {
            // id: group, name, rank
            let rows: [(Int, Int?, String, Int)] = [
                (1, 1, "K", 3), (2, 1, "\u{212A}", 1), (3, nil, "a", 2), (4, 2, "a", 0), (5, nil, "b", 5),
            ]
            for (id, group, name, rank) in rows {
                realm.create(
                    DistinctSample.self,
                    value: ["id": id, "group": group as Any, "name": name, "rank": rank] as [String: Any])
            }
        }
        return realm
    }

    @Test(
        "Spec V22: a sort then a distinct keeps each group's first in sorted order; the reverse sorts what was kept; sorts merge"
    )
    func sortsAndDistinctsApplyInOrder() throws {
        let realm = try Self.realm()
        let all = realm.objects(DistinctSample.self)
        // Null is one value; the first of each group in key order.
        #expect(all.distinct(by: ["group"]).map(\.id) == [1, 3, 4])
        // Sorted by rank first: group 1's first is id 2 (rank 1), null's is 3 (rank 2).
        #expect(all.sorted(byKeyPath: "rank").distinct(by: ["group"]).map(\.id) == [4, 2, 3])
        // Distinct first (ids 1, 3, 4), then sorted by rank descending.
        #expect(all.distinct(by: ["group"]).sorted(byKeyPath: "rank", ascending: false).map(\.id) == [1, 3, 4])
        // A sort right after a sort is merged in front of it: the earlier one breaks its ties
        // (group: 1, 1, nil, 2, nil; by group, then by rank descending within a group).
        #expect(
            all.sorted(byKeyPath: "rank", ascending: false).sorted(byKeyPath: "group").map(\.id) == [5, 3, 1, 2, 4])
        // Two distincts: each narrows what the one before left.
        #expect(all.distinct(by: ["group"]).distinct(by: ["name"]).map(\.id) == [1, 3])
    }

    @Test("Spec V22, W26: strings are distinct by their UTF-8 bytes")
    func stringsAreDistinctByTheirBytes() throws {
        let realm = try Self.realm()
        let names = realm.objects(DistinctSample.self).distinct(by: ["name"]).map(\.name)
        #expect(names.map { Array($0.utf8) } == ["K", "\u{212A}", "a", "b"].map { Array($0.utf8) })
    }

    @Test("Spec V22, V1, F8: distinct Results are live, follow the write's changes, and a frozen one keeps its version")
    func distinctResultsAreLive() throws {
        let realm = try Self.realm()
        let distinct = realm.objects(DistinctSample.self).distinct(by: ["group"])
        let frozen = distinct.freeze()
        realm.beginWrite()
        realm.create(DistinctSample.self, value: ["id": 0, "group": 2, "name": "z", "rank": 9] as [String: Any])
        #expect(distinct.map(\.id) == [0, 1, 3], "inside the write: its id-0 object of group 2 comes first")
        realm.cancelWrite()
        #expect(distinct.map(\.id) == [1, 3, 4])
        try realm.write { realm.delete(realm.objects(DistinctSample.self).where { $0.id == 1 }) }
        #expect(distinct.map(\.id) == [2, 3, 4], "group 1's next object stands for it")
        #expect(frozen.map(\.id) == [1, 3, 4])
    }

    @Test("Spec V22, T1: a reference to distinct Results resolves to the same distinct on another thread")
    func aReferenceKeepsTheDistinct() throws {
        let realm = try Self.realm()
        let reference = ThreadSafeReference(
            to: realm.objects(DistinctSample.self).sorted(byKeyPath: "rank").distinct(by: ["group"]))
        let configuration = realm.configuration
        let ids = try onOtherThread { () throws -> [Int] in
            let other = try Realm(configuration: configuration)
            return try required(other.resolve(reference), "the resolved Results").map(\.id)
        }
        #expect(ids == [4, 2, 3])
    }

    @Test("Spec V22: a List's distinct keeps list order, repeats included once; an unmanaged List refuses")
    func listsAreDistinctInListOrder() throws {
        let realm = try Self.realm()
        let owner = try realm.write { () -> DistinctOwner in
            let owner = realm.create(DistinctOwner.self, value: ["id": 1])
            let samples = realm.objects(DistinctSample.self)
            for id in [4, 2, 4, 1, 3] {
                owner.samples.append(try required(samples.where { $0.id == id }.first, "sample \(id)"))
            }
            return owner
        }
        #expect(owner.samples.distinct(by: ["group"]).map(\.id) == [4, 2, 3])
        #expect(owner.samples.distinct(by: [\DistinctSample.id]).map(\.id) == [4, 2, 1, 3])
        let unmanaged = DistinctOwner()
        #expect(throws: Realm.Error.self) { _ = try unmanaged.samples._distinct(by: ["group"]) }
    }
}
