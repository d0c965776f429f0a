import Testing

@testable import StrataModel

/// The bounded exhaustive exploration Docs/architecture.md §4 asks for: every interleaving of two threads'
/// operations on three objects, up to version 4, breadth first to a fixed depth, with the
/// invariants checked after every transition (Spec V1, D5, W1, W16, T2, D3).
@Suite struct ExplorationTests {
    /// Depth of the search: every sequence of this many steps from the start state.
    static let depthMax = 7
    /// What the search reaches. The exploration is deterministic (breadth first over a fixed
    /// alphabet, states compared whole, no cap reached), so these are exact: a search that
    /// silently lost part of the space (an alphabet step that stopped applying, states merged
    /// that differ) changes them. A deliberate change to the model's state space (its state,
    /// its steps' effects, `Explorer.standardSpace`) must update them, with the new figures
    /// read from the printed line.
    static let statesExpected = 75_726
    static let transitionsExpected = 387_086

    @Test("Spec V1, D5, W1, W16, T2, D3: exhaustive interleavings keep every invariant")
    func twoThreadsThreeObjectsFourVersions() {
        let space = Explorer.standardSpace(
            contextCount: 2, objectCount: 3, versionMax: 4,
            depthMax: Self.depthMax, statesMax: 400_000)
        let report = Explorer.explore(space)
        print("model exploration (2 threads, 3 objects, versions ≤ 4, depth \(Self.depthMax)): \(report)")
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(!report.stoppedAtStateCap)
        #expect(report.statesExplored == Self.statesExpected, "\(report)")
        #expect(report.transitionsTaken == Self.transitionsExpected, "\(report)")
        #expect(report.depthReached == Self.depthMax)
        // The bound is reached: some interleaving commits up to version 4.
        #expect(report.newestVersionSeen == Version(4))
    }

    /// The exploration must be able to fail: a state that breaks an invariant is reported.
    @Test("Spec D5: the exploration reports a reclaimed pinned version")
    func explorationDetectsABrokenState() {
        var world = World()
        world.open(World.main, 1)
        world.write(World.main, 1, [item(1)])
        world.ok(World.main, .freezeRealm(1, as: 10))
        world.write(World.main, 1, [item(2)])
        var broken = world.state
        let location = World.file.location
        broken.files[location]?.versions[Version(2)] = nil  // drop the frozen realm's version
        #expect(!broken.invariantViolations().isEmpty)
        let problems = Explorer.check(
            before: world.state, after: broken,
            step: Step(World.main, .turnLoop),
            outcome: Outcome(result: .success(.done), events: []))
        #expect(problems.contains { $0.contains("reclaimed") })
    }
}
