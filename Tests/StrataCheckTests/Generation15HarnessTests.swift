import Foundation
import Strata
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 15 in generated runs: collections (Results, Lists, LinkingObjects) sectioned by a
/// key of `value` and read whole (Spec V27), each section's key and objects checked against the
/// model's at every step and crash image; half of generation 13's filters through collections
/// spelled as a SUBQUERY's count (Spec V23).
@Suite(.serialized) struct Generation15HarnessTests {
    @Test("Spec V27: generation 15 runs are clean, replay bit for bit, and read sections")
    func generation15RunsAreCleanAndReadSections() throws {
        var byKey: [String: Int] = [:]
        var refusals: [String: Int] = [:]
        var sectionCounts: [Int: Int] = [:]
        var remainderSplits = 0
        var subqueries = 0
        var subqueriesRun = 0
        var nullKeys = 0
        let checked = try forEachGeneratedRun { result in
            for entry in result.trace {
                if case .objects(_, let query, _) = entry.step.operation, query.collectionMinimum != nil,
                    let spelling = query.formatSpelling, spelling >= 64
                {
                    subqueries += 1
                    if case .failure = entry.observed {} else { subqueriesRun += 1 }
                }
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
                    // Where a key may come back: remainder keys over two sections or more. That
                    // one does is shown by `sectionPerKeyRunIsCaughtAndShrunk`: the bug only
                    // shows when a key comes back.
                    if case .remainder = key, sections.count >= 2 { remainderSplits += 1 }
                default: break
                }
            }
        }
        print(
            "generation 15 in 40 runs: sectioned reads by \(byKey.sorted { $0.key < $1.key }); sections per read (4: four or more) \(sectionCounts.sorted { $0.key < $1.key }); \(nullKeys) with a null key; \(remainderSplits) remainder reads of two or more sections; refusals \(refusals.sorted { $0.key < $1.key }); \(subqueries) collection queries spelled as SUBQUERY, \(subqueriesRun) not refused"
        )
        #expect(subqueriesRun > 0, "no collection query was spelled as a SUBQUERY")
        #expect(byKey["quotient", default: 0] > 0 && byKey["remainder", default: 0] > 0)
        #expect(sectionCounts.keys.contains { $0 >= 2 }, "no read met two sections")
        #expect(remainderSplits > 0, "no remainder read met two sections")
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

/// The layers' seeded bugs share one raw value (replay tokens write it): every catalog bug has
/// bits of its own, and an API bug's bits are never an engine bug's.
@Suite struct SeededBugBitsTests {
    @Test func everySeededBugHasBitsOfItsOwn() {
        var seen: UInt64 = 0
        for bug in SeededBugCatalog.all {
            #expect(bug.bug.rawValue != 0, "\(bug.name) switches nothing on")
            #expect(bug.bug.rawValue & seen == 0, "\(bug.name) shares a bit with an earlier bug")
            seen |= bug.bug.rawValue
            let api = bug.bug.api.rawValue
            #expect(api == 0 || api == bug.bug.rawValue, "\(bug.name) is part engine, part API")
        }
        // The planted crash is no catalog bug, but shares the raw value too.
        #expect(APISeededBugs.all.rawValue & SeededBugs.plantedCrashInCommit.rawValue == 0)
    }
}
