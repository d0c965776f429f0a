/// The workloads of notes/peer-baselines.md, in the order a run performs them.
///
/// The order matters: every workload after `bulk_insert` reads or extends the database it
/// built (as in the peers' runs, where (b) adds 1,000 records to (a)'s file and (c) scans all
/// 101,000), and `concurrent` goes last because its writer rewrites records.
enum Workload: String, CaseIterable, Sendable, Comparable {
    case bulkInsert = "bulk_insert"
    case durableCommit = "durable_commit"
    case scan
    case lookup
    case snapshot
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
        case .lookup:
            return "N random primary-key lookups in one read transaction (median of 3)"
        case .snapshot:
            return "begin read + 1 lookup + end, N times (median of 3)"
        case .concurrent:
            return "a durable writer and a scanning reader, alone then together"
        case .fileSize:
            return "file size after bulk_insert (and after durable_commit, concurrent if run)"
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
