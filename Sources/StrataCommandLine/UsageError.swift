/// A mistake in the command-line arguments, reported to the user with exit code 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, without the command prefix, e.g. `"unknown option --jsn"`.
    public var message: String
    /// The command the error belongs to, e.g. `["strata-tool", "verify"]`.
    public var commandPath: [String]

    /// Creates a usage error for the command at `commandPath`.
    public init(_ message: String, commandPath: [String]) {
        self.message = message
        self.commandPath = commandPath
    }

    /// The text for stderr: the message prefixed by the command, then a pointer to `--help`.
    public var description: String {
        guard !commandPath.isEmpty else { return message }
        let command = commandPath.joined(separator: " ")
        return "\(command): \(message)\nRun '\(command) --help' for usage."
    }
}
