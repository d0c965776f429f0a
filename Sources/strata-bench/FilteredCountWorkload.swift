/// `filtered_count`: the count of the records whose age is above `ageThreshold`, from a fresh
/// query each run, in ns per record scanned; the median of 5 runs.
///
/// Object layer: `realm.objects(BenchPerson.self).where { $0.age > K }.count` on new Results
/// each run, so each run evaluates the query. Engine layer: one scan counting the rows whose
/// age column (`RowView.int(at:)`) is above K. Every run's count is checked against the count
/// the loaders' ages give, so a wrong fast answer fails the run.
enum FilteredCountWorkload {
    /// K: ages run 18 ... 97, so half of the records are above 57.
    static let ageThreshold: Int64 = 57

    static func run(
        databases: [any StrataLayerDatabase], configuration: BenchConfiguration, report: Report
    ) throws {
        let runCount = configuration.runCount(.filteredCount)
        let lastID = databases.first?.lastID ?? 0
        report.progress(
            "filtered_count: \(runCount) counts of age > \(ageThreshold) over \(lastID) records"
                + configuration.layerProgressSuffix)
        var nanosPerRecord: [BenchLayer: Samples] = [:]
        for _ in 0..<runCount {
            for database in databases {
                let (count, nanos) = try database.measureFilteredCount(ageAbove: ageThreshold)
                let expected = expectedCount(lastID: database.lastID)
                guard count == expected else {
                    throw BenchError.wrongResult(
                        workload: .filteredCount,
                        detail: "\(database.layer.name) layer: counted \(count) records with age >"
                            + " \(ageThreshold), expected \(expected)")
                }
                nanosPerRecord[database.layer, default: Samples()]
                    .append(nanos / Double(database.lastID))
            }
        }
        for database in databases {
            guard let samples = nanosPerRecord[database.layer] else {
                preconditionFailure("every layer ran every run")
            }
            report.record(
                .filteredCount, layer: database.layer, "ns_per_record", samples.median,
                unit: "ns", kind: .duration)
        }
        report.recordLayerRatios(.filteredCount)
    }

    /// The records of `1...lastID` whose age as loaded is above the threshold.
    static func expectedCount(lastID: Int64) -> Int {
        var count = 0
        var id: Int64 = 1
        while id <= lastID {
            if PersonRecord.age(id: id) > ageThreshold { count += 1 }
            id += 1
        }
        return count
    }
}
