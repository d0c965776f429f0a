// strata-bench: the peers' workloads (notes/peer-baselines.md) on the Strata engine, printed
// beside the LMDB, SQLite and Realm figures measured on the same machine.
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
    summary: "Run the peers' workloads on the engine and print them beside LMDB, SQLite, Realm.",
    discussion: """
        Workloads, in the order a run performs them (N = --records, C = --commits):

        \(workloadList)

        Every workload uses the peers' records {id int64 primary key, 16-byte name, age} and \
        one database: bulk_insert builds it (an untimed load stands in when bulk_insert is not \
        selected), durable_commit appends C records, and the read workloads cover all records. \
        Micro-workloads report the median of their runs (bulk_insert 3, scan 5, lookup 3, \
        snapshot 3; --runs changes them all); durable_commit reports the median and p99 of \
        its C commits. Times come from CLOCK_MONOTONIC.

        Durable commit rates depend on the disk's minute, so durable_commit also measures the \
        fsync floor (4 KiB pwrite + fdatasync beside the database, once after every commit) \
        and prints latency_over_fsync_floor: compare that with LMDB's 2.4x and SQLite FULL's \
        1.4x. The LMDB, SQLite FULL and Realm columns come from shared/notes and are shown only \
        for the default 100000 records and 1000 commits. A full default run takes about 30 s \
        in a release build (15 s of it concurrent); debug figures are not comparable.
        """,
    options: [
        .value(
            "records", valueName: "N", help: "Records in the bulk load.",
            default: String(BenchConfiguration.recordCountDefault)),
        .value(
            "commits", valueName: "C", help: "One-insert durable transactions of durable_commit.",
            default: String(BenchConfiguration.commitCountDefault)),
        .value(
            "seconds", valueName: "S", help: "Length of each of the three concurrent phases.",
            default: "5"),
        .value(
            "runs", valueName: "R",
            help: "Runs of each micro-workload, reporting the median; more runs make a workload"
                + " easy to profile on its own (default: bulk_insert 3, scan 5, lookup 3,"
                + " snapshot 3)."),
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
        .flag("json", help: "Print one JSON object per line: workload, metric, value, unit."),
    ],
    examples: [
        "strata-bench",
        "strata-bench --only scan,lookup --records 1M",
        "strata-bench --only durable_commit --commits 5000 --json",
        "perf record -g strata-bench --only scan --runs 200",
    ]
)

CommandLineTool.run(spec: spec) { command in
    let configuration = try BenchConfiguration(command)
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
