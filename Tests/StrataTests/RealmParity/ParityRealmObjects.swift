import Foundation
import Strata
import Testing

// Fixtures of the Realm parity suites for realms and thread-safe references (RealmTests.swift
// and ThreadSafeReferenceTests.swift in this folder). Each is our version of the RealmSwift test
// object of the same name without `Swift`, prefixed `PR` (parity realm) to keep clear of the
// other fixtures of the StrataTests target. Properties Strata does not have (enums, Decimal128,
// ObjectId, AnyRealmValue, MutableSet, Map, LinkingObjects) are left out.

/// The namespace of these suites: test IDs read `StrataTests.RealmParityRealm.RealmTests/...`, so
/// `swift test --filter RealmParityRealm` selects them (a filter matches test IDs, not folders).
enum RealmParityRealm {}

final class PRStringObject: Object {
    @Persisted var stringCol: String

    convenience init(stringCol: String) {
        self.init()
        self.stringCol = stringCol
    }
}

final class PRIntObject: Object {
    @Persisted var intCol: Int

    convenience init(intCol: Int) {
        self.init()
        self.intCol = intCol
    }
}

final class PRBoolObject: Object {
    @Persisted var boolCol: Bool
}

/// Scalars with Realm's default values, a link to a new object, and a list of links.
final class PRSwiftObject: Object {
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
    @Persisted var objectCol: PRBoolObject?
    @Persisted var uuidCol = UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89") ?? UUID()
    @Persisted var arrayCol: List<PRBoolObject>

    /// Realm's declares `objectCol = SwiftBoolObject()`; Strata's @Persisted initial values
    /// cannot create objects, so a new instance gets its bool object here.
    required init() {
        super.init()
        objectCol = PRBoolObject()
    }
}

final class PREmployeeObject: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var hired: Bool

    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

final class PRCompanyObject: Object {
    @Persisted var name: String
    @Persisted var employees: List<PREmployeeObject>
}

final class PRArrayPropertyObject: Object {
    @Persisted var name: String
    @Persisted var array: List<PRStringObject>
    @Persisted var intArray: List<PRIntObject>
}

final class PRPrimaryStringObject: Object {
    @Persisted(primaryKey: true) var stringCol: String
    @Persisted var intCol: Int
}

final class PRPrimaryOptionalStringObject: Object {
    @Persisted(primaryKey: true) var stringCol: String? = ""
    @Persisted var intCol: Int
}

final class PRPrimaryIntObject: Object {
    @Persisted var stringCol: String
    @Persisted(primaryKey: true) var intCol: Int
}

final class PRPrimaryOptionalIntObject: Object {
    @Persisted var stringCol: String
    @Persisted(primaryKey: true) var intCol: Int?
}

let parityRealmTypes: [Object.Type] = [
    PRStringObject.self, PRIntObject.self, PRBoolObject.self, PRSwiftObject.self,
    PREmployeeObject.self, PRCompanyObject.self, PRArrayPropertyObject.self,
    PRPrimaryStringObject.self, PRPrimaryOptionalStringObject.self,
    PRPrimaryIntObject.self, PRPrimaryOptionalIntObject.self,
]

/// The files of one Realm test case, as RealmSwift's `TestCase` gives them: `default.realm`
/// (what `Realm()` opens there) and `test.realm` (`realmWithTestPath()`), in a fresh directory.
/// Our suites run in parallel, so the process-wide default configuration is not pointed at it:
/// `defaultRealm()` opens it explicitly.
struct PRFiles: Sendable {
    let directory = temporaryDirectory()

    var defaultRealmURL: URL { directory.appendingPathComponent("default.realm") }
    var testRealmURL: URL { directory.appendingPathComponent("test.realm") }

    /// RealmSwift's `Realm.Configuration.defaultConfiguration` during a test.
    var defaultConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: defaultRealmURL, objectTypes: parityRealmTypes)
    }

    var testConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: testRealmURL, objectTypes: parityRealmTypes)
    }

    /// `Realm()`.
    func defaultRealm() throws -> Realm { try Realm(configuration: defaultConfiguration) }
    /// `realmWithTestPath()`.
    func realmWithTestPath() throws -> Realm { try Realm(configuration: testConfiguration) }
}

/// Realm's `TestThreadSafeWrapperStruct`, with the properties Strata can wrap.
struct PRThreadSafeWrapperStruct: Sendable {
    @ThreadSafe var stringObject: PRStringObject? = nil
    @ThreadSafe var intObject: PRIntObject? = nil
    @ThreadSafe var employees: List<PREmployeeObject>? = nil
    @ThreadSafe var results: Results<PRStringObject>? = nil

    /// The throwing form of `stringObject = value` (Realm raises an exception there; the
    /// public setter traps).
    func setStringObject(_ value: PRStringObject?) throws(Realm.Error) { try _stringObject._set(value) }
}

/// RealmSwift's `assertFails(code, message) { ... }`: `body` throws a `Realm.Error` with that code
/// and exactly that message.
func prAssertFails<T>(
    _ code: Realm.Error.Code, _ message: String,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) {
    prAssertFails(code, nil, message, sourceLocation: sourceLocation, body)
}

/// Realm's `assertFails(code, file, message)`: also the error's `fileURL`.
func prAssertFails<T>(
    _ code: Realm.Error.Code, _ file: URL?, _ message: String,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) {
    do {
        _ = try body()
        Issue.record("expected a Realm.Error \(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as Realm.Error {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message == message, sourceLocation: sourceLocation)
        if let file { #expect(error.fileURL == file, sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected a Realm.Error \(code), but caught \(error)", sourceLocation: sourceLocation)
    }
}

/// Realm's `assertThrows(block)` without a reason: `error` is a rejection (code
/// `.programmerError`), whatever its message.
func prExpectRejected(_ error: Realm.Error?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error != nil, "expected a rejection", sourceLocation: sourceLocation)
    guard let error else { return }
    #expect(error.code == .programmerError, "\(error)", sourceLocation: sourceLocation)
}
