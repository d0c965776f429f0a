// Bounded exhaustive exploration of the model's own state space (Docs/architecture.md §4): every
// interleaving of a small alphabet of operations over a few contexts, objects and versions,
// breadth first up to a depth, checking the invariants after every transition.

/// What an exploration covered and what it found.
public struct ExplorationReport: Sendable, CustomStringConvertible {
    /// Distinct states reached (the initial state included).
    public var statesExplored: Int
    /// Transitions taken (steps run from a reached state).
    public var transitionsTaken: Int
    /// The deepest level fully expanded.
    public var depthReached: Int
    /// The highest version any file reached.
    public var newestVersionSeen: Version
    /// Whether the state cap stopped the search before the depth bound.
    public var stoppedAtStateCap: Bool
    /// Invariant violations, each with the steps that lead to it (at most `violationsMax`).
    public var violations: [String]

    public var description: String {
        "\(statesExplored) states, \(transitionsTaken) transitions, depth \(depthReached), "
            + "newest version \(newestVersionSeen)"
            + (stoppedAtStateCap ? " (stopped at the state cap)" : "")
            + ", \(violations.count) violations"
    }
}

/// The bounds and alphabet of an exploration.
public struct ExplorationSpace: Sendable {
    public var initial: ModelState
    /// The steps to try from a state.
    public var alphabet: @Sendable (ModelState) -> [Step]
    public var depthMax: Int
    public var statesMax: Int

    public init(
        initial: ModelState, alphabet: @escaping @Sendable (ModelState) -> [Step],
        depthMax: Int, statesMax: Int
    ) {
        self.initial = initial
        self.alphabet = alphabet
        self.depthMax = depthMax
        self.statesMax = statesMax
    }
}

public enum Explorer {
    static let violationsMax = 10

    /// Explores `space` breadth first. Deterministic: the alphabet is tried in order.
    /// - Complexity: O(states × alphabet size × step cost).
    public static func explore(_ space: ExplorationSpace) -> ExplorationReport {
        var seen: Set<ModelState> = [space.initial]
        var frontier: [(state: ModelState, path: [Step])] = [(space.initial, [])]
        var report = ExplorationReport(
            statesExplored: 1, transitionsTaken: 0, depthReached: 0,
            newestVersionSeen: Version(1), stoppedAtStateCap: false, violations: [])
        for depth in 1...max(1, space.depthMax) {
            var next: [(state: ModelState, path: [Step])] = []
            for (state, path) in frontier {
                for step in space.alphabet(state) {
                    let (after, outcome) = state.step(step)
                    report.transitionsTaken += 1
                    let problems = check(before: state, after: after, step: step, outcome: outcome)
                    if !problems.isEmpty, report.violations.count < violationsMax {
                        report.violations.append("\(problems) after \(path + [step])")
                    }
                    guard seen.insert(after).inserted else { continue }
                    report.statesExplored += 1
                    for file in after.files.values where file.newest > report.newestVersionSeen {
                        report.newestVersionSeen = file.newest
                    }
                    if seen.count >= space.statesMax {
                        report.stoppedAtStateCap = true
                        return report
                    }
                    next.append((after, path + [step]))
                }
            }
            report.depthReached = depth
            frontier = next
            if frontier.isEmpty { break }
        }
        return report
    }

    /// The invariants of Docs/architecture.md §4 after one transition: a read sees exactly its pinned version;
    /// a pinned version is never reclaimed; one writer at a time; versions only grow; a resolved
    /// reference is never resolved again; the durable version never goes back.
    static func check(before: ModelState, after: ModelState, step: Step, outcome: Outcome)
        -> [String]
    {
        var problems = after.invariantViolations()
        problems += after.transitionViolations(from: before, crashed: isCrash(step.operation))
        if case .read(let handleID) = step.operation,
            case .success(.elements(let readings)) = outcome.result,
            let handle = after.handles[handleID], let realmID = handle.realm,
            case .results(let query) = handle.target, let view = after.view(of: realmID)
        {
            // Spec V1: what the read returned is exactly the realm's view.
            let expected = query.evaluate(in: view).compactMap { view.reading(of: $0, frozen: false) }
            if readings.map(\.id) != expected.map(\.id) || readings.map(\.value) != expected.map(\.value) {
                problems.append("read \(handleID) saw \(readings) not its version's \(expected)")
            }
        }
        if case .resolve(let reference, _, _) = step.operation,
            before.references[reference]?.isResolved == true, case .success = outcome.result
        {
            problems.append("reference \(reference) resolved twice")  // Spec T2
        }
        return problems
    }

    static func isCrash(_ operation: Operation) -> Bool {
        switch operation {
        case .crashMachine, .commitWrite(_, _, .machineCrash),
            .writeBlock(_, _, _, _, .machineCrash):
            return true
        default:
            return false
        }
    }
}

extension Explorer {
    /// The standard space of the `swift test` exploration: `contextCount` threads with event
    /// loops in one process, each with a realm on one file; `objectCount` objects; versions up
    /// to `versionMax`. Per context: open, begin / commit / cancel, create / set / delete each
    /// object, commit in two crash windows, refresh, invalidate, a loop turn, a Results accessor
    /// read, freeze and release of the realm, a Results reference made, resolved by the next
    /// context and released; and a machine crash.
    public static func standardSpace(
        contextCount: Int, objectCount: Int, versionMax: Int,
        depthMax: Int, statesMax: Int
    ) -> ExplorationSpace {
        let configuration = Configuration(location: .path("explore.realm"))
        var initial = ModelState(readerSlotCount: 8)
        for index in 1...contextCount {
            let context = ContextID(index)
            _ = initial.perform(
                Step(
                    context,
                    .addContext(
                        context, process: ProcessID(1),
                        kind: .thread(hasEventLoop: true))))
            _ = initial.perform(
                Step(
                    context,
                    .open(
                        configuration, confinement: .callingContext,
                        as: RealmID(index))))
        }
        let alphabet: @Sendable (ModelState) -> [Step] = { state in
            let newest = state.files[configuration.location]?.newest ?? Version(1)
            let canCommit = newest.rawValue < versionMax
            var steps: [Step] = []
            for index in 1...contextCount {
                let context = ContextID(index)
                let realm = RealmID(index)
                guard state.realms[realm]?.isClosed == false else {
                    steps.append(
                        Step(
                            context,
                            .open(
                                configuration, confinement: .callingContext,
                                as: realm)))
                    continue
                }
                let inWrite = state.realms[realm]?.write != nil
                if inWrite {
                    if canCommit {
                        steps.append(
                            Step(
                                context,
                                .commitWrite(
                                    realm, withoutNotifying: [],
                                    fate: .success)))
                        steps.append(
                            Step(
                                context,
                                .commitWrite(
                                    realm, withoutNotifying: [],
                                    fate: .machineCrash(.duringSlotWriteSlotWritten))))
                        steps.append(
                            Step(
                                context,
                                .commitWrite(
                                    realm, withoutNotifying: [], fate: .machineCrash(.afterPhaseOneSync))))
                    }
                    steps.append(Step(context, .cancelWrite(realm)))
                    for key in 1...objectCount {
                        steps.append(
                            Step(
                                context,
                                .apply(
                                    realm,
                                    [
                                        .create(type: "Item", primaryKey: key, value: index)
                                    ])))
                        steps.append(
                            Step(
                                context,
                                .apply(
                                    realm,
                                    [
                                        .setValue(type: "Item", primaryKey: key, value: index)
                                    ])))
                        steps.append(
                            Step(
                                context,
                                .apply(
                                    realm,
                                    [
                                        .delete(type: "Item", primaryKey: key)
                                    ])))
                    }
                } else {
                    steps.append(Step(context, .beginWrite(realm)))
                    steps.append(Step(context, .refresh(realm)))
                    steps.append(Step(context, .invalidate(realm)))
                    steps.append(Step(context, .turnLoop))
                }
                let results = HandleID(20 + index)
                if state.handles[results] == nil {
                    steps.append(Step(context, .objects(realm, .all("Item"), as: results)))
                } else {
                    steps.append(Step(context, .read(results)))
                    steps.append(Step(context, .releaseHandle(results)))
                    let reference = ReferenceID(30 + index)
                    if state.references[reference] == nil {
                        steps.append(Step(context, .makeReference(results, as: reference)))
                    }
                }
                let frozen = RealmID(10 + index)
                if state.realms[frozen] == nil {
                    steps.append(Step(context, .freezeRealm(realm, as: frozen)))
                } else {
                    steps.append(Step(context, .release(frozen)))
                }
                // The next context resolves this context's reference, then drops the result.
                let reference = ReferenceID(30 + index)
                let target = index % contextCount + 1
                let resolved = HandleID(40 + index)
                if let state = state.references[reference], !state.isReleased {
                    if !state.isResolved {
                        steps.append(
                            Step(
                                ContextID(target),
                                .resolve(
                                    reference, in: RealmID(target), as: resolved)))
                    }
                    steps.append(Step(context, .releaseReference(reference)))
                }
            }
            steps.append(Step(ContextID(1), .crashMachine(keepUnsyncedSlots: false)))
            return steps
        }
        return ExplorationSpace(
            initial: initial, alphabet: alphabet, depthMax: depthMax,
            statesMax: statesMax)
    }
}
