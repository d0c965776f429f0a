import Foundation
import StrataCheck
import StrataCommandLine

/// `strata-fuzz explore`: the bounded-exhaustive scheduler over tiny cases, seed after seed;
/// on the first failing schedule, the shrunk run's artifact, its replay token and exit 1.
enum ExploreCommand: FuzzCommand {
    static let spec = CommandSpec(
        name: "explore",
        summary: "Run every schedule of tiny cases (bounded exhaustive); stop at the first failure.",
        discussion: """
            For each seed, every schedule of --threads controlled threads making --ops \
            operations in all: which runnable thread goes next, and at each switch point \
            inside a commit whether another thread runs, with at most --preemptions such \
            switches per schedule. The seed fixes the mix and the operations' arguments; \
            each schedule is checked by every oracle of 'run' (the model in lockstep, \
            version stamps, the write-lock protocol). A seed is 'exhausted' when every \
            schedule within the bound ran, else --schedules ended it.

            On a failure the schedule is shrunk and written as an artifact under --out, like \
            'run'; 'replay' and 'shrink' take it. The exploration runs in a child process, \
            like 'run': a schedule that crashes the process is reported as a failure with its \
            replay token and an artifact. Exit 0 when every schedule passed, 1 on a failure, \
            2 on a usage error.
            """,
        options: [
            .value("seed", valueName: "S", help: "The first seed.", default: "1"),
            .value("seeds", valueName: "N", help: "How many seeds (S, S+1, ...).", default: "10"),
            .value("threads", valueName: "K", help: "Controlled threads (2 to 4).", default: "2"),
            .value("ops", valueName: "N", help: "Operations per schedule.", default: "8"),
            .value("preemptions", valueName: "P", help: "Switches inside commits per schedule.", default: "2"),
            .value("schedules", valueName: "N", help: "At most N schedules per seed.", default: "5000"),
            .value(
                "out", valueName: "DIR", help: "Where a failure's artifact directory goes.",
                default: RunCommand.outDefault),
            .value(
                "exclude", valueName: "KINDS",
                help: "Operation kinds no schedule makes, comma-separated.", default: "none"),
            .value("shrink-seconds", valueName: "N", help: "Shrink a failure for at most N seconds.", default: "60"),
            .value(
                "defect", valueName: "NAME",
                help: "To measure the harness: explore with a seeded bug of 'strata-fuzz bugs --list' "
                    + "that one process shows, or plantedCrashInCommit (a commit that dereferences a "
                    + "bad pointer: a test of the crash report).",
                default: "none"),
            .flag(
                "in-process",
                help: "Explore in this process. By default a child process explores, so a "
                    + "schedule that crashes the process is reported with its replay token."),
            .value(
                "flight-recorder", valueName: "FILE",
                help: "With --in-process: record each schedule in flight in FILE (what the "
                    + "supervising parent reads when this process dies).",
                default: "none"),
        ],
        examples: [
            "strata-fuzz explore",
            "strata-fuzz explore --seed 100 --seeds 50 --ops 10 --preemptions 1",
        ]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let firstSeed = try command.uint64("seed") ?? 1
        let seeds = try command.int("seeds", default: 10, range: 1...)
        let preemptions = try command.int("preemptions", default: 2, range: 0...16)
        let maximumSchedules = try command.int("schedules", default: 5000, range: 1...)
        let shrinkSeconds = try command.double("shrink-seconds", default: RunCommand.shrinkSecondsDefault)
        guard shrinkSeconds > 0 else {
            throw command.usageError("--shrink-seconds must be more than 0 (got \(shrinkSeconds))")
        }
        var settings = CheckSettings(
            mode: .controlled, store: .sim,
            threads: try command.int("threads", default: 2, range: 2...4),
            operations: try command.int("ops", default: 8, range: 1...64))
        settings.excludedKinds = try command.operationKinds("exclude")
        settings.engineBugs = try RunPlan.seededBug(command)
        let outDirectory = command.value("out") ?? RunCommand.outDefault
        if let code = try Supervision.superviseOrPrepare(
            command,
            onCrash: { crash in
                var lines = ["FAILURE: crash: \(crash.headline): \(crash.said)"]
                let artifact = Result { try Supervised.writeArtifact(crash, into: outDirectory) }
                lines += TextFields.fields([
                    ("replay token", crash.inFlight?.token ?? "none: the process died outside any schedule"),
                    ("artifact", (try? artifact.get()).flatMap { $0 } ?? "not written"),
                ])
                FuzzFormat.write(lines)
                if case .failure(let error) = artifact {
                    throw FuzzFailure.artifactNotWritten(directory: outDirectory, reason: error.localizedDescription)
                }
                return .exit(ExitCode.failure)
            })
        {
            return code
        }
        FuzzFormat.write(
            TextFields.fields([
                ("strata-fuzz explore", "seeds \(firstSeed)...\(firstSeed + UInt64(seeds) - 1)"),
                ("settings", FuzzFormat.settings(settings)),
                ("preemptions", String(preemptions)),
                ("schedules per seed", "at most \(maximumSchedules)"),
            ]))
        let started = Date()
        var total = CheckStatistics()
        var schedules = 0
        var exhaustedSeeds = 0
        for seed in firstSeed..<(firstSeed + UInt64(seeds)) {
            let explorer = ScheduleExplorer(
                settings: settings, seed: seed, preemptionBound: preemptions,
                maximumSchedules: maximumSchedules)
            let report: ScheduleExplorer.Report
            do {
                report = try explorer.explore()
            } catch {
                throw FuzzFailure.runDidNotStart(reason: "\(error)")
            }
            schedules += report.schedules
            total.add(report.statistics)
            if report.exhausted { exhaustedSeeds += 1 }
            FuzzFormat.write([
                "seed \(seed): \(TextFields.counted(report.schedules, "schedule"))"
                    + (report.exhausted ? ", exhausted" : ", budget reached")
                    + ", deepest \(report.deepest) decisions"
            ])
            if let failing = report.failure, let failure = failing.failure {
                FuzzFormat.write(["FAILURE at seed \(seed), schedule \(report.schedules): \(failure)"])
                let shrunk = Shrinker(settings: settings, timeLimit: shrinkSeconds).shrink(failing)
                let token = ReplayToken.encode(settings: shrunk.settings, choices: shrunk.result.choices)
                FuzzFormat.write([
                    "shrunk: \(failing.trace.count) -> \(shrunk.result.trace.count) operations",
                    "replay token: \(token)",
                ])
                do {
                    let path = try Artifact.write(
                        shrunk.result, settings: shrunk.settings, seed: seed, into: outDirectory)
                    FuzzFormat.write(["artifact: \(path)"])
                } catch {
                    throw FuzzFailure.artifactNotWritten(directory: outDirectory, reason: error.localizedDescription)
                }
                return ExitCode.failure
            }
        }
        let seconds = Date().timeIntervalSince(started)
        FuzzFormat.write(
            TextFields.fields([
                ("schedules", "\(schedules) (\(FuzzFormat.rate(schedules, seconds: seconds)))"),
                ("seeds exhausted", "\(exhaustedSeeds) of \(seeds)"),
                ("checked ops", "\(total.operations) (\(FuzzFormat.rate(total.operations, seconds: seconds)))"),
                ("commits", String(total.commits)),
                ("failures", "0"),
            ]))
        return ExitCode.ok
    }
}
