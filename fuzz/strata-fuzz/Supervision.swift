import StrataCheck
import StrataCommandLine

/// The supervision `run`, `replay` and `shrink` share (Docs/harness.md "A crash inside a run").
enum Supervision {
    /// Without `--in-process`, re-runs this command in a child with `arguments` and returns the
    /// child's exit code, or what `onCrash` makes of a crash. In the child (or when this
    /// program's path is unknown, so it runs here unsupervised) installs the flight recorder
    /// and returns nil: the caller then does the work in this process.
    static func superviseOrPrepare(
        _ command: ParsedCommand,
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        onCrash: (Supervised.Crash) throws -> Int32
    ) throws -> Int32? {
        if !command.flag(Supervised.inProcessFlag) {
            switch Supervised.runInChild(arguments) {
            case .exited(let code)?:
                return code
            case .crashed(let crash)?:
                return try onCrash(crash)
            case nil:
                break
            }
        }
        do {
            try Supervised.installRecorder(path: command.value(Supervised.flightRecorderOption))
        } catch {
            throw command.usageError("cannot make the flight recorder: \(error)")
        }
        return nil
    }
}
