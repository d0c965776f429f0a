import Foundation
import Strata
@_exported import StrataTestSupport
import Testing

// Fixtures named as in the behaviour catalog that Spec/coverage.md maps to rules.

final class IntObj: Object {
    @Persisted var intCol: Int
}

final class StrObj: Object {
    @Persisted var stringCol: String
}

final class BoolObj: Object {
    @Persisted var boolCol: Bool
}

final class PKStr: Object {
    @Persisted(primaryKey: true) var stringCol: String
    @Persisted var intCol: Int
}

final class PKInt: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

final class Employee: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var hired: Bool
}

final class Company: Object {
    @Persisted var name: String
    @Persisted var employees: List<Employee>
}

final class Dog: Object {
    @Persisted var dogName: String
    @Persisted var age: Int
}

final class Owner: Object {
    @Persisted var name: String
    @Persisted var dog: Dog?
}

final class Holder: Object {
    @Persisted var intArray: List<IntObj>
}

final class LinkObj: Object {
    @Persisted var link: StrObj?
}

/// Every property type of the issue, with optionals and lists.
final class AllTypes: Object {
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var bool: Bool
    @Persisted var double: Double
    @Persisted var float: Float
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var uuid: UUID
    @Persisted var optInt: Int?
    @Persisted var optBool: Bool?
    @Persisted var optDouble: Double?
    @Persisted var optFloat: Float?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optUUID: UUID?
    @Persisted var link: StrObj?
    @Persisted var ints: List<Int>
    @Persisted var optStrings: List<String?>
    @Persisted var objects: List<StrObj>
    @Persisted(indexed: true) var indexed: String
}

/// Scalars and a link, for object observers (Spec N20 to N22).
final class SwiftObject: Object {
    @Persisted var intCol: Int
    @Persisted var stringCol: String
    @Persisted var optIntCol: Int?
    @Persisted var boolCol: BoolObj?
}

/// A primary-keyed object with two scalars, for upserts (Spec N22).
final class PKPair: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var a: Int
    @Persisted var b: Int
}

let allFixtureTypes: [Object.Type] = [
    IntObj.self, StrObj.self, BoolObj.self, PKStr.self, PKInt.self, Employee.self,
    Company.self, Dog.self, Owner.self, Holder.self, LinkObj.self, AllTypes.self,
    SwiftObject.self, PKPair.self,
]

/// A fresh directory for one test's files, inside the process's own directory
/// (`testProcessDirectory`): nothing is left in the temporary directory when the tests end.
func temporaryDirectory() -> URL {
    let url = testProcessDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The directory of every `temporaryDirectory()` of this test process, removed when the
/// process exits, with those of processes that died without exiting (the children of exit
/// tests trap on purpose). (Creating a file lists its directory for abandoned temporaries, so
/// one directory per test left in /tmp would slow every later file creation there.)
private let testProcessDirectory: URL = {
    removeDirectoriesOfDeadTestProcesses()
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-tests-\(getpid())", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tests-\(getpid())").path
        try? FileManager.default.removeItem(atPath: path)
        removeDirectoriesOfDeadTestProcesses()
    }
    return url
}()

/// Removes the `strata-tests-<pid>` directories whose process no longer exists.
private func removeDirectoriesOfDeadTestProcesses() {
    let base = FileManager.default.temporaryDirectory
    for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
    where name.hasPrefix("strata-tests-") {
        guard let pid = Int32(name.dropFirst("strata-tests-".count)), kill(pid, 0) != 0, errno == ESRCH else {
            continue
        }
        try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
    }
}

/// A configuration of a new file in a fresh directory, with every fixture class.
func testConfiguration(_ name: String = "test.realm") -> Realm.Configuration {
    Realm.Configuration(fileURL: temporaryDirectory().appendingPathComponent(name), objectTypes: allFixtureTypes)
}

/// The error a throwing entry point threw, for tests that check a rejection.
func rejection(_ body: () throws -> Void) -> Realm.Error? {
    do {
        try body()
        return nil
    } catch let error as Realm.Error {
        return error
    } catch {
        return Realm.Error(.fail, "unexpected error \(error)")
    }
}

/// A value a test needed was missing.
struct Absent: Error, CustomStringConvertible {
    let description: String
}

/// `value`, or a thrown error naming what was missing (usable on any thread).
func required<T>(_ value: T?, _ what: String) throws -> T {
    guard let value else { throw Absent(description: "\(what) was nil") }
    return value
}

/// A rejection: the code is `.programmerError` (unless told) and the message holds `fragment`.
func expectRejected(
    _ error: Realm.Error?, _ fragment: String, code: Realm.Error.Code = .programmerError,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(error != nil, "expected a rejection containing '\(fragment)'", sourceLocation: sourceLocation)
    guard let error else { return }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
}

/// A managed `Holder` whose list holds one new `IntObj`, added in its own write.
func addHolderWithOneInt(to realm: Realm) throws -> Holder {
    try realm.write { () -> Holder in
        let holder = Holder()
        holder.intArray.append(IntObj())
        realm.add(holder)
        return holder
    }
}
