import Foundation
import StrataStorage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `strata-tool` to completion.
func strataTool(_ arguments: String...) throws -> ChildOutput {
    try ChildProcess.run("strata-tool", arguments)
}

/// One line of `strata-tool writer` output: `prepared|committed <version> <digest>`.
struct WriterLine: Equatable, CustomStringConvertible {
    enum Kind: String {
        case prepared
        case committed
    }

    let kind: Kind
    let version: UInt64
    /// 16 lowercase hex digits.
    let digest: String

    /// Parses a writer line; nil for anything else.
    init?(_ text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 3, let kind = Kind(rawValue: String(parts[0])),
            let version = UInt64(parts[1]), parts[2].count == 16,
            parts[2].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
        else { return nil }
        self.kind = kind
        self.version = version
        self.digest = String(parts[2])
    }

    var description: String { "\(kind.rawValue) \(version) \(digest)" }

    /// Every writer line of `lines`, with the unparseable ones reported as failures.
    static func parse(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation)
        -> [WriterLine]
    {
        lines.compactMap { text in
            let line = WriterLine(text)
            #expect(line != nil, "not a writer line: \(text)", sourceLocation: sourceLocation)
            return line
        }
    }
}

/// A digest as the tools print it: 16 lowercase hex digits.
func digestText(_ digest: UInt64) -> String {
    let digits = String(digest, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}

/// A small database made through StrataStorage, for the inspection commands.
///
/// Tables: `people` (integer primary key, 3 columns, 200 rows) and `notes` (no primary key,
/// one string longer than a page so an overflow chain exists).
struct SampleDatabase {
    let path: String
    let version: Version
    let digest: UInt64
    /// Logical pages of the newest version, the header included.
    let pageCount: Int
    static let peopleCount = 200

    static func make(at path: String) throws -> SampleDatabase {
        let store = try Store.open(.file(path))
        defer { store.close() }
        let write = try store.beginWrite()
        let people = try write.createTable("people", primaryKey: .int(column: 0))
        for id in 0..<peopleCount {
            try write.insert(
                people.id,
                values: [.int(Int64(id)), .string("person \(id)"), .int(Int64(20 + id % 50))])
        }
        let notes = try write.createTable("notes")
        try write.insert(notes.id, values: [.string(String(repeating: "long note ", count: 1000))])
        try write.insert(notes.id, values: [.string("short\nnote"), .binary([1, 2, 3])])
        let version = try write.commit()
        let read = try store.beginRead()
        defer { read.end() }
        return SampleDatabase(
            path: path, version: version, digest: try read.contentDigest(),
            pageCount: try store.statistics().pageCount)
    }
}

/// Overwrites `byteCount` bytes at `offset` of `path` with their complement (`pwrite`).
func flipBytes(path: String, offset: Int, byteCount: Int) throws {
    let descriptor = open(path, O_RDWR)
    guard descriptor >= 0 else {
        throw ChildProcessError(description: "open \(path): errno \(errno)")
    }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: byteCount)
    let readCount = bytes.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, byteCount, off_t(offset))
    }
    guard readCount == byteCount else {
        throw ChildProcessError(description: "short pread of \(path)")
    }
    bytes = bytes.map { ~$0 }
    let writtenCount = bytes.withUnsafeBytes {
        pwrite(descriptor, $0.baseAddress, byteCount, off_t(offset))
    }
    guard writtenCount == byteCount else {
        throw ChildProcessError(description: "short pwrite of \(path)")
    }
}

/// Parses a JSON object line printed by `--json`.
func jsonObject(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> [String: Any]
{
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], sourceLocation: sourceLocation)
}
