import Foundation
import Strata

/// What a collection's pair of object-layer workloads share (set_insert/set_contains,
/// map_update/map_lookup): `--runs` writes that each fill a new collection of N elements, timed
/// per element, each checked; then rounds of lookups on the last one, timed per lookup, each
/// checked by how many it found. Selecting the lookups alone fills the collection once,
/// untimed.
struct CollectionWorkloadPair<Filled> {
    let fill: Workload
    let lookUp: Workload
    /// What one fill does, for the progress line ("inserting 10 distinct ints into a MutableSet").
    let fillSummary: String
    /// What one lookup round does ("contains on a set of 10 ints").
    let lookupSummary: String
    /// Lookups per round, and how many of them must find something.
    let lookupsPerRound: Int
    let expectedFound: Int

    func measure(
        _ configuration: BenchConfiguration, _ report: Report, perform: (_ run: Int) throws -> Filled,
        check: (Filled) throws -> Void, lookUp lookUpAll: (Filled) -> Int
    ) throws {
        let count = configuration.recordCount
        let timesFill = configuration.runs(fill)
        let fillRuns = timesFill ? configuration.runCount(fill) : 1
        report.progress(
            "\(fill.name): \(fillRuns) writes \(fillSummary)" + (timesFill ? "" : " (untimed, for \(lookUp.name))")
                + " (object layer)")
        var fillNanos = Samples()
        var last: Filled?
        for run in 0..<fillRuns {
            let (filled, nanos) = try measureNanos { try perform(run) }
            try check(filled)
            fillNanos.append(nanos / Double(count))
            last = filled
        }
        if timesFill {
            report.record(fill, layer: .object, "ns_per_element", fillNanos.median, unit: "ns", kind: .duration)
        }
        guard configuration.runs(lookUp), let last else { return }
        let runCount = configuration.runCount(lookUp)
        report.progress("\(lookUp.name): \(runCount) rounds of \(lookupsPerRound) \(lookupSummary)")
        var lookupNanos = Samples()
        for _ in 0..<runCount {
            let (found, nanos) = measureNanos { lookUpAll(last) }
            guard found == expectedFound else {
                throw BenchError.wrongResult(workload: lookUp, detail: "found \(found) of \(expectedFound)")
            }
            lookupNanos.append(nanos / Double(lookupsPerRound))
        }
        report.record(lookUp, layer: .object, "ns_per_lookup", lookupNanos.median, unit: "ns", kind: .duration)
    }
}
