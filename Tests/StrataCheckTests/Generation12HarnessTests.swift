import Foundation
import Strata
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 12 in generated runs: Linkers' Maps of Items (Spec V25), keys set to Items or to
/// null and removed inside writes, read back in every object reading (key order included),
/// through crash images, deletes of their Items (W13: the value becomes null, the key stays)
/// and copies (W14), checked against the model.
@Suite(.serialized) struct Generation12HarnessTests {
    @Test("Spec V25: generation 12 runs are clean, replay bit for bit, and write and read Maps")
    func generation12RunsAreCleanAndWriteMaps() throws {
        var sets = 0
        var removes = 0
        var refusals: [String: Int] = [:]
        var outcomes: [String: Int] = [:]
        var largestMap = 0
        var nullValuesRead = 0
        // Pinned to generation 12: the figures below are generation 12's mix.
        let checked = try forEachGeneratedRun(generation: 12) { result in
            for entry in result.trace {
                let kind: String
                switch entry.step.operation {
                case .setMapValue(_, _, let element):
                    sets += 1
                    kind = element == nil ? "set nil" : "set"
                case .removeMapKey:
                    removes += 1
                    kind = "remove"
                default: continue
                }
                if case .failure(_, let message) = entry.observed {
                    refusals["\(kind): \(message)", default: 0] += 1
                } else {
                    outcomes["\(kind) \(entry.observed)", default: 0] += 1
                }
            }
            for entry in result.trace {
                var readings: [Reading] = []
                if case .elements(let all) = entry.observed { readings = all }
                if case .object(let reading?) = entry.observed { readings = [reading] }
                for reading in readings {
                    largestMap = max(largestMap, reading.mapEntries.count)
                    nullValuesRead += reading.mapEntries.filter { $0.primaryKey == nil }.count
                }
            }
        }
        print(
            "generation 12 in 40 runs: \(sets) Map sets, \(removes) removes; largest Map read: \(largestMap); null values read: \(nullValuesRead)"
        )
        print("outcomes: \(outcomes.sorted { $0.key < $1.key }); refusals: \(refusals.sorted { $0.key < $1.key })")
        #expect(outcomes["set done", default: 0] > 0 && outcomes["set nil done", default: 0] > 0)
        #expect(outcomes["remove done", default: 0] > 0)
        // The refusals the model decides: outside a write, an Item of another realm instance and
        // a key realm-core refuses.
        #expect(refusals.keys.contains { $0.hasPrefix("set: Cannot modify Dictionary outside of a write transaction") })
        #expect(refusals.keys.contains { $0.hasPrefix("set: Object is already managed by another Realm") })
        #expect(refusals.keys.contains { $0.contains("Dictionary::insert: key must not") })
        #expect(largestMap >= 3, "no run read a Map of three entries")
        #expect(nullValuesRead > 0, "no run read a null value")
        #expect(checked == 4)
    }

    /// Runs of generations 1 to 11 never write a Map: a token printed before generation 12
    /// keeps its meaning.
    @Test func olderGenerationsNeverWriteMaps() throws {
        try expectOlderGenerations(1...11) { operation in
            switch operation {
            case .setMapValue, .removeMapKey: return true
            default: return false
            }
        }
    }

    @Test(
        "Spec V25, W13: a Map that keeps links to deleted objects, or keeps removed keys, is caught and shrunk",
        arguments: ["mapKeepsDeletedObject", "mapRemoveKeepsKey"])
    func mapBugsAreCaughtAndShrunk(_ name: String) throws {
        let found = try expectCaughtAndShrunk(name, generation: 13)  // measured on generation 13's streams
        #expect(
            found.shrunk.trace.contains { entry in
                if case .setMapValue = entry.step.operation { return true }
                return false
            }, "the shrunk run still fills a Map")
    }
}
