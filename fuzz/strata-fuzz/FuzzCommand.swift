import StrataCommandLine

/// One `strata-fuzz` subcommand: its specification and its body.
///
/// A body returns its exit code (`ExitCode.ok`, or `.failure` when a run failed), throws
/// `UsageError` for argument problems, and throws `FuzzFailure` when its surroundings fail:
/// `FuzzFailure.reporting` maps those to exit 3 in one place.
typealias FuzzCommand = Subcommand

/// A failure of what the driver needs around a run (scratch space, the artifact directory),
/// as opposed to a failure of the engine under test, which is exit 1.
///
/// Each case says which path or step failed and why, printed as
/// `strata-fuzz run: I/O error: fuzz/artifacts: cannot write the artifact: ...`.
enum FuzzFailure: Error, CustomStringConvertible {
    /// `Runner` could not set up its store or open the realm before the first operation.
    case runDidNotStart(reason: String)
    /// `Artifact.write` failed under `directory`.
    case artifactNotWritten(directory: String, reason: String)
    /// An artifact's token file exists but could not be read.
    case artifactNotRead(path: String, reason: String)

    var description: String {
        switch self {
        case .runDidNotStart(let reason):
            return "the run could not start: \(reason)"
        case .artifactNotWritten(let directory, let reason):
            return "\(directory): cannot write the artifact: \(reason)"
        case .artifactNotRead(let path, let reason):
            return "\(path): cannot read the artifact: \(reason)"
        }
    }

    /// Runs `body`; a `FuzzFailure` it throws is printed to stderr and becomes exit 3.
    static func reporting(
        _ command: ParsedCommand,
        _ body: () throws -> Int32
    ) throws -> Int32 {
        do {
            return try body()
        } catch let failure as FuzzFailure {
            let path = command.commandPath.joined(separator: " ")
            StandardStreams.writeErrorLine("\(path): I/O error: \(failure)")
            return ExitCode.ioError
        }
    }
}
