import Testing

@testable import StrataCommandLine

/// Specs shaped like the real tools', shared by the tests.
enum Fixtures {
    static let verify = CommandSpec(
        name: "verify",
        summary: "Check every page, checksum and tree invariant of FILE.",
        discussion: """
            Walks the newest committed version and every version still pinned by a reader. \
            Exits 1 when any check fails.

                strata-tool verify db.strata --json | jq .

            Pages are read through the mapped file, never through the write path.
            """,
        options: [
            .flag("json", help: "Print one JSON object per finding."),
            .value(
                "commits", short: "c", valueName: "N", help: "Commits to check.", default: "1000"),
            .value("tag", short: "t", valueName: "T", help: "Label the run.", repeatable: true),
            .flag("quiet", short: "q", help: "Print nothing on success."),
            .flag("verbose", short: "v", help: "Print more.", repeatable: true),
            .value("seed", valueName: "S", help: "Random seed."),
            .value("rate", valueName: "R", help: "Sampling rate."),
            .value("shard", valueName: "I/N", help: "Check only shard I of N.", default: "0/1"),
            .value("records", valueName: "N", help: "Records to check.", default: "100000"),
            .value("offset", valueName: "N", help: "Signed offset."),
        ],
        positionals: [
            .required("FILE", help: "The database file."),
            .optional("REPORT", help: "Where to write the report."),
        ],
        examples: [
            "strata-tool verify db.strata",
            "strata-tool verify db.strata --json --commits 100k",
        ]
    )

    static let stat = CommandSpec(
        name: "stat",
        summary: "Print page counts and free space of FILE.",
        positionals: [.required("FILE", help: "The database file.")]
    )

    static let tool = CommandSpec(
        name: "strata-tool",
        summary: "Inspect and check Strata database files.",
        options: [.flag("no-color", help: "Never colour the output.")],
        subcommands: [verify, stat],
        examples: ["strata-tool stat db.strata"]
    )

    /// Parses `arguments` with `tool`, expecting a command rather than help or an error.
    static func command(
        _ arguments: [String],
        spec: CommandSpec = tool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ParsedCommand {
        let result = try CommandLineParser.parse(arguments, spec: spec)
        guard case .command(let command) = result else {
            Issue.record("expected a command, got \(result)", sourceLocation: sourceLocation)
            throw FixtureError.unexpectedResult
        }
        return command
    }

    /// The usage error that parsing `arguments` raises, or `nil` when it succeeds.
    static func parseError(_ arguments: [String], spec: CommandSpec = tool) -> UsageError? {
        do {
            _ = try CommandLineParser.parse(arguments, spec: spec)
            return nil
        } catch {
            return error
        }
    }

    /// The usage error that `convert` raises for `verify FILE` plus `arguments`, or `nil`.
    static func conversionError<T>(
        _ arguments: [String],
        _ convert: (ParsedCommand) throws -> T
    ) throws -> UsageError? {
        let parsed = try command(["verify", "db"] + arguments)
        do {
            _ = try convert(parsed)
            return nil
        } catch let error as UsageError {
            return error
        }
    }

    enum FixtureError: Error {
        case unexpectedResult
    }
}
