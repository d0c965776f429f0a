/// A page's index in the file: byte offset = page number × page size. Page 0 is the header.
public struct PageNumber: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
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
    public init(_ value: UInt64) { rawValue = value }
    /// Never written by a commit: the version of a page that has not been written yet.
    public static let none = Version(0)
    public static func < (a: Version, b: Version) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "v\(rawValue)" }
    public var next: Version { Version(rawValue + 1) }
}

/// The key of an object (row) within its table.
public struct ObjectKey: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ value: Int64) { rawValue = value }
    public static func < (a: ObjectKey, b: ObjectKey) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "k\(rawValue)" }
}

/// A table's permanent identifier within a file (links name their target table by it).
public struct TableID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ value: UInt32) { rawValue = value }
    public static func < (a: TableID, b: TableID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "t\(rawValue)" }
}
