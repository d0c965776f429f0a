import Foundation
import StrataStorage
import Testing

@testable import StrataCheck

/// Real free runs: threads left to the OS on one real file (under ThreadSanitizer in CI,
/// `.ci/run`, which selects this suite by name).
@Suite(.serialized) struct FreeModeTests {
    static let freeRunsFloor = 8
    static let freeRunsMax = 400

    /// Free runs over fresh seeds must pass, and must have done real work: at least
    /// `freeRunsFloor` runs and until each kind of work happened, at most `freeRunsMax` runs
    /// (counts, not seconds: a busy machine takes longer, and the verdict is the same).
    @Test func freeRunsOnARealFilePass() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000) & 0xFFFF_FFFF
        var total = FreeStatistics()
        var runSeed = seed
        while total.runs < Self.freeRunsMax
            && (total.runs < Self.freeRunsFloor || total.frozenReads == 0 || total.moves == 0 || total.commits <= 50
                || total.liveReads <= 100)
        {
            let settings = FreeSettings(store: .file, threads: 4, operationsPerThread: 250)
            let result = try FreeRun(settings: settings, stream: ChoiceStream(seed: runSeed)).run()
            total.add(result.statistics)
            if let failure = result.failure {
                let evidence = FreeArtifact.failureText(result, seed: runSeed)
                Issue.record("seed \(runSeed): \(failure)\n\(evidence)")
                break
            }
            runSeed += 1
        }
        print(
            "free runs from seed \(seed): \(total.runs) runs, \(total.operations) operations, "
                + "\(total.liveReads) live and \(total.frozenReads) frozen reads checked, "
                + "\(total.commits) commits, \(total.cancels) cancels, \(total.moves) moves, "
                + "\(total.freezes) freezes")
        #expect(total.commits > 50)
        #expect(total.liveReads > 100)
        #expect(total.frozenReads > 0)
        #expect(total.moves > 0)
    }

    @Test func aFreeRunOnTheSimulatedDiskPasses() throws {
        let settings = FreeSettings(store: .sim, threads: 3, operationsPerThread: 200)
        let result = try FreeRun(settings: settings, stream: ChoiceStream(seed: 11)).run()
        #expect(result.failure == nil, "\(result.failure?.description ?? "")")
        #expect(result.statistics.commits > 0)
    }

    /// A token of a free run re-runs the same plan and programs: the same choices are drawn.
    @Test func aFreeTokenRerunsTheSamePrograms() throws {
        let settings = FreeSettings(store: .file, threads: 2, operationsPerThread: 40)
        let first = try FreeRun(settings: settings, stream: ChoiceStream(seed: 5)).run()
        let token = ReplayToken.encode(settings: settings.checkSettings, choices: first.choices)
        let decoded = try #require(ReplayToken.decode(token))
        #expect(decoded.settings.mode == .free)
        #expect(FreeSettings(decoded.settings) == settings)
        let again = try replayRun(decoded)
        #expect(again.choices == first.choices)
        #expect(again.failure == nil, "\(again.failure?.description ?? "")")
    }

    /// Campaigns run free runs in `free` and, one run in eight, in `mixed`.
    @Test func campaignsRunFreeRuns() throws {
        let campaign = Campaign(mix: .mixed, operationsPerRun: 100, seconds: nil, seed: 3)
        #expect(campaign.settings(forRun: 3).mode == .free)
        #expect(campaign.settings(forRun: 3).store == .file)
        #expect(campaign.settings(forRun: 11).mode == .free)
        #expect(campaign.settings(forRun: 2).mode == .controlled)
        let free = Campaign(mix: .free, operationsPerRun: 120, seconds: nil, runs: 6, seed: 9)
        let report = free.run()
        #expect(
            report.failures.isEmpty, "\(report.failures.first?.original.failure?.description ?? "")"
        )
        #expect(report.freeStatistics.runs == report.runs)
        #expect(report.statistics.commits == report.freeStatistics.commits)
    }

}
