// Identities of the model's entities. Each is a tiny struct (Docs/style.md rule 4) so that a realm
// cannot be passed where a handle is expected. The harness chooses every identifier itself (an
// operation names the identifier its result gets), so a history from the engine replays through
// the model with the same names.

/// A committed version of a file. Version 1 is the version a new file is created at.
public struct Version: Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public init(integerLiteral value: Int) { self.rawValue = value }
    public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }
    public var next: Version { Version(rawValue + 1) }
    public var description: String { "v\(rawValue)" }
}

/// Shared shape of the identifier types: a number chosen by the caller.
public protocol ModelIdentifier: Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
where IntegerLiteralType == Int {
    var rawValue: Int { get }
    init(_ rawValue: Int)
    static var letter: String { get }
}

extension ModelIdentifier {
    public init(integerLiteral value: Int) { self.init(value) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "\(Self.letter)\(rawValue)" }
}

/// An operating-system process. A machine crash ends every process; a kill ends one.
public struct ProcessID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "p" }
}

/// A confinement context: a thread, a dispatch queue or an actor (see `ContextKind`).
public struct ContextID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "c" }
}

/// A `Realm` instance: a live realm cached per context and configuration, or a frozen realm.
public struct RealmID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "r" }
}

/// An accessor the caller holds: an object (managed or unmanaged), a Results or a List.
public struct HandleID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "h" }
}

/// The identity of a stored object. Never reused within a file, so an accessor of a deleted
/// object stays invalid even when an object with the same primary key is created later.
public struct ObjectID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "o" }
}

/// A `ThreadSafeReference`.
public struct ReferenceID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "t" }
}

/// A `@ThreadSafe` property: a cell any context may assign and read.
public struct CellID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "s" }
}

/// An observer, identified with its `NotificationToken`.
public struct ObserverID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "n" }
}

/// An async write: a queued block, or an async commit (the id `cancelAsyncWrite` takes).
public struct AsyncWriteID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "a" }
}

/// An iteration over Results in progress.
public struct IteratorID: ModelIdentifier {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static var letter: String { "i" }
}
