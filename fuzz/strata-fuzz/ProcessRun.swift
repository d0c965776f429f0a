import Foundation
import StrataCheck
import StrataCommandLine
import StrataStorage

/// `strata-fuzz run --mode process`: writer children of this same executable
/// (`child-writer`, found through /proc/self/exe) SIGKILLed at random moments; see
/// `ProcessCampaign`. Its own output (kills, acknowledged commits, verifications) in the
/// shapes `run` uses: start, progress, failure, summary, as text or JSON lines.
enum ProcessRun {
    /// Runs the campaign `command` describes; exit 0 clean, 1 a failure (artifact written).
    static func run(_ command: ParsedCommand) throws -> Int32 {
        let plan = try ProcessRunPlan(command)
        let output = ProcessOutput(plan: plan)
        let campaign: ProcessCampaign
        do {
            campaign = try ProcessCampaign(settings: plan.settings)
        } catch {
            throw FuzzFailure.runDidNotStart(reason: error.description)
        }
        output.start(campaign)
        let report = campaign.run(
            progressEvery: RunCommand.progressSeconds, progress: { output.progress($0) })
        guard report.failure != nil else {
            output.summary(report)
            return ExitCode.ok
        }
        let written = Result { try ProcessArtifact.write(report, into: plan.outDirectory) }
        if case .success = written {
            // The artifact holds a copy of the file: the campaign's scratch directory can go.
            try? FileManager.default.removeItem(
                atPath: (report.path as NSString).deletingLastPathComponent)
        }
        output.failure(report, artifact: try? written.get())
        output.summary(report)
        if case .failure(let error) = written {
            throw FuzzFailure.artifactNotWritten(
                directory: plan.outDirectory, reason: error.localizedDescription)
        }
        return ExitCode.failure
    }
}

/// The arguments of `run --mode process`.
struct ProcessRunPlan {
    static let modeName = "process"

    var settings: ProcessSettings
    var seedIsRandom: Bool
    var outDirectory: String
    var json: Bool

    init(_ command: ParsedCommand) throws(UsageError) {
        if command.value("store") == CheckStore.sim.rawValue {
            throw command.usageError(
                "--mode process needs a real file: SIGKILL cannot reach a simulated disk "
                    + "(drop --store sim)")
        }
        for option in ["shard", "ops-per-run", "exclude"] where command.value(option) != nil {
            throw command.usageError("--\(option) does not apply to --mode process")
        }
        let (seconds, commits) = try Self.budget(command)
        guard let executable = ProcessSettings.currentExecutable() else {
            throw command.usageError("--mode process needs /proc/self/exe to start its children")
        }
        let givenSeed = try command.uint64("seed")
        seedIsRandom = givenSeed == nil
        outDirectory = command.value("out") ?? RunCommand.outDefault
        json = command.flag("json")
        settings = ProcessSettings(
            children: try command.int(
                "threads", default: RunCommand.threadsDefault, range: RunCommand.threadsRange),
            seconds: seconds, commits: commits,
            seed: givenSeed ?? UInt64.random(in: 0...UInt64.max),
            childCommand: [executable, ChildWriterCommand.spec.name],
            scratchDirectory: CheckSettings.defaultScratchDirectory)
        settings.kills = try command.int("kills", range: 1...)
        try Self.defect(command, into: &settings)
    }

    /// `--defect`: a seeded engine bug in the children or a harness mutation.
    private static func defect(_ command: ParsedCommand, into settings: inout ProcessSettings)
        throws(UsageError)
    {
        guard let name = command.value("defect") else { return }
        if name == "neverReclaimDeadReaders" {
            settings.engineBugs = .engine(.neverReclaimDeadReaders)
        } else if let mutation = ProcessMutation(rawValue: name) {
            settings.mutation = mutation
        } else {
            throw command.usageError(
                "--defect expects neverReclaimDeadReaders or acknowledgeBeforeCommit "
                    + "(got '\(name)')")
        }
    }

    /// `--seconds` or `--ops` (acknowledged commits), as `run` takes them.
    private static func budget(_ command: ParsedCommand) throws(UsageError)
        -> (seconds: Double?, commits: Int?)
    {
        let seconds = try command.double("seconds")
        let commits = try command.int("ops", range: 1...)
        if seconds != nil && commits != nil {
            throw command.usageError(
                "--seconds and --ops cannot be used together (give one budget)")
        }
        if let seconds, seconds <= 0 {
            throw command.usageError("--seconds must be more than 0 (got \(seconds))")
        }
        if seconds == nil && commits == nil { return (RunCommand.secondsDefault, nil) }
        return (seconds, commits)
    }
}

/// What `run --mode process` prints.
struct ProcessOutput {
    let plan: ProcessRunPlan

    private var settings: ProcessSettings { plan.settings }

    func start(_ campaign: ProcessCampaign) {
        if plan.json {
            var line = event("start")
            line.add("seed", settings.seed)
            line.add("seedIsRandom", plan.seedIsRandom)
            line.add("mode", "process")
            line.add("store", CheckStore.file.rawValue)
            line.add("threads", settings.children)
            line.add("seconds", settings.seconds)
            line.add("operations", settings.commits)
            line.add("plan", campaign.plan.description)
            StandardStreams.writeLine(line.render())
            return
        }
        let budget =
            settings.commits.map { TextFields.counted($0, "acknowledged commit") }
            ?? FuzzFormat.seconds(settings.seconds ?? 0)
        let origin =
            plan.seedIsRandom ? " (random; the same arguments with --seed \(settings.seed) repeat this plan)" : ""
        FuzzFormat.write([
            "strata-fuzz run: mode process, store file, \(settings.children) writer process\(settings.children == 1 ? "" : "es"), "
                + "budget \(budget)",
            "seed: \(settings.seed)\(origin)",
            "plan: \(campaign.plan)",
        ])
    }

    func progress(_ progress: ProcessCampaign.Progress) {
        let counts = progress.statistics
        let seconds = progress.seconds
        if plan.json {
            var line = event("progress")
            line.add("seconds", progress.seconds)
            add(counts, seconds: progress.seconds, to: &line)
            StandardStreams.writeLine(line.render())
            return
        }
        StandardStreams.writeLine(
            "progress \(FuzzFormat.seconds(progress.seconds)): "
                + [
                    "\(TextFields.counted(counts.kills, "kill")) survived "
                        + "(\(FuzzFormat.rate(counts.kills, seconds: progress.seconds)))",
                    "\(counts.acknowledgedCommits) acknowledged commits "
                        + "(\(FuzzFormat.rate(counts.acknowledgedCommits, seconds: seconds)))",
                    TextFields.counted(counts.verifies, "verification"),
                    TextFields.counted(counts.failures, "failure"),
                ].joined(separator: ", "))
    }

    func failure(_ report: ProcessReport, artifact: String?) {
        let failure = report.failure
        if plan.json {
            var line = event("failure")
            line.add("kind", failure?.kind.rawValue)
            line.add("message", failure?.message)
            line.add("seed", settings.seed)
            line.add("artifact", artifact)
            line.add("rerun", ProcessArtifact.rerunCommand(settings).joined(separator: " "))
            StandardStreams.writeLine(line.render())
            return
        }
        var lines = ["FAILURE (process campaign): \(failure?.description ?? "unknown")"]
        lines += TextFields.fields([
            ("seed", String(settings.seed)),
            ("plan", report.plan.description),
            ("artifact", artifact ?? "not written (see the error below)"),
            (ProcessArtifact.rerunLabel, ProcessArtifact.rerunCommand(settings).joined(separator: " ")),
        ])
        lines.append("note: \(ProcessArtifact.replayNote)")
        FuzzFormat.write(lines)
    }

    func summary(_ report: ProcessReport) {
        let counts = report.statistics
        let seconds = report.seconds
        if plan.json {
            var line = event("summary")
            line.add("seed", settings.seed)
            line.add("mode", "process")
            line.add("store", CheckStore.file.rawValue)
            line.add("threads", settings.children)
            line.add("seconds", report.seconds)
            add(counts, seconds: report.seconds, to: &line)
            StandardStreams.writeLine(line.render())
            return
        }
        let verdict = report.failure == nil ? "clean" : "1 failure"
        var lines = ["campaign: \(verdict)"]
        lines += TextFields.fields([
            ("seed", String(settings.seed)),
            ("time", FuzzFormat.seconds(report.seconds)),
            (
                "kills survived",
                "\(counts.kills) (\(FuzzFormat.rate(counts.kills, seconds: seconds))), "
                    + "\(counts.killsBeforeOpen) of them before the child opened the file"
            ),
            (
                "acknowledged commits",
                "\(counts.acknowledgedCommits) "
                    + "(\(FuzzFormat.rate(counts.acknowledgedCommits, seconds: report.seconds)))"
            ),
            (
                "commits checked",
                "\(counts.commitsChecked) (\(counts.unacknowledgedCommits) "
                    + "made durable by a child killed before it could report them)"
            ),
            ("verifications", String(counts.verifies)),
            ("respawns", String(counts.respawns)),
            ("dead readers gone", String(counts.deadReadersChecked)),
            ("must-hit probes", Self.probeText(counts.probes)),
        ])
        FuzzFormat.write(lines)
    }

    private func event(_ name: String) -> JSONLine {
        JSONLine(["event": .string(name)])
    }

    private func add(_ counts: ProcessStatistics, seconds: Double, to line: inout JSONLine) {
        line.add("kills", counts.kills)
        line.add("killsPerSecond", FuzzFormat.perSecond(counts.kills, seconds: seconds))
        line.add("killsBeforeOpen", counts.killsBeforeOpen)
        line.add("acknowledgedCommits", counts.acknowledgedCommits)
        line.add(
            "commitsPerSecond", FuzzFormat.perSecond(counts.acknowledgedCommits, seconds: seconds))
        line.add("commitsChecked", counts.commitsChecked)
        line.add("unacknowledgedCommits", counts.unacknowledgedCommits)
        line.add("verifies", counts.verifies)
        line.add("respawns", counts.respawns)
        line.add("deadReadersGone", counts.deadReadersChecked)
        line.add("failures", counts.failures)
        line.add("mustHitProbes", ProbeCoverage.mustHitInProcesses.count)
        for name in ProbeCoverage.mustHitInProcesses + ProbeCoverage.alsoCountedInProcesses {
            line.add("probe." + name, counts.probes[name] ?? 0)
        }
        line.add(
            "probesNeverHit",
            ProbeCoverage.neverHit(counts.probes, of: ProbeCoverage.mustHitInProcesses)
                .joined(separator: ","))
    }

    /// "2 of 3 hit (a 12, b 3); never hit: c" (`ProbeCoverage.mustHitInProcesses`).
    static func probeText(_ probes: [String: Int]) -> String {
        let list = ProbeCoverage.mustHitInProcesses
        let never = ProbeCoverage.neverHit(probes, of: list)
        let counts = (list + ProbeCoverage.alsoCountedInProcesses).map { "\($0) \(probes[$0] ?? 0)" }
        return "\(list.count - never.count) of \(list.count) hit"
            + (counts.isEmpty ? "" : " (\(counts.joined(separator: ", ")))")
            + (never.isEmpty ? "" : "; never hit: \(never.joined(separator: ", "))")
    }
}
