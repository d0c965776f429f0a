import Testing

@testable import StrataCommandLine

@Suite("Parsing accepted forms")
struct ParserTests {
    @Test func selectsSubcommandAndPositional() throws {
        let command = try Fixtures.command(["stat", "db.strata"])
        #expect(command.subcommandPath == ["stat"])
        #expect(command.commandPath == ["strata-tool", "stat"])
        #expect(command.spec.name == "stat")
        #expect(command.positional("FILE") == "db.strata")
        #expect(command.positionalArguments == ["db.strata"])
    }

    @Test func rootCommandHasEmptySubcommandPath() throws {
        let spec = CommandSpec(
            name: "strata-bench", summary: "Benchmarks.",
            options: [.flag("json", help: "JSON.")])
        let command = try Fixtures.command(["--json"], spec: spec)
        #expect(command.subcommandPath == [])
        #expect(command.commandPath == ["strata-bench"])
        #expect(command.flag("json"))
    }

    @Test func longOptionWithSeparateValue() throws {
        let command = try Fixtures.command(["verify", "db", "--commits", "500"])
        #expect(command.value("commits") == "500")
    }

    @Test func longOptionWithEqualsValue() throws {
        let command = try Fixtures.command(["verify", "--commits=500", "db"])
        #expect(command.value("commits") == "500")
        #expect(command.positional("FILE") == "db")
    }

    @Test func equalsValueMayContainEqualsAndDashes() throws {
        let command = try Fixtures.command(["verify", "db", "--tag=a=b", "--tag=-x", "--tag="])
        #expect(command.values("tag") == ["a=b", "-x", ""])
    }

    @Test func shortOptionWithSeparateValue() throws {
        let command = try Fixtures.command(["verify", "db", "-c", "7"])
        #expect(command.value("commits") == "7")
    }

    @Test func shortOptionWithAttachedValue() throws {
        let command = try Fixtures.command(["verify", "db", "-c7", "-t=x"])
        #expect(command.value("commits") == "7")
        #expect(command.value("tag") == "x")
    }

    @Test func clusteredShortFlagsEndingInValueOption() throws {
        let command = try Fixtures.command(["verify", "db", "-qvvc", "9"])
        #expect(command.flag("quiet"))
        #expect(command.count("verbose") == 2)
        #expect(command.value("commits") == "9")
    }

    @Test func flagsDefaultToFalse() throws {
        let command = try Fixtures.command(["verify", "db", "--json"])
        #expect(command.flag("json"))
        #expect(!command.flag("quiet"))
        #expect(command.count("quiet") == 0)
        #expect(command.value("commits") == nil)
        #expect(command.values("tag") == [])
    }

    @Test func repeatableOptionCollectsValuesInOrder() throws {
        let command = try Fixtures.command(["verify", "db", "--tag", "a", "-t", "b", "--tag=c"])
        #expect(command.values("tag") == ["a", "b", "c"])
        #expect(command.value("tag") == "c")
        #expect(command.count("tag") == 3)
    }

    @Test func doubleDashEndsOptions() throws {
        let command = try Fixtures.command(["verify", "--json", "--", "--weird-name", "-c"])
        #expect(command.flag("json"))
        #expect(command.positional("FILE") == "--weird-name")
        #expect(command.positional("REPORT") == "-c")
        #expect(command.value("commits") == nil)
    }

    @Test func doubleDashMakesHelpAPositional() throws {
        let command = try Fixtures.command(["stat", "--", "--help"])
        #expect(command.positional("FILE") == "--help")
    }

    @Test func optionalPositionalMayBeOmitted() throws {
        let command = try Fixtures.command(["verify", "db"])
        #expect(command.positional("FILE") == "db")
        #expect(command.positional("REPORT") == nil)
    }

    @Test func optionalPositionalMayBeGiven() throws {
        let command = try Fixtures.command(["verify", "db", "out.txt"])
        #expect(command.positional("REPORT") == "out.txt")
    }

    @Test func singleDashAndNegativeNumbersArePositionals() throws {
        let command = try Fixtures.command(["verify", "-", "-5"])
        #expect(command.positional("FILE") == "-")
        #expect(command.positional("REPORT") == "-5")
    }

    @Test func negativeNumberIsAcceptedAsOptionValue() throws {
        let command = try Fixtures.command(["verify", "db", "--offset", "-12", "--rate", "-.5"])
        #expect(command.value("offset") == "-12")
        #expect(command.value("rate") == "-.5")
    }

    @Test func parentOptionBeforeSubcommand() throws {
        let command = try Fixtures.command(["--no-color", "verify", "db", "--json"])
        #expect(command.flag("no-color"))
        #expect(command.flag("json"))
        #expect(command.subcommandPath == ["verify"])
    }

    @Test func subcommandNameAfterPositionalIsAPositional() throws {
        let spec = CommandSpec(
            name: "tool", summary: "Tool.",
            positionals: [.required("A", help: "a"), .optional("B", help: "b")],
            subcommands: [CommandSpec(name: "run", summary: "Run.")])
        let command = try Fixtures.command(["x", "run"], spec: spec)
        #expect(command.subcommandPath == [])
        #expect(command.positionalArguments == ["x", "run"])
    }

    @Test func nestedSubcommands() throws {
        let spec = CommandSpec(
            name: "tool", summary: "Tool.",
            subcommands: [
                CommandSpec(
                    name: "pages", summary: "Pages.",
                    subcommands: [
                        CommandSpec(
                            name: "dump", summary: "Dump.",
                            positionals: [.required("PAGE", help: "Page number.")])
                    ])
            ])
        let command = try Fixtures.command(["pages", "dump", "12"], spec: spec)
        #expect(command.subcommandPath == ["pages", "dump"])
        #expect(command.positional("PAGE") == "12")
    }

    @Test(arguments: [["--help"], ["-h"]])
    func helpOnRoot(arguments: [String]) throws {
        let result = try CommandLineParser.parse(arguments, spec: Fixtures.tool)
        #expect(result == .helpRequested(Fixtures.tool, commandPath: ["strata-tool"]))
    }

    @Test(arguments: [
        ["verify", "--help"], ["verify", "-h"], ["verify", "db", "-qh"], ["verify", "-h", "db"],
    ])
    func helpOnSubcommand(arguments: [String]) throws {
        let result = try CommandLineParser.parse(arguments, spec: Fixtures.tool)
        #expect(result == .helpRequested(Fixtures.verify, commandPath: ["strata-tool", "verify"]))
    }

    @Test func helpWinsOverAnEarlierMistake() throws {
        let result = try CommandLineParser.parse(
            ["verify", "--jsn", "a", "b", "c", "--help"], spec: Fixtures.tool)
        #expect(result == .helpRequested(Fixtures.verify, commandPath: ["strata-tool", "verify"]))
    }

    @Test func helpWinsOverMissingPositional() throws {
        let result = try CommandLineParser.parse(["stat", "--help"], spec: Fixtures.tool)
        #expect(result == .helpRequested(Fixtures.stat, commandPath: ["strata-tool", "stat"]))
    }

    @Test func fixtureSpecsAreWellFormed() {
        #expect(Fixtures.tool.configurationProblems == [])
    }

    @Test func configurationProblemsAreReported() {
        let spec = CommandSpec(
            name: "bad", summary: "Bad.",
            options: [
                .flag("json", help: "a"), .flag("json", short: "j", help: "b"),
                .flag("jolly", short: "j", help: "c"), .flag("help", help: "d"),
            ],
            positionals: [.optional("A", help: "a"), .required("B", help: "b")],
            subcommands: [
                CommandSpec(name: "x", summary: "x", options: [.flag("y", short: "h", help: "")])
            ])
        #expect(
            spec.configurationProblems == [
                "bad: duplicate option --json",
                "bad: duplicate short option -j",
                "bad: --help and -h are reserved (option --help)",
                "bad: required positional B follows an optional one",
                "bad x: --help and -h are reserved (option --y)",
            ])
    }
}
