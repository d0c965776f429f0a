import Strata

/// The object layer's versions of its performance workloads, through the Realm API only:
/// `where { }` queries (fresh Results each call, so each evaluates), and a `realm.write { }`
/// setting a property of every object.
extension BenchRealm: StrataLayerDatabase {
    func measureFilteredCount(ageAbove age: Int64) throws -> (count: Int, nanos: Double) {
        let realm = self.realm
        let (count, nanos) = measureNanos { Self.countAges(realm, above: Int(age)) }
        return (count, nanos)
    }

    func measureAgeSumAggregate() throws -> (sum: Int64, nanos: Double) {
        let realm = self.realm
        let (sum, nanos) = measureNanos { Self.sumAges(realm) }
        return (Int64(sum), nanos)
    }

    func measureUpdateAll() throws -> UpdateAllTiming {
        let realm = self.realm
        let start = MonotonicInstant.now()
        let (updatedCount, blockEnd) = try realm.write { () -> (Int, MonotonicInstant) in
            (Self.incrementAges(realm), MonotonicInstant.now())
        }
        let end = MonotonicInstant.now()
        return UpdateAllTiming(
            updatedCount: updatedCount, totalNanos: end.nanos(since: start),
            commitNanos: end.nanos(since: blockEnd))
    }

    func ageSum() throws -> Int64 {
        var sum: Int64 = 0
        for person in realm.objects(BenchPerson.self) {
            sum &+= Int64(person.age)
        }
        return sum
    }
}

// The object layer's timed loops. Never inlined, so that profilers can attribute them.
extension BenchRealm {
    /// filtered_count: the count of a fresh filtered Results.
    @inline(never)
    static func countAges(_ realm: Realm, above age: Int) -> Int {
        realm.objects(BenchPerson.self).where { $0.age > age }.count
    }

    /// aggregate_sum: `sum(ofProperty: "age")` of a fresh Results.
    @inline(never)
    static func sumAges(_ realm: Realm) -> Int {
        realm.objects(BenchPerson.self).sum(ofProperty: "age")
    }

    /// update_all: inside the caller's write, `age += 1` on every object of
    /// `realm.objects(BenchPerson.self)`; the number of objects updated.
    @inline(never)
    static func incrementAges(_ realm: Realm) -> Int {
        var updatedCount = 0
        for person in realm.objects(BenchPerson.self) {
            person.age += 1
            updatedCount += 1
        }
        return updatedCount
    }
}
