/// The API a workload runs through: the engine's transactions, or the Realm API on top of them.
///
/// `--layer engine` (the default) runs what strata-bench always ran. `--layer object` runs the
/// same workloads through `Realm`, `Object` and `Results` (Sources/Strata) on records of class
/// `BenchPerson`. `--layer both` runs each workload on both, interleaved run by run (commit by
/// commit for durable_commit), and reports object/engine: these machines are noisy, so the ratio
/// measured within one run is the figure to compare.
///
/// `lmdb` and `sqlite` are not Strata's layers but the peers `--peers` measures beside them
/// (LMDBPeer, SQLitePeer): they run the same workloads through `LayerDatabase`, in the same
/// rounds, after Strata's layers.
enum BenchLayer: String, CaseIterable, Sendable {
    case engine
    case object
    case lmdb
    case sqlite

    /// The command-line spelling, and the `layer` field of the report.
    var name: String { rawValue }

    /// The extension of this layer's database files (both layers may share one directory).
    var fileExtension: String {
        switch self {
        case .engine: return "strata"
        case .object: return "realm"
        case .lmdb: return "lmdb"
        case .sqlite: return "sqlite"
        }
    }

    /// Whether this is a peer measured by `--peers` rather than one of Strata's layers.
    var isPeer: Bool {
        switch self {
        case .engine, .object: return false
        case .lmdb, .sqlite: return true
        }
    }

    /// The peers, in the order each round runs them (after Strata's layers).
    static let peers: [BenchLayer] = [.lmdb, .sqlite]

    /// The workloads that have no object-layer version: they run on the engine only.
    static let engineOnlyWorkloads: [Workload] = [.concurrent, .fileSize]

    /// The workloads that have no engine-layer version (the engine has no List and no
    /// notifications): they run on the object layer only.
    static let objectOnlyWorkloads: [Workload] = [
        .scanParts, .listAppend, .listIterate, .setInsert, .setContains, .mapUpdate, .mapLookup, .observerLatency,
    ]

    /// Whether this layer has a version of `workload`.
    func runs(_ workload: Workload) -> Bool {
        switch self {
        case .engine: return !Self.objectOnlyWorkloads.contains(workload)
        case .object: return !Self.engineOnlyWorkloads.contains(workload)
        case .lmdb, .sqlite: return BenchConfiguration.peerWorkloads.contains(workload)
        }
    }
}

/// The `--layer` choice: which layers a run measures, in the order each round runs them.
enum LayerSelection: String, CaseIterable, Sendable {
    case engine
    case object
    case both

    /// The layers, engine first.
    var layers: [BenchLayer] {
        switch self {
        case .engine: return [.engine]
        case .object: return [.object]
        case .both: return [.engine, .object]
        }
    }

    /// Every spelling, for the usage error.
    static var nameList: String {
        allCases.map(\.rawValue).joined(separator: ", ")
    }
}

/// What every workload needs of a layer's database: the shared records, one durable insert,
/// and the timed loops of the read workloads.
///
/// The engine's conformance (`BenchDatabase`) times exactly what strata-bench timed before
/// layers existed; the object layer's (`BenchRealm`) times the Realm-API analogue. Each
/// `measure…` method returns what it read, for the workload's check, with the nanoseconds of
/// the timed part only. One existential call per measured loop or per commit, never per record.
protocol LayerDatabase: AnyObject {
    var layer: BenchLayer { get }
    /// Records hold ids `1...lastID`, each exactly once.
    var lastID: Int64 { get }

    /// The records stored now, counted through the layer's own API (for checks, untimed).
    func recordCount() throws -> Int

    /// One durable transaction inserting record `id`; returns its nanoseconds (begin to the
    /// return of the commit).
    func commitOne(id: Int64) throws -> Double

    /// Records that ids up to `id` now exist (durable_commit appends them in order).
    func appended(throughID id: Int64)

    /// One full scan reading id, age and the name's bytes.
    func measureScan() throws -> (totals: ScanWorkload.Totals, nanos: Double)

    /// `count` random primary-key lookups in one read; the sum of the ages found.
    func measureLookups(count: Int) throws -> (ageSum: Int64, nanos: Double)

    /// `count` times: begin a read, look one key up, end the read; the sum of the ages found.
    func measureSnapshots(count: Int) throws -> (ageSum: Int64, nanos: Double)

    /// Closes the database; the files stay.
    func close()
}

/// Opening and filling a fresh database of either layer.
enum LayerLoader {
    /// Creates the database at `path` (deleting any old one) holding records `1...recordCount`
    /// inserted in one durable transaction, and says how long that took.
    static func load(
        _ layer: BenchLayer, path: String, configuration: BenchConfiguration
    ) throws -> (database: any LayerDatabase, timing: LoadTiming) {
        switch layer {
        case .engine:
            let (database, timing) = try BenchLoader.load(
                path: path, recordCount: configuration.recordCount,
                options: configuration.storeOptions)
            return (database, timing)
        case .object:
            let (database, timing) = try BenchRealm.load(
                path: path, recordCount: configuration.recordCount)
            return (database, timing)
        case .lmdb, .sqlite:
            return try PeerLoader.load(layer, path: path, configuration: configuration)
        }
    }

    /// Deletes a closed database's files (nothing if there are none).
    static func deleteFiles(_ layer: BenchLayer, path: String) throws {
        switch layer {
        case .engine: try BenchLoader.deleteFiles(path: path)
        case .object: try BenchRealm.deleteFiles(path: path)
        case .lmdb: try LMDBPeer.deleteFiles(path: path)
        case .sqlite: try SQLitePeer.deleteFiles(path: path)
        }
    }

    /// Creates indexed_lookup's database of Strata's `layer` at `path` (deleting any old one):
    /// records `1...recordCount` with a secondary index on the name, inserted in one durable
    /// transaction, untimed. The engine's `person` table is created with
    /// `PersonRecord.nameIndexedColumns`; the object layer's realm holds `BenchIndexedPerson`.
    static func loadIndexedName(
        _ layer: BenchLayer, path: String, recordCount: Int, configuration: BenchConfiguration
    ) throws -> any NameLookupDatabase {
        switch layer {
        case .engine:
            return try BenchLoader.load(
                path: path, recordCount: recordCount, options: configuration.storeOptions,
                indexedColumns: PersonRecord.nameIndexedColumns
            ).database
        case .object:
            return try BenchIndexedRealm.load(path: path, recordCount: recordCount)
        case .lmdb, .sqlite:
            preconditionFailure("indexed_lookup runs on Strata's layers only")
        }
    }

    /// Deletes a closed database of `loadIndexedName` (nothing if there is none).
    static func deleteIndexedNameFiles(_ layer: BenchLayer, path: String) throws {
        switch layer {
        case .engine: try BenchLoader.deleteFiles(path: path)
        case .object: try BenchIndexedRealm.deleteFiles(path: path)
        case .lmdb, .sqlite: preconditionFailure("indexed_lookup runs on Strata's layers only")
        }
    }
}

/// What one bulk load took.
struct LoadTiming: Sendable {
    /// From the beginning of the write to the return of the commit.
    let totalNanos: Double
    /// The commit alone.
    let commitNanos: Double
}
