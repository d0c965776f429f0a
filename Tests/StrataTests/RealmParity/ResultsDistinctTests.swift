import Foundation
import Strata
import Testing

// Realm's `ResultsDistinctTests` (RealmSwift/Tests/RealmCollectionTypeTests.swift), in our
// words, on the `PC` fixtures: four aggregate objects, three of them with a child. Realm's
// `value(forKey: "self")` comparisons are left out (key-value coding on collections is not
// built); each distinct's elements are compared by their values instead.

extension RealmParityCollections {
    @Suite struct ResultsDistinctTests {
        /// The four objects of the tests: (intCol, trueCol, child's intCol or none).
        private static func realmWithObjects() throws -> Realm {
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: temporaryDirectory().appendingPathComponent("distinct.realm"),
                    objectTypes: parityCollectionTypes))
            try realm.write {
                for (int, flag, child) in [(1, true, 1), (1, true, 1), (1, false, 2), (2, false, nil)]
                    as [(Int, Bool, Int?)]
                {
                    let object = PCAggregateObject()
                    object.intCol = int
                    object.trueCol = flag
                    if let child {
                        let childObject = PCIntegerObject()
                        childObject.intCol = child
                        object.childIntCol = childObject
                    }
                    realm.add(object)
                }
            }
            return realm
        }

        private static func message(_ body: () throws(Realm.Error) -> Void) -> String? {
            do throws(Realm.Error) {
                try body()
                return nil
            } catch { return error.message }
        }

        @Test("Spec V22: distinct(by:) with string key paths, one, two, and through a link")
        func testDistinctResultsUsingKeyPaths() throws {
            let realm = try Self.realmWithObjects()
            let collection = realm.objects(PCAggregateObject.self)
            #expect(collection.distinct(by: ["intCol"]).map(\.intCol) == [1, 2])
            let two = collection.distinct(by: ["intCol", "trueCol"])
            #expect(two.map { [$0.intCol, $0.trueCol ? 1 : 0] } == [[1, 1], [1, 0], [2, 0]])
            // The object whose child link is null has no value there: it is left out.
            let linked = collection.distinct(by: ["childIntCol.intCol"])
            #expect(linked.map { $0.childIntCol?.intCol } == [1, 2])

            #expect(
                Self.message { () throws(Realm.Error) in _ = try collection._distinct(by: ["childCol"]) }
                    == "Cannot sort on key path 'childCol': property 'PCAggregateObject.childCol' does not exist.")
            #expect(
                Self.message { () throws(Realm.Error) in _ = try collection._distinct(by: ["@sum.intCol"]) }
                    == "Cannot distinct on keypath '@sum.intCol': KVC collection operators are not supported.")
            #expect(
                Self.message { () throws(Realm.Error) in _ = try collection._distinct(by: ["stringListCol"]) }
                    == "Cannot sort on key path 'stringListCol': property 'PCAggregateObject.stringListCol' is of unsupported type 'array'."
            )
        }

        @Test("Spec V22: distinct(by:) with Swift key paths, one, two, and through an optional link")
        func testDistinctResultsUsingSwiftKeyPaths() throws {
            let realm = try Self.realmWithObjects()
            let collection = realm.objects(PCAggregateObject.self)
            #expect(collection.distinct(by: [\PCAggregateObject.intCol]).map(\.intCol) == [1, 2])
            let two = collection.distinct(by: [\PCAggregateObject.intCol, \PCAggregateObject.trueCol])
            #expect(two.map { [$0.intCol, $0.trueCol ? 1 : 0] } == [[1, 1], [1, 0], [2, 0]])
            let linked = collection.distinct(by: [\PCAggregateObject.childIntCol?.intCol])
            #expect(linked.map { $0.childIntCol?.intCol } == [1, 2])
        }
    }
}
