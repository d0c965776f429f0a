import StrataCommandLine

/// The report of a `--peers` run: LMDB's and SQLite's figures measured in the same run, their
/// ratios to Strata's, and a table whose LMDB and SQLite columns hold them instead of the
/// notes' constants (PeerBaselines); the Realm column stays the notes', labelled so.
extension Report {
    /// Records Strata's figure over each peer's for every metric of `workload` that a Strata
    /// layer and the peer both reported (but the fsync floors, which measure the disk): for a
    /// duration, above 1 means Strata takes that factor longer. Nothing without `--peers`.
    func recordPeerRatios(_ workload: Workload) {
        guard configuration.measuresPeers else { return }
        let ofWorkload = measurements.filter { $0.workload == workload }
        for strata in ofWorkload where strata.layer == .engine || strata.layer == .object {
            guard !strata.metric.hasPrefix("fsync_floor") else { continue }
            for peer in [ReportedLayer.lmdb, .sqlite] {
                let figure = ofWorkload.first { $0.layer == peer && $0.metric == strata.metric }
                guard let figure, figure.value > 0 else { continue }
                precondition(figure.unit == strata.unit, "\(strata.metric): the units differ")
                append(
                    Measurement(
                        workload: workload, layer: Self.ratioLayer(strata.layer, over: peer),
                        metric: strata.metric, value: strata.value / figure.value, unit: "x",
                        kind: strata.kind.lowerIsBetter ? .ratioLowerIsBetter : .ratioHigherIsBetter))
            }
        }
    }

    private static func ratioLayer(_ strata: ReportedLayer, over peer: ReportedLayer) -> ReportedLayer {
        switch (strata, peer) {
        case (.engine, .lmdb): return .engineOverLMDB
        case (.engine, .sqlite): return .engineOverSQLite
        case (.object, .lmdb): return .objectOverLMDB
        case (.object, .sqlite): return .objectOverSQLite
        default: preconditionFailure("no ratio of \(strata.name) over \(peer.name)")
        }
    }

    /// The peer's figure of the same workload and metric, measured in this run.
    private func peerFigure(_ measurement: Measurement, _ peer: ReportedLayer) -> Double? {
        measurements.first {
            $0.layer == peer && $0.workload == measurement.workload && $0.metric == measurement.metric
        }?.value
    }

    /// The table of a `--peers` run: one row per figure of Strata's layers (and object/engine);
    /// the peers' figures and the comparisons with them in columns. Where the peers measured
    /// nothing (concurrent, file_size), the notes' figure is shown with a `*`, at the notes'
    /// data-set size only.
    func peerTable() -> TextTable {
        let header = [
            "workload", "metric", "layer", "Strata", "unit", "LMDB", "SQLite FULL", "Realm (notes)",
            "vs LMDB", "vs SQLite",
        ]
        var table = TextTable(header: header, numericColumns: [3, 5, 6, 7, 8, 9])
        let showsNotes = configuration.matchesPeerShape
        let strataLayers: [ReportedLayer] = [.engine, .object, .objectOverEngine]
        for measurement in tableOrder() where strataLayers.contains(measurement.layer) {
            let isRatio = measurement.layer == .objectOverEngine
            let lmdb = isRatio ? nil : peerFigure(measurement, .lmdb)
            let sqlite = isRatio ? nil : peerFigure(measurement, .sqlite)
            let notes = showsNotes && !isRatio ? PeerBaselines.figures(measurement) : nil
            let comparable = !measurement.metric.hasPrefix("fsync_floor")
            func measuredOrNotes(_ measured: Double?, _ noted: Double?) -> String {
                if let measured { return NumberText.compact(measured) }
                return noted.map { NumberText.compact($0) + "*" } ?? ""
            }
            func versus(_ peer: Double?) -> String {
                guard comparable, let peer else { return "" }
                return Self.comparison(measurement, lmdb: peer)
            }
            table.addRow([
                measurement.workload.name,
                measurement.metric,
                measurement.layer.name,
                NumberText.compact(measurement.value),
                measurement.unit,
                measuredOrNotes(lmdb, notes?.lmdb),
                measuredOrNotes(sqlite, notes?.sqliteFull),
                notes?.realm.map(NumberText.compact) ?? "",
                versus(lmdb),
                versus(sqlite),
            ])
        }
        return table
    }

    /// The preamble's line naming the peers and their versions (nothing without `--peers`).
    func peerPreamble() -> [String] {
        guard let libraries = configuration.peerLibraries else { return [] }
        return [
            "Peers measured in this run: \(libraries.versionSummary), alternating with Strata run by run"
                + " (commit by commit for durable_commit)."
        ]
    }

    /// Printed under a `--peers` table instead of the notes' citation.
    func peerFootnotes() -> [String] {
        var lines = [
            "LMDB, SQLite FULL: measured in this run on the same records, each checked as Strata's are.",
            "  LMDB: default flags (every commit durable) + MDB_NOSUBDIR, MDB_INTEGERKEY (native int64 keys),",
            "  plain mdb_put; snapshot = mdb_txn_renew + mdb_get + mdb_txn_reset on one read handle.",
            "  SQLite: WAL, synchronous=FULL, cache_size=-65536, prepared statements reused;",
            "  snapshot = BEGIN + SELECT age WHERE id=? + COMMIT.",
            "vs LMDB, vs SQLite: Strata's figure against the peer's of this run (the JSON lines'",
            "  engine/lmdb, engine/sqlite, ... = Strata's figure / the peer's).",
        ]
        if configuration.matchesPeerShape {
            lines += [
                "* not measured by --peers (concurrent, file_size): Docs/peer-baselines.md part 1.",
                "Realm (notes): Docs/peer-baselines.md part 2 (realm-core 20.1.5, Durability::Full,",
                "  in-realm history; medians of 6 runs): realm-core cannot be loaded at run time.",
            ]
        } else {
            lines.append(
                "Realm (notes) is blank: the notes measured it with 100000 records and 1000 commits.")
        }
        return lines
    }
}
