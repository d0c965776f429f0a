import Foundation
import Strata
import Testing

final class AggregateSample: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var count: Int?
    @Persisted var ratio: Float
    @Persisted var flag: Bool
    @Persisted var names: List<String>
}

final class AggregateOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var samples: List<AggregateSample>
}

/// Spec V21's edges that Realm's tests do not reach: nulls, repeats in a List, a sum that
/// overflows, the version an aggregate reads, and what it refuses.
@Suite struct AggregateTests {
    static func realm() throws -> Realm {
        try Realm(
            configuration: Realm.Configuration(
                fileURL: temporaryDirectory().appendingPathComponent("aggregate.realm"),
                objectTypes: [AggregateSample.self, AggregateOwner.self]))
    }

    @Test("Spec V21: nulls are skipped; no value gives nil, and a sum of zero")
    func nullsAreSkipped() throws {
        let realm = try Self.realm()
        let results = realm.objects(AggregateSample.self)
        #expect(results.min(ofProperty: "count") as Int? == nil, "no objects")
        #expect(results.sum(ofProperty: "count") as Int == 0)
        #expect(results.sum(ofProperty: "ratio") as Double == 0)
        #expect(results.average(ofProperty: "count") as Double? == nil)
        try realm.write {
            realm.create(AggregateSample.self, value: ["id": 1, "count": NSNull()])
        }
        #expect(results.max(ofProperty: "count") as Int? == nil, "only a null")
        #expect(results.average(ofProperty: "count") as Double? == nil, "only a null")
        try realm.write {
            realm.create(AggregateSample.self, value: ["id": 2, "count": 4])
            realm.create(AggregateSample.self, value: ["id": 3, "count": 1])
        }
        #expect(results.min(ofProperty: "count") as Int? == 1)
        #expect(results.average(ofProperty: "count") as Double? == 2.5, "over the two values, not three objects")
        #expect(results.average(ofProperty: "count") as Int? == 2, "truncated toward zero")
        #expect(results.where { $0.id > 2 }.sum(of: \.count) == 1, "a query's objects only")
    }

    @Test("Spec V21: an object a List holds twice counts twice; a List whose owner is gone is refused")
    func repeatsInAListCountTwice() throws {
        let realm = try Self.realm()
        let owner = try realm.write { () -> AggregateOwner in
            let sample = realm.create(AggregateSample.self, value: ["id": 1, "count": 5])
            let other = realm.create(AggregateSample.self, value: ["id": 2, "count": 2])
            let owner = realm.create(AggregateOwner.self, value: ["id": 1])
            owner.samples.append(objectsIn: [sample, sample, other])
            return owner
        }
        #expect(owner.samples.sum(ofProperty: "count") as Int == 12)
        #expect(owner.samples.average(ofProperty: "count") as Double? == 4)
        #expect(owner.samples.max(of: \.count) == .some(5))
        let samples = owner.samples
        try realm.write { realm.delete(owner) }
        #expect(throws: Realm.Error.self) { let _: Int? = try samples._aggregate(.max, "count") }
    }

    @Test("Spec V21: an integer sum wraps at 64 bits instead of trapping")
    func integerSumsWrap() throws {
        let realm = try Self.realm()
        try realm.write {
            realm.create(AggregateSample.self, value: ["id": 1, "count": Int.max])
            realm.create(AggregateSample.self, value: ["id": 2, "count": 2])
        }
        #expect(realm.objects(AggregateSample.self).sum(ofProperty: "count") as Int == Int.min + 1)
    }

    @Test("Spec V21, V1, F8: live Results follow the realm's version and the write's changes; frozen ones keep theirs")
    func aggregatesReadTheRealmsVersion() throws {
        let realm = try Self.realm()
        try realm.write { realm.create(AggregateSample.self, value: ["id": 1, "count": 3]) }
        let live = realm.objects(AggregateSample.self)
        let frozen = live.freeze()
        realm.beginWrite()
        realm.create(AggregateSample.self, value: ["id": 2, "count": 10])
        #expect(live.max(ofProperty: "count") as Int? == 10, "inside the write, its own change counts")
        realm.cancelWrite()
        #expect(live.max(ofProperty: "count") as Int? == 3, "cancelled")
        try realm.write { realm.create(AggregateSample.self, value: ["id": 3, "count": 7]) }
        #expect(live.sum(ofProperty: "count") as Int == 10)
        #expect(frozen.sum(ofProperty: "count") as Int == 3, "frozen at its version")
    }

    @Test("Spec V21: Realm's words for a property that is missing or of a type the aggregate does not take")
    func unsupportedPropertiesAreRefused() throws {
        let realm = try Self.realm()
        let results = realm.objects(AggregateSample.self)
        func message(_ body: () throws(Realm.Error) -> Void) -> String? {
            do throws(Realm.Error) {
                try body()
                return nil
            } catch { return error.message }
        }
        #expect(
            message { () throws(Realm.Error) in let _: Int? = try results._aggregate(.min, "nope") }
                == "Invalid property name: Property 'nope' not found in object of type 'AggregateSample'")
        #expect(
            message { () throws(Realm.Error) in let _: Int? = try results._aggregate(.max, "flag") }
                == "Operation 'max' not supported for bool property 'AggregateSample.flag'")
        #expect(
            message { () throws(Realm.Error) in let _: Int? = try results._aggregate(.average, "names") }
                == "Operation 'average' not supported for string list 'AggregateSample.names'")
        #expect(message { () throws(Realm.Error) in let _: Int = try results._sum("ratio") } == nil, "a float sums")
        #expect(
            message { () throws(Realm.Error) in let _: Int? = try results._aggregate(.sum, "count") } == nil,
            "an optional integer sums")
    }
}
