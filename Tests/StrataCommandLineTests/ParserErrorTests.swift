import Testing

@testable import StrataCommandLine

@Suite("Parsing errors")
struct ParserErrorTests {
    private let verifyPath = ["strata-tool", "verify"]

    @Test func unknownLongOptionSuggestsClosest() {
        let error = Fixtures.parseError(["verify", "db", "--jsn"])
        #expect(
            error
                == UsageError(
                    "unknown option --jsn (did you mean --json?)",
                    commandPath: verifyPath))
    }

    @Test func unknownLongOptionWithValueNamesOnlyTheOption() {
        let error = Fixtures.parseError(["verify", "db", "--comits=5"])
        #expect(error?.message == "unknown option --comits (did you mean --commits?)")
    }

    @Test func transposedLettersStillSuggest() {
        let error = Fixtures.parseError(["verify", "db", "--cmomits", "5"])
        #expect(error?.message == "unknown option --cmomits (did you mean --commits?)")
    }

    @Test func abbreviationSuggestsFullName() {
        let error = Fixtures.parseError(["verify", "db", "--reco", "5"])
        #expect(error?.message == "unknown option --reco (did you mean --records?)")
    }

    @Test func unknownLongOptionFarFromAnyGetsNoSuggestion() {
        let error = Fixtures.parseError(["verify", "db", "--frobnicate"])
        #expect(error?.message == "unknown option --frobnicate")
    }

    @Test func subcommandOptionIsUnknownToParent() {
        let error = Fixtures.parseError(["--json", "verify", "db"])
        #expect(error == UsageError("unknown option --json", commandPath: ["strata-tool"]))
    }

    @Test func unknownShortOption() {
        let error = Fixtures.parseError(["verify", "db", "-x"])
        #expect(error?.message == "unknown option -x")
    }

    @Test func unknownShortOptionInsideCluster() {
        let error = Fixtures.parseError(["verify", "db", "-qz"])
        #expect(error?.message == "unknown option -z")
    }

    @Test func missingValueAtEnd() {
        let error = Fixtures.parseError(["verify", "db", "--commits"])
        #expect(
            error
                == UsageError(
                    "missing value for --commits (expected N)",
                    commandPath: verifyPath))
    }

    @Test func missingValueBeforeAnotherOption() {
        let error = Fixtures.parseError(["verify", "db", "-c", "--json"])
        #expect(error?.message == "missing value for --commits (expected N)")
    }

    @Test func flagGivenAValue() {
        let error = Fixtures.parseError(["verify", "db", "--json=yes"])
        #expect(error?.message == "--json does not take a value")
    }

    @Test func missingRequiredPositional() {
        let error = Fixtures.parseError(["verify", "--json"])
        #expect(error == UsageError("missing required argument FILE", commandPath: verifyPath))
    }

    @Test func tooManyPositionals() {
        let error = Fixtures.parseError(["verify", "db", "out", "extra"])
        #expect(error?.message == "unexpected argument 'extra'")
    }

    @Test func repeatedNonRepeatableValueOption() {
        let error = Fixtures.parseError(["verify", "db", "--commits", "1", "-c", "2"])
        #expect(error?.message == "--commits may only be given once")
    }

    @Test func repeatedNonRepeatableFlag() {
        let error = Fixtures.parseError(["verify", "db", "--json", "--json"])
        #expect(error?.message == "--json may only be given once")
    }

    @Test func missingSubcommand() {
        let error = Fixtures.parseError([])
        #expect(
            error
                == UsageError(
                    "missing command (expected one of: verify, stat)",
                    commandPath: ["strata-tool"]))
    }

    @Test func unknownSubcommandSuggestsClosest() {
        let error = Fixtures.parseError(["vrify", "db"])
        #expect(error?.message == "unknown command 'vrify' (did you mean 'verify'?)")
    }

    @Test func unknownSubcommandListsChoices() {
        let error = Fixtures.parseError(["compact"])
        #expect(error?.message == "unknown command 'compact' (expected one of: verify, stat)")
    }

    @Test func positionalAfterDoubleDashIsNotASubcommand() {
        let error = Fixtures.parseError(["--", "stat"])
        #expect(error?.message == "unexpected argument 'stat'")
    }

    @Test func helpAfterDoubleDashDoesNotRescueAnError() {
        let error = Fixtures.parseError(["verify", "--jsn", "--", "--help"])
        #expect(error?.message == "unknown option --jsn (did you mean --json?)")
    }
}

@Suite("Edit distance")
struct SuggestionTests {
    @Test(arguments: [
        ("json", "json", 0), ("jsn", "json", 1), ("josn", "json", 1), ("", "abc", 3),
        ("kitten", "sitting", 3), ("commits", "cmomits", 1), ("abc", "", 3),
    ])
    func distance(lhs: String, rhs: String, expected: Int) {
        #expect(Suggestion.editDistance(lhs, rhs) == expected)
    }

    @Test func prefersNearestCandidate() {
        #expect(Suggestion.closest(to: "sed", among: ["speed", "seed"]) == "seed")
    }

    @Test func matchesIgnoringCase() {
        #expect(Suggestion.closest(to: "JSON", among: ["json"]) == "json")
    }

    @Test func rejectsDistantCandidates() {
        #expect(Suggestion.closest(to: "xy", among: ["json", "seed"]) == nil)
    }
}
