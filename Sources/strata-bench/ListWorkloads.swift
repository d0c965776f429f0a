import Foundation
import Strata

/// The object layer's List record: one object holding a `List<Int>`.
final class BenchBag: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var items: List<Int>
}

/// `list_append` and `list_iterate`: the object layer's List (the engine layer has no List, so
/// these run on the object layer only, and are skipped with a note without it).
///
/// In a realm of its own (`bag.realm` in the bench directory, class BenchBag), each
/// list_append run is one `realm.write { }` adding a new BenchBag and appending the ints
/// `1...N` (N = --records) one `append` at a time to its List, timed from before the write to
/// its return (ns per element; one run, or the median of `--runs`, each on a new object).
/// A managed List is stored inline, so each append stores the List again: the write grows as
/// N squared, and both workloads run only when named with `--only`. list_iterate then
/// iterates the last run's List summing its elements (ns per element; the median of 5). Every
/// run checks the element count and the sum N(N+1)/2. Selecting list_iterate alone appends
/// the List once, untimed.
enum ListWorkloads {
    static func run(configuration: BenchConfiguration, directory: BenchDirectory, report: Report)
        throws
    {
        let realmConfiguration = Realm.Configuration(
            fileURL: URL(fileURLWithPath: directory.file("bag.realm")), objectTypes: [BenchBag.self])
        try Realm.deleteFiles(for: realmConfiguration)
        // Every object and the realm are released when `measure` returns: the files can go.
        try measure(Realm(configuration: realmConfiguration), configuration, report)
        try Realm.deleteFiles(for: realmConfiguration)
    }

    private static func measure(_ realm: Realm, _ configuration: BenchConfiguration, _ report: Report)
        throws
    {
        let elementCount = configuration.recordCount
        let timesAppend = configuration.runs(.listAppend)
        let appendRuns = timesAppend ? configuration.runCount(.listAppend) : 1
        report.progress(
            "list_append: \(appendRuns) writes appending \(elementCount) ints to a List"
                + (timesAppend ? "" : " (untimed, for list_iterate)") + " (object layer)")
        var appendNanos = Samples()
        var lastBag: BenchBag?
        for run in 0..<appendRuns {
            let (bag, nanos) = try measureNanos {
                try append(realm, bagID: run, elementCount: elementCount)
            }
            try check(bag.items, elementCount: elementCount, workload: .listAppend)
            appendNanos.append(nanos / Double(elementCount))
            lastBag = bag
        }
        if timesAppend {
            report.record(
                .listAppend, layer: .object, "ns_per_element", appendNanos.median, unit: "ns",
                kind: .duration)
            report.record(
                .listAppend, layer: .object, "total_ms",
                appendNanos.median * Double(elementCount) / 1e6, unit: "ms", kind: .duration)
        }
        if configuration.runs(.listIterate), let lastBag {
            try iterate(lastBag.items, configuration: configuration, report: report)
        }
    }

    /// One write adding BenchBag `bagID` and appending `1...elementCount` to its List.
    @inline(never)
    static func append(_ realm: Realm, bagID: Int, elementCount: Int) throws -> BenchBag {
        try realm.write {
            let bag = BenchBag()
            bag.id = bagID
            realm.add(bag)
            let items = bag.items
            for element in 1...elementCount {
                items.append(element)
            }
            return bag
        }
    }

    private static func iterate(
        _ items: List<Int>, configuration: BenchConfiguration, report: Report
    ) throws {
        let runCount = configuration.runCount(.listIterate)
        let elementCount = configuration.recordCount
        report.progress(
            "list_iterate: \(runCount) iterations of a List of \(elementCount) ints (object layer)")
        var nanosPerElement = Samples()
        for _ in 0..<runCount {
            let ((count, sum), nanos) = measureNanos { sumElements(items) }
            try check(count: count, sum: sum, elementCount: elementCount, workload: .listIterate)
            nanosPerElement.append(nanos / Double(elementCount))
        }
        report.record(
            .listIterate, layer: .object, "ns_per_element", nanosPerElement.median, unit: "ns",
            kind: .duration)
    }

    /// list_iterate: `for element in list`, counting and summing.
    @inline(never)
    static func sumElements(_ items: List<Int>) -> (count: Int, sum: Int) {
        var count = 0
        var sum = 0
        for element in items {
            sum &+= element
            count += 1
        }
        return (count, sum)
    }

    private static func check(_ items: List<Int>, elementCount: Int, workload: Workload) throws {
        let (count, sum) = sumElements(items)
        try check(count: count, sum: sum, elementCount: elementCount, workload: workload)
    }

    private static func check(count: Int, sum: Int, elementCount: Int, workload: Workload)
        throws(BenchError)
    {
        let expectedSum = elementCount * (elementCount + 1) / 2
        guard count == elementCount, sum == expectedSum else {
            throw BenchError.wrongResult(
                workload: workload,
                detail: "object layer: the List holds \(count) elements summing to \(sum),"
                    + " expected \(elementCount), \(expectedSum)")
        }
    }
}
