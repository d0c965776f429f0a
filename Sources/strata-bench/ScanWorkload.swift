import StrataStorage

/// `scan`: one full scan of the table in key order, reading `id` and `age` and touching the
/// name's bytes (its length and last byte), in ns per record; the median of 5 scans.
///
/// Peer row c. of notes/peer-baselines.md (LMDB and SQLite sum `age`; realm-core's row reads
/// `age` and a name byte, as this one does). Each scan checks what it read: the record count,
/// the sums of ids and ages, and 16 name bytes per record, so a wrong scan fails the run
/// instead of printing a fast figure. The object layer's scan (`BenchRealm.scanAll`) iterates
/// `realm.objects(BenchPerson.self)` and reads the same fields; the same check applies.
enum ScanWorkload {
    /// What one scan accumulated.
    struct Totals: Equatable {
        var recordCount = 0
        var idSum: Int64 = 0
        var ageSum: Int64 = 0
        var nameByteCount = 0
        var nameLastByteSum = 0
    }

    /// Runs the scans, alternating the layers scan by scan; each layer reports its median.
    static func run(
        databases: [any LayerDatabase], configuration: BenchConfiguration, report: Report
    ) throws {
        let runCount = configuration.runCount(.scan)
        let lastID = databases.first?.lastID ?? 0
        report.progress(
            "scan: \(runCount) full scans of \(lastID) records" + configuration.layerProgressSuffix)
        var nanosPerRecord: [BenchLayer: Samples] = [:]
        for _ in 0..<runCount {
            for database in databases {
                let (totals, nanos) = try database.measureScan()
                try check(totals, lastID: database.lastID, layer: database.layer)
                nanosPerRecord[database.layer, default: Samples()]
                    .append(nanos / Double(totals.recordCount))
            }
        }
        for database in databases {
            guard let samples = nanosPerRecord[database.layer] else {
                preconditionFailure("every layer scanned")
            }
            report.record(
                .scan, layer: database.layer, "ns_per_record", samples.median, unit: "ns",
                kind: .duration)
        }
        report.recordLayerRatios(.scan)
    }

    /// The scan itself: the timed loop. Never inlined, so that profilers can attribute it
    /// (`valgrind --toggle-collect`).
    @inline(never)
    static func scanAll(_ read: ReadTransaction, _ table: TableInfo) throws -> Totals {
        var totals = Totals()
        try read.forEachRow(table) { _, row in
            totals.idSum &+= try row.int(at: PersonRecord.idColumn) ?? 0
            totals.ageSum &+= try row.int(at: PersonRecord.ageColumn) ?? 0
            let touched: Void? = try row.withInlineBytes(at: PersonRecord.nameColumn) { name in
                totals.nameByteCount &+= name.count
                totals.nameLastByteSum &+= Int(name.last ?? 0)
            }
            if touched == nil { totals.nameByteCount = Int.min }  // not inline: fail the check
            totals.recordCount += 1
            return true
        }
        return totals
    }

    /// Compares a scan's totals with what the loaders wrote (`1...lastID`, no updates).
    static func check(_ totals: Totals, lastID: Int64, layer: BenchLayer) throws(BenchError) {
        let count = Int(lastID)
        let idSum = lastID * (lastID + 1) / 2
        let ageSum = PersonRecord.ageSum(throughID: lastID)
        guard totals.recordCount == count, totals.idSum == idSum, totals.ageSum == ageSum,
            totals.nameByteCount == count * PersonRecord.nameByteCount
        else {
            throw BenchError.wrongResult(
                workload: .scan,
                detail: "\(layer.name) layer: read \(totals.recordCount) records, id sum "
                    + "\(totals.idSum), age sum \(totals.ageSum), name bytes "
                    + "\(totals.nameByteCount); expected \(count), \(idSum), \(ageSum), "
                    + "\(count * PersonRecord.nameByteCount)")
        }
    }
}
