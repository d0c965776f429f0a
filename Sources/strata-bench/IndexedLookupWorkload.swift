/// `indexed_lookup`: equality queries on an indexed name, in ns per query, at 10,000 records
/// (`ns_per_query_10k`) and at `--records` (`ns_per_query`); the median of 5 runs of
/// `queryCount` queries per layer and size.
///
/// Both layers read through the engine's secondary index on the name (Spec W26). The object
/// layer queries `realm.objects(BenchIndexedPerson.self).where { $0.name == X }.first`, whose
/// name is `@Persisted(indexed: true)`; the engine layer asks `ReadTransaction.indexedKeys`
/// for the name column's candidates and reads the first candidate row holding the name. A
/// lookup through the index costs O(log n), so the two figures should be about equal (what
/// grows with the table is the tree's depth and the caches it misses); a scan would show
/// ns_per_query over ns_per_query_10k near N / 10,000.
///
/// The shared database of the other workloads has no index (one would change what they
/// measure): each size is a database of its own per layer, with the name indexed, loaded
/// untimed before its runs and deleted after them. The 10,000-record size runs only when
/// `--records` is above 10,000. The names are those of ids drawn in `1...size` from a
/// fixed-seed `XorShift64`, the same in every run and for both layers; each run's result is
/// checked (the sum of the ids found must be the sum of the ids drawn), so a wrong answer
/// fails the run.
enum IndexedLookupWorkload {
    static let smallRecordCount = 10_000
    /// Queries per run, at both sizes: each is cheap through the index.
    static let queryCount = 2_000
    static let seed: UInt64 = 0x1DE7_ED10_0C0F_FEE5

    static func run(configuration: BenchConfiguration, directory: BenchDirectory, report: Report)
        throws
    {
        if configuration.recordCount > smallRecordCount {
            try measure(
                recordCount: smallRecordCount, metric: "ns_per_query_10k",
                configuration: configuration, directory: directory, report: report)
        }
        try measure(
            recordCount: configuration.recordCount, metric: "ns_per_query",
            configuration: configuration, directory: directory, report: report)
        report.recordLayerRatios(.indexedLookup)
    }

    private static func file(_ directory: BenchDirectory, _ layer: BenchLayer, recordCount: Int)
        -> String
    {
        directory.file("indexed-\(recordCount)." + layer.fileExtension)
    }

    /// Loads each layer's indexed database of `recordCount` records, runs the queries on them
    /// (layers alternating, run by run), records the medians as `metric`, and deletes them.
    private static func measure(
        recordCount: Int, metric: String, configuration: BenchConfiguration,
        directory: BenchDirectory, report: Report
    ) throws {
        let layers = configuration.strataLayers
        precondition(!layers.isEmpty, "indexed_lookup runs on Strata's layers")
        report.progress(
            "indexed_lookup: loading \(recordCount) records with an indexed name (untimed)"
                + configuration.layerProgressSuffix)
        var databases: [any NameLookupDatabase] = []
        defer {
            for database in databases { database.close() }
            for layer in layers {
                let path = file(directory, layer, recordCount: recordCount)
                try? LayerLoader.deleteIndexedNameFiles(layer, path: path)
            }
        }
        for layer in layers {
            let path = file(directory, layer, recordCount: recordCount)
            databases.append(
                try LayerLoader.loadIndexedName(
                    layer, path: path, recordCount: recordCount, configuration: configuration))
        }
        let runCount = configuration.runCount(.indexedLookup)
        report.progress(
            "indexed_lookup: \(runCount) runs of \(queryCount) name queries over \(recordCount)"
                + " records" + configuration.layerProgressSuffix)
        var random = XorShift64(seed: seed)
        let ids = (0..<queryCount).map { _ in random.nextID(upTo: Int64(recordCount)) }
        let names = ids.map { PersonRecord.name(id: $0) }
        let expected = ids.reduce(0, +)
        var nanosPerQuery: [BenchLayer: Samples] = [:]
        for _ in 0..<runCount {
            for database in databases {
                precondition(database.lastID == Int64(recordCount), "the database holds every id")
                let (idSum, nanos) = try database.measureNameLookups(names)
                guard idSum == expected else {
                    throw BenchError.wrongResult(
                        workload: .indexedLookup,
                        detail: "\(database.layer.name) layer: id sum \(idSum) over"
                            + " \(queryCount) name queries in \(recordCount) records, expected"
                            + " \(expected)")
                }
                nanosPerQuery[database.layer, default: Samples()]
                    .append(nanos / Double(queryCount))
            }
        }
        for database in databases {
            guard let samples = nanosPerQuery[database.layer] else {
                preconditionFailure("every layer ran every run")
            }
            report.record(
                .indexedLookup, layer: database.layer, metric, samples.median, unit: "ns",
                kind: .duration)
        }
    }
}
