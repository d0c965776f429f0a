import Foundation
import Strata

/// The object layer's map record: one object holding a `Map<String, Int>`.
final class BenchKeyed: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var counts: Map<String, Int>
}

/// `map_update` and `map_lookup`: the object layer's Map (Spec V25; the engine layer has no
/// map, so these run on the object layer only).
///
/// In a realm of its own (`keyed.realm` in the bench directory), each map_update run is one
/// `realm.write { }` adding a new BenchKeyed and setting N keys ("k0" ... , N = --records) in a
/// scrambled order, every third one set again to another value (a replacement), timed from
/// before the write to its return (ns per element, that is per key; one run, or the median of `--runs`). A managed
/// map is stored inline like a List, so each new key stores the map again: the write grows as N
/// squared, and both workloads run only when named with `--only`. map_lookup then reads the
/// last run's map by subscript for every key and as many absent keys (ns per lookup, a binary
/// search in key order; the median of 5). Every run checks the count, that the keys read in
/// order, the values, and the lookups' answers.
enum MapWorkloads {
    static func run(configuration: BenchConfiguration, directory: BenchDirectory, report: Report) throws {
        let realmConfiguration = Realm.Configuration(
            fileURL: URL(fileURLWithPath: directory.file("keyed.realm")), objectTypes: [BenchKeyed.self])
        try Realm.deleteFiles(for: realmConfiguration)
        try measure(Realm(configuration: realmConfiguration), configuration, report)
        try Realm.deleteFiles(for: realmConfiguration)
    }

    private static func measure(_ realm: Realm, _ configuration: BenchConfiguration, _ report: Report) throws {
        let count = configuration.recordCount
        let keys = (0..<(2 * count)).map { "k\($0)" }
        let pair = CollectionWorkloadPair<BenchKeyed>(
            fill: .mapUpdate, lookUp: .mapLookup, fillSummary: "setting \(count) keys of a Map<String, Int>",
            lookupSummary: "subscripts on a map of \(count) keys", lookupsPerRound: 2 * count, expectedFound: count)
        try pair.measure(
            configuration, report, perform: { run in try update(realm, id: run, count: count) },
            check: { try check($0.counts, count: count) }, lookUp: { lookUp($0.counts, keys: keys) })
    }

    /// Sets keys "k0"..."k(count-1)" in a scrambled order, each to its number, every third one
    /// first to its negation and then again (the replacement counts as no new key).
    @inline(never)
    static func update(_ realm: Realm, id: Int, count: Int) throws -> BenchKeyed {
        try realm.write {
            let keyed = BenchKeyed()
            keyed.id = id
            realm.add(keyed)
            let counts = keyed.counts
            let multiplier = SetWorkloads.multiplier(for: count)
            for index in 0..<count {
                let value = (index &* multiplier) % count
                if index % 3 == 0 { counts["k\(value)"] = -value }
                counts["k\(value)"] = value
            }
            return keyed
        }
    }

    /// The subscript of every key of `keys`: how many were present with their own number.
    @inline(never)
    static func lookUp(_ counts: Map<String, Int>, keys: [String]) -> Int {
        var found = 0
        for (number, key) in keys.enumerated() where counts[key] == number { found += 1 }
        return found
    }

    private static func check(_ counts: Map<String, Int>, count: Int) throws {
        guard counts.count == count else {
            throw BenchError.wrongResult(workload: .mapUpdate, detail: "the map holds \(counts.count) of \(count) keys")
        }
        var previous: String?
        for entry in counts {
            guard entry.value >= 0, entry.key == "k\(entry.value)" else {
                throw BenchError.wrongResult(workload: .mapUpdate, detail: "\(entry.key) holds \(entry.value)")
            }
            if let previous, !(previous.utf8.lexicographicallyPrecedes(entry.key.utf8)) {
                throw BenchError.wrongResult(workload: .mapUpdate, detail: "\(entry.key) reads after \(previous)")
            }
            previous = entry.key
        }
    }
}
