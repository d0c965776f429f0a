import StrataStorage

/// `bulk_insert`: N records in one durable transaction, on a fresh file each run.
///
/// Peer row a. of notes/peer-baselines.md. Each run creates its own file (`bulk-<run>.strata`)
/// so no run inherits another's free space; each run's files are deleted when the next starts,
/// and the last run's database serves the following workloads.
enum BulkInsertWorkload {
    /// Runs the workload (or, when it is not selected, loads once untimed) and returns the
    /// database the other workloads use.
    static func run(
        configuration: BenchConfiguration, directory: BenchDirectory, report: Report
    ) throws -> BenchDatabase {
        guard configuration.runs(.bulkInsert) else {
            report.progress("loading \(configuration.recordCount) records (untimed)")
            return try BenchLoader.load(
                path: directory.file("bench.strata"), recordCount: configuration.recordCount,
                options: configuration.storeOptions
            ).database
        }
        let runCount = configuration.runCount(.bulkInsert)
        report.progress("bulk_insert: \(runCount) runs of \(configuration.recordCount) records")
        var total = Samples()
        var commit = Samples()
        var kept: BenchDatabase?
        for run in 0..<runCount {
            if run > 0 {
                // The previous run's store was released with its iteration; drop its files.
                try Store.deleteFiles(path: directory.file("bulk-\(run - 1).strata"))
            }
            let path = directory.file("bulk-\(run).strata")
            let (database, timing) = try BenchLoader.load(
                path: path, recordCount: configuration.recordCount,
                options: configuration.storeOptions)
            total.append(timing.totalNanos)
            commit.append(timing.commitNanos)
            try checkRowCount(database, expected: configuration.recordCount)
            if run == runCount - 1 {
                kept = database
            } else {
                database.close()
            }
        }
        let records = Double(configuration.recordCount)
        report.record(.bulkInsert, "total_ms", total.median / 1e6, unit: "ms", kind: .duration)
        report.record(
            .bulkInsert, "ns_per_record", total.median / records, unit: "ns", kind: .duration)
        report.record(.bulkInsert, "commit_ms", commit.median / 1e6, unit: "ms", kind: .duration)
        report.record(
            .bulkInsert, "records_per_s", records / (total.median / 1e9), unit: "records/s",
            kind: .rate)
        guard let kept else { preconditionFailure("the last run keeps its database") }
        return kept
    }

    private static func checkRowCount(_ database: BenchDatabase, expected: Int) throws {
        let read = try database.store.beginRead()
        defer { read.end() }
        let rowCount = read.table(id: database.tableID)?.rowCount ?? -1
        guard rowCount == expected else {
            throw BenchError.wrongResult(
                workload: .bulkInsert, detail: "\(rowCount) rows after inserting \(expected)")
        }
    }
}
