import Foundation
import StrataTestSupport
import Testing

/// `strata-fuzz run --mode process`: writer processes of the built strata-fuzz,
/// SIGKILLed at random moments, with the file verified and every acknowledged commit checked
/// after each kill; and the two defects the campaign must catch, which show that its checks
/// can fail.
///
/// Serialized: each test keeps both cores busy with writer processes and their flushes.
@Suite(.serialized) struct StrataFuzzProcessModeTests {
    /// The JSON objects a `--json` run printed, by event.
    struct Events {
        var all: [[String: Any]] = []

        init(_ output: ChildOutput) throws {
            for line in output.lines {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
                all.append(try #require(object as? [String: Any], "not an object: \(line)"))
            }
        }

        func first(_ event: String) -> [String: Any]? {
            all.first { $0["event"] as? String == event }
        }

        static func int(_ key: String, in object: [String: Any]?) -> Int? {
            (object?[key] as? NSNumber)?.intValue
        }
    }

    /// The campaign the issue asks for: at least 50 kills, commits acknowledged, no failure.
    @Test func aCampaignSurvivesFiftyKills() throws {
        let directory = TemporaryDirectory()
        let start = ContinuousClock.now
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                // A count budget (kills); the seconds are a hang guard only, so a busy machine
                // takes longer and the verdict is the same.
                "run", "--mode", "process", "--kills", "100", "--seconds", "500", "--seed", "7",
                "--threads", "3", "--json", "--out", directory.path,
            ],
            timeout: .seconds(hangGuardSeconds))
        let events = try Events(output)
        #expect(output.exitCode == 0, "\(output)\n\(Self.evidence(events))")
        let summary = try #require(events.first("summary"), "\(output)")
        let kills = try #require(Events.int("kills", in: summary))
        let commits = try #require(Events.int("acknowledgedCommits", in: summary))
        let checked = try #require(Events.int("commitsChecked", in: summary))
        #expect(kills >= 50, "\(output)")
        #expect(commits > 0, "\(output)")
        // Every acknowledged commit was found in the file, plus those a kill cut after they
        // were durable but before the child could report them.
        #expect(checked >= commits, "\(output)")
        #expect(Events.int("failures", in: summary) == 0, "\(output)")
        #expect(Events.int("verifies", in: summary) ?? 0 >= kills, "\(output)")
        #expect(Events.int("respawns", in: summary) == kills, "\(output)")
        #expect(events.first("failure") == nil, "\(output)")
        // Must-hit probes of the list that only processes reach
        // (`ProbeCoverage.mustHitInProcesses`).
        #expect(summary["probesNeverHit"] as? String == "", "\(output)")
        for name in ["writerBlockedByOtherProcess", "deadReaderSlotReclaimed"] {
            #expect(Events.int("probe." + name, in: summary) ?? 0 > 0, "\(name): \(output)")
        }
        print(
            "process campaign: \(kills) kills, \(commits) acknowledged commits, \(checked) "
                + "checked in \(ContinuousClock.now - start)")
    }

    /// A seeded engine bug: dead readers' slots are never reclaimed. The parent sees the killed
    /// child still pinning a version two commits after its death (Spec L6).
    @Test func aDeadReaderThatIsNeverReclaimedIsCaught() throws {
        let failure = try failingCampaign(defect: "neverReclaimDeadReaders")
        #expect(failure["kind"] as? String == "deadReader", "\(failure)")
        #expect((failure["message"] as? String)?.contains("Spec L6") == true, "\(failure)")
    }

    /// A harness-side mutation: children report a commit before making it. A kill in between
    /// loses a commit the parent was told about (Spec D3).
    @Test func anAcknowledgementBeforeTheCommitIsCaught() throws {
        let failure = try failingCampaign(defect: "acknowledgeBeforeCommit")
        #expect(failure["kind"] as? String == "acknowledged", "\(failure)")
        #expect((failure["message"] as? String)?.contains("Spec D3") == true, "\(failure)")
    }

    @Test func aSimulatedStoreIsAUsageError() throws {
        let output = try ChildProcess.run(
            "strata-fuzz", ["run", "--mode", "process", "--store", "sim", "--seconds", "1"])
        #expect(output.exitCode == 2, "\(output)")
        #expect(output.standardOutput.isEmpty, "a campaign started: \(output)")
        #expect(output.standardError.contains("--mode process needs a real file"))
    }

    /// The child is hidden from the command list but has its own help, and alone it commits
    /// the protocol's lines; a second child of the same id resumes after the first's last seq.
    @Test func theChildWriterIsHiddenAndResumesItsSequence() throws {
        let help = try ChildProcess.run("strata-fuzz", ["--help"])
        #expect(help.exitCode == 0)
        #expect(!help.standardOutput.contains("child-writer"), "\(help)")
        let childHelp = try ChildProcess.run("strata-fuzz", ["child-writer", "--help"])
        #expect(childHelp.exitCode == 0)
        #expect(childHelp.standardOutput.hasPrefix("usage: strata-fuzz child-writer"))
        let directory = TemporaryDirectory()
        let file = directory.file("child.realm")
        let arguments = [
            "child-writer", "--file", file, "--seed", "3", "--id", "2", "--commits", "4",
        ]
        let first = try ChildProcess.run("strata-fuzz", arguments)
        let second = try ChildProcess.run("strata-fuzz", arguments)
        #expect(first.exitCode == 0, "\(first)")
        #expect(second.exitCode == 0, "\(second)")
        let commits = (first.lines + second.lines).filter { $0.hasPrefix("commit ") }
        let seqs = commits.compactMap { Int($0.split(separator: " ")[2]) }
        let versions = commits.compactMap { Int($0.split(separator: " ")[3]) }
        #expect(seqs == Array(1...8), "\(commits)")
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(commits)")
        // Probe lines may come first (the open itself marks some: the lock file initialised).
        let protocolLines = first.lines.filter { !$0.hasPrefix("probe 2 ") }
        #expect(protocolLines.first?.hasPrefix("open 2 ") == true, "\(first)")
        #expect(
            first.lines.contains("probe 2 lockFileInitialised"), "the first opener initialises the lock file: \(first)")
        #expect(protocolLines.allSatisfy { $0.hasPrefix("open 2 ") || $0.hasPrefix("commit 2 ") }, "\(first)")
    }

    // MARK: helpers

    /// A failed campaign's artifact, for the expectation's message: the failure and the end of
    /// the parent's timeline (the scratch directory goes with the test).
    static func evidence(_ events: Events) -> String {
        guard let path = events.first("failure")?["artifact"] as? String else { return "" }
        let failure = (try? String(contentsOfFile: path + "/failure.txt", encoding: .utf8)) ?? ""
        let timeline = (try? String(contentsOfFile: path + "/timeline.txt", encoding: .utf8)) ?? ""
        return failure + timeline.split(separator: "\n").suffix(30).joined(separator: "\n")
    }

    /// Runs a campaign with `defect`, checks it failed and left its artifact (which goes with
    /// the scratch directory on return); returns its failure event.
    private func failingCampaign(defect: String) throws -> [String: Any] {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "run", "--mode", "process", "--defect", defect, "--kills", "200", "--seconds", "500", "--seed", "5",
                "--json", "--out", directory.path,
            ],
            timeout: .seconds(hangGuardSeconds))
        #expect(output.exitCode == 1, "\(output)")
        let events = try Events(output)
        let failure = try #require(events.first("failure"), "\(output)")
        let artifact = try #require(failure["artifact"] as? String, "\(failure)")
        #expect((failure["rerun"] as? String)?.hasSuffix("--defect \(defect)") == true, "\(failure)")
        try checkArtifact(artifact)
        #expect(Events.int("failures", in: events.first("summary")) == 1, "\(output)")
        return failure
    }

    /// The evidence: the failure and plan, the timeline, every child's output, the file.
    private func checkArtifact(_ path: String) throws {
        let failure = try String(contentsOfFile: path + "/failure.txt", encoding: .utf8)
        #expect(failure.contains("seed: 5"), "\(failure)")
        #expect(failure.contains("rerun the plan: strata-fuzz run --mode process --seed 5"))
        // The rerun command reproduces the campaign: the defect and the budget are in it.
        #expect(failure.contains("--threads 3 --seconds 500 --kills 200 --defect "), "\(failure)")
        let timeline = try String(contentsOfFile: path + "/timeline.txt", encoding: .utf8)
        #expect(timeline.contains("kill c"), "\(timeline)")
        let children = try FileManager.default.contentsOfDirectory(atPath: path + "/children")
        #expect(children.contains("c0-0.out"), "\(children)")
        #expect(children.contains("c0-0.err"), "\(children)")
        #expect(FileManager.default.fileExists(atPath: path + "/campaign.realm"))
    }
}
