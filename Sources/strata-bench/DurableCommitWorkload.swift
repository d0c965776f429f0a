/// `durable_commit`: C transactions of one insert each, every commit durable.
///
/// Peer row b. of notes/peer-baselines.md. A commit's latency is timed from `beginWrite` to the
/// return of `commit` (on the object layer, the whole one-object `realm.write { }`). After each
/// commit the bench makes one `FsyncProbe` measurement, so the floor and the commits see the
/// same disk minute; `latency_over_fsync_floor` (median commit latency ÷ median probe) is the
/// figure to compare with LMDB's 2.4× and SQLite FULL's 1.4×. With both layers the commits
/// alternate (engine, probe, object, probe, ...), so both layers see the same minute too.
/// The inserted ids continue after the bulk load (the peers add ids 100,001 ... 101,000).
enum DurableCommitWorkload {
    static func run(
        databases: [any LayerDatabase], configuration: BenchConfiguration,
        directory: BenchDirectory, report: Report
    ) throws {
        let commitCount = configuration.commitCount
        report.progress(
            "durable_commit: \(commitCount) commits, each followed by an fsync probe"
                + configuration.layerProgressSuffix)
        let probe = try FsyncProbe(path: directory.file("fsync-probe"))
        try probe.warmUp(count: BenchConfiguration.fsyncWarmUpCount)
        var latency: [BenchLayer: Samples] = [:]
        var floor: [BenchLayer: Samples] = [:]
        guard let firstID = databases.first.map({ $0.lastID + 1 }) else {
            preconditionFailure("a run has at least one layer")
        }
        precondition(
            databases.allSatisfy { $0.lastID + 1 == firstID }, "the layers hold the same records")
        for database in databases {
            latency[database.layer, default: Samples()].reserveCapacity(commitCount)
            floor[database.layer, default: Samples()].reserveCapacity(commitCount)
        }
        for offset in 0..<Int64(commitCount) {
            for database in databases {
                let nanos = try database.commitOne(id: firstID + offset)
                latency[database.layer, default: Samples()].append(nanos)
                floor[database.layer, default: Samples()].append(try probe.measureOnce())
            }
        }
        for database in databases {
            database.appended(throughID: firstID + Int64(commitCount) - 1)
            try checkRecordCount(database)
            guard let latency = latency[database.layer], let floor = floor[database.layer] else {
                preconditionFailure("every layer made every commit")
            }
            record(layer: database.layer, latency: latency, floor: floor, report: report)
        }
        report.recordLayerRatios(.durableCommit)
    }

    private static func record(
        layer: BenchLayer, latency: Samples, floor: Samples, report: Report
    ) {
        let medianNanos = latency.median
        let floorNanos = floor.median
        report.record(
            .durableCommit, layer: layer, "latency_median_us", medianNanos / 1e3, unit: "us",
            kind: .duration)
        report.record(
            .durableCommit, layer: layer, "latency_p99_us", latency.percentile(99) / 1e3,
            unit: "us", kind: .duration)
        report.record(
            .durableCommit, layer: layer, "commits_per_s",
            Double(latency.count) / (latency.sum / 1e9), unit: "commits/s", kind: .rate)
        report.record(
            .durableCommit, layer: layer, "fsync_floor_us", floorNanos / 1e3, unit: "us",
            kind: .duration)
        report.record(
            .durableCommit, layer: layer, "fsync_floor_p99_us", floor.percentile(99) / 1e3,
            unit: "us", kind: .duration)
        report.record(
            .durableCommit, layer: layer, "latency_over_fsync_floor", medianNanos / floorNanos,
            unit: "x", kind: .ratioLowerIsBetter)
    }

    private static func checkRecordCount(_ database: any LayerDatabase) throws {
        let recordCount = try database.recordCount()
        guard recordCount == Int(database.lastID) else {
            throw BenchError.wrongResult(
                workload: .durableCommit,
                detail: "\(database.layer.name) layer: \(recordCount) records, expected ids"
                    + " 1...\(database.lastID)")
        }
    }
}
