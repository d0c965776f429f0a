/// The peers' figures of `Docs/peer-baselines.md`, as data, each entry citing the row it comes from.
///
/// Sources (measured on the project machine with the same record shape and workloads):
/// - `Docs/peer-baselines.md`, part 1: LMDB 0.9.24 (default flags, every commit durable) and
///   SQLite 3.40.1 in WAL mode with `synchronous=FULL`; medians of 3 runs, batch 1.
/// - `Docs/peer-baselines.md`, part 2: realm-core 20.1.5, `Durability::Full`, with the
///   in-realm history (the SDK configuration, column "realm"); medians of 6 runs.
///
/// Figures marked *derived* are computed from the notes' own numbers, as the comment says;
/// every other figure is copied as printed. A nil figure is one the notes do not have.
enum PeerBaselines {
    /// One metric's figures for the three peers.
    struct Entry: Sendable {
        let workload: Workload
        let metric: String
        let lmdb: Double?
        let sqliteFull: Double?
        let realm: Double?
        /// The notes' row the figures come from.
        let row: String
    }

    /// The figures printed beside a measurement, if the notes have any for its metric.
    static func figures(_ measurement: Measurement) -> Entry? {
        entries.first { $0.workload == measurement.workload && $0.metric == measurement.metric }
    }

    /// The median 4 KiB pwrite+fdatasync of the peers' runs (peer-baselines.md, "temp dir" row).
    static let fsyncFloorMicros = 127.0

    /// Printed under the table.
    static let citation = [
        "LMDB, SQLite FULL: Docs/peer-baselines.md part 1 (LMDB 0.9.24; SQLite 3.40.1 WAL,",
        "  synchronous=FULL; medians of 3 runs on this machine, when fdatasync took 127 us).",
        "Realm: Docs/peer-baselines.md part 2 (realm-core 20.1.5, Durability::Full,",
        "  in-realm history; medians of 6 runs). Realm's latency_over_fsync_floor is derived:",
        "  1,160 us over the 104-112 us fdatasync of its notes.",
        "Durable commit and concurrent rates depend on the disk's minute: compare",
        "  latency_over_fsync_floor and the concurrent ratios rather than absolute commits/s.",
    ]

    static let entries: [Entry] = [
        // a. bulk insert 100k in 1 durable txn; ns/record derived as total / 100,000.
        Entry(
            workload: .bulkInsert, metric: "total_ms", lmdb: 39.8, sqliteFull: 102,
            realm: 195, row: "a. bulk insert 100k in 1 durable txn"),
        Entry(
            workload: .bulkInsert, metric: "ns_per_record", lmdb: 398, sqliteFull: 1_020,
            realm: 1_950, row: "a. bulk insert (derived: total / 100k)"),
        Entry(
            workload: .bulkInsert, metric: "commit_ms", lmdb: 5.2, sqliteFull: 9.2,
            realm: 30.8, row: "a. …of which the commit call"),
        // b. 1000 one-insert durable txns.
        Entry(
            workload: .durableCommit, metric: "latency_median_us", lmdb: 293,
            sqliteFull: 171, realm: 1_160, row: "b. median commit latency"),
        Entry(
            workload: .durableCommit, metric: "commits_per_s", lmdb: 3_243,
            sqliteFull: 4_455, realm: 697, row: "b. 1000 one-insert durable txns, commits/s"),
        Entry(
            workload: .durableCommit, metric: "latency_over_fsync_floor", lmdb: 2.4,
            sqliteFull: 1.4, realm: 10.7,
            row: "b. median commit latency / median fdatasync (Realm derived: 1160 / 108)"),
        // c. full scan (LMDB and SQLite sum age; Realm reads age and a name byte, like ours).
        Entry(
            workload: .scan, metric: "ns_per_record", lmdb: 16.5, sqliteFull: 138,
            realm: 80, row: "c. full scan summing age (101k recs)"),
        // d, e.
        Entry(
            workload: .lookup, metric: "ns_per_lookup", lmdb: 308, sqliteFull: 918,
            realm: 753, row: "d. 100k random PK lookups in 1 read txn"),
        Entry(
            workload: .snapshot, metric: "ns_per_snapshot", lmdb: 427, sqliteFull: 4_228,
            realm: 1_730, row: "e. begin read txn + get 1 + end, ×100k"),
        // f. writer updates one random record per durable transaction; reader scans all.
        Entry(
            workload: .concurrent, metric: "writer_alone_commits_per_s", lmdb: 3_134,
            sqliteFull: 5_579, realm: 690, row: "f. writer alone, commits/s"),
        Entry(
            workload: .concurrent, metric: "reader_alone_scans_per_s", lmdb: 867,
            sqliteFull: 84, realm: 127, row: "f. reader alone, full scans/s"),
        Entry(
            workload: .concurrent, metric: "writer_concurrent_commits_per_s", lmdb: 2_815,
            sqliteFull: 7_492, realm: 748, row: "f. writer with a reader running, commits/s"),
        Entry(
            workload: .concurrent, metric: "reader_concurrent_scans_per_s", lmdb: 819,
            sqliteFull: 59, realm: 93.7, row: "f. reader with the writer running, scans/s"),
        Entry(
            workload: .concurrent, metric: "writer_concurrent_over_alone", lmdb: 0.89,
            sqliteFull: 1.35, realm: 1.08,
            row: "f. writer conc/alone (Realm derived: 748 / 690)"),
        Entry(
            workload: .concurrent, metric: "reader_concurrent_over_alone", lmdb: 0.97,
            sqliteFull: 0.76, realm: 0.74,
            row: "f. reader conc/alone (Realm derived: 93.7 / 127)"),
        // g. file size (SQLite: main + WAL; Realm: main file).
        Entry(
            workload: .fileSize, metric: "after_bulk_insert_kib", lmdb: 4_200,
            sqliteFull: 2_676, realm: 4_608, row: "g. size after a"),
        Entry(
            workload: .fileSize, metric: "after_durable_commit_kib", lmdb: 4_280,
            sqliteFull: 6_683, realm: 4_608, row: "g. size after b"),
        Entry(
            workload: .fileSize, metric: "after_concurrent_kib", lmdb: 4_424,
            sqliteFull: 68_761, realm: 4_608, row: "size after f"),
    ]
}
