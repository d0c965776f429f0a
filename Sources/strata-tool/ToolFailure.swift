import StrataCommandLine
import StrataStorage

/// Maps engine errors to exit codes and messages, the same way for every subcommand.
///
/// | error                                                          | exit |
/// |----------------------------------------------------------------|-----:|
/// | `isCorruption` (not a Strata file, checksum, truncated, ...)   |    1 |
/// | `.invalidArgument`, `.tableNotFound`                           |    2 |
/// | file missing or not a regular file, OS and lock-file errors,   |    3 |
/// | poisoned, read-only                                            |      |
/// | anything else (an engine rejection the tool did not expect)    |    1 |
///
/// "Not a Strata file" counts as damage (exit 1), not as an I/O error: the file was read,
/// and what it holds is wrong.
enum ToolFailure {
    /// The exit code for `error`.
    static func exitCode(for error: StorageError) -> Int32 {
        if error.isCorruption { return ExitCode.failure }
        switch error {
        case .invalidArgument, .tableNotFound:
            return ExitCode.usage
        case .fileNotFound, .io, .noSpace, .notARegularFile, .poisoned, .mapCapacityExceeded, .incompatibleLockFile,
            .lockFileUnavailable,
            .tooManyReaders, .readOnly, .closed, .crashed:
            return ExitCode.ioError
        default:
            return ExitCode.failure
        }
    }

    /// What kind of failure `error` is, as the first word of the message.
    static func label(for error: StorageError) -> String {
        switch exitCode(for: error) {
        case ExitCode.ioError: return "I/O error"
        case ExitCode.usage: return "usage error"
        default: return error.isCorruption ? "corrupt" : "error"
        }
    }

    /// Runs `body`; a `StorageError` it throws is printed to stderr and becomes the exit code.
    static func reporting(
        _ command: ParsedCommand,
        _ body: () throws -> Int32
    ) throws -> Int32 {
        do {
            return try body()
        } catch let error as StorageError {
            let path = command.commandPath.joined(separator: " ")
            // The file is named once: first, unless the error's own text names it.
            let text = "\(error)"
            let subject = text.contains(command.filePath) ? text : "\(command.filePath): \(text)"
            StandardStreams.writeErrorLine("\(path): \(label(for: error)): \(subject)")
            return exitCode(for: error)
        }
    }
}
