/// A page's index in the file: byte offset = page number × page size. Page 0 is the header.
public struct PageNumber: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The page numbered `value`.
    public init(_ value: UInt32) { rawValue = value }
    /// The header page; never a tree page, never free. Also used as "no page" in links.
    public static let header = PageNumber(0)
    public static func < (a: PageNumber, b: PageNumber) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "p\(rawValue)" }
    var index: Int { Int(rawValue) }
}

/// A committed state of the database. Each commit creates the next version; versions only
/// grow (Spec V: versions are totally ordered by commit order).
public struct Version: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The version numbered `value`.
    public init(_ value: UInt64) { rawValue = value }
    /// Never written by a commit: the version of a page that has not been written yet.
    public static let none = Version(0)
    public static func < (a: Version, b: Version) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "v\(rawValue)" }
    /// The largest version a commit slot may name (Spec D16): a slot naming more is damaged,
    /// so every version the engine reads fits an `Int64` and `next` of one never overflows.
    public static let maximum = Version(UInt64(Int64.max))
    /// The version after this one. Never traps: versions read from a file are at most
    /// `maximum` (Spec D16), and a write refuses to begin at `maximum`.
    public var next: Version { Version(rawValue &+ 1) }
}

/// The key of an object (row) within its table.
public struct ObjectKey: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    /// The key `value`.
    public init(_ value: Int64) { rawValue = value }
    public static func < (a: ObjectKey, b: ObjectKey) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "k\(rawValue)" }
}

/// Which object a key names, when keys are reused: tables with an integer primary key store
/// the object under its primary key, so deleting an object and creating one with the same
/// primary key reuses the key. Such a table keeps a count that only rises; an object inserted
/// gets the count as its incarnation, stored with its row and kept by updates, and deleting an
/// object whose incarnation is the count raises it. A key is free again only after its object's
/// deletion, after which the count is above that object's incarnation, so the key and the
/// incarnation together identify an object for good (an accessor of the deleted object never
/// names the new one). Until a table's first deletion every incarnation is 0 and rows carry
/// none, and the count rises at most once per batch of deletions, so rows stay small. Other tables never reuse a
/// committed key (their keys come from the table's counter): theirs is `.keyIsIdentity`.
public struct Incarnation: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The incarnation numbered `value`.
    @inlinable public init(_ value: UInt64) { rawValue = value }
    /// Rows of tables without an integer primary key, and rows written before incarnations
    /// existed (format 0x01): the key alone identifies the object. (Computed and inlinable:
    /// a stored static would cost other modules a call to its lazy initializer per use.)
    @inlinable public static var keyIsIdentity: Incarnation { Incarnation(rawValue: 0) }
    public static func < (a: Incarnation, b: Incarnation) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "i\(rawValue)" }
}

/// An object's identity at one version: its key and its incarnation (see `Incarnation`).
public struct ObjectIdentity: Hashable, Sendable, CustomStringConvertible {
    /// Where the object's row is stored in its table.
    public let key: ObjectKey
    /// Which of the objects ever stored under `key` this is.
    public let incarnation: Incarnation
    /// The identity of the object stored under `key` with `incarnation`.
    public init(key: ObjectKey, incarnation: Incarnation) {
        self.key = key
        self.incarnation = incarnation
    }
    public var description: String { "\(key)/\(incarnation)" }
}

/// A table's permanent identifier within a file (links name their target table by it).
public struct TableID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The table identifier `value`.
    public init(_ value: UInt32) { rawValue = value }
    public static func < (a: TableID, b: TableID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "t\(rawValue)" }
}
