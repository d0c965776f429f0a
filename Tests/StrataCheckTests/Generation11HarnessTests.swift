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
        // Pinned to generation 11: the figures below are generation 11's mix.
        let checked = try forEachGeneratedRun(generation: 11) { result in
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
        try expectOlderGenerations(1...10) { operation in
            switch operation {
            case .insertIntoSet, .removeFromSet: return true
            default: return false
            }
        }
    }

    @Test(
        "Spec V24, W13: a set that stores duplicates, or keeps deleted objects, is caught and shrunk",
        arguments: ["setKeepsDuplicates", "setKeepsDeletedObject"])
    func setBugsAreCaughtAndShrunk(_ name: String) throws {
        let found = try expectCaughtAndShrunk(name, generation: 13)  // measured on generation 13's streams
        #expect(
            found.shrunk.trace.contains { entry in
                if case .insertIntoSet = entry.step.operation { return true }
                return false
            }, "the shrunk run still fills a set")
    }
}
