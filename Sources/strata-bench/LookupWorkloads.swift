import StrataStorage

/// `lookup` and `snapshot`: random primary-key reads, with one read transaction for all of
/// them or one per read.
///
/// Peer rows d. and e. of notes/peer-baselines.md. Keys come from `XorShift64` with its fixed
/// seed, uniform over every id present, the same sequence in every run. The timed loops only
/// sum the ages they read; an untimed replay of the key sequence then checks that sum, so a
/// missed or wrong row fails the run. The object layer's loops (`BenchRealm.lookUp`,
/// `BenchRealm.snapshotLookUp`) draw the same keys and are checked the same way.
enum LookupWorkloads {
    static func runLookup(
        databases: [any LayerDatabase], configuration: BenchConfiguration, report: Report
    ) throws {
        let lookupCount = configuration.recordCount
        let runCount = configuration.runCount(.lookup)
        report.progress(
            "lookup: \(runCount) runs of \(lookupCount) lookups in one read"
                + configuration.layerProgressSuffix)
        var nanosPerLookup: [BenchLayer: Samples] = [:]
        for _ in 0..<runCount {
            for database in databases {
                let (ageSum, nanos) = try database.measureLookups(count: lookupCount)
                try check(ageSum, .lookup, database, count: lookupCount)
                nanosPerLookup[database.layer, default: Samples()]
                    .append(nanos / Double(lookupCount))
            }
        }
        record(.lookup, "ns_per_lookup", nanosPerLookup, databases, report)
    }

    static func runSnapshot(
        databases: [any LayerDatabase], configuration: BenchConfiguration, report: Report
    ) throws {
        let snapshotCount = configuration.recordCount
        let runCount = configuration.runCount(.snapshot)
        report.progress(
            "snapshot: \(runCount) runs of \(snapshotCount) begin+lookup+end"
                + configuration.layerProgressSuffix)
        var nanosPerSnapshot: [BenchLayer: Samples] = [:]
        for _ in 0..<runCount {
            for database in databases {
                let (ageSum, nanos) = try database.measureSnapshots(count: snapshotCount)
                try check(ageSum, .snapshot, database, count: snapshotCount)
                nanosPerSnapshot[database.layer, default: Samples()]
                    .append(nanos / Double(snapshotCount))
            }
        }
        record(.snapshot, "ns_per_snapshot", nanosPerSnapshot, databases, report)
    }

    /// Each layer's median, then object/engine when both ran.
    private static func record(
        _ workload: Workload, _ metric: String, _ samples: [BenchLayer: Samples],
        _ databases: [any LayerDatabase], _ report: Report
    ) {
        for database in databases {
            guard let layerSamples = samples[database.layer] else {
                preconditionFailure("every layer ran every run")
            }
            report.record(
                workload, layer: database.layer, metric, layerSamples.median, unit: "ns",
                kind: .duration)
        }
        report.recordLayerRatios(workload)
    }

    /// `count` lookups in `read`; returns the sum of the ages found (-1 for each miss).
    /// Never inlined, so that profilers can attribute it (`valgrind --toggle-collect`).
    @inline(never)
    static func lookUp(_ read: ReadTransaction, _ table: TableInfo, count: Int, lastID: Int64)
        throws -> Int64
    {
        var random = XorShift64()
        var ageSum: Int64 = 0
        for _ in 0..<count {
            let id = random.nextID(upTo: lastID)
            let age = try read.withRow(table, key: ObjectKey(id)) { row in
                try row.int(at: PersonRecord.ageColumn) ?? -1
            }
            ageSum &+= age ?? -1
        }
        return ageSum
    }

    /// `count` times: begin a read, look one key up, end the read. Never inlined (profiling).
    @inline(never)
    static func snapshotLookUp(_ database: BenchDatabase, count: Int) throws -> Int64 {
        var random = XorShift64()
        var ageSum: Int64 = 0
        let lastID = database.lastID
        for _ in 0..<count {
            let read = try database.store.beginRead()
            guard let table = read.table(id: database.tableID) else {
                read.end()
                throw BenchError.wrongResult(workload: .snapshot, detail: "the table is missing")
            }
            let id = random.nextID(upTo: lastID)
            let age = try read.withRow(table, key: ObjectKey(id)) { row in
                try row.int(at: PersonRecord.ageColumn) ?? -1
            }
            ageSum &+= age ?? -1
            read.end()
        }
        return ageSum
    }

    /// Replays the key sequence and compares the sum of the ages the records should have.
    private static func check(
        _ ageSum: Int64, _ workload: Workload, _ database: any LayerDatabase, count: Int
    ) throws(BenchError) {
        let lastID = database.lastID
        var random = XorShift64()
        var expected: Int64 = 0
        for _ in 0..<count {
            expected &+= PersonRecord.age(id: random.nextID(upTo: lastID))
        }
        guard ageSum == expected else {
            throw BenchError.wrongResult(
                workload: workload,
                detail: "\(database.layer.name) layer: age sum \(ageSum) over \(count) lookups,"
                    + " expected \(expected)")
        }
    }
}
