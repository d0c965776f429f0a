import StrataCheck
import StrataCommandLine

/// The supervision `run`, `replay` and `shrink` share (Docs/harness.md "A crash inside a run").
enum Supervision {
    /// What the supervising parent does once it has reported a crash.
    enum AfterCrash {
        /// End with this exit code.
        case exit(Int32)
        /// Run the command again in a new child with these arguments (`run --keep-going`
        /// resuming its campaign after the run that crashed).
        case rerun([String])
    }

    /// Without `--in-process`, re-runs this command in a child with `arguments` and returns the
    /// child's exit code, or what `onCrash` makes of a crash (a child re-run after a crash
    /// that then ends with 0 makes the command's exit code 1: the crash was a failure). In the
    /// child (or when this program's path is unknown, so it runs here unsupervised) installs
    /// the flight recorder and returns nil: the caller then does the work in this process.
    static func superviseOrPrepare(
        _ command: ParsedCommand,
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        onCrash: (Supervised.Crash) throws -> AfterCrash
    ) throws -> Int32? {
        if !command.flag(Supervised.inProcessFlag) {
            var arguments = arguments
            var crashed = false
            supervising: while true {
                switch Supervised.runInChild(arguments) {
                case .exited(let code)?:
                    return crashed && code == ExitCode.ok ? ExitCode.failure : code
                case .crashed(let crash)?:
                    switch try onCrash(crash) {
                    case .exit(let code): return code
                    case .rerun(let next):
                        crashed = true
                        arguments = next
                    }
                case nil:
                    break supervising
                }
            }
        }
        do {
            try Supervised.installRecorder(path: command.value(Supervised.flightRecorderOption))
        } catch {
            throw command.usageError("cannot make the flight recorder: \(error)")
        }
        return nil
    }

    /// `arguments` without option `--long` (as `--long VALUE` or `--long=VALUE`), with
    /// `--long value` added when `value` is given.
    static func setting(_ long: String, to value: String?, in arguments: [String]) -> [String] {
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--\(long)" {
                index += 2
                continue
            }
            if !argument.hasPrefix("--\(long)=") { kept.append(argument) }
            index += 1
        }
        if let value { kept += ["--\(long)", value] }
        return kept
    }
}
