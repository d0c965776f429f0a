import Foundation
import StrataStorage
import StrataTestSupport
import Testing

@testable import StrataCheck

/// How `strata-fuzz bugs --check` judges a check child that died by a signal
/// (`SeededBugCatalog.checkInChild`): a catch only when the run in flight, read back from the
/// child's flight recorder, fails again from its token and passes without the bug.
@Suite(.serialized) struct SeededBugCheckTests {
    /// Each test's own directory, removed when the test ends.
    private let directory = TemporaryDirectory()

    /// The recorder keeps the run in flight: its settings and draws make its token; a run that
    /// ended leaves nothing in flight.
    @Test func theFlightRecorderKeepsTheTokenOfTheRunInFlight() throws {
        let path = directory.file("flight")
        let recorder = try FlightRecorder(path: path)
        #expect(FlightRecorder.inFlight(path: path) == nil, "a new recorder has a run in flight")
        let settings = CheckSettings(
            mode: .crash, store: .sim, threads: 2, operations: 40, engineBugs: .engine(.reuseOwnFrees))
        var stream = ChoiceStream(seed: 7)
        stream.flightRecorder = recorder
        recorder.begin(settings: settings)
        for bound in [3, 100, 1 << 20, 1, 7] { _ = stream.draw(bound) }
        let inFlight = try #require(FlightRecorder.inFlight(path: path))
        #expect(inFlight.token == ReplayToken.encode(settings: settings, choices: stream.recorded))
        #expect(inFlight.draws == 5)
        #expect(inFlight.mode == .crash)
        recorder.end()
        #expect(FlightRecorder.inFlight(path: path) == nil, "an ended run is still in flight")
    }

    // A debug build's engine checks its invariants (STRATA_CHECKS): with
    // `publishBeforeSlotSync` a controlled run of seed 1's campaign makes a commit trap on
    // one ("a pin taken under the write lock reads the commit"). The check child dies; the
    // catch is the run its flight recorder kept, whose token traps again. A release build
    // has no such check: the harness's oracle catches the bug instead.
    @Test func aTrappingBugIsCaughtWithTheTokenOfTheRunThatTrapped() throws {
        let executable = try BuiltProducts.path(of: "strata-fuzz")
        let bug = try #require(SeededBugCatalog.named("publishBeforeSlotSync"))
        let result = SeededBugCatalog.checkInChild(
            bug,
            command: [
                executable, "bugs", "--check", "--in-process", "--json", "--only", bug.name,
                "--runs-per-bug", "200", "--shrink-seconds", "1", "--seed", "1",
            ], scratchDirectory: directory.path)
        #expect(result.caught, "\(String(describing: result.failure))")
        let token = try #require(result.token, "\(String(describing: result.failure))")
        #expect(token.hasPrefix(ReplayToken.currentPrefix))
        #if STRATA_CHECKS
            #expect(
                result.failure?.hasPrefix("the engine trapped (signal 4)") == true,
                "\(String(describing: result.failure))")
            #expect(
                result.failure?.contains("invariant violated: a pin taken under the write lock reads the commit")
                    == true,
                "\(String(describing: result.failure))")
            #expect(result.shrunkOperations == nil)
            let again = try SeededBugCatalog.replayFails(
                token, executable: executable, scratchDirectory: directory.path)
            #expect(again == "traps again (signal 4)")
        #else
            #expect(result.shrunkOperations != nil, "\(String(describing: result.failure))")
        #endif
    }

    /// A child dead by a signal with no run in flight (before its first run, between runs, in
    /// the harness's own code): nothing explains it, so it is not a catch.
    @Test func aDeathOutsideAnyRunIsNotACatch() throws {
        let bug = try #require(SeededBugCatalog.named("treeSplitOffByOne"))
        let result = SeededBugCatalog.explainDeath(
            bug, status: SIGSEGV, stderr: "something else went wrong\n", inFlight: nil,
            executable: try BuiltProducts.path(of: "strata-fuzz"), scratchDirectory: directory.path, seconds: 1)
        #expect(!result.caught)
        #expect(
            result.failure
                == "the check died (signal 11) outside any run, so nothing explains it: something else went wrong")
        #expect(result.token == nil)
    }

    /// A child dead inside a run that replays clean from its token: the death is not the
    /// run's failure, so it is not a catch (the token is kept for whoever looks into it).
    @Test func aDeathItsRunDoesNotReproduceIsNotACatch() throws {
        let bug = try #require(SeededBugCatalog.named("treeSplitOffByOne"))
        let token = ReplayToken.encode(settings: CheckSettings(operations: 20), choices: [])
        #expect(
            try SeededBugCatalog.replayFails(
                token, executable: try BuiltProducts.path(of: "strata-fuzz"),
                scratchDirectory: directory.path) == nil, "the clean run fails")
        let result = SeededBugCatalog.explainDeath(
            bug, status: SIGILL, stderr: "Fatal error: somewhere\n",
            inFlight: FlightRecorder.InFlight(token: token, draws: 0, mode: .controlled),
            executable: try BuiltProducts.path(of: "strata-fuzz"), scratchDirectory: directory.path, seconds: 1)
        #expect(!result.caught)
        #expect(
            result.failure?.contains("that its token does not make fail again: Fatal error: somewhere") == true,
            "\(String(describing: result.failure))")
        #expect(result.token == token)
    }
}
