import Foundation
import Strata
import Testing

// Fixtures of the Realm parity suites for lists, links, sort descriptors and configurations
// (ListTests.swift, SwiftLinkTests.swift, SortDescriptorTests.swift,
// RealmConfigurationTests.swift in this folder). Each is our version of the RealmSwift test
// object of the same name without `Swift`, prefixed `PL` (parity lists) to keep clear of the
// other fixtures of the StrataTests target. Properties Strata does not have (enums,
// Decimal128, ObjectId, AnyRealmValue, MutableSet, Map) are left out.

/// The namespace of these suites: test IDs read `StrataTests.RealmParityLists.ListTests/...`, so
/// `swift test --filter RealmParity` selects them (a filter matches test IDs, not folders).
enum RealmParityLists {}

final class PLStringObject: Object {
    @Persisted var stringCol: String

    convenience init(stringCol: String) {
        self.init()
        self.stringCol = stringCol
    }
}

final class PLIntObject: Object {
    @Persisted var intCol: Int

    convenience init(intCol: Int) {
        self.init()
        self.intCol = intCol
    }
}

final class PLBoolObject: Object {
    @Persisted var boolCol: Bool
}

/// Scalars with Realm's default values, a link to a new object, and a list of links.
final class PLSwiftObject: Object {
    @Persisted var boolCol = false
    @Persisted var intCol = 123
    @Persisted var int8Col: Int8 = 123
    @Persisted var int16Col: Int16 = 123
    @Persisted var int32Col: Int32 = 123
    @Persisted var int64Col: Int64 = 123
    @Persisted var floatCol: Float = 1.23
    @Persisted var doubleCol = 12.3
    @Persisted var stringCol = "a"
    @Persisted var binaryCol = Data("a".utf8)
    @Persisted var dateCol = Date(timeIntervalSince1970: 1)
    @Persisted var objectCol: PLBoolObject?
    @Persisted var uuidCol = UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89") ?? UUID()
    @Persisted var arrayCol: List<PLBoolObject>

    /// Realm's declares `objectCol = SwiftBoolObject()`; Strata's @Persisted initial values
    /// cannot create objects yet, so a new instance gets its bool object here.
    required init() {
        super.init()
        objectCol = PLBoolObject()
    }
}

final class PLArrayPropertyObject: Object {
    @Persisted var name: String
    @Persisted var array: List<PLStringObject>
    @Persisted var intArray: List<PLIntObject>
    @Persisted var swiftObjArray: List<PLSwiftObject>
}

final class PLListOfSwiftObject: Object {
    @Persisted var array: List<PLSwiftObject>
}

/// A List of every primitive type Strata stores, plain and optional.
final class PLListObject: Object {
    @Persisted var int: List<Int>
    @Persisted var int8: List<Int8>
    @Persisted var int16: List<Int16>
    @Persisted var int32: List<Int32>
    @Persisted var int64: List<Int64>
    @Persisted var float: List<Float>
    @Persisted var double: List<Double>
    @Persisted var string: List<String>
    @Persisted var data: List<Data>
    @Persisted var date: List<Date>
    @Persisted var uuid: List<UUID>

    @Persisted var intOpt: List<Int?>
    @Persisted var int8Opt: List<Int8?>
    @Persisted var int16Opt: List<Int16?>
    @Persisted var int32Opt: List<Int32?>
    @Persisted var int64Opt: List<Int64?>
    @Persisted var floatOpt: List<Float?>
    @Persisted var doubleOpt: List<Double?>
    @Persisted var stringOpt: List<String?>
    @Persisted var dataOpt: List<Data?>
    @Persisted var dateOpt: List<Date?>
    @Persisted var uuidOpt: List<UUID?>
}

final class PLDogObject: Object {
    @Persisted var dogName: String
}

/// An owner whose dog is a new dog unless told otherwise (set in `init()`, as for
/// `PLSwiftObject.objectCol`).
final class PLOwnerObject: Object {
    @Persisted var name: String
    @Persisted var dog: PLDogObject?

    required init() {
        super.init()
        dog = PLDogObject()
    }
}

let parityListTypes: [Object.Type] = [
    PLStringObject.self, PLIntObject.self, PLBoolObject.self, PLSwiftObject.self,
    PLArrayPropertyObject.self, PLListOfSwiftObject.self, PLListObject.self,
    PLDogObject.self, PLOwnerObject.self,
]

/// The two files of one Realm test case, as RealmSwift's `TestCase` gives them: `test.realm`
/// (`realmWithTestPath()`) and `default.realm` (what `Realm()` opens there), in a fresh
/// directory. Our suites run in parallel, so the process-wide default configuration is not
/// pointed at it: `defaultRealm()` opens it explicitly.
struct ParityListFiles {
    let directory = temporaryDirectory()

    var testConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: directory.appendingPathComponent("test.realm"), objectTypes: parityListTypes)
    }

    var defaultConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: directory.appendingPathComponent("default.realm"), objectTypes: parityListTypes)
    }

    func realmWithTestPath() throws -> Realm { try Realm(configuration: testConfiguration) }
    func defaultRealm() throws -> Realm { try Realm(configuration: defaultConfiguration) }
}

/// RealmSwift's `isSameObject(as:)` through public API: the same instance when unmanaged; when
/// managed, the same stored object of the same realm (its position among all objects of its
/// class is the same).
func plSameObject<T: Object>(_ a: T?, _ b: T?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    if a === b { return true }
    guard let realm = a.realm, realm == b.realm else { return false }
    let all = realm.objects(T.self)
    guard let index = all.index(of: a) else { return false }
    return all.index(of: b) == index
}

/// The objects of a collection, as the test's `assertEqual(o1, o2)` sees them one by one.
func plExpectSame<T: Object>(_ a: T?, _ b: T?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        plSameObject(a, b), "expected the same object: \(String(describing: a)) and \(String(describing: b))",
        sourceLocation: sourceLocation)
}
