import Foundation
import Strata
import Testing

// Realm's QueryTests (Realm/Tests/QueryTests.m and RealmSwift/Tests/QueryTests.swift) for the
// predicate format (Spec V23), in our words, on our own fixtures: what each form finds and the
// message of each refusal. The counts are the ones Realm's tests assert for the same data.

final class PQTarget: Object {
    @Persisted var name: String? = ""
    @Persisted var count = 0
    @Persisted var next: PQTarget?
}

final class PQObject: Object {
    @Persisted var intCol = 0
    @Persisted var optIntCol: Int?
    @Persisted var floatCol = 0 as Float
    @Persisted var doubleCol = 0.0
    @Persisted var boolCol = false
    @Persisted var stringCol = ""
    @Persisted var optStringCol: String?
    @Persisted var dateCol = Date(timeIntervalSince1970: 0)
    @Persisted var dataCol = Data()
    @Persisted var uuidCol = UUID(uuidString: "00000000-0000-0000-0000-000000000000") ?? UUID()
    @Persisted var otherInt = 0
    @Persisted var link: PQTarget?
    @Persisted var list: List<PQTarget>
}

/// Realm's IntObject and StringObject, as collection elements.
final class PQIntObject: Object {
    @Persisted var intCol = 0
}

final class PQStringObject: Object {
    @Persisted var stringCol = ""
}

/// Realm's ArrayPropertyObject, SetPropertyObject, DictionaryPropertyObject and
/// IntegerArrayPropertyObject in one class: collections of objects and of values, and a number
/// to compare collection operators with.
final class PQCollections: Object {
    @Persisted var name = ""
    @Persisted var number = 0
    @Persisted var array: List<PQStringObject>
    @Persisted var intArray: List<PQIntObject>
    @Persisted var intSet: MutableSet<PQIntObject>
    @Persisted var intDictionary: Map<String, PQIntObject?>
    @Persisted var ints: List<Int>
    @Persisted var strings: List<String>
    @Persisted var dates: List<Date>
    @Persisted var circles: List<PQTarget>
}

private let predicateTypes: [Object.Type] = [
    PQObject.self, PQTarget.self, PQIntObject.self, PQStringObject.self, PQCollections.self,
]

@Suite struct QueryTests {
    private static func realm(_ name: String) throws -> Realm {
        try Realm(
            configuration: Realm.Configuration(
                fileURL: temporaryDirectory().appendingPathComponent("\(name).realm"), objectTypes: predicateTypes))
    }

    /// A realm holding one object per string of `strings`, each with `intCol` its position.
    private static func realm(strings: [String?]) throws -> Realm {
        let realm = try realm("strings")
        try realm.write {
            for (index, string) in strings.enumerated() {
                let object = PQObject()
                object.intCol = index
                object.stringCol = string ?? ""
                object.optStringCol = string
                realm.add(object)
            }
        }
        return realm
    }

    private static func count(_ realm: Realm, _ format: String, _ args: Any...) throws -> Int {
        try realm.objects(PQObject.self)._filter(format, arguments: args)._count()
    }

    private static func refusal(_ realm: Realm, _ format: String, _ args: Any...) -> String? {
        do throws(Realm.Error) {
            _ = try realm.objects(PQObject.self)._filter(format, arguments: args)
            return nil
        } catch { return error.message }
    }

    /// Objects with intCol 0...9, doubleCol intCol / 2, otherInt 9 - intCol, boolCol for evens,
    /// dateCol intCol seconds after 1970, optIntCol nil for multiples of three.
    private static func numbers() throws -> Realm {
        let realm = try realm("numbers")
        try realm.write {
            for value in 0..<10 {
                let object = PQObject()
                object.intCol = value
                object.optIntCol = value % 3 == 0 ? nil : value
                object.floatCol = Float(value)
                object.doubleCol = Double(value) / 2
                object.boolCol = value % 2 == 0
                object.stringCol = "s\(value)"
                object.dateCol = Date(timeIntervalSince1970: Double(value))
                object.otherInt = 9 - value
                for _ in 0..<(value % 4) { object.list.append(PQTarget()) }
                realm.add(object)
            }
        }
        return realm
    }

    @Test("Spec V23: comparisons find what the typed query finds, a constant on either side")
    func testBasicQuery() throws {
        let realm = try Self.numbers()
        #expect(try Self.count(realm, "intCol > 5") == 4)
        #expect(try Self.count(realm, "intCol >= 5") == 5)
        #expect(try Self.count(realm, "intCol < 5") == 5)
        #expect(try Self.count(realm, "intCol <= 5") == 6)
        #expect(try Self.count(realm, "intCol == 5") == 1)
        #expect(try Self.count(realm, "intCol = 5") == 1)
        #expect(try Self.count(realm, "intCol != 5") == 9)
        #expect(try Self.count(realm, "intCol <> 5") == 9)
        #expect(try Self.count(realm, "intCol =< 5") == 6)
        #expect(try Self.count(realm, "intCol => 5") == 5)
        // `3 < intCol` is `intCol > 3`, as NSPredicate mirrors it.
        #expect(try Self.count(realm, "3 < intCol") == 6)
        #expect(try Self.count(realm, "3 >= intCol") == 4)
        #expect(try Self.count(realm, "-1 < intCol") == 10)
        let typed = realm.objects(PQObject.self).where { $0.intCol > 3 && $0.intCol != 7 }.map(\.intCol)
        #expect(realm.objects(PQObject.self).filter("intCol > 3 AND intCol != 7").map(\.intCol) == typed)
        #expect(try Self.count(realm, "doubleCol > 2.2") == 5)
        #expect(try Self.count(realm, "floatCol > 1") == 8)
        #expect(try Self.count(realm, "doubleCol == 1") == 1)
        #expect(try Self.count(realm, "boolCol == YES") == 5)
        #expect(try Self.count(realm, "boolCol == false") == 5)
        #expect(try Self.count(realm, "boolCol <> TRUE") == 5)
        #expect(try Self.count(realm, "boolCol == 1") == 5)
        #expect(try Self.count(realm, "stringCol == 's3'") == 1)
        #expect(try Self.count(realm, "stringCol == \"s3\"") == 1)
    }

    @Test("Spec V23: AND, OR, NOT, &&, ||, !, parentheses and TRUEPREDICATE / FALSEPREDICATE")
    func testPredicateValidUse() throws {
        let realm = try Self.numbers()
        #expect(try Self.count(realm, "intCol > 2 AND intCol < 6") == 3)
        #expect(try Self.count(realm, "intCol > 2 and intCol < 6") == 3)
        #expect(try Self.count(realm, "intCol < 2 OR intCol > 8") == 3)
        #expect(try Self.count(realm, "intCol < 2 || intCol > 8") == 3)
        #expect(try Self.count(realm, "NOT intCol < 2") == 8)
        #expect(try Self.count(realm, "!(intCol < 2 || intCol > 8)") == 7)
        // AND binds tighter than OR.
        #expect(try Self.count(realm, "intCol == 1 OR intCol == 2 AND boolCol == true") == 2)
        #expect(try Self.count(realm, "(intCol == 1 OR intCol == 2) AND boolCol == true") == 1)
        #expect(try Self.count(realm, "TRUEPREDICATE") == 10)
        #expect(try Self.count(realm, "FALSEPREDICATE") == 0)
        #expect(try Self.count(realm, "(NOT ((intCol == %@) || (intCol == %@)) && (boolCol == %@))", 2, 3, true) == 4)
    }

    @Test("Spec V23: %@, %K, %d and %f bind the arguments in order; nil and NSNull are null")
    func testFilterWithAnyVarags() throws {
        let realm = try Self.numbers()
        #expect(try Self.count(realm, "intCol > %@", 5) == 4)
        #expect(try Self.count(realm, "%K > %@", "intCol", 5) == 4)
        #expect(try Self.count(realm, "%K == %K", "intCol", "otherInt") == 0)
        #expect(try Self.count(realm, "intCol = %d", Int8(4)) == 1)
        #expect(try Self.count(realm, "doubleCol < %f", 1.0) == 2)
        #expect(try Self.count(realm, "optIntCol == %@", nil as Int? as Any) == 4)
        #expect(try Self.count(realm, "optIntCol == %@", NSNull()) == 4)
        #expect(try Self.count(realm, "optIntCol != nil") == 6)
        #expect(try Self.count(realm, "optIntCol == NULL") == 4)
        #expect(try Self.count(realm, "dateCol < %@", Date(timeIntervalSince1970: 3)) == 3)
        // Inside quotes a specifier is text.
        #expect(try Self.count(realm, "stringCol BEGINSWITH '%@'") == 0)
        #expect(Self.refusal(realm, "intCol > %@")?.contains("too few arguments") == true)
    }

    @Test("Spec V23: the format's lexical forms: quotes, escapes, hex, exponents, #names, length modifiers")
    func testPredicateLexicalForms() throws {
        let realm = try Self.realm(strings: ["it's", "a\"b", "tab\there"])
        #expect(try Self.count(realm, "stringCol == 'it\\'s'") == 1)
        #expect(try Self.count(realm, "stringCol == \"a\\\"b\"") == 1)
        #expect(try Self.count(realm, "stringCol == 'tab\\there'") == 1)
        #expect(try Self.count(realm, "intCol == 0x2") == 1)
        #expect(try Self.count(realm, "doubleCol < 1.5e1") == 3)
        #expect(Self.refusal(realm, "intCol < 2e0")?.contains("Cannot compare value '2.0'") == true)
        #expect(try Self.count(realm, "#intCol == %lld", Int64(1)) == 1)
        #expect(try Self.count(realm, "intCol == %ld", 2) == 1)
        #expect(try Self.count(realm, "   intCol\n>=\t1   ") == 2)
        #expect(Self.refusal(realm, "intCol == %x", 1)?.contains("unknown format specifier at offset 10") == true)
        #expect(Self.refusal(realm, "intCol == 1 ^ 2")?.contains("unexpected character '^' at offset 12") == true)
        #expect(Self.refusal(realm, "SELF == 1")?.hasPrefix("Unsupported predicate: comparing objects") == true)
        #expect(
            Self.refusal(realm, "link == %@", PQTarget())?.hasPrefix("Unsupported predicate: comparing link") == true)
    }

    @Test("Spec V23: BETWEEN takes two bounds, inclusive, of the property's type")
    func testQueryBetween() throws {
        let realm = try Self.numbers()
        #expect(try Self.count(realm, "intCol BETWEEN {2, 3}") == 2)
        #expect(try Self.count(realm, "intCol BETWEEN %@", [0, 5]) == 6)
        #expect(try Self.count(realm, "doubleCol BETWEEN {1.0, 2.0}") == 3)
        #expect(try Self.count(realm, "floatCol BETWEEN {2, 4}") == 3)
        #expect(
            try Self.count(
                realm, "dateCol BETWEEN %@", [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2)])
                == 2)
        #expect(Self.refusal(realm, "intCol BETWEEN 25")?.contains("type NSArray for BETWEEN") == true)
        #expect(Self.refusal(realm, "intCol BETWEEN %@", [1])?.contains("exactly two objects") == true)
        #expect(Self.refusal(realm, "intCol BETWEEN %@", [1, 2, 3])?.contains("exactly two objects") == true)
        #expect(Self.refusal(realm, "intCol BETWEEN %@", [1.5, 2.5])?.contains("type int for BETWEEN") == true)
        #expect(Self.refusal(realm, "intCol BETWEEN {'a', 'b'}")?.contains("type int for BETWEEN") == true)
        #expect(
            Self.refusal(realm, "boolCol BETWEEN {true, false}")
                == "Invalid operator type: Operator 'BETWEEN' not supported for type 'bool'")
        #expect(
            Self.refusal(realm, "stringCol BETWEEN {'a', 'b'}")
                == "Invalid operator type: Operator 'BETWEEN' not supported for type 'string'")
        #expect(Self.refusal(realm, "intCol BETWEEN {intCol, 0}")?.contains("must be constant values") == true)
    }

    @Test("Spec V23: IN takes a list or an array argument; IN[c] folds case")
    func testQueryIn() throws {
        let realm = try Self.numbers()
        #expect(try Self.count(realm, "intCol IN {1, 3, 11}") == 2)
        #expect(try Self.count(realm, "intCol IN %@", [1, 2]) == 2)
        #expect(try Self.count(realm, "intCol IN %@", Set([4])) == 1)
        #expect(try Self.count(realm, "intCol IN {}") == 0)
        #expect(try Self.count(realm, "NOT intCol IN %@", [1, 2]) == 8)
        #expect(try Self.count(realm, "boolCol IN {NO, YES}") == 10)
        #expect(try Self.count(realm, "stringCol IN[c] {'S1', 'x'}") == 1)
        #expect(try Self.count(realm, "optIntCol IN {NULL, 1}") == 5)
        #expect(Self.refusal(realm, "intCol IN 3") == "Invalid value: IN clause requires an array of items")
        #expect(
            Self.refusal(realm, "intCol IN {'xyz'}")
                == "Invalid value: Cannot compare value 'xyz' of type 'NSString' to property 'intCol' of type 'int'")
    }

    @Test("Spec V23: BEGINSWITH, ENDSWITH, CONTAINS with [c] and [d]; empty or NULL finds nothing")
    func testStringBeginsWith() throws {
        let realm = try Self.realm(strings: ["üvw", "ûvw", "uvw", "abc", "", nil])
        #expect(try Self.count(realm, "optStringCol BEGINSWITH 'u'") == 1)
        #expect(try Self.count(realm, "optStringCol BEGINSWITH[d] 'u'") == 3)
        #expect(try Self.count(realm, "optStringCol BEGINSWITH[d] 'ü'") == 3)
        #expect(try Self.count(realm, "optStringCol BEGINSWITH[c] 'Ü'") == 1)
        #expect(try Self.count(realm, "optStringCol BEGINSWITH[cd] 'U'") == 3)
        #expect(try Self.count(realm, "optStringCol ENDSWITH 'vw'") == 3)
        #expect(try Self.count(realm, "optStringCol ENDSWITH[c] 'BC'") == 1)
        #expect(try Self.count(realm, "optStringCol CONTAINS 'v'") == 3)
        #expect(try Self.count(realm, "optStringCol CONTAINS[c] 'B'") == 1)
        for test in ["BEGINSWITH", "ENDSWITH", "CONTAINS"] {
            for modifier in ["", "[c]", "[d]", "[cd]"] {
                #expect(try Self.count(realm, "optStringCol \(test)\(modifier) ''") == 0)
                #expect(try Self.count(realm, "optStringCol \(test)\(modifier) NULL") == 0)
            }
        }
        #expect(
            Self.refusal(realm, "intCol BEGINSWITH %@", 1)
                == "Invalid operator type: Operator 'BEGINSWITH' not supported for type 'int'")
        #expect(
            Self.refusal(realm, "'Realm' CONTAINS stringCol")
                == "Unsupported predicate: Operator 'CONTAINS' requires a keypath on the left side.")
        #expect(
            Self.refusal(realm, "stringCol MATCHES 'abc'")
                == "Invalid operator type: Operator 'MATCHES' not supported for type 'string'")
    }

    @Test("Spec V23: ==[c], ==[d], !=[cd] fold; plain == compares bytes")
    func testStringEquality() throws {
        let realm = try Self.realm(strings: ["tüv", "tûv", "tuv", "TUV", nil])
        #expect(try Self.count(realm, "optStringCol == 'tuv'") == 1)
        #expect(try Self.count(realm, "optStringCol ==[c] 'tuv'") == 2)
        #expect(try Self.count(realm, "optStringCol ==[d] 'tuv'") == 3)
        #expect(try Self.count(realm, "optStringCol ==[cd] 'TUV'") == 4)
        #expect(try Self.count(realm, "optStringCol !=[d] 'tuv'") == 2)
        #expect(try Self.count(realm, "optStringCol != 'tuv'") == 4)
        #expect(try Self.count(realm, "optStringCol == nil") == 1)
    }

    @Test("Spec V23: LIKE: * any run, ? one character, the whole string; LIKE[d] refused")
    func testStringLike() throws {
        let realm = try Self.realm(strings: ["abc", "Foó", "", nil])
        #expect(try Self.count(realm, "optStringCol LIKE 'a*bc'") == 1)
        #expect(try Self.count(realm, "optStringCol LIKE '*abc*'") == 1)
        #expect(try Self.count(realm, "optStringCol LIKE 'a??'") == 1)
        #expect(try Self.count(realm, "optStringCol LIKE '?abc'") == 0)
        #expect(try Self.count(realm, "optStringCol LIKE 'f*'") == 0)
        #expect(try Self.count(realm, "optStringCol LIKE[c] 'f*'") == 1)
        #expect(try Self.count(realm, "optStringCol LIKE[c] 'f?ó'") == 1)
        #expect(try Self.count(realm, "optStringCol LIKE[c] 'f??ó'") == 0)
        #expect(try Self.count(realm, "optStringCol LIKE[c] '?O?'") == 1)
        #expect(try Self.count(realm, "optStringCol LIKE '*'") == 3)
        #expect(try Self.count(realm, "optStringCol LIKE NULL") == 1)
        #expect(try Self.count(realm, "NOT optStringCol LIKE NULL") == 3)
        #expect(
            Self.refusal(realm, "optStringCol LIKE[d] '*'")
                == "Invalid operator type: Operator 'LIKE' not supported with diacritic-insensitive modifier.")
        let typed = realm.objects(PQObject.self).where { $0.stringCol.like("F?*", caseInsensitive: false) }
        #expect(typed.map(\.intCol) == [1])
    }

    @Test("Spec V23: strings order by code point when compared case-sensitively; [c] with < is refused")
    func testStringOrdering() throws {
        let realm = try Self.realm(strings: ["Foó"])
        #expect(try Self.count(realm, "stringCol > 'Foo'") == 1)
        #expect(try Self.count(realm, "stringCol < 'f*'") == 1)
        #expect(try Self.count(realm, "stringCol > 'Foò'") == 1)
        #expect(try Self.count(realm, "stringCol < 'Foô'") == 1)
        #expect(
            Self.refusal(realm, "stringCol <[c] 'name'")
                == "Invalid predicate: Lexicographical comparisons must be case-sensitive")
    }

    @Test("Spec V23: nil: == finds nulls, < and > nothing, <= and >= the nulls; a non-optional refuses it")
    func testPrimitiveOperatorsOnAllNullablePropertyTypes() throws {
        let realm = try Self.numbers()
        #expect(try Self.count(realm, "optIntCol < nil") == 0)
        #expect(try Self.count(realm, "optIntCol > nil") == 0)
        #expect(try Self.count(realm, "optIntCol <= nil") == 4)
        #expect(try Self.count(realm, "optIntCol >= nil") == 4)
        #expect(try Self.count(realm, "link == nil") == 10)
        #expect(try Self.count(realm, "link != nil") == 0)
        #expect(
            Self.refusal(realm, "boolCol == NULL")
                == "Invalid value: Cannot compare value '(null)' of type '(null)' to property 'boolCol' of type 'bool'")
        #expect(
            Self.refusal(realm, "nil = nil")
                == "Invalid predicate expressions: Predicate expressions must compare a keypath and another keypath "
                + "or a constant value")
    }

    @Test("Spec V23: two properties compare with each other when their types match")
    func testTwoColumnComparison() throws {
        let realm = try Self.numbers()
        #expect(try Self.count(realm, "intCol == otherInt") == 0)
        #expect(try Self.count(realm, "intCol < otherInt") == 5)
        #expect(try Self.count(realm, "intCol >= otherInt") == 5)
        #expect(try Self.count(realm, "intCol != otherInt") == 10)
        #expect(Self.refusal(realm, "intCol == floatCol") == "Property type mismatch between int and float")
    }

    @Test("Spec V23: list.@count against a number, either side")
    func testCountOnArrayCollection() throws {
        let realm = try Self.numbers()
        // intCol % 4 elements: 0,1,2,3,0,1,2,3,0,1.
        #expect(try Self.count(realm, "list.@count == 0") == 3)
        #expect(try Self.count(realm, "list.@count > 1") == 4)
        #expect(try Self.count(realm, "0 < list.@count") == 7)
        #expect(try Self.count(realm, "3 == list.@count") == 2)
        #expect(
            Self.refusal(realm, "list.@count != 'Hello'")
                == "Invalid operand: @count can only be compared with a numeric value.")
        #expect(
            Self.refusal(realm, "list.@count == list.@count")
                == "Unsupported predicate: Key paths including aggregate operations cannot be compared with other "
                + "aggregate operations.")
        #expect(
            Self.refusal(realm, "list.@count.name > 0")
                == "Invalid predicate: Invalid keypath 'list.@count.name': @count must appear at the end of a keypath.")
    }

    @Test("Spec V23: refusals use RLMQueryUtil's words; a format that does not parse names the offset")
    func testPredicateMisuse() throws {
        let realm = try Self.numbers()
        for format in ["", "intCol", "sdlfjasdflj", "intCol * 25", "intCol === 25", ",", "()", "intCol CONATINS 0"] {
            let message = Self.refusal(realm, format)
            #expect(message?.hasPrefix("Unable to parse the format string \"\(format)\"") == true, "\(format)")
            #expect(message?.contains("at offset") == true, "\(format)")
        }
        #expect(Self.refusal(realm, "intCol >")?.hasSuffix("at offset 8") == true)
        #expect(Self.refusal(realm, "intCol == 'abc")?.contains("unterminated string at offset 10") == true)
        #expect(try Self.count(realm, "intCol == 1", 2) == 1, "unused arguments are ignored, as NSPredicate does")
        #expect(
            Self.refusal(realm, "height > 72")
                == "Invalid property name: Property 'height' not found in object of type 'PQObject'")
        #expect(
            Self.refusal(realm, "intCol != xyz")
                == "Invalid predicate: Invalid keypath 'xyz': Property 'xyz' not found in object of type 'PQObject'")
        #expect(
            Self.refusal(realm, "intCol.intCol == 25")
                == "Invalid predicate: Invalid keypath 'intCol.intCol': Property 'PQObject.intCol' is not a link or "
                + "collection and can only appear at the end of a keypath.")
        #expect(
            Self.refusal(realm, "list.@average.name == 5")
                == "Invalid predicate: Invalid keypath 'list.@average.name': Unsupported collection operation '@average'"
        )
        #expect(
            Self.refusal(realm, "@count == 0")
                == "Invalid predicate: Invalid keypath '@count': collection operation '@count' must be applied to a "
                + "collection")
        #expect(Self.refusal(realm, "ALL intCol > 5") == "Invalid predicate: ALL modifier not supported")
        #expect(
            Self.refusal(realm, "ANY intCol > 5")?.contains("can only be used on key paths that include an") == true)
        #expect(
            Self.refusal(realm, "list == nil")
                == "Invalid predicate: Key paths that include a collection property must use aggregate operations")
        #expect(
            Self.refusal(realm, "stringCol == 3")
                == "Invalid value: Cannot compare value '3' of type '__NSCFNumber' to property 'stringCol' of type "
                + "'string'")
        #expect(
            Self.refusal(realm, "intCol == 1.5")
                == "Invalid value: Cannot compare value '1.5' of type '__NSCFNumber' to property 'intCol' of type 'int'"
        )
        #expect(Self.refusal(realm, "boolCol == 2")?.contains("to property 'boolCol' of type 'bool'") == true)
        #expect(Self.refusal(realm, "dateCol == 7")?.contains("to property 'dateCol' of type 'date'") == true)
        #expect(Self.refusal(realm, "floatCol = 3.5e+38")?.contains("of type 'float'") == true)
        #expect(
            Self.refusal(realm, "boolCol >= TRUE")
                == "Invalid operator type: Operator '>=' not supported for type 'bool'")
        #expect(
            Self.refusal(realm, "uuidCol > %@", UUID())
                == "Invalid operator type: Operator '>' not supported for type 'uuid'")
        #expect(
            Self.refusal(realm, "list.name == 'a'")
                == "Invalid predicate: Key paths that include a collection property must use aggregate operations")
        // Realm reads these; Strata's queries cannot state them yet (Spec/differences.md).
        #expect(try Self.count(realm, "SUBQUERY(list, $x, $x.name == 'a').@count > 0") == 0)
        #expect(Self.refusal(realm, "stringCol ==[c] optStringCol")?.hasPrefix("Unsupported predicate:") == true)
        #expect(try Self.count(realm, "SELF.intCol < 2") == 2)
        #expect(Self.refusal(realm, "floatCol < %@", Double.infinity)?.contains("of type 'float'") == true)
    }

    /// Objects whose link reaches targets "a" (count 1, next "c"), "b" (count 2), a target
    /// whose name is null (count 3), and none.
    private static func links() throws -> Realm {
        let realm = try realm("links")
        try realm.write {
            let next = PQTarget()
            next.name = "c"
            for (index, name) in (["a", "b", nil, "none"] as [String?]).enumerated() {
                let object = PQObject()
                object.intCol = index
                if name != "none" {
                    let target = PQTarget()
                    target.name = name
                    target.count = index + 1
                    if index == 0 { target.next = next }
                    object.link = target
                }
                realm.add(object)
            }
        }
        return realm
    }

    @Test("Spec V23: a key path through a to-one link compares the object it reaches; a null link reads as nulls")
    func testLinkQueryString() throws {
        let realm = try Self.links()
        func found(_ format: String, _ args: Any...) throws -> [Int] {
            try realm.objects(PQObject.self)._filter(format, arguments: args).map(\.intCol)
        }
        #expect(try found("link.name == 'a'") == [0])
        #expect(try found("link.name != 'a'") == [1, 2, 3])
        #expect(try found("link.name == nil") == [2, 3])
        #expect(try found("link.name != nil") == [0, 1])
        #expect(try found("link.name BEGINSWITH 'b'") == [1])
        #expect(try found("link.name IN {'a', 'b'}") == [0, 1])
        #expect(try found("link.name IN {NULL}") == [2, 3])
        #expect(try found("NOT link.name == 'a'") == [1, 2, 3])
        #expect(try found("link.name LIKE NULL") == [2, 3])
        #expect(try found("%K.%K ==[c] %@", "link", "name", "B") == [1])
        #expect(try found("link == nil") == [3])
        // The typed query follows the link the same way.
        let objects = realm.objects(PQObject.self)
        #expect(objects.where { $0.link.name == "a" }.map(\.intCol) == [0])
        #expect(objects.where { $0.link.name != "a" }.map(\.intCol) == [1, 2, 3])
        #expect(objects.where { $0.link.name == nil }.map(\.intCol) == [2, 3])
        #expect(objects.where { $0.link.name.starts(with: "B", options: .caseInsensitive) }.map(\.intCol) == [1])
        #expect(objects.where { $0.link.count > 1 && $0.intCol < 2 }.map(\.intCol) == [1])
        #expect(objects.where { $0.link.next.name == "c" }.map(\.intCol) == [0])
        #expect(objects.where { $0.link.count.in([1, 3]) }.map(\.intCol) == [0, 2])
    }

    @Test("Spec V23: numbers through a link; a null link matches no ordering")
    func testLinkQueryInt() throws {
        let realm = try Self.links()
        func found(_ format: String) throws -> [Int] {
            try realm.objects(PQObject.self)._filter(format, arguments: []).map(\.intCol)
        }
        #expect(try found("link.count > 1") == [1, 2])
        #expect(try found("1 < link.count") == [1, 2])
        #expect(try found("link.count BETWEEN {1, 2}") == [0, 1])
        #expect(try found("link.count != 1") == [1, 2, 3])
        #expect(try found("link.count == 1 OR intCol == 3") == [0, 3])
        // Live: the Results follow a change to the object the link reaches.
        let results = realm.objects(PQObject.self).filter("link.name == 'z'")
        #expect(results.isEmpty)
        try realm.write { realm.objects(PQObject.self).first?.link?.name = "z" }
        #expect(results.map(\.intCol) == [0])
    }

    @Test("Spec V23: key paths through several links; each step checked in the class it reaches")
    func testMultiLevelLinkQuery() throws {
        let realm = try Self.links()
        func found(_ format: String) throws -> [Int] {
            try realm.objects(PQObject.self)._filter(format, arguments: []).map(\.intCol)
        }
        #expect(try found("link.next.name == 'c'") == [0])
        #expect(try found("link.next.name == nil") == [1, 2, 3])
        #expect(try found("link.next == nil") == [1, 2, 3])
        #expect(
            Self.refusal(realm, "link.nope == 1")
                == "Invalid predicate: Invalid keypath 'link.nope': Property 'nope' not found in object of type "
                + "'PQTarget'")
        #expect(
            Self.refusal(realm, "link.count.name == 1")
                == "Invalid predicate: Invalid keypath 'link.count.name': Property 'PQTarget.count' is not a link or "
                + "collection and can only appear at the end of a keypath.")
        #expect(
            Self.refusal(realm, "link.@count == 1")
                == "Invalid predicate: Invalid keypath 'link.@count': collection operation '@count' must be applied "
                + "to a collection")
        #expect(Self.refusal(realm, "link.count == intCol")?.hasPrefix("Unsupported predicate:") == true)
        #expect(
            Self.refusal(realm, "link.name == 3")
                == "Invalid value: Cannot compare value '3' of type '__NSCFNumber' to property 'name' of type 'string'")
    }

    @Test("Spec V23: data and UUID constants; a UUID string is a UUID")
    func testUuidRealmQuery() throws {
        let realm = try Self.realm("data")
        let uuid = UUID()
        try realm.write {
            let object = PQObject()
            object.dataCol = Data([1, 2, 3])
            object.uuidCol = uuid
            realm.add(object)
            realm.add(PQObject())
        }
        #expect(try Self.count(realm, "dataCol == %@", Data([1, 2, 3])) == 1)
        #expect(try Self.count(realm, "dataCol > %@", Data([1, 2, 3])) == 0)
        #expect(try Self.count(realm, "uuidCol == %@", uuid) == 1)
        #expect(try Self.count(realm, "uuidCol == %@", uuid.uuidString) == 1)
        #expect(try Self.count(realm, "uuidCol != %@", uuid) == 1)
    }
}

extension RealmParityCollections {
    /// RealmCollectionTypeTests' members taking a predicate format, for Results and a List.
    @Suite struct PredicateFormatCollectionTests {
        private static func list() throws -> (Realm, PCAggregateObjectList) { try aggregateList("format.realm") }

        @Test("RealmCollectionTypeTests.testFilterFormat: a List's filter keeps list order; Results chain filters")
        func testFilterFormat() throws {
            let (realm, owner) = try Self.list()
            #expect(owner.list.filter("intCol == 1").count == 2)
            #expect(owner.list.filter("intCol > %@", 1).map(\.intCol) == [3, 2])
            let results = realm.objects(PCAggregateObject.self).filter("intCol >= 1").filter("intCol < %d", 3)
            #expect(results.map(\.intCol).sorted() == [1, 1, 2])
            #expect(results.sorted(byKeyPath: "intCol").map(\.intCol) == [1, 1, 2])
        }

        @Test("RealmCollectionTypeTests.testIndexOfFormat: the first match's index, by format or by query")
        func testIndexOfFormat() throws {
            let (realm, owner) = try Self.list()
            #expect(owner.list.index(matching: "intCol == 2") == 2)
            #expect(owner.list.index(matching: "intCol == 1") == 1)
            #expect(owner.list.index(matching: "intCol == %@", 9) == nil)
            #expect(owner.list.index(matching: { $0.intCol == 2 }) == 2)
            let sorted = realm.objects(PCAggregateObject.self).sorted(byKeyPath: "intCol", ascending: false)
            #expect(sorted.index(matching: "intCol == 2") == 1)
            #expect(sorted.index(matching: { $0.intCol < 2 }) == 2)
            #expect(sorted.index(matching: "intCol > 5") == nil)
        }

        @Test("RealmCollectionTypeTests.testObjectsAtIndexes: the objects at an IndexSet, in index order")
        func testObjectsAtIndexes() throws {
            let (realm, owner) = try Self.list()
            #expect(owner.list.objects(at: IndexSet([0, 2])).map(\.intCol) == [3, 2])
            let sorted = realm.objects(PCAggregateObject.self).sorted(byKeyPath: "intCol")
            #expect(sorted.objects(at: IndexSet([1, 3])).map(\.intCol) == [1, 3])
            #expect(sorted.objects(at: IndexSet()).isEmpty)
        }
    }

    /// Realm's QueryTests of queries through collections (Realm/Tests/QueryTests.m): ANY and NONE
    /// over Lists, sets and Maps of objects, and the collection operators, with Realm's counts for
    /// the same data (Spec V23).
    @Suite struct CollectionQueryTests {
        private static func realm() throws -> Realm {
            try Realm(
                configuration: Realm.Configuration(
                    fileURL: temporaryDirectory().appendingPathComponent("collections.realm"),
                    objectTypes: predicateTypes))
        }

        private static func count(_ realm: Realm, _ format: String, _ args: Any...) throws -> Int {
            try realm.objects(PQCollections.self)._filter(format, arguments: args)._count()
        }

        private static func refusal(_ realm: Realm, _ format: String) -> String? {
            do throws(Realm.Error) {
                _ = try realm.objects(PQCollections.self)._filter(format, arguments: [])
                return nil
            } catch { return error.message }
        }

        /// One owner whose collections hold `count` objects: strings "0"..., ints 0...
        private static func addOwner(_ realm: Realm, objects count: Int) throws {
            try realm.write {
                let owner = realm.create(PQCollections.self)
                for index in 0..<count {
                    owner.array.append(realm.create(PQStringObject.self, value: ["stringCol": "\(index)"]))
                    let int = realm.create(PQIntObject.self, value: ["intCol": index])
                    owner.intArray.append(int)
                    owner.intSet.insert(int)
                    owner.intDictionary["\(index)"] = int
                }
            }
        }

        @Test("QueryTests.testLinkQueryManyArray, testLinkQueryManySet, testLinkQueryManyDictionaries: ANY and NONE")
        func testLinkQueryMany() throws {
            let realm = try Self.realm()
            try Self.addOwner(realm, objects: 10)
            for collection in ["intArray", "intSet", "intDictionary"] {
                #expect(try Self.count(realm, "ANY \(collection).intCol > 10") == 0, "\(collection)")
                #expect(try Self.count(realm, "ANY \(collection).intCol > 5") == 1, "\(collection)")
                #expect(try Self.count(realm, "NONE \(collection).intCol == 5") == 0, "\(collection)")
                #expect(try Self.count(realm, "NONE \(collection).intCol > 10") == 1, "\(collection)")
            }
            #expect(try Self.count(realm, "ANY array.stringCol = '1'") == 1)
            try Self.addOwner(realm, objects: 4)
            for collection in ["intArray", "intSet", "intDictionary"] {
                #expect(try Self.count(realm, "ANY \(collection).intCol > 10") == 0, "\(collection)")
                #expect(try Self.count(realm, "ANY \(collection).intCol > 5") == 1, "\(collection)")
                #expect(try Self.count(realm, "ANY \(collection).intCol > 2") == 2, "\(collection)")
                #expect(try Self.count(realm, "NONE \(collection).intCol == 5") == 1, "\(collection)")
                #expect(try Self.count(realm, "NONE \(collection).intCol > 10") == 2, "\(collection)")
                #expect(try Self.count(realm, "SOME \(collection).intCol == %@", 3) == 2, "\(collection)")
            }
            // An owner with empty collections meets no ANY and every NONE.
            try realm.write { _ = realm.create(PQCollections.self) }
            #expect(try Self.count(realm, "ANY intArray.intCol >= 0") == 2)
            #expect(try Self.count(realm, "NONE intArray.intCol >= 0") == 1)
            // The typed `where` reads through collections as the formats do (RealmSwift's Query).
            let owners = realm.objects(PQCollections.self)
            #expect(owners.where { $0.intArray.intCol > 5 }.count == 1)
            #expect(owners.where { $0.intSet.intCol > 2 }.count == 2)
            #expect(owners.where { $0.intDictionary.intCol > 2 }.count == 2)
            #expect(owners.where { !($0.intArray.intCol == 5) }.count == 2, "NOT ANY: the empty owner too")
            #expect(owners.where { $0.intArray.count > 5 }.count == 1)
            #expect(owners.where { $0.intDictionary.count == 4 }.count == 1)
            #expect(owners.where { $0.array.stringCol == "1" && $0.intSet.count >= 4 }.count == 2)
            // Live: a changed element changes what the query finds.
            let results = realm.objects(PQCollections.self).filter("ANY intSet.intCol == 42")
            #expect(results.count == 0)
            try realm.write {
                for object in realm.objects(PQIntObject.self).filter("intCol == 3") { object.intCol = 42 }
            }
            #expect(results.count == 2)
        }

        @Test("QueryTests.testArrayMultiLevelLinkQuery: links after and before a List, and Realm's refusals")
        func testArrayMultiLevelLinkQuery() throws {
            let realm = try Self.realm()
            try realm.write {
                var circle: PQTarget?
                for index in 0..<5 {
                    circle = realm.create(PQTarget.self, value: ["name": "\(index)", "next": circle as Any])
                }
                let owner = realm.create(PQCollections.self)
                owner.circles.append(objectsIn: realm.objects(PQTarget.self))
            }
            #expect(try Self.count(realm, "ANY circles.name = '4'") == 1)
            #expect(try Self.count(realm, "ANY circles.next.name = '4'") == 0)
            #expect(try Self.count(realm, "ANY circles.next.name = '3'") == 1)
            #expect(try Self.count(realm, "NONE circles.next.name = '4'") == 1)
            #expect(try Self.count(realm, "ANY circles.next.next.name = '3'") == 0)
            #expect(try Self.count(realm, "ANY circles.next.next.name = '2'") == 1)
            #expect(try Self.count(realm, "NONE circles.next.next.name = '3'") == 1)
            // A null link met after a collection gives no value (realm-core's link chains): the first
            // circle's `next` is null, and no other `next` has a null name.
            #expect(try Self.count(realm, "ANY circles.next.name == nil") == 0)
            #expect(try Self.count(realm, "NONE circles.next.name == nil") == 1)
            #expect(try Self.count(realm, "ANY SELF.circles.name == '4'") == 1)
            #expect(
                Self.refusal(realm, "ANY name = '2'")
                    == "Invalid predicate: Aggregate operations can only be used on key paths that include an collection "
                    + "property")
            #expect(
                Self.refusal(realm, "circles.name = '2'")
                    == "Invalid predicate: Key paths that include a collection property must use aggregate operations")
            #expect(
                Self.refusal(realm, "SELF.circles.name = '2'")
                    == "Invalid predicate: Key paths that include a collection property must use aggregate operations")
            #expect(Self.refusal(realm, "ALL circles.name = '2'") == "Invalid predicate: ALL modifier not supported")
            #expect(
                Self.refusal(realm, "ANY strings.name = '2'")
                    == "Invalid predicate: Invalid keypath 'strings.name': string property strings can only be followed by "
                    + "a collection operation.")
        }

        /// Owners 1111 (1234, 2, -12345), 2222 (100) and 3333 (none), in each collection kind:
        /// Realm's testAggregateArrayCollectionOperators data.
        private static func aggregateRealm() throws -> Realm {
            let realm = try Self.realm()
            try realm.write {
                for (number, values) in [(1111, [1234, 2, -12345]), (2222, [100]), (3333, [])] {
                    let owner = realm.create(PQCollections.self, value: ["number": number])
                    for (index, value) in values.enumerated() {
                        let int = realm.create(PQIntObject.self, value: ["intCol": value])
                        owner.intArray.append(int)
                        owner.intSet.insert(int)
                        owner.intDictionary["k\(index)"] = int
                        owner.ints.append(value)
                    }
                }
            }
            return realm
        }

        @Test(
            "QueryTests.testAggregateArrayCollectionOperators, testAggregateSetCollectionOperators, testAggregateDictionaryCollectionOperators"
        )
        func testAggregateCollectionOperators() throws {
            let realm = try Self.aggregateRealm()
            for collection in ["intArray", "intSet", "intDictionary"] {
                func count(_ format: String) throws -> Int {
                    try Self.count(realm, format.replacingOccurrences(of: "array", with: collection))
                }
                #expect(try count("array.@min.intCol == -12345") == 1, "\(collection)")
                #expect(try count("array.@min.intCol == 100") == 1, "\(collection)")
                #expect(try count("array.@min.intCol < 1000") == 2, "\(collection)")
                #expect(try count("array.@min.intCol > -1000") == 1, "\(collection)")
                #expect(try count("array.@max.intCol == 1234") == 1, "\(collection)")
                #expect(try count("array.@max.intCol == 100") == 1, "\(collection)")
                #expect(try count("array.@max.intCol > -1000") == 2, "\(collection)")
                #expect(try count("array.@max.intCol > 1000") == 1, "\(collection)")
                #expect(try count("array.@sum.intCol == 100") == 1, "\(collection)")
                #expect(try count("array.@sum.intCol == -11109") == 1, "\(collection)")
                #expect(try count("array.@sum.intCol == 0") == 1, "\(collection): the empty one sums to zero")
                #expect(try count("array.@sum.intCol > -50") == 2, "\(collection)")
                #expect(try count("array.@sum.intCol < 50") == 2, "\(collection)")
                #expect(try count("array.@avg.intCol == 100") == 1, "\(collection)")
                #expect(try count("array.@avg.intCol == -3703") == 1, "\(collection)")
                #expect(try count("array.@avg.intCol == 0") == 0, "\(collection)")
                #expect(try count("array.@avg.intCol < -50") == 1, "\(collection)")
                #expect(try count("array.@avg.intCol > 50") == 1, "\(collection)")
                #expect(try count("array.@min.intCol == nil") == 1, "\(collection): no value is null")
                #expect(try count("array.@min.intCol < number") == 2, "\(collection)")
                #expect(try count("number > array.@min.intCol") == 2, "\(collection)")
                #expect(try count("array.@max.intCol < number") == 1, "\(collection)")
                #expect(try count("number > array.@max.intCol") == 1, "\(collection)")
                #expect(try count("array.@avg.intCol < number") == 2, "\(collection)")
                #expect(try count("number > array.@avg.intCol") == 2, "\(collection)")
            }
            // A collection of values: the operator ends the key path.
            #expect(try Self.count(realm, "ints.@sum == -11109") == 1)
            #expect(try Self.count(realm, "ints.@max > 1000") == 1)
            #expect(try Self.count(realm, "ints.@avg == 100") == 1)
            #expect(try Self.count(realm, "ints.@count == 0") == 1)
            // The typed collection operators of values.
            let owners = realm.objects(PQCollections.self)
            #expect(owners.where { $0.ints.sum == -11109 }.count == 1)
            #expect(owners.where { $0.ints.max > 1000 }.count == 1)
            #expect(owners.where { $0.ints.min < 1000 }.count == 2, "no value: no minimum")
            #expect(owners.where { $0.ints.avg == 100 }.count == 1)
            #expect(owners.where { $0.ints.count == 0 }.count == 1)
            // Dates are numeric to RLMQueryUtil: their minimum and maximum compare; a sum does not exist.
            try realm.write {
                realm.objects(PQCollections.self).first?.dates.append(
                    objectsIn: [Date(timeIntervalSince1970: 5), Date(timeIntervalSince1970: 9)])
            }
            #expect(try Self.count(realm, "dates.@max > %@", Date(timeIntervalSince1970: 8)) == 1)
            #expect(try Self.count(realm, "dates.@min == %@", Date(timeIntervalSince1970: 5)) == 1)
            #expect(try Self.count(realm, "dates.@min == nil") == 2)
            #expect(Self.refusal(realm, "dates.@sum > 1")?.hasPrefix("Unsupported predicate: @sum of a date") == true)
        }

        @Test(
            "QueryTests.testCountOnDictionaryCollection, testCountOnSetCollection: @count against numbers and properties"
        )
        func testCountOnDictionaryCollection() throws {
            let realm = try Self.realm()
            try realm.write {
                for (number, values) in [(1, [456]), (2, [1, 2, 3]), (0, [])] {
                    let owner = realm.create(PQCollections.self, value: ["number": number])
                    for value in values {
                        let int = realm.create(PQIntObject.self, value: ["intCol": value])
                        owner.intDictionary["\(value)"] = int
                        owner.intSet.insert(int)
                    }
                }
            }
            for collection in ["intDictionary", "intSet"] {
                func count(_ format: String) throws -> Int {
                    try Self.count(realm, format.replacingOccurrences(of: "dictionary", with: collection))
                }
                #expect(try count("dictionary.@count > 0") == 2, "\(collection)")
                #expect(try count("dictionary.@count == 3") == 1, "\(collection)")
                #expect(try count("dictionary.@count < 1") == 1, "\(collection)")
                #expect(try count("0 < dictionary.@count") == 2, "\(collection)")
                #expect(try count("3 == dictionary.@count") == 1, "\(collection)")
                #expect(try count("1 >  dictionary.@count") == 1, "\(collection)")
                #expect(try count("dictionary.@count == number") == 2, "\(collection)")
                #expect(try count("dictionary.@count > number") == 1, "\(collection)")
                #expect(try count("number < dictionary.@count") == 1, "\(collection)")
            }
            #expect(
                Self.refusal(realm, "intDictionary.@count == intDictionary.@count")
                    == "Unsupported predicate: Key paths including aggregate operations cannot be compared with other "
                    + "aggregate operations.")
            #expect(
                Self.refusal(realm, "intDictionary.@count.foo.bar != 0")
                    == "Invalid predicate: Invalid keypath 'intDictionary.@count.foo.bar': @count must appear at the end "
                    + "of a keypath.")
            #expect(
                Self.refusal(realm, "intDictionary.@count.intCol > 0")
                    == "Invalid predicate: Invalid keypath 'intDictionary.@count.intCol': @count must appear at the end "
                    + "of a keypath.")
            #expect(
                Self.refusal(realm, "intDictionary.@count != 'Hello'")
                    == "Invalid operand: @count can only be compared with a numeric value.")
        }

        @Test("QueryTests.testAggregateArrayCollectionOperators: Realm's refusals of collection operators")
        func testAggregateCollectionOperatorRefusals() throws {
            let realm = try Self.aggregateRealm()
            #expect(
                Self.refusal(realm, "intArray.@min.intCol == intArray.@min.intCol")
                    == "Unsupported predicate: Key paths including aggregate operations cannot be compared with other "
                    + "aggregate operations.")
            for function in ["@min", "@max", "@sum", "@avg"] {
                #expect(
                    Self.refusal(realm, "intArray.\(function).intCol.foo.bar == 1.23")
                        == "Invalid predicate: Invalid keypath 'intArray.\(function).intCol.foo.bar': Property "
                        + "'PQIntObject.intCol' is not a link or collection and can only appear at the end of a keypath."
                )
            }
            for function in ["@min", "@max", "@sum"] {
                #expect(
                    Self.refusal(realm, "intArray.\(function).intCol == 1.23")
                        == "Invalid operand: \(function) on a property of type int cannot be compared with '1.23'")
            }
            #expect(
                Self.refusal(realm, "intArray.@sum.intCol == nil")
                    == "Invalid operand: @sum on a property of type int cannot be compared with '(null)'")
            #expect(
                Self.refusal(realm, "intArray.@sum == 1")
                    == "Invalid predicate: Invalid keypath 'intArray.@sum': @sum on a collection of objects cannot appear at "
                    + "the end of a keypath.")
            #expect(
                Self.refusal(realm, "ints.@sum.intCol == 1")
                    == "Invalid predicate: Invalid keypath 'ints.@sum.intCol': @sum on a collection of values must appear at "
                    + "the end of a keypath.")
            #expect(
                Self.refusal(realm, "strings.@sum == 1")
                    == "Invalid predicate: Invalid keypath 'strings.@sum': @sum can only be applied to a collection of "
                    + "numeric values.")
            #expect(
                Self.refusal(realm, "array.@sum.stringCol == 1")
                    == "Invalid predicate: Invalid keypath 'array.@sum.stringCol': @sum must be followed by a numeric "
                    + "property.")
            #expect(
                Self.refusal(realm, "intArray.@median.intCol == 1")
                    == "Invalid predicate: Invalid keypath 'intArray.@median.intCol': Unsupported collection operation "
                    + "'@median'")
        }
    }
}
