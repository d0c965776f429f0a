import StrataCheck
import StrataCommandLine

/// What `run` prints: a start line, progress lines, a failure and a summary, as text or as
/// JSON objects one a line (each with an `event` key: start, progress, failure, summary).
///
/// The text summary's last line is `trace digest: <16 hex digits>`; equal campaigns (same
/// budget in operations, seed, mode controlled, store sim) print equal digests.
struct RunOutput {
    let plan: RunPlan

    private var campaign: Campaign { plan.campaign }
    private var storeName: String {
        campaign.store?.rawValue ?? (campaign.mix == .free ? CheckStore.file.rawValue : "mixed")
    }

    func start() {
        let budget =
            campaign.operations.map { TextFields.counted($0, "checked op") }
            ?? FuzzFormat.seconds(campaign.seconds ?? 0)
        if plan.json {
            var line = event("start")
            line.add("seed", campaign.seed)
            line.add("seedIsRandom", plan.seedIsRandom)
            line.add("mode", campaign.mix.rawValue)
            line.add("store", storeName)
            line.add("threads", campaign.threads)
            line.add("operationsPerRun", campaign.operationsPerRun)
            line.add("seconds", campaign.seconds)
            line.add("operations", campaign.operations)
            line.add("shard", plan.shard.description)
            if let defect = plan.defect { line.add("defect", defect) }
            StandardStreams.writeLine(line.render())
            return
        }
        let seed = campaign.seed
        let origin = plan.seedIsRandom ? " (random; the same arguments with --seed \(seed) repeat this campaign)" : ""
        FuzzFormat.write(
            [
                "strata-fuzz run: mode \(campaign.mix.rawValue), store \(storeName), "
                    + "threads \(campaign.threads), \(campaign.operationsPerRun) ops per run, "
                    + "budget \(budget), shard \(plan.shard)",
                "seed: \(seed)\(origin)",
            ] + (plan.defect.map { ["defect: \($0) (a seeded bug the campaign must catch)"] } ?? []))
    }

    func progress(_ progress: Campaign.Progress) {
        let statistics = progress.statistics
        let seconds = progress.seconds
        if plan.json {
            var line = event("progress")
            line.add("seconds", seconds)
            line.add("runs", progress.runs)
            add(statistics, seconds: seconds, to: &line)
            add(progress.freeStatistics, to: &line)
            line.add("failures", progress.failures)
            StandardStreams.writeLine(line.render())
            return
        }
        var parts = [
            TextFields.counted(progress.runs, "run"),
            "\(statistics.operations) checked ops "
                + "(\(FuzzFormat.rate(statistics.operations, seconds: seconds)))",
            TextFields.counted(statistics.commits, "commit"),
            TextFields.counted(statistics.versions, "version"),
            TextFields.counted(statistics.crashImages, "crash image"),
            TextFields.counted(statistics.schedulingSteps, "scheduling step"),
            TextFields.counted(progress.failures, "failure"),
        ]
        if progress.freeStatistics.runs > 0 {
            parts.insert("free runs " + freeText(progress.freeStatistics), at: parts.count - 1)
        }
        StandardStreams.writeLine(
            "progress \(FuzzFormat.seconds(seconds)): " + parts.joined(separator: ", "))
    }

    /// A run that killed the campaign's process (`Supervised`): the crash is the campaign's
    /// failure, reported by the parent with the run's seed and replay token, then a summary
    /// (the child's counts died with it).
    /// A run that crashed the campaign's process; `resumingAt` is the run a new child goes on
    /// from (`--keep-going`), nil when the campaign ends here.
    func crash(_ crash: Supervised.Crash, artifact: String?, resumingAt: Int? = nil) {
        let inFlight = crash.inFlight
        if plan.json {
            var line = event("failure")
            line.add("kind", "crash")
            line.add("signal", Int(crash.signal))
            line.add("message", "\(crash.headline): \(crash.said)")
            line.add("seed", inFlight?.seed)
            line.add("campaignRun", inFlight?.campaignRun)
            line.add("token", inFlight?.token)
            line.add("artifact", artifact)
            line.add("resumingAtRun", resumingAt)
            StandardStreams.writeLine(line.render())
            if resumingAt != nil { return }
            var summary = event("summary")
            summary.add("seed", campaign.seed)
            summary.add("mode", campaign.mix.rawValue)
            summary.add("failures", 1)
            summary.add("crashed", true)
            StandardStreams.writeLine(summary.render())
            return
        }
        var lines = ["FAILURE: crash: \(crash.headline): \(crash.said)"]
        var fields: [(String, String)] = []
        if let seed = inFlight?.seed { fields.append(("seed", String(seed))) }
        if let run = inFlight?.campaignRun { fields.append(("campaign run", String(run))) }
        if let inFlight {
            fields.append(("run", "\(inFlight.mode.rawValue), \(inFlight.draws) draws before the crash"))
        }
        fields.append(("artifact", artifact ?? "not written (no run was in flight)"))
        fields.append(("replay token", inFlight?.token ?? "none: the process died outside any run"))
        lines += TextFields.fields(fields)
        if let artifact { lines.append("replay with: strata-fuzz replay \(artifact)") }
        if let resumingAt {
            lines.append(
                "the campaign goes on from run \(resumingAt) in a new process (--keep-going); "
                    + "the crashed process's counts died with it")
        } else {
            lines.append("summary: 1 failure (the campaign's process crashed; its counts died with it)")
        }
        FuzzFormat.write(lines)
    }

    /// The first failure: what broke, how far it shrank, where its artifact is.
    func failure(_ found: Campaign.Found, artifact: String?) {
        if let free = found.free {
            freeFailure(free, found: found, artifact: artifact)
            return
        }
        let failure = found.shrunk.failure ?? found.original.failure
        if plan.json {
            var line = event("failure")
            line.add("kind", failure?.kind.rawValue)
            line.add("message", failure?.message)
            line.add("operationIndex", failure?.operationIndex)
            line.add("seed", found.seed)
            line.add("token", found.token)
            line.add("artifact", artifact)
            line.add("originalOperations", found.original.trace.count)
            line.add("shrunkOperations", found.shrunk.trace.count)
            line.add("shrinkSeconds", found.shrinkSeconds)
            line.add("shrinkRuns", found.shrinkRuns)
            StandardStreams.writeLine(line.render())
            return
        }
        let shrunk =
            campaign.shrinks
            ? "\(found.shrunk.trace.count) operations"
            : "not shrunk (--no-shrink)"
        let shrinkTime =
            "\(FuzzFormat.seconds(found.shrinkSeconds)), "
            + TextFields.counted(found.shrinkRuns, "run")
        var lines = ["FAILURE: \(failure?.description ?? "unknown")"]
        lines += TextFields.fields([
            ("seed", String(found.seed)),
            ("settings", FuzzFormat.settings(found.settings)),
            ("original", "\(found.original.trace.count) operations"),
            ("shrunk", shrunk),
            ("shrink time", shrinkTime),
            ("artifact", artifact ?? "not written (see the error below)"),
            ("replay token", found.token),
        ])
        if let artifact { lines.append("replay with: strata-fuzz replay \(artifact)") }
        FuzzFormat.write(lines)
    }

    /// A free run's failure: no shrinking, no bit-identical replay; the excerpt of its log
    /// (the event at fault and the commits around it) is printed as well as written.
    private func freeFailure(_ free: FreeResult, found: Campaign.Found, artifact: String?) {
        let failure = free.failure
        if plan.json {
            var line = event("failure")
            line.add("kind", found.original.failure?.kind.rawValue)
            line.add("freeKind", failure?.kind.rawValue)
            line.add("message", failure?.message)
            line.add("seed", found.seed)
            line.add("token", found.token)
            line.add("artifact", artifact)
            line.add("events", free.log.events.count)
            line.add("excerpt", failure?.excerpt.joined(separator: "\n"))
            StandardStreams.writeLine(line.render())
            return
        }
        var lines = ["FAILURE (free run): \(failure?.description ?? "unknown")"]
        lines += TextFields.fields([
            ("seed", String(found.seed)),
            ("settings", FuzzFormat.settings(found.settings)),
            ("plan", free.plan.description),
            ("events", String(free.log.events.count)),
            ("artifact", artifact ?? "not written (see the error below)"),
            ("rerun token", found.token),
        ])
        lines.append("note: \(FreeArtifact.replayNote)")
        lines += (failure?.excerpt ?? []).map { "  " + $0 }
        FuzzFormat.write(lines)
    }

    func summary(_ report: Campaign.Report) {
        if plan.json {
            StandardStreams.writeLine(summaryJSON(report).render())
            return
        }
        let statistics = report.statistics
        let seconds = checkingSeconds(report)
        let shrinking = report.seconds - seconds
        let time =
            FuzzFormat.seconds(report.seconds)
            + (shrinking > 0 ? " (\(FuzzFormat.seconds(shrinking)) of it shrinking)" : "")
        let verdict =
            report.failures.isEmpty ? "clean" : TextFields.counted(report.failures.count, "failure")
        var lines = ["campaign: \(verdict)"]
        lines += TextFields.fields([
            ("seeds", seedsText(report.seeds)),
            ("runs", String(report.runs)),
            ("time", time),
            ("checked ops", counted(statistics.operations, seconds: seconds)),
            ("commits", String(statistics.commits)),
            ("versions", String(statistics.versions)),
            ("crashes", String(statistics.crashes)),
            ("crash images", counted(statistics.crashImages, seconds: seconds)),
            ("damaged images", String(statistics.damagedImages)),
            (
                "injected faults",
                "\(statistics.injectedFaults) (then \(statistics.poisonedRejections) operations refused as poisoned)"
            ),
            ("scheduling steps", counted(statistics.schedulingSteps, seconds: seconds)),
            ("inline ops", String(statistics.inlineOperations)),
            ("context switches", String(statistics.switches)),
            ("switches at pins", "\(statistics.pinSwitches) (\(statistics.earlySteps) steps taken early)"),
            ("model rejections", String(statistics.modelRejections)),
            (
                "observers",
                "\(statistics.observers) registered, \(statistics.checkedCallbacks) callbacks checked "
                    + "(\(statistics.checkedObjectCallbacks) of objects), \(statistics.checkedDeliveryPoints) caught-up checks"
            ),
            (
                "async writes",
                "\(statistics.asyncBlocks) blocks run, \(statistics.checkedCompletions) completions checked durable, "
                    + "\(statistics.pendingGroupPowerLosses) power losses with a group pending, "
                    + "\(statistics.groupCrashImages) crash images inside group syncs, "
                    + "\(statistics.durableImageChecks) durable versions verified before a group sync"
            ),
            ("must-hit probes", Self.probeText(statistics)),
        ])
        if report.freeStatistics.runs > 0 {
            let free = freeText(report.freeStatistics, seconds: seconds)
            lines += TextFields.fields([("free runs", free)])
        }
        lines.append("trace digest: \(FuzzFormat.digest(report.digest))")
        FuzzFormat.write(lines)
    }

    /// "15 of 17 hit; never hit: a, b" (`ProbeCoverage`).
    static func probeText(_ statistics: CheckStatistics) -> String {
        let never = ProbeCoverage.neverHit(statistics.probes)
        let hit = ProbeCoverage.mustHit.count - never.count
        return "\(hit) of \(ProbeCoverage.mustHit.count) hit"
            + (never.isEmpty ? "" : "; never hit: \(never.joined(separator: ", "))")
    }

    private func summaryJSON(_ report: Campaign.Report) -> JSONLine {
        var line = event("summary")
        line.add("seed", campaign.seed)
        line.add("seedFirst", report.seeds?.lowerBound)
        line.add("seedLast", report.seeds?.upperBound)
        line.add("shard", plan.shard.description)
        line.add("mode", campaign.mix.rawValue)
        line.add("store", storeName)
        line.add("runs", report.runs)
        let seconds = checkingSeconds(report)
        line.add("seconds", report.seconds)
        line.add("shrinkSeconds", report.seconds - seconds)
        add(report.statistics, seconds: seconds, to: &line)
        add(report.freeStatistics, to: &line)
        line.add("failures", report.failures.count)
        line.add("traceDigest", FuzzFormat.digest(report.digest))
        return line
    }

    // MARK: pieces

    /// The campaign's time without the time spent shrinking, which checks no new runs: the
    /// rates are over this.
    private func checkingSeconds(_ report: Campaign.Report) -> Double {
        let shrinkSeconds = report.failures.reduce(0) { $0 + $1.shrinkSeconds }
        return max(0, report.seconds - shrinkSeconds)
    }

    private func event(_ name: String) -> JSONLine {
        JSONLine(["event": .string(name)])
    }

    /// The statistics and their rates, shared by progress and summary objects.
    private func add(_ statistics: CheckStatistics, seconds: Double, to line: inout JSONLine) {
        line.add("operations", statistics.operations)
        line.add(
            "operationsPerSecond", FuzzFormat.perSecond(statistics.operations, seconds: seconds))
        line.add("commits", statistics.commits)
        line.add("versions", statistics.versions)
        line.add("crashes", statistics.crashes)
        line.add("crashImages", statistics.crashImages)
        line.add(
            "crashImagesPerSecond", FuzzFormat.perSecond(statistics.crashImages, seconds: seconds))
        line.add("schedulingSteps", statistics.schedulingSteps)
        line.add(
            "schedulingStepsPerSecond",
            FuzzFormat.perSecond(statistics.schedulingSteps, seconds: seconds))
        line.add("switches", statistics.switches)
        line.add("modelRejections", statistics.modelRejections)
        line.add("damagedImages", statistics.damagedImages)
        line.add("injectedFaults", statistics.injectedFaults)
        line.add("inlineOperations", statistics.inlineOperations)
        line.add("pinSwitches", statistics.pinSwitches)
        line.add("earlySteps", statistics.earlySteps)
        line.add("poisonedRejections", statistics.poisonedRejections)
        line.add("observers", statistics.observers)
        line.add("checkedCallbacks", statistics.checkedCallbacks)
        line.add("checkedObjectCallbacks", statistics.checkedObjectCallbacks)
        line.add("checkedDeliveryPoints", statistics.checkedDeliveryPoints)
        line.add("asyncBlocks", statistics.asyncBlocks)
        line.add("checkedCompletions", statistics.checkedCompletions)
        line.add("pendingGroupPowerLosses", statistics.pendingGroupPowerLosses)
        line.add("groupCrashImages", statistics.groupCrashImages)
        line.add("mustHitProbes", ProbeCoverage.mustHit.count)
        line.add("probesNeverHit", ProbeCoverage.neverHit(statistics.probes).joined(separator: ","))
    }

    /// The free runs' counts: `3 (1500 reads checked, 40 of them frozen, ...)`; with
    /// `seconds`, the rate of checked reads.
    private func freeText(_ statistics: FreeStatistics, seconds: Double? = nil) -> String {
        let reads = statistics.liveReads + statistics.frozenReads
        let rate = seconds.map { " at \(FuzzFormat.rate(reads, seconds: $0))" } ?? ""
        return "\(statistics.runs) ("
            + [
                "\(reads) reads checked\(rate)",
                "\(statistics.frozenReads) of them frozen",
                TextFields.counted(statistics.commits, "commit"),
                TextFields.counted(statistics.cancels, "cancel"),
                TextFields.counted(statistics.moves, "move"),
                TextFields.counted(statistics.freezes, "freeze"),
            ].joined(separator: ", ") + ")"
    }

    /// The free runs' counts in a JSON object (all zero when no run was free).
    private func add(_ statistics: FreeStatistics, to line: inout JSONLine) {
        line.add("freeRuns", statistics.runs)
        line.add("freeReads", statistics.liveReads + statistics.frozenReads)
        line.add("freeFrozenReads", statistics.frozenReads)
        line.add("freeCommits", statistics.commits)
        line.add("freeCancels", statistics.cancels)
        line.add("freeMoves", statistics.moves)
        line.add("freeFreezes", statistics.freezes)
    }

    /// `count (rate/s)`.
    private func counted(_ count: Int, seconds: Double) -> String {
        "\(count) (\(FuzzFormat.rate(count, seconds: seconds)))"
    }

    /// The seeds the campaign ran: `5...9`, with the stride when shards interleave.
    private func seedsText(_ seeds: ClosedRange<UInt64>?) -> String {
        guard let seeds else { return "none (no run started)" }
        let range =
            seeds.lowerBound == seeds.upperBound
            ? String(seeds.lowerBound) : "\(seeds.lowerBound)...\(seeds.upperBound)"
        guard plan.shard.count > 1 else { return range }
        return "\(range), step \(plan.shard.count) (shard \(plan.shard))"
    }
}
