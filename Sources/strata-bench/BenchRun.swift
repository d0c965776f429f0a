/// One run of the bench: the selected workloads, in order, over one shared database.
///
/// ```
///   prepare directory ─▶ bulk_insert (or an untimed load) ─▶ [file_size after bulk_insert]
///   ─▶ durable_commit ─▶ [file_size after it] ─▶ scan ─▶ lookup ─▶ snapshot
///   ─▶ concurrent ─▶ [file_size after it] ─▶ close, remove a temporary directory
/// ```
/// Workloads not selected are skipped; the load always happens because every workload needs
/// the records. `file_size` reports at each point whose workload ran.
struct BenchRun {
    let configuration: BenchConfiguration
    let report: Report

    func run(buildConfiguration: String) throws {
        let directory = try BenchDirectory.prepare(given: configuration.directory)
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
        let database = try BulkInsertWorkload.run(
            configuration: configuration, directory: directory, report: report)
        defer { database.close() }
        let sizes = configuration.runs(.fileSize)
        if sizes {
            try FileSizeWorkload.record(.afterBulkInsert, database: database, report: report)
        }
        if configuration.runs(.durableCommit) {
            try DurableCommitWorkload.run(
                database: database, configuration: configuration, directory: directory,
                report: report)
            if sizes {
                try FileSizeWorkload.record(.afterDurableCommit, database: database, report: report)
            }
        }
        if configuration.runs(.scan) {
            try ScanWorkload.run(
                database: database, configuration: configuration, report: report)
        }
        if configuration.runs(.lookup) {
            try LookupWorkloads.runLookup(
                database: database, configuration: configuration, report: report)
        }
        if configuration.runs(.snapshot) {
            try LookupWorkloads.runSnapshot(
                database: database, configuration: configuration, report: report)
        }
        if configuration.runs(.concurrent) {
            try ConcurrentWorkload.run(
                database: database, configuration: configuration, report: report)
            if sizes {
                try FileSizeWorkload.record(.afterConcurrent, database: database, report: report)
            }
        }
    }
}
