import Foundation
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// `Results.first` and `isEmpty` stop at the first match instead of evaluating the query, a
/// path of their own; the harness reads element 0 of every Results through them before anything
/// evaluates the Results (`EngineSide.readings`). The seeded bug `firstSkipsFirstMatch`, which
/// steps over the first match on that path, must be caught from seed 1 of a controlled campaign,
/// shrunk, and replayed by its token.
@Suite(.serialized) struct FirstMatchSeededBugTests {
    @Test("Spec V1: first and isEmpty stepping over the first match are caught and shrunk")
    func firstSkipsFirstMatchIsCaughtAndShrunk() throws {
        let bug = try #require(SeededBugCatalog.named("firstSkipsFirstMatch"))
        let campaign = Campaign(
            mix: .controlled, operationsPerRun: 200, seconds: nil, runs: 400, seed: 1,
            engineBugs: bug.bug, shrinkSeconds: nil, shrinkAttempts: 1000)
        let report = campaign.run()
        let found = try #require(report.failures.first, "firstSkipsFirstMatch was not caught in \(report.runs) runs")
        let shrunk = try #require(found.shrunk.failure)
        print(
            "firstSkipsFirstMatch: caught after \(report.runs) runs; shrunk \(found.original.trace.count) -> \(found.shrunk.trace.count) steps in \(found.shrinkRuns) runs: \(shrunk.description); replay token: \(found.token)"
        )
        #expect(shrunk.signature.hasPrefix("divergence: c# read(h#"), "\(shrunk.description)")
        #expect(found.shrunk.trace.count <= 30, "shrunk to \(found.shrunk.trace.count) steps")
        #expect(try StrataCheck.replay(token: found.token)?.signature == shrunk.signature)
    }
}
