import Foundation
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 5 in generated runs: references released unresolved and resolved by realms that
/// never read (Spec T4, T8, L5), `@ThreadSafe` cells (T9, T10), `writeCopy` with its copy read
/// back (X3), async blocks left open (A19) or tried on a thread (A12), realms let go of inside
/// their writes (C1, W7) or with async work (A21), completions inside `invalidate()` (A13); and
/// the seeded bugs only they show.
@Suite(.serialized) struct Generation5HarnessTests {
    /// Generation 5 runs in every lockstep mode are clean and replay bit for bit, and make each
    /// of generation 5's operations.
    @Test func generation5RunsAreCleanReplayAndMakeEveryNewOperation() throws {
        var counts: [String: Int] = [:]
        var checked = 0
        for mode in [CheckMode.controlled, .crash] {
            for store in [CheckStore.sim, .file] where !(mode == .crash && store == .file) {
                // Measured on generation 5's streams, which keep their meaning (generation 6
                // draws after them: `Generation6HarnessTests`).
                var settings = CheckSettings(mode: mode, store: store, threads: 3, operations: 200)
                settings.generation = 5
                for seed in 1...30 {
                    let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
                    #expect(
                        result.failure == nil,
                        "\(mode) \(store) seed \(seed): \(result.failure?.description ?? "") token \(ReplayToken.encode(settings: settings, choices: result.choices))"
                    )
                    for (name, count) in Self.generation5Counts(result) { counts[name, default: 0] += count }
                    if seed % 10 == 0 {
                        let replayed = try Runner(settings: settings, stream: ChoiceStream(replaying: result.choices))
                            .run()
                        #expect(replayed.digest == result.digest, "\(mode) \(store) seed \(seed) replays another trace")
                        checked += 1
                    }
                }
            }
        }
        print(
            "generation 5 in 90 runs: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        for name in [
            "release reference", "resolve in an unread realm", "@ThreadSafe assigned", "@ThreadSafe read",
            "writeCopy", "writeCopy inside a write", "block left open", "async write refused on a thread",
            "reopened inside its write", "released with async work",
        ] {
            #expect(counts[name, default: 0] > 0, "no run made \(name)")
        }
        #expect(checked == 9)
    }

    /// Counts of generation 5's operations in a run's trace, by what they exercise.
    static func generation5Counts(_ result: RunResult) -> [String: Int] {
        var counts: [String: Int] = [:]
        var lastRelease: [ContextID: Int] = [:]
        var inWrite: [RealmID: Bool] = [:]
        var asyncWork: Set<RealmID> = []
        for entry in result.trace {
            let operation = entry.step.operation
            switch operation {
            case .releaseReference: counts["release reference", default: 0] += 1
            case .assignThreadSafe(_, _?) where entry.observed == .done: counts["@ThreadSafe assigned", default: 0] += 1
            case .readThreadSafe(_, _, _) where entry.observed != .handle(nil):
                if case .handle = entry.observed { counts["@ThreadSafe read", default: 0] += 1 }
            case .writeCopy(let realm, _) where entry.observed == .done:
                counts["writeCopy", default: 0] += 1
                if inWrite[realm] == true { counts["writeCopy inside a write", default: 0] += 1 }
            case .beginAsyncWrite(let realm, _, .leaveOpen, _) where entry.observed == .done:
                counts["block left open", default: 0] += 1
                asyncWork.insert(realm)
            case .writeAsync(let realm, _, _), .beginAsyncWrite(let realm, _, _, _):
                if case .failure(_, let message) = entry.observed,
                    message.hasPrefix("Cannot schedule async transaction")
                {
                    counts["async write refused on a thread", default: 0] += 1
                } else if entry.observed == .done {
                    asyncWork.insert(realm)
                }
            default: break
            }
            switch operation {
            case .beginWrite(let realm) where entry.observed == .done: inWrite[realm] = true
            case .commitWrite(let realm, _, _), .cancelWrite(let realm): inWrite[realm] = false
            case .release(let realm):
                if inWrite[realm] == true { lastRelease[entry.step.context] = realm.rawValue }
                if asyncWork.contains(realm) { counts["released with async work", default: 0] += 1 }
            case .open(_, _, _):
                if case .realm(let opened?) = entry.observed,
                    lastRelease.removeValue(forKey: entry.step.context) == opened.rawValue
                {
                    counts["reopened inside its write", default: 0] += 1
                }
            default: break
            }
        }
        for probe in [ProbeCoverage.resolveIntoUnreadRealm] {
            counts["resolve in an unread realm", default: 0] += result.statistics.probes[probe] ?? 0
        }
        return counts
    }
}

/// The seeded bugs generation 5 is there for: each is caught from a fixed seed within a bounded
/// campaign, shrunk to at most 30 steps, and its token replays the shrunk failure.
@Suite(.serialized) struct Generation5SeededBugTests {
    @Test(arguments: [
        // Unresolved references pin (T8): over the active-version limit a write must fail (L2).
        ("objectReferenceDoesNotPin", Campaign.Mix.controlled, "divergence: c# beginWrite(r#): model"),
        // A block left open commits (A19): the next block's turn finds the realm moved on.
        ("unfinishedAsyncBlockCommits", .controlled, "divergence: async writes during"),
        // A realm let go of in its write ends (C1, W7): the context's next open gets a new one.
        ("releasedWriterNotHeld", .controlled, "divergence: c# open(queue: c#) ->"),
        // Completions after invalidate() returned (A13).
        ("invalidateDefersCompletions", .controlled, "divergence: completions run inside"),
        // A copy made inside a write without the write's data (X3).
        ("writeCopyIgnoresOpenWrite", .controlled, "divergence: c# writeCopy(r#, toPath:"),
    ])
    func aGeneration5BugIsCaughtAndShrunk(_ name: String, mix: Campaign.Mix, signature: String) throws {
        let bug = try #require(SeededBugCatalog.named(name))
        var campaign = Campaign(
            mix: mix, operationsPerRun: 200, seconds: nil, runs: 400, seed: 1, engineBugs: bug.bug,
            shrinkSeconds: nil, shrinkAttempts: 1000)
        campaign.generation = 5  // measured on generation 5's streams
        let report = campaign.run()
        let found = try #require(report.failures.first, "\(name) was not caught in \(report.runs) runs")
        let shrunk = try #require(found.shrunk.failure)
        print(
            "\(name): caught after \(report.runs) runs, \(String(format: "%.1f", found.foundAfterSeconds)) s; shrunk \(found.original.trace.count) -> \(found.shrunk.trace.count) steps in \(found.shrinkRuns) runs: \(shrunk.description); replay token: \(found.token)"
        )
        #expect(shrunk.signature.hasPrefix(signature), "\(shrunk.description)")
        #expect(found.shrunk.trace.count <= 30, "shrunk to \(found.shrunk.trace.count) steps")
        #expect(try StrataCheck.replay(token: found.token)?.signature == shrunk.signature)
    }
}
