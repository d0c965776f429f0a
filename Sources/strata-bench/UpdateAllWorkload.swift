/// `update_all`: one durable write transaction adding 1 to the age of every record, in ns per
/// record, total ms and commit ms; the median of 3 runs (each adds 1 again).
///
/// Object layer: `realm.write { for p in realm.objects(BenchPerson.self) { p.age += 1 } }`.
/// Engine layer: one write transaction reading each row's name and age and rewriting it with
/// `WriteTransaction.update` (which replaces whole rows). Every run checks that the sum of
/// the ages afterwards is the sum before plus the record count, and the first run that the
/// sum before is the loaders' (no workload before this one changes ages). It changes the ages
/// the later workloads read, so it runs after every workload that checks them (`Workload`).
enum UpdateAllWorkload {
    static func run(
        databases: [any StrataLayerDatabase], configuration: BenchConfiguration, report: Report
    ) throws {
        let runCount = configuration.runCount(.updateAll)
        let lastID = databases.first?.lastID ?? 0
        report.progress(
            "update_all: \(runCount) writes of age += 1 on \(lastID) records"
                + configuration.layerProgressSuffix)
        var ageSums: [BenchLayer: Int64] = [:]
        for database in databases {
            let sum = try database.ageSum()
            let loaded = PersonRecord.ageSum(throughID: database.lastID)
            guard sum == loaded else {
                throw BenchError.wrongResult(
                    workload: .updateAll,
                    detail: "\(database.layer.name) layer: age sum \(sum) before the first"
                        + " update, expected the loaders' \(loaded)")
            }
            ageSums[database.layer] = sum
        }
        var total: [BenchLayer: Samples] = [:]
        var commit: [BenchLayer: Samples] = [:]
        for _ in 0..<runCount {
            for database in databases {
                let timing = try database.measureUpdateAll()
                let before = ageSums[database.layer] ?? 0
                let after = try database.ageSum()
                let recordCount = Int(database.lastID)
                guard timing.updatedCount == recordCount, after == before + database.lastID else {
                    throw BenchError.wrongResult(
                        workload: .updateAll,
                        detail: "\(database.layer.name) layer: updated \(timing.updatedCount)"
                            + " records, age sum \(before) → \(after); expected \(recordCount),"
                            + " \(before + database.lastID)")
                }
                ageSums[database.layer] = after
                total[database.layer, default: Samples()].append(timing.totalNanos)
                commit[database.layer, default: Samples()].append(timing.commitNanos)
            }
        }
        for database in databases {
            guard let total = total[database.layer], let commit = commit[database.layer] else {
                preconditionFailure("every layer ran every run")
            }
            let layer = database.layer
            report.record(
                .updateAll, layer: layer, "ns_per_record", total.median / Double(database.lastID),
                unit: "ns", kind: .duration)
            report.record(
                .updateAll, layer: layer, "total_ms", total.median / 1e6, unit: "ms",
                kind: .duration)
            report.record(
                .updateAll, layer: layer, "commit_ms", commit.median / 1e6, unit: "ms",
                kind: .duration)
        }
        report.recordLayerRatios(.updateAll)
    }
}
