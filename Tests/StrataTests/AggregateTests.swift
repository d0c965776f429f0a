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
    static func message(_ body: () throws(Realm.Error) -> Void) -> String? {
        do throws(Realm.Error) {
            try body()
            return nil
        } catch { return error.message }
    }

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
        #expect(results.average(ofProperty: "count") as Int8? == 2, "as NSNumber.int8Value: truncated toward zero")
        // RealmSwift bridges an Int exactly (`as? Int`): 2.5 is no Int.
        #expect(
            Self.message { () throws(Realm.Error) in _ = try results._aggregate(.average, "count") as Int? }
                == "Could not convert value '2.5' to type 'Int'.")
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

    @Test("Spec V21: an integer sum wraps at 64 bits instead of trapping; an average never wraps")
    func integerSumsWrap() throws {
        let realm = try Self.realm()
        try realm.write {
            realm.create(AggregateSample.self, value: ["id": 1, "count": Int.max])
            realm.create(AggregateSample.self, value: ["id": 2, "count": Int.max])
        }
        let results = realm.objects(AggregateSample.self)
        #expect(results.sum(ofProperty: "count") as Int == -2)
        #expect(results.average(ofProperty: "count") as Double? == Double(Int.max), "added as doubles")
    }

    @Test("Spec V21: NaN is skipped like null")
    func notANumberIsSkipped() throws {
        let realm = try Self.realm()
        try realm.write {
            realm.create(AggregateSample.self, value: ["id": 1, "ratio": Float.nan] as [String: Any])
            realm.create(AggregateSample.self, value: ["id": 2, "ratio": 2.5 as Float] as [String: Any])
            realm.create(AggregateSample.self, value: ["id": 3, "ratio": Float.nan] as [String: Any])
        }
        let results = realm.objects(AggregateSample.self)
        #expect(results.min(ofProperty: "ratio") as Float? == 2.5, "a NaN first is not the minimum")
        #expect(results.max(ofProperty: "ratio") as Float? == 2.5)
        #expect(results.sum(ofProperty: "ratio") as Double == 2.5)
        #expect(results.average(ofProperty: "ratio") as Double? == 2.5)
    }

    @Test("Spec V21, V22: the aggregate of distinct Results is over the objects the distinct kept")
    func distinctResultsAggregateWhatTheyKeep() throws {
        let realm = try Self.realm()
        try realm.write {
            for (id, count) in [(1, 4), (2, 4), (3, 1)] {
                realm.create(AggregateSample.self, value: ["id": id, "count": count])
            }
        }
        let distinct = realm.objects(AggregateSample.self).distinct(by: ["count"])
        #expect(distinct.count == 2)
        #expect(distinct.sum(ofProperty: "count") as Int == 5)
        #expect(distinct.average(ofProperty: "count") as Double? == 2.5)
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
        #expect(
            Self.message { () throws(Realm.Error) in let _: Int? = try results._aggregate(.min, "nope") }
                == "Invalid property name: Property 'nope' not found in object of type 'AggregateSample'")
        #expect(
            Self.message { () throws(Realm.Error) in let _: Int? = try results._aggregate(.max, "flag") }
                == "Operation 'max' not supported for bool property 'AggregateSample.flag'")
        #expect(
            Self.message { () throws(Realm.Error) in let _: Int? = try results._aggregate(.average, "names") }
                == "Operation 'average' not supported for string list 'AggregateSample.names'")
        #expect(
            Self.message { () throws(Realm.Error) in let _: Int = try results._sum("ratio") } == nil, "a float sums")
        #expect(
            Self.message { () throws(Realm.Error) in let _: Int? = try results._aggregate(.sum, "count") } == nil,
            "an optional integer sums")
    }
}
