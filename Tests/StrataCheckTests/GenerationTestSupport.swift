import Foundation
import StrataModel
import Testing

@testable import StrataCheck

// What every generation's harness tests check alike: older generations never draw the new
// operations (a token keeps its meaning), and each seeded bug of the generation is caught,
// shrunk and replayed.

/// Runs of `generations` on `seeds` are clean and never perform an operation `isNew` names: a
/// token printed before the generation that added them keeps its meaning.
func expectOlderGenerations(
    _ generations: ClosedRange<Int>, seeds: ClosedRange<Int> = 1...3,
    sourceLocation: SourceLocation = #_sourceLocation,
    neverPerform isNew: (StrataModel.Operation) -> Bool
) throws {
    for generation in generations {
        var settings = CheckSettings(mode: .controlled, store: .sim, threads: 3, operations: 120)
        settings.generation = generation
        for seed in seeds {
            let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
            #expect(
                result.failure == nil, "generation \(generation) seed \(seed): \(result.failure?.description ?? "")",
                sourceLocation: sourceLocation)
            #expect(
                !result.trace.contains { isNew($0.step.operation) }, "generation \(generation) seed \(seed)",
                sourceLocation: sourceLocation)
        }
    }
}

/// The seeded bug `name` is caught by a bounded controlled campaign from seed 1 (of
/// `generation`'s streams, the current one by default), shrunk to at most 30 steps with a
/// signature starting with `signature`, and its token replays the shrunk failure. Returns what
/// was found, for the test's own checks of the shrunk run.
@discardableResult
func expectCaughtAndShrunk(
    _ name: String, generation: Int? = nil, signature: String = "divergence",
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Campaign.Found {
    let bug = try #require(SeededBugCatalog.named(name), sourceLocation: sourceLocation)
    var campaign = Campaign(
        mix: .controlled, operationsPerRun: 200, seconds: nil, runs: 400, seed: 1,
        engineBugs: bug.bug, shrinkSeconds: nil, shrinkAttempts: 1000)
    if let generation { campaign.generation = generation }
    let report = campaign.run()
    let found = try #require(
        report.failures.first, "\(name) was not caught in \(report.runs) runs", sourceLocation: sourceLocation)
    let shrunk = try #require(found.shrunk.failure, sourceLocation: sourceLocation)
    print(
        "\(name): caught after \(report.runs) runs; shrunk \(found.original.trace.count) -> \(found.shrunk.trace.count) steps in \(found.shrinkRuns) runs: \(shrunk.description); replay token: \(found.token)"
    )
    #expect(shrunk.signature.hasPrefix(signature), "\(shrunk.description)", sourceLocation: sourceLocation)
    #expect(
        found.shrunk.trace.count <= 30, "shrunk to \(found.shrunk.trace.count) steps", sourceLocation: sourceLocation)
    #expect(
        try StrataCheck.replay(token: found.token)?.signature == shrunk.signature, sourceLocation: sourceLocation)
    return found
}

/// Runs `seeds` in controlled and in crash mode (of `generation`'s streams, the current one by
/// default), expects each clean, hands each result to `body`, and checks that every tenth seed's
/// choices replay the same trace. Returns how many replays were checked.
@discardableResult
func forEachGeneratedRun(
    generation: Int? = nil, seeds: ClosedRange<Int> = 1...20, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (RunResult) throws -> Void
) throws -> Int {
    var replays = 0
    for mode in [CheckMode.controlled, .crash] {
        var settings = CheckSettings(mode: mode, store: .sim, threads: 3, operations: 200)
        if let generation { settings.generation = generation }
        for seed in seeds {
            let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
            #expect(
                result.failure == nil,
                "\(mode) seed \(seed): \(result.failure?.description ?? "") token \(ReplayToken.encode(settings: settings, choices: result.choices))",
                sourceLocation: sourceLocation)
            try body(result)
            if seed % 10 == 0 {
                let replayed = try Runner(settings: settings, stream: ChoiceStream(replaying: result.choices)).run()
                #expect(
                    replayed.digest == result.digest, "\(mode) seed \(seed) replays another trace",
                    sourceLocation: sourceLocation)
                replays += 1
            }
        }
    }
    return replays
}
