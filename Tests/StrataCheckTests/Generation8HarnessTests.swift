import Foundation
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 8 in generated runs: equality queries on `value` (Spec W26), which the engine
/// answers through the secondary index of Item's and Linker's `value` and by a scan of Other's,
/// beside the writes, crashes and notifications of the older generations.
@Suite(.serialized) struct Generation8HarnessTests {
    @Test("Spec W26: generation 8 runs are clean, replay bit for bit, and query by equality on indexed values")
    func generation8RunsAreCleanReplayAndQueryByEquality() throws {
        var equalities: [String: Int] = [:]
        var checked = 0
        for mode in [CheckMode.controlled, .crash] {
            let settings = CheckSettings(mode: mode, store: .sim, threads: 3, operations: 200)
            for seed in 1...20 {
                let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
                #expect(
                    result.failure == nil,
                    "\(mode) seed \(seed): \(result.failure?.description ?? "") token \(ReplayToken.encode(settings: settings, choices: result.choices))"
                )
                for entry in result.trace {
                    if case .objects(_, let query, _) = entry.step.operation, query.equalValue != nil,
                        case .table(let type) = query.source
                    {
                        equalities[type, default: 0] += 1
                    }
                }
                if seed % 10 == 0 {
                    let replayed = try Runner(settings: settings, stream: ChoiceStream(replaying: result.choices)).run()
                    #expect(replayed.digest == result.digest, "\(mode) seed \(seed) replays another trace")
                    checked += 1
                }
            }
        }
        print("generation 8 in 40 runs: equality queries by type \(equalities.sorted { $0.key < $1.key })")
        #expect(equalities["Item", default: 0] > 0, "no equality query on the indexed Item.value")
        #expect(equalities["Other", default: 0] > 0, "no equality query on the unindexed Other.value")
        #expect(checked == 4)
    }

    /// Runs of generations 1 to 7 never draw an equality: a token printed before generation 8
    /// keeps its meaning (same swarm, same trace).
    @Test func olderGenerationsNeverQueryByEquality() throws {
        for generation in 1...7 {
            var settings = CheckSettings(mode: .controlled, store: .sim, threads: 3, operations: 120)
            settings.generation = generation
            for seed in 1...4 {
                let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
                #expect(
                    result.failure == nil, "generation \(generation) seed \(seed): \(result.failure?.description ?? "")"
                )
                #expect(
                    !result.trace.contains { entry in
                        if case .objects(_, let query, _) = entry.step.operation { return query.equalValue != nil }
                        return false
                    })
            }
        }
    }
}

/// The seeded bug generation 8 is there for: caught from a fixed seed within a bounded
/// campaign, shrunk, and its token replays the shrunk failure.
@Suite(.serialized) struct Generation8SeededBugTests {
    @Test("Spec W26: an update that loses its index entry is caught and shrunk")
    func indexEntryLostOnUpdateIsCaughtAndShrunk() throws {
        let bug = try #require(SeededBugCatalog.named("indexEntryLostOnUpdate"))
        let campaign = Campaign(
            mix: .controlled, operationsPerRun: 200, seconds: nil, runs: 400, seed: 1,
            engineBugs: bug.bug, shrinkSeconds: nil, shrinkAttempts: 1000)
        let report = campaign.run()
        let found = try #require(report.failures.first, "indexEntryLostOnUpdate was not caught in \(report.runs) runs")
        let shrunk = try #require(found.shrunk.failure)
        print(
            "indexEntryLostOnUpdate: caught after \(report.runs) runs, \(String(format: "%.1f", found.foundAfterSeconds)) s; shrunk \(found.original.trace.count) -> \(found.shrunk.trace.count) steps in \(found.shrinkRuns) runs: \(shrunk.description); replay token: \(found.token)"
        )
        #expect(found.shrunk.trace.count <= 30, "shrunk to \(found.shrunk.trace.count) steps")
        #expect(try StrataCheck.replay(token: found.token)?.signature == shrunk.signature)
    }
}
