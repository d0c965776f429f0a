import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/PrimitiveMutableSetTests.swift, in our words. Realm runs each test
// once per (owner, value type): here the owner is an unmanaged `PSMutableSetObject` or one made
// in a realm inside an open write (Realm's `ManagedObjectFactory`), and the value types are
// those Strata stores, plain and optional (`PSValueType`). Each value type has three values in
// set order. Not here: testValueForKey (key-value coding on collections), the Decimal128,
// ObjectId and enum value types, and `SortablePrimitiveMutableSetTests.testSorted` (it sorts a
// set of values into Results of values, which Strata does not have: `Docs/limits.md`).

enum PSSetOwner: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case unmanaged = "UnmanagedPrimitiveMutableSetTests"
    case managed = "ManagedPrimitiveMutableSetTests"
    var testDescription: String { rawValue }
}

/// One (owner, value type) case: two owners' sets of that type and its three values.
struct PSSetPair<V: RealmCollectionValue & Hashable> {
    let object: PSMutableSetObject
    let mutableSet: MutableSet<V>
    let otherMutableSet: MutableSet<V>
    let values: [V]
}

/// A test body run for every value type.
protocol PSSetCheck {
    func check<V: RealmCollectionValue & Hashable>(_ pair: PSSetPair<V>) throws
}

enum PSValueType: String, CaseIterable, Sendable {
    case int, int8, int16, int32, int64, float, double, string, data, date, uuid
    case intOpt, int8Opt, int16Opt, int32Opt, int64Opt, floatOpt, doubleOpt, stringOpt, dataOpt, dateOpt, uuidOpt
}

private let uuids = ParityPrimitiveValues.uuids
private let dates = ParityPrimitiveValues.dates
private let datas = ParityPrimitiveValues.datas

/// Runs `check` on every value type's sets of two new owners of `kind`; a managed case runs in
/// a write, cancelled afterwards (Realm's `tearDown`).
func psForEachValueType(_ kind: PSSetOwner, _ check: some PSSetCheck) throws {
    for type in PSValueType.allCases {
        let first = PSMutableSetObject()
        let second = PSMutableSetObject()
        var realm: Realm?
        if kind == .managed {
            let opened = try ParitySetFiles().realmWithTestPath()
            opened.beginWrite()
            opened.add(first)
            opened.add(second)
            realm = opened
        }
        defer { realm?.cancelWrite() }
        func run<V: RealmCollectionValue & Hashable>(
            _ keyPath: KeyPath<PSMutableSetObject, MutableSet<V>>, _ values: [V]
        ) throws {
            try check.check(
                PSSetPair(
                    object: first, mutableSet: first[keyPath: keyPath], otherMutableSet: second[keyPath: keyPath],
                    values: values))
        }
        func optional<V>(_ values: [V]) -> [V?] { [nil, values[0], values[1]] }
        switch type {
        case .int: try run(\.int, [1, 2, 3])
        case .int8: try run(\.int8, [1, 2, 3])
        case .int16: try run(\.int16, [1, 2, 3])
        case .int32: try run(\.int32, [1, 2, 3])
        case .int64: try run(\.int64, [1, 2, 3])
        case .float: try run(\.float, [1.1, 2.2, 3.3])
        case .double: try run(\.double, [1.1, 2.2, 3.3])
        case .string: try run(\.string, ["a", "b", "c"])
        case .data: try run(\.data, datas)
        case .date: try run(\.date, dates)
        case .uuid: try run(\.uuid, uuids)
        case .intOpt: try run(\.intOpt, optional([1, 2, 3]))
        case .int8Opt: try run(\.int8Opt, optional([1, 2, 3]))
        case .int16Opt: try run(\.int16Opt, optional([1, 2, 3]))
        case .int32Opt: try run(\.int32Opt, optional([1, 2, 3]))
        case .int64Opt: try run(\.int64Opt, optional([1, 2, 3]))
        case .floatOpt: try run(\.floatOpt, optional([1.1, 2.2, 3.3]))
        case .doubleOpt: try run(\.doubleOpt, optional([1.1, 2.2, 3.3]))
        case .stringOpt: try run(\.stringOpt, optional(["a", "b", "c"]))
        case .dataOpt: try run(\.dataOpt, optional(datas))
        case .dateOpt: try run(\.dateOpt, optional(dates))
        case .uuidOpt: try run(\.uuidOpt, optional(uuids))
        }
    }
}

extension RealmParitySets {
    @Suite struct PrimitiveMutableSetTests {
        @Test(arguments: PSSetOwner.allCases)
        func testInvalidated(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    #expect(!c.mutableSet.isInvalidated)
                    if let realm = c.object.realm {
                        realm.delete(c.object)
                        #expect(c.mutableSet.isInvalidated)
                    }
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testInsert(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    let set = c.mutableSet
                    #expect(set.count == 0)
                    set.insert(c.values[0])
                    #expect(set.count == 1)
                    #expect(set.contains(c.values[0]))
                    set.insert(c.values[1])
                    #expect(set.count == 2)
                    #expect(set.contains(c.values[0]) && set.contains(c.values[1]))
                    set.insert(c.values[2])
                    #expect(set.count == 3)
                    set.insert(c.values[2])
                    #expect(set.count == 3, "a duplicate is not inserted")
                    #expect(set.contains(c.values[0]) && set.contains(c.values[1]) && set.contains(c.values[2]))
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testRemove(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.removeAll()
                    #expect(c.mutableSet.count == 0)
                    c.mutableSet.insert(objectsIn: c.values)
                    c.mutableSet.remove(c.values[0])
                    #expect(!c.mutableSet.contains(c.values[0]))
                    #expect(c.mutableSet.contains(c.values[1]))
                    #expect(c.mutableSet.contains(c.values[2]))
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testRemoveAll(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.removeAll()
                    c.mutableSet.insert(objectsIn: c.values)
                    c.mutableSet.removeAll()
                    #expect(c.mutableSet.count == 0)
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testIsSubset(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.insert(objectsIn: c.values)
                    c.otherMutableSet.insert(c.values[0])
                    #expect(c.otherMutableSet.isSubset(of: c.mutableSet))
                    c.otherMutableSet.remove(c.values[0])
                    #expect(!c.mutableSet.isSubset(of: c.otherMutableSet))
                    #expect(c.otherMutableSet.isSubset(of: c.mutableSet), "the empty set is a subset")
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testContains(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.insert(objectsIn: c.values)
                    #expect(c.mutableSet.count == c.values.count)
                    for value in c.values { #expect(c.mutableSet.contains(value)) }
                    #expect(!c.otherMutableSet.contains(c.values[0]))
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testIntersects(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.insert(objectsIn: c.values)
                    c.otherMutableSet.insert(c.values[0])
                    #expect(c.otherMutableSet.intersects(c.mutableSet))
                    c.otherMutableSet.remove(c.values[0])
                    #expect(!c.mutableSet.intersects(c.otherMutableSet))
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testFormIntersection(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.insert(objectsIn: c.values)
                    c.otherMutableSet.insert(c.values[0])
                    c.mutableSet.formIntersection(c.otherMutableSet)
                    #expect(Array(c.mutableSet) == [c.values[0]])
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testFormUnion(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.insert(c.values[0])
                    c.mutableSet.insert(c.values[1])
                    c.otherMutableSet.insert(c.values[0])
                    c.otherMutableSet.insert(c.values[2])
                    c.mutableSet.formUnion(c.otherMutableSet)
                    #expect(c.mutableSet.count == 3)
                    #expect(Set(c.mutableSet) == Set(c.values))
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testSubtract(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.insert(c.values[0])
                    c.mutableSet.insert(c.values[1])
                    c.otherMutableSet.insert(c.values[0])
                    c.otherMutableSet.insert(c.values[2])
                    c.mutableSet.subtract(c.otherMutableSet)
                    #expect(c.mutableSet.count == 1)
                    #expect(!c.mutableSet.contains(c.values[0]))
                    #expect(c.mutableSet.contains(c.values[1]))
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(arguments: PSSetOwner.allCases)
        func testSubscript(_ kind: PSSetOwner) throws {
            struct Check: PSSetCheck {
                func check<V: RealmCollectionValue & Hashable>(_ c: PSSetPair<V>) throws {
                    c.mutableSet.insert(objectsIn: c.values)
                    for index in 0..<3 { #expect(c.values.contains(c.mutableSet[index])) }
                }
            }
            try psForEachValueType(kind, Check())
        }

        @Test(
            "MinMaxPrimitiveMutableSetTests: min() and max() of none are nil, else the extremes",
            arguments: PSSetOwner.allCases)
        func testMinMax(_ kind: PSSetOwner) throws {
            let object = PSMutableSetObject()
            let realm = kind == .managed ? try ParitySetFiles().realmWithTestPath() : nil
            realm?.beginWrite()
            realm?.add(object)
            defer { realm?.cancelWrite() }
            #expect(object.int.min() == nil && object.int.max() == nil)
            object.int.insert(objectsIn: [3, 1, 2, 3])
            #expect(object.int.min() == 1 && object.int.max() == 3)
            object.int8.insert(objectsIn: [3, -1, 2])
            #expect(object.int8.min() == -1 && object.int8.max() == 3)
            object.float.insert(objectsIn: [3.5, 1.25, 2])
            #expect(object.float.min() == 1.25 && object.float.max() == 3.5)
            object.double.insert(objectsIn: [3.5, 1.125, 2])
            #expect(object.double.min() == 1.125 && object.double.max() == 3.5)
            object.date.insert(objectsIn: dates.reversed())
            #expect(object.date.min() == dates[0] && object.date.max() == dates[2])
            object.intOpt.insert(objectsIn: [nil, 5, nil, 4])
            #expect(object.intOpt.min() == .some(4) && object.intOpt.max() == .some(5))
            object.dateOpt.insert(nil)
            #expect(object.dateOpt.min() == nil, "only a nil: no minimum")
        }

        @Test(
            "AddablePrimitiveMutableSetTests: sum() of none is zero, average() nil; duplicates count once",
            arguments: PSSetOwner.allCases)
        func testSumAverage(_ kind: PSSetOwner) throws {
            let object = PSMutableSetObject()
            let realm = kind == .managed ? try ParitySetFiles().realmWithTestPath() : nil
            realm?.beginWrite()
            realm?.add(object)
            defer { realm?.cancelWrite() }
            #expect(object.int.sum() == 0)
            #expect(object.int.average() as Double? == nil)
            object.int.insert(objectsIn: [1, 2, 4, 4])
            #expect(object.int.sum() == 7)
            #expect(object.int.average() as Double? == 7.0 / 3.0)
            object.float.insert(objectsIn: [1.5, 2.5])
            #expect(object.float.sum() == 4)
            #expect(object.float.average() as Float? == 2)
            object.int32Opt.insert(objectsIn: [nil, 2, nil, 6])
            #expect(object.int32Opt.sum() == .some(8))
            #expect(object.int32Opt.average() as Double? == 4, "nil neither adds nor counts")
        }
    }
}
