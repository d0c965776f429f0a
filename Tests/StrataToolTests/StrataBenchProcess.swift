import Foundation

/// Runs the built `strata-bench` binary as a child process and captures what it printed.
///
/// The binary sits beside the test bundle in the build directory (`swift build --build-tests`
/// builds it because StrataToolTests depends on the target). Output goes through temporary
/// files rather than pipes so a chatty child can never block on a full pipe.
struct StrataBenchProcess {
    /// What one run of the bench did.
    struct Outcome {
        let exitCode: Int32
        let standardOutput: String
        let standardError: String

        /// Non-empty stdout lines.
        var outputLines: [String] {
            standardOutput.split(separator: "\n").map(String.init)
        }
    }

    /// A run longer than this is a hang: the test fails instead of waiting forever.
    static let runSecondsMax = 120.0

    /// The path of the `strata-bench` executable.
    static func executableURL() throws -> URL {
        let candidates = searchDirectories().map { $0.appendingPathComponent("strata-bench") }
        guard
            let found = candidates.first(where: {
                FileManager.default.isExecutableFile(atPath: $0.path)
            })
        else {
            throw BenchProcessError.binaryNotFound(searched: candidates.map(\.path))
        }
        return found
    }

    /// Directories that may hold the built products: the test binary's own directory, and the
    /// bundle's directory and its parent (where the `.xctest` bundle is a directory).
    private static func searchDirectories() -> [URL] {
        var directories: [URL] = []
        let ownExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        directories.append(ownExecutable.deletingLastPathComponent())
        let bundle = Bundle(for: BundleMarker.self).bundleURL
        directories.append(bundle)
        directories.append(bundle.deletingLastPathComponent())
        return directories
    }

    /// Runs `strata-bench arguments` to completion.
    static func run(_ arguments: [String]) throws -> Outcome {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-bench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(runSecondsMax)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                process.waitUntilExit()
                throw BenchProcessError.timedOut(arguments: arguments)
            }
            usleep(20_000)
        }
        return Outcome(
            exitCode: process.terminationStatus,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8))
    }
}

enum BenchProcessError: Error, CustomStringConvertible {
    case binaryNotFound(searched: [String])
    case timedOut(arguments: [String])

    var description: String {
        switch self {
        case .binaryNotFound(let searched):
            return "strata-bench not found; looked at " + searched.joined(separator: ", ")
        case .timedOut(let arguments):
            return "strata-bench \(arguments.joined(separator: " ")) ran over "
                + "\(StrataBenchProcess.runSecondsMax) s"
        }
    }
}

/// A class of this module, for `Bundle(for:)`.
private final class BundleMarker {}
