/// `aggregate_sum`: the sum of every record's age, from a fresh query each run, in ns per
/// record; the median of 5 runs.
///
/// Object layer: `realm.objects(BenchPerson.self).sum(ofProperty: "age") as Int`, which reads
/// the stored ages and makes no object (Spec V21). Engine layer: one scan adding up the age
/// column (`RowView.int(at:)`). Every run's sum is checked against the sum of the ages the
/// loaders wrote, so a wrong fast answer fails the run.
enum AggregateSumWorkload {
    static func run(
        databases: [any StrataLayerDatabase], configuration: BenchConfiguration, report: Report
    ) throws {
        let runCount = configuration.runCount(.aggregateSum)
        let lastID = databases.first?.lastID ?? 0
        report.progress(
            "aggregate_sum: \(runCount) sums of age over \(lastID) records" + configuration.layerProgressSuffix)
        var nanosPerRecord: [BenchLayer: Samples] = [:]
        for _ in 0..<runCount {
            for database in databases {
                let (sum, nanos) = try database.measureAgeSumAggregate()
                let expected = expectedSum(lastID: database.lastID)
                guard sum == expected else {
                    throw BenchError.wrongResult(
                        workload: .aggregateSum,
                        detail: "\(database.layer.name) layer: the ages sum to \(sum), expected \(expected)")
                }
                nanosPerRecord[database.layer, default: Samples()].append(nanos / Double(database.lastID))
            }
        }
        for database in databases {
            guard let samples = nanosPerRecord[database.layer] else {
                preconditionFailure("every layer ran every run")
            }
            report.record(
                .aggregateSum, layer: database.layer, "ns_per_record", samples.median, unit: "ns", kind: .duration)
        }
        report.recordLayerRatios(.aggregateSum)
    }

    /// The sum of the ages of `1...lastID` as loaded.
    static func expectedSum(lastID: Int64) -> Int64 {
        var sum: Int64 = 0
        var id: Int64 = 1
        while id <= lastID {
            sum &+= PersonRecord.age(id: id)
            id += 1
        }
        return sum
    }
}
