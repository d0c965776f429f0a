import StrataStorage

/// `durable_commit`: C transactions of one insert each, every commit durable.
///
/// Peer row b. of notes/peer-baselines.md. A commit's latency is timed from `beginWrite` to the
/// return of `commit`. After each commit the bench makes one `FsyncProbe` measurement, so the
/// floor and the commits see the same disk minute; `latency_over_fsync_floor` (median commit
/// latency ÷ median probe) is the figure to compare with LMDB's 2.4× and SQLite FULL's 1.4×.
/// The inserted ids continue after the bulk load (the peers add ids 100,001 ... 101,000).
enum DurableCommitWorkload {
    static func run(
        database: BenchDatabase, configuration: BenchConfiguration, directory: BenchDirectory,
        report: Report
    ) throws {
        let commitCount = configuration.commitCount
        report.progress("durable_commit: \(commitCount) commits, each followed by an fsync probe")
        let probe = try FsyncProbe(path: directory.file("fsync-probe"))
        try probe.warmUp(count: BenchConfiguration.fsyncWarmUpCount)
        var latency = Samples()
        var floor = Samples()
        latency.reserveCapacity(commitCount)
        floor.reserveCapacity(commitCount)
        let firstID = database.lastID + 1
        for offset in 0..<Int64(commitCount) {
            let id = firstID + offset
            let (_, nanos) = try measureNanos { () throws(StorageError) in
                let write = try database.store.beginWrite()
                try write.insert(database.tableID, values: PersonRecord.values(id: id))
                try write.commit()
            }
            latency.append(nanos)
            floor.append(try probe.measureOnce())
        }
        database.appended(throughID: firstID + Int64(commitCount) - 1)
        try checkRowCount(database)
        record(latency: latency, floor: floor, report: report)
    }

    private static func record(latency: Samples, floor: Samples, report: Report) {
        let medianNanos = latency.median
        let floorNanos = floor.median
        report.record(
            .durableCommit, "latency_median_us", medianNanos / 1e3, unit: "us", kind: .duration)
        report.record(
            .durableCommit, "latency_p99_us", latency.percentile(99) / 1e3, unit: "us",
            kind: .duration)
        report.record(
            .durableCommit, "commits_per_s", Double(latency.count) / (latency.sum / 1e9),
            unit: "commits/s", kind: .rate)
        report.record(
            .durableCommit, "fsync_floor_us", floorNanos / 1e3, unit: "us", kind: .duration)
        report.record(
            .durableCommit, "fsync_floor_p99_us", floor.percentile(99) / 1e3, unit: "us",
            kind: .duration)
        report.record(
            .durableCommit, "latency_over_fsync_floor", medianNanos / floorNanos, unit: "x",
            kind: .ratioLowerIsBetter)
    }

    private static func checkRowCount(_ database: BenchDatabase) throws {
        let read = try database.store.beginRead()
        defer { read.end() }
        let rowCount = read.table(id: database.tableID)?.rowCount ?? -1
        guard rowCount == Int(database.lastID) else {
            throw BenchError.wrongResult(
                workload: .durableCommit,
                detail: "\(rowCount) rows, expected ids 1...\(database.lastID)")
        }
    }
}
