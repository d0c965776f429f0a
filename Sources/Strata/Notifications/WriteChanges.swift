import StrataStorage

/// The columns of one object a write set, as a bit set (tables have few columns; words are
/// added for wider ones).
struct ColumnSet: Hashable, Sendable {
    private var words: [UInt64] = []

    init() {}

    init<S: Sequence>(_ columns: S) where S.Element == Int {
        for column in columns { insert(column) }
    }

    mutating func insert(_ column: Int) {
        let word = column / 64
        while words.count <= word { words.append(0) }
        words[word] |= 1 << UInt64(column % 64)
    }

    func contains(_ column: Int) -> Bool {
        let word = column / 64
        return word < words.count && words[word] & (1 << UInt64(column % 64)) != 0
    }

    mutating func formUnion(_ other: ColumnSet) {
        while words.count < other.words.count { words.append(0) }
        for index in other.words.indices { words[index] |= other.words[index] }
    }

    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }
}

/// What one write set, as observers need it (Spec N11, N20, N22): per table, the objects whose
/// columns a write set, also to the value they already had (Realm reports those, Spec N22
/// excepts `update: .modified`). Creations and deletions are not kept: observers find them by
/// comparing contents (`CollectionDiff`), by object identity.
struct WriteChanges: Sendable {
    private(set) var modified: [TableID: [ObjectKey: ColumnSet]] = [:]

    var isEmpty: Bool { modified.isEmpty }

    mutating func set(_ table: TableID, _ key: ObjectKey, column: Int) {
        modified[table, default: [:]][key, default: ColumnSet()].insert(column)
    }

    mutating func set(_ table: TableID, _ key: ObjectKey, columns: ColumnSet) {
        guard !columns.isEmpty else { return }
        modified[table, default: [:]][key, default: ColumnSet()].formUnion(columns)
    }

    mutating func merge(_ other: WriteChanges) {
        for (table, objects) in other.modified {
            for (key, columns) in objects { set(table, key, columns: columns) }
        }
    }

    /// The columns set of the object `key` of `table`; nil when none was.
    func columns(_ table: TableID, _ key: ObjectKey) -> ColumnSet? { modified[table]?[key] }

    func touches(_ table: TableID) -> Bool { modified[table] != nil }

    /// The objects of `table` something was set on.
    func keys(_ table: TableID) -> [ObjectKey] { modified[table].map { Array($0.keys) } ?? [] }
}

/// This process's record of its own commits to one file, by version: what each set and which
/// realm committed it. Observers take a range's changes from here; a range with a version
/// missing (another process committed it, or it was trimmed) has none, and observers compare
/// the rows of the two versions instead (`ChangeDetector`).
///
/// An entry is written before its commit publishes, so no realm can see the version without
/// it; a failed commit's entry is overwritten by the next write, which commits the same
/// version number. Sendable: behind a lock.
final class ChangeJournal: Sendable {
    struct Entry: Sendable {
        let changes: WriteChanges
        /// The committing realm (`ObjectIdentifier` of its core).
        let committer: ObjectIdentifier
    }

    /// The entries kept: a realm whose observers fall further behind compares rows.
    static let capacity = 512

    private let entries = Lock<[UInt64: Entry]>([:])

    func record(_ changes: WriteChanges, version: Version, committer: ObjectIdentifier) {
        entries.withLock { entries in
            entries[version.rawValue] = Entry(changes: changes, committer: committer)
            if entries.count > Self.capacity, let oldest = entries.keys.min() { entries[oldest] = nil }
        }
    }

    /// The changes of the versions after `old` up to `new`, and the one realm that committed
    /// them all (nil if several did); nil when a version of the range is not recorded.
    func changes(after old: Version, through new: Version) -> (changes: WriteChanges, committer: ObjectIdentifier?)? {
        guard new > old else { return (WriteChanges(), nil) }
        return entries.withLock { entries -> (WriteChanges, ObjectIdentifier?)? in
            var merged = WriteChanges()
            var committer: ObjectIdentifier?
            var single = true
            var version = old.rawValue + 1
            while version <= new.rawValue {
                guard let entry = entries[version] else { return nil }
                merged.merge(entry.changes)
                if let committer, committer != entry.committer { single = false }
                committer = entry.committer
                version += 1
            }
            return (merged, single ? committer : nil)
        }
    }
}
