/// One run of the bench: the selected workloads, in order, over one shared database per layer.
///
/// ```
///   prepare directory ─▶ bulk_insert (or an untimed load) ─▶ [file_size after bulk_insert]
///   ─▶ durable_commit ─▶ [file_size after it] ─▶ scan ─▶ scan_parts ─▶ lookup ─▶ snapshot
///   ─▶ filtered_count ─▶ indexed_lookup ─▶ scan_memory ─▶ list_append, list_iterate
///   ─▶ update_all ─▶ observer_latency
///   ─▶ concurrent ─▶ [file_size after it] ─▶ close, remove a temporary directory
/// ```
/// Workloads not selected are skipped; the load always happens because every workload needs
/// the records (indexed_lookup and the List workloads load databases of their own besides,
/// untimed). `file_size` reports at each point whose workload ran. With `--layer both`
/// every workload runs on both layers, alternating run by run, except `concurrent` and
/// `file_size`, which run on the engine only, and list_append, list_iterate and
/// observer_latency, which run on the object layer only (each is skipped, with a note, when
/// its layer does not run). With `--peers`, the peers run the peers' workloads only
/// (`BenchConfiguration.peerWorkloads`); the others run on Strata's layers, with a note.
struct BenchRun {
    let configuration: BenchConfiguration
    let report: Report

    func run(buildConfiguration: String) throws {
        let directory = try BenchDirectory.prepare(given: configuration.directory)
        for workload in configuration.skippedEngineOnlyWorkloads {
            report.note(
                "\(workload.name) skipped: it runs on the engine layer only (--layer engine or"
                    + " both)")
        }
        for workload in configuration.skippedObjectOnlyWorkloads {
            report.note(
                "\(workload.name) skipped: it runs on the object layer only (--layer object or"
                    + " both)")
        }
        for workload in configuration.workloadsWithoutPeers {
            report.note(
                "\(workload.name): not measured for the peers (lmdb, sqlite): Strata's layers"
                    + " only")
        }
        do {
            try runWorkloads(in: directory)
        } catch {
            try? directory.removeIfTemporary()
            throw error
        }
        try directory.removeIfTemporary()
        report.finish(directory: directory, buildConfiguration: buildConfiguration)
    }

    private func runWorkloads(in directory: BenchDirectory) throws {
        let databases = try BulkInsertWorkload.run(
            configuration: configuration, directory: directory, report: report)
        defer {
            for database in databases { database.close() }
        }
        // The engine-only workloads, on the engine's database when that layer runs.
        let engine = databases.lazy.compactMap { $0 as? BenchDatabase }.first
        let sizes = configuration.runs(.fileSize) ? engine : nil
        if let sizes {
            try FileSizeWorkload.record(.afterBulkInsert, database: sizes, report: report)
        }
        if configuration.runs(.durableCommit) {
            try DurableCommitWorkload.run(
                databases: databases, configuration: configuration, directory: directory,
                report: report)
            if let sizes {
                try FileSizeWorkload.record(.afterDurableCommit, database: sizes, report: report)
            }
        }
        if configuration.runs(.scan) {
            try ScanWorkload.run(
                databases: databases, configuration: configuration, report: report)
        }
        if configuration.runs(.scanParts), let realm = databases.lazy.compactMap({ $0 as? BenchRealm }).first {
            try ScanPartsWorkload.run(database: realm, configuration: configuration, report: report)
        }
        if configuration.runs(.lookup) {
            try LookupWorkloads.runLookup(
                databases: databases, configuration: configuration, report: report)
        }
        if configuration.runs(.snapshot) {
            try LookupWorkloads.runSnapshot(
                databases: databases, configuration: configuration, report: report)
        }
        try runObjectLayerWorkloads(databases, in: directory)
        if configuration.runs(.concurrent), let engine {
            try ConcurrentWorkload.run(
                database: engine, configuration: configuration, report: report)
            if let sizes {
                try FileSizeWorkload.record(.afterConcurrent, database: sizes, report: report)
            }
        }
    }

    /// The workloads of the object layer's performance work, in `Workload` order: the read
    /// workloads, then the ones that change ages (update_all, observer_latency).
    private func runObjectLayerWorkloads(_ databases: [any LayerDatabase], in directory: BenchDirectory)
        throws
    {
        let strata = databases.strataLayers
        let realm = databases.lazy.compactMap { $0 as? BenchRealm }.first
        if configuration.runs(.filteredCount) {
            try FilteredCountWorkload.run(
                databases: strata, configuration: configuration, report: report)
        }
        if configuration.runs(.aggregateSum) {
            try AggregateSumWorkload.run(databases: strata, configuration: configuration, report: report)
        }
        if configuration.runs(.indexedLookup) {
            try IndexedLookupWorkload.run(
                configuration: configuration, directory: directory, report: report)
        }
        if configuration.runs(.scanMemory) {
            try ScanMemoryWorkload.run(databases: strata, configuration: configuration, report: report)
        }
        if configuration.runs(.listAppend) || configuration.runs(.listIterate), realm != nil {
            try ListWorkloads.run(configuration: configuration, directory: directory, report: report)
        }
        if configuration.runs(.setInsert) || configuration.runs(.setContains), realm != nil {
            try SetWorkloads.run(configuration: configuration, directory: directory, report: report)
        }
        if configuration.runs(.mapUpdate) || configuration.runs(.mapLookup), realm != nil {
            try MapWorkloads.run(configuration: configuration, directory: directory, report: report)
        }
        if configuration.runs(.updateAll) {
            try UpdateAllWorkload.run(databases: strata, configuration: configuration, report: report)
        }
        if configuration.runs(.observerLatency), let realm {
            try ObserverLatencyWorkload.run(
                database: realm, configuration: configuration, report: report)
        }
    }
}
