import StrataCommandLine

/// One `strata-tool` subcommand: its specification and its body.
///
/// A body returns its exit code (`ExitCode.ok`, or `.failure` when it found damage), throws
/// `UsageError` for argument problems, and lets `StorageError` escape: `ToolFailure` maps
/// those to exit codes in one place.
typealias ToolCommand = Subcommand

extension ParsedCommand {
    /// The `FILE` positional, which every subcommand requires (the parser guarantees it).
    var filePath: String {
        positional("FILE") ?? ""
    }
}

extension PositionalSpec {
    /// The `FILE` argument every subcommand takes.
    static let databaseFile = PositionalSpec.required(
        "FILE", help: "The database file (its lock file is FILE.lock).")
}
