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
            A malformed token, a missing directory or a directory without token.txt is a \
            usage error (exit 2).
            """,
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
