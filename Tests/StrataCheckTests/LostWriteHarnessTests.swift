import Foundation
import StrataCheck
import StrataStorage
import Testing

/// Spec D19 through the harness: crash images damaged at rest by a lost write (an older copy of
/// a data page comes back) or an older page written at another page's address must be caught on
/// read or leave the old or new version intact. The seeded bug `skipReferenceCheck` follows
/// references without checking what they expect; the harness must see the older data it reads.
@Suite struct LostWriteHarnessTests {
    @Test("Spec D19: crash campaigns catch the seeded bug skipReferenceCheck by a count budget")
    func skippedReferenceCheckIsCaught() throws {
        let bug = try #require(SeededBugCatalog.named("skipReferenceCheck"))
        // Seed 1's crash mix first meets a lost write that reads as data within a few dozen
        // runs; the operation budget leaves ample room and no verdict depends on speed.
        let campaign = Campaign(
            mix: .crash, operationsPerRun: 200, seconds: nil, operations: 120_000, seed: 1,
            engineBugs: bug.bug, shrinks: false)
        let report = campaign.run()
        let found = try #require(report.failures.first, "skipReferenceCheck was not caught in \(report.runs) runs")
        let failure = try #require(found.original.failure)
        print("skipReferenceCheck: caught after \(report.runs) runs: \(failure.description)")
        #expect(
            failure.description.contains("then revertToOlderCopy")
                || failure.description.contains("then olderCopyMisdirected"),
            "\(failure.description)")
    }

    @Test("Spec D19: the same crash campaign without the bug stays clean")
    func lostWritesAreCaughtOrHarmlessInCrashCampaigns() throws {
        let campaign = Campaign(
            mix: .crash, operationsPerRun: 200, seconds: nil, operations: 20_000, seed: 1, shrinks: false)
        let report = campaign.run()
        #expect(
            report.failures.isEmpty,
            "\(report.failures.first.map { "\($0.original.failure?.description ?? "")" } ?? "")")
        #expect(report.statistics.damagedImages > 0)
    }
}
