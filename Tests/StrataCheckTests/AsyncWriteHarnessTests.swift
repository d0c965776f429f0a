import Foundation
import StrataModel
import StrataStorage
import Testing
@testable import StrataCheck

/// Async writes in generated runs (generation 4): blocks, completions and held group syncs
/// checked against the model, power losses and crash images during groups, and the async seeded
/// bugs (Spec A2, A4, A9, A10, D10, D11).
@Suite struct AsyncWriteHarnessTests {
    /// Runs with async writes run blocks, check completions durable and replay bit for bit.
    @Test func asyncRunsCheckBlocksAndReplay() throws {
        var total = CheckStatistics()
        var busiest: RunResult?
        var settings = CheckSettings(mode: .crash, store: .sim, threads: 3, operations: 200)
        settings.generation = 4
        for seed in 1...40 {
            let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
            #expect(result.failure == nil, "seed \(seed): \(result.failure?.description ?? "")")
            total.add(result.statistics)
            if result.statistics.asyncBlocks > (busiest?.statistics.asyncBlocks ?? 0) { busiest = result }
        }
        print("async writes in 40 crash runs: \(total.asyncBlocks) blocks, \(total.checkedCompletions) completions checked durable, \(total.pendingGroupPowerLosses) power losses with a group pending, \(total.groupCrashImages) crash images inside group syncs")
        #expect(total.asyncBlocks > 0)
        #expect(total.checkedCompletions > 0)
        let run = try #require(busiest, "no run in 40 seeds ran an async block")
        let replayed = try Runner(settings: settings, stream: ChoiceStream(replaying: run.choices)).run()
        #expect(replayed.digest == run.digest)
        #expect(replayed.statistics.asyncBlocks == run.statistics.asyncBlocks)
    }
}
