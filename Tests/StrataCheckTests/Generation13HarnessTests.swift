import Foundation
import Strata
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 13 in generated runs: filters through collections (Spec V23), `ANY list.value >= m`
/// and its equivalent spellings (SOME, NOT NONE, `@max`), over Lists and, for Linkers, sets and
/// Maps, whose Results must be the model's in every read, iteration, observer and crash image.
/// Pinned to generation 13: its figures are measured on the streams of that generation.
@Suite(.serialized) struct Generation13HarnessTests {
    @Test("Spec V23: generation 13 runs are clean, replay bit for bit, and filter through collections")
    func generation13RunsAreCleanAndFilterThroughCollections() throws {
        var byCollection: [String: Int] = [:]
        var spellings: Set<String> = []
        var nonEmptyReads = 0
        var handles: Set<HandleID> = []
        let checked = try forEachGeneratedRun(generation: 13) { result in
            for entry in result.trace {
                if case .objects(_, let query, let handle) = entry.step.operation,
                    let condition = query.collectionMinimum
                {
                    byCollection[condition.collection.rawValue, default: 0] += 1
                    if let format = FilterFormat(query) {
                        spellings.insert(
                            format.format.replacingOccurrences(of: #"[0-9-]+"#, with: "#", options: .regularExpression))
                    }
                    handles.insert(handle)
                }
                if case .read(let handle) = entry.step.operation, handles.contains(handle),
                    case .elements(let readings) = entry.observed, !readings.isEmpty
                {
                    nonEmptyReads += 1
                }
            }
            handles.removeAll()
        }
        print(
            "generation 13 in 40 runs: queries through collections \(byCollection.sorted { $0.key < $1.key }); \(spellings.count) spellings; \(nonEmptyReads) non-empty reads of them"
        )
        #expect(byCollection["list", default: 0] > 0 && byCollection["set", default: 0] > 0)
        #expect(byCollection["map", default: 0] > 0)
        #expect(spellings.contains { $0.contains("@max") } && spellings.contains { $0.contains("NONE") })
        #expect(nonEmptyReads > 0, "no read found an object through a collection")
        #expect(checked == 4)
    }

    /// Runs of generations 1 to 12 never filter through a collection: a token printed before
    /// generation 13 keeps its meaning.
    @Test func olderGenerationsNeverFilterThroughCollections() throws {
        try expectOlderGenerations(1...12) { operation in
            if case .objects(_, let query, _) = operation { return query.collectionMinimum != nil }
            return false
        }
    }

    @Test("Spec V23: a query through a collection that skips its last element is caught and shrunk")
    func collectionQuerySkipsLastIsCaughtAndShrunk() throws {
        let found = try expectCaughtAndShrunk("collectionQuerySkipsLast", generation: 13)
        #expect(
            found.shrunk.trace.contains { entry in
                if case .objects(_, let query, _) = entry.step.operation { return query.collectionMinimum != nil }
                return false
            }, "the shrunk run still filters through a collection")
    }
}
