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
        try expectCaughtAndShrunk("firstSkipsFirstMatch", signature: "divergence: c# read(h#")
    }
}
