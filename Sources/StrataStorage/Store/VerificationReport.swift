/// One thing `Store.verify()` found wrong.
public enum VerificationProblem: Sendable, Equatable, CustomStringConvertible {
    /// A page or record of `version` could not be read (checksum, type, structure...).
    case unreadable(version: Version, error: StorageError)
    /// Keys out of order, or outside the bounds the parent branch gives.
    case keyOrder(version: Version, page: PageNumber, detail: String)
    /// Leaves at different depths.
    case unevenLeafDepth(version: Version, page: PageNumber)
    /// A page referenced twice within one version.
    case pageReachedTwice(version: Version, page: PageNumber)
    /// A page both reachable from `version` and free for reuse by it.
    case reachableAndFree(version: Version, page: PageNumber, releasedBy: Version)
    /// A page of the newest version neither reachable nor free.
    case pageLeaked(page: PageNumber)
    /// A table's descriptor records another row count than its tree holds.
    case rowCountMismatch(version: Version, table: String, recorded: Int, counted: Int)
    /// A table's primary-key index and its rows disagree (an entry missing, extra or wrong).
    case indexMismatch(version: Version, table: String, detail: String)
    /// A row's primary key does not match where it is stored (an int key other than the row's
    /// key, a string key that cannot be indexed).
    case primaryKeyMismatch(version: Version, table: String, key: ObjectKey)
    /// An object's incarnation is impossible for its table (see `Incarnation`).
    case incarnationMismatch(version: Version, table: String, key: ObjectKey, detail: String)
    /// A pinned version whose record is no longer known to this process.
    case notChecked(version: Version, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let v, let error): return "v\(v.rawValue): \(error)"
        case .keyOrder(let v, let page, let detail):
            return "v\(v.rawValue): key order on page \(page.rawValue): \(detail)"
        case .unevenLeafDepth(let v, let page): return "v\(v.rawValue): leaf page \(page.rawValue) at another depth"
        case .pageReachedTwice(let v, let page): return "v\(v.rawValue): page \(page.rawValue) referenced twice"
        case .reachableAndFree(let v, let page, let releasedBy):
            return "v\(v.rawValue): page \(page.rawValue) is reachable and free (released by v\(releasedBy.rawValue))"
        case .pageLeaked(let page): return "page \(page.rawValue) is neither reachable nor free"
        case .rowCountMismatch(let v, let table, let recorded, let counted):
            return "v\(v.rawValue): table '\(table)' records \(recorded) rows, has \(counted)"
        case .indexMismatch(let v, let table, let detail): return "v\(v.rawValue): index of '\(table)': \(detail)"
        case .primaryKeyMismatch(let v, let table, let key):
            return "v\(v.rawValue): object \(key.rawValue) of '\(table)' has another primary key"
        case .incarnationMismatch(let v, let table, let key, let detail):
            return "v\(v.rawValue): object \(key.rawValue) of '\(table)': \(detail)"
        case .notChecked(let v, let reason): return "v\(v.rawValue) not checked: \(reason)"
        }
    }

    /// `notChecked` is a limitation of the check, not damage.
    public var isDamage: Bool {
        if case .notChecked = self { return false }
        return true
    }
}

/// What `Store.verify()` checked and found.
public struct VerificationReport: Sendable {
    /// One table and how many rows it holds.
    public struct TableSummary: Sendable, Hashable {
        /// The table's name.
        public let name: String
        /// The rows counted in its tree.
        public let rowCount: Int
    }

    /// The newest version when the check began.
    public var newestVersion: Version = .none
    /// Every version checked: the newest and each pinned one, newest first.
    public var versionsChecked: [Version] = []
    /// Logical pages of the newest version (including the header page).
    public var pageCount = 0
    /// Pages reachable from the newest version (including the header page).
    public var reachablePageCount = 0
    /// Free pages of the newest version (reusable now or once older pins drop).
    public var freePageCount = 0
    /// Of the free pages, those still waiting for pins of older versions.
    public var pendingFreePageCount = 0
    /// The tables of the newest version.
    public var tables: [TableSummary] = []
    /// Everything found wrong; empty for a sound file.
    public var problems: [VerificationProblem] = []
    /// Set when the newest commit slot is damaged and the file opens at the older slot's
    /// version (Spec D15). Not counted as damage by `isClean` (the version checked is
    /// intact); `strata-tool verify` fails on it unless `--allow-fallback`.
    public var slotFallback: SlotFallback?

    /// True when nothing is damaged.
    public var isClean: Bool { !problems.contains { $0.isDamage } }

    static let problemCountMax = 1000

    mutating func report(_ problem: VerificationProblem) {
        if problems.count < Self.problemCountMax { problems.append(problem) }
    }
}
