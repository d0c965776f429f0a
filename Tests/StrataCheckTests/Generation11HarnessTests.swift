import Foundation
import Strata
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 11 in generated runs: Linkers' sets of Items (Spec V24), inserted into and
/// removed from inside writes, read back in every object reading (set order included), through
/// crash images, deletes of their Items (W13) and copies (W14), checked against the model.
@Suite(.serialized) struct Generation11HarnessTests {
    @Test("Spec V24: generation 11 runs are clean, replay bit for bit, and write and read sets")
    func generation11RunsAreCleanAndWriteSets() throws {
        var inserts = 0
        var removes = 0
        var applied = 0
        var refused = 0
        var refusals: [String: Int] = [:]
        var outcomes: [String: Int] = [:]
        var largestSet = 0
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
                    let kind: String
                    switch entry.step.operation {
                    case .insertIntoSet:
                        inserts += 1
                        kind = "insert"
                    case .removeFromSet:
                        removes += 1
                        kind = "remove"
                    default: continue
                    }
                    if case .failure(_, let message) = entry.observed {
                        refused += 1
                        refusals["\(kind): \(message)", default: 0] += 1
                    } else {
                        applied += 1
                        outcomes["\(kind) \(entry.observed)", default: 0] += 1
                    }
                }
                for entry in result.trace {
                    if case .elements(let readings) = entry.observed {
                        largestSet = max(largestSet, readings.map { $0.setKeys.count }.max() ?? 0)
                    }
                    if case .object(let reading?) = entry.observed {
                        largestSet = max(largestSet, reading.setKeys.count)
                    }
                }
                if seed % 10 == 0 {
                    let replayed = try Runner(settings: settings, stream: ChoiceStream(replaying: result.choices)).run()
                    #expect(replayed.digest == result.digest, "\(mode) seed \(seed) replays another trace")
                    checked += 1
                }
            }
        }
        print(
            "generation 11 in 40 runs: \(inserts) set inserts, \(removes) removes (\(applied) applied, \(refused) refused); largest set read: \(largestSet)"
        )
        print("outcomes: \(outcomes.sorted { $0.key < $1.key }); refusals: \(refusals.sorted { $0.key < $1.key })")
        #expect(inserts > 0 && removes > 0 && applied > 0 && refused > 0)
        #expect(outcomes["insert done", default: 0] > 0 && outcomes["remove done", default: 0] > 0)
        // The refusals the model decides: outside a write, and an Item of another realm instance.
        #expect(refusals.keys.contains { $0.hasPrefix("insert: Cannot modify Set outside of a write transaction") })
        #expect(refusals.keys.contains { $0.hasPrefix("insert: Object is already managed by another Realm") })
        #expect(largestSet >= 2, "no run read a set of two Items")
        #expect(checked == 4)
    }

    /// Runs of generations 1 to 10 never write a set: a token printed before generation 11
    /// keeps its meaning.
    @Test func olderGenerationsNeverWriteSets() throws {
        for generation in 1...10 {
            var settings = CheckSettings(mode: .controlled, store: .sim, threads: 3, operations: 120)
            settings.generation = generation
            for seed in 1...3 {
                let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
                #expect(result.failure == nil, "generation \(generation) seed \(seed)")
                #expect(
                    !result.trace.contains { entry in
                        switch entry.step.operation {
                        case .insertIntoSet, .removeFromSet: return true
                        default: return false
                        }
                    })
            }
        }
    }

    @Test(
        "Spec V24, W13: a set that stores duplicates, or keeps deleted objects, is caught and shrunk",
        arguments: ["setKeepsDuplicates", "setKeepsDeletedObject"])
    func setBugsAreCaughtAndShrunk(_ name: String) throws {
        let bug = try #require(SeededBugCatalog.named(name))
        let campaign = Campaign(
            mix: .controlled, operationsPerRun: 200, seconds: nil, runs: 400, seed: 1,
            engineBugs: bug.bug, shrinkSeconds: nil, shrinkAttempts: 1000)
        let report = campaign.run()
        let found = try #require(report.failures.first, "not caught in \(report.runs) runs")
        let shrunk = try #require(found.shrunk.failure)
        print(
            "\(name): caught after \(report.runs) runs; shrunk \(found.original.trace.count) -> \(found.shrunk.trace.count) steps: \(shrunk.description)"
        )
        #expect(shrunk.signature.hasPrefix("divergence"), "\(shrunk.description)")
        #expect(found.shrunk.trace.count <= 30, "shrunk to \(found.shrunk.trace.count) steps")
        #expect(try StrataCheck.replay(token: found.token)?.signature == shrunk.signature)
        #expect(
            found.shrunk.trace.contains { entry in
                if case .insertIntoSet = entry.step.operation { return true }
                return false
            }, "the shrunk run still fills a set")
    }
}
