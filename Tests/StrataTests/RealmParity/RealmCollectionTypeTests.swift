import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/RealmCollectionTypeTests.swift, in our words, for the collections
// Strata has. Realm's `RealmCollectionTests` is a generic class run once per subclass; the
// subclasses Strata has a type for are the three of `ResultsTests` and the four of
// `ListRealmCollectionTests` (`PCVariant`). Each test here takes that subclass as its argument,
// so every (subclass, test) pair of Realm is one test case; the body is written once, generic
// over the test-only `PCCollection` (ParityCollectionObjects.swift), where Realm's is generic
// over `RealmCollection`. Where a subclass overrides a test, the body branches on the variant.
//
// Not here (Strata lacks the subject): the NSPredicate and format-string forms of `filter` and
// `index(matching:)` (the tests keep their `where` forms), `index(matching:)`, `objects(at:)`,
// key-value coding (`value(forKey:)`, `setValue(_:forKey:)`, `value(forKeyPath:)`),
// `containsAny(in:)` and `contains` in queries, `observe(keyPaths:)` with Swift
// key paths on collections, `sorted` on a List, `distinct(by:)`, `==` of Results, MutableSet, LinkingObjects and AnyRealmCollection.
// Held out because Strata traps there: ListUnmanagedRealmCollectionTests.testFilterFormat (`where`
// on an unmanaged List traps, as RealmSwift throws, and has no throwing form).
//
// Rejections: where RealmSwift raises an exception, the public API traps; the tests call the
// `package` throwing form of the same member and check the error. Observers run on a
// thread inside its run loop (Spec C11); what they received is returned and checked on the
// test's thread. Waits are for conditions, with generous bounds; no verdict depends on speed.

typealias PCElement = PCNullableStringObjectWithLink

/// Runs `body` on a new thread inside its run loop (Spec C11) and returns what it returned.
private func onLoop<R>(_ body: @escaping @Sendable () throws -> R) throws -> R {
    let box = ResultBox<R>()
    try onLoopThread { box.set(.success(try body())) }
    return try box.get()
}

/// Waits (giving up the thread between checks) until `condition` holds, for at most
/// `hangGuardSeconds` of 10 ms sleeps.
private func waitAsync(_ condition: @Sendable () -> Bool) async -> Bool {
    for _ in 0..<Int(hangGuardSeconds * 100) {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

/// A rejection of a misuse, whatever its message (Realm's `assertThrows` without a reason).
private func expectThrows(_ error: Realm.Error?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error != nil, "expected a rejection", sourceLocation: sourceLocation)
    if let error { #expect(error.code == .programmerError, "\(error)", sourceLocation: sourceLocation) }
}

/// A flag set from a callback and read on the thread that waits for it.
private final class PCFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    var isSet: Bool { lock.withLock { set } }
    func raise() { lock.withLock { set = true } }
}

extension RealmParityCollections {
    /// Observers on an actor (Realm's `TestActor` and `CustomGlobalActor`).
    @globalActor actor ObservingActor {
        static let shared = ObservingActor()

        /// `TestActor.observe(_:)`: resolves the collection in this actor's realm and observes
        /// it there.
        func observe<C: PCCollection>(
            _ reference: ThreadSafeReference<C>, configuration: Realm.Configuration,
            log: PCChangeLog
        ) async throws -> NotificationToken {
            let realm = try await Realm(configuration: configuration, actor: self)
            let collection = try required(realm.resolve(reference), "the resolved collection")
            return collection.observe(keyPaths: nil) { change in log.record(change) }
        }
    }

    @Suite struct RealmCollectionTypeTests {
        private static let all = PCVariant.allCases
        private static let managed = PCVariant.managed
        private static let results = PCVariant.results
        private static let unmanaged = [PCVariant.listUnmanaged]

        // MARK: state

        @Test(
            "Spec C2: a managed collection's realm is the test realm; an unmanaged List has none",
            arguments: all)
        func testRealm(_ variant: PCVariant) throws {
            try variant.run({ try Self.realm($0) }, { try Self.realm($0) }, { try Self.realm($0) })
        }

        private static func realm<C: PCCollection>(_ t: PCCase<C>) throws {
            if t.variant.isUnmanaged {
                #expect(t.collection.realm == nil)
                return
            }
            let realm = try #require(t.collection.realm)
            #expect(realm.configuration.fileURL == t.realm.configuration.fileURL)
        }

        @Test("description lists the elements as Realm describes collections", arguments: all)
        func testDescription(_ variant: PCVariant) throws {
            try variant.run({ try Self.description($0) }, { try Self.description($0) }, { try Self.description($0) })
        }

        private static func description<C: PCCollection>(_ t: PCCase<C>) throws {
            // Realm's pattern, with our class names: the type, an address, then each element as
            // `Object.description` prints it, indented by one tab.
            func element(_ index: Int, _ string: String) -> String {
                "\t\\[\(index)\\] PCNullableStringObjectWithLink \\{\n\t\tstringCol = \(string);\n"
                    + "\t\tlinkCol = PCLinkTarget \\{\n\t\t\tid = 1;\n\t\t\\};\n\t\\}"
            }
            let pattern =
                "\(C.pcTypeName)<PCNullableStringObjectWithLink> <0x[0-9a-f]+> \\(\n"
                + element(0, "1") + ",\n" + element(1, "2") + "\n\\)"
            let description = t.collection.description
            #expect(description.wholeMatch(of: try Regex(pattern)) != nil, "\(description)")
        }

        @Test("count, also of where-queries of the collection", arguments: all)
        func testCount(_ variant: PCVariant) throws {
            try variant.run({ Self.count($0) }, { Self.count($0) }, { Self.count($0) })
        }

        private static func count<C: PCCollection>(_ t: PCCase<C>) {
            let collection = t.collection
            #expect(collection.count == 2)
            if t.variant.isUnmanaged { return }  // ListUnmanagedRealmCollectionTests.testCount
            #expect(collection.where { $0.stringCol == "1" }.count == 1)
            #expect(collection.where { $0.stringCol == "2" }.count == 1)
            #expect(collection.where { $0.stringCol == "0" }.count == 0)
        }

        @Test("Spec W12: index(of:) finds the very object, also in a where-query", arguments: all)
        func testIndexOfObject(_ variant: PCVariant) throws {
            try variant.run({ Self.indexOfObject($0) }, { Self.indexOfObject($0) }, { Self.indexOfObject($0) })
        }

        private static func indexOfObject<C: PCCollection>(_ t: PCCase<C>) {
            #expect(t.collection.pcIndex(of: t.str1) == 0)
            #expect(t.collection.pcIndex(of: t.str2) == 1)
            if t.variant.isUnmanaged { return }  // ListUnmanagedRealmCollectionTests.testIndexOfObject
            let str1OnlyQuery = t.collection.where { $0.stringCol == "1" }
            #expect(str1OnlyQuery.index(of: t.str1) == 0)
            #expect(str1OnlyQuery.index(of: t.str2) == nil)
        }

        @Test("subscript reads the elements in order and rejects indices out of bounds", arguments: all)
        func testSubscript(_ variant: PCVariant) throws {
            try variant.run({ Self.subscripts($0) }, { Self.subscripts($0) }, { Self.subscripts($0) })
        }

        private static func subscripts<C: PCCollection>(_ t: PCCase<C>) {
            #expect(t.collection[0].isSameObject(as: t.str1))
            #expect(t.collection[1].isSameObject(as: t.str2))
            expectThrows(rejection { _ = try t.collection._element(at: 200) })
            expectThrows(rejection { _ = try t.collection._element(at: -200) })
        }

        @Test("first, also of where-queries", arguments: all)
        func testFirst(_ variant: PCVariant) throws {
            try variant.run({ Self.first($0) }, { Self.first($0) }, { Self.first($0) })
        }

        private static func first<C: PCCollection>(_ t: PCCase<C>) {
            #expect(t.collection.first?.isSameObject(as: t.str1) == true)
            if t.variant.isUnmanaged { return }  // ListUnmanagedRealmCollectionTests.testFirst
            #expect(t.collection.where { $0.stringCol == "2" }.first?.isSameObject(as: t.str2) == true)
            #expect(t.collection.where { $0.stringCol == "3" }.first == nil)
        }

        @Test("last, also of where-queries", arguments: all)
        func testLast(_ variant: PCVariant) throws {
            try variant.run({ Self.last($0) }, { Self.last($0) }, { Self.last($0) })
        }

        private static func last<C: PCCollection>(_ t: PCCase<C>) {
            #expect(t.collection.last?.isSameObject(as: t.str2) == true)
            if t.variant.isUnmanaged { return }  // ListUnmanagedRealmCollectionTests.testLast
            #expect(t.collection.where { $0.stringCol == "2" }.last?.isSameObject(as: t.str2) == true)
            #expect(t.collection.where { $0.stringCol == "3" }.last == nil)
        }

        // MARK: queries

        @Test("filter and where with closures count the matching elements", arguments: managed)
        func testFilterFormat(_ variant: PCVariant) throws {
            try variant.run({ Self.filterFormat($0) }, { Self.filterFormat($0) }, { Self.filterFormat($0) })
        }

        private static func filterFormat<C: PCCollection>(_ t: PCCase<C>) {
            let collection = t.collection
            #expect(collection.filter { $0.stringCol == "1" }.count == 1)
            #expect(collection.filter { $0.stringCol == "2" }.count == 1)
            #expect(collection.filter { $0.stringCol == "3" }.count == 0)
            #expect(collection.where { $0.stringCol == "1" }.count == 1)
            #expect(collection.where { $0.stringCol == "3" }.count == 0)
        }

        @Test("where with optional and nil criteria joined by ||", arguments: managed)
        func testFilterWithAnyVarags(_ variant: PCVariant) throws {
            try variant.run(
                { Self.filterWithAnyVarags($0) }, { Self.filterWithAnyVarags($0) }, { Self.filterWithAnyVarags($0) })
        }

        private static func filterWithAnyVarags<C: PCCollection>(_ t: PCCase<C>) {
            let firstCriterion: String? = "1"
            let secondCriterion: String = "2"
            let thirdCriterion: String? = nil
            let queryResult = t.collection.where {
                $0.stringCol == firstCriterion || $0.stringCol == secondCriterion || $0.stringCol == thirdCriterion
            }
            #expect(queryResult.count == 2)
        }

        @Test("Filtering on each integer column (int8Col)", arguments: all)
        func testFilterWithInt8Property(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.filterInteger($0) { $0.int8Col == $1 } },
                { try Self.filterInteger($0) { $0.int8Col == $1 } },
                { try Self.filterInteger($0) { $0.int8Col == $1 } })
        }

        @Test("Filtering on each integer column (int16Col)", arguments: all)
        func testFilterWithInt16Property(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.filterInteger($0) { $0.int16Col == $1 } },
                { try Self.filterInteger($0) { $0.int16Col == $1 } },
                { try Self.filterInteger($0) { $0.int16Col == $1 } })
        }

        @Test("Filtering on each integer column (int32Col)", arguments: all)
        func testFilterWithInt32Property(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.filterInteger($0) { $0.int32Col == $1 } },
                { try Self.filterInteger($0) { $0.int32Col == $1 } },
                { try Self.filterInteger($0) { $0.int32Col == $1 } })
        }

        @Test("Filtering on each integer column (int64Col)", arguments: all)
        func testFilterWithInt64Property(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.filterInteger($0) { $0.int64Col == $1 } },
                { try Self.filterInteger($0) { $0.int64Col == $1 } },
                { try Self.filterInteger($0) { $0.int64Col == $1 } })
        }

        /// `testFilterWithInt8Property` and its siblings: the three aggregateable objects hold
        /// 1, 2 and 3; a query for each value finds one, for 0 none.
        private static func filterInteger<C: PCCollection>(
            _ t: PCCase<C>, _ equals: @escaping (Query<PCAggregateObject>, Int) -> Query<Bool>
        ) throws {
            try t.realm.write { t.makeAggregateableObjectsInWriteTransaction() }
            let objects = t.realm.objects(PCAggregateObject.self)
            #expect(objects.where { equals($0, 0) }.count == 0)
            #expect(objects.where { equals($0, 1) }.count == 1)
            #expect(objects.where { equals($0, 2) }.count == 1)
            #expect(objects.where { equals($0, 3) }.count == 1)
        }

        // MARK: sorting (Results; Strata's List has no `sorted`)

        @Test("sorted(byKeyPath:) by a property, both ways, and through a link", arguments: results)
        func testSortWithProperty(_ variant: PCVariant) throws {
            try variant.runResults { t in
                let collection = t.collection
                var sorted = collection.sorted(byKeyPath: "stringCol", ascending: true)
                #expect(sorted.map(\.stringCol) == ["1", "2"])
                sorted = collection.sorted(byKeyPath: "stringCol", ascending: false)
                #expect(sorted.map(\.stringCol) == ["2", "1"])
                sorted = collection.sorted(byKeyPath: "linkCol.id", ascending: true)
                #expect(sorted.map(\.stringCol) == ["1", "2"])
                // Both link to the same target: the tie keeps the source order.
                expectRejected(
                    rejection { _ = try collection._sorted(by: [SortDescriptor(keyPath: "noSuchCol")]) },
                    "Cannot sort on key path 'noSuchCol': property "
                        + "'PCNullableStringObjectWithLink.noSuchCol' does not exist")
            }
        }

        @Test("sorted(by:) with Swift key paths", arguments: results)
        func testSortWithSwiftKeyPath(_ variant: PCVariant) throws {
            try variant.runResults { t in
                var sorted = t.collection.sorted(by: \.stringCol, ascending: true)
                #expect(sorted.map(\.stringCol) == ["1", "2"])
                sorted = t.collection.sorted(by: \.stringCol, ascending: false)
                #expect(sorted.map(\.stringCol) == ["2", "1"])
                sorted = t.collection.sorted(by: \.linkCol?.id, ascending: true)
                #expect(sorted.map(\.stringCol) == ["1", "2"])
                let nonOptionalSorted = try t.aggregateableResults().sorted(by: \.intCol, ascending: true)
                #expect(nonOptionalSorted.map(\.intCol) == [1, 2, 3])
            }
        }

        @Test(
            "sorted(by:) with descriptors: none keeps the order, a bad key path is refused",
            arguments: results)
        func testSortWithDescriptor(_ variant: PCVariant) throws {
            try variant.runResults { t in
                let collection = try t.aggregateableResults()
                let noDescriptors: [Strata.SortDescriptor] = []
                let notActuallySorted = collection.sorted(by: noDescriptors)
                #expect(collection.count == 3)
                for (offset, element) in collection.enumerated() {
                    #expect(element.isSameObject(as: notActuallySorted[offset]))
                }
                let sorted = collection.sorted(by: [SortDescriptor(keyPath: "intCol", ascending: true)])
                #expect(sorted.map(\.intCol) == [1, 2, 3])
                expectRejected(
                    rejection { _ = try collection._sorted(by: [SortDescriptor(keyPath: "noSuchCol")]) },
                    "Cannot sort on key path 'noSuchCol': property 'PCAggregateObject.noSuchCol' does not exist")
            }
        }

        @Test("sorted(by:) with descriptors made from Swift key paths", arguments: results)
        func testSortWithDescriptorBySwiftKeyPath(_ variant: PCVariant) throws {
            try variant.runResults { t in
                let collection = try t.aggregateableResults()
                let noDescriptors: [Strata.SortDescriptor] = []
                let notActuallySorted = collection.sorted(by: noDescriptors)
                for (offset, element) in collection.enumerated() {
                    #expect(element.isSameObject(as: notActuallySorted[offset]))
                }
                let sorted = collection.sorted(by: [SortDescriptor(keyPath: \PCAggregateObject.intCol, ascending: true)]
                )
                #expect(sorted.map(\.intCol) == [1, 2, 3])
            }
        }

        // MARK: enumeration and assignment

        @Test("Spec V15: for-in visits the elements in order", arguments: all)
        func testFastEnumeration(_ variant: PCVariant) throws {
            try variant.run({ Self.fastEnumeration($0) }, { Self.fastEnumeration($0) }, { Self.fastEnumeration($0) })
        }

        private static func fastEnumeration<C: PCCollection>(_ t: PCCase<C>) {
            var string = ""
            for object in t.collection { string += object.stringCol ?? "nil" }
            #expect(string == "12")
        }

        @Test("Spec V15: deleting each element while enumerating empties the collection", arguments: managed)
        func testFastEnumerationWithMutation(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.fastEnumerationWithMutation($0) }, { try Self.fastEnumerationWithMutation($0) },
                { try Self.fastEnumerationWithMutation($0) })
        }

        private static func fastEnumerationWithMutation<C: PCCollection>(_ t: PCCase<C>) throws {
            try t.realm.write {
                for object in t.collection { t.realm.delete(object) }
            }
            #expect(t.collection.count == 0)
        }

        @Test("Assigning the collection to a List property copies its elements", arguments: all)
        func testAssignListProperty(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.assignListProperty($0) }, { try Self.assignListProperty($0) },
                { try Self.assignListProperty($0) })
        }

        private static func assignListProperty<C: PCCollection>(_ t: PCCase<C>) throws {
            // Realm checks only that the assignment does not throw; the count is what it makes.
            let count = try t.realm.write { () throws -> Int in
                let array = PCStringList()
                t.realm.add(array)
                try array._setValue(try t.makeCollection(), forKey: "array")
                return array.array.count
            }
            #expect(count == 2)
        }

        // MARK: observation

        @Test(
            "Spec N8, N4, N13: initial later; a skipped token misses the commit; deletions [0, 1]",
            arguments: all)
        func testObserve(_ variant: PCVariant) throws {
            if variant.isUnmanaged {
                try Self.expectUnmanagedObserveRejected(variant)
                return
            }
            let logs = try onLoop {
                try variant.run({ try Self.observe($0) }, { try Self.observe($0) }, { try Self.observe($0) })
            }
            #expect(logs == [["initial 2"], ["initial 2", "update 0 d[0, 1] i[] m[]"]])
        }

        private static func observe<C: PCCollection>(_ t: PCCase<C>) throws -> [[String]] {
            let log = PCChangeLog()
            let token = t.collection.observe(keyPaths: nil) { log.record($0) }
            _ = settleRunLoop { log.entries.count == 1 }
            let log2 = PCChangeLog()
            let token2 = t.collection.observe(keyPaths: nil) { log2.record($0) }
            _ = settleRunLoop { log2.entries.count == 1 }
            t.realm.beginWrite()
            t.realm.delete(t.collection)
            try t.realm.commitWrite(withoutNotifying: [token])
            _ = settleRunLoop { log2.entries.count == 2 }
            token.invalidate()
            token2.invalidate()
            return [log.entries, log2.entries]
        }

        /// `ListUnmanagedRealmCollectionTests`' override of the observe tests: `observe` on an
        /// unmanaged List throws (Spec N18).
        private static func expectUnmanagedObserveRejected(_ variant: PCVariant) throws {
            try variant.run(
                { _ in Issue.record("Results are never unmanaged") },
                { t in
                    expectRejected(
                        rejection { _ = try t.collection._observe(keyPaths: nil) { _ in } },
                        "Change notifications are only supported on managed collections.")
                },
                { _ in Issue.record("LinkingObjects of this suite are never unmanaged") })
        }

        @Test(
            "Spec N18, C15: observe(on: actor) calls back on the actor: initial 2, then deletions [0, 1]",
            arguments: managed)
        func testObserveOnActor(_ variant: PCVariant) async throws {
            let entries = try await variant.runAsync(
                { try await Self.observeOnActor($0, keyPaths: nil) { realm, collection in realm.delete(collection) } },
                { try await Self.observeOnActor($0, keyPaths: nil) { realm, collection in realm.delete(collection) } },
                { try await Self.observeOnActor($0, keyPaths: nil) { realm, collection in realm.delete(collection) } })
            #expect(entries == ["initial 2", "update 0 d[0, 1] i[] m[]"])
        }

        @Test(
            "Spec N18, N21, C15: observe(keyPaths: [\"stringCol\"], on: actor) reports only the string change",
            arguments: managed)
        func testObserveOnActorWithStringKeyPath(_ variant: PCVariant) async throws {
            let entries = try await variant.runAsync(
                {
                    try await Self.observeOnActor($0, keyPaths: ["stringCol"]) {
                        try Self.changeStringOfFirstAndLinkOfSecond($1)
                    }
                },
                {
                    try await Self.observeOnActor($0, keyPaths: ["stringCol"]) {
                        try Self.changeStringOfFirstAndLinkOfSecond($1)
                    }
                },
                {
                    try await Self.observeOnActor($0, keyPaths: ["stringCol"]) {
                        try Self.changeStringOfFirstAndLinkOfSecond($1)
                    }
                })
            // Realm checks the modifications only ([0]). Clearing the second object's link takes
            // it out of LinkingObjects through that link (Spec V26): a deletion there.
            let update = variant == .linkingObjects ? "update 1 d[1] i[] m[0]" : "update 2 d[] i[] m[0]"
            #expect(entries == ["initial 2", update])
        }

        /// `collection[0].stringCol = "a"; collection[1].linkCol = nil`, in a write the caller opened.
        private static func changeStringOfFirstAndLinkOfSecond<C: PCCollection>(_ collection: C) throws {
            let elements = Array(collection)
            try required(elements.first, "element 0").stringCol = "a"
            try required(elements.dropFirst().first, "element 1").linkCol = nil
        }

        /// Observes the collection on `ObservingActor`, waits for the initial callback, makes
        /// `change` in a write of another thread's realm (the collection resolved there) and
        /// returns what the observer received once the update came. The case's realm is not used
        /// after the observe call: the task may go on on another thread.
        private static func observeOnActor<C: PCCollection>(
            _ t: PCCase<C>, keyPaths: [String]?, _ change: @escaping @Sendable (Realm, C) throws -> Void
        ) async throws -> [String] {
            let log = PCChangeLog()
            let reference = ThreadSafeReference(to: t.collection)
            let configuration = t.configuration
            let token = await t.collection.pcObserve(keyPaths: keyPaths, on: ObservingActor.shared) { _, change in
                log.record(change)
            }
            _ = await waitAsync { log.entries.count >= 1 }
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                let collection = try required(realm.resolve(reference), "the resolved collection")
                try realm.write { try change(realm, collection) }
            }
            _ = await waitAsync { log.entries.count >= 2 }
            token.invalidate()
            return log.entries
        }

        @Test("Spec C15, T5: a collection resolved in an actor's realm and observed there", arguments: managed)
        func testObserveInsideActor(_ variant: PCVariant) async throws {
            let entries = try await variant.runAsync(
                { try await Self.observeInsideActor($0) },
                { try await Self.observeInsideActor($0) },
                { try await Self.observeInsideActor($0) })
            #expect(entries == ["initial 2", "update 0 d[0, 1] i[] m[]"])
        }

        private static func observeInsideActor<C: PCCollection>(_ t: PCCase<C>) async throws -> [String] {
            let log = PCChangeLog()
            let observed = ThreadSafeReference(to: t.collection)
            let deleted = ThreadSafeReference(to: t.collection)
            let configuration = t.configuration
            let token = try await ObservingActor.shared.observe(observed, configuration: configuration, log: log)
            _ = await waitAsync { log.entries.count >= 1 }
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                let collection = try required(realm.resolve(deleted), "the resolved collection")
                try realm.write { realm.delete(collection) }
            }
            _ = await waitAsync { log.entries.count >= 2 }
            token.invalidate()
            return log.entries
        }

        @Test("Spec N23: observe(on: actor) in a cancelled task registers nothing", arguments: managed)
        func testCancelTaskForObservationInit(_ variant: PCVariant) async throws {
            let entries = try await Task { () async throws -> [String] in
                withUnsafeCurrentTask { $0?.cancel() }
                return try await variant.runAsync(
                    { await Self.observeCancelled($0) }, { await Self.observeCancelled($0) },
                    { await Self.observeCancelled($0) })
            }.value
            #expect(entries == ["invalidate false"])
        }

        private static func observeCancelled<C: PCCollection>(_ t: PCCase<C>) async -> [String] {
            let log = PCChangeLog()
            let token = await t.collection.pcObserve(keyPaths: nil, on: ObservingActor.shared) { _, change in
                log.record(change)
            }
            return ["invalidate \(token.invalidate())"] + log.entries
        }

        @Test("Spec N21, N13: keyPaths [\"stringCol\"] hears a string change: modifications [0]", arguments: all)
        func testObserveKeyPath(_ variant: PCVariant) throws {
            try Self.observeRemoteChange(
                variant, keyPaths: ["stringCol"], expecting: ["initial 2", "update 2 d[] i[] m[0]"]
            ) {
                try required($0.objects(PCElement.self).first, "the first object").stringCol = "changed"
            }
        }

        @Test("Spec N21, N11: keyPaths [\"stringCol\"] does not hear a change of the linked object", arguments: all)
        func testObserveKeyPathNoChange(_ variant: PCVariant) throws {
            try Self.observeRemoteChange(variant, keyPaths: ["stringCol"], expecting: ["initial 2"]) {
                try required(try required($0.objects(PCElement.self).first, "the first object").linkCol, "its link")
                    .id = 2
            }
        }

        @Test(
            "Spec N21, N13: keyPaths [\"linkCol.id\"]: the target both link to changes, modifications [0, 1]",
            arguments: all)
        func testObserveKeyPathWithLink(_ variant: PCVariant) throws {
            try Self.observeRemoteChange(
                variant, keyPaths: ["linkCol.id"],
                expecting: ["initial 2", "update 2 d[] i[] m[0, 1]"]
            ) {
                try required(try required($0.objects(PCElement.self).first, "the first object").linkCol, "its link")
                    .id = 2
            }
        }

        @Test("Spec N21, N11: keyPaths [\"linkCol.id\"] does not hear a string change", arguments: all)
        func testObserveKeyPathWithLinkNoChange(_ variant: PCVariant) throws {
            try Self.observeRemoteChange(variant, keyPaths: ["linkCol.id"], expecting: ["initial 2"]) {
                try required($0.objects(PCElement.self).first, "the first object").stringCol = "changed"
            }
        }

        @Test(
            "Spec N21, N11: keyPaths [\"linkCol\"] does not hear a change inside the linked object",
            arguments: all)
        func testObserveKeyPathWithLinkNoChangeList(_ variant: PCVariant) throws {
            try Self.observeRemoteChange(variant, keyPaths: ["linkCol"], expecting: ["initial 2"]) {
                try required(try required($0.objects(PCElement.self).first, "the first object").linkCol, "its link")
                    .id = 2
            }
        }

        /// Realm's key-path observe tests (and `expectNoChange`): observes with `keyPaths` on a
        /// loop thread, waits for the initial callback, commits `change` from another thread,
        /// waits until the observing realm has moved to that commit (its realm observer ran) and
        /// the expected callbacks came, then a little longer, and checks what the observer got.
        /// An unmanaged List rejects the observe (`ListUnmanagedRealmCollectionTests`).
        private static func observeRemoteChange(
            _ variant: PCVariant, keyPaths: [String], expecting: [String],
            sourceLocation: SourceLocation = #_sourceLocation,
            _ change: @escaping @Sendable (Realm) throws -> Void
        ) throws {
            if variant.isUnmanaged {
                try expectUnmanagedObserveRejected(variant)
                return
            }
            let entries = try onLoop {
                try variant.run(
                    { try Self.observeRemoteChange($0, keyPaths: keyPaths, count: expecting.count, change) },
                    { try Self.observeRemoteChange($0, keyPaths: keyPaths, count: expecting.count, change) },
                    { try Self.observeRemoteChange($0, keyPaths: keyPaths, count: expecting.count, change) })
            }
            #expect(entries == expecting, sourceLocation: sourceLocation)
        }

        private static func observeRemoteChange<C: PCCollection>(
            _ t: PCCase<C>, keyPaths: [String], count: Int,
            _ change: @escaping @Sendable (Realm) throws -> Void
        )
            throws -> [String]
        {
            let log = PCChangeLog()
            let token = t.collection.observe(keyPaths: keyPaths) { log.record($0) }
            _ = settleRunLoop { log.entries.count == 1 }
            let moved = PCFlag()
            let realmToken = t.realm.observe { _, _ in moved.raise() }
            let configuration = t.configuration
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                try realm.write { try change(realm) }
            }
            _ = settleRunLoop { moved.isSet && log.entries.count >= count }
            realmToken.invalidate()
            token.invalidate()
            return log.entries + (moved.isSet ? [] : ["the realm never moved"])
        }

        @Test(
            "Spec N18: observe with key paths on an unmanaged List is rejected (testObservePartialKeyPath)",
            arguments: unmanaged)
        func testObservePartialKeyPath(_ variant: PCVariant) throws {
            try Self.expectUnmanagedObserveRejected(variant)
        }

        @Test(
            "Spec N18: observe on an unmanaged List is rejected (testObservePartialKeyPathNoChange)",
            arguments: unmanaged)
        func testObservePartialKeyPathNoChange(_ variant: PCVariant) throws {
            try Self.expectUnmanagedObserveRejected(variant)
        }

        @Test(
            "Spec N18: observe on an unmanaged List is rejected (testObservePartialKeyPathWithLink)",
            arguments: unmanaged)
        func testObservePartialKeyPathWithLink(_ variant: PCVariant) throws {
            try Self.expectUnmanagedObserveRejected(variant)
        }

        @Test(
            "Spec N18: observe on an unmanaged List is rejected (testObservePartialKeyPathWithLinkNoChangeList)",
            arguments: unmanaged)
        func testObservePartialKeyPathWithLinkNoChangeList(_ variant: PCVariant) throws {
            try Self.expectUnmanagedObserveRejected(variant)
        }

        @Test(
            "Spec N18: observe(on: queue) calls back on the queue: initial 2, then deletions [0, 1]",
            arguments: all)
        func testObserveOnQueue(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.observeOnQueue($0) }, { try Self.observeOnQueue($0) }, { try Self.observeOnQueue($0) })
        }

        private static func observeOnQueue<C: PCCollection>(_ t: PCCase<C>) throws {
            let queue = DispatchQueue(label: "RealmParityCollections.testObserveOnQueue")
            if t.variant.isUnmanaged {
                expectRejected(
                    rejection { _ = try t.collection._observe(keyPaths: nil, on: queue) { _ in } },
                    "Change notifications are only supported on managed collections.")
                return
            }
            let log = PCChangeLog()
            let arrived = DispatchSemaphore(value: 0)
            let token = t.collection.observe(keyPaths: nil, on: queue) { change in
                log.record(change)
                arrived.signal()
            }
            _ = arrived.wait(timeout: .now() + hangGuardSeconds)
            try t.realm.write { t.realm.delete(t.collection) }
            _ = arrived.wait(timeout: .now() + hangGuardSeconds)
            token.invalidate()
            queue.sync {}
            #expect(log.entries == ["initial 2", "update 0 d[0, 1] i[] m[]"])
        }

        // MARK: ResultsTests

        @Test(
            "Spec N6, N10: each callback carries the observed Results at the realm's version",
            arguments: results)
        func testNotificationBlockUpdating(_ variant: PCVariant) throws {
            let entries = try onLoop {
                try variant.runResults { t -> [String] in
                    let log = PCChangeLog()
                    let collection = t.collection
                    let token = collection.observe { change in
                        // Realm's `XCTAssertEqual(results, self.collection)`: Strata's Results
                        // have no `==`; the same objects in the same order stand for it.
                        log.record(change) { results in
                            let same =
                                results.count == collection.count
                                && zip(results, collection).allSatisfy { $0.isSameObject(as: $1) }
                            return same ? " same" : " different"
                        }
                    }
                    _ = settleRunLoop { log.entries.count == 1 }
                    try t.addObjectToResults()
                    _ = settleRunLoop { log.entries.count == 2 }
                    token.invalidate()
                    return log.entries
                }
            }
            #expect(entries == ["initial 2 same", "update 3 d[] i[2] m[] same"])
        }

        @Test("Spec N8, N13: one insertion at the end gives insertions [2]", arguments: results)
        func testNotificationBlockChangeIndices(_ variant: PCVariant) throws {
            let entries = try onLoop {
                try variant.runResults { t -> [String] in
                    let log = PCChangeLog()
                    let token = t.collection.observe { log.record($0) }
                    _ = settleRunLoop { log.entries.count == 1 }
                    try t.addObjectToResults()
                    _ = settleRunLoop { log.entries.count == 2 }
                    token.invalidate()
                    return log.entries
                }
            }
            #expect(entries == ["initial 2", "update 3 d[] i[2] m[]"])
        }

        // MARK: invalidation, freezing and thawing

        @Test("Spec V13: invalidating the realm invalidates the collection", arguments: all)
        func testInvalidate(_ variant: PCVariant) throws {
            try variant.run({ Self.invalidate($0) }, { Self.invalidate($0) }, { Self.invalidate($0) })
        }

        private static func invalidate<C: PCCollection>(_ t: PCCase<C>) {
            #expect(!t.collection.isInvalidated)
            t.realm.invalidate()
            #expect(t.collection.realm == nil || t.collection.isInvalidated)
        }

        @Test("Spec F1: a live collection is not frozen; its freeze is", arguments: all)
        func testIsFrozen(_ variant: PCVariant) throws {
            try variant.run({ Self.isFrozen($0) }, { Self.isFrozen($0) }, { Self.isFrozen($0) })
        }

        private static func isFrozen<C: PCCollection>(_ t: PCCase<C>) {
            #expect(!t.collection.isFrozen)
            if t.variant.isUnmanaged { return }  // ListUnmanagedRealmCollectionTests.testIsFrozen
            #expect(t.collection.freeze().isFrozen)
        }

        @Test("Spec F11: an unmanaged List cannot be frozen", arguments: unmanaged)
        func testFreeze(_ variant: PCVariant) throws {
            try variant.run(
                { _ in Issue.record("Results are never unmanaged") },
                { t in
                    expectRejected(
                        rejection { _ = try t.collection._freeze() },
                        "This method may only be called on RLMArray instances retrieved from an RLMRealm")
                },
                { _ in Issue.record("LinkingObjects of this suite are never unmanaged") })
        }

        @Test(
            "Spec F3, F10: a frozen collection's realm takes no write; its thaw is live and changes",
            arguments: managed)
        func testThaw(_ variant: PCVariant) throws {
            try variant.run({ try Self.thaw($0) }, { try Self.thaw($0) }, { try Self.thaw($0) })
        }

        private static func thaw<C: PCCollection>(_ t: PCCase<C>) throws {
            let frozen = t.collection.freeze()
            #expect(frozen.isFrozen)
            let frozenRealm = try #require(frozen.realm)
            expectRejected(rejection { try frozenRealm.write {} }, "Can't perform transactions on a frozen Realm")
            let live = try #require(frozen.thaw())
            #expect(!live.isFrozen)
            let liveRealm = try #require(live.realm)
            try liveRealm.write { liveRealm.delete(live) }
            #expect(live.isEmpty)
            #expect(!frozen.isEmpty)
        }

        @Test(
            "Spec F7, F15: a frozen collection thaws on another thread into that thread's realm",
            arguments: managed)
        func testThawFromDifferentThread(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.thawFromDifferentThread($0) }, { try Self.thawFromDifferentThread($0) },
                { try Self.thawFromDifferentThread($0) })
        }

        private static func thawFromDifferentThread<C: PCCollection>(_ t: PCCase<C>) throws {
            let frozen = Unchecked(t.collection.freeze())
            #expect(frozen.value.isFrozen)
            let outcome = try onOtherThread { () -> [String: Bool] in
                let live = try required(frozen.value.thaw(), "the thawed collection")
                let liveRealm = try required(live.realm, "the thawed collection's realm")
                let wasFrozen = live.isFrozen
                try liveRealm.write { liveRealm.delete(live) }
                return [
                    "live.isFrozen": wasFrozen, "live.isEmpty": live.isEmpty, "frozen.isEmpty": frozen.value.isEmpty,
                ]
            }
            #expect(outcome == ["live.isFrozen": false, "live.isEmpty": true, "frozen.isEmpty": false])
        }

        @Test("Spec F2, F8: a frozen collection keeps its version; its thaw shows the realm's", arguments: managed)
        func testThawPreviousVersion(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.thawPreviousVersion($0) }, { try Self.thawPreviousVersion($0) },
                { try Self.thawPreviousVersion($0) })
        }

        private static func thawPreviousVersion<C: PCCollection>(_ t: PCCase<C>) throws {
            let collection = t.collection
            let frozen = collection.freeze()
            #expect(frozen.isFrozen)
            #expect(collection.count == frozen.count)
            let realm = try #require(collection.realm)
            try realm.write { realm.delete(collection) }
            #expect(frozen.count != collection.count, "Frozen collections should not change")
            let live = try #require(frozen.thaw())
            #expect(
                live.isEmpty, "Thawed collection should reflect transactions since the original reference was frozen")
            #expect(!frozen.isEmpty)
            #expect(live.count == collection.count)
        }

        @Test(
            "Spec F8, T5, V8: collections frozen on another thread thaw at this realm's version until it refreshes",
            arguments: managed)
        func testThawUpdatedOnDifferentThread(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.thawUpdatedOnDifferentThread($0) }, { try Self.thawUpdatedOnDifferentThread($0) },
                { try Self.thawUpdatedOnDifferentThread($0) })
        }

        /// What `testThawUpdatedOnDifferentThread` checks of each collection: its count, its first
        /// element's string, and how many elements hold "1", "2" and "3".
        private static func summary<S: Collection>(
            _ collection: S, where query: ((Query<PCElement>) -> Query<Bool>) -> Results<PCElement>
        )
            -> String where S.Element == PCElement
        {
            let counts = ["1", "2", "3"].map { string in query { $0.stringCol == string }.count }
            return "\(collection.count) \(collection.first.map { $0.stringCol ?? "nil" } ?? "none") \(counts)"
        }

        private static func summary<C: PCCollection>(_ collection: C) -> String {
            summary(collection, where: { collection.where($0) })
        }

        private static func thawUpdatedOnDifferentThread<C: PCCollection>(_ t: PCCase<C>) throws {
            let collection = t.collection
            let reference = ThreadSafeReference(to: collection)
            #expect(collection.count == 2)
            #expect(collection.where { $0.stringCol == "3" }.count == 0)
            let configuration = try #require(collection.realm).configuration
            let made = try onOtherThread { () -> Unchecked<(C, Results<PCElement>)> in
                let realm = try Realm(configuration: configuration)
                let collection = try required(realm.resolve(reference), "the resolved collection")
                try realm.write { try required(collection.first, "the first element").stringCol = "3" }
                try realm.write { realm.delete(try required(collection.last, "the last element")) }
                let query = collection.where { $0.stringCol == "1" }
                return Unchecked((collection.freeze(), query.freeze()))  // a table view, and a query
            }
            let (frozen, frozenQuery) = made.value
            let thawed = try #require(frozen.thaw())
            #expect(summary(frozen) == "1 3 [0, 0, 1]")
            #expect(summary(thawed) == "2 1 [1, 1, 0]")
            #expect(summary(collection) == "2 1 [1, 1, 0]")

            let thawedQuery = try #require(frozenQuery.thaw())
            #expect(summary(frozenQuery) == "0 none [0, 0, 0]")
            #expect(summary(thawedQuery) == "1 1 [1, 0, 0]")

            _ = try #require(collection.realm).refresh()

            #expect(summary(thawed) == "1 3 [0, 0, 1]")
            #expect(summary(thawedQuery) == "0 none [0, 0, 0]")
            #expect(summary(collection) == "1 3 [0, 0, 1]")
        }

        @Test("Spec F9: a frozen element whose object was deleted thaws to nil", arguments: managed)
        func testThawDeletedParent(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.thawDeletedParent($0) }, { try Self.thawDeletedParent($0) },
                { try Self.thawDeletedParent($0) })
        }

        private static func thawDeletedParent<C: PCCollection>(_ t: PCCase<C>) throws {
            let collection = t.collection
            let frozenElement = try #require(collection.first).freeze()
            #expect(frozenElement.isFrozen)
            let realm = try #require(collection.realm)
            try realm.write { realm.delete(collection) }
            #expect(collection.first == nil)
            #expect(frozenElement.thaw() == nil)
        }

        @Test("Spec C7: freeze() from another thread is rejected", arguments: managed)
        func testFreezeFromWrongThread(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.freezeFromWrongThread($0) }, { try Self.freezeFromWrongThread($0) },
                { try Self.freezeFromWrongThread($0) })
        }

        private static func freezeFromWrongThread<C: PCCollection>(_ t: PCCase<C>) throws {
            let collection = Unchecked(t.collection)
            let error = try onOtherThread { rejection { _ = try collection.value._freeze() } }
            expectRejected(error, "Realm accessed from incorrect thread")
        }

        @Test("Spec C10, F15: a frozen collection is read from another thread", arguments: managed)
        func testAccessFrozenCollectionFromDifferentThread(_ variant: PCVariant) throws {
            try variant.run(
                { try Self.accessFrozenFromDifferentThread($0) }, { try Self.accessFrozenFromDifferentThread($0) },
                { try Self.accessFrozenFromDifferentThread($0) })
        }

        private static func accessFrozenFromDifferentThread<C: PCCollection>(_ t: PCCase<C>) throws {
            let frozen = Unchecked(t.collection.freeze())
            let strings = try onOtherThread { [frozen.value[0].stringCol, frozen.value[1].stringCol] }
            #expect(strings == ["1", "2"])
        }

        @Test("Spec F4: observing a frozen collection is rejected", arguments: managed)
        func testObserveFrozenCollection(_ variant: PCVariant) throws {
            try variant.run({ Self.observeFrozen($0) }, { Self.observeFrozen($0) }, { Self.observeFrozen($0) })
        }

        private static func observeFrozen<C: PCCollection>(_ t: PCCase<C>) {
            let frozen = t.collection.freeze()
            expectRejected(
                rejection { _ = try frozen._observe(keyPaths: nil) { _ in } },
                "Frozen Realms do not change and do not have change notifications.")
        }

        @Test("Spec F2, F14: where-queries of a frozen collection are frozen and count", arguments: managed)
        func testQueryFrozenCollection(_ variant: PCVariant) throws {
            try variant.run({ Self.queryFrozen($0) }, { Self.queryFrozen($0) }, { Self.queryFrozen($0) })
        }

        private static func queryFrozen<C: PCCollection>(_ t: PCCase<C>) {
            let frozen = t.collection.freeze()
            #expect(frozen.where { $0.stringCol == "1" }.count == 1)
            #expect(frozen.where { $0.stringCol == "2" }.count == 1)
            #expect(frozen.where { $0.stringCol == "3" }.count == 0)
            #expect(frozen.where { $0.stringCol == "3" }.isFrozen)
        }
    }
}
