import Testing

@testable import StrataCommandLine

@Suite("Help rendering")
struct HelpFormatterTests {
    private let verifyHelp = HelpFormatter.render(
        Fixtures.verify, commandPath: ["strata-tool", "verify"])
    private let rootHelp = HelpFormatter.render(Fixtures.tool, commandPath: ["strata-tool"])

    private var verifyLines: [Substring] {
        verifyHelp.split(separator: "\n", omittingEmptySubsequences: false)
    }

    @Test func startsWithUsageLine() {
        let spec = CommandSpec(
            name: "verify", summary: "Check FILE.",
            options: [.flag("json", help: "JSON output.")],
            positionals: [.required("FILE", help: "The file.")])
        let help = HelpFormatter.render(spec, commandPath: ["strata-tool", "verify"])
        #expect(help.hasPrefix("usage: strata-tool verify FILE [--json]\n\nCheck FILE.\n"))
        #expect(
            HelpFormatter.usage(spec, commandPath: ["strata-tool", "verify"])
                == "usage: strata-tool verify FILE [--json]")
    }

    @Test func usageLineShowsValuesOptionalPositionalsAndRepeats() {
        let usage = HelpFormatter.usage(Fixtures.verify, commandPath: ["strata-tool", "verify"])
        // Continuation lines start under the first argument, after "usage: strata-tool verify ".
        let indent = String(repeating: " ", count: 26)
        let expected = [
            "usage: strata-tool verify FILE [REPORT] [--json] [--commits N] [--tag T ...]"
                + " [--quiet]",
            indent + "[--verbose ...] [--seed S] [--rate R] [--shard I/N] [--records N]",
            indent + "[--offset N]",
        ]
        #expect(usage == expected.joined(separator: "\n"))
    }

    @Test func rootUsageShowsCommandPlaceholder() {
        #expect(rootHelp.hasPrefix("usage: strata-tool <command> [--no-color]\n"))
    }

    @Test func emptyCommandPathFallsBackToSpecName() {
        let usage = HelpFormatter.usage(Fixtures.stat, commandPath: [])
        #expect(usage == "usage: stat FILE")
    }

    @Test func containsSummaryAndDiscussion() {
        #expect(verifyHelp.contains("\nCheck every page, checksum and tree invariant of FILE.\n"))
        #expect(
            verifyHelp.contains(
                "Walks the newest committed version and every version still pinned by a reader. "
                    + "Exits 1 when any\ncheck fails."))
        #expect(verifyHelp.contains("\n    strata-tool verify db.strata --json | jq .\n"))
    }

    @Test func listsPositionalsWithHelp() {
        #expect(verifyLines.contains("arguments:"))
        #expect(verifyLines.contains("  FILE             The database file."))
        #expect(
            verifyLines.contains("  REPORT           Where to write the report. (optional)"))
    }

    @Test func listsEveryOptionAlignedWithDefaults() {
        // The widest label is 17 characters, so help text starts at column 19.
        let expected = [
            "options:",
            "      --json       Print one JSON object per finding.",
            "  -c, --commits N  Commits to check. (default: 1000)",
            "  -t, --tag T      Label the run. (repeatable)",
            "  -q, --quiet      Print nothing on success.",
            "  -v, --verbose    Print more. (repeatable)",
            "      --seed S     Random seed.",
            "      --rate R     Sampling rate.",
            "      --shard I/N  Check only shard I of N. (default: 0/1)",
            "      --records N  Records to check. (default: 100000)",
            "      --offset N   Signed offset.",
            "  -h, --help       Show this help and exit.",
        ]
        guard let start = verifyLines.firstIndex(of: "options:") else {
            Issue.record("no options section in:\n\(verifyHelp)")
            return
        }
        #expect(verifyLines[start..<(start + expected.count)].map(String.init) == expected)
    }

    @Test func listsExamples() {
        #expect(
            verifyHelp.hasSuffix(
                """
                examples:
                  strata-tool verify db.strata
                  strata-tool verify db.strata --json --commits 100k
                """))
    }

    @Test func rootListsSubcommandsWithSummaries() {
        #expect(rootHelp.contains("commands:\n"))
        #expect(rootHelp.contains("\n  verify          Check every page, checksum and tree"))
        #expect(
            rootHelp.contains("\n  stat            Print page counts and free space of FILE.\n"))
        #expect(rootHelp.hasSuffix("Run 'strata-tool <command> --help' for help on a command."))
        #expect(rootHelp.contains("      --no-color  Never colour the output.\n"))
    }

    @Test func everyLineFitsInWidthAndHasNoTrailingSpace() {
        for help in [verifyHelp, rootHelp] {
            for line in help.split(separator: "\n") {
                #expect(line.count <= 100, "too wide: \(line)")
                #expect(line.last != " ", "trailing space: '\(line)'")
            }
        }
    }

    @Test func longHelpTextWrapsUnderItsColumn() {
        let words = Array(repeating: "lorem", count: 40).joined(separator: " ")
        let spec = CommandSpec(
            name: "x", summary: "X.", options: [.value("size", valueName: "N", help: words)])
        let lines = HelpFormatter.render(spec, commandPath: ["x"]).split(separator: "\n")
        guard let first = lines.firstIndex(where: { $0.hasPrefix("      --size N") }) else {
            Issue.record("option line missing")
            return
        }
        let column = lines[first].firstIndex(of: "l").map {
            lines[first].distance(from: lines[first].startIndex, to: $0)
        }
        // Label "      --size N" is 14 wide; two spaces of gap put the help at column 16.
        #expect(column == 16)
        #expect(lines[first].count <= 100)
        #expect(lines[first + 1].hasPrefix(String(repeating: " ", count: 16) + "lorem"))
        #expect(lines[first + 2].hasPrefix(String(repeating: " ", count: 16) + "lorem"))
        let wrappedWords = lines[first...(first + 2)].flatMap { $0.split(separator: " ") }
        #expect(wrappedWords.filter { $0 == "lorem" }.count == 40)
    }

    @Test func veryLongLabelPutsHelpOnNextLine() {
        let spec = CommandSpec(
            name: "x", summary: "X.",
            options: [
                .value(
                    "a-really-quite-extraordinarily-long-option", valueName: "VALUE",
                    help: "Long.")
            ])
        let lines = HelpFormatter.render(spec, commandPath: ["x"]).split(separator: "\n")
        guard
            let index = lines.firstIndex(
                of: "      --a-really-quite-extraordinarily-long-option VALUE")
        else {
            Issue.record("label line missing")
            return
        }
        #expect(lines[index + 1] == String(repeating: " ", count: 34) + "Long.")
        #expect(lines.contains("  -h, --help                      Show this help and exit."))
    }

    @Test func helpPageFromToolMatchesRenderer() throws {
        let result = try CommandLineParser.parse(["verify", "-h"], spec: Fixtures.tool)
        guard case .helpRequested(let spec, let path) = result else {
            Issue.record("expected help, got \(result)")
            return
        }
        #expect(HelpFormatter.render(spec, commandPath: path) == verifyHelp)
    }
}

/// A hidden subcommand (a tool's own child process) parses and has its own help, but no list,
/// usage error or suggestion names it.
@Suite("Hidden subcommands")
struct HiddenSubcommandTests {
    private let tool = CommandSpec(
        name: "tool", summary: "A tool.",
        subcommands: [
            CommandSpec(name: "run", summary: "Run."),
            CommandSpec(
                name: "child", summary: "The child the tool starts.",
                options: [.value("id", valueName: "N", help: "Its id.")], isHidden: true),
        ])

    @Test func theParentsHelpDoesNotListIt() {
        let help = HelpFormatter.render(tool, commandPath: ["tool"])
        #expect(help.contains("run"))
        #expect(!help.contains("child"))
    }

    @Test func itParsesAndHasItsOwnHelp() throws {
        guard case .command(let parsed) = try CommandLineParser.parse(["child", "--id", "3"], spec: tool)
        else {
            Issue.record("child did not parse as a command")
            return
        }
        #expect(parsed.subcommandPath == ["child"])
        #expect(parsed.value("id") == "3")
        guard case .helpRequested(let command, _) = try CommandLineParser.parse(["child", "--help"], spec: tool)
        else {
            Issue.record("child --help was not a help request")
            return
        }
        #expect(command.name == "child")
    }

    @Test func usageErrorsDoNotNameIt() {
        #expect(throws: UsageError.self) { try CommandLineParser.parse([], spec: tool) }
        do {
            _ = try CommandLineParser.parse(["chil"], spec: tool)
            Issue.record("an unknown command parsed")
        } catch {
            #expect(!error.description.contains("child"), "\(error.description)")
        }
    }
}
