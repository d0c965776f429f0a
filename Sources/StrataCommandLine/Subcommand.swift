/// One subcommand of a tool: its specification and its body.
///
/// A body returns its exit code (`ExitCode.ok`, or `.failure` when it found what the tool looks
/// for), throws `UsageError` for argument problems, and lets the tool's own failures escape to
/// the `reporting` function the tool passes to `CommandLineTool.run(spec:subcommands:reporting:)`.
public protocol Subcommand {
    /// The name, options and help of the subcommand.
    static var spec: CommandSpec { get }

    /// Runs the subcommand on validated arguments and returns the exit code.
    static func run(_ command: ParsedCommand) throws -> Int32
}

extension CommandLineTool {
    /// The `main` of a tool made of subcommands: parses against `spec` (whose subcommands are
    /// `subcommands`' specs), runs the chosen one inside `reporting`, and exits.
    public static func run(
        spec: CommandSpec,
        subcommands: [any Subcommand.Type],
        reporting: (ParsedCommand, () throws -> Int32) throws -> Int32
    ) -> Never {
        run(spec: spec) { parsed in
            guard let name = parsed.subcommandPath.first,
                let command = subcommands.first(where: { $0.spec.name == name })
            else {
                // The parser only returns a command path it found in `spec`.
                throw parsed.usageError("missing command")
            }
            return try reporting(parsed) { try command.run(parsed) }
        }
    }
}
