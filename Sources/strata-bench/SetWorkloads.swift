import Foundation
import Strata

/// The object layer's set record: one object holding a `MutableSet<Int>`.
final class BenchTagged: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var tags: MutableSet<Int>
}

/// `set_insert` and `set_contains`: the object layer's MutableSet (Spec V24; the engine layer
/// has no set, so these run on the object layer only).
///
/// In a realm of its own (`tagged.realm` in the bench directory), each set_insert run is one
/// `realm.write { }` adding a new BenchTagged and inserting N distinct ints (N = --records) in a
/// scrambled order, every third one twice (a duplicate insert, which changes nothing), timed
/// from before the write to its return (ns per distinct element; one run, or the median of
/// `--runs`). A managed set is stored inline like a List, so each new element stores the set
/// again: the write grows as N squared, and both workloads run only when named with `--only`.
/// set_contains then asks the last run's set `contains` for every element and as many absent
/// values (ns per lookup, a binary search in set order; the median of 5). Every run checks the
/// count, that the set reads in ascending order, and the lookups' answers.
enum SetWorkloads {
    static func run(configuration: BenchConfiguration, directory: BenchDirectory, report: Report) throws {
        let realmConfiguration = Realm.Configuration(
            fileURL: URL(fileURLWithPath: directory.file("tagged.realm")), objectTypes: [BenchTagged.self])
        try Realm.deleteFiles(for: realmConfiguration)
        try measure(Realm(configuration: realmConfiguration), configuration, report)
        try Realm.deleteFiles(for: realmConfiguration)
    }

    private static func measure(_ realm: Realm, _ configuration: BenchConfiguration, _ report: Report) throws {
        let count = configuration.recordCount
        let pair = CollectionWorkloadPair<BenchTagged>(
            fill: .setInsert, lookUp: .setContains,
            fillSummary: "inserting \(count) distinct ints into a MutableSet",
            lookupSummary: "contains on a set of \(count) ints", lookupsPerRound: 2 * count, expectedFound: count)
        try pair.measure(
            configuration, report, perform: { run in try insert(realm, id: run, count: count) },
            check: { try check($0.tags, count: count) }, lookUp: { lookUp($0.tags, count: count) })
    }

    /// The multiplier that scrambles 0..<count: index times it, mod count, is a permutation
    /// (it is coprime with count).
    static func multiplier(for count: Int) -> Int {
        var candidate = 7_919
        while greatestCommonDivisor(candidate, count) != 1 { candidate += 2 }
        return candidate
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        b == 0 ? a : greatestCommonDivisor(b, a % b)
    }

    @inline(never)
    static func insert(_ realm: Realm, id: Int, count: Int) throws -> BenchTagged {
        try realm.write {
            let tagged = BenchTagged()
            tagged.id = id
            realm.add(tagged)
            let tags = tagged.tags
            let multiplier = multiplier(for: count)
            for index in 0..<count {
                let value = (index &* multiplier) % count
                tags.insert(value)
                if index % 3 == 0 { tags.insert(value) }
            }
            return tagged
        }
    }

    /// `contains` of every value 0..<count (present) and count..<2·count (absent): how many
    /// answered true.
    @inline(never)
    static func lookUp(_ tags: MutableSet<Int>, count: Int) -> Int {
        var found = 0
        for value in 0..<(2 * count) where tags.contains(value) { found += 1 }
        return found
    }

    private static func check(_ tags: MutableSet<Int>, count: Int) throws {
        var expected = 0
        for value in tags {
            guard value == expected else {
                throw BenchError.wrongResult(
                    workload: .setInsert, detail: "the set reads \(value) where \(expected) belongs")
            }
            expected += 1
        }
        guard expected == count else {
            throw BenchError.wrongResult(workload: .setInsert, detail: "the set holds \(expected) of \(count) ints")
        }
    }
}
