import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Testing

// Realm's RealmCollectionTypeTests members that the `RealmCollection` protocol carries, written
// once against the protocol (as Realm's generic test class is) and run on Results, a List of
// objects, and `AnyRealmCollection` wrapping each (Realm's `AnyRealmCollectionTests`
// subclasses). The collection holds four aggregate objects: intCol 3, 1, 2, 1.

extension RealmParityCollections {
    @Suite struct AnyRealmCollectionTests {
        enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
            case results = "Results"
            case list = "List"
            case anyOfResults = "AnyRealmCollection(Results)"
            case anyOfList = "AnyRealmCollection(List)"
            var testDescription: String { rawValue }
        }

        private static func realm() throws -> (Realm, PCAggregateObjectList) { try aggregateList("any.realm") }

        private static func collection(_ kind: Kind, _ realm: Realm, _ owner: PCAggregateObjectList)
            -> AnyRealmCollection<PCAggregateObject>
        {
            switch kind {
            case .results, .anyOfResults: return AnyRealmCollection(realm.objects(PCAggregateObject.self))
            case .list, .anyOfList: return AnyRealmCollection(owner.list)
            }
        }

        /// The members of the protocol, each checked, on any conforming collection.
        private static func exercise<C: RealmCollection>(_ collection: C, realm: Realm) throws
        where C.Element == PCAggregateObject {
            #expect(collection.realm == realm)
            #expect(!collection.isInvalidated && !collection.isFrozen)
            #expect(collection.count == 4)
            #expect(collection.map(\.intCol) == [3, 1, 2, 1])
            #expect(collection.first?.intCol == 3 && collection.last?.intCol == 1)
            let second = try #require(collection.dropFirst().first)
            #expect(collection.index(of: second) == 1)
            #expect(collection.index(matching: "intCol == %@", 2) == 2)
            #expect(collection.index(matching: { $0.intCol == 1 }) == 1)
            #expect(collection.index(matching: "intCol > 5") == nil)
            #expect(collection.objects(at: IndexSet([0, 2])).map(\.intCol) == [3, 2])
            #expect(collection.filter("intCol == 1").count == 2)
            #expect(collection.where { $0.intCol > 1 }.map(\.intCol) == [3, 2])
            #expect(collection.sorted(byKeyPath: "intCol").map(\.intCol) == [1, 1, 2, 3])
            #expect(collection.sorted(byKeyPath: "intCol", ascending: false).map(\.intCol) == [3, 2, 1, 1])
            #expect(
                collection.sorted(by: [SortDescriptor(keyPath: "doubleCol", ascending: false)]).map(\.intCol)
                    == [3, 2, 1, 1])
            #expect(collection.distinct(by: ["intCol"]).map(\.intCol) == [3, 1, 2])
            #expect(collection.min(ofProperty: "intCol") as Int? == 1)
            #expect(collection.max(ofProperty: "intCol") as Int? == 3)
            #expect(collection.sum(ofProperty: "intCol") as Int == 7)
            #expect(collection.average(ofProperty: "doubleCol") as Double? == 0.875)
            #expect(collection.description.contains("intCol = 3"))
            let frozen = collection.freeze()
            #expect(frozen.isFrozen && frozen.count == 4)
            let thawed = try #require(frozen.thaw())
            #expect(!thawed.isFrozen && thawed.count == 4)
        }

        @Test(
            "RealmCollectionTypeTests.testIndexOfFormat, testObjectsAtIndexes, testFilterFormat, testSortWithDescriptor, testDistinct, testMin, testFreeze: the protocol's members on every conforming collection",
            arguments: Kind.allCases)
        func protocolMembersOnEveryCollection(_ kind: Kind) throws {
            let (realm, owner) = try Self.realm()
            switch kind {
            case .results: try Self.exercise(realm.objects(PCAggregateObject.self), realm: realm)
            case .list: try Self.exercise(owner.list, realm: realm)
            case .anyOfResults, .anyOfList: try Self.exercise(Self.collection(kind, realm, owner), realm: realm)
            }
        }

        @Test("AnyRealmCollectionTests: a change carries the wrapper; its indices are the wrapped collection's")
        func testObserve() throws {
            let configuration = try Self.realm().0.configuration
            try onLoopThread {
                let realm = try Realm(configuration: configuration)
                let owner = try #require(realm.objects(PCAggregateObjectList.self).first)
                for kind in [Kind.anyOfResults, .anyOfList] {
                    let collection = Self.collection(kind, realm, owner)
                    let before = collection.count
                    let changes = Changes()
                    let token = collection.observe { change in
                        switch change {
                        case .initial(let any): changes.record("initial \(any.count)")
                        case .update(let any, let deletions, let insertions, _):
                            changes.record("update \(any.count) -\(deletions) +\(insertions)")
                        case .error(let error): changes.record("error \(error)")
                        }
                    }
                    #expect(spinRunLoop { changes.values.count == 1 })
                    try realm.write {
                        let object = PCAggregateObject()
                        object.intCol = 9
                        owner.list.append(object)
                    }
                    #expect(spinRunLoop { changes.values.count == 2 })
                    #expect(
                        changes.values == ["initial \(before)", "update \(before + 1) -[] +[\(before)]"], "\(kind)")
                    token.invalidate()
                }
            }
        }

        @Test("AnyRealmCollectionTests: observed on a queue, the change carries the wrapper resolved there")
        func testObserveOnQueue() throws {
            let (realm, owner) = try Self.realm()
            let queue = DispatchQueue(label: "any-realm-collection")
            let delivered = DispatchSemaphore(value: 0)
            let counts = Counts()
            let token = AnyRealmCollection(owner.list).observe(on: queue) { change in
                if case .initial(let any) = change {
                    counts.record(any.count, frozen: any.isFrozen)
                    delivered.signal()
                }
            }
            #expect(delivered.wait(timeout: .now() + 60) == .success)
            #expect(counts.values == [4])
            token.invalidate()
            _ = realm
        }

        @Test("Spec T6: a ThreadSafeReference to an AnyRealmCollection resolves to a wrapper of the same collection")
        func testThreadSafeReference() throws {
            let (realm, owner) = try Self.realm()
            let configuration = realm.configuration
            for any in [AnyRealmCollection(owner.list), AnyRealmCollection(realm.objects(PCAggregateObject.self))] {
                let reference = ThreadSafeReference(to: any)
                let count = try onOtherThread { () throws -> Int in
                    let other = try Realm(configuration: configuration)
                    return try #require(other.resolve(reference)).count
                }
                #expect(count == 4)
            }
        }
    }
}

/// What a callback records, read on the test's thread.
private final class Changes: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    func record(_ change: String) {
        lock.lock()
        recorded.append(change)
        lock.unlock()
    }
    var values: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

/// Values a queue's callback records, read on the test's thread after it signals.
private final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Int] = []
    func record(_ count: Int, frozen: Bool) {
        lock.lock()
        recorded.append(frozen ? -count : count)
        lock.unlock()
    }
    var values: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}
