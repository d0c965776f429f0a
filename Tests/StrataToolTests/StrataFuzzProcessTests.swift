import Foundation
import StrataCheck
import StrataTestSupport
import Testing

/// The `strata-fuzz` command line, run as a child process: help, usage errors, a campaign's
/// trace digest repeating across processes, the failure round trip (artifact, replay, shrink)
/// and JSON output. Campaigns are a few hundred operations, so each test takes seconds.
///
/// Serialized: every test spawns campaigns that keep a core busy; side by side on a small
/// machine they would only slow each other and the timing-sensitive process suites.
@Suite(.serialized) struct StrataFuzzProcessTests {
    /// A campaign the library runs the same way every time: operations budget, fixed seed,
    /// controlled threads, simulated disk. Shrinking is capped so a failure costs ~1 s.
    /// `defect` switches on a seeded bug the campaign must catch. The seed is one whose streams
    /// (generation 15) meet `refreshStaysStale` within the budget; seed 1's no longer do.
    static func deterministicCampaign(out: String, defect: String? = nil) -> [String] {
        [
            "run", "--ops", "300", "--seed", "2", "--mode", "controlled", "--store", "sim",
            "--shrink-seconds", "1", "--out", out,
        ] + (defect.map { ["--defect", $0] } ?? [])
    }

    /// How the tokens of this build start (`sc<generation>.`).
    static let tokenPrefix = ReplayToken.currentPrefix

    /// The value of the first `label: value` line, with the alignment padding removed.
    static func field(_ label: String, in output: ChildOutput) -> String? {
        guard let line = output.lines.first(where: { $0.hasPrefix(label + ":") }) else {
            return nil
        }
        return line.dropFirst(label.count + 1).trimmingCharacters(in: .whitespaces)
    }

    // MARK: help and usage errors

    @Test(arguments: [
        ([], ["run", "replay", "shrink", "Exit codes"]),
        (
            ["run"],
            [
                "--seconds", "--ops", "--seed", "--threads", "--mode", "--store", "--shard",
                "--out", "--json", "--ops-per-run", "--no-shrink", "free",
            ]
        ),
        (["replay"], ["ARTIFACT|TOKEN", tokenPrefix]),
        (["shrink"], ["ARTIFACT", "--seconds"]),
    ])
    func helpExitsZeroAndNamesTheOptions(command: [String], names: [String]) throws {
        let output = try ChildProcess.run("strata-fuzz", command + ["--help"])
        #expect(output.exitCode == 0, "\(output)")
        let usage = (["usage: strata-fuzz"] + command).joined(separator: " ")
        #expect(output.standardOutput.hasPrefix(usage), "\(output)")
        for name in names {
            #expect(output.standardOutput.contains(name), "help does not name \(name)")
        }
        #expect(output.standardError.isEmpty)
    }

    @Test func secondsAndOpsTogetherAreAUsageError() throws {
        let output = try ChildProcess.run("strata-fuzz", ["run", "--seconds", "1", "--ops", "5"])
        #expect(output.exitCode == 2, "\(output)")
        #expect(output.standardOutput.isEmpty, "a campaign started: \(output)")
        #expect(output.standardError.contains("--seconds and --ops cannot be used together"))
        #expect(output.standardError.contains("Run 'strata-fuzz run --help' for usage."))
    }

    @Test func anUnknownExcludedKindIsAUsageError() throws {
        let output = try ChildProcess.run("strata-fuzz", ["run", "--exclude", "delete,bogus", "--ops", "5"])
        #expect(output.exitCode == 2, "\(output)")
        #expect(output.standardOutput.isEmpty, "a campaign started: \(output)")
        #expect(output.standardError.contains("unknown operation kind 'bogus'"))
    }

    @Test func aRunWithoutTheOpenFindingsKindsIsClean() throws {
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "run", "--ops", "400", "--seed", "3", "--mode", "controlled", "--store", "sim",
                "--exclude",
                "thawHandle,makeReference,resolve,invalidate,delete,freezeRealm,append,listOf,removeFromList,cancelWrite",
                "--no-shrink", "--out", NSTemporaryDirectory(),
            ])
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.contains("campaign: clean"), "\(output)")
    }

    /// `--mode free`: real threads on a real file; the summary counts the free runs.
    @Test func freeModeRunsAndCountsItsRuns() throws {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run(
            "strata-fuzz", ["run", "--mode", "free", "--seconds", "2", "--seed", "4", "--out", directory.path])
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.contains("mode free, store file"), "\(output)")
        #expect(output.lines.contains("campaign: clean"), "\(output)")
        let free = try #require(Self.field("free runs", in: output), "\(output)")
        #expect(free.contains("reads checked"), "\(output)")
    }

    /// A free token re-runs the same thread programs (and says so); a free artifact cannot be
    /// shrunk (its interleaving was never recorded).
    @Test func freeTokensRerunAndFreeArtifactsDoNotShrink() throws {
        let token = "sc1.free.file.2.20.0.-.-.AA"
        let replay = try ChildProcess.run("strata-fuzz", ["replay", token])
        #expect(replay.exitCode == 0, "\(replay)")
        #expect(replay.standardOutput.contains("note: free mode cannot replay an interleaving"), "\(replay)")
        let directory = TemporaryDirectory()
        try (token + "\n").write(toFile: directory.file("token.txt"), atomically: true, encoding: .utf8)
        let shrink = try ChildProcess.run("strata-fuzz", ["shrink", directory.path])
        #expect(shrink.exitCode == 2, "\(shrink)")
        #expect(shrink.standardError.contains("free-mode artifact"), "\(shrink)")
    }

    @Test(arguments: [
        ["replay", "sc1.garbage"],
        ["replay", "sc1.controlled.sim.3.200.0.-.-.!!!"],
        ["replay", "/nonexistent/strata-fuzz/artifact"],
        ["shrink", "sc1.controlled.sim.3.200.0.-.-.AA"],
        ["run", "--mode", "sideways"],
        ["run", "--mode", "crash", "--store", "file"],
        ["run", "--shard", "2/2"],
        ["run", "--threads", "17"],
    ])
    func badArgumentsExitTwoAndNoRunStarts(arguments: [String]) throws {
        let output = try ChildProcess.run("strata-fuzz", arguments)
        #expect(output.exitCode == 2, "\(output)")
        #expect(output.standardOutput.isEmpty, "\(output)")
        #expect(output.standardError.contains("strata-fuzz \(arguments[0]): "), "\(output)")
    }

    @Test func aDirectoryWithoutATokenIsNotAnArtifact() throws {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run("strata-fuzz", ["replay", directory.path])
        #expect(output.exitCode == 2, "\(output)")
        #expect(
            output.standardError.contains("holds no token.txt and no process campaign's failure.txt"),
            "\(output)")
    }

    // replay's help derives its token versions from the build: this generation's prefix, and
    // the earlier generations' range, never a literal.
    @Test func replayHelpNamesThisBuildsTokens() throws {
        let output = try ChildProcess.run("strata-fuzz", ["replay", "--help"])
        let text = output.standardOutput.replacingOccurrences(of: "\n", with: " ")
        let older = CheckSettings.generations.dropLast()
        #expect(text.contains("it starts with \(Self.tokenPrefix);"), "\(output)")
        if let first = older.first, let last = older.last, first < last {
            #expect(text.contains("sc\(first). to sc\(last)."), "\(output)")
        }
        #expect(text.contains("process campaign"), "\(output)")
    }

    /// A process campaign's artifact as `ProcessArtifact.write` leaves it: no token, a
    /// failure.txt whose "rerun the plan:" line is the command (a small budget here).
    static func processArtifact(in directory: TemporaryDirectory) throws -> String {
        let artifact = directory.file("failure-process-1")
        try FileManager.default.createDirectory(atPath: artifact, withIntermediateDirectories: true)
        let settings = ProcessSettings(
            children: 1, seconds: nil, commits: 3, kills: 1, seed: 3, childCommand: ["unused"],
            scratchDirectory: NSTemporaryDirectory())
        let rerun = ProcessArtifact.rerunCommand(settings).joined(separator: " ")
        try "failure: (recorded)\nseed: 3\n\(ProcessArtifact.rerunLabel): \(rerun)\n".write(
            toFile: artifact + "/failure.txt", atomically: true, encoding: .utf8)
        return artifact
    }

    // A process campaign's artifact has no token: replay re-runs the command it records;
    // shrink refuses it, naming replay.
    @Test func aProcessArtifactReplaysByRerunningItsPlan() throws {
        let directory = TemporaryDirectory()
        let artifact = try Self.processArtifact(in: directory)
        let output = try ChildProcess.run("strata-fuzz", ["replay", artifact], timeout: .seconds(300))
        #expect(output.exitCode == 0, "\(output)")
        #expect(
            Self.field("re-running", in: output)
                == "strata-fuzz run --mode process --seed 3 --threads 1 --ops 3 --kills 1 --out \(directory.path)",
            "\(output)")
        #expect(output.standardOutput.contains("campaign: clean"), "\(output)")
        let shrink = try ChildProcess.run("strata-fuzz", ["shrink", artifact])
        #expect(shrink.exitCode == 2, "\(shrink)")
        #expect(shrink.standardError.contains("is a process campaign's artifact"), "\(shrink)")
        #expect(shrink.standardError.contains("'strata-fuzz replay \(artifact)' re-runs its plan"), "\(shrink)")
    }

    // The rerun command of a process campaign keeps every option that shapes it: the seed,
    // the writer processes, the budget, the kill limit and the defect.
    @Test func theProcessRerunCommandKeepsEveryOption() {
        var settings = ProcessSettings(
            children: 2, seconds: 40, commits: nil, kills: 9, seed: 5, childCommand: ["unused"],
            scratchDirectory: NSTemporaryDirectory(), engineBugs: .engine(.neverReclaimDeadReaders))
        #expect(
            ProcessArtifact.rerunCommand(settings).joined(separator: " ")
                == "strata-fuzz run --mode process --seed 5 --threads 2 --seconds 40 --kills 9 "
                + "--defect neverReclaimDeadReaders")
        settings.engineBugs = []
        settings.mutation = .acknowledgeBeforeCommit
        settings.seconds = 2.5
        settings.kills = nil
        #expect(
            ProcessArtifact.rerunCommand(settings).joined(separator: " ")
                == "strata-fuzz run --mode process --seed 5 --threads 2 --seconds 2.5 "
                + "--defect acknowledgeBeforeCommit")
    }

    @Test func anUnknownCommandSuggestsTheNearestOne() throws {
        let output = try ChildProcess.run("strata-fuzz", ["rpelay", "sc1.x"])
        #expect(output.exitCode == 2, "\(output)")
        #expect(output.standardError.contains("unknown command 'rpelay'"), "\(output)")
        #expect(output.standardError.contains("did you mean 'replay'?"), "\(output)")
    }

    // MARK: campaigns

    /// The same campaign in two processes checks the same runs: equal `trace digest:` lines.
    /// The engine has no known divergence on it, so it is clean: a failure found here is a
    /// failure of the test (replay its token to see it).
    @Test func theSameCampaignPrintsTheSameDigestInEveryProcess() throws {
        let directory = TemporaryDirectory()
        let first = try ChildProcess.run(
            "strata-fuzz", Self.deterministicCampaign(out: directory.file("first")))
        let second = try ChildProcess.run(
            "strata-fuzz", Self.deterministicCampaign(out: directory.file("second")))
        for output in [first, second] {
            #expect(output.exitCode == 0, "\(output)")
            #expect(output.lines.contains("campaign: clean"), "\(output)")
            #expect(Self.field("seeds", in: output)?.hasPrefix("2") == true, "\(output)")
        }
        let digest = try #require(Self.field("trace digest", in: first), "\(first)")
        #expect(digest.count == 16 && digest.allSatisfy(\.isHexDigit), "\(first)")
        #expect(Self.field("trace digest", in: second) == digest, "\(first)\n\(second)")
    }

    /// The failure path: the same campaign with a seeded bug it catches at once
    /// (`refreshStaysStale`: refresh() says it moved but reads the old version) exits 1 and
    /// leaves an artifact that replays (still failing) and shrinks into a new artifact beside it.
    @Test func aCaughtDefectLeavesAnArtifactThatReplaysAndShrinks() throws {
        let directory = TemporaryDirectory()
        let out = directory.file("defect")
        let output = try ChildProcess.run(
            "strata-fuzz", Self.deterministicCampaign(out: out, defect: "refreshStaysStale"))
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.lines.contains("defect: refreshStaysStale (a seeded bug the campaign must catch)"), "\(output)")
        #expect(output.lines.contains { $0.hasPrefix("FAILURE: ") }, "\(output)")
        #expect(output.lines.contains("campaign: 1 failure"), "\(output)")
        try checkFailureRoundTrip(output, out: out)
    }

    @Test func aDefectOnlyProcessesShowIsAUsageErrorOutsideProcessMode() throws {
        let output = try ChildProcess.run(
            "strata-fuzz", ["run", "--ops", "5", "--mode", "controlled", "--defect", "neverReclaimDeadReaders"])
        #expect(output.exitCode == 2, "\(output)")
        #expect(output.standardOutput.isEmpty, "a campaign started: \(output)")
        #expect(output.standardError.contains("--defect expects a seeded bug"), "\(output)")
    }

    /// A failing campaign's artifact: written under --out with its token, replays as still
    /// failing (from the directory and from the token), and shrinks into --out again.
    private func checkFailureRoundTrip(_ output: ChildOutput, out: String) throws {
        let artifact = try #require(Self.field("artifact", in: output), "\(output)")
        #expect((artifact as NSString).deletingLastPathComponent == out)
        let tokenPath = (artifact as NSString).appendingPathComponent("token.txt")
        let token = try String(contentsOfFile: tokenPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix(Self.tokenPrefix), "\(token)")
        #expect(Self.field("replay token", in: output) == token, "\(output)")
        let original = try #require(Self.field("original", in: output).flatMap(Self.count))
        let shrunk = try #require(Self.field("shrunk", in: output).flatMap(Self.count))
        #expect(shrunk <= original, "\(output)")

        for argument in [artifact, token] {
            let replay = try ChildProcess.run("strata-fuzz", ["replay", argument])
            #expect(replay.exitCode == 1, "\(replay)")
            #expect(replay.lines.contains { $0.hasPrefix("still fails: ") }, "\(replay)")
            #expect(Self.field("operations run", in: replay).flatMap(Int.init) == shrunk)
        }

        let shrink = try ChildProcess.run("strata-fuzz", ["shrink", artifact, "--seconds", "1"])
        #expect(shrink.exitCode == 1, "\(shrink)")
        let newArtifact = try #require(Self.field("artifact", in: shrink), "\(shrink)")
        #expect((newArtifact as NSString).deletingLastPathComponent == out, "\(shrink)")
        let newToken = (newArtifact as NSString).appendingPathComponent("token.txt")
        #expect(FileManager.default.fileExists(atPath: newToken), "\(shrink)")
        let old = try #require(Self.field("old", in: shrink).flatMap(Self.count), "\(shrink)")
        let new = try #require(Self.field("new", in: shrink).flatMap(Self.count), "\(shrink)")
        #expect(old == shrunk && new <= old, "\(shrink)")
    }

    /// The leading count of `"24 operations..."`.
    private static func count(_ text: String) -> Int? {
        text.split(separator: " ").first.flatMap { Int($0) }
    }

    /// `--json`: every stdout line is one JSON object with an `event`; the first is the start,
    /// the last the summary, which carries the digest and the counts.
    @Test func jsonOutputIsOneObjectPerLine() throws {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "run", "--ops", "50", "--ops-per-run", "50", "--seed", "3", "--mode", "controlled",
                "--store", "sim", "--shrink-seconds", "1", "--json", "--out", directory.path,
            ])
        #expect(output.exitCode == 0, "\(output)")
        var events: [String] = []
        var summary: [String: Any] = [:]
        for line in output.lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let fields = try #require(object as? [String: Any], "not an object: \(line)")
            let event = try #require(fields["event"] as? String, "no event: \(line)")
            events.append(event)
            if event == "summary" { summary = fields }
        }
        #expect(events.first == "start", "\(output)")
        #expect(events.last == "summary", "\(output)")
        #expect(!events.contains("failure"), "\(output)")
        #expect((summary["failures"] as? NSNumber)?.intValue == 0, "\(output)")
        #expect((summary["operations"] as? NSNumber)?.intValue ?? 0 >= 50, "\(output)")
        // A scheduling step can go to waking a lock waiter rather than to an operation, so a
        // 50-step run may check 49 operations and the campaign starts a second run: one seed
        // per run, counted from the first.
        let runs = try #require((summary["runs"] as? NSNumber)?.intValue, "\(output)")
        #expect(runs >= 1, "\(output)")
        #expect((summary["seedFirst"] as? NSNumber)?.intValue == 3, "\(output)")
        #expect((summary["seedLast"] as? NSNumber)?.intValue == 3 + runs - 1, "\(output)")
        let digest = try #require(summary["traceDigest"] as? String, "\(output)")
        #expect(digest.count == 16 && digest.allSatisfy(\.isHexDigit), "\(output)")
    }

    // MARK: a crash inside a run

    /// A run that crashes its process is a failure like any other (Docs/harness.md "A crash
    /// inside a run"): with the planted crash (`--defect plantedCrashInCommit`, a commit that
    /// dereferences a bad pointer: SIGSEGV inside the engine), `run` reports the failure with
    /// its seed and replay token and writes an artifact; `replay` of the token and of the
    /// artifact reports the crash (exit 1) instead of dying; `shrink` reports it too.
    @Test func aCrashInsideARunIsReportedWithATokenThatReplays() throws {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "run", "--ops", "300", "--seed", "4", "--mode", "controlled", "--store", "sim",
                "--defect", "plantedCrashInCommit", "--json", "--out", directory.path,
            ])
        #expect(output.exitCode == 1, "\(output)")
        var failure: [String: Any]?
        var summary: [String: Any]?
        for line in output.lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                continue
            }
            if object["event"] as? String == "failure" { failure = object }
            if object["event"] as? String == "summary" { summary = object }
        }
        let reported = try #require(failure, "no failure event: \(output)")
        #expect(reported["kind"] as? String == "crash", "\(output)")
        #expect((reported["signal"] as? NSNumber)?.intValue == Int(SIGSEGV), "\(output)")
        #expect((reported["seed"] as? NSNumber)?.intValue == 4, "the first run's seed: \(output)")
        #expect((summary?["failures"] as? NSNumber)?.intValue == 1, "\(output)")
        let token = try #require(reported["token"] as? String, "\(output)")
        #expect(token.hasPrefix(Self.tokenPrefix), "\(token)")
        let artifact = try #require(reported["artifact"] as? String, "\(output)")
        let saved = try String(contentsOfFile: artifact + "/" + Artifact.tokenFile, encoding: .utf8)
        #expect(saved.trimmingCharacters(in: .whitespacesAndNewlines) == token)
        let text = try String(contentsOfFile: artifact + "/failure.txt", encoding: .utf8)
        #expect(text.contains("seed: 4"), "\(text)")

        for replayed in [token, artifact] {
            let replay = try ChildProcess.run("strata-fuzz", ["replay", replayed])
            #expect(replay.exitCode == 1, "\(replay)")
            #expect(
                replay.standardOutput.contains("still fails: the run crashed the process (signal \(SIGSEGV))"),
                "\(replay)")
        }
        let shrink = try ChildProcess.run("strata-fuzz", ["shrink", artifact, "--seconds", "5"])
        #expect(shrink.exitCode == 1, "\(shrink)")
        #expect(
            shrink.standardOutput.contains("crashes: the run crashed the process (signal \(SIGSEGV))"),
            "\(shrink)")
    }

    /// `--keep-going`: a campaign goes on after a run that crashed its process. Every run of
    /// the planted crash dies, so each is reported (seed, campaign run, token, artifact) and
    /// a new child goes on from the next run, until the budget (300 operations at 100 a run:
    /// three runs) is spent; the exit code says a run failed.
    @Test func keepGoingReportsEachCrashAndGoesOnFromTheNextRun() throws {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "run", "--ops", "300", "--ops-per-run", "100", "--seed", "4", "--mode", "controlled",
                "--store", "sim", "--defect", "plantedCrashInCommit", "--keep-going", "--json",
                "--out", directory.path,
            ])
        #expect(output.exitCode == 1, "\(output)")
        let failures = output.lines.compactMap { line -> [String: Any]? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["event"] as? String == "failure"
            else { return nil }
            return object
        }
        #expect(failures.map { ($0["campaignRun"] as? NSNumber)?.intValue } == [0, 1, 2], "\(output)")
        #expect(failures.map { ($0["seed"] as? NSNumber)?.intValue } == [4, 5, 6], "\(output)")
        #expect(failures.map { ($0["resumingAtRun"] as? NSNumber)?.intValue } == [1, 2, nil], "\(output)")
        #expect(failures.allSatisfy { $0["kind"] as? String == "crash" }, "\(output)")
        let tokens = Set(failures.compactMap { $0["token"] as? String })
        #expect(tokens.count == 3, "\(output)")
        let last = try #require(failures.last?["artifact"] as? String, "\(output)")
        let replay = try ChildProcess.run("strata-fuzz", ["replay", last])
        #expect(replay.exitCode == 1 && replay.standardOutput.contains("still fails: the run crashed"), "\(replay)")
    }

    /// `--keep-going` without crashes: every failing run of a seeded bug is reported with its
    /// own artifact, and the campaign runs to the end of its budget.
    @Test func keepGoingReportsEveryFailingRun() throws {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "run", "--ops", "400", "--ops-per-run", "40", "--seed", "2", "--mode", "controlled",
                "--store", "sim", "--defect", "beginWriteWithoutAdvancing", "--no-shrink", "--keep-going", "--json",
                "--out", directory.path,
            ])
        let failures = output.lines.filter { $0.contains("\"event\":\"failure\"") }
        let summary = try #require(output.lines.last { $0.contains("\"event\":\"summary\"") }, "\(output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        #expect((object["failures"] as? NSNumber)?.intValue == failures.count, "\(output)")
        #expect((object["runs"] as? NSNumber)?.intValue ?? 0 >= 10, "the budget was spent: \(output)")
        // Seed 2's ten runs of 40 operations meet the bug in more runs than one.
        #expect(failures.count >= 2, "\(output)")
        #expect(output.exitCode == 1, "\(output)")
    }

    /// `explore` is supervised like `run`: a schedule that crashes the process is reported
    /// with its replay token and an artifact, and the token replays the crash.
    @Test func exploreReportsACrashingScheduleWithATokenThatReplays() throws {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run(
            "strata-fuzz", ["explore", "--defect", "plantedCrashInCommit", "--seeds", "1", "--out", directory.path])
        #expect(output.exitCode == 1, "\(output)")
        #expect(
            output.standardOutput.contains("FAILURE: crash: the run crashed the process (signal \(SIGSEGV))"),
            "\(output)")
        let token = try #require(Self.field("replay token", in: output), "\(output)")
        #expect(token.hasPrefix(Self.tokenPrefix), "\(output)")
        let replay = try ChildProcess.run("strata-fuzz", ["replay", token])
        #expect(replay.exitCode == 1 && replay.standardOutput.contains("still fails: the run crashed"), "\(replay)")
    }
}
