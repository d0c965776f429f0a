import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/PrimitiveMapTests.swift, in our words. Realm runs each test once per
// (owner, value type): here the owner is an unmanaged `PDMapObject` or one made in a realm
// inside an open write (Realm's `ManagedObjectFactory`, the write cancelled afterwards), and the
// value types are those Strata stores, plain and optional (`PMValueType`), each with three
// values under the keys "key0" to "key2". Not here: the Decimal128, ObjectId, enum and
// AnyRealmValue value types, and `SortablePrimitiveMapTests.testSorted` (it sorts a map's values
// into Results of values, which Strata does not have: `Docs/limits.md`).

enum PMMapOwner: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case unmanaged = "UnmanagedPrimitiveMapTests"
    case managed = "ManagedPrimitiveMapTests"
    var testDescription: String { rawValue }
}

/// One (owner, value type) case: two owners' maps of that type and its three entries.
struct PMMapCase<V: _RealmValue & SendableMetatype & Equatable> {
    let object: PDMapObject
    let map: Map<String, V>
    let otherMap: Map<String, V>
    let values: [(key: String, value: V)]
}

/// A test body run for every value type.
protocol PMMapCheck {
    func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws
}

enum PMValueType: String, CaseIterable, Sendable {
    case bool, int, int8, int16, int32, int64, float, double, string, data, date, uuid
    case boolOpt, intOpt, int8Opt, int16Opt, int32Opt, int64Opt, floatOpt, doubleOpt, stringOpt, dataOpt, dateOpt
    case uuidOpt
}

private let uuids = ParityPrimitiveValues.uuids
private let dates = ParityPrimitiveValues.dates
private let datas = ParityPrimitiveValues.datas

/// Runs `check` on every value type's maps of two new owners of `kind`.
func pmForEachValueType(_ kind: PMMapOwner, _ check: some PMMapCheck) throws {
    for type in PMValueType.allCases {
        let (first, realm) = try pmOwner(kind)
        defer { realm?.cancelWrite() }
        let second = PDMapObject()
        realm?.add(second)
        func run<V: _RealmValue & SendableMetatype & Equatable>(
            _ keyPath: KeyPath<PDMapObject, Map<String, V>>, _ values: [V]
        ) throws {
            try check.check(
                PMMapCase(
                    object: first, map: first[keyPath: keyPath], otherMap: second[keyPath: keyPath],
                    values: values.enumerated().map { (key: "key\($0.offset)", value: $0.element) }))
        }
        func optional<V>(_ values: [V]) -> [V?] { [nil, values[0], values[1]] }
        switch type {
        case .bool: try run(\.bool, [true, false, true])
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
        case .boolOpt: try run(\.boolOpt, optional([true, false]))
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

/// A new owner of `kind`: unmanaged, or added to a realm in an open write the caller cancels.
func pmOwner(_ kind: PMMapOwner) throws -> (PDMapObject, Realm?) {
    let object = PDMapObject()
    guard kind == .managed else { return (object, nil) }
    let realm = try ParityMapFiles().realmWithTestPath()
    realm.beginWrite()
    realm.add(object)
    return (object, realm)
}

extension PMMapCase {
    /// The map holds exactly `keys` (Realm's tests check with sets of keys: no order promised).
    func expectKeys(_ keys: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(map.count == keys.count, sourceLocation: sourceLocation)
        #expect(map.keys.count == keys.count && map.values.count == keys.count, sourceLocation: sourceLocation)
        #expect(Set(map.keys) == keys, sourceLocation: sourceLocation)
    }

    /// `map[key] == value`, a present nil value included (a map of optionals reads `.some(nil)`).
    func expectValue(_ key: String, _ value: V, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(map[key].map { $0 == value } == true, "map[\(key)]", sourceLocation: sourceLocation)
    }
}

extension RealmParityMaps {
    @Suite struct PrimitiveMapTests {
        @Test(arguments: PMMapOwner.allCases)
        func testInvalidated(_ kind: PMMapOwner) throws {
            struct Check: PMMapCheck {
                func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws {
                    #expect(!c.map.isInvalidated)
                    if let realm = c.object.realm {
                        realm.delete(c.object)
                        #expect(c.map.isInvalidated)
                    }
                }
            }
            try pmForEachValueType(kind, Check())
        }

        @Test(arguments: PMMapOwner.allCases)
        func testEnumeration(_ kind: PMMapOwner) throws {
            struct Check: PMMapCheck {
                func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws {
                    #expect(c.map.count == 0)
                    c.map.merge(c.values) { $1 }
                    var matched = 0
                    for element in c.map where c.values.first(where: { $0.key == element.key })?.value == element.value
                    {
                        matched += 1
                    }
                    #expect(matched == 3)
                }
            }
            try pmForEachValueType(kind, Check())
        }

        @Test(arguments: PMMapOwner.allCases)
        func testValueForKey(_ kind: PMMapOwner) throws {
            struct Check: PMMapCheck {
                func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws {
                    let key = c.values[0].key
                    #expect(c.map.value(forKey: key) == nil)
                    // values[1]: values[0] of an optional type is nil, which removes instead.
                    c.map.setValue(c.values[1].value, forKey: key)
                    let kvc = try #require(c.map.value(forKey: key))
                    #expect(kvc as? V == c.values[1].value || (kvc as? V).map { $0 == c.values[1].value } == true)
                    c.map.setValue(nil, forKey: key)
                    #expect(c.map.value(forKey: key) == nil && c.map.count == 0, "setting nil removes the key")
                }
            }
            try pmForEachValueType(kind, Check())
        }

        @Test(arguments: PMMapOwner.allCases)
        func testInsert(_ kind: PMMapOwner) throws {
            struct Check: PMMapCheck {
                func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws {
                    c.expectKeys([])
                    for (index, entry) in c.values.enumerated() {
                        // values[0] of an optional type is nil: assigned as a value (not as the
                        // subscript's nil), it is stored under its key.
                        c.map[entry.key] = entry.value
                        c.expectKeys(Set(c.values.prefix(index + 1).map(\.key)))
                        c.expectValue(entry.key, entry.value)
                    }
                }
            }
            try pmForEachValueType(kind, Check())
        }

        @Test(arguments: PMMapOwner.allCases)
        func testUpdate(_ kind: PMMapOwner) throws {
            struct Check: PMMapCheck {
                func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws {
                    c.expectKeys([])
                    c.map.updateValue(c.values[0].value, forKey: c.values[0].key)
                    c.expectKeys([c.values[0].key])
                    c.expectValue(c.values[0].key, c.values[0].value)
                    c.map.updateValue(c.values[1].value, forKey: c.values[0].key)
                    c.expectKeys([c.values[0].key])
                    c.expectValue(c.values[0].key, c.values[1].value)
                }
            }
            try pmForEachValueType(kind, Check())
        }

        @Test(arguments: PMMapOwner.allCases)
        func testRemove(_ kind: PMMapOwner) throws {
            struct Check: PMMapCheck {
                func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws {
                    c.expectKeys([])
                    c.map.merge(c.values) { $1 }
                    c.expectKeys(Set(c.values.map(\.key)))
                    c.map.setValue(nil, forKey: c.values[0].key)
                    #expect(c.map.value(forKey: c.values[0].key) == nil)
                    c.expectKeys([c.values[1].key, c.values[2].key])
                    c.map.removeAll()
                    c.expectKeys([])
                    c.map.merge(c.values) { $1 }
                    c.map[c.values[1].key] = nil
                    #expect(c.map[c.values[1].key] == nil)
                    c.map.removeObject(for: c.values[2].key)
                    c.expectKeys([c.values[0].key])
                    c.map.removeObject(for: "absent")
                    c.expectKeys([c.values[0].key])
                }
            }
            try pmForEachValueType(kind, Check())
        }

        @Test(arguments: PMMapOwner.allCases)
        func testSubscript(_ kind: PMMapOwner) throws {
            struct Check: PMMapCheck {
                func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws {
                    c.expectKeys([])
                    c.map.merge(c.values) { $1 }
                    c.expectKeys(Set(c.values.map(\.key)))
                    c.map[c.values[0].key] = c.values[0].value
                    c.map[c.values[1].key] = nil
                    c.map[c.values[2].key] = c.values[2].value
                    c.expectKeys([c.values[0].key, c.values[2].key])
                    c.map.removeAll()
                    #expect(c.map[c.values[2].key] == nil)
                    c.map[c.values[2].key] = c.values[2].value
                    c.expectValue(c.values[2].key, c.values[2].value)
                    #expect(c.otherMap.count == 0, "another owner's map is untouched")
                }
            }
            try pmForEachValueType(kind, Check())
        }

        @Test(arguments: PMMapOwner.allCases)
        func testObjectForKey(_ kind: PMMapOwner) throws {
            struct Check: PMMapCheck {
                func check<V: _RealmValue & SendableMetatype & Equatable>(_ c: PMMapCase<V>) throws {
                    c.map[c.values[1].key] = c.values[1].value
                    let object = try #require(c.map.object(forKey: c.values[1].key as AnyObject))
                    #expect((object as? V).map { $0 == c.values[1].value } == true)
                    #expect(c.map.object(forKey: 1 as AnyObject) == nil, "a key that is no string")
                }
            }
            try pmForEachValueType(kind, Check())
        }

        @Test(
            "MinMaxPrimitiveMapTests: min() and max() of none are nil, else the extremes of the values",
            arguments: PMMapOwner.allCases)
        func testMinMax(_ kind: PMMapOwner) throws {
            let (object, realm) = try pmOwner(kind)
            defer { realm?.cancelWrite() }
            #expect(object.int.min() == nil && object.int.max() == nil)
            object.int.merge(["a": 3, "b": 1, "c": 2]) { $1 }
            object.int.merge(["a": 3, "b": 1, "c": 2]) { $1 }
            #expect(object.int.min() == 1 && object.int.max() == 3)
            object.int8.merge(["a": 3, "b": -1]) { $1 }
            #expect(object.int8.min() == -1 && object.int8.max() == 3)
            object.float.merge(["a": 3.5, "b": 1.25]) { $1 }
            #expect(object.float.min() == 1.25 && object.float.max() == 3.5)
            object.double.merge(["a": 3.5, "b": 1.125, "c": 1.125]) { $1 }
            #expect(object.double.min() == 1.125 && object.double.max() == 3.5, "a value under two keys")
            object.date.merge(["a": dates[2], "b": dates[0], "c": dates[1]]) { $1 }
            #expect(object.date.min() == dates[0] && object.date.max() == dates[2])
            object.intOpt.merge(["a": nil, "b": 5, "c": 4]) { $1 }
            #expect(object.intOpt.min() == .some(4) && object.intOpt.max() == .some(5))
            object.dateOpt.updateValue(nil, forKey: "a")
            #expect(object.dateOpt.min() == nil, "only a nil: no minimum")
        }

        @Test(
            "AddablePrimitiveMapTests: sum() of none is zero, average() nil; nil values neither add nor count",
            arguments: PMMapOwner.allCases)
        func testSumAverage(_ kind: PMMapOwner) throws {
            let (object, realm) = try pmOwner(kind)
            defer { realm?.cancelWrite() }
            #expect(object.int.sum() == 0)
            #expect(object.int.average() as Double? == nil)
            object.int.merge(["a": 1, "b": 2, "c": 4, "d": 4]) { $1 }
            #expect(object.int.sum() == 11, "a value under two keys counts twice")
            #expect(object.int.average() as Double? == 11.0 / 4.0)
            object.double.merge(["a": 1.5, "b": 2.5]) { $1 }
            #expect(object.double.sum() == 4)
            #expect(object.double.average() as Double? == 2)
            object.int32Opt.merge(["a": nil, "b": 2, "c": nil, "d": 6]) { $1 }
            #expect(object.int32Opt.sum() == .some(8))
            #expect(object.int32Opt.average() as Double? == 4)
        }
    }
}
