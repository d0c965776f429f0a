import Foundation
import StrataStorage
import Testing

@testable import StrataCheck

/// Hand-made free-mode logs: a tiny, valid history, and the same history with one rule broken.
/// Times are clock readings in nanoseconds; only their order matters.
enum FreeLogs {
    static let i1 = FreeKey(.item, 1)
    static let o2 = FreeKey(.other, 2)

    static func event(_ thread: Int, _ index: Int, _ kind: FreeEvent.Kind) -> FreeEvent {
        FreeEvent(thread: thread, index: index, kind: kind)
    }

    static func commit(
        _ thread: Int, _ index: Int, _ base: UInt64, _ version: UInt64, _ changes: [FreeChange],
        began: UInt64, returned: UInt64
    ) -> FreeEvent {
        event(
            thread, index,
            .commit(
                FreeCommit(
                    baseVersion: base, version: version, changes: changes,
                    beganAtNanos: began, returnedAtNanos: returned)))
    }

    static func read(
        _ thread: Int, _ index: Int, at version: UInt64, _ seen: [FreeObject],
        frozen: FreeFrozenTag? = nil, startedAt: UInt64? = nil
    ) -> FreeEvent {
        event(
            thread, index,
            .read(
                FreeRead(
                    version: version, frozen: frozen, scope: .all, seen: seen,
                    startedAtNanos: startedAt)))
    }

    /// v1 empty; t0 commits v2 (I1 = 10) and then v3 (O2 = 7, I1 = 11); t1 reads v1, v2, v3 in
    /// turn; t2 freezes v2 and reads it after v3 exists; a fresh realm reads v3 at the end.
    static var valid: FreeLog {
        let v2: [FreeObject] = [FreeObject(i1, 10)]
        let v3: [FreeObject] = [FreeObject(i1, 11), FreeObject(o2, 7)]
        let tag = FreeFrozenTag(id: 1, version: 2)
        return FreeLog(
            initialVersion: 1,
            events: [
                event(0, 0, .move(FreeMove(cause: .beginWrite, version: 1, startedAtNanos: 100))),
                commit(0, 1, 1, 2, [.put(i1, 10)], began: 100, returned: 200),
                event(0, 2, .move(FreeMove(cause: .beginWrite, version: 2, startedAtNanos: 400))),
                commit(0, 3, 2, 3, [.put(o2, 7), .put(i1, 11)], began: 400, returned: 500),
                read(1, 0, at: 1, [], startedAt: 50),
                event(1, 1, .move(FreeMove(cause: .refresh, version: 2, startedAtNanos: 300))),
                read(1, 2, at: 2, v2),
                event(1, 3, .move(FreeMove(cause: .refresh, version: 3, startedAtNanos: 600))),
                read(1, 4, at: 3, v3.reversed()),
                read(2, 0, at: 2, v2, startedAt: 250),
                event(2, 1, .freeze(FreeFreeze(frozen: tag, liveVersion: 2))),
                read(2, 2, at: 2, v2, frozen: tag),
            ], finalVersion: 3, finalObjects: v3)
    }

    /// `valid` with the event at `index` (of the list above) replaced.
    static func valid(replacing position: Int, with event: FreeEvent) -> FreeLog {
        var log = valid
        log.events[position] = event
        return log
    }
}

@Suite struct FreeCheckerTests {
    @Test func aValidHistoryPasses() {
        #expect(FreeChecker.check(FreeLogs.valid) == nil)
    }

    // Spec V1: t1 reads v2 but sees the empty state of v1.
    @Test func aStaleReadIsReported() throws {
        let log = FreeLogs.valid(replacing: 6, with: FreeLogs.read(1, 2, at: 2, []))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .isolation)
        #expect(failure.message.contains("t1#2"))
        #expect(failure.message.contains("state of v1"), "\(failure)")
        #expect(
            failure.excerpt.contains { $0.contains("commit") && $0.contains("v1 -> v2") },
            "\(failure.excerpt)")
    }

    // Spec W1: a second writer on v1 also makes v2, and its update is lost.
    @Test func aLostUpdateTwoCommitsOfOneVersionIsReported() throws {
        var log = FreeLogs.valid
        log.events.append(
            FreeLogs.commit(3, 0, 1, 2, [.put(FreeLogs.i1, 99)], began: 150, returned: 210))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .lostUpdate)
        #expect(failure.message.contains("two commits made v2"), "\(failure)")
    }

    // Spec V11: a write based on v1 commits after v2 exists (it did not start at the newest).
    @Test func aWriteThatDidNotStartAtTheNewestIsALostUpdate() throws {
        var log = FreeLogs.valid
        log.events.append(
            FreeLogs.commit(3, 0, 1, 4, [.put(FreeLogs.i1, 99)], began: 150, returned: 700))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .lostUpdate)
        #expect(failure.message.contains("did not start at the newest version"), "\(failure)")
    }

    // Spec W16: a commit begun at v2 must make v3.
    @Test func aCommitThatSkipsAVersionIsReported() throws {
        let log = FreeLogs.valid(
            replacing: 3, with: FreeLogs.commit(0, 3, 2, 4, [], began: 400, returned: 500))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .commitVersion)
    }

    // Spec V3: t1's refresh began after the commit of v3 returned, yet stayed at v2.
    @Test func aRefreshOlderThanAReturnedCommitIsARealTimeViolation() throws {
        let log = FreeLogs.valid(
            replacing: 5,
            with: FreeLogs.event(
                1, 1,
                .move(
                    FreeMove(
                        cause: .refresh, version: 2,
                        startedAtNanos: 550))))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .realTime)
        #expect(failure.message.contains("t0#3's commit of v3"), "\(failure)")
    }

    // Spec W1, W16: a write that began after another's commit returned must make a larger
    // version. Here t0's commit of v3 returned at 500 and t1's write began at 600, yet t1 made
    // v2 (and t0, impossibly, began from it): the version chain alone is consistent.
    @Test func aWriteAfterAReturnedCommitMustMakeALargerVersion() throws {
        let key = FreeLogs.i1
        let log = FreeLog(
            initialVersion: 1,
            events: [
                FreeLogs.commit(0, 0, 2, 3, [.put(key, 2)], began: 400, returned: 500),
                FreeLogs.commit(1, 0, 1, 2, [.put(key, 1)], began: 600, returned: 700),
            ], finalVersion: 3, finalObjects: [FreeObject(key, 2)])
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .realTime)
        #expect(failure.message.contains("committed v2, not above it"), "\(failure)")
    }

    // Spec V10: a first read that began after a commit returned reads at least that commit.
    @Test func aFirstReadOlderThanAReturnedCommitIsReported() throws {
        let log = FreeLogs.valid(replacing: 9, with: FreeLogs.read(2, 0, at: 1, [], startedAt: 250))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .realTime)
    }

    // Spec V2, V3: t1 reads v3, then v2 again, with no way to move back.
    @Test func aThreadThatGoesBackIsReported() throws {
        let v2 = [FreeObject(FreeLogs.i1, 10)]
        let log = FreeLogs.valid(replacing: 8, with: FreeLogs.read(1, 4, at: 2, v2))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .wentBack)
        #expect(failure.message.contains("t1#4 reads v2 after t1#3 read v3"), "\(failure)")
    }

    // Spec F2: a frozen realm reads only its own version.
    @Test func aFrozenRealmAtAnotherVersionIsReported() throws {
        let tag = FreeFrozenTag(id: 1, version: 2)
        let v3 = [FreeObject(FreeLogs.i1, 11), FreeObject(FreeLogs.o2, 7)]
        let log = FreeLogs.valid(replacing: 11, with: FreeLogs.read(2, 2, at: 3, v3, frozen: tag))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .frozen)
    }

    @Test func aVersionNoCommitMadeIsReported() throws {
        let log = FreeLogs.valid(replacing: 8, with: FreeLogs.read(1, 4, at: 9, []))
        let failure = try #require(FreeChecker.check(log))
        #expect(failure.kind == .unknownVersion)
    }

    // Spec W4: inside a write, a read sees the write's own changes on top of its base.
    @Test func aReadInsideAWriteMustSeeItsOwnChanges() throws {
        var log = FreeLogs.valid
        let own: [FreeChange] = [.delete(FreeLogs.i1)]
        let inWrite = FreeRead(version: 2, scope: .object(FreeLogs.i1), seen: [], ownChanges: own)
        log.events.append(FreeLogs.event(4, 0, .read(inWrite)))
        #expect(FreeChecker.check(log) == nil)
        var wrong = inWrite
        wrong.seen = [FreeObject(FreeLogs.i1, 10)]
        log.events[log.events.count - 1] = FreeLogs.event(4, 0, .read(wrong))
        #expect(FreeChecker.check(log)?.kind == .isolation)
    }

    @Test func wrongFinalContentsAndEngineErrorsAreReported() throws {
        var log = FreeLogs.valid
        log.finalObjects = [FreeObject(FreeLogs.i1, 11)]
        #expect(FreeChecker.check(log)?.kind == .finalState)
        log = FreeLogs.valid
        log.events.append(FreeLogs.event(3, 0, .engineError(operation: "write", message: "EIO")))
        #expect(FreeChecker.check(log)?.kind == .engineError)
    }

    /// A failed free run leaves an artifact: the token, the failure with its excerpt, the log.
    @Test func aFreeFailureWritesItsEvidence() throws {
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "free-artifact-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = FreeLogs.valid(replacing: 6, with: FreeLogs.read(1, 2, at: 2, []))
        let failure = try #require(FreeChecker.check(log))
        let settings = FreeSettings(threads: 3, operationsPerThread: 10)
        var stream = ChoiceStream(seed: 1)
        let plan = FreePlan.draw(&stream)
        let result = FreeResult(
            settings: settings, plan: plan, failure: failure,
            statistics: FreeStatistics(log: log, operations: 12), log: log,
            choices: stream.recorded, seconds: 0)
        let path = try FreeArtifact.write(result, seed: 77, into: directory)
        let text = try String(contentsOfFile: path + "/failure.txt", encoding: .utf8)
        #expect(text.contains("failure: isolation"))
        #expect(text.contains("seed: 77"))
        #expect(text.contains("at fault: t1#2 read live @v2 all"))
        #expect(text.contains("commit: t0#1 commit v1 -> v2"))
        let token = try String(contentsOfFile: path + "/" + Artifact.tokenFile, encoding: .utf8)
        #expect(ReplayToken.decode(token)?.settings.mode == .free)
        let events = try String(contentsOfFile: path + "/events.txt", encoding: .utf8)
        #expect(events.split(separator: "\n").count == log.events.count + 2)
        #expect(result.runResult.failure?.kind == .divergence)
    }
}

/// The free oracle against seeded engine bugs (outside the ThreadSanitizer leg: these runs
/// prove the checker, not the engine).
@Suite(.serialized) struct FreeModeSeededBugTests {
    /// Seeded engine bugs (`SeededBugs`) that free runs must catch: pages a pinned version
    /// still uses get reused (readers then meet pages of a newer version), and leaf splits
    /// drop an entry (reads then miss an object: an isolation failure, in wide plans only).
    ///
    /// `reusePinnedPages` is not among them here: in a free run the writer overwrites pages a
    /// reader is reading at that instant, and a reader can then trip an engine invariant and
    /// end the test process. The lockstep harness (one thread inside the engine at a time)
    /// catches it below, and `strata-fuzz bugs --check` in free runs too.
    @Test(arguments: [
        (SeededBugSet.engine(.treeSplitOffByOne), "treeSplitOffByOne")
    ])
    func seededEngineBugsAreCaught(bug: SeededBugSet, name: String) throws {
        let runsMax = 40
        var caught: (run: Int, failure: FreeFailure)?
        for run in 0..<runsMax where caught == nil {
            let settings = FreeSettings(
                store: .sim, threads: 4, operationsPerThread: 300, engineBugs: bug)
            let result = try FreeRun(settings: settings, stream: ChoiceStream(seed: UInt64(run)))
                .run()
            if let failure = result.failure { caught = (run, failure) }
        }
        let found = try #require(caught, "\(name) was not caught in \(runsMax) free runs")
        let summary = found.failure.description.prefix(240)
        print("free mode caught \(name) in run \(found.run + 1): \(summary)")
        if bug == .engine(.treeSplitOffByOne) {
            #expect(found.failure.kind == .isolation || found.failure.kind == .finalState)
        }
    }

    /// Pages a pinned version still uses, reused by a commit, are caught by the lockstep
    /// harness: a reader left at its pin meets the newer version's pages (Spec D5, V1).
    @Test func reusedPinnedPagesAreCaughtInLockstep() throws {
        var campaign = Campaign(
            mix: .controlled, seconds: nil, runs: 400, seed: 1, engineBugs: .engine(.reusePinnedPages),
            shrinkSeconds: nil, shrinkAttempts: 1500)
        campaign.generation = 9  // the shrink bound was measured on generation 9's streams
        let report = campaign.run()
        let found = try #require(
            report.failures.first, "reusePinnedPages was not caught in \(report.runs) lockstep runs")
        print(
            "lockstep caught reusePinnedPages after \(report.runs) runs, shrunk to \(found.shrunk.trace.count) operations in \(found.shrinkRuns) runs: \(found.shrunk.failure?.description ?? "")"
        )
        #expect(found.shrunk.trace.count <= 20, "shrunk to \(found.shrunk.trace.count) operations")
    }

    /// A free campaign stops at the failure and keeps the free run (its log, for the
    /// artifact); it does not shrink, and its token is the artifact's.
    @Test func aFreeCampaignKeepsTheFailingRun() throws {
        let directory = (NSTemporaryDirectory() as NSString)
            .appendingPathComponent("free-campaign-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let campaign = Campaign(
            mix: .free, store: .sim, threads: 4, operationsPerRun: 1200, seconds: nil, runs: 400, seed: 1,
            engineBugs: .engine(.reusePinnedPages))
        let report = campaign.run()
        let found = try #require(report.failures.first, "reusePinnedPages was not caught")
        let free = try #require(found.free)
        #expect(found.shrinkRuns == 0)
        #expect(found.settings == free.settings.checkSettings)
        let path = try FreeArtifact.write(free, seed: found.seed, into: directory)
        let token = try String(contentsOfFile: path + "/" + Artifact.tokenFile, encoding: .utf8)
        #expect(token.trimmingCharacters(in: .whitespacesAndNewlines) == found.token)
        let text = try String(contentsOfFile: path + "/failure.txt", encoding: .utf8)
        #expect(text.contains("failure: \(free.failure?.kind.rawValue ?? "none")"))
        #expect(text.contains("at fault: "))
    }

}
