import Dispatch
import Foundation
import Strata
import Testing

/// Notifications as AsyncSequences (`results.changes`, `list.changes`, `object.changes`): the
/// same change sets as `observe` (Spec N6, N7, N13), each with a frozen snapshot a task reads
/// off the realm's queue.
@Suite struct ChangeStreamTests {
    /// A realm confined to a serial queue, kept alive there (Spec C4).
    final class QueueRealm: @unchecked Sendable {
        let queue = DispatchQueue(label: "change-streams")
        private(set) var realm: Realm?

        init(_ configuration: Realm.Configuration) throws {
            try queue.sync { realm = try Realm(configuration: configuration, queue: queue) }
        }

        func close() { queue.sync { realm = nil } }
    }

    private func commit(
        _ configuration: Realm.Configuration,
        _ change: @escaping @Sendable (Realm) throws -> Void
    ) throws {
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { try change(realm) }
        }
    }

    // Spec N6, N7, N8, N13: results.changes yields the initial contents, then one update per
    // commit, each with frozen Results of its version.
    @Test(.hangGuard) func resultsChangesYieldFrozenSnapshots() async throws {
        let configuration = testConfiguration()
        try commit(configuration) { $0.create(IntObj.self, value: ["intCol": 1]) }
        let owner = try QueueRealm(configuration)
        let stream = try owner.queue.sync {
            try required(owner.realm, "realm").objects(IntObj.self).sorted(byKeyPath: "intCol").changes
        }
        var iterator = stream.makeAsyncIterator()
        guard case .initial(let initial) = await iterator.next() else {
            Issue.record("no initial change")
            return
        }
        #expect(initial.isFrozen)
        #expect(initial.map(\.intCol) == [1])
        try commit(configuration) { $0.create(IntObj.self, value: ["intCol": 0]) }
        guard case .update(let first, let deletions, let insertions, let modifications) = await iterator.next() else {
            Issue.record("no first update")
            return
        }
        #expect(first.isFrozen)
        #expect(first.map(\.intCol) == [0, 1])
        #expect(deletions.isEmpty && insertions == [0] && modifications.isEmpty)
        try commit(configuration) { realm in
            realm.objects(IntObj.self).where { $0.intCol == 1 }.first?.intCol = 5
        }
        guard case .update(let second, _, _, let modified) = await iterator.next() else {
            Issue.record("no second update")
            return
        }
        #expect(second.map(\.intCol) == [0, 5])
        #expect(modified == [1])
        #expect(first.map(\.intCol) == [0, 1], "a frozen snapshot followed a later commit")
        owner.close()
    }

    // Spec N20: object.changes yields the changed properties with the object frozen, and
    // ends after `.deleted`.
    @Test(.hangGuard) func objectChangesEndWithDeletion() async throws {
        let configuration = testConfiguration()
        try commit(configuration) { $0.create(SwiftObject.self, value: ["intCol": 1]) }
        let owner = try QueueRealm(configuration)
        let stream = try owner.queue.sync {
            try required(owner.realm?.objects(SwiftObject.self).first, "object").changes()
        }
        try commit(configuration) { $0.objects(SwiftObject.self).first?.intCol = 2 }
        var seen: [String] = []
        for await change in stream {
            switch change {
            case .change(let object, let properties):
                #expect(object.isFrozen)
                seen.append("\(properties.map(\.name)) \(object.intCol)")
                try commit(configuration) { $0.delete($0.objects(SwiftObject.self)) }
            case .deleted: seen.append("deleted")
            case .error(let error): seen.append("error \(error)")
            }
        }
        #expect(seen == ["[\"intCol\"] 2", "deleted"])
        owner.close()
    }
}
