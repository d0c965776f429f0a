import Foundation
import StrataStorage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh temporary directory for one test's databases, removed when released.
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

/// A seeded generator for the tests' own choices (kill delays), SplitMix64, so a failing run
/// repeats with the same schedule.
struct StrataToolTestRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A value in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(UInt64(range.count).multipliedFullWidth(by: next()).high)
    }
}

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a test that waits on other threads or processes: a hang guard only,
    /// 60 minutes, far above any plausible loaded time. Swift Testing runs tests side by side on
    /// a pool of as many threads as cores, so on a busy 2-core machine a short async test may
    /// wait minutes for a thread while long campaigns hold the pool; its time limit then counts
    /// the wait. A verdict must never depend on the machine's speed (Docs/testing.md).
    static var hangGuard: Self { .timeLimit(.minutes(60)) }
}
