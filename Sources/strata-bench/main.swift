// strata-bench: the peers' workloads (notes/peer-baselines.md) on the Strata engine (and, with
// --layer, through the Realm API on it), printed beside the LMDB, SQLite and Realm figures
// measured on the same machine.
import StrataCommandLine

#if DEBUG
    let buildConfiguration = "debug"
#else
    let buildConfiguration = "release"
#endif

let workloadList = Workload.allCases
    .map { "  " + $0.name.padding(toLength: 16) + $0.summary }
    .joined(separator: "\n")

let spec = CommandSpec(
    name: "strata-bench",
    summary:
        "Run the peers' workloads on the engine (or its Realm API) and print them beside LMDB,"
        + " SQLite, Realm.",
    discussion: """
        Workloads, in the order a run performs them (N = --records, C = --commits):

        \(workloadList)

        Every workload uses the peers' records {id int64 primary key, 16-byte name, age} and \
        one database: bulk_insert builds it (an untimed load stands in when bulk_insert is not \
        selected), durable_commit appends C records, and the read workloads cover all records. \
        Micro-workloads report the median of their runs (bulk_insert 3, scan 5, lookup 3, \
        snapshot 3, filtered_count 5, aggregate_sum 5, indexed_lookup 5, update_all 3, list_append 1, \
        list_iterate 5; --runs changes them all); durable_commit reports the median and p99 of \
        its C commits. Times come from CLOCK_MONOTONIC.

        Durable commit rates depend on the disk's minute, so durable_commit also measures the \
        fsync floor (4 KiB pwrite + fdatasync beside the database, once after every commit) \
        and prints latency_over_fsync_floor: compare that with LMDB's 2.4x and SQLite FULL's \
        1.4x. Without --peers, the LMDB, SQLite FULL and Realm columns come from \
        Docs/peer-baselines.md and are shown only for the default 100000 records and 1000 \
        commits. A full default run takes about 30 s \
        in a release build (15 s of it concurrent); debug figures are not comparable.

        --layer object runs the workloads through the Realm API (Sources/Strata) instead of \
        the engine's transactions, on class BenchPerson {@Persisted(primaryKey: true) id: Int, \
        name: String, age: Int} holding the same records, in a realm opened with \
        Realm.Configuration(fileURL:objectTypes:) in the bench directory. bulk_insert is one \
        realm.write { } adding N objects (commit_ms: from the end of the block to the \
        return of write); durable_commit is C one-object realm.write { }, each followed by an \
        fsync probe as on the engine; scan iterates realm.objects(BenchPerson.self) reading \
        id, age and name; lookup is N realm.object(ofType:forPrimaryKey:) at the realm's \
        version, each reading age; snapshot is N times lookup + realm.invalidate(): a realm \
        that is not reading begins a read at the newest version on first access and \
        invalidate() ends it, the Realm API's begin read + get + end (refresh() would begin \
        no read when nothing was committed). Every object-layer workload checks what it \
        read as the engine's does. concurrent and file_size run on the engine only: with \
        --layer object they are skipped with a note. --max-file-mib applies to the engine's \
        stores only (Realm.Configuration has no such setting).

        The object layer's performance workloads compare the Realm API with the engine on \
        the same records, each checking what it read. filtered_count: \
        realm.objects(BenchPerson.self).where { $0.age > 57 }.count on fresh Results, against \
        an engine scan counting the ages > 57 read with RowView.int(at:) (the same count \
        checked; ns per record scanned). aggregate_sum: \
        realm.objects(BenchPerson.self).sum(ofProperty: "age") on fresh Results, which makes no \
        object, against an engine scan adding up the ages (the sum checked against the loaded \
        ages; ns per record). indexed_lookup: equality queries that read through \
        the engine's secondary index on the name: \
        realm.objects(BenchIndexedPerson.self).where { $0.name == X }.first, on a class like \
        BenchPerson but with @Persisted(indexed: true) var name, against the engine's \
        ReadTransaction.indexedKeys on a table created with the name column in \
        indexedColumns, reading the first candidate row with that name. Each size is a \
        database of its own per layer (the shared one has no index), loaded untimed and \
        deleted afterwards: \(IndexedLookupWorkload.smallRecordCount) records (when N is above \
        that) and N. Each run is \(IndexedLookupWorkload.queryCount) \
        queries for names of random ids (the ids found checked); it reports ns_per_query_10k \
        and ns_per_query (at N), which should be about equal: a lookup through the index \
        does not grow with the table as a scan does. \
        scan_memory: after one unmeasured scan (which maps the file's pages in) and \
        malloc_trim(0), resets the peak RSS (writes 5 to /proc/self/clear_refs) and reports \
        how much VmHWM grows during one checked full scan, in KiB and KiB per 1000 records \
        (what the scan allocates, in 4 KiB pages); run \
        it with --records 1000000 to see whether it is flat (without a writable clear_refs \
        it says so in a note and reports no figure). update_all: one durable realm.write { \
        for p in realm.objects(BenchPerson.self) { p.age += 1 } }, against one engine write \
        transaction rewriting every row with WriteTransaction.update (ns per record, \
        total_ms, commit_ms; the age sum must grow by N); it runs after the workloads that \
        check the loaded ages. list_append (one write adding a BenchBag \
        {@Persisted(primaryKey: true) id: Int, items: List<Int>} and appending 1...N one at \
        a time) and list_iterate (a for loop over that List summing it) run on the object \
        layer only, in a realm of their own, in ns per element, the count and sum checked. \
        A managed List is stored inline, so each append stores the List again and \
        list_append grows as N squared (about 4 minutes at 100000): both run only when \
        named with --only, and list_append runs once unless --runs says otherwise. \
        observer_latency (object layer only): registers \
        realm.objects(BenchPerson.self).observe(on: queue), through a realm confined to a \
        serial DispatchQueue, then makes C one-object durable writes (C = --commits when \
        given, else 200) from the main thread, each waiting for its callback (every \
        callback checked: exactly that object modified; a callback missing for 60 s fails \
        the run); it reports the median and p99 of the callback's start minus the return of \
        write, in us (0 when the callback came first: a note counts those), and \
        from_write_start_median_us and _p99_us, from the beginning of write (commit \
        included). Without --only, a run performs every workload but list_append and \
        list_iterate, on the layers that have it: the object-only workloads are left out of \
        an engine run without a note, and skipped with a note when named. The peers run \
        none of these: with --peers they run on Strata's layers only, with a note.

        --layer both runs every workload on both layers in one run, alternating (engine run, \
        object run, ...; for durable_commit, commit by commit), and reports each figure for \
        both, then object/engine: the object figure over the engine's. These machines are \
        noisy: compare that ratio, measured side by side, rather than figures of separate \
        runs. With the object layer, the JSON lines carry a "layer" field (engine, object or \
        object/engine) and the table a layer column.

        --peers measures LMDB and SQLite in the same run, on the same records, instead of \
        printing the notes' constants: both are loaded at run time with dlopen \
        (liblmdb.so.0, libsqlite3.so.0; strata-bench has no build dependency on them) and \
        run bulk_insert, durable_commit, scan, lookup and snapshot in the same rounds as \
        Strata's layers, after them (engine, object, lmdb, sqlite; for durable_commit, commit \
        by commit, each followed by its own fsync probe). LMDB runs with the notes' settings: \
        default flags, so every commit is durable (plus MDB_NOSUBDIR, which only names the \
        files), MDB_INTEGERKEY with the id as a native 8-byte key (so cursor order is id \
        order), value = 16 name bytes + age, plain mdb_put; scan is a cursor MDB_FIRST/NEXT, \
        lookup mdb_get in one read-only transaction, and snapshot reuses one read-only handle \
        with mdb_txn_renew + mdb_get + mdb_txn_reset, LMDB's fastest begin-read + get + end \
        (the notes' row e2; mdb_txn_begin + mdb_txn_abort costs about 100 ns more). SQLite \
        runs in WAL mode with synchronous=FULL (both checked) and cache_size=-65536, table \
        person(id INTEGER PRIMARY KEY, name TEXT, age INTEGER), every statement prepared \
        once and reused: scan steps SELECT id, name, age reading the columns, lookup is \
        SELECT age FROM person WHERE id = ? in one BEGIN ... COMMIT, snapshot is BEGIN + \
        that lookup + COMMIT. Each peer checks what it read as Strata's layers do (counts, \
        sums of ids, ages and name bytes). The table's LMDB and SQLite FULL columns then hold \
        the figures of this run with "vs LMDB" and "vs SQLite" against them; concurrent and \
        file_size run on the engine only and show the notes' figures marked "*"; the Realm \
        column stays the notes' (realm-core cannot be loaded at run time). The preamble names \
        the libraries' versions (mdb_version, sqlite3_libversion; on stderr with --json), and \
        the JSON lines carry "layer": lmdb or sqlite, and engine/lmdb, engine/sqlite, \
        object/lmdb, object/sqlite for Strata's figure over the peer's. Both libraries are \
        needed: when either is missing the run fails before measuring anything, naming it \
        and `\(PeerError.installHint)` (run as root), rather than compare with one peer \
        only. --lmdb-library and --sqlite-library load another build instead.
        """,
    options: [
        .value(
            "records", valueName: "N", help: "Records in the bulk load.",
            default: String(BenchConfiguration.recordCountDefault)),
        .value(
            "commits", valueName: "C",
            help: "One-insert durable transactions of durable_commit; when given, also the"
                + " one-object commits of observer_latency (default there: 200).",
            default: String(BenchConfiguration.commitCountDefault)),
        .value(
            "seconds", valueName: "S", help: "Length of each of the three concurrent phases.",
            default: "5"),
        .value(
            "runs", valueName: "R",
            help: "Runs of each micro-workload, reporting the median; more runs make a workload"
                + " easy to profile on its own (default: bulk_insert 3, scan 5, lookup 3,"
                + " snapshot 3, filtered_count 5, aggregate_sum 5, indexed_lookup 5, update_all 3, list_append 1,"
                + " list_iterate 5)."),
        .value(
            "only", valueName: "NAME",
            help: "Run only these workloads (comma-separated names; see above).", repeatable: true),
        .value(
            "dir", valueName: "DIR",
            help: "Put the files in DIR and keep them (default: a fresh temporary directory,"
                + " removed afterwards)."),
        .value(
            "max-file-mib", valueName: "M",
            help: "Address space each store reserves for its map (the largest the file may grow);"
                + " lower it to run under valgrind (default: the engine's, 64 GiB)."),
        .value(
            "layer", valueName: "LAYER",
            help: "engine (the engine's transactions), object (the Realm API on the engine), or"
                + " both, alternating, with object/engine ratios (see above).",
            default: "engine"),
        .flag(
            "peers",
            help: "Measure LMDB and SQLite (WAL, synchronous=FULL) in the same run, loaded with"
                + " dlopen; needs `\(PeerError.installHint)` (see above)."),
        .value(
            "lmdb-library", valueName: "PATH",
            help: "With --peers: the LMDB library to load.", default: PeerLibraries.lmdbDefaultName),
        .value(
            "sqlite-library", valueName: "PATH",
            help: "With --peers: the SQLite library to load.", default: PeerLibraries.sqliteDefaultName),
        .flag(
            "json",
            help: "Print one JSON object per line: workload, metric, value, unit (and layer"
                + " when the object layer or --peers runs)."),
    ],
    examples: [
        "strata-bench",
        "strata-bench --only scan,lookup --records 1M",
        "strata-bench --only durable_commit --commits 5000 --json",
        "strata-bench --layer both --only bulk_insert,scan,lookup,snapshot",
        "strata-bench --layer both --only filtered_count,update_all,observer_latency,indexed_lookup",
        "strata-bench --layer both --records 1000000 --only scan_memory",
        "strata-bench --layer object --records 20000 --only list_append,list_iterate",
        "strata-bench --peers --layer both --only bulk_insert,durable_commit,scan,lookup,snapshot",
        "perf record -g strata-bench --only scan --runs 200",
    ]
)

CommandLineTool.run(spec: spec) { command in
    var configuration = try BenchConfiguration(command)
    if configuration.measuresPeers {
        let libraries = try PeerLibraries.load(
            lmdbName: configuration.lmdbLibraryName, sqliteName: configuration.sqliteLibraryName)
        configuration.peerLibraries = libraries
        if configuration.emitsJSON {
            StandardStreams.writeErrorLine("strata-bench: peers: " + libraries.versionSummary)
        }
    }
    let report = Report(configuration: configuration)
    try BenchRun(configuration: configuration, report: report)
        .run(buildConfiguration: buildConfiguration)
    return ExitCode.ok
}

extension String {
    /// The string padded with spaces to at least `length` characters.
    fileprivate func padding(toLength length: Int) -> String {
        self + String(repeating: " ", count: max(1, length - count))
    }
}
