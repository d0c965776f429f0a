import Foundation
import Strata
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 15 in generated runs: collections (Results, Lists, LinkingObjects) sectioned by a
/// key of `value` and read whole (Spec V27), each section's key and objects checked against the
/// model's at every step and crash image.
@Suite(.serialized) struct Generation15HarnessTests {
    @Test("Spec V27: generation 15 runs are clean, replay bit for bit, and read sections")
    func generation15RunsAreCleanAndReadSections() throws {
        var byKey: [String: Int] = [:]
        var refusals: [String: Int] = [:]
        var sectionCounts: [Int: Int] = [:]
        var keysReturning = 0
        var nullKeys = 0
        let checked = try forEachGeneratedRun { result in
            for entry in result.trace {
                guard case .sectioned(_, let key, _) = entry.step.operation else { continue }
                switch key {
                case .quotient: byKey["quotient", default: 0] += 1
                case .remainder: byKey["remainder", default: 0] += 1
                }
                switch entry.observed {
                case .failure(_, let message): refusals[message, default: 0] += 1
                case .sections(let sections):
                    sectionCounts[min(sections.count, 4), default: 0] += 1
                    if sections.contains(where: { $0.key == nil }) { nullKeys += 1 }
                    // A remainder key whose section is not one run of the sort: it came back.
                    if case .remainder = key, sections.count >= 2,
                        sections.contains(where: { $0.primaryKeys.count >= 2 })
                    {
                        keysReturning += 1
                    }
                default: break
                }
            }
        }
        print(
            "generation 15 in 40 runs: sectioned reads by \(byKey.sorted { $0.key < $1.key }); sections per read (4: four or more) \(sectionCounts.sorted { $0.key < $1.key }); \(nullKeys) with a null key; \(keysReturning) remainder reads of two or more sections with a section of two or more; refusals \(refusals.sorted { $0.key < $1.key })"
        )
        #expect(byKey["quotient", default: 0] > 0 && byKey["remainder", default: 0] > 0)
        #expect(sectionCounts.keys.contains { $0 >= 2 }, "no read met two sections")
        #expect(keysReturning > 0, "no remainder read could join a returning key")
        #expect(checked == 4)
    }

    /// Runs of generations 1 to 14 never section: a token printed before generation 15 keeps
    /// its meaning.
    @Test func olderGenerationsNeverSection() throws {
        try expectOlderGenerations(1...14) { operation in
            if case .sectioned = operation { return true }
            return false
        }
    }

    @Test("Spec V27: sections that split a key coming back after another are caught and shrunk")
    func sectionPerKeyRunIsCaughtAndShrunk() throws {
        let found = try expectCaughtAndShrunk("sectionPerKeyRun")
        #expect(
            found.shrunk.trace.contains { entry in
                if case .sectioned = entry.step.operation { return true }
                return false
            }, "the shrunk run still sections")
    }
}
