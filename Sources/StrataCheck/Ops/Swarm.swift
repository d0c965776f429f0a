import StrataModel

/// Per-run variation of the operation mix (swarm testing: each run leaves some kinds out and
/// weights the rest differently, so rare combinations are not drowned by common ones).
struct Swarm: Sendable, CustomStringConvertible {
    var weights: [Int]
    /// Primary keys are drawn from `0..<keySpace`.
    var keySpace: Int
    /// Percent of operations that take another context's realm or accessor on purpose.
    var crossContextPercent: Int
    /// The run's `maximumNumberOfActiveVersions` (Spec L1-L5), nil for none (one run in two).
    var activeVersionLimit: Int?
    /// Generation 4: one async run in three runs its first context alone (`Runner` never picks
    /// the others). Other contexts' realms, frozen realms and handles pin old versions, and the
    /// durable version's pages are reused only when nothing pins it (the free-space rule of
    /// Spec D10 is what such a run checks).
    var soloContext = false
    /// The generation whose generator reads the run's stream (`CheckSettings.generation`): what
    /// the generator does beyond the weights (generation 5's sequences) depends on it.
    var generation = CheckSettings.currentGeneration

    static func draw(
        _ stream: inout ChoiceStream, crashes: Bool, excluding excluded: Set<String> = [],
        generation: Int = CheckSettings.currentGeneration
    ) -> Swarm {
        var weights: [Int] = []
        for kind in OperationKind.allCases {
            // Generation 1 streams were drawn before bulk writes existed: no draw for them.
            if kind == .bulkWrite && generation < 2 {
                weights.append(0)
                continue
            }
            // Observers are drawn after the rest (`drawNotifications`): older streams never
            // drew for them, and theirs must mean what they meant.
            if OperationKind.notificationKinds.contains(kind) || OperationKind.asyncKinds.contains(kind)
                || OperationKind.generation5Kinds.contains(kind) || OperationKind.generation6Kinds.contains(kind)
                || OperationKind.generation7Kinds.contains(kind) || OperationKind.generation9Kinds.contains(kind)
                || OperationKind.generation11Kinds.contains(kind) || OperationKind.generation12Kinds.contains(kind)
                || OperationKind.generation14Kinds.contains(kind) || OperationKind.generation15Kinds.contains(kind)
            {
                weights.append(0)
                continue
            }
            let base = Self.baseWeight(kind)
            // Each kind is left out of a run with probability 1/4 (never the ones every run
            // needs to get anywhere).
            let essential =
                kind == .open || kind == .beginWrite || kind == .commitWrite || kind == .create
                || kind == .read
            // Bulk writes make every later read of a run cost hundreds of rows: three runs in
            // four leave them out.
            if !essential && (kind == .bulkWrite ? stream.draw(4) != 3 : stream.draw(4) == 3) {
                weights.append(0)
            } else {
                weights.append(base * (1 + stream.draw(3)))
            }
        }
        if !crashes { weights[OperationKind.crashMachine.rawValue] = 0 }
        for kind in OperationKind.allCases where excluded.contains("\(kind)") { weights[kind.rawValue] = 0 }
        let keySpace = [4, 8, 24, 64][stream.draw(4)]
        let crossContextPercent = [5, 0, 15][stream.draw(3)]
        let activeVersionLimit = [nil, nil, nil, 2, 3, 5][stream.draw(6)]
        if generation >= 3 {
            drawNotifications(&stream, into: &weights, activeVersionLimit: activeVersionLimit)
        }
        var soloContext = false
        if generation >= 4 {
            soloContext = drawAsyncWrites(&stream, into: &weights, activeVersionLimit: activeVersionLimit)
        }
        if generation >= 5 {
            drawGeneration5(&stream, into: &weights)
        }
        if generation >= 6 {
            drawGeneration6(&stream, into: &weights)
        }
        if generation >= 7 {
            drawGeneration7(&stream, into: &weights)
        }
        if generation >= 9 {
            drawGeneration9(&stream, into: &weights)
        }
        if generation >= 11 {
            drawGeneration11(&stream, into: &weights)
        }
        if generation >= 12 {
            drawGeneration12(&stream, into: &weights)
        }
        if generation >= 14 {
            drawGeneration14(&stream, into: &weights)
        }
        if generation >= 15 {
            drawGeneration15(&stream, into: &weights)
        }
        for kind in OperationKind.notificationKinds + OperationKind.asyncKinds + OperationKind.generation5Kinds
            + OperationKind.generation6Kinds + OperationKind.generation7Kinds + OperationKind.generation9Kinds
            + OperationKind.generation11Kinds + OperationKind.generation12Kinds + OperationKind.generation14Kinds
            + OperationKind.generation15Kinds
        where excluded.contains("\(kind)") {
            weights[kind.rawValue] = 0
        }
        return Swarm(
            weights: weights, keySpace: keySpace, crossContextPercent: crossContextPercent,
            activeVersionLimit: activeVersionLimit, soloContext: soloContext, generation: generation)
    }

    /// Generation 5, drawn after everything older generations drew (their streams keep their
    /// meaning): releases of unresolved references in three runs in four that make references;
    /// `@ThreadSafe` cells in one run in two; `writeCopy` in one run in two. The lowest draws
    /// leave them out, so a shrinker lowering values turns them off.
    private static func drawGeneration5(_ stream: inout ChoiceStream, into weights: inout [Int]) {
        if weights[OperationKind.makeReference.rawValue] > 0, stream.draw(4) != 0 {
            weights[OperationKind.releaseReference.rawValue] = 2 * (1 + stream.draw(2))
        }
        if stream.draw(2) == 1 {
            weights[OperationKind.assignThreadSafe.rawValue] = 3 * (1 + stream.draw(2))
            weights[OperationKind.readThreadSafe.rawValue] = 3 * (1 + stream.draw(2))
        }
        if stream.draw(2) == 1 {
            weights[OperationKind.writeCopy.rawValue] = 1 + stream.draw(2)
        }
    }

    /// Generation 6, drawn after generation 5: three runs in four without observers link (their
    /// schema has Linkers, `CheckTypes.linkingClasses`). Not with observers: a change of an
    /// Item reaches the observers of the Linkers and Results that link it (Spec N11, N21),
    /// which the delivery oracle does not follow yet. The lowest draw leaves links out, so a
    /// shrinker lowering values turns them off.
    private static func drawGeneration6(_ stream: inout ChoiceStream, into weights: inout [Int]) {
        guard weights[OperationKind.observeCollection.rawValue] == 0,
            weights[OperationKind.observeObject.rawValue] == 0, stream.draw(4) != 0
        else { return }
        weights[OperationKind.setLink.rawValue] = 8 * (1 + stream.draw(3))
    }

    /// Generation 7, drawn after generation 6: three runs in four iterate over Results, with
    /// weights about those of the other reads of an accessor. The lowest draw leaves iteration
    /// out, so a shrinker lowering values turns it off.
    private static func drawGeneration7(_ stream: inout ChoiceStream, into weights: inout [Int]) {
        guard stream.draw(4) != 0 else { return }
        weights[OperationKind.iterate.rawValue] = 4 * (1 + stream.draw(2))
        weights[OperationKind.iteratorNext.rawValue] = 4 * (1 + stream.draw(3))
    }

    /// Generation 9, drawn after generation 7: three runs in four aggregate over collections,
    /// weighted about as the other reads of an accessor. The lowest draw leaves them out, so a
    /// shrinker lowering values turns them off.
    private static func drawGeneration9(_ stream: inout ChoiceStream, into weights: inout [Int]) {
        guard stream.draw(4) != 0 else { return }
        weights[OperationKind.aggregate.rawValue] = 3 * (1 + stream.draw(3))
    }

    /// Generation 11, drawn after generation 9: three linking runs in four write their Linkers'
    /// sets of Items (Spec V24), inserting about twice as often as removing, as often as they
    /// set links. The lowest draw leaves them out, so a shrinker lowering values turns them off.
    private static func drawGeneration11(_ stream: inout ChoiceStream, into weights: inout [Int]) {
        guard weights[OperationKind.setLink.rawValue] > 0, stream.draw(4) != 0 else { return }
        weights[OperationKind.insertIntoSet.rawValue] = 6 * (1 + stream.draw(3))
        weights[OperationKind.removeFromSet.rawValue] = 3 * (1 + stream.draw(3))
    }

    /// Generation 12, drawn after generation 11: three linking runs in four write their Linkers'
    /// Maps of Items (Spec V25), setting keys about four times as often as removing them. The lowest
    /// draw leaves them out, so a shrinker lowering values turns them off.
    private static func drawGeneration12(_ stream: inout ChoiceStream, into weights: inout [Int]) {
        guard weights[OperationKind.setLink.rawValue] > 0, stream.draw(4) != 0 else { return }
        weights[OperationKind.setMapValue.rawValue] = 8 * (1 + stream.draw(3))
        weights[OperationKind.removeMapKey.rawValue] = 2 * (1 + stream.draw(3))
    }

    /// Generation 14, drawn after generation 12: three runs in four with Lists read Items'
    /// LinkingObjects (Spec V26) about as often as they write. The lowest draw leaves them out, so a
    /// shrinker lowering values turns them off.
    private static func drawGeneration14(_ stream: inout ChoiceStream, into weights: inout [Int]) {
        guard weights[OperationKind.append.rawValue] > 0, stream.draw(4) != 0 else { return }
        weights[OperationKind.linkingObjectsOf.rawValue] = 8 * (1 + stream.draw(3))
    }

    /// Generation 15, drawn after generation 14: three runs in four read collections sectioned
    /// (Spec V27), about as often as they aggregate. The lowest draw leaves them out, so a
    /// shrinker lowering values turns them off.
    private static func drawGeneration15(_ stream: inout ChoiceStream, into weights: inout [Int]) {
        guard stream.draw(4) != 0 else { return }
        weights[OperationKind.sectioned.rawValue] = 3 * (1 + stream.draw(3))
    }

    /// Whether the run iterates over Results (generation 7).
    var iterates: Bool { weights[OperationKind.iterate.rawValue] > 0 }

    /// Whether the run's schema has Linkers, which it creates, links and sorts through
    /// (generation 6).
    var links: Bool { weights[OperationKind.setLink.rawValue] > 0 }

    /// Generation 3: one run in two observes collections. Never with an active-version limit:
    /// each observer pins the version it last delivered until its next delivery (`Docs/limits.md`,
    /// "Current limits"), a pin the model does not count (Spec L1), so a limited write would
    /// see one more active version in the engine than in the model. The highest draw turns
    /// them on, so a shrinker lowering values turns them off.
    private static func drawNotifications(
        _ stream: inout ChoiceStream, into weights: inout [Int],
        activeVersionLimit: Int?
    ) {
        guard stream.draw(2) == 1, activeVersionLimit == nil else { return }
        weights[OperationKind.observeCollection.rawValue] = 4 * (1 + stream.draw(3))
        weights[OperationKind.invalidateToken.rawValue] = 1 + stream.draw(2)
        weights[OperationKind.turnLoop.rawValue] = 2 * (1 + stream.draw(3))
        weights[OperationKind.observeObject.rawValue] = 4 * (1 + stream.draw(3))
    }

    /// Whether the run generates observers (generation 3, one run in two).
    var observes: Bool { weights[OperationKind.observeCollection.rawValue] > 0 }

    /// Generation 4: three runs in four without observers or an active-version limit make async
    /// writes (about one run in five). Not with observers: an async commit's delivery turn and the blocks' turns share
    /// the queue in an order the delivery oracle's caught-up points do not model yet. Not with
    /// a limit: a block that cannot begin fails its completion (Spec L3), which the engine side
    /// has no block to report. Any draw but the lowest turns them on.
    /// Returns whether the run's first context runs alone (one async run in three; the highest
    /// draw, so a shrinker lowering it brings the other contexts back).
    private static func drawAsyncWrites(
        _ stream: inout ChoiceStream, into weights: inout [Int],
        activeVersionLimit: Int?
    ) -> Bool {
        let observes = weights[OperationKind.observeCollection.rawValue] > 0
        guard stream.draw(4) != 0, activeVersionLimit == nil, !observes else { return false }
        weights[OperationKind.writeAsync.rawValue] = 12 * (1 + stream.draw(3))
        weights[OperationKind.beginAsyncWrite.rawValue] = 12 * (1 + stream.draw(3))
        weights[OperationKind.commitAsyncWrite.rawValue] = 4 * (1 + stream.draw(3))
        weights[OperationKind.cancelAsyncWrite.rawValue] = 3 * (1 + stream.draw(3))
        weights[OperationKind.asyncStatus.rawValue] = 2 * (1 + stream.draw(2))
        weights[OperationKind.syncAsyncGroup.rawValue] = 10 * (1 + stream.draw(3))
        return stream.draw(3) == 2
    }

    /// Whether the run makes async writes (generation 4).
    var writesAsync: Bool { weights[OperationKind.writeAsync.rawValue] > 0 }

    private static func baseWeight(_ kind: OperationKind) -> Int {
        switch kind {
        case .open, .refresh, .beginWrite, .commitWrite, .read, .create, .objects, .setValue: return 6
        case .objectForPrimaryKey, .delete, .listOf, .append, .freezeHandle: return 3
        case .crashMachine, .release, .bulkWrite: return 1
        default: return 2
        }
    }

    var description: String {
        let enabled = OperationKind.allCases.filter { weights[$0.rawValue] > 0 }.map { "\($0)" }
        let limit = activeVersionLimit.map { ", at most \($0) active versions" } ?? ""
        let solo = soloContext ? ", the first context alone" : ""
        let linking = links ? ", Linkers" : ""
        return
            "keys 0..<\(keySpace), cross-context \(crossContextPercent)%\(limit)\(solo)\(linking), kinds: \(enabled.joined(separator: " "))"
    }
}
