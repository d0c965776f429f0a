/// The workloads of notes/peer-baselines.md, in the order a run performs them.
///
/// The order matters: every workload after `bulk_insert` reads or extends the database it
/// built (as in the peers' runs, where (b) adds 1,000 records to (a)'s file and (c) scans all
/// 101,000). The workloads that check the ages the loaders wrote (scan, lookup, snapshot,
/// filtered_count, scan_memory) come before the ones that change them: `update_all` adds 1 to
/// every age, `observer_latency` to one age per commit, and `concurrent` goes last because its
/// writer rewrites records.
enum Workload: String, CaseIterable, Sendable, Comparable {
    case bulkInsert = "bulk_insert"
    case durableCommit = "durable_commit"
    case scan
    case scanParts = "scan_parts"
    case lookup
    case snapshot
    case filteredCount = "filtered_count"
    case aggregateSum = "aggregate_sum"
    case indexedLookup = "indexed_lookup"
    case scanMemory = "scan_memory"
    case listAppend = "list_append"
    case listIterate = "list_iterate"
    case setInsert = "set_insert"
    case setContains = "set_contains"
    case mapUpdate = "map_update"
    case mapLookup = "map_lookup"
    case updateAll = "update_all"
    case observerLatency = "observer_latency"
    case concurrent
    case fileSize = "file_size"

    /// The command-line spelling.
    var name: String { rawValue }

    /// One line for `--help`.
    var summary: String {
        switch self {
        case .bulkInsert:
            return "insert N records in one durable transaction (median of 3 fresh files)"
        case .durableCommit:
            return "C one-insert durable transactions, interleaved with pwrite+fdatasync probes"
        case .scan:
            return "full scan reading id and age and touching the name (median of 5)"
        case .scanParts:
            return "object layer: scans reading nothing, id and age, and as scan does (median of 5 each)"
        case .lookup:
            return "N random primary-key lookups in one read transaction (median of 3)"
        case .snapshot:
            return "begin read + 1 lookup + end, N times (median of 3)"
        case .filteredCount:
            return "count of the records with age > 57 from a fresh query (median of 5)"
        case .aggregateSum:
            return "sum of every record's age from a fresh query, no object made (median of 5)"
        case .indexedLookup:
            return "first record whose name equals X, through the name's secondary index, at"
                + " 10k records and at N (median of 5)"
        case .scanMemory:
            return "growth of the peak RSS (VmHWM) during one full scan, in KiB"
        case .listAppend:
            return "object layer, --only: one write appending N ints to one List<Int> (N^2)"
        case .listIterate:
            return "object layer, --only: iterate that List summing its N ints (median of 5)"
        case .setInsert:
            return "object layer, --only: one write inserting N distinct ints into one MutableSet<Int> (N^2)"
        case .setContains:
            return "object layer, --only: contains of 2N values on that set (median of 5)"
        case .mapUpdate:
            return "object layer, --only: one write setting N keys of one Map<String, Int>, a third twice (N^2)"
        case .mapLookup:
            return "object layer, --only: subscripts of 2N keys on that map (median of 5)"
        case .updateAll:
            return "one durable write adding 1 to every record's age (median of 3)"
        case .observerLatency:
            return "object layer: collection observer on a queue, commit to callback, over"
                + " 200 one-object commits (C with --commits)"
        case .concurrent:
            return "a durable writer and a scanning reader, alone then together"
        case .fileSize:
            return "file size after bulk_insert (and after durable_commit, concurrent if run)"
        }
    }

    /// Whether a run without `--only` performs it (on the layers that have it): all but the
    /// List workloads, whose appends grow as N squared (minutes at the default 100,000).
    var runsByDefault: Bool {
        switch self {
        case .listAppend, .listIterate, .setInsert, .setContains, .mapUpdate, .mapLookup: return false
        default: return true
        }
    }

    /// Position in the run order.
    private var order: Int {
        Workload.allCases.firstIndex(of: self) ?? 0
    }

    static func < (lhs: Workload, rhs: Workload) -> Bool {
        lhs.order < rhs.order
    }

    /// Every name, comma-separated, for error messages and help.
    static var nameList: String {
        allCases.map(\.name).joined(separator: ", ")
    }
}
