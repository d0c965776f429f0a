/// `indexed_lookup`: equality queries on the name, `where { $0.name == X }.first`, in ns per
/// query, at 10,000 records and at `--records`.
///
/// Strata has no secondary index yet (Docs/limits.md): the object layer's query scans the
/// table, and the engine layer does the same with its own scan (in key order, up to the first
/// row holding the name), so the figures show O(n) (ns_per_query over ns_per_query_10k near
/// N / 10,000) until an index exists. The names are those of ids drawn from a fixed-seed
/// `XorShift64`, the same in every run; each query's result is checked (the sum of the ids
/// found must be the sum of the ids drawn). The 10,000-record size is a database of its own per
/// layer, loaded untimed and deleted afterwards (only when `--records` is above 10,000).
enum IndexedLookupWorkload {
    static let smallRecordCount = 10_000
    /// About this many records are scanned per layer and size (at most one table per query).
    static let scannedRecordBudget = 2_000_000
    static let seed: UInt64 = 0x1DE7_ED10_0C0F_FEE5

    static func run(
        databases: [any StrataLayerDatabase], configuration: BenchConfiguration,
        directory: BenchDirectory, report: Report
    ) throws {
        let lastID = databases.first?.lastID ?? 0
        if configuration.recordCount > smallRecordCount {
            report.progress(
                "indexed_lookup: \(queryCount(recordCount: smallRecordCount)) name queries over"
                    + " \(smallRecordCount) records" + configuration.layerProgressSuffix)
            var small = configuration
            small.recordCount = smallRecordCount
            var smallDatabases: [any StrataLayerDatabase] = []
            defer {
                for database in smallDatabases { database.close() }
                for database in smallDatabases {
                    try? LayerLoader.deleteFiles(database.layer, path: file(directory, database.layer))
                }
            }
            for database in databases {
                let path = file(directory, database.layer)
                let loaded = try LayerLoader.load(database.layer, path: path, configuration: small)
                guard let strata = loaded.database as? any StrataLayerDatabase else {
                    preconditionFailure("Strata's layers load Strata's databases")
                }
                smallDatabases.append(strata)
            }
            try measure(smallDatabases, metric: "ns_per_query_10k", report: report)
        }
        report.progress(
            "indexed_lookup: \(queryCount(recordCount: Int(lastID))) name queries over \(lastID)"
                + " records" + configuration.layerProgressSuffix)
        try measure(databases, metric: "ns_per_query", report: report)
        report.recordLayerRatios(.indexedLookup)
    }

    private static func file(_ directory: BenchDirectory, _ layer: BenchLayer) -> String {
        directory.file("indexed-10k." + layer.fileExtension)
    }

    /// Queries per measurement: about `scannedRecordBudget` records scanned, 5 to 200.
    static func queryCount(recordCount: Int) -> Int {
        min(200, max(5, scannedRecordBudget / max(recordCount, 1)))
    }

    /// One timed pass of queries per layer, alternating, each checked.
    private static func measure(
        _ databases: [any StrataLayerDatabase], metric: String, report: Report
    ) throws {
        for database in databases {
            let lastID = database.lastID
            let count = queryCount(recordCount: Int(lastID))
            var random = XorShift64(seed: seed)
            var ids: [Int64] = []
            for _ in 0..<count { ids.append(random.nextID(upTo: lastID)) }
            let names = ids.map { PersonRecord.name(id: $0) }
            let (idSum, nanos) = try database.measureNameLookups(names)
            let expected = ids.reduce(0, +)
            guard idSum == expected else {
                throw BenchError.wrongResult(
                    workload: .indexedLookup,
                    detail: "\(database.layer.name) layer: id sum \(idSum) over \(count) name"
                        + " queries in \(lastID) records, expected \(expected)")
            }
            report.record(
                .indexedLookup, layer: database.layer, metric, nanos / Double(count), unit: "ns",
                kind: .duration)
        }
    }
}
