import Foundation
import StrataCheck
import StrataCommandLine

/// `strata-fuzz shrink ARTIFACT [--seconds N]`: shrinks a recorded failure further and
/// writes the smaller run as a new artifact beside the old one.
enum ShrinkCommand: FuzzCommand {
    /// The default shrink budget, the same as a campaign's.
    static let secondsDefault = 60.0

    static let spec = CommandSpec(
        name: "shrink",
        summary: "Shrink a recorded failure further and write the smaller run beside it.",
        discussion: """
            Replays ARTIFACT's token; when it still fails, shrinks the choice stream for at \
            most --seconds (every candidate must fail the same way) and writes the result as \
            a new artifact in ARTIFACT's parent directory, the directory 'run --out' wrote \
            it to. The old artifact is left as it is.

            Exits 1 when the failure reproduces (an artifact was written), 0 when the \
            recorded run passes now (nothing to shrink), 2 on a usage error, including a \
            free-mode or process-campaign artifact (their interleavings are not recorded, so \
            they cannot shrink; 'replay' re-runs them).
            """,
        options: [
            .value(
                "seconds", valueName: "N", help: "Shrink for at most N seconds.",
                default: "60"),
            .flag(
                "in-process",
                help: "Run in this process. By default the run goes in a child process, so a run "
                    + "that crashes the process is reported (exit 1), not fatal."),
            .value(
                "flight-recorder", valueName: "FILE",
                help: "With --in-process: record the run in flight in FILE.", default: "none"),
        ],
        positionals: [
            .required("ARTIFACT", help: "An artifact directory written by 'run' or 'shrink'.")
        ],
        examples: [
            "strata-fuzz shrink fuzz/artifacts/failure-1f2e3d4c5b6a7980",
            "strata-fuzz shrink fuzz/artifacts/failure-1f2e3d4c5b6a7980 --seconds 600",
        ]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let seconds = try command.double("seconds", default: secondsDefault)
        guard seconds > 0 else {
            throw command.usageError("--seconds must be more than 0 (got \(seconds))")
        }
        let argument = command.positional("ARTIFACT") ?? ""
        let input = try ReplayInput.resolve(argument, acceptsToken: false, command: command)
        let settings = input.decoded.settings
        if settings.mode == .free {
            throw command.usageError(
                "'\(argument)' is a free-mode artifact, which cannot be shrunk: "
                    + FreeArtifact.replayNote)
        }
        // Shrinking runs in a child: a run that crashes the process (the artifact's own or a
        // candidate's) is reported with its token and an artifact beside the old one; a crash
        // is not shrunk further.
        if let code = try Supervision.superviseOrPrepare(
            command,
            onCrash: { crash in
                var lines = ["crashes: \(crash.headline): \(crash.said)"]
                let parent = (argument as NSString).deletingLastPathComponent
                if let path = try? Supervised.writeArtifact(crash, into: parent.isEmpty ? "." : parent),
                    let token = crash.inFlight?.token
                {
                    lines += TextFields.fields([("artifact", path), ("replay token", token)])
                }
                FuzzFormat.write(lines)
                return .exit(ExitCode.failure)
            })
        {
            return code
        }
        FuzzFormat.write(
            TextFields.fields([
                ("shrinking", argument),
                ("settings", FuzzFormat.settings(settings)),
            ]))
        let original = try input.replay()
        guard let failure = original.failure else {
            let operations = TextFields.counted(original.trace.count, "operation")
            FuzzFormat.write(["passes now: \(operations) ran without a failure; nothing to shrink"])
            return ExitCode.ok
        }
        FuzzFormat.write(["reproduces: \(failure)"])
        let outcome = Shrinker(settings: settings, timeLimit: seconds).shrink(original)
        let parent = (argument as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        let path: String
        do {
            path = try Artifact.write(
                outcome.result, settings: outcome.settings, seed: input.seed, into: directory)
        } catch {
            throw FuzzFailure.artifactNotWritten(
                directory: directory, reason: error.localizedDescription)
        }
        FuzzFormat.write(report(original: original, outcome: outcome, settings: outcome.settings))
        FuzzFormat.write(TextFields.fields([("artifact", path)]))
        return ExitCode.failure
    }

    /// Old and new sizes, the shrink's cost, and the new token.
    private static func report(
        original: RunResult,
        outcome: Shrinker.Outcome,
        settings: CheckSettings
    ) -> [String] {
        let shrunk = outcome.result
        var lines = TextFields.fields([
            ("old", "\(original.trace.count) operations, \(original.choices.count) choices"),
            ("new", "\(shrunk.trace.count) operations, \(shrunk.choices.count) choices"),
            (
                "shrink time",
                "\(FuzzFormat.seconds(outcome.seconds)), "
                    + TextFields.counted(outcome.runs, "run")
            ),
            ("failure", shrunk.failure?.description ?? "none"),
        ])
        // What each pass did (attempts, kept candidates, operations and draws removed).
        if !outcome.passLines.isEmpty { lines += ["shrink passes:"] + outcome.passLines }
        if shrunk.choices == original.choices {
            lines.append("no smaller failing run found within the budget")
        }
        let token = ReplayToken.encode(settings: settings, choices: shrunk.choices)
        lines.append("replay token: " + token)
        return lines
    }
}
