import Foundation
import StrataStorage
import Testing

@testable import StrataCheck

/// Spec D7: a slot adopted after a failed phase-2 sync is written again and synced by the next
/// write's begin, before that write reuses the pages of the version before it. The corpus run
/// `unconfirmed-slot-after-phase-two-eio` (a fresh seed of a 10-minute campaign) passes; the same
/// run with the seeded bug `trustUnconfirmedSlot` (the engine before the rule) must fail again,
/// with the crash image's version damaged.
@Suite struct UnconfirmedSlotTests {
    static var corpusToken: String {
        get throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(
                    "fuzz/corpus/unconfirmed-slot-after-phase-two-eio/token.txt")
            return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("Spec D7: the run passes with the rule and fails, with damage, without it")
    func trustingTheUnconfirmedSlotDamagesTheVersionBeforeIt() throws {
        let token = try Self.corpusToken
        #expect(try StrataCheck.replay(token: token) == nil)
        // The token's fifth field is the run's seeded bugs (none in the corpus run).
        var fields = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(fields.count > 5 && fields[5] == "0", "\(token)")
        fields[5] = String(SeededBugs.trustUnconfirmedSlot.rawValue)
        let failure = try #require(
            try StrataCheck.replay(token: fields.joined(separator: ".")),
            "the run with trustUnconfirmedSlot passed")
        #expect(failure.description.contains("newer than version"), "\(failure.description)")
    }
}
