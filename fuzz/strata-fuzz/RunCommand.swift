import Foundation
import StrataCheck
import StrataCommandLine
import StrataStorage

/// `strata-fuzz run`: a campaign under a time or operation budget; on the first failure, the
/// shrunk run's artifact, its replay token and exit 1.
enum RunCommand: FuzzCommand {
    /// A progress line at least this often (the campaign reports between runs).
    static let progressSeconds = 10.0
    /// The budget when neither --seconds nor --ops is given.
    static let secondsDefault = 60.0
    static let threadsDefault = 3
    /// `ReplayToken` accepts 1...16 threads, so a campaign may use no more.
    static let threadsRange = 1...16
    static let operationsPerRunDefault = 200
    static let shrinkSecondsDefault = 60.0
    /// `--defect plantedCrashInCommit`: `SeededBugs.plantedCrashInCommit`.
    static let plantedCrashDefect = "plantedCrashInCommit"
    static let outDefault = "fuzz/artifacts"

    static let spec = CommandSpec(
        name: "run",
        summary: "Check run after run against the model; stop at the first failure.",
        discussion: """
            Each run draws its operations, thread schedule and crash points from one choice \
            stream seeded by the campaign seed (run k of shard I/N uses seed + k*N + I), so \
            the same arguments give the same runs. Without --seed a random seed is chosen \
            and printed. --seconds and --ops are two kinds of budget: give one (default: 60 \
            seconds).

            Modes: controlled (controlled threads, no crashes), crash (controlled threads, \
            power loss inside and between commits, every crash image checked), free (real \
            threads left to the OS on one real file, checked afterwards from version \
            stamps), mixed (alternates controlled and crash, makes one run in eight free and \
            puts another on a real file), process (--threads writer processes on one real \
            file, SIGKILLed at random moments; after each kill the file is verified and \
            checked against every acknowledged commit; --ops counts acknowledged commits). \
            Crash runs need --store sim; process runs need a real file. A free run cannot be \
            replayed bit for bit or shrunk: its token re-runs the same thread programs, and \
            its artifact holds the evidence (the failing event, the commits around it, every \
            thread's log). --ops-per-run is shared out among a free run's threads.

            A progress line comes at least every 10 s; the summary ends with 'trace digest:', \
            which is the same on every machine for the same --ops, --seed, --mode \
            controlled and --store sim. On a failure, the run is shrunk, written as an \
            artifact directory under --out, its replay token is printed, and the exit code \
            is 1. A process campaign's failure is neither shrunk nor given a token (the OS \
            chose its interleaving): its artifact records the command that re-runs its plan, \
            every option that shapes the campaign included, and 'replay' of the artifact \
            runs that command.
            """,
        options: options,
        examples: [
            "strata-fuzz run",
            "strata-fuzz run --seconds 3600 --shard 0/4 --json",
            "strata-fuzz run --ops 300 --seed 5 --mode controlled --store sim",
            "strata-fuzz run --mode free --seconds 30",
            "strata-fuzz run --mode process --seconds 60 --threads 3",
        ]
    )

    private static let options: [OptionSpec] = [
        .value("seconds", valueName: "N", help: "Stop after N seconds.", default: "60"),
        .value(
            "ops", valueName: "N",
            help: "Stop after N checked operations in all (process mode: N acknowledged commits)."),
        .value("seed", valueName: "S", help: "The campaign seed.", default: "random"),
        .value(
            "threads", valueName: "K",
            help: "Threads per run (1 to 16): controlled, a free run's real threads, or "
                + "process mode's writer processes.",
            default: "3"),
        .value(
            "mode", valueName: "MODE", help: "controlled, crash, mixed, free or process.",
            default: "mixed"),
        .value(
            "store", valueName: "STORE",
            help: "sim (simulated disk) or file (a real file; no crashes).",
            default: "file for free runs, else sim; mixed puts one run in eight on a file"),
        .value(
            "shard", valueName: "I/N", help: "Run shard I of N (seeds seed + k*N + I).",
            default: "0/1"),
        .value(
            "out", valueName: "DIR", help: "Where a failure's artifact directory goes.",
            default: outDefault),
        .flag("json", help: "Print JSON objects, one a line, instead of text."),
        .value(
            "ops-per-run", valueName: "N", help: "Operations per run.",
            default: String(operationsPerRunDefault)),
        .flag("no-shrink", help: "Report a failure as found, without shrinking it."),
        .value(
            "exclude", valueName: "KINDS",
            help: "Operation kinds no run makes, comma-separated (for example the kinds of a known open finding).",
            default: "none"),
        .value(
            "shrink-seconds", valueName: "N", help: "Shrink a failure for at most N seconds.",
            default: "60"),
        .value(
            "kills", valueName: "N",
            help: "Process mode: stop after N kills as well (whichever budget ends first).",
            default: "no limit"),
        .flag(
            "keep-going",
            help: "Go on after a failure until the budget is spent: every failing run is "
                + "reported (shrunk, with its artifact). A run that crashes the process is "
                + "reported and the campaign goes on in a new child process from the next run, "
                + "with what is left of the budget (--ops: less the crashed child's runs at "
                + "--ops-per-run each)."),
        .value(
            "first-run", valueName: "K",
            help: "Start the campaign at its run K (seed + K*N + I): what --keep-going gives "
                + "the child that goes on after a crash.",
            default: "0"),
        .flag(
            "in-process",
            help: "Run the campaign in this process. By default it runs in a child process, so "
                + "a run that crashes the process (a trap, a bad pointer) is reported as a "
                + "failure with its seed and replay token."),
        .value(
            "flight-recorder", valueName: "FILE",
            help: "With --in-process: record each run in flight in FILE (what the supervising "
                + "parent reads when this process dies).",
            default: "none"),
        .value(
            "defect", valueName: "NAME",
            help: "To measure the harness: run with a known defect that it must catch. Process "
                + "mode: neverReclaimDeadReaders (a seeded engine bug in every child) or "
                + "acknowledgeBeforeCommit (children report a commit before making it); other "
                + "modes: any seeded bug of 'strata-fuzz bugs --list' not marked (processes), or plantedCrashInCommit (a commit that dereferences a bad pointer: a test of the crash report).",
            default: "none"),
    ]

    static func run(_ command: ParsedCommand) throws -> Int32 {
        if command.value("mode") == ProcessRunPlan.modeName { return try ProcessRun.run(command) }
        if command.value("kills") != nil {
            throw command.usageError("--kills applies to --mode process only")
        }
        let plan = try RunPlan(command)
        // The campaign runs in a child, so a run that crashes the process is reported as a
        // failure with its seed and token.
        var arguments = Array(CommandLine.arguments.dropFirst())
        if plan.seedIsRandom { arguments += ["--seed", String(plan.campaign.seed)] }
        let started = Date()
        var childFirstRun = plan.firstRun
        var childOperations = plan.campaign.operations
        if let code = try Supervision.superviseOrPrepare(
            command, arguments: arguments,
            onCrash: { crash in
                let artifact = Result { try Supervised.writeArtifact(crash, into: plan.outDirectory) }
                var next: [String]?
                if plan.keepGoing, let crashedRun = crash.inFlight?.campaignRun {
                    next = Self.resumption(
                        after: crashedRun, of: plan, arguments: arguments, started: started,
                        childFirstRun: &childFirstRun, childOperations: &childOperations)
                }
                RunOutput(plan: plan).crash(
                    crash, artifact: (try? artifact.get()) ?? nil,
                    resumingAt: next == nil ? nil : childFirstRun)
                if case .failure(let error) = artifact {
                    throw FuzzFailure.artifactNotWritten(
                        directory: plan.outDirectory, reason: error.localizedDescription)
                }
                return next.map { .rerun($0) } ?? .exit(ExitCode.failure)
            })
        {
            return code
        }
        let output = RunOutput(plan: plan)
        output.start()
        let report = plan.campaign.run(
            firstRun: plan.firstRun,
            stopAtFirstFailure: !plan.keepGoing,
            progressEvery: progressSeconds,
            progress: { output.progress($0) })
        guard !report.failures.isEmpty else {
            output.summary(report)
            return ExitCode.ok
        }
        var unwritten: (any Error)?
        for found in report.failures {
            // The token goes out before the artifact is attempted: it alone replays the failure
            // (a free run's token re-runs its programs; its evidence is the artifact's log).
            let written = Result { () throws -> String in
                if let free = found.free {
                    return try FreeArtifact.write(free, seed: found.seed, into: plan.outDirectory)
                }
                return try Artifact.write(
                    found.shrunk, settings: found.settings, seed: found.seed, into: plan.outDirectory)
            }
            output.failure(found, artifact: try? written.get())
            if case .failure(let error) = written { unwritten = unwritten ?? error }
        }
        output.summary(report)
        if let unwritten {
            throw FuzzFailure.artifactNotWritten(
                directory: plan.outDirectory, reason: unwritten.localizedDescription)
        }
        return ExitCode.failure
    }

    /// The arguments of the child that goes on after run `crashedRun` crashed its process
    /// (`--keep-going`), or nil when the budget is spent: it starts at the next run with what
    /// is left of the budget. A child's runs do at most --ops-per-run operations each, so an
    /// --ops budget shrinks by that much per run the crashed child started.
    private static func resumption(
        after crashedRun: Int, of plan: RunPlan, arguments: [String], started: Date,
        childFirstRun: inout Int, childOperations: inout Int?
    ) -> [String]? {
        let runsDone = max(1, crashedRun + 1 - childFirstRun)
        childFirstRun = crashedRun + 1
        var next = Supervision.setting("first-run", to: String(childFirstRun), in: arguments)
        if let seconds = plan.campaign.seconds {
            let left = seconds - Date().timeIntervalSince(started)
            guard left > 0 else { return nil }
            next = Supervision.setting("seconds", to: String(left), in: next)
        }
        if let operations = childOperations {
            let left = operations - runsDone * plan.campaign.operationsPerRun
            guard left > 0 else { return nil }
            childOperations = left
            next = Supervision.setting("ops", to: String(left), in: next)
        }
        return next
    }
}

/// The validated arguments of `run`, and the campaign they make.
struct RunPlan {
    var campaign: Campaign
    /// Whether the seed was drawn at random (no --seed).
    var seedIsRandom: Bool
    var shard: Shard
    var outDirectory: String
    var json: Bool
    /// The seeded bug `--defect` switched on, by name.
    var defect: String?
    /// `--keep-going`: report every failure and go on, after a crash too.
    var keepGoing: Bool
    /// `--first-run`: the campaign's first run.
    var firstRun: Int

    init(_ command: ParsedCommand) throws(UsageError) {
        let mix = try Self.mix(command)
        let store = try Self.store(command)
        if mix == .crash, store == .file {
            throw command.usageError(
                "--mode crash needs --store sim (a real file cannot be captured at a crash)")
        }
        let budget = try Self.budget(command)
        let givenSeed = try command.uint64("seed")
        let shrinkSeconds = try command.double(
            "shrink-seconds", default: RunCommand.shrinkSecondsDefault)
        guard shrinkSeconds > 0 else {
            throw command.usageError("--shrink-seconds must be more than 0 (got \(shrinkSeconds))")
        }
        shard = try command.shard("shard", default: .whole)
        seedIsRandom = givenSeed == nil
        outDirectory = command.value("out") ?? RunCommand.outDefault
        json = command.flag("json")
        defect = command.value("defect")
        keepGoing = command.flag("keep-going")
        firstRun = try command.int("first-run", default: 0, range: 0...)
        campaign = Campaign(
            mix: mix,
            store: store,
            threads: try command.int(
                "threads", default: RunCommand.threadsDefault, range: RunCommand.threadsRange),
            operationsPerRun: try command.int(
                "ops-per-run", default: RunCommand.operationsPerRunDefault, range: 1...),
            seconds: budget.seconds,
            operations: budget.operations,
            seed: givenSeed ?? UInt64.random(in: 0...UInt64.max),
            shardIndex: shard.index,
            shardCount: shard.count,
            engineBugs: try Self.seededBug(command),
            modelMutation: nil,
            scratchDirectory: CheckSettings.defaultScratchDirectory,
            shrinks: !command.flag("no-shrink"),
            shrinkSeconds: shrinkSeconds)
        campaign.excludedKinds = try command.operationKinds("exclude")
    }

    /// `--defect` outside process mode: a seeded bug of the catalog that one process shows.
    static func seededBug(_ command: ParsedCommand) throws(UsageError) -> SeededBugSet {
        guard let name = command.value("defect") else { return [] }
        // The planted crash (test-only, not a bug of the catalog): proves that a crash inside
        // a run is reported (Docs/harness.md "A crash inside a run").
        if name == RunCommand.plantedCrashDefect { return .engine(.plantedCrashInCommit) }
        guard let bug = SeededBugCatalog.named(name), !bug.needsProcesses else {
            throw command.usageError(
                "--defect expects a seeded bug of 'strata-fuzz bugs --list' that one process shows "
                    + "(got '\(name)')")
        }
        return bug.bug
    }

    /// `--mode`.
    private static func mix(_ command: ParsedCommand) throws(UsageError) -> Campaign.Mix {
        let text = command.value("mode") ?? Campaign.Mix.mixed.rawValue
        guard let mix = Campaign.Mix(rawValue: text) else {
            throw command.usageError(
                "--mode expects controlled, crash, mixed, free or process (got '\(text)')")
        }
        return mix
    }

    /// `--store`, or nil for the mixed default.
    private static func store(_ command: ParsedCommand) throws(UsageError) -> CheckStore? {
        guard let text = command.value("store") else { return nil }
        guard let store = CheckStore(rawValue: text) else {
            let names = CheckStore.allCases.map(\.rawValue).joined(separator: " or ")
            throw command.usageError("--store expects \(names) (got '\(text)')")
        }
        return store
    }

    /// `--seconds` or `--ops`, never both; 60 seconds when neither is given.
    private static func budget(
        _ command: ParsedCommand
    ) throws(UsageError) -> (seconds: Double?, operations: Int?) {
        let seconds = try command.double("seconds")
        let operations = try command.int("ops", range: 1...)
        switch (seconds, operations) {
        case (.some, .some):
            throw command.usageError(
                "--seconds and --ops cannot be used together (give one budget)")
        case (let seconds?, nil):
            guard seconds > 0 else {
                throw command.usageError("--seconds must be more than 0 (got \(seconds))")
            }
            return (seconds, nil)
        case (nil, let operations?):
            return (nil, operations)
        case (nil, nil):
            return (RunCommand.secondsDefault, nil)
        }
    }
}
