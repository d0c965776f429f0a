import Testing

@testable import StrataCommandLine

@Suite("UsageError")
struct UsageErrorTests {
    @Test func descriptionNamesCommandAndPointsAtHelp() {
        let error = UsageError(
            "unknown option --jsn (did you mean --json?)", commandPath: ["strata-tool", "verify"])
        #expect(
            error.description
                == "strata-tool verify: unknown option --jsn (did you mean --json?)\n"
                + "Run 'strata-tool verify --help' for usage.")
    }

    @Test func descriptionFromParser() {
        let error = Fixtures.parseError(["verify", "db", "--jsn"])
        #expect(
            error?.description
                == "strata-tool verify: unknown option --jsn (did you mean --json?)\n"
                + "Run 'strata-tool verify --help' for usage.")
    }

    @Test func descriptionWithoutPathIsJustTheMessage() {
        #expect(UsageError("bad", commandPath: []).description == "bad")
    }

    @Test func equality() {
        #expect(UsageError("a", commandPath: ["t"]) == UsageError("a", commandPath: ["t"]))
        #expect(UsageError("a", commandPath: ["t"]) != UsageError("a", commandPath: ["u"]))
        #expect(UsageError("a", commandPath: ["t"]) != UsageError("b", commandPath: ["t"]))
    }

    @Test func parsedCommandMakesErrorsForItsPath() throws {
        let command = try Fixtures.command(["stat", "db"])
        #expect(
            command.usageError("FILE must end in .strata")
                == UsageError("FILE must end in .strata", commandPath: ["strata-tool", "stat"]))
    }
}
