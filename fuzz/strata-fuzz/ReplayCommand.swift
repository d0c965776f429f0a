import StrataCheck
import StrataCommandLine

/// `strata-fuzz replay ARTIFACT|TOKEN`: runs a recorded choice stream again; exit 1 while it
/// still fails, 0 once it passes.
enum ReplayCommand: FuzzCommand {
    /// How the tokens this build prints start (`ReplayToken`: `sc<generation>.`).
    static let tokenPrefix = ReplayToken.currentPrefix

    static let spec = CommandSpec(
        name: "replay",
        summary: "Run a recorded failure again and say whether it still fails.",
        discussion: """
            Takes an artifact directory written by 'run' or 'shrink' (its token.txt is read) \
            or the one-line replay token itself (it starts with \(tokenPrefix), or an older \
            sc<generation>. for one printed by an earlier generator). The token holds the \
            settings and the whole choice stream, so the run repeats exactly, on any machine. \
            A free-mode token (\(tokenPrefix)free....) re-runs the same thread programs under a new \
            interleaving, which may pass: the artifact's failure.txt and events.txt hold the \
            evidence of the original failure.

            Exits 1 when the run still fails, printing the failure, and 0 when it passes now. \
            The run goes in a child process: a run that crashes the process (signal N) still \
            fails, and is reported as "the run crashed the process (signal N)". \
            A malformed token, a missing directory or a directory without token.txt is a \
            usage error (exit 2).
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
        let input = try ReplayInput.resolve(argument, acceptsToken: true, command: command)
        if !command.flag(Supervised.inProcessFlag) {
            // The replay runs in a child: a run that crashes the process is reported as still
            // failing (Docs/harness.md "A crash inside a run").
            switch Supervised.runInChild(Array(CommandLine.arguments.dropFirst())) {
            case .exited(let code)?:
                return code
            case .crashed(let crash)?:
                FuzzFormat.write(["still fails: \(crash.headline): \(crash.said)"])
                return ExitCode.failure
            case nil:
                break
            }
        }
        do {
            try Supervised.installRecorder(path: command.value(Supervised.flightRecorderOption))
        } catch {
            throw command.usageError("cannot make the flight recorder: \(error)")
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
}
