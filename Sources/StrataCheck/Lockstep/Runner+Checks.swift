import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// A completed operation checked: the model steps, the observations are compared, and the
/// deliveries, copies, probes and version stamps it touched are checked.
extension Runner {
    /// The model takes the step now (the operation's effects are visible from its completion
    /// on) and the engine's observation is compared with the model's.
    func complete(
        _ thread: Int, step: Step, observed: Observation, note: String? = nil,
        facts: ScriptFacts = ScriptFacts()
    ) {
        running[thread] = nil
        progress[thread] = nil
        let expected: Observation
        let previous: ModelState
        var note = note
        var facts = facts
        facts.handedOffAfter = handedOff.removeValue(forKey: thread)
        modelEvents = []
        if let taken = early.removeValue(forKey: thread) {
            (previous, expected) = (taken.previous, taken.expected)
            modelEvents = taken.events
            facts.steppedAfter = taken.after
            note = [note, "stepped at \(taken.point), before it returned"].compactMap { $0 }.joined(separator: "; ")
        } else {
            let (next, outcome) = preview(step)
            previews[step.context] = nil
            modelEvents = outcome.events
            var mutated = Observation(model: outcome)
            mutate(&mutated, step: step)
            expected = mutated
            previous = model
            model = next
        }
        statistics.operations += 1
        if case .failure(_, let message) = expected {
            statistics.modelRejections += 1
            if message == ModelError.poisoned.message { statistics.poisonedRejections += 1 }
        }
        let realm = Self.realm(of: step.operation)
        if case .commitWrite = step.operation, case .done = observed { statistics.commits += 1 }
        let engineVersion = realm.flatMap { engine.readVersion(of: $0) }
        trace.append(
            TraceEntry(
                index: trace.count, thread: thread, step: step, expected: expected,
                observed: observed, engineVersion: engineVersion, note: note,
                draws: generatedDraws.removeValue(forKey: thread), facts: facts))
        guard expected.accepts(observed) else {
            fail(
                .divergence, "\(StepText.describe(step)): \(Observation.difference(model: expected, engine: observed))")
            return
        }
        markProbes(step, observed: observed, previous: previous)
        if case .writeCopy(_, let path) = step.operation, case .done = observed {
            checkCopy(path, step: step)
            guard failure == nil else { return }
        }
        // The async turns the step ran on its queue (`EngineSide.drainAsync`) are the model's
        // too before versions compare: a block may have committed after the step's own commit.
        asyncTurned(after: step, thread: thread)
        guard failure == nil else { return }
        if let realm, !isMidOperation(realm, except: thread) {
            checkVersions(thread, realm: realm, engineVersion: engineVersion, step: step, previous: previous)
        }
        if failure == nil { checkDeliveries(step, observed: observed) }
        if failure == nil { queueTurned(after: step, thread: thread, observed: observed) }
        if failure == nil, case .open(_, .queue, _) = step.operation, case .realm(let opened?) = observed {
            queueRealmOpened(opened, thread: thread, step: step)
        }
    }

    /// A queue context's `observe` or commit leaves a delivery turn on its queue, which the step
    /// waited for (`EngineSide.perform`): that was a turn of the queue's loop, which the model
    /// takes now too (Spec N7, N8), recorded in the trace as the harness's step. The model's
    /// observers then hear what the engine's heard, and a turn it takes later finds the same
    /// realm (it would begin a read for an initial callback still owed, say).
    func queueTurned(after step: Step, thread: Int, observed: Observation) {
        guard queueContexts.contains(step.context), engine.deliveries.isActive else { return }
        switch (step.operation, observed) {
        case (.observeCollection, .done), (.commitWrite(_, _, .success), .done): break
        default: return
        }
        let turn = Step(step.context, .turnLoop)
        let (next, outcome) = model.step(turn)
        model = next
        let expected = Observation(model: outcome)
        trace.append(
            TraceEntry(
                index: trace.count, thread: thread, step: turn, expected: expected, observed: .done,
                engineVersion: nil, note: "harness: the queue ran the delivery turn the operation left",
                draws: nil))
        if !expected.accepts(.done) {
            fail(.divergence, "\(StepText.describe(turn)): model \(expected), engine done")
        }
    }

    /// The callbacks that ran during `step` (its own, or its queue's blocks it waited for:
    /// `EngineSide.perform`), checked by the delivery oracle.
    func checkDeliveries(_ step: Step, observed: Observation) {
        let deliveries = engine.deliveries.take()
        switch (step.operation, observed) {
        case (.observeCollection, .done), (.observeObject, .done): statistics.observers += 1
        default: break
        }
        let engine = self.engine
        if let problem = deliveryOracle.check(
            step, observed: observed, deliveries: deliveries, model: model,
            offset: versionOffset,
            queueNumber: { engine.queueNumber(of: $0) })
        {
            fail(.divergence, problem)
        }
    }

    /// Generation 5, Spec X3: the copy a `writeCopy` step made, opened and read in the step
    /// (`EngineSide.contents(ofCopy:)`), holds exactly the model's copy: the realm's read
    /// version, or inside a write the write's data as it was.
    func checkCopy(_ path: String, step: Step) {
        let expected = Observation.elements(model.newestContents(of: .path(path)) ?? [])
        let observed = engine.takeCopyContents(path) ?? .failure(code: "harness", message: "the step read no copy")
        if observed != expected {
            fail(
                .divergence,
                "\(StepText.describe(step)): the copy holds \(observed), the model's copy \(expected) (Spec X3)")
        }
    }

    /// The harness's own probes: how a resolve placed its realm (Spec T4), and a write refused
    /// over the active-version limit (L2).
    func markProbes(_ step: Step, observed: Observation, previous: ModelState) {
        switch (step.operation, observed) {
        case (.resolve(let reference, let realm, _), .handle):
            guard let source = previous.references[reference]?.sourceVersion else { return }
            if let read = previous.realms[realm]?.readVersion {
                if read < source { probeCounter.mark(ProbeCoverage.resolveIntoOlderRealm) }
                if read > source { probeCounter.mark(ProbeCoverage.resolveIntoNewerRealm) }
            } else {
                probeCounter.mark(ProbeCoverage.resolveIntoUnreadRealm)
            }
        case (.beginWrite, .failure(_, let message)) where message.hasPrefix("Number of active versions"):
            probeCounter.mark(ProbeCoverage.activeVersionLimitHit)
        default:
            break
        }
    }

    /// Whether the context owning `realm` is inside an operation, left at a switch point
    /// (an operation from another context used the realm): the model may have taken that
    /// operation's step already while the engine realm has not moved yet.
    func isMidOperation(_ realm: RealmID, except thread: Int) -> Bool {
        guard let owner = model.realms[realm]?.owner else { return false }
        let ownerThread = owner.rawValue - 1
        return ownerThread != thread && running[ownerThread] != nil
    }

    /// Version stamps: the engine's version of every realm is the model's plus one fixed
    /// offset; a thread's live realm never goes back; commits grow strictly.
    func checkVersions(_ thread: Int, realm: RealmID, engineVersion: UInt64?, step: Step, previous: ModelState) {
        guard let state = model.realms[realm] else { return }
        let modelVersion = state.readVersion
        switch (modelVersion, engineVersion) {
        case (nil, nil): return
        case (let modelVersion?, let engineVersion?):
            let offset = Int64(engineVersion) - Int64(modelVersion.rawValue)
            if let known = versionOffset, known != offset {
                fail(
                    .versions,
                    "\(realm) reads engine v\(engineVersion) where the model reads \(modelVersion) (offset \(offset), was \(known)) after \(step)"
                )
                return
            }
            versionOffset = offset
            statistics.versions = max(statistics.versions, modelVersion.rawValue)
            if !state.isFrozen && state.owner == context(thread) {
                if let seen = lastSeen[realm], engineVersion < seen {
                    fail(
                        .versions,
                        "\(realm) of \(context(thread)) went back from v\(seen) to v\(engineVersion) after \(step)")
                    return
                }
                lastSeen[realm] = engineVersion
            }
            if case .commitWrite = step.operation, previous.realms[realm]?.write != nil, state.write == nil,
                state.readVersion != previous.realms[realm]?.readVersion
            {
                if engineVersion <= lastCommitVersion {
                    fail(.versions, "commit made v\(engineVersion), not above the last commit v\(lastCommitVersion)")
                    return
                }
                lastCommitVersion = engineVersion
            }
        case (let modelVersion, let engineVersion):
            // A frozen realm whose version is read lazily, or an invalidated one, may differ in
            // whether it reports a version; only a live realm's must agree.
            if !state.isFrozen {
                fail(
                    .versions,
                    "\(realm) model version \(modelVersion.map(\.description) ?? "none"), engine \(engineVersion.map { "v\($0)" } ?? "none") after \(step)"
                )
            }
        }
    }

    func mutate(_ expected: inout Observation, step: Step) {
        guard let mutation = settings.modelMutation else { return }
        switch (mutation, step.operation, expected) {
        case (.refreshNeverMoves, .refresh, .bool(true)):
            expected = .bool(false)
        case (.createdObjectsVanish, .read, .elements(let readings)) where readings.count > 1:
            expected = .elements(Array(readings.dropLast()))
        default:
            break
        }
    }

    static func realm(of operation: StrataModel.Operation) -> RealmID? {
        switch operation {
        case .open(_, _, let id), .refresh(let id), .invalidate(let id), .beginWrite(let id),
            .commitWrite(let id, _, _), .cancelWrite(let id), .objects(let id, _, _),
            .objectForPrimaryKey(let id, _, _, _), .create(let id, _, _, _, _, _), .delete(let id, _),
            .freezeRealm(let id, _), .resolve(_, let id, _):
            return id
        default:
            return nil
        }
    }
}
