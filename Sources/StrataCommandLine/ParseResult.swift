/// What the parser made of the arguments: a command to run, or a request for help.
public enum ParseResult: Sendable, Equatable {
    /// The arguments were valid; run this command.
    case command(ParsedCommand)
    /// `--help` or `-h` was given; print help for `spec` (found at `commandPath`) and exit 0.
    case helpRequested(CommandSpec, commandPath: [String])
}
