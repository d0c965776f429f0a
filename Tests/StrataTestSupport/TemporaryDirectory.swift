import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A directory of its own for one test, named after the test and removed when the value goes.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ name: String = #function) {
        let base = FileManager.default.temporaryDirectory.path
        let cleaned = name.filter { $0.isLetter || $0.isNumber }
        path = "\(base)/strata-\(cleaned)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
