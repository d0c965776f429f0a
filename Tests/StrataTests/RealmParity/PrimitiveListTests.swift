import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/PrimitiveListTests.swift, in our words, for its aggregates:
// `MinMaxPrimitiveListTests.testMin` / `testMax` and `AddablePrimitiveListTests.testSum` /
// `testAverage`. Realm runs each once per (owner, value type); here the owner is an unmanaged
// `PLListObject` or one added to a realm, and the value types are those Strata stores that
// Realm aggregates (the integers, Float, Double, Date, and their optionals, whose nils are
// skipped). Not here: the tests of these suites that are not aggregates, Decimal128,
// AnyRealmValue and MutableSet/Map forms.

/// The owners of Realm's PrimitiveListTests: `unmanaged` and `managed` (added to a realm, the
/// test inside a write as Realm's `setUp` leaves it).
enum PPListOwner: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case unmanaged, managed
    var testDescription: String { rawValue }
}

/// An owner of `kind`, and the realm (in a write) when managed.
private func owner(_ kind: PPListOwner) throws -> (PLListObject, Realm?) {
    let object = PLListObject()
    guard kind == .managed else { return (object, nil) }
    let realm = try ParityListFiles().realmWithTestPath()
    realm.beginWrite()
    realm.add(object)
    return (object, realm)
}

extension RealmParityCollections {
    @Suite struct PrimitiveListTests {
        @Test("min() of an empty List is nil; of values, the smallest (nils skipped)", arguments: PPListOwner.allCases)
        func testMin(_ kind: PPListOwner) throws {
            let (object, realm) = try owner(kind)
            defer { realm?.cancelWrite() }
            #expect(object.int.min() == nil)
            object.int.append(objectsIn: [3, 1, 2])
            #expect(object.int.min() == 1)
            object.int8.append(objectsIn: [3, -1, 2])
            #expect(object.int8.min() == -1)
            object.float.append(objectsIn: [3.5, 1.25, 2])
            #expect(object.float.min() == 1.25)
            object.double.append(objectsIn: [3.5, 1.125, 2])
            #expect(object.double.min() == 1.125)
            object.date.append(objectsIn: [Date(timeIntervalSince1970: 3), Date(timeIntervalSince1970: 1)])
            #expect(object.date.min() == Date(timeIntervalSince1970: 1))
            #expect(object.intOpt.min() == nil)
            object.intOpt.append(objectsIn: [nil, 5, nil, 4])
            #expect(object.intOpt.min() == .some(4))
            object.dateOpt.append(nil)
            #expect(object.dateOpt.min() == nil, "only nils: no minimum")
        }

        @Test("max() of an empty List is nil; of values, the largest (nils skipped)", arguments: PPListOwner.allCases)
        func testMax(_ kind: PPListOwner) throws {
            let (object, realm) = try owner(kind)
            defer { realm?.cancelWrite() }
            #expect(object.int64.max() == nil)
            object.int64.append(objectsIn: [3, 1, 2])
            #expect(object.int64.max() == 3)
            object.float.append(objectsIn: [-3.5, -1.25])
            #expect(object.float.max() == -1.25)
            object.doubleOpt.append(objectsIn: [nil, -2.5, nil])
            #expect(object.doubleOpt.max() == .some(-2.5))
            object.date.append(objectsIn: [Date(timeIntervalSince1970: 3), Date(timeIntervalSince1970: 1)])
            #expect(object.date.max() == Date(timeIntervalSince1970: 3))
        }

        @Test("sum() of an empty List is zero; of values, their sum (nils skipped)", arguments: PPListOwner.allCases)
        func testSum(_ kind: PPListOwner) throws {
            let (object, realm) = try owner(kind)
            defer { realm?.cancelWrite() }
            #expect(object.int.sum() == 0)
            object.int.append(objectsIn: [3, 1, 2])
            #expect(object.int.sum() == 6)
            object.int16.append(objectsIn: [300, -100])
            #expect(object.int16.sum() == 200)
            object.float.append(objectsIn: [1.5, 2.25])
            #expect(object.float.sum() == 3.75)
            object.double.append(objectsIn: [1.5, 2.25, 0.25])
            #expect(object.double.sum() == 4)
            object.intOpt.append(objectsIn: [nil, 5, 7])
            #expect(object.intOpt.sum() == .some(12))
        }

        @Test(
            "average() of an empty List is nil; of values, sum over count of non-nil values",
            arguments: PPListOwner.allCases)
        func testAverage(_ kind: PPListOwner) throws {
            let (object, realm) = try owner(kind)
            defer { realm?.cancelWrite() }
            #expect(object.int.average() as Double? == nil)
            object.int.append(objectsIn: [1, 2, 4])
            #expect(object.int.average() as Double? == 7.0 / 3.0)
            #expect(object.int.average() as Int16? == 2, "as an Int16, truncated as NSNumber.int16Value truncates")
            object.float.append(objectsIn: [1.5, 2.5])
            #expect(object.float.average() as Float? == 2)
            object.int32Opt.append(objectsIn: [nil, 2, nil, 6])
            #expect(object.int32Opt.average() as Double? == 4, "nils neither add nor count")
            object.doubleOpt.append(nil)
            #expect(object.doubleOpt.average() as Double? == nil, "only nils: no average")
        }
    }
}
