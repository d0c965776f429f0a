/// `bulk_insert`: N records in one durable transaction, on a fresh file each run.
///
/// Peer row a. of notes/peer-baselines.md. Each run creates its own file per layer
/// (`bulk-<run>.strata`, `bulk-<run>.realm`) so no run inherits another's free space; each
/// run's files are deleted when the next starts, and the last run's databases serve the
/// following workloads. With both layers, each run loads the engine file, then the realm.
enum BulkInsertWorkload {
    /// Runs the workload (or, when it is not selected, loads once untimed) and returns the
    /// databases the other workloads use, one per layer in `configuration.layers` order.
    static func run(
        configuration: BenchConfiguration, directory: BenchDirectory, report: Report
    ) throws -> [any LayerDatabase] {
        let layers = configuration.layers
        guard configuration.runs(.bulkInsert) else {
            report.progress("loading \(configuration.recordCount) records (untimed)")
            var loaded: [any LayerDatabase] = []
            for layer in layers {
                let path = directory.file("bench." + layer.fileExtension)
                loaded.append(
                    try LayerLoader.load(layer, path: path, configuration: configuration).database)
            }
            return loaded
        }
        let runCount = configuration.runCount(.bulkInsert)
        report.progress(
            "bulk_insert: \(runCount) runs of \(configuration.recordCount) records"
                + configuration.layerProgressSuffix)
        var total: [BenchLayer: Samples] = [:]
        var commit: [BenchLayer: Samples] = [:]
        var kept: [any LayerDatabase] = []
        for run in 0..<runCount {
            for layer in layers {
                if run > 0 {
                    // The previous run's database was closed with its iteration; drop its files.
                    try LayerLoader.deleteFiles(layer, path: file(directory, run: run - 1, layer))
                }
                let (database, timing) = try LayerLoader.load(
                    layer, path: file(directory, run: run, layer), configuration: configuration)
                total[layer, default: Samples()].append(timing.totalNanos)
                commit[layer, default: Samples()].append(timing.commitNanos)
                try checkRecordCount(database, expected: configuration.recordCount)
                if run == runCount - 1 {
                    kept.append(database)
                } else {
                    database.close()
                }
            }
        }
        for layer in layers {
            guard let total = total[layer], let commit = commit[layer] else {
                preconditionFailure("every layer ran every run")
            }
            record(layer: layer, total: total, commit: commit, configuration, report)
        }
        report.recordLayerRatios(.bulkInsert)
        precondition(kept.count == layers.count, "the last run keeps one database per layer")
        return kept
    }

    private static func file(_ directory: BenchDirectory, run: Int, _ layer: BenchLayer)
        -> String
    {
        directory.file("bulk-\(run)." + layer.fileExtension)
    }

    private static func record(
        layer: BenchLayer, total: Samples, commit: Samples, _ configuration: BenchConfiguration,
        _ report: Report
    ) {
        let records = Double(configuration.recordCount)
        report.record(
            .bulkInsert, layer: layer, "total_ms", total.median / 1e6, unit: "ms",
            kind: .duration)
        report.record(
            .bulkInsert, layer: layer, "ns_per_record", total.median / records, unit: "ns",
            kind: .duration)
        report.record(
            .bulkInsert, layer: layer, "commit_ms", commit.median / 1e6, unit: "ms",
            kind: .duration)
        report.record(
            .bulkInsert, layer: layer, "records_per_s", records / (total.median / 1e9),
            unit: "records/s", kind: .rate)
    }

    private static func checkRecordCount(_ database: any LayerDatabase, expected: Int) throws {
        let recordCount = try database.recordCount()
        guard recordCount == expected else {
            throw BenchError.wrongResult(
                workload: .bulkInsert,
                detail: "\(database.layer.name) layer: \(recordCount) records after inserting"
                    + " \(expected)")
        }
    }
}
