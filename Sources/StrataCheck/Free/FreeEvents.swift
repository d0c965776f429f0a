// The event log of a free-mode run (Docs/architecture.md §5 "Threads", "Oracles"): what each real thread
// observed, stamped with the engine version it observed it at and, where real time matters,
// with a monotonic clock reading. `FreeChecker` judges a log afterwards; tests hand-make logs
// to prove that it can fail.
//
// Values, not references: a log is `Sendable` and `Hashable`, so it can be kept in a result,
// printed into an artifact and compared in a test.

/// The two tables of the check schema (`CheckTypes.swift`).
public enum FreeTable: Int, Sendable, Hashable, Comparable, CaseIterable {
    case item
    case other

    public static func < (lhs: FreeTable, rhs: FreeTable) -> Bool { lhs.rawValue < rhs.rawValue }

    /// One letter, for compact logs: `I3` is Item 3, `O3` Other 3.
    var letter: String { self == .item ? "I" : "O" }
}

/// An object's identity in free mode: its table and its primary key.
public struct FreeKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var table: FreeTable
    public var primaryKey: Int

    public init(_ table: FreeTable, _ primaryKey: Int) {
        self.table = table
        self.primaryKey = primaryKey
    }

    public static func < (lhs: FreeKey, rhs: FreeKey) -> Bool {
        (lhs.table, lhs.primaryKey) < (rhs.table, rhs.primaryKey)
    }

    public var description: String { "\(table.letter)\(primaryKey)" }
}

/// An object as a read saw it: its key and its `value` column (nil when the column was nil).
public struct FreeObject: Sendable, Hashable, CustomStringConvertible {
    public var key: FreeKey
    public var value: Int?

    public init(_ key: FreeKey, _ value: Int?) {
        self.key = key
        self.value = value
    }

    public var description: String { "\(key)=\(value.map(String.init) ?? "nil")" }
}

/// One change a write transaction made, in the order it made them.
public enum FreeChange: Sendable, Hashable, CustomStringConvertible {
    /// The object exists afterwards with this value (created or updated).
    case put(FreeKey, Int)
    case delete(FreeKey)

    public var description: String {
        switch self {
        case .put(let key, let value): return "\(key):=\(value)"
        case .delete(let key): return "-\(key)"
        }
    }
}

/// A frozen realm's name in the log: who froze it, and the version it was frozen at.
public struct FreeFrozenTag: Sendable, Hashable, CustomStringConvertible {
    /// Unique within a run.
    public var id: Int
    public var version: UInt64

    public init(id: Int, version: UInt64) {
        self.id = id
        self.version = version
    }

    public var description: String { "frozen#\(id)@v\(version)" }
}

/// A read: what it saw, at which version, through which realm.
public struct FreeRead: Sendable, Hashable {
    /// What the read asked for.
    public enum Scope: Sendable, Hashable {
        /// Every object of both tables: `seen` must be the whole state.
        case all
        /// One object by primary key: `seen` is it, or empty when there was none.
        case object(FreeKey)
        /// Whether an object exists (a create that must not find its primary key): `seen`
        /// holds it (its value unknown, nil) when the engine said the key exists.
        case exists(FreeKey)
    }

    /// The version the realm read (`Realm._readVersion` taken with the read).
    public var version: UInt64
    /// nil for the thread's live realm.
    public var frozen: FreeFrozenTag?
    public var scope: Scope
    public var seen: [FreeObject]
    /// Inside a write transaction: the transaction's own changes so far (Spec V1, W4: a
    /// writer's reads see them); nil outside a write.
    public var ownChanges: [FreeChange]?
    /// The clock before the call, when the read began a new read transaction (the realm was
    /// not reading: Spec V10, the first read starts at the newest version).
    public var startedAtNanos: UInt64?

    public init(
        version: UInt64, frozen: FreeFrozenTag? = nil, scope: Scope, seen: [FreeObject],
        ownChanges: [FreeChange]? = nil, startedAtNanos: UInt64? = nil
    ) {
        self.version = version
        self.frozen = frozen
        self.scope = scope
        self.seen = seen
        self.ownChanges = ownChanges
        self.startedAtNanos = startedAtNanos
    }
}

/// A move of the live realm to the newest version (Spec V3): `refresh()` of a reading realm,
/// or `beginWrite()` (Spec V11), whose `version` is the write's base.
public struct FreeMove: Sendable, Hashable {
    public enum Cause: String, Sendable, Hashable {
        case refresh, beginWrite
    }

    public var cause: Cause
    /// The version the realm reads after the call.
    public var version: UInt64
    /// The clock before the call.
    public var startedAtNanos: UInt64

    public init(cause: Cause, version: UInt64, startedAtNanos: UInt64) {
        self.cause = cause
        self.version = version
        self.startedAtNanos = startedAtNanos
    }
}

/// A committed write transaction.
public struct FreeCommit: Sendable, Hashable {
    /// The version the write began at (the realm's version after `beginWrite` returned).
    public var baseVersion: UInt64
    /// The version the realm reads after `commitWrite` returned: the commit's (Spec V12).
    public var version: UInt64
    public var changes: [FreeChange]
    /// The clock before `beginWrite` was called.
    public var beganAtNanos: UInt64
    /// The clock after `commitWrite` returned.
    public var returnedAtNanos: UInt64

    public init(
        baseVersion: UInt64, version: UInt64, changes: [FreeChange], beganAtNanos: UInt64,
        returnedAtNanos: UInt64
    ) {
        self.baseVersion = baseVersion
        self.version = version
        self.changes = changes
        self.beganAtNanos = beganAtNanos
        self.returnedAtNanos = returnedAtNanos
    }
}

/// A freeze of the live realm.
public struct FreeFreeze: Sendable, Hashable {
    public var frozen: FreeFrozenTag
    /// The live realm's version right after the freeze (Spec F1: the frozen realm's version).
    public var liveVersion: UInt64
    /// The clock before the call, when the freeze began a read (the realm was not reading).
    public var startedAtNanos: UInt64?

    public init(frozen: FreeFrozenTag, liveVersion: UInt64, startedAtNanos: UInt64? = nil) {
        self.frozen = frozen
        self.liveVersion = liveVersion
        self.startedAtNanos = startedAtNanos
    }
}

/// One observation of one thread, in the thread's program order.
public struct FreeEvent: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case read(FreeRead)
        case move(FreeMove)
        case commit(FreeCommit)
        /// `cancelWrite()` returned; the realm reads `version` again (Spec W5).
        case cancel(version: UInt64)
        case freeze(FreeFreeze)
        /// The engine threw where the harness expected no error (the thread stops there).
        case engineError(operation: String, message: String)
    }

    public var thread: Int
    /// The event's position in its thread's log.
    public var index: Int
    public var kind: Kind

    public init(thread: Int, index: Int, kind: Kind) {
        self.thread = thread
        self.index = index
        self.kind = kind
    }

    /// The version the thread's live realm read at this event, for the rule that a thread
    /// never goes back; nil for frozen reads and errors.
    var liveVersion: UInt64? {
        switch kind {
        case .read(let read): return read.frozen == nil ? read.version : nil
        case .move(let move): return move.version
        case .commit(let commit): return commit.version
        case .cancel(let version): return version
        case .freeze(let freeze): return freeze.liveVersion
        case .engineError: return nil
        }
    }

    /// `t2#14`: thread 2's event 14.
    public var name: String { "t\(thread)#\(index)" }

    public var description: String {
        switch kind {
        case .read(let read):
            let realm = read.frozen.map(\.description) ?? "live"
            let scope: String
            switch read.scope {
            case .all: scope = "all"
            case .object(let key): scope = "object \(key)"
            case .exists(let key): scope = "exists \(key)"
            }
            let own = read.ownChanges.map { " in write after [\(Self.list($0))]" } ?? ""
            let began = read.startedAtNanos.map { " began@\($0)" } ?? ""
            return "\(name) read \(realm) @v\(read.version) \(scope)\(own)\(began) "
                + "-> {\(Self.list(read.seen))}"
        case .move(let move):
            return "\(name) \(move.cause.rawValue) -> v\(move.version) began@\(move.startedAtNanos)"
        case .commit(let commit):
            return "\(name) commit v\(commit.baseVersion) -> v\(commit.version) "
                + "[\(Self.list(commit.changes))] began@\(commit.beganAtNanos) "
                + "returned@\(commit.returnedAtNanos)"
        case .cancel(let version):
            return "\(name) cancelWrite -> v\(version)"
        case .freeze(let freeze):
            return "\(name) freeze live @v\(freeze.liveVersion) -> \(freeze.frozen)"
        case .engineError(let operation, let message):
            return "\(name) \(operation) threw: \(message)"
        }
    }

    private static func list<T: CustomStringConvertible>(_ items: [T]) -> String {
        items.map(\.description).joined(separator: " ")
    }
}

/// Everything a free run observed, for `FreeChecker`.
public struct FreeLog: Sendable, Hashable {
    /// The newest version when the threads started, and what it held.
    public var initialVersion: UInt64
    public var initialObjects: [FreeObject]
    /// Every thread's events (in any order between threads; `index` orders each thread's).
    public var events: [FreeEvent]
    /// The version and contents a fresh realm read after every thread ended; nil when the run
    /// ended before it could read them.
    public var finalVersion: UInt64?
    public var finalObjects: [FreeObject]?

    public init(
        initialVersion: UInt64, initialObjects: [FreeObject] = [], events: [FreeEvent],
        finalVersion: UInt64? = nil, finalObjects: [FreeObject]? = nil
    ) {
        self.initialVersion = initialVersion
        self.initialObjects = initialObjects
        self.events = events
        self.finalVersion = finalVersion
        self.finalObjects = finalObjects
    }
}
