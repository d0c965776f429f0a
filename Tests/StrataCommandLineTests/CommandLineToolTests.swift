import Testing

@testable import StrataCommandLine

@Suite("CommandLineTool")
struct CommandLineToolTests {
    /// Runs `execute` and returns its exit code with what it wrote to each stream.
    private func execute(
        _ arguments: [String],
        body: (ParsedCommand) throws -> Int32 = { _ in ExitCode.ok }
    ) -> (code: Int32, output: [String], errors: [String]) {
        var output: [String] = []
        var errors: [String] = []
        let code = CommandLineTool.execute(
            spec: Fixtures.tool,
            arguments: arguments,
            output: { output.append($0) },
            errorOutput: { errors.append($0) },
            body: body
        )
        return (code, output, errors)
    }

    @Test func exitCodeValues() {
        #expect(ExitCode.ok == 0)
        #expect(ExitCode.failure == 1)
        #expect(ExitCode.usage == 2)
        #expect(ExitCode.ioError == 3)
    }

    @Test func helpGoesToOutputWithExitZero() {
        var ran = false
        let result = execute(["verify", "--help"]) { _ in
            ran = true
            return ExitCode.failure
        }
        #expect(result.code == ExitCode.ok)
        #expect(!ran)
        #expect(result.errors == [])
        #expect(
            result.output
                == [HelpFormatter.render(Fixtures.verify, commandPath: ["strata-tool", "verify"])])
    }

    @Test func usageErrorGoesToErrorsWithExitTwo() {
        let result = execute(["verify", "db", "--jsn"])
        #expect(result.code == ExitCode.usage)
        #expect(result.output == [])
        #expect(
            result.errors == [
                "strata-tool verify: unknown option --jsn (did you mean --json?)\n"
                    + "Run 'strata-tool verify --help' for usage."
            ])
    }

    @Test func bodyReceivesParsedCommandAndChoosesExitCode() {
        var seen: [String] = []
        let result = execute(["stat", "db.strata"]) { command in
            seen = command.subcommandPath + [command.positional("FILE") ?? "?"]
            return ExitCode.ioError
        }
        #expect(result.code == ExitCode.ioError)
        #expect(seen == ["stat", "db.strata"])
        #expect(result.errors == [])
    }

    @Test func usageErrorFromBodyIsReportedAsUsage() {
        let result = execute(["verify", "db", "--records", "0"]) { command in
            _ = try command.int("records", default: 100_000, range: 1...)
            return ExitCode.ok
        }
        #expect(result.code == ExitCode.usage)
        #expect(
            result.errors == [
                "strata-tool verify: --records must be at least 1 (got 0)\n"
                    + "Run 'strata-tool verify --help' for usage."
            ])
    }

    @Test func otherErrorFromBodyIsAFailure() {
        struct Corrupt: Error, CustomStringConvertible {
            var description: String { "page 7 checksum mismatch" }
        }
        let result = execute(["stat", "db"]) { _ in throw Corrupt() }
        #expect(result.code == ExitCode.failure)
        #expect(result.errors == ["strata-tool stat: error: page 7 checksum mismatch"])
    }
}
