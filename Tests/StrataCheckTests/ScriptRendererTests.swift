import Foundation
import Testing

@testable import StrataCheck

/// The generated test (`ScriptRenderer`) against golden files: each golden is a run's rendering,
/// committed under `Generated/` and compiled into this target, so a golden that no longer
/// compiles breaks the build and each runs as a test of its own (its suite's
/// `concreteScript` and `replayToken`). A change to the renderer shows here as a diff;
/// `STRATA_WRITE_GOLDEN=1 swift test --filter ScriptRendererTests` rewrites the goldens.
@Suite struct ScriptRendererTests {
    /// A run to render: the golden's file name and the run's token.
    struct Golden: Sendable, CustomStringConvertible {
        var file: String
        var token: String
        var description: String { file }
    }

    static let goldens: [Golden] = [
        // `aWrongModelRuleIsCaughtAndShrunk`'s run: the model says `refresh()` never moves.
        Golden(
            file: "WrongModelRule.swift",
            token:
                "sc1.controlled.sim.3.200.0.refreshNeverMoves.-.AAACAQEAAQEDAwIAAgABAwAAAAIAAAAAAAAAAAMAAAAAAwAAAAAAAAAAAAAAAAIAAAACdgwAABsLAABpCgAAAAAAAAAAAAAAAAAAAAAAAAA0AAAAAAAAAAAAAAAAAAAAAAIHCwA"
        ),
        // `aBrokenCommitPathIsCaughtByCrashImages`'s run: a commit skips its phase-1 sync.
        Golden(
            file: "SkippedPhaseOneSync.swift",
            token: "sc1.crash.sim.2.200.1.-.-.AAAAAAAAAAAAAAAAAAAAAAAAAAMDAwAAAAAAAAAAAAAAAAAAAwAAAAEBAAAAAA0AACEAYQI"),
        // `retryingASyncAfterEIOIsCaught`'s run: an injected EIO, and a commit that retries its sync.
        Golden(
            file: "RetriedSyncAfterEIO.swift",
            token: "sc1.crash.sim.1.200.128.-.-.AQAAAQAAAAAAAAAAAAAAAAADAwMAAAAAAAAAAAAAAwMDAAAAAAABAAAZAC0AAFwBAA"),
        // `nullLinksSortFirstIsCaughtAndShrunk`'s run (generation 6): Linkers, a link set, and
        // Results sorted through the link, where a null link sorts first (Spec V20).
        Golden(
            file: "NullLinksSortFirst.swift",
            token:
                "sc6.controlled.sim.3.200.2251799813685248.-.-.AQMAAAAAAgAAAAEAAwABAwMAAAAAAwAAAAADAAADAAADAAAAAAAAAAABAAEBAAAAAAAADAAAJgAAAAAHADUAAQABAAAAngEAAgABAQAAJgABAAAAAAASAAAvAAEAACgAADsAAAAA"
        ),
        // Clean runs, whose scripts must pass: queue contexts, `beginWrite`s that wait for the
        // write lock, power losses, a crash inside a commit, a step the model took before its
        // operation returned, an injected EIO and the poisoned steps after it.
        Golden(
            file: "CleanRunWithFaultAndEarlyStep.swift",
            token:
                "sc1.crash.sim.2.40.0.-.-.AgAAAgICAAEBAAAAAAEAAQABAgMDAwEAAwEBAgADAAAAAgMCAgMBAgEDAzMXbxYkKV4aJxAKqgFWB04vLCAdQ0kCAAwBBAYbERoEB1YGlgFTGiwJKVwCHAIUcg4Eb1clCyo7G1ZNHSpNIXE3H0AuAwIABQYfQxFJMwIBEwcgTT0BGVIXDEcqFU47AQRKJVVNGAEFH0EAtwEIHQhTIh9bHCssHgwjBAEjXFIILiENMw4IAGIRFTIkDkFLAAIPAAYAcV1cARdRBgIxQQV2YxsABhQ8"
        ),
        Golden(
            file: "CleanRunWithPowerLoss.swift",
            token:
                "sc1.crash.sim.2.40.0.-.-.AgIAAgEDAQEBAgABAQACAQECAwIBAQIDAAABAAICAQACAQAAAQEAAgMAAQADAAApBAB_DQcBCAABAR4HAVNiAQBRQwABQikDAQQAdzgEAHsmAwF0NAEARgcAIQIABwBTNQMAiwEHAD4BIgMBUk4DACMGAQtDKwIAdDoCAUFWAwABBQUEAYYBUQEBKi8AJkQDARBNFwMBLzICAAIBBQcBbF4FAVxJAQAAThACAFMJAF4AAQAEBgIBHAkAWQALOSYAngFhVwAArgEwKwAAmQFUJwAHACsJAEMKRiIBFAwAIAQAPUMBUwVXBQHTARUABQACAEwnAAIsAQ"
        ),
        Golden(
            file: "CleanRunWithCrashImage.swift",
            token:
                "sc1.crash.sim.2.40.0.-.-.AQICAQEDAgIAAwECAQIBAAEDAgIAAAEAAQACAgACAgEBAQEBAgIDAgUCAAEDAyAXWYcBHhMgjAEnCAEXX4IBNApLNWsbBQI4ERB6YWY4Rj4DAgYFAj5YAgIwAQFtTjkJAwEGBggAHklXQkguAygEVFo5DgIBCwAJPC8CAi8HRxUAABkBAyQ0jwEHcAQCAAUDBrQBOjYAAQiFAVMBD3wVAwASB0gQXQABSE0cI1UrJgYqKgJYIAkdBFx1HkILAQIUBgkrBi1IgQEoFmIOHg"
        ),
        // Bulk writes (`EngineSide.apply`): hundreds of creates and a run of deletes in one
        // step, enough rows to split and merge B+tree nodes, and a crash.
        Golden(
            file: "CleanRunWithBulkWrites.swift",
            token:
                "sc2.crash.sim.2.60.0.-.-.AAICAgACAAECAQAAAAABAwABAAIDAgADAgACAQMAAQICAQACAAMBAQIAAgAAAABoRUVGACs0IwFyP1sAdVeXAWPIAVKxARvJAVEZAGQJAgSEAR9zXp8BNx42Qj8CAAQCBH4HBQAEBw8uRgAAAQECA5oBXDYBNzQOXAJPAEgpAjVTehBzRRAADlw3TwMCBgd5TX4llAFCIxKqAUKjAUnAAWNAAJEBTFlLAgIBAwgiWsoBD1sBYgcABXIzHwCwAS4MSV0rAgAAB8gBCIoBNTgAAgeRARcWAAIAkQFAEgADA48BXmEAAwVKHgMABgAJ0AFRAAKRBpMdAwMEAQMDBgUECAMEBwADBgIEAgEFBQEBBQQABAUEAAUIBwAFBwAEBQgFAQMJAgIABgEGAAkDBgQJBggAAQEEBwQBBAgGAgIBBAECBQEGAwkEBgAHBgkHAQUHBwYDBQEDAQQFAQEDAwAIBAcEBgUFAwcEBQAHBAkCBgQJAgcCCQMEBgIHBwMCAQAGBgcCBAEBAAYDAwACBQYBBQIJAgECAQQFBgcCCQAGBgkHBwcBBgYJAggBAQMABwIGAAYGAAMCAgIECQIBBAYFAgAABwUFAgICBQQDBQYBCQMDBQgABgIGAAkABwEABwIEAgkFAwICAAgDAgEGAAEGAQYJAQgCAgEGBQIBAgYHAQcAAgIBAQgGBAYGAgYEBAYBAAYHBgABAQYJAwgEBwUGAAMGAgQIBgYDBQYDBwEJBAgBBgEIAQAFBwECBgQDCAQFAQEGAgUCBAYBAAQJBwcDBgcFBQcGCQYFAAgDCAIIBAcFAAcCCQYCBQMHBwADAQEFAwQGAQMBBAUGAwkDCAAHBwUHBwQCBAEGBgUFBQQAAQIIBQkDBAQJAgIBCAQHBgQEBgYCAgYCAQYEBgADCAIBBwQFAgAHAAYDAQUGBggDAgUBAwACAwcFAAEFAQcBAwMIBggDAAQGAgcFAAAAAgkCBgADBgEGAwMDAggGBQYIBQkGBQIDBgICBwYCBwUHBwYJAQUDAQUIAwUFBQIFAAEBAQEHAgkGAQEBAgkHAAQDBQQABQgEAwIEBwcBA8gBERIizgEtAlsBHBYAuQEB"
        ),
    ]

    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Generated")
    }

    /// Renders `golden`'s run as the artifact would.
    static func render(_ golden: Golden) throws -> String {
        let decoded = try #require(ReplayToken.decode(golden.token))
        let result = try replayRun(decoded)
        return ScriptRenderer.render(result, settings: decoded.settings, token: golden.token)
    }

    @Test(arguments: goldens) func theRenderingEqualsItsGolden(_ golden: Golden) throws {
        try Self.check(try Self.render(golden), against: Self.directory.appendingPathComponent(golden.file))
    }

    /// Every corpus artifact's ReplayTest.swift is the rendering of its token as it replays now
    /// (the corpus ones are compiled through the links under `Generated/`).
    @Test func everyCorpusReplayTestIsItsRendering() throws {
        let corpus = URL(fileURLWithPath: CorpusReplayTests.corpus)
        let entries = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
        for entry in entries {
            let directory = corpus.appendingPathComponent(entry)
            let tokenURL = directory.appendingPathComponent(Artifact.tokenFile)
            guard let token = try? String(contentsOf: tokenURL, encoding: .utf8) else { continue }
            let golden = Golden(file: entry, token: token.trimmingCharacters(in: .whitespacesAndNewlines))
            try Self.check(try Self.render(golden), against: directory.appendingPathComponent("ReplayTest.swift"))
        }
    }

    /// Compares `rendered` with the committed file, or rewrites it under `STRATA_WRITE_GOLDEN=1`.
    static func check(_ rendered: String, against url: URL) throws {
        if ProcessInfo.processInfo.environment["STRATA_WRITE_GOLDEN"] == "1" {
            try rendered.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(
            rendered == committed,
            "\(url.lastPathComponent) differs from the rendering: rerun with STRATA_WRITE_GOLDEN=1")
    }
}
