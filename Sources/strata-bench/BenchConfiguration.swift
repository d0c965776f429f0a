import StrataCommandLine
import StrataStorage

/// What one run measures and how big it is, read from the command line.
struct BenchConfiguration: Sendable {
    /// Records of the bulk load (`--records`).
    var recordCount: Int
    /// One-insert durable transactions of `durable_commit` (`--commits`).
    var commitCount: Int
    /// Length of each of the three phases of `concurrent` (`--seconds`).
    var concurrentPhaseSeconds: Double
    /// The workloads to run (`--only`); all of them by default.
    var workloads: Set<Workload>
    /// JSON lines instead of the text table (`--json`).
    var emitsJSON: Bool
    /// Where the files go (`--dir`); nil for a fresh temporary directory.
    var directory: String?
    /// Runs of every micro-workload (`--runs`); nil for each one's own default.
    var runCountOverride: Int?
    /// How the bench opens its stores: the engine's defaults, except `--max-file-mib`.
    /// The object layer's realms always use the engine's defaults (Realm.Configuration has no
    /// such setting).
    var storeOptions: StoreOptions
    /// The layers measured (`--layer`), in the order each round runs them: engine first,
    /// then, with `--peers`, the peers (`BenchLayer.peers`).
    var layers: [BenchLayer]
    /// One-object commits of `observer_latency`: `--commits` when given, else
    /// `observerCommitCountDefault` (each waits for its callback).
    var observerCommitCount: Int
    /// The sonames or paths `--peers` loads (`--lmdb-library`, `--sqlite-library`).
    var lmdbLibraryName = PeerLibraries.lmdbDefaultName
    var sqliteLibraryName = PeerLibraries.sqliteDefaultName
    /// The peers' functions, loaded by `main` before the run when `measuresPeers`.
    var peerLibraries: PeerLibraries?

    static let recordCountDefault = 100_000
    static let recordCountMax = 10_000_000
    static let commitCountDefault = 1_000
    static let commitCountMax = 1_000_000
    static let observerCommitCountDefault = 200
    static let concurrentPhaseSecondsDefault = 5.0
    static let concurrentPhaseSecondsMax = 3_600.0

    /// Runs per micro-workload by default; each reports the median of its runs.
    static let runCountDefaults: [Workload: Int] = [
        .bulkInsert: 3, .scan: 5, .scanParts: 5, .lookup: 3, .snapshot: 3, .filteredCount: 5, .aggregateSum: 5,
        .indexedLookup: 5,
        .listAppend: 1, .listIterate: 5, .setInsert: 1, .setContains: 5, .mapUpdate: 1, .mapLookup: 5,
        .updateAll: 3,
    ]
    static let runCountMax = 10_000
    /// Bounds of `--max-file-mib`: the data set must fit, and the address space must exist.
    static let maximumFileMiBRange = 16...(1 << 26)
    /// pwrite+fdatasync probes made before the timed commits, so the first ones are not cold.
    static let fsyncWarmUpCount = 20

    /// Whether the peer figures of the notes describe the same data set (they were measured
    /// with 100,000 records and 1,000 commits; other sizes change tree depth and scan length).
    var matchesPeerShape: Bool {
        recordCount == Self.recordCountDefault && commitCount == Self.commitCountDefault
    }

    /// Strata's own layers among `layers` (`--layer`).
    var strataLayers: [BenchLayer] {
        layers.filter { !$0.isPeer }
    }

    /// Whether `--peers` was given: LMDB and SQLite run beside Strata's layers.
    var measuresPeers: Bool {
        layers.contains { $0.isPeer }
    }

    /// The workloads the peers run (the others run on Strata's engine only).
    static let peerWorkloads: [Workload] = [.bulkInsert, .durableCommit, .scan, .lookup, .snapshot]

    func runs(_ workload: Workload) -> Bool {
        workloads.contains(workload)
    }

    /// Whether figures name their layer (the JSON `layer` field, the table's layer column):
    /// whenever the object layer runs, so that `--layer engine` prints what it always printed.
    var reportsLayers: Bool {
        layers != [.engine]
    }

    /// The selected workloads that have no object-layer version, when the engine does not run
    /// (so they are skipped); empty otherwise.
    var skippedEngineOnlyWorkloads: [Workload] {
        guard !layers.contains(.engine) else { return [] }
        return BenchLayer.engineOnlyWorkloads.filter { runs($0) }
    }

    /// The selected workloads that have no engine-layer version, when the object layer does
    /// not run (so they are skipped); empty otherwise.
    var skippedObjectOnlyWorkloads: [Workload] {
        guard !layers.contains(.object) else { return [] }
        return BenchLayer.objectOnlyWorkloads.filter { runs($0) }
    }

    /// The selected workloads the peers have no version of, when `--peers` runs; they run on
    /// Strata's layers only.
    var workloadsWithoutPeers: [Workload] {
        guard measuresPeers else { return [] }
        return Workload.allCases.filter { runs($0) && !Self.peerWorkloads.contains($0) }
    }

    /// Appended to a workload's progress line: which layers it runs, and how.
    var layerProgressSuffix: String {
        switch layers {
        case [.engine]: return ""
        case [.object]: return " (object layer)"
        default: return " (layers alternating: " + layers.map(\.name).joined(separator: ", ") + ")"
        }
    }

    /// How many times to run a micro-workload (the median of the runs is reported).
    func runCount(_ workload: Workload) -> Int {
        guard let defaultCount = Self.runCountDefaults[workload] else {
            preconditionFailure("\(workload.name) is not a repeated micro-workload")
        }
        return runCountOverride ?? defaultCount
    }

    /// "bulk_insert 3, scan 5, lookup 3, snapshot 3" for the selected micro-workloads, with
    /// `--runs` applied; nil when none is selected.
    var runCountSummary: String? {
        let parts = Workload.allCases.compactMap { workload -> String? in
            guard runs(workload), Self.runCountDefaults[workload] != nil else { return nil }
            return "\(workload.name) \(runCount(workload))"
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

extension BenchConfiguration {
    /// Reads the options of `strata-bench`.
    /// - Throws: a usage error (exit 2) for an unknown workload or an out-of-range number.
    init(_ command: ParsedCommand) throws(UsageError) {
        recordCount = try command.int(
            "records", default: Self.recordCountDefault, range: 1...Self.recordCountMax)
        commitCount = try command.int(
            "commits", default: Self.commitCountDefault, range: 1...Self.commitCountMax)
        concurrentPhaseSeconds = try command.double(
            "seconds", default: Self.concurrentPhaseSecondsDefault)
        guard concurrentPhaseSeconds > 0, concurrentPhaseSeconds <= Self.concurrentPhaseSecondsMax
        else {
            throw command.usageError(
                "--seconds must be above 0 and at most \(Int(Self.concurrentPhaseSecondsMax))"
                    + " (got \(concurrentPhaseSeconds))")
        }
        layers = try Self.layers(command)
        workloads = try Self.workloads(command, layers: layers)
        observerCommitCount =
            try command.int("commits", range: 1...Self.commitCountMax)
            ?? Self.observerCommitCountDefault
        emitsJSON = command.flag("json")
        runCountOverride = try command.int("runs", range: 1...Self.runCountMax)
        storeOptions = StoreOptions()
        if let mebibytes = try command.int("max-file-mib", range: Self.maximumFileMiBRange) {
            storeOptions.maximumFileSizeBytes = mebibytes << 20
        }
        directory = command.value("dir")
        if let directory, directory.isEmpty {
            throw command.usageError("--dir must not be empty")
        }
        try readPeerOptions(command)
    }

    /// The layers of `--layer` (engine when it is not given).
    private static func layers(_ command: ParsedCommand) throws(UsageError) -> [BenchLayer] {
        guard let given = command.value("layer") else { return LayerSelection.engine.layers }
        guard let selection = LayerSelection(rawValue: given) else {
            throw command.usageError(
                "unknown layer '\(given)' (valid: \(LayerSelection.nameList))")
        }
        return selection.layers
    }

    /// `--peers` and the library options: the peers join `layers`; they need a peer workload.
    private mutating func readPeerOptions(_ command: ParsedCommand) throws(UsageError) {
        let lmdbName = command.value("lmdb-library")
        let sqliteName = command.value("sqlite-library")
        guard command.flag("peers") else {
            if lmdbName != nil || sqliteName != nil {
                throw command.usageError("--lmdb-library and --sqlite-library need --peers")
            }
            return
        }
        guard Self.peerWorkloads.contains(where: { runs($0) }) else {
            throw command.usageError(
                "--peers measures " + Self.peerWorkloads.map(\.name).joined(separator: ", ")
                    + "; --only selects none of them")
        }
        for name in [lmdbName, sqliteName] where name?.isEmpty == true {
            throw command.usageError("--lmdb-library and --sqlite-library must not be empty")
        }
        lmdbLibraryName = lmdbName ?? lmdbLibraryName
        sqliteLibraryName = sqliteName ?? sqliteLibraryName
        layers += BenchLayer.peers
    }

    /// The union of every `--only` value, each a comma-separated list of names. Without
    /// `--only`: every workload that runs by default and has a version on one of `layers`
    /// (so a default engine run leaves out the object-only workloads without a note).
    private static func workloads(_ command: ParsedCommand, layers: [BenchLayer]) throws(UsageError)
        -> Set<Workload>
    {
        let given = command.values("only")
        guard !given.isEmpty else {
            return Set(
                Workload.allCases.filter { workload in
                    workload.runsByDefault && layers.contains { $0.runs(workload) }
                })
        }
        var chosen: Set<Workload> = []
        for list in given {
            for name in list.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = name.trimmingASCIISpaces()
                guard let workload = Workload(rawValue: trimmed) else {
                    throw command.usageError(
                        "unknown workload '\(trimmed)' (valid: \(Workload.nameList))")
                }
                chosen.insert(workload)
            }
        }
        return chosen
    }
}

extension Substring {
    fileprivate func trimmingASCIISpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
