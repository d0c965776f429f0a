import Foundation
import Strata
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 14 in generated runs: Items' LinkingObjects through the `list` of Items and of
/// Others (Spec V26), kept as Results handles that every Results operation then reads, counts,
/// aggregates, iterates, observes, freezes, thaws and hands over, checked against the model's
/// backlinks (one element per link, in the owners' key order) at every step and crash image.
@Suite(.serialized) struct Generation14HarnessTests {
    @Test("Spec V26: generation 14 runs are clean, replay bit for bit, and read LinkingObjects")
    func generation14RunsAreCleanAndReadLinkingObjects() throws {
        var byOwner: [String: Int] = [:]
        var refusals: [String: Int] = [:]
        var handles: Set<HandleID> = []
        var nonEmptyReads = 0
        var repeatedOwners = 0
        var otherUses: [String: Int] = [:]
        var backlinkFilters: [String: Int] = [:]
        var backlinkFilterHandles: Set<HandleID> = []
        var matchedThroughBacklinks = 0
        let checked = try forEachGeneratedRun(generation: 14) { result in
            for entry in result.trace {
                let operation = entry.step.operation
                if case .objects(_, let query, let handle) = operation, let owner = query.collectionMinimum?.backlinksOf
                {
                    backlinkFilters[owner, default: 0] += 1
                    backlinkFilterHandles.insert(handle)
                }
                if case .read(let handle) = operation, backlinkFilterHandles.contains(handle),
                    case .elements(let readings) = entry.observed, !readings.isEmpty
                {
                    matchedThroughBacklinks += 1
                }
                if case .linkingObjectsOf(_, let ownerType, let handle) = operation {
                    byOwner[ownerType, default: 0] += 1
                    if case .failure(_, let message) = entry.observed {
                        refusals[message, default: 0] += 1
                    } else {
                        handles.insert(handle)
                    }
                    continue
                }
                if case .read(let handle) = operation, handles.contains(handle),
                    case .elements(let readings) = entry.observed, !readings.isEmpty
                {
                    nonEmptyReads += 1
                    let owners = readings.map { "\($0.type)\($0.primaryKey)" }
                    if Set(owners).count < owners.count { repeatedOwners += 1 }
                }
                if let use = Self.use(of: operation), handles.contains(use.handle) {
                    otherUses[use.name, default: 0] += 1
                }
            }
            handles.removeAll()
            backlinkFilterHandles.removeAll()
        }
        print(
            "generation 14 in 40 runs: LinkingObjects of \(byOwner.sorted { $0.key < $1.key }); \(nonEmptyReads) non-empty reads, \(repeatedOwners) with an owner twice; other uses \(otherUses.sorted { $0.key < $1.key }); refusals \(refusals.sorted { $0.key < $1.key }); filters through LinkingObjects of \(backlinkFilters.sorted { $0.key < $1.key }), \(matchedThroughBacklinks) non-empty reads of them"
        )
        #expect(byOwner["Item", default: 0] > 0 && byOwner["Other", default: 0] > 0)
        #expect(nonEmptyReads > 0, "no read found a backlink")
        #expect(repeatedOwners > 0, "no read met an owner holding the Item twice")
        #expect(!otherUses.isEmpty, "the LinkingObjects were only read")
        #expect(backlinkFilters["Item", default: 0] > 0 && backlinkFilters["Other", default: 0] > 0)
        #expect(checked == 4)
    }

    /// The handle an operation other than a read uses, and the operation's name.
    private static func use(of operation: StrataModel.Operation) -> (handle: HandleID, name: String)? {
        switch operation {
        case .aggregate(let handle, _): return (handle, "aggregate")
        case .iterate(let handle, _): return (handle, "iterate")
        case .freezeHandle(let handle, _): return (handle, "freeze")
        case .makeReference(let handle, _): return (handle, "reference")
        case .observeCollection(let handle, _, _, _, _): return (handle, "observe")
        case .element(let handle, _, _): return (handle, "element")
        default: return nil
        }
    }

    /// Runs of generations 1 to 13 never read LinkingObjects: a token printed before generation
    /// 14 keeps its meaning.
    @Test func olderGenerationsNeverReadLinkingObjects() throws {
        try expectOlderGenerations(1...13) { operation in
            if case .linkingObjectsOf = operation { return true }
            return false
        }
    }

    @Test("Spec V26: LinkingObjects that name an owner once however many links it holds are caught and shrunk")
    func backlinksOncePerOwnerIsCaughtAndShrunk() throws {
        // Measured on generation 14's streams.
        let found = try expectCaughtAndShrunk("backlinksOncePerOwner", generation: 14)
        #expect(
            found.shrunk.trace.contains { entry in
                if case .linkingObjectsOf = entry.step.operation { return true }
                return false
            }, "the shrunk run still reads LinkingObjects")
    }
}
