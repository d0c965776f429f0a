import Foundation
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The harness survives the code it tests (Docs/harness.md "A crash inside a run"): `strata-fuzz
/// run`, `replay` and `shrink` do their work in a child process (the same command with
/// `--in-process --flight-recorder FILE`), whose stdout is the parent's. When the child ends
/// normally, its exit code is the command's. When a signal kills it (an engine trap, a SIGSEGV,
/// a failed runtime check in the API or the harness), the parent reads the run the child had in
/// flight from the flight recorder (`FlightRecorder`: its replay token, and its campaign seed
/// when a campaign ran it) and reports the crash as a failure of that run.
public enum Supervised {
    public enum Outcome: Sendable {
        /// The child ended by itself with this exit code.
        case exited(Int32)
        /// A signal killed the child.
        case crashed(Crash)
    }

    /// A child killed by a signal, and what it left.
    public struct Crash: Sendable {
        public var signal: Int32
        /// The run in flight when it died; nil when it died outside any run.
        public var inFlight: FlightRecorder.InFlight?
        /// What the child wrote to stderr (already passed on to the parent's stderr).
        public var standardError: String

        /// The line of stderr that says why it died: Swift's "Fatal error", else the
        /// backtracer's "Program crashed" line, else the start of what it wrote.
        public var said: String {
            let lines = standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            if !lines.contains(where: { $0.contains("Fatal error") }),
                let crashed = lines.first(where: { $0.contains("Program crashed:") })
            {
                return crashed.trimmingCharacters(in: CharacterSet(charactersIn: "* "))
            }
            return SeededBugCatalog.trapMessage(standardError)
        }

        /// "the run crashed the process (signal 11)".
        public var headline: String { "the run crashed the process (signal \(signal))" }
    }

    /// The flag that makes a supervised command do its work in this process.
    public static let inProcessFlag = "in-process"
    /// The option that names the child's flight recorder.
    public static let flightRecorderOption = "flight-recorder"

    /// Runs `arguments` (a subcommand and its arguments) with this program in a child, with
    /// `--in-process --flight-recorder FILE` added; nil when this program's path is unknown
    /// (the caller then does the work itself). The child's stdout is this process's; its
    /// stderr is copied to this process's stderr when it ends.
    public static func runInChild(
        _ arguments: [String], scratchDirectory: String = CheckSettings.defaultScratchDirectory
    )
        -> Outcome?
    {
        guard let executable = ProcessSettings.currentExecutable() else { return nil }
        let stem = (scratchDirectory as NSString).appendingPathComponent("strata-fuzz-\(getpid())-\(UUID().uuidString)")
        let recorderPath = stem + ".flight"
        let errorPath = stem + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: recorderPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        // The recorder exists before the child starts, so a child that dies before it makes
        // its own leaves an idle file, not a missing one.
        guard (try? FlightRecorder(path: recorderPath)) != nil else { return nil }
        fflush(nil)  // what this process printed goes out before the child's output
        let pid: pid_t
        do {
            pid = try ChildSpawn.spawn(
                executable: executable,
                arguments: arguments + ["--\(inProcessFlag)", "--\(flightRecorderOption)", recorderPath],
                output: STDOUT_FILENO, error: .file(errorPath))
        } catch {
            return nil
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let standardError =
            FileManager.default.contents(atPath: errorPath)
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        if !standardError.isEmpty { FileHandle.standardError.write(Data(standardError.utf8)) }
        let signal = status & 0x7f
        guard signal != 0 else { return .exited((status >> 8) & 0xff) }
        return .crashed(
            Crash(
                signal: signal, inFlight: FlightRecorder.inFlight(path: recorderPath),
                standardError: standardError))
    }

    /// Installs the flight recorder a supervising parent named (`--flight-recorder FILE`).
    /// - Throws: `CocoaError` when the file cannot be mapped.
    public static func installRecorder(path: String?) throws {
        guard let path else { return }
        FlightRecorder.install(try FlightRecorder(path: path))
    }

    /// Writes the artifact of a crashed run: `token.txt` (replay or shrink it like any
    /// artifact) and `failure.txt` (the signal, the seed, what the process said). Returns its
    /// directory.
    public static func writeArtifact(_ crash: Crash, into directory: String) throws -> String? {
        guard let inFlight = crash.inFlight else { return nil }
        var hash = StableHash()
        hash.combine(Array(inFlight.token.utf8))
        let path = (directory as NSString).appendingPathComponent("failure-crash-\(String(hash.finalize(), radix: 16))")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        func put(_ file: String, _ text: String) throws {
            try text.write(toFile: (path as NSString).appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        try put(Artifact.tokenFile, inFlight.token + "\n")
        var summary = "failure: crash: \(crash.headline): \(crash.said)\n"
        summary += "settings: mode \(inFlight.mode.rawValue), draws recorded \(inFlight.draws)\n"
        if let seed = inFlight.seed { summary += "seed: \(seed)\n" }
        if let run = inFlight.campaignRun { summary += "campaign run: \(run)\n" }
        summary +=
            "The run killed its process, so there is no timeline: replay the token (strata-fuzz replay "
            + "runs it in a child and reports the crash).\n"
        summary += "stderr:\n\(crash.standardError.suffix(4000))\n"
        try put("failure.txt", summary)
        return path
    }
}
