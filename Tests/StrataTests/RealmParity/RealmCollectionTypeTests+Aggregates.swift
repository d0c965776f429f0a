import Foundation
import Strata
import Testing

// Realm's RealmCollectionTypeTests.testMin, testMax, testSum, testAverage and their
// `BySwiftKeyPath` forms, in our words, for every subclass: the collection holds the three
// aggregateable objects of `makeAggregateableObjectsInWriteTransaction()` (ints 1, 2, 3;
// floats 1.1, 2.2, 2.2; doubles 1.11, 2.22, 2.22; dates 1 s, 2 s, 2 s). Realm's List variants
// all aggregate an unmanaged owner's List of those (managed) objects, as here.

/// What the aggregate tests ask of their collection: the members `Results` and `List` of
/// objects both have, with RealmSwift's signatures.
protocol PCAggregating {
    func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType
    func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType
    func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType
    func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType
    func min<T: _HasPersistedType>(of keyPath: KeyPath<PCAggregateObject, T>) -> T? where T.PersistedType: MinMaxType
    func max<T: _HasPersistedType>(of keyPath: KeyPath<PCAggregateObject, T>) -> T? where T.PersistedType: MinMaxType
    func sum<T: _HasPersistedType>(of keyPath: KeyPath<PCAggregateObject, T>) -> T where T.PersistedType: AddableType
    func average<T: _HasPersistedType>(of keyPath: KeyPath<PCAggregateObject, T>) -> T?
    where T.PersistedType: AddableType
    /// The throwing form of `min(ofProperty:)` as NSNumber (the public one traps).
    func pcThrowingMin(ofProperty property: String) -> Realm.Error?
}

extension Results<PCAggregateObject>: PCAggregating {
    func pcThrowingMin(ofProperty property: String) -> Realm.Error? {
        do throws(Realm.Error) {
            let _: NSNumber? = try _aggregate(.min, property)
            return nil
        } catch { return error }
    }
}

extension LinkingObjects<PCAggregateObject>: PCAggregating {
    func pcThrowingMin(ofProperty property: String) -> Realm.Error? {
        do throws(Realm.Error) {
            let _: NSNumber? = try _aggregate(.min, property)
            return nil
        } catch { return error }
    }
}

extension List<PCAggregateObject>: PCAggregating {
    func pcThrowingMin(ofProperty property: String) -> Realm.Error? {
        do throws(Realm.Error) {
            let _: NSNumber? = try _aggregate(.min, property)
            return nil
        } catch { return error }
    }
}

extension PCCase {
    /// Realm's `getAggregateableCollection()`: the Results variants' own, and for the List
    /// variants an unmanaged `PCAggregateObjectList` holding the three objects.
    func aggregateableCollection(as variant: PCVariant) throws -> any PCAggregating {
        if variant.isResults { return try aggregateableResults() }
        if variant == .linkingObjects {
            // LinkingObjectsCollectionTypeTests.getAggregateableCollectionInWrite: the objects
            // link to a new target; its LinkingObjects through `linkCol`.
            return try realm.write { () -> LinkingObjects<PCAggregateObject> in
                let target = realm.create(PCLinkTarget.self, value: [0])
                for object in makeAggregateableObjectsInWriteTransaction() { object.linkCol = target }
                return target.aggregateObjects
            }
        }
        return try realm.write { () -> List<PCAggregateObject> in
            let owner = PCAggregateObjectList()
            owner.list.append(objectsIn: makeAggregateableObjectsInWriteTransaction())
            return owner.list
        }
    }
}

extension RealmParityCollections.RealmCollectionTypeTests {
    private static func aggregateable(_ variant: PCVariant) throws -> any PCAggregating {
        // The Results variants' case makes their collection; a List variant's is made in a
        // case of Results from the table, which it does not read.
        let t = try PCCase<Results<PCNullableStringObjectWithLink>>(variant.isResults ? variant : .resultsFromTable)
        return try t.aggregateableCollection(as: variant)
    }

    @Test(
        "min(ofProperty:) of each numeric and date column, as the column's type and as NSNumber",
        arguments: PCVariant.allCases)
    func testMin(_ variant: PCVariant) throws {
        let collection = try Self.aggregateable(variant)
        #expect(collection.min(ofProperty: "intCol") as NSNumber? == 1)
        #expect(collection.min(ofProperty: "intCol") as Int? == 1)
        #expect(collection.min(ofProperty: "int8Col") as Int8? == 1)
        #expect(collection.min(ofProperty: "int16Col") as Int16? == 1)
        #expect(collection.min(ofProperty: "int32Col") as Int32? == 1)
        #expect(collection.min(ofProperty: "int64Col") as Int64? == 1)
        #expect(collection.min(ofProperty: "floatCol") as Float? == 1.1)
        #expect(collection.min(ofProperty: "floatCol") as NSNumber? == (1.1 as Float) as NSNumber)
        #expect(collection.min(ofProperty: "doubleCol") as Double? == 1.11)
        #expect(collection.min(ofProperty: "doubleCol") as NSNumber? == 1.11)
        #expect(collection.min(ofProperty: "dateCol") as Date? == Date(timeIntervalSince1970: 1))
        #expect(collection.min(ofProperty: "dateCol") as NSDate? == NSDate(timeIntervalSince1970: 1))
        let missing = try #require(collection.pcThrowingMin(ofProperty: "noSuchCol"))
        #expect(missing.message.contains("Invalid property name"), "\(missing)")
        // ArrayPropertyTests.testMin: "min.*bool".
        let bool = try #require(collection.pcThrowingMin(ofProperty: "boolCol"))
        #expect(bool.message == "Operation 'min' not supported for bool property 'PCAggregateObject.boolCol'")
    }

    @Test("min(of:) with Swift key paths", arguments: PCVariant.allCases)
    func testMinBySwiftKeyPath(_ variant: PCVariant) throws {
        let collection = try Self.aggregateable(variant)
        #expect(collection.min(of: \.intCol) == 1)
        #expect(collection.min(of: \.int64Col) == 1)
        #expect(collection.min(of: \.floatCol) == 1.1)
        #expect(collection.min(of: \.doubleCol) == 1.11)
        #expect(collection.min(of: \.dateCol) == Date(timeIntervalSince1970: 1))
    }

    @Test("max(ofProperty:) of each numeric and date column", arguments: PCVariant.allCases)
    func testMax(_ variant: PCVariant) throws {
        let collection = try Self.aggregateable(variant)
        #expect(collection.max(ofProperty: "intCol") as NSNumber? == 3)
        #expect(collection.max(ofProperty: "intCol") as Int? == 3)
        #expect(collection.max(ofProperty: "int8Col") as Int8? == 3)
        #expect(collection.max(ofProperty: "int16Col") as Int16? == 3)
        #expect(collection.max(ofProperty: "int32Col") as Int32? == 3)
        #expect(collection.max(ofProperty: "int64Col") as Int64? == 3)
        #expect(collection.max(ofProperty: "floatCol") as Float? == 2.2)
        #expect(collection.max(ofProperty: "doubleCol") as Double? == 2.22)
        #expect(collection.max(ofProperty: "dateCol") as Date? == Date(timeIntervalSince1970: 2))
        #expect(collection.max(ofProperty: "dateCol") as NSDate? == NSDate(timeIntervalSince1970: 2))
    }

    @Test("max(of:) with Swift key paths", arguments: PCVariant.allCases)
    func testMaxBySwiftKeyPath(_ variant: PCVariant) throws {
        let collection = try Self.aggregateable(variant)
        #expect(collection.max(of: \.intCol) == 3)
        #expect(collection.max(of: \.int8Col) == 3)
        #expect(collection.max(of: \.floatCol) == 2.2)
        #expect(collection.max(of: \.doubleCol) == 2.22)
        #expect(collection.max(of: \.dateCol) == Date(timeIntervalSince1970: 2))
    }

    @Test("sum(ofProperty:) of each numeric column", arguments: PCVariant.allCases)
    func testSum(_ variant: PCVariant) throws {
        let collection = try Self.aggregateable(variant)
        #expect(collection.sum(ofProperty: "intCol") as NSNumber == 6)
        #expect(collection.sum(ofProperty: "intCol") as Int == 6)
        #expect(collection.sum(ofProperty: "int8Col") as Int8 == 6)
        #expect(collection.sum(ofProperty: "int16Col") as Int16 == 6)
        #expect(collection.sum(ofProperty: "int32Col") as Int32 == 6)
        #expect(collection.sum(ofProperty: "int64Col") as Int64 == 6)
        #expect(abs((collection.sum(ofProperty: "floatCol") as Float) - 5.5) < 0.001)
        #expect(abs((collection.sum(ofProperty: "floatCol") as NSNumber).floatValue - 5.5) < 0.001)
        #expect(abs((collection.sum(ofProperty: "doubleCol") as Double) - 5.55) < 0.001)
    }

    @Test("sum(of:) with Swift key paths", arguments: PCVariant.allCases)
    func testSumBySwiftKeyPath(_ variant: PCVariant) throws {
        let collection = try Self.aggregateable(variant)
        #expect(collection.sum(of: \.intCol) == 6)
        #expect(collection.sum(of: \.int16Col) == 6)
        #expect(abs(collection.sum(of: \.floatCol) - 5.5) < 0.001)
        #expect(abs(collection.sum(of: \.doubleCol) - 5.55) < 0.001)
    }

    @Test("average(ofProperty:) of each numeric column", arguments: PCVariant.allCases)
    func testAverage(_ variant: PCVariant) throws {
        let collection = try Self.aggregateable(variant)
        #expect(collection.average(ofProperty: "intCol") == 2)
        #expect(collection.average(ofProperty: "int8Col") as Int8? == 2)
        #expect(collection.average(ofProperty: "int64Col") as Double? == 2)
        #expect(abs(try #require(collection.average(ofProperty: "floatCol") as Float?) - 1.8333) < 0.001)
        #expect(abs(try #require(collection.average(ofProperty: "doubleCol") as Double?) - 1.85) < 0.001)
    }

    @Test("average(of:) with Swift key paths", arguments: PCVariant.allCases)
    func testAverageBySwiftKeyPath(_ variant: PCVariant) throws {
        let collection = try Self.aggregateable(variant)
        #expect(collection.average(of: \.intCol) == 2)
        #expect(collection.average(of: \.int32Col) == 2)
        #expect(abs(try #require(collection.average(of: \.floatCol)) - 1.8333) < 0.001)
        #expect(abs(try #require(collection.average(of: \.doubleCol)) - 1.85) < 0.001)
    }
}
