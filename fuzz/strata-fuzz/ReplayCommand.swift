import Foundation
import StrataCheck
import StrataCommandLine

/// `strata-fuzz replay ARTIFACT|TOKEN`: runs a recorded choice stream again; exit 1 while it
/// still fails, 0 once it passes.
enum ReplayCommand: FuzzCommand {
    /// How the tokens this build prints start (`ReplayToken`: `sc<generation>.`).
    static let tokenPrefix = ReplayToken.currentPrefix
    /// What the help says of tokens of earlier generators (`CheckSettings.generations`).
    static let olderTokens: String = {
        let older = CheckSettings.generations.dropLast()
        guard let first = older.first, let last = older.last else { return "no earlier generator printed tokens" }
        let range =
            first == last
            ? ReplayToken.prefix(generation: first)
            : "\(ReplayToken.prefix(generation: first)) to \(ReplayToken.prefix(generation: last))"
        return "tokens printed by earlier generators, \(range), still replay as they did"
    }()

    static let spec = CommandSpec(
        name: "replay",
        summary: "Run a recorded failure again and say whether it still fails.",
        discussion: """
            Takes an artifact directory written by 'run' or 'shrink' (its token.txt is read) \
            or the one-line replay token itself (it starts with \(tokenPrefix); \(olderTokens)). \
            The token holds the \
            settings and the whole choice stream, so the run repeats exactly, on any machine. \
            A free-mode token (\(tokenPrefix)free....) re-runs the same thread programs under a new \
            interleaving, which may pass: the artifact's failure.txt and events.txt hold the \
            evidence of the original failure.

            The artifact of a process campaign ('run --mode process') holds no token: the OS \
            chose its interleaving. replay re-runs its plan instead, with the command its \
            failure.txt records (seed, writer processes, budget, kills, defect), and writes \
            a new artifact beside it if that run fails too.

            Exits 1 when the run still fails, printing the failure, and 0 when it passes now. \
            The run goes in a child process: a run that crashes the process (signal N) still \
            fails, and is reported as "the run crashed the process (signal N)". \
            A malformed token, a missing directory or a directory that holds neither \
            token.txt nor a process campaign's failure.txt is a usage error (exit 2).
            """,
        options: [
            .flag(
                "in-process",
                help: "Run in this process. By default the run goes in a child process, so a run "
                    + "that crashes the process is reported (exit 1), not fatal."),
            .value(
                "flight-recorder", valueName: "FILE",
                help: "With --in-process: record the run in flight in FILE.", default: "none"),
        ],
        positionals: [
            .required(
                "ARTIFACT|TOKEN",
                help: "An artifact directory, or a replay token (\(tokenPrefix)...).")
        ],
        examples: [
            "strata-fuzz replay fuzz/artifacts/failure-1f2e3d4c5b6a7980",
            "strata-fuzz replay \(tokenPrefix)crash.sim.3.200.0.-.-.AQIDBA",
        ]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let argument = command.positional("ARTIFACT|TOKEN") ?? ""
        if let rerun = ReplayInput.processRerun(argument) { return try replayProcessCampaign(argument, rerun, command) }
        let input = try ReplayInput.resolve(argument, acceptsToken: true, command: command)
        // The replay runs in a child: a run that crashes the process is reported as still
        // failing.
        if let code = try Supervision.superviseOrPrepare(
            command,
            onCrash: { crash in
                FuzzFormat.write(["still fails: \(crash.headline): \(crash.said)"])
                return .exit(ExitCode.failure)
            })
        {
            return code
        }
        var fields = [
            ("replaying", input.directory ?? "token"),
            ("settings", FuzzFormat.settings(input.decoded.settings)),
            ("choices", String(input.decoded.choices.count)),
        ]
        if let seed = input.seed { fields.append(("campaign seed", String(seed))) }
        FuzzFormat.write(TextFields.fields(fields))
        if input.decoded.settings.mode == .free {
            FuzzFormat.write(["note: \(FreeArtifact.replayNote)"])
        }
        let result = try input.replay()
        let operations = TextFields.counted(result.trace.count, "operation")
        guard let failure = result.failure else {
            FuzzFormat.write(["passes now: \(operations) ran without a failure"])
            return ExitCode.ok
        }
        FuzzFormat.write([
            "still fails: \(failure)",
            "operations run: \(result.trace.count)",
            "trace digest: \(FuzzFormat.digest(result.digest))",
        ])
        return ExitCode.failure
    }

    /// A process campaign's artifact: its interleaving was the OS's, so its plan runs again
    /// (`ProcessArtifact.rerunCommand`), writing any new failure's artifact beside this one.
    private static func replayProcessCampaign(_ directory: String, _ rerun: [String], _ command: ParsedCommand)
        throws -> Int32
    {
        let out = (directory as NSString).deletingLastPathComponent
        let arguments = rerun + ["--out", out.isEmpty ? "." : out]
        let root = CommandSpec(name: "strata-fuzz", summary: "", subcommands: [RunCommand.spec])
        guard case .command(let parsed) = try CommandLineParser.parse(arguments, spec: root),
            parsed.commandPath.last == RunCommand.spec.name, parsed.value("mode") == ProcessRunPlan.modeName
        else {
            throw command.usageError("'\(directory)/failure.txt' does not hold a process campaign's command")
        }
        FuzzFormat.write(
            TextFields.fields([
                ("replaying", directory),
                ("kind", "process campaign"),
                ("re-running", "strata-fuzz " + arguments.joined(separator: " ")),
            ]) + ["note: \(ProcessArtifact.replayNote)"])
        return try ProcessRun.run(parsed)
    }
}
