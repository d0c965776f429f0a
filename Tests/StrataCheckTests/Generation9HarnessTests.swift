import Foundation
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 9 in generated runs: `min`, `max`, `sum` and `average` of `value` over Results
/// and Lists (Spec V21) and distinct Results (V22), beside the writes, crashes, iterations and notifications of the older
/// generations, and the seeded bug only they show.
@Suite(.serialized) struct Generation9HarnessTests {
    @Test("Spec V21, V22: generation 9 runs are clean, replay bit for bit, aggregate, and query distinct values")
    func generation9RunsAreCleanReplayAndAggregate() throws {
        var counts: [String: Int] = [:]
        var checked = 0
        for mode in [CheckMode.controlled, .crash] {
            let settings = CheckSettings(mode: mode, store: .sim, threads: 3, operations: 200)
            for seed in 1...20 {
                let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
                #expect(
                    result.failure == nil,
                    "\(mode) seed \(seed): \(result.failure?.description ?? "") token \(ReplayToken.encode(settings: settings, choices: result.choices))"
                )
                #expect(result.statistics.groupSyncWaitsTimedOut == 0, "\(mode) seed \(seed) waited a group sync out")
                #expect(result.statistics.settleWaitsTimedOut == 0, "\(mode) seed \(seed) waited a settle out")
                for (name, count) in Self.aggregateCounts(result) { counts[name, default: 0] += count }
                if seed % 10 == 0 {
                    let replayed = try Runner(settings: settings, stream: ChoiceStream(replaying: result.choices)).run()
                    #expect(replayed.digest == result.digest, "\(mode) seed \(seed) replays another trace")
                    checked += 1
                }
            }
        }
        print("generation 9 in 40 runs: \(counts.sorted { $0.key < $1.key })")
        for name in [
            "min", "max", "sum", "average", "over Results", "over a List", "nil answer", "integer answer",
            "double answer", "refused", "distinct by value", "distinct by link.value",
        ] {
            #expect(counts[name, default: 0] > 0, "no \(name) in 40 runs")
        }
        #expect(checked == 4)
    }

    /// What the run's aggregates were: by function, by collection, by answer.
    static func aggregateCounts(_ result: RunResult) -> [String: Int] {
        var counts: [String: Int] = [:]
        var lists = Set<HandleID>()
        for entry in result.trace {
            switch entry.step.operation {
            case .objects(_, let query, _) where query.distinct != nil:
                counts[query.distinct == .value ? "distinct by value" : "distinct by link.value", default: 0] += 1
            case .listOf(_, let id):
                lists.insert(id)
            case .aggregate(let id, let function):
                counts[function.rawValue, default: 0] += 1
                counts[lists.contains(id) ? "over a List" : "over Results", default: 0] += 1
                switch entry.observed {
                case .aggregate(nil): counts["nil answer", default: 0] += 1
                case .aggregate(.int?): counts["integer answer", default: 0] += 1
                case .aggregate(.double?): counts["double answer", default: 0] += 1
                case .failure: counts["refused", default: 0] += 1
                default: break
                }
            default:
                break
            }
        }
        return counts
    }

    /// Runs of generations 1 to 8 never aggregate: a token printed before generation 9 keeps
    /// its meaning.
    @Test func olderGenerationsNeverAggregate() throws {
        try expectOlderGenerations(1...8) { operation in
            if case .aggregate = operation { return true }
            return false
        }
    }
}

/// The seeded bugs generation 9 is there for: each caught from a fixed seed within a bounded
/// campaign, shrunk, and its token replays the shrunk failure.
@Suite(.serialized) struct Generation9SeededBugTests {
    @Test(
        "Spec V21, V22: an average that counts nulls and a distinct that keeps each group's last object are caught and shrunk",
        arguments: [
            ("averageCountsNulls", "divergence: c# average(h#"),
            ("distinctKeepsLast", "divergence: c# read(h#"),
        ])
    func aGeneration9BugIsCaughtAndShrunk(_ name: String, signature: String) throws {
        // The signatures were measured on generation 9's streams.
        try expectCaughtAndShrunk(name, generation: 9, signature: signature)
    }
}
