import Dispatch
import Foundation
import Strata
import StrataSimulation
import StrataStorage
import Synchronization
import Testing

// Realm's RealmSwift/Tests/MigrationTests.swift, in our words (suite `MigrationTests`), then
// the Objective-C MigrationTests.mm and realm-core migrations.cpp cases that state what the
// Swift file leaves out (suite `ObjcMigrationTests`), and Strata's own crash-safety cases.
//
// Realm's `testMigration` helper migrates a copy of the prepared file four ways: opening it,
// `Realm.performMigration(for:)`, opening the default configuration, and `asyncOpen`. Here
// `pmMigrate` does all but the default configuration (a process-wide setting tests running in
// parallel would race on); each way works on its own copy.
//
// Not here (Strata lacks the subject; Spec differences.md 3): testMigrationProperties and
// testMigrationObjectSchema (schema introspection: `oldSchema`, `newSchema`, `objectSchema`),
// testAnyInEnumerate (AnyRealmValue), testObjectWithCustomColumnNames,
// testCustomColumnDataAfterMigrationRealm and testCustomColumnRenamePropertyToCustom (custom
// column names, EmbeddedObject, AnyRealmValue, enums). Left out of tests that are here: the
// MutableSet, Map, Decimal128, ObjectId, AnyRealmValue and enum properties, the
// `objectSchema.className` checks (`className` stands for them), `dynamicList` and the
// `description` text of testMigrationObject. A list property reads as an array in Strata
// (Realm: `List<MigrationObject>`), so list edits assign a new array.
//
// Rejections: where Realm raises an exception inside a migration, the public API traps; the
// tests call the `package` throwing form and check the error.

/// One test's files: the file the test prepares (Realm's `defaultRealmURL()`), and the copies
/// the ways of migrating work on.
struct PMFiles: Sendable {
    let directory = temporaryDirectory()
    var defaultURL: URL { directory.appendingPathComponent("default.realm") }

    /// Opens the prepared file with `types` at schema version 0 and runs `body` in a write; the
    /// realm is closed again when this returns.
    func prepare(_ types: [Object.Type], _ body: (Realm) throws -> Void = { _ in }) throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: defaultURL, objectTypes: types))
        try realm.write { try body(realm) }
    }

    /// A fresh copy of the prepared file.
    func copy(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.copyItem(at: defaultURL, to: url)
        return url
    }
}

/// What an async open's callback reported, for the test's thread.
final class PMOutcome: Sendable {
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<(any Error)?>(nil)
}

/// The ways of Realm's `testMigration` to migrate a file.
enum PMWay: String, CaseIterable, Sendable {
    case open, performMigration, asyncOpen

    func run(_ configuration: Realm.Configuration) throws {
        switch self {
        case .open:
            _ = try Realm(configuration: configuration)
        case .performMigration:
            try Realm.performMigration(for: configuration)
        case .asyncOpen:
            let outcome = PMOutcome()
            let queue = DispatchQueue(label: "pm-async-open")
            Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
                if case .failure(let error) = result { outcome.failure.withLock { $0 = error } }
                outcome.done.signal()
            }
            guard outcome.done.wait(timeout: .now() + hangGuardSeconds) == .success else {
                throw Absent(description: "the async open's callback")
            }
            queue.sync {}  // the callback has returned: its realm is closed
            if let error = outcome.failure.withLock({ $0 }) { throw error }
        }
    }
}

/// Realm's `testMigration`: each way migrates a fresh copy of the prepared file to
/// `schemaVersion` with `block`; then the block must have run (or not, `shouldRun`), the file
/// must record `schemaVersion`, and `validation` checks a realm of the migrated file. Returns
/// the migrated copies.
@discardableResult
func pmMigrate(
    _ files: PMFiles, _ types: [Object.Type], schemaVersion: UInt64 = 1, shouldRun: Bool = true,
    block: MigrationBlock? = nil, validation: ((Realm) throws -> Void)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> [URL] {
    var copies: [URL] = []
    for way in PMWay.allCases {
        let url = try files.copy("\(way.rawValue)-\(schemaVersion).realm")
        copies.append(url)
        let ran = PMFlag()
        var configuration = Realm.Configuration(fileURL: url, schemaVersion: schemaVersion, objectTypes: types)
        configuration.migrationBlock = { migration, oldSchemaVersion in
            block?(migration, oldSchemaVersion)
            ran.set()
        }
        try way.run(configuration)
        #expect(ran.value == shouldRun, "\(way)", sourceLocation: sourceLocation)
        #expect(try schemaVersionAtURL(url) == schemaVersion, "\(way)", sourceLocation: sourceLocation)
        if let validation {
            try validation(
                try Realm(
                    configuration: Realm.Configuration(
                        fileURL: url, schemaVersion: schemaVersion,
                        objectTypes: types)))
        }
        // Every way closed the realm it migrated: its files can be deleted (a copy is kept for
        // the caller).
        let kept = url.appendingPathExtension("kept")
        try FileManager.default.copyItem(at: url, to: kept)
        #expect(try Realm.deleteFiles(for: configuration), "\(way)", sourceLocation: sourceLocation)
        try FileManager.default.moveItem(at: kept, to: url)
    }
    return copies
}

/// The types of the Swift suite's prepared files (Realm's tests use every class).
let pmAllTypes: [Object.Type] = [
    PMStringObject.self, PMIntObject.self, PMInt8Object.self, PMInt16Object.self, PMInt32Object.self,
    PMInt64Object.self, PMBoolObject.self, PMArrayPropertyObject.self, PMSwiftObject.self, PMOptionalObject.self,
    PMListsObject.self, PMPrimaryIntObject.self,
]

extension RealmParityMigration {
    @Suite struct MigrationTests {
        @Test("Spec X25: the version a file records; a file that does not exist has none")
        func testSchemaVersionAtURL() throws {
            let files = PMFiles()
            let missing = rejection { _ = try schemaVersionAtURL(files.defaultURL) }
            expectRejected(
                missing, "Realm at path '\(files.defaultURL.path)' has not been initialized.",
                code: .invalidDatabase)
            #expect(missing?.fileURL?.path == files.defaultURL.path, "the error names the file")
            #expect(!FileManager.default.fileExists(atPath: files.defaultURL.path), "asking created the file")
            try files.prepare(pmAllTypes)
            #expect(try schemaVersionAtURL(files.defaultURL) == 0, "initial version should be 0")
            let device = rejection { _ = try schemaVersionAtURL(URL(fileURLWithPath: "/dev/null")) }
            let codes: [Realm.Error.Code] = [.filePermissionDenied, .fileAccess, .invalidDatabase]
            #expect(device.map { codes.contains($0.code) } == true, "\(String(describing: device))")
            // The version a migration recorded, also while the file is open.
            let migrated = Realm.Configuration(fileURL: files.defaultURL, schemaVersion: 4, objectTypes: pmAllTypes)
            let realm = try Realm(configuration: migrated)
            #expect(try schemaVersionAtURL(files.defaultURL) == 4)
            #expect(!realm.isInWriteTransaction)
        }

        @Test("Spec X19, X25: raising the schema version runs the block, every way of opening")
        func testBasic() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes) { realm in realm.create(PMStringObject.self, value: ["kept"]) }
            try pmMigrate(files, pmAllTypes) { _, oldSchemaVersion in
                #expect(oldSchemaVersion == 0)
            } validation: { realm in
                #expect(realm.objects(PMStringObject.self).map(\.stringCol) == ["kept"])
            }
        }

        @Test("Spec X21: enumerating a class visits its objects, old and new; a missing class is empty")
        func testEnumerate() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes)
            try pmMigrate(files, pmAllTypes) { migration, _ in
                migration.enumerateObjects(ofType: "PMStringObject") { _, _ in Issue.record("no objects to enumerate") }
                migration.enumerateObjects(ofType: "NoSuchClass") { _, _ in Issue.record("no such class") }
            }

            try files.prepare(pmAllTypes) { realm in realm.create(PMStringObject.self, value: ["string"]) }
            try pmMigrate(files, pmAllTypes, schemaVersion: 2) { migration, _ in
                var count = 0
                migration.enumerateObjects(ofType: "PMStringObject") { oldObject, newObject in
                    guard let oldObject, let newObject else {
                        Issue.record("did not get objects in enumerate")
                        return
                    }
                    #expect(newObject.className == "PMStringObject")
                    #expect(oldObject.className == "PMStringObject")
                    #expect(newObject["stringCol"] as? String == "string")
                    #expect(oldObject["stringCol"] as? String == "string")
                    expectRejected(
                        rejection { _ = try oldObject._value(forKey: "noSuchCol") },
                        "Invalid property name 'noSuchCol' for class 'PMStringObject'.")
                    expectRejected(
                        rejection { _ = try newObject._value(forKey: "noSuchCol") },
                        "Invalid property name 'noSuchCol' for class 'PMStringObject'.")
                    count += 1
                }
                #expect(count == 1)
            }

            try files.prepare(pmAllTypes) { realm in
                realm.create(PMArrayPropertyObject.self, value: ["string", [["array"]], [[2]]])
            }
            try pmMigrate(files, pmAllTypes, schemaVersion: 3) { migration, _ in
                var count = 0
                migration.enumerateObjects(ofType: "PMArrayPropertyObject") { oldObject, newObject in
                    let oldArray = oldObject?["array"] as? [MigrationObject]
                    let newArray = newObject?["array"] as? [MigrationObject]
                    #expect(oldArray?.map { $0["stringCol"] as? String } == ["array"])
                    #expect(newArray?.map { $0["stringCol"] as? String } == ["array"])
                    #expect((newObject?["intArray"] as? [MigrationObject])?.first?["intCol"] as? Int == 2)
                    count += 1
                }
                #expect(count == 1)
            }
        }

        @Test("Spec X21: old and new values read as Swift's plain types")
        func testBasicTypesInEnumerate() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes) { realm in
                let object = PMSwiftObject()
                object.objectCol = PMBoolObject()
                realm.add(object)
            }
            try pmMigrate(files, pmAllTypes) { migration, _ in
                var count = 0
                migration.enumerateObjects(ofType: "PMSwiftObject") { oldObject, newObject in
                    for object in [oldObject, newObject] {
                        guard let object else {
                            Issue.record("did not get objects in enumerate")
                            return
                        }
                        #expect(object.boolCol is Bool)
                        #expect(object.intCol is Int)
                        #expect(object.int8Col is Int)
                        #expect(object.int16Col is Int)
                        #expect(object.int32Col is Int)
                        #expect(object.int64Col is Int)
                        #expect(object.floatCol is Float)
                        #expect(object.doubleCol is Double)
                        #expect(object.stringCol is String)
                        #expect(object.binaryCol is Data)
                        #expect(object.dateCol is Date)
                        #expect(object.objectCol is MigrationObject)
                        #expect(object.uuidCol is UUID)
                        #expect(object.arrayCol is [MigrationObject])
                    }
                    count += 1
                }
                #expect(count == 1)
            }
        }

        @Test("Spec X21: nil reads as nil, set optionals as their plain types")
        func testOptionalsInEnumerate() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes) { realm in realm.add(PMOptionalObject()) }
            let names = [
                "optStringCol", "optBinaryCol", "optDateCol", "optIntCol", "optInt8Col", "optInt16Col",
                "optInt32Col", "optInt64Col", "optFloatCol", "optDoubleCol", "optBoolCol", "optUuidCol",
            ]
            try pmMigrate(files, pmAllTypes) { migration, _ in
                var count = 0
                migration.enumerateObjects(ofType: "PMOptionalObject") { oldObject, newObject in
                    for object in [oldObject, newObject] {
                        guard let object else {
                            Issue.record("did not get objects in enumerate")
                            return
                        }
                        for name in names { #expect(object[name] == nil, "\(name)") }
                    }
                    count += 1
                }
                #expect(count == 1)
            }

            try files.prepare(pmAllTypes) { realm in
                guard let object = realm.objects(PMOptionalObject.self).first else {
                    Issue.record("no object")
                    return
                }
                object.optStringCol = "String"
                object.optBinaryCol = Data()
                object.optDateCol = Date()
                object.optIntCol = 1
                object.optInt8Col = 2
                object.optInt16Col = 3
                object.optInt32Col = 4
                object.optInt64Col = 5
                object.optFloatCol = 6.1
                object.optDoubleCol = 7.2
                object.optBoolCol = true
                object.optUuidCol = UUID()
            }
            try pmMigrate(files, pmAllTypes, schemaVersion: 2) { migration, _ in
                var count = 0
                migration.enumerateObjects(ofType: "PMOptionalObject") { oldObject, newObject in
                    for object in [oldObject, newObject] {
                        guard let object else {
                            Issue.record("did not get objects in enumerate")
                            return
                        }
                        #expect(object.optStringCol is String)
                        #expect(object.optBinaryCol is Data)
                        #expect(object.optDateCol is Date)
                        #expect(object.optIntCol is Int)
                        #expect(object.optInt8Col is Int)
                        #expect(object.optInt16Col is Int)
                        #expect(object.optInt32Col is Int)
                        #expect(object.optInt64Col as? Int == 5)
                        #expect(object.optFloatCol is Float)
                        #expect(object.optDoubleCol as? Double == 7.2)
                        #expect(object.optBoolCol is Bool)
                        #expect(object.optUuidCol is UUID)
                    }
                    count += 1
                }
                #expect(count == 1)
            }
        }

        /// The classes of the delete-while-enumerating tests, each with its property and the
        /// values of its three objects.
        /// The values are compared as text (`key`): "2" is the string object deleted, "1" the
        /// integer ones.
        static let deletionCases: [(type: String, property: String, doomed: String)] = [
            ("PMStringObject", "stringCol", "2"),
            ("PMIntObject", "intCol", "1"),
            ("PMInt8Object", "int8Col", "1"),
            ("PMInt16Object", "int16Col", "1"),
            ("PMInt32Object", "int32Col", "1"),
            ("PMInt64Object", "int64Col", "1"),
        ]

        static func prepareDeletionCases(_ files: PMFiles) throws {
            try files.prepare(pmAllTypes) { realm in
                for value in ["1", "2", "3"] { realm.create(PMStringObject.self, value: [value]) }
                for value in 1...3 {
                    realm.create(PMIntObject.self, value: [value])
                    realm.create(PMInt8Object.self, value: [Int8(value)])
                    realm.create(PMInt16Object.self, value: [Int16(value)])
                    realm.create(PMInt32Object.self, value: [Int32(value)])
                    realm.create(PMInt64Object.self, value: [Int64(value)])
                }
                for flag in [true, false, true] { realm.create(PMBoolObject.self, value: [flag]) }
            }
        }

        /// The value of `object[property]` as the deletion cases compare it.
        static func key(_ object: MigrationObject?, _ property: String) -> String? {
            (object?[property]).map { "\($0)" }
        }

        @Test("Spec X21: an object deleted during a migration is not enumerated again")
        func testEnumerateObjectsAfterDeleteObjects() throws {
            let files = PMFiles()
            try Self.prepareDeletionCases(files)
            try pmMigrate(files, pmAllTypes) { migration, _ in
                for (type, property, doomed) in Self.deletionCases {
                    migration.enumerateObjects(ofType: type) { oldObject, newObject in
                        #expect(Self.key(newObject, property) == Self.key(oldObject, property))
                        if Self.key(oldObject, property) == doomed, let newObject { migration.delete(newObject) }
                    }
                    var count = 0
                    migration.enumerateObjects(ofType: type) { oldObject, newObject in
                        #expect(Self.key(newObject, property) == Self.key(oldObject, property))
                        #expect(Self.key(oldObject, property) != doomed)
                        count += 1
                    }
                    #expect(count == 2, "\(type)")
                }
                migration.enumerateObjects(ofType: "PMBoolObject") { oldObject, newObject in
                    #expect(newObject?["boolCol"] as? Bool == oldObject?["boolCol"] as? Bool)
                    if let newObject { migration.delete(newObject) }
                }
                migration.enumerateObjects(ofType: "PMBoolObject") { _, _ in
                    Issue.record("every object was deleted")
                }
            } validation: { realm in
                #expect(realm.objects(PMStringObject.self).map(\.stringCol) == ["1", "3"])
                #expect(realm.objects(PMInt8Object.self).map(\.int8Col) == [2, 3])
                #expect(realm.objects(PMBoolObject.self).isEmpty)
            }
        }

        @Test("Spec X21: objects created during a migration are never enumerated as old objects' new ones")
        func testEnumerateObjectsAfterDeleteInsertObjects() throws {
            let files = PMFiles()
            try Self.prepareDeletionCases(files)
            try pmMigrate(files, pmAllTypes) { migration, _ in
                for (type, property, doomed) in Self.deletionCases {
                    let replacement: Any = type == "PMStringObject" ? "A" : 0
                    migration.enumerateObjects(ofType: type) { oldObject, newObject in
                        #expect(Self.key(newObject, property) == Self.key(oldObject, property))
                        if Self.key(oldObject, property) == doomed, let newObject {
                            migration.delete(newObject)
                            migration.create(type, value: [replacement])
                        }
                    }
                    var count = 0
                    migration.enumerateObjects(ofType: type) { oldObject, newObject in
                        #expect(Self.key(newObject, property) == Self.key(oldObject, property))
                        count += 1
                    }
                    #expect(count == 2, "\(type)")
                }
                migration.enumerateObjects(ofType: "PMBoolObject") { oldObject, newObject in
                    #expect(newObject?["boolCol"] as? Bool == oldObject?["boolCol"] as? Bool)
                    if let newObject { migration.delete(newObject) }
                    migration.create("PMBoolObject", value: [false])
                }
                migration.enumerateObjects(ofType: "PMBoolObject") { _, _ in
                    Issue.record("every old object was deleted")
                }
            } validation: { realm in
                #expect(realm.objects(PMStringObject.self).map(\.stringCol).sorted() == ["1", "3", "A"])
                #expect(realm.objects(PMIntObject.self).map(\.intCol).sorted() == [0, 2, 3])
                #expect(realm.objects(PMBoolObject.self).map(\.boolCol) == [false, false, false])
            }
        }

        @Test("Spec X21: after deleteData a class enumerates nothing, not even what was created since")
        func testEnumerateObjectsAfterDeleteData() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes) { realm in
                for value in ["1", "2", "3"] { realm.create(PMStringObject.self, value: [value]) }
            }
            try pmMigrate(files, pmAllTypes) { migration, _ in
                var count = 0
                migration.enumerateObjects(ofType: "PMStringObject") { _, _ in count += 1 }
                #expect(count == 3)
                migration.deleteData(forType: "PMStringObject")
                migration.create("PMStringObject", value: ["A"])
                count = 0
                migration.enumerateObjects(ofType: "PMStringObject") { _, _ in count += 1 }
                #expect(count == 0)
            } validation: { realm in
                #expect(realm.objects(PMStringObject.self).map(\.stringCol) == ["A"])
            }
        }

        @Test("Spec X21: create takes an array, a dictionary or nothing; an unknown class is refused")
        func testCreate() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes)
            try pmMigrate(files, pmAllTypes) { migration, _ in
                migration.create("PMStringObject", value: ["string1"])
                migration.create("PMStringObject", value: ["stringCol": "string2"])
                migration.create("PMStringObject")
                expectRejected(
                    rejection { _ = try migration._create("NoSuchObject") },
                    "Object type 'NoSuchObject' is not managed by the Realm.")
            } validation: { realm in
                #expect(realm.objects(PMStringObject.self).map(\.stringCol) == ["string1", "string2", ""])
            }
        }

        @Test("Spec X21: an object deleted in the migration is gone after it")
        func testDelete() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes) { realm in
                realm.create(PMStringObject.self, value: ["string1"])
                realm.create(PMStringObject.self, value: ["string2"])
            }
            try pmMigrate(files, pmAllTypes) { migration, _ in
                var deleted = false
                migration.enumerateObjects(ofType: "PMStringObject") { _, newObject in
                    if !deleted, let newObject {
                        migration.delete(newObject)
                        deleted = true
                    }
                }
                #expect(deleted)
            } validation: { realm in
                #expect(realm.objects(PMStringObject.self).map(\.stringCol) == ["string2"])
            }
        }

        @Test("Spec X21: deleteData removes a class the schema lacks, empties one it has")
        func testDeleteData() throws {
            let files = PMFiles()
            try files.prepare([PMv0.PMDeletedClass.self]) { realm in realm.create(PMv0.PMDeletedClass.self, value: [0])
            }
            let copies = try pmMigrate(files, pmAllTypes) { migration, oldSchemaVersion in
                #expect(oldSchemaVersion == 0, "initial schema version should be 0")
                #expect(migration.deleteData(forType: "PMDeletedClass"))
                #expect(!migration.deleteData(forType: "NoSuchClass"))
                migration.create("PMStringObject", value: ["migration"])
                #expect(migration.deleteData(forType: "PMStringObject"))
            } validation: { realm in
                #expect(realm.objects(PMStringObject.self).isEmpty)
            }
            // The removed class has no table left: a later migration finds nothing to delete.
            for url in copies {
                let found = Mutex<Bool?>(nil)
                var configuration = Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: pmAllTypes)
                configuration.migrationBlock = { migration, _ in
                    let had = migration.deleteData(forType: "PMDeletedClass")
                    found.withLock { $0 = had }
                }
                _ = try Realm(configuration: configuration)
                #expect(found.withLock { $0 } == false)
            }
        }

        @Test("Spec X22: a renamed property keeps its values")
        func testRenameProperty() throws {
            let files = PMFiles()
            try files.prepare([PMv0.PMStringObject.self]) { realm in
                realm.create(PMv0.PMStringObject.self, value: ["a"])
            }
            try pmMigrate(files, pmAllTypes) { migration, _ in
                migration.enumerateObjects(ofType: "PMStringObject") { oldObject, newObject in
                    #expect(oldObject?["before_stringCol"] as? String == "a")
                    #expect(newObject?["stringCol"] as? String == "")
                }
                migration.renameProperty(onType: "PMStringObject", from: "before_stringCol", to: "stringCol")
                migration.enumerateObjects(ofType: "PMStringObject") { _, newObject in
                    #expect(newObject?["stringCol"] as? String == "a")
                    expectRejected(
                        rejection { _ = try newObject?._value(forKey: "before_stringCol") },
                        "Invalid property name 'before_stringCol' for class 'PMStringObject'.")
                }
            } validation: { realm in
                #expect(realm.objects(PMStringObject.self).map(\.stringCol) == ["a"])
            }
        }

        @Test("Spec X21: every property type read from old and new objects, and set on new ones")
        func testMigrationObject() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes) { realm in
                let object = PMSwiftObject()
                object.boolCol = true
                let linked = PMBoolObject()
                linked.boolCol = true
                object.objectCol = linked
                object.arrayCol.append(PMBoolObject())
                realm.add(object)
            }
            try pmMigrate(files, pmAllTypes) { migration, _ in
                var enumerated = false
                migration.enumerateObjects(ofType: "PMSwiftObject") { oldObject, newObject in
                    guard let oldObject, let newObject else {
                        Issue.record("did not get objects in enumerate")
                        return
                    }
                    for object in [oldObject, newObject] {
                        #expect(object["boolCol"] as? Bool == true)
                        #expect(object["intCol"] as? Int == 123)
                        #expect(object["int8Col"] as? Int == 123)
                        #expect(object["int16Col"] as? Int == 123)
                        #expect(object["int32Col"] as? Int == 123)
                        #expect(object["int64Col"] as? Int == 123)
                        #expect(object["floatCol"] as? Float == 1.23)
                        #expect(object["doubleCol"] as? Double == 12.3)
                        #expect(object["binaryCol"] as? Data == Data("a".utf8))
                        #expect(object["dateCol"] as? Date == Date(timeIntervalSince1970: 1))
                        #expect(object["uuidCol"] as? UUID == PMSwiftObject.uuid)
                        #expect(object["objectCol"] as? PMBoolObject == nil)
                        #expect((object["objectCol"] as? MigrationObject)?["boolCol"] as? Bool == true)
                        let array = object["arrayCol"] as? [MigrationObject]
                        #expect(array?.map { $0["boolCol"] as? Bool } == [false])
                    }

                    // Edit every value.
                    newObject["boolCol"] = false
                    newObject["intCol"] = 1
                    newObject["int8Col"] = Int8(1)
                    newObject["int16Col"] = Int16(1)
                    newObject["int32Col"] = Int32(1)
                    newObject["int64Col"] = Int64(1)
                    newObject["floatCol"] = 1.0
                    newObject["doubleCol"] = 10.0
                    newObject["binaryCol"] = Data("b".utf8)
                    newObject["dateCol"] = Date(timeIntervalSince1970: 2)
                    let falseObject = PMBoolObject()
                    newObject["objectCol"] = falseObject

                    var list = newObject["arrayCol"] as? [MigrationObject] ?? []
                    list.first?["boolCol"] = true
                    if let linked = newObject["objectCol"] as? MigrationObject { list.append(linked) }
                    let trueObject = migration.create("PMBoolObject", value: [true])
                    list.append(trueObject)
                    newObject["arrayCol"] = list
                    let stored = newObject["arrayCol"] as? [MigrationObject]
                    #expect(stored?.map { $0["boolCol"] as? Bool } == [true, false, true])

                    expectRejected(
                        rejection { _ = try newObject._value(forKey: "noSuchKey") },
                        "Invalid property name 'noSuchKey' for class 'PMSwiftObject'.")
                    expectRejected(
                        rejection { try newObject._setValue(1, forKey: "noSuchKey") },
                        "Invalid property name 'noSuchKey' for class 'PMSwiftObject'.")
                    // The old object is read-only.
                    expectRejected(
                        rejection { try oldObject._setValue(false, forKey: "boolCol") },
                        "Cannot modify managed objects outside of a write transaction.")

                    // Set it again: the unmanaged object linked before is the same object.
                    newObject["arrayCol"] = [falseObject, trueObject]
                    #expect((newObject["arrayCol"] as? [MigrationObject])?.count == 2)
                    newObject["arrayCol"] = [PMBoolObject()]
                    let replaced = newObject["arrayCol"] as? [MigrationObject]
                    #expect(replaced?.map { $0["boolCol"] as? Bool } == [false])
                    enumerated = true
                }
                #expect(enumerated)

                // A created object takes the class's initial values.
                let created = migration.create("PMSwiftObject")
                #expect(created["boolCol"] as? Bool == false)
                #expect(created["intCol"] as? Int == 123)
                #expect(created["floatCol"] as? Float == 1.23)
                #expect(created["stringCol"] as? String == "a")
                #expect(created["binaryCol"] as? Data == Data("a".utf8))
                #expect(created["dateCol"] as? Date == Date(timeIntervalSince1970: 1))
                #expect(created["objectCol"] == nil)
                #expect((created["arrayCol"] as? [MigrationObject])?.isEmpty == true)
            } validation: { realm in
                guard let object = realm.objects(PMSwiftObject.self).first else {
                    Issue.record("no object")
                    return
                }
                #expect(object.boolCol == false)
                #expect(object.intCol == 1)
                #expect(object.int8Col == 1)
                #expect(object.int16Col == 1)
                #expect(object.int32Col == 1)
                #expect(object.int64Col == 1)
                #expect(object.floatCol == 1.0)
                #expect(object.doubleCol == 10.0)
                #expect(object.binaryCol == Data("b".utf8))
                #expect(object.dateCol == Date(timeIntervalSince1970: 2))
                #expect(object.objectCol?.boolCol == false)
                #expect(object.arrayCol.map(\.boolCol) == [false])
                // The first two, the object linked (once), the one created, the last list's.
                #expect(realm.objects(PMBoolObject.self).count == 5)
                #expect(realm.objects(PMSwiftObject.self).count == 2)
            }
        }

        @Test("Spec X21: lists of every element type read from an old object")
        func testCollectionAccess() throws {
            let files = PMFiles()
            try files.prepare(pmAllTypes) { realm in
                let object = PMListsObject()
                object.arrayInt.append(objectsIn: [1, 2])
                object.arrayOptInt.append(objectsIn: [nil, 3])
                realm.add(object)
            }
            try pmMigrate(files, pmAllTypes) { migration, _ in
                var enumerated = false
                migration.enumerateObjects(ofType: "PMListsObject") { oldObject, _ in
                    guard let oldObject else {
                        Issue.record("did not get objects in enumerate")
                        return
                    }
                    #expect((oldObject["arrayCol"] as? [MigrationObject])?.count == 0)
                    #expect((oldObject["arrayBool"] as? [Bool])?.count == 0)
                    #expect(oldObject["arrayInt"] as? [Int] == [1, 2])
                    #expect((oldObject["arrayInt8"] as? [Int])?.count == 0)
                    #expect((oldObject["arrayFloat"] as? [Float])?.count == 0)
                    #expect((oldObject["arrayDouble"] as? [Double])?.count == 0)
                    #expect((oldObject["arrayString"] as? [String])?.count == 0)
                    #expect((oldObject["arrayBinary"] as? [Data])?.count == 0)
                    #expect((oldObject["arrayDate"] as? [Date])?.count == 0)
                    #expect((oldObject["arrayUuid"] as? [UUID])?.count == 0)
                    #expect(oldObject["arrayOptInt"] as? [Int?] == [nil, 3])
                    #expect((oldObject["arrayOptString"] as? [String?])?.count == 0)
                    enumerated = true
                }
                #expect(enumerated)
            }
        }

        @Test("Spec X19: a changed class at the same schema version is a schema mismatch")
        func testFailOnSchemaMismatch() throws {
            let files = PMFiles()
            try files.prepare([PMv0.PMEmployeeObject.self])
            let error = rejection {
                _ = try Realm(
                    configuration: Realm.Configuration(
                        fileURL: files.defaultURL,
                        objectTypes: [PMEmployeeObject.self]))
            }
            expectRejected(
                error,
                "Migration is required due to the following errors:\n"
                    + "- Property 'PMEmployeeObject.age' has been added.\n"
                    + "- Property 'PMEmployeeObject.hired' has been added.", code: .schemaMismatch)
        }

        @Test("Spec X26: deleteRealmIfMigrationNeeded resets instead of failing, without the block")
        func testDeleteRealmIfMigrationNeededWithSetCustomSchema() throws {
            let files = PMFiles()
            try files.prepare([PMv0.PMEmployeeObject.self]) { realm in
                realm.create(PMv0.PMEmployeeObject.self, value: ["old"])
            }
            let ran = PMFlag()
            var configuration = Realm.Configuration(fileURL: files.defaultURL, objectTypes: [PMEmployeeObject.self])
            configuration.migrationBlock = { _, _ in ran.set() }
            configuration.deleteRealmIfMigrationNeeded = true
            let realm = try Realm(configuration: configuration)
            #expect(!ran.value, "the migration block should not be called")
            #expect(realm.objects(PMEmployeeObject.self).isEmpty)
        }

        @Test("Spec X19, X26: a mismatch fails, then deleteRealmIfMigrationNeeded empties the file")
        func testDeleteRealmIfMigrationNeeded() throws {
            let files = PMFiles()
            try files.prepare([PMEmployeeObject.self]) { realm in
                realm.create(PMEmployeeObject.self, value: ["name": "kept", "age": 30])
            }
            let fewer = Realm.Configuration(fileURL: files.defaultURL, objectTypes: [PMv0.PMEmployeeObject.self])
            let mismatch = rejection { _ = try Realm(configuration: fewer) }
            expectRejected(mismatch, "- Property 'PMEmployeeObject.age' has been removed.", code: .schemaMismatch)

            let ran = PMFlag()
            var configuration = fewer
            configuration.migrationBlock = { _, _ in ran.set() }
            configuration.deleteRealmIfMigrationNeeded = true
            let realm = try Realm(configuration: configuration)
            #expect(!ran.value, "the migration block should not be called")
            #expect(realm.isEmpty)
        }
    }
}

// MARK: - Objective-C MigrationTests.mm and realm-core migrations.cpp

/// A file at `url` made with `types` at `version`, with `body` run in a write; closed again.
func pmMake(
    _ url: URL, _ types: [Object.Type], version: UInt64 = 0,
    _ body: (Realm) throws -> Void = { _ in }
) throws {
    let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: version, objectTypes: types))
    try realm.write { try body(realm) }
}

/// Migrates the file at `url` to `types` at schema version 1 with `block` (Objective-C's
/// `migrateTestRealmWithBlock`) and returns a realm of it.
func pmMigrateFile(_ url: URL, _ types: [Object.Type], block: MigrationBlock? = nil) throws -> Realm {
    var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: types)
    configuration.migrationBlock = block
    try Realm.performMigration(for: configuration)
    return try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: types))
}

/// The error a migration to `types` at schema version 1 fails with (Objective-C's
/// `failToMigrateTestRealmWithBlock`).
func pmFailedMigration(_ url: URL, _ types: [Object.Type], block: MigrationBlock? = nil) -> Realm.Error? {
    var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: types)
    configuration.migrationBlock = block
    return rejection { try Realm._performMigration(for: configuration) }
}

extension RealmParityMigration {
    @Suite struct ObjcMigrationTests {
        let directory = temporaryDirectory()
        var url: URL { directory.appendingPathComponent("test.realm") }

        /// Objective-C's `assertMigrationRequiredForChangeFrom:to:`: at the same schema version
        /// the change fails with Realm's `line`; at a higher one the block runs and the file then
        /// opens with the new classes.
        func assertMigrationRequired(
            from: [Object.Type], to: [Object.Type], line: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            try pmMake(url, from)
            var same = Realm.Configuration(fileURL: url, objectTypes: to)
            let ran = PMFlag()
            same.migrationBlock = { _, _ in ran.set() }
            expectRejected(
                rejection { _ = try Realm(configuration: same) },
                "Migration is required due to the following errors:", code: .schemaMismatch,
                sourceLocation: sourceLocation)
            expectRejected(
                rejection { _ = try Realm(configuration: same) }, line, code: .schemaMismatch,
                sourceLocation: sourceLocation)
            #expect(!ran.value, "the block ran without a version change", sourceLocation: sourceLocation)
            var raised = same
            raised.schemaVersion = 1
            _ = try Realm(configuration: raised)
            #expect(ran.value, "the block did not run", sourceLocation: sourceLocation)
        }

        /// Objective-C's `assertNoMigrationRequiredForChangeFrom:to:`.
        func assertNoMigrationRequired(
            from: [Object.Type], to: [Object.Type],
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            try pmMake(url, from)
            var configuration = Realm.Configuration(fileURL: url, objectTypes: to)
            let ran = PMFlag()
            configuration.migrationBlock = { _, _ in ran.set() }
            _ = try Realm(configuration: configuration)
            #expect(!ran.value, "the migration block ran", sourceLocation: sourceLocation)
            #expect(try schemaVersionAtURL(url) == 0, sourceLocation: sourceLocation)
        }

        // MARK: schema versions

        @Test("Spec X19: a lower schema version than the file's fails the open")
        func testSchemaVersionCannotGoDown() throws {
            try pmMake(url, [PMTestObject.self], version: 10)
            #expect(try schemaVersionAtURL(url) == 10)
            let error = rejection {
                _ = try Realm(
                    configuration: Realm.Configuration(
                        fileURL: url, schemaVersion: 5,
                        objectTypes: [PMTestObject.self]))
            }
            expectRejected(error, "Provided schema version 5 is less than last set version 10.", code: .fail)
            #expect(try schemaVersionAtURL(url) == 10)
        }

        @Test("Spec X25: each file records its own schema version")
        func testDifferentSchemaVersionsAtDifferentPaths() throws {
            let other = directory.appendingPathComponent("other.realm")
            try pmMake(url, [PMTestObject.self], version: 10)
            try pmMake(other, [PMTestObject.self], version: 5)
            #expect(try schemaVersionAtURL(url) == 10)
            #expect(try schemaVersionAtURL(other) == 5)
        }

        // MARK: what needs a migration

        @Test("Spec X19: a class added to the configuration needs no migration")
        func testAddingClassDoesNotRequireMigration() throws {
            try assertNoMigrationRequired(from: [PMTestObject.self], to: [PMTestObject.self, PMStringObject.self])
        }

        @Test("Spec X19: a class left out of the configuration needs no migration")
        func testRemovingClassDoesNotRequireMigration() throws {
            try assertNoMigrationRequired(from: [PMTestObject.self, PMStringObject.self], to: [PMTestObject.self])
        }

        @Test("Spec X19: an added property needs a migration")
        func testAddingColumnRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMCol1Only.PMTwoStringObject.self], to: [PMTwoStringObject.self],
                line: "- Property 'PMTwoStringObject.col2' has been added.")
        }

        @Test("Spec X19: a removed property needs a migration")
        func testRemovingColumnRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMTwoStringObject.self], to: [PMCol1Only.PMTwoStringObject.self],
                line: "- Property 'PMTwoStringObject.col2' has been removed.")
        }

        @Test("Spec X19: an index added or removed needs no migration")
        func testAddingIndexDoesNotRequireMigration() throws {
            try assertNoMigrationRequired(from: [PMTwoStringObject.self], to: [PMIndexed.PMTwoStringObject.self])
        }

        @Test("Spec X19: an index removed needs no migration")
        func testRemovingIndexDoesNotRequireMigration() throws {
            try assertNoMigrationRequired(from: [PMIndexed.PMTwoStringObject.self], to: [PMTwoStringObject.self])
        }

        @Test("Spec X15, X19: a read-only open accepts different index flags")
        func testMismatchedIndexAllowedForReadOnly() throws {
            try pmMake(url, [PMIndexed.PMTwoStringObject.self]) { realm in
                realm.create(PMIndexed.PMTwoStringObject.self, value: ["a", "b"])
            }
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: url, readOnly: true,
                    objectTypes: [PMTwoStringObject.self]))
            #expect(realm.objects(PMTwoStringObject.self).map(\.col1) == ["a"])
        }

        @Test("Spec X19: adding a primary key needs a migration")
        func testAddingPrimaryKeyRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMTwoStringObject.self], to: [PMv0.PMTwoStringObject.self],
                line: "- Primary Key for class 'PMTwoStringObject' has been added.")
        }

        @Test("Spec X19: removing a primary key needs a migration")
        func testRemovingPrimaryKeyRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMv0.PMTwoStringObject.self], to: [PMTwoStringObject.self],
                line: "- Primary Key for class 'PMTwoStringObject' has been removed.")
        }

        @Test("Spec X19: changing the primary key needs a migration")
        func testChangingPrimaryKeyRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMv0.PMTwoStringObject.self], to: [PMKeyOnCol2.PMTwoStringObject.self],
                line: "- Primary Key for class 'PMTwoStringObject' has changed from 'col1' to 'col2'.")
        }

        @Test("Spec X19: making a property optional needs a migration")
        func testMakingPropertyOptionalRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMRequiredCol1.PMTwoStringObject.self], to: [PMTwoStringObject.self],
                line: "- Property 'PMTwoStringObject.col1' has been made optional.")
        }

        @Test("Spec X19: making a property required needs a migration")
        func testMakingPropertyNonOptionalRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMTwoStringObject.self], to: [PMRequiredCol1.PMTwoStringObject.self],
                line: "- Property 'PMTwoStringObject.col1' has been made required.")
        }

        @Test("Spec X19: changing a link's target class needs a migration")
        func testChangingLinkTargetRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMLinkObject.self], to: [PMRetargeted.PMLinkObject.self],
                line: "- Property 'PMLinkObject.object' has been changed from '<PMTestObject>' to '<PMLinkObject>'.")
        }

        @Test("Spec X19: changing a list's target class needs a migration")
        func testChangingLinkListTargetRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMLinkObject.self], to: [PMRetargetedList.PMLinkObject.self],
                line:
                    "- Property 'PMLinkObject.array' has been changed from 'array<PMTestObject>' to 'array<PMLinkObject>'."
            )
        }

        @Test("Spec X19: changing a property's type needs a migration")
        func testChangingPropertyTypesRequiresMigration() throws {
            try assertMigrationRequired(
                from: [PMTwoStringObject.self], to: [PMIntCol1.PMTwoStringObject.self],
                line: "- Property 'PMTwoStringObject.col1' has been changed from 'string' to 'int'.")
        }

        // MARK: when the block runs

        @Test("Spec X19: creating a file never runs the block")
        func testMigrationBlockNotCalledForIntialRealmCreation() throws {
            let ran = PMFlag()
            var configuration = Realm.Configuration(fileURL: url, schemaVersion: 3, objectTypes: [PMTestObject.self])
            configuration.migrationBlock = { _, _ in ran.set() }
            _ = try Realm(configuration: configuration)
            #expect(!ran.value)
            #expect(try schemaVersionAtURL(url) == 3)
        }

        @Test("Spec X19, X25: the same schema version never runs the block")
        func testMigrationBlockNotCalledWhenSchemaVersionIsUnchanged() throws {
            try pmMake(url, [PMTestObject.self], version: 1)
            let ran = PMFlag()
            var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [PMTestObject.self])
            configuration.migrationBlock = { _, _ in ran.set() }
            _ = try Realm(configuration: configuration)
            try Realm.performMigration(for: configuration)
            #expect(!ran.value)
        }

        @Test("Spec X19, X25: each raise of the schema version runs the block once, with the old version")
        func testMigrationBlockCalledWhenSchemaVersionHasChanged() throws {
            try pmMake(url, [PMTestObject.self], version: 1)
            let seen = Mutex<[UInt64]>([])
            var configuration = Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [PMTestObject.self])
            configuration.migrationBlock = { _, oldSchemaVersion in seen.withLock { $0.append(oldSchemaVersion) } }
            do { _ = try Realm(configuration: configuration) }
            configuration.schemaVersion = 3
            try Realm.performMigration(for: configuration)
            #expect(seen.withLock { $0 } == [1, 2])
        }

        // MARK: what a migration leaves

        @Test("Spec X20, X21: an added property starts at zero; the old object lacks it")
        func testAddingPropertyAtEnd() throws {
            try pmMake(url, [PMv0.PMTestObject.self]) { realm in
                realm.create(PMv0.PMTestObject.self, value: [1])
                realm.create(PMv0.PMTestObject.self, value: [2])
            }
            let realm = try pmMigrateFile(url, [PMTestObject.self]) { migration, oldSchemaVersion in
                #expect(oldSchemaVersion == 0)
                migration.enumerateObjects(ofType: "PMTestObject") { oldObject, newObject in
                    expectRejected(
                        rejection { _ = try oldObject?._value(forKey: "stringCol") },
                        "Invalid property name 'stringCol' for class 'PMTestObject'.")
                    #expect(newObject?["stringCol"] as? String == "")
                    #expect(newObject?["intCol"] as? Int == oldObject?["intCol"] as? Int)
                    newObject?["stringCol"] = "\(oldObject?["intCol"] as? Int ?? -1)"
                }
            }
            let objects = realm.objects(PMTestObject.self)
            #expect(objects.map(\.intCol) == [1, 2])
            #expect(objects.map(\.stringCol) == ["1", "2"])
        }

        @Test("Spec X20, X21: a removed property reads on old objects only, and is gone after")
        func testRemoveProperty() throws {
            try pmMake(url, [PMWithDeleted.PMTestObject.self]) { realm in
                realm.create(PMWithDeleted.PMTestObject.self, value: [1, "1", true])
                realm.create(PMWithDeleted.PMTestObject.self, value: [2, "2", false])
            }
            do {
                let realm = try pmMigrateFile(url, [PMTestObject.self]) { migration, _ in
                    migration.enumerateObjects(ofType: "PMTestObject") { oldObject, newObject in
                        #expect(oldObject?["deletedCol"] is Bool)
                        expectRejected(
                            rejection { _ = try newObject?._value(forKey: "deletedCol") },
                            "Invalid property name 'deletedCol' for class 'PMTestObject'.")
                        #expect(newObject?["intCol"] as? Int == oldObject?["intCol"] as? Int)
                        #expect(newObject?["stringCol"] as? String == oldObject?["stringCol"] as? String)
                    }
                }
                #expect(realm.objects(PMTestObject.self).map(\.stringCol) == ["1", "2"])
            }
            // Closed, the file opens with the old class only as a schema mismatch.
            let reopened = rejection {
                _ = try Realm(
                    configuration: Realm.Configuration(
                        fileURL: url, schemaVersion: 1,
                        objectTypes: [PMWithDeleted.PMTestObject.self]))
            }
            expectRejected(reopened, "- Property 'PMTestObject.deletedCol' has been added.", code: .schemaMismatch)
        }

        @Test("Spec X20, X21: a property removed and another added: old and new objects each have theirs")
        func testRemoveAndAddProperty() throws {
            try pmMake(url, [PMOldInt.PMTestObject.self]) { realm in
                realm.create(PMOldInt.PMTestObject.self, value: [1, "1"])
                realm.create(PMOldInt.PMTestObject.self, value: [1, "2"])
            }
            _ = try pmMigrateFile(url, [PMTestObject.self]) { migration, _ in
                migration.enumerateObjects(ofType: "PMTestObject") { oldObject, newObject in
                    #expect(oldObject?["oldIntCol"] as? Int == 1)
                    expectRejected(rejection { _ = try oldObject?._value(forKey: "intCol") }, "Invalid property name")
                    #expect(newObject?["intCol"] as? Int == 0, "the new column is zero")
                    expectRejected(
                        rejection { _ = try newObject?._value(forKey: "oldIntCol") }, "Invalid property name")
                }
            }
        }

        @Test("Spec X20: a property whose type changed starts at zero; the old object has the old value")
        func testChangePropertyType() throws {
            try pmMake(url, [PMIntString.PMTestObject.self]) { realm in
                realm.create(PMIntString.PMTestObject.self, value: [1, 1])
                realm.create(PMIntString.PMTestObject.self, value: [2, 2])
            }
            let realm = try pmMigrateFile(url, [PMTestObject.self]) { migration, oldSchemaVersion in
                #expect(oldSchemaVersion == 0)
                migration.enumerateObjects(ofType: "PMTestObject") { oldObject, newObject in
                    #expect(newObject?["intCol"] as? Int == oldObject?["intCol"] as? Int)
                    #expect(newObject?["stringCol"] as? String == "")
                    let number = oldObject?["stringCol"] as? Int
                    #expect(number != nil, "the old stringCol is an Int")
                    newObject?["stringCol"] = number.map(String.init)
                }
            }
            #expect(realm.objects(PMTestObject.self).map(\.stringCol) == ["1", "2"])
        }

        @Test("Spec X20: a link whose target class changed starts nil; the old object still links")
        func testChangeObjectLinkType() throws {
            try pmMake(url, [PMLinkObject.self]) { realm in
                let target = realm.create(PMTestObject.self, value: [1, "1"])
                realm.create(PMLinkObject.self, value: ["object": target, "array": [target]])
            }
            let checked = PMFlag()
            _ = try pmMigrateFile(url, [PMRetargeted.PMLinkObject.self]) { migration, _ in
                migration.enumerateObjects(ofType: "PMLinkObject") { oldObject, newObject in
                    #expect((oldObject?["object"] as? MigrationObject)?["intCol"] as? Int == 1)
                    #expect(newObject?["object"] == nil)
                    #expect((oldObject?["array"] as? [MigrationObject])?.count == 1)
                    #expect((newObject?["array"] as? [MigrationObject])?.count == 1)
                    checked.set()
                }
            }
            #expect(checked.count == 1)
        }

        @Test("Spec X20: a list whose target class changed starts empty")
        func testChangeArrayLinkType() throws {
            try pmMake(url, [PMLinkObject.self]) { realm in
                let target = realm.create(PMTestObject.self, value: [1, "1"])
                realm.create(PMLinkObject.self, value: ["object": target, "array": [target]])
            }
            let checked = PMFlag()
            _ = try pmMigrateFile(url, [PMRetargetedList.PMLinkObject.self]) { migration, _ in
                migration.enumerateObjects(ofType: "PMLinkObject") { oldObject, newObject in
                    #expect(oldObject?["object"] is MigrationObject)
                    #expect(newObject?["object"] is MigrationObject)
                    #expect((oldObject?["array"] as? [MigrationObject])?.count == 1)
                    #expect((newObject?["array"] as? [MigrationObject])?.count == 0)
                    checked.set()
                }
            }
            #expect(checked.count == 1)
        }

        @Test("Spec X20: values of a required property made optional are kept")
        func testRequiredToNullableAutoMigration() throws {
            try pmMake(url, [PMv0.PMAllOptionalTypes.self]) { realm in
                realm.create(
                    PMv0.PMAllOptionalTypes.self,
                    value: [1, Float(1), 1.0, true, "str", Data("data".utf8), Date(timeIntervalSince1970: 1)])
                realm.create(
                    PMv0.PMAllOptionalTypes.self,
                    value: [2, Float(2), 2.0, false, "str2", Data("data2".utf8), Date(timeIntervalSince1970: 2)])
            }
            let realm = try pmMigrateFile(url, [PMAllOptionalTypes.self])
            let objects = Array(realm.objects(PMAllOptionalTypes.self))
            #expect(objects.count == 2)
            #expect(objects.map(\.intObj) == [1, 2])
            #expect(objects.map(\.floatObj) == [1, 2])
            #expect(objects.map(\.doubleObj) == [1, 2])
            #expect(objects.map(\.boolObj) == [true, false])
            #expect(objects.map(\.string) == ["str", "str2"])
            #expect(objects.map(\.data) == [Data("data".utf8), Data("data2".utf8)])
            #expect(objects.map(\.date) == [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2)])
        }

        @Test("Spec X20: values of an optional property made required are dropped for zero")
        func testNullableToRequiredMigration() throws {
            try pmMake(url, [PMAllOptionalTypes.self]) { realm in
                realm.create(
                    PMAllOptionalTypes.self,
                    value: [
                        NSNull(), NSNull(), NSNull(), NSNull(), NSNull(), NSNull(),
                        NSNull(),
                    ])
                realm.create(
                    PMAllOptionalTypes.self,
                    value: [2, Float(2), 2.0, false, "str2", Data("data2".utf8), Date(timeIntervalSince1970: 2)])
            }
            let realm = try pmMigrateFile(url, [PMv0.PMAllOptionalTypes.self])
            let objects = Array(realm.objects(PMv0.PMAllOptionalTypes.self))
            #expect(objects.count == 2)
            for object in objects {
                #expect(object.intObj == 0)
                #expect(object.floatObj == 0)
                #expect(object.doubleObj == 0)
                #expect(object.boolObj == false)
                #expect(object.string == "")
                #expect(object.data == Data())
                #expect(object.date == Date(timeIntervalSince1970: 0))
            }
        }

        // MARK: primary keys

        @Test("Spec X20, X23: making a property the primary key keeps its values")
        func testMakingPropertyPrimaryPreservesValues() throws {
            try pmMake(url, [PMTwoStringObject.self]) { realm in
                realm.create(PMTwoStringObject.self, value: ["1"])
                realm.create(PMTwoStringObject.self, value: ["2"])
            }
            let realm = try pmMigrateFile(url, [PMv0.PMTwoStringObject.self])
            #expect(realm.objects(PMv0.PMTwoStringObject.self).map(\.col1) == ["1", "2"])
            #expect(realm.object(ofType: PMv0.PMTwoStringObject.self, forPrimaryKey: "2")?.col1 == "2")
        }

        @Test("Spec X23, X24: duplicates of a new primary key fail the migration; deleting them lets it pass")
        func testAddingPrimaryKeyShouldRejectDuplicateValues() throws {
            try pmMake(url, [PMv0.PMPrimaryIntObject.self]) { realm in
                realm.create(PMv0.PMPrimaryIntObject.self, value: [1])
                realm.create(PMv0.PMPrimaryIntObject.self, value: [1])
            }
            expectRejected(
                pmFailedMigration(url, [PMPrimaryIntObject.self]),
                "Primary key property 'PMPrimaryIntObject.intCol' has duplicate values after migration.",
                code: .fail)
            let deleted = PMFlag()
            let realm = try pmMigrateFile(url, [PMPrimaryIntObject.self]) { migration, _ in
                var seen = Set<Int>()
                migration.enumerateObjects(ofType: "PMPrimaryIntObject") { _, newObject in
                    guard let newObject, let value = newObject["intCol"] as? Int else { return }
                    if seen.contains(value) {
                        migration.delete(newObject)
                        deleted.set()
                    } else {
                        seen.insert(value)
                    }
                }
            }
            #expect(deleted.count == 1)
            #expect(realm.objects(PMPrimaryIntObject.self).map(\.intCol) == [1])
        }

        @Test("Spec X24: a failed migration leaves the file as it was")
        func testIncompleteMigrationIsRolledBack() throws {
            try pmMake(url, [PMv0.PMPrimaryIntObject.self]) { realm in
                realm.create(PMv0.PMPrimaryIntObject.self, value: [1])
                realm.create(PMv0.PMPrimaryIntObject.self, value: [1])
            }
            #expect(pmFailedMigration(url, [PMPrimaryIntObject.self]) != nil)
            #expect(try schemaVersionAtURL(url) == 0)
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: url,
                    objectTypes: [PMv0.PMPrimaryIntObject.self]))
            #expect(realm.objects(PMv0.PMPrimaryIntObject.self).map(\.intCol) == [1, 1])
        }

        @Test("Spec X23: primary key values change freely during the block")
        func testModifyPrimaryKeyInMigration() throws {
            try pmMake(url, [PMv0.PMPrimaryStringObject.self]) { realm in
                for index in 0..<10 { realm.create(PMv0.PMPrimaryStringObject.self, value: ["\(index)", index + 10]) }
            }
            let realm = try pmMigrateFile(url, [PMPrimaryStringObject.self]) { migration, _ in
                migration.enumerateObjects(ofType: "PMPrimaryStringObject") { oldObject, newObject in
                    newObject?["stringCol"] = "\(oldObject?["intCol"] as? Int ?? -1)"
                }
            }
            for index in 10..<20 {
                let object = realm.object(ofType: PMPrimaryStringObject.self, forPrimaryKey: "\(index)")
                #expect(object?.intCol == index)
            }
        }

        @Test("Spec X21: a class the new schema lacks enumerates its old objects with no new ones")
        func testEnumerateObjectTypeRemovedFromSchema() throws {
            try pmMake(url, [PMIntObject.self]) { realm in
                realm.create(PMIntObject.self, value: [1])
                realm.create(PMIntObject.self, value: [2])
            }
            let calls = PMFlag()
            _ = try pmMigrateFile(url, [PMStringObject.self]) { migration, _ in
                migration.enumerateObjects(ofType: "PMIntObject") { oldObject, newObject in
                    #expect(oldObject != nil)
                    #expect(newObject == nil)
                    #expect((oldObject?["intCol"] as? Int ?? 0) > 0)
                    calls.set()
                }
            }
            #expect(calls.count == 2)
        }

        @Test("Spec X21, X23: objects deleted and created again, with and without a primary key")
        func testDeleteAndRecreateObjectsWithinMigration() throws {
            try pmMake(url, [PMIntObject.self, PMPrimaryIntObject.self]) { realm in
                for value in [1, 2] {
                    realm.create(PMIntObject.self, value: [value])
                    realm.create(PMPrimaryIntObject.self, value: [value])
                }
            }
            let types: [Object.Type] = [PMIntObject.self, PMPrimaryIntObject.self]
            let realm = try pmMigrateFile(url, types) { migration, _ in
                for type in ["PMIntObject", "PMPrimaryIntObject"] {
                    migration.enumerateObjects(ofType: type) { _, newObject in
                        if let newObject { migration.delete(newObject) }
                    }
                    migration.create(type, value: [2])
                    migration.create(type, value: [4])
                }
            }
            #expect(realm.objects(PMIntObject.self).map(\.intCol) == [2, 4])
            #expect(realm.objects(PMPrimaryIntObject.self).map(\.intCol) == [2, 4])
        }

        @Test("Spec X21, X23: every object deleted with deleteData, then created again")
        func testDeleteAllDataAndRecreateObjectsWithinMigration() throws {
            try pmMake(url, [PMIntObject.self, PMPrimaryIntObject.self]) { realm in
                for value in [1, 2] {
                    realm.create(PMIntObject.self, value: [value])
                    realm.create(PMPrimaryIntObject.self, value: [value])
                }
            }
            let types: [Object.Type] = [PMIntObject.self, PMPrimaryIntObject.self]
            let realm = try pmMigrateFile(url, types) { migration, _ in
                for type in ["PMIntObject", "PMPrimaryIntObject"] {
                    migration.deleteData(forType: type)
                    migration.create(type, value: [2])
                    migration.create(type, value: [4])
                }
            }
            #expect(realm.objects(PMIntObject.self).map(\.intCol) == [2, 4])
            #expect(realm.objects(PMPrimaryIntObject.self).map(\.intCol) == [2, 4])
        }

        @Test("Spec X20, X23: core migrations.cpp 'add property to existing object schema', with a primary key")
        func addPropertyToExistingObjectSchema() throws {
            try pmMake(url, [PMv0.PMPrimaryStringObject.self]) { realm in
                realm.create(PMv0.PMPrimaryStringObject.self, value: ["a", 1])
            }
            // PMv0.PMPrimaryStringObject keyed on intCol; the new class keys stringCol: the key
            // moves, and every object keeps its values.
            let realm = try pmMigrateFile(url, [PMPrimaryStringObject.self])
            #expect(realm.object(ofType: PMPrimaryStringObject.self, forPrimaryKey: "a")?.intCol == 1)
            try realm.write { realm.create(PMPrimaryStringObject.self, value: ["b", 2]) }
            #expect(realm.objects(PMPrimaryStringObject.self).count == 2)
        }

        @Test("Spec X23: core migrations.cpp 'insert duplicate keys for existing PK during migration'")
        func insertDuplicateKeysForExistingPKDuringMigration() throws {
            try pmMake(url, [PMPrimaryIntObject.self]) { realm in realm.create(PMPrimaryIntObject.self, value: [1]) }
            let error = pmFailedMigration(url, [PMPrimaryIntObject.self]) { migration, _ in
                migration.create("PMPrimaryIntObject", value: [1])
            }
            expectRejected(
                error, "Primary key property 'PMPrimaryIntObject.intCol' has duplicate values after migration.",
                code: .fail)
            // Moving the old object's key first makes room for the new one.
            let realm = try pmMigrateFile(url, [PMPrimaryIntObject.self]) { migration, _ in
                migration.enumerateObjects(ofType: "PMPrimaryIntObject") { _, newObject in newObject?["intCol"] = 5 }
                migration.create("PMPrimaryIntObject", value: [1])
            }
            #expect(realm.objects(PMPrimaryIntObject.self).map(\.intCol) == [1, 5])
        }

        @Test("Spec X21, X23: links follow an object whose primary key the migration changed")
        func modifyExistingIntPrimaryKeyValuesInMigration() throws {
            try pmMake(url, [PMPrimaryIntObject.self, PMLinkHolder.self]) { realm in
                for value in 1...5 { realm.create(PMPrimaryIntObject.self, value: [value]) }
                let target = realm.object(ofType: PMPrimaryIntObject.self, forPrimaryKey: 3)
                realm.create(PMLinkHolder.self, value: ["link": target as Any, "list": [target as Any]])
            }
            let types: [Object.Type] = [PMPrimaryIntObject.self, PMLinkHolder.self]
            let realm = try pmMigrateFile(url, types) { migration, _ in
                migration.enumerateObjects(ofType: "PMPrimaryIntObject") { oldObject, newObject in
                    newObject?["intCol"] = (oldObject?["intCol"] as? Int ?? 0) + 1
                }
            }
            #expect(realm.objects(PMPrimaryIntObject.self).map(\.intCol) == [2, 3, 4, 5, 6])
            let holder = realm.objects(PMLinkHolder.self).first
            #expect(holder?.link?.intCol == 4)
            #expect(holder?.list.map(\.intCol) == [4])
        }

        @Test("Spec X26: core migrations.cpp 'file is reset when schema version increases'")
        func fileIsResetWhenSchemaVersionIncreases() throws {
            try pmMake(url, [PMTestObject.self]) { realm in realm.create(PMTestObject.self, value: [1, "1"]) }
            let ran = PMFlag()
            var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [PMTestObject.self])
            configuration.migrationBlock = { _, _ in ran.set() }
            configuration.deleteRealmIfMigrationNeeded = true
            do {
                let realm = try Realm(configuration: configuration)
                #expect(realm.isEmpty, "the same classes, a higher version: the objects go")
                try realm.write { realm.create(PMTestObject.self, value: [2, "2"]) }
            }
            #expect(!ran.value)
            #expect(try schemaVersionAtURL(url) == 1)
            // A lower version resets too, where it would otherwise fail.
            configuration.schemaVersion = 0
            #expect(try Realm(configuration: configuration).isEmpty)
            #expect(try schemaVersionAtURL(url) == 0)
            var readOnly = configuration
            readOnly.readOnly = true
            expectRejected(
                rejection { _ = try Realm._open(configuration: readOnly, queue: nil) },
                "Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
        }

        @Test("Spec X19, X26: core migrations.cpp 'file is not reset when adding a new table'")
        func fileIsNotResetWhenAddingANewTable() throws {
            try pmMake(url, [PMTestObject.self]) { realm in realm.create(PMTestObject.self, value: [1, "1"]) }
            var configuration = Realm.Configuration(
                fileURL: url, objectTypes: [PMTestObject.self, PMStringObject.self])
            configuration.deleteRealmIfMigrationNeeded = true
            let realm = try Realm(configuration: configuration)
            #expect(realm.objects(PMTestObject.self).map(\.intCol) == [1])
            #expect(realm.objects(PMStringObject.self).isEmpty)
        }

        // MARK: renaming properties

        @Test("Spec X22: a rename through an intermediate name; one left there fails the migration")
        func testMultipleMigrationRenameProperty() throws {
            try pmMake(url, [PMv0.PMStringObject.self]) { realm in realm.create(PMv0.PMStringObject.self, value: ["a"])
            }
            let dangling = pmFailedMigration(url, [PMStringObject.self]) { migration, _ in
                migration.renameProperty(onType: "PMStringObject", from: "before_stringCol", to: "middle")
            }
            expectRejected(dangling, "Renamed property 'PMStringObject.middle' does not exist.", code: .fail)
            let realm = try pmMigrateFile(url, [PMStringObject.self]) { migration, _ in
                migration.renameProperty(onType: "PMStringObject", from: "before_stringCol", to: "middle")
                migration.renameProperty(onType: "PMStringObject", from: "middle", to: "stringCol")
            }
            #expect(realm.objects(PMStringObject.self).map(\.stringCol) == ["a"])
        }

        @Test("Spec X22: a rename to a property of another type fails the migration")
        func testMigrationRenamePropertyTypeMismatch() throws {
            try pmMake(url, [PMOldInt.PMTestObject.self]) { realm in
                realm.create(PMOldInt.PMTestObject.self, value: [1, "x"])
            }
            let mismatch = pmFailedMigration(url, [PMRenamedToString.PMTestObject.self]) { migration, _ in
                migration.renameProperty(onType: "PMTestObject", from: "oldIntCol", to: "renamed")
            }
            expectRejected(
                mismatch,
                "Cannot rename property 'PMTestObject.oldIntCol' to 'renamed' because it would "
                    + "change from type 'int' to 'string'.", code: .fail)
        }

        @Test("Spec X22: a rename of an optional property to a required one fails the migration")
        func testMigrationRenamePropertySetRequired() throws {
            try pmMake(url, [PMTwoStringObject.self]) { realm in
                realm.create(PMTwoStringObject.self, value: ["a", "b"])
            }
            let error = pmFailedMigration(url, [PMRenamedRequired.PMTwoStringObject.self]) { migration, _ in
                migration.renameProperty(onType: "PMTwoStringObject", from: "col1", to: "renamed")
            }
            expectRejected(
                error,
                "Cannot rename property 'PMTwoStringObject.col1' to 'renamed' because it would "
                    + "change from optional to required.", code: .fail)
        }

        @Test("Spec X22: renames of missing properties and classes fail the migration with Realm's messages")
        func testMigrationRenameMissingPropertiesAndClasses() throws {
            try pmMake(url, [PMv0.PMStringObject.self]) { realm in realm.create(PMv0.PMStringObject.self, value: ["a"])
            }
            let types: [Object.Type] = [PMStringObject.self]
            let cases: [(String, String, String, String)] = [
                (
                    "PMStringObject", "nonExistentProperty1", "stringCol",
                    "Cannot rename property 'PMStringObject.nonExistentProperty1' because it does not exist."
                ),
                ("NoSuchClass", "a", "b", "Cannot rename properties for type 'NoSuchClass' because it does not exist."),
                (
                    "PMStringObject", "stringCol", "other",
                    "Cannot rename property 'PMStringObject.stringCol' to 'other' because the source property still exists."
                ),
            ]
            for (type, from, to, message) in cases {
                let error = pmFailedMigration(url, types) { migration, _ in
                    migration.renameProperty(onType: type, from: from, to: to)
                }
                expectRejected(error, message, code: .fail)
            }
            try pmMake(directory.appendingPathComponent("removed.realm"), [PMIntObject.self])
            let removed = pmFailedMigration(directory.appendingPathComponent("removed.realm"), types) { migration, _ in
                migration.renameProperty(onType: "PMIntObject", from: "intCol", to: "value")
            }
            expectRejected(
                removed,
                "Cannot rename properties for type 'PMIntObject' because it has been removed from "
                    + "the Realm.", code: .fail)
            #expect(try schemaVersionAtURL(url) == 0)
        }
    }
}

// MARK: - Strata's own: open files, crashes and failed commits

extension RealmParityMigration {
    @Suite struct StrataMigrationTests {
        /// A configuration of the realm on `disk` with `types` at `version`.
        static func configuration(
            _ disk: SimStore, _ types: [Object.Type], version: UInt64,
            hooks: EngineHooks = .none
        ) -> Realm.Configuration {
            var configuration = Realm.Configuration(
                fileURL: URL(fileURLWithPath: "/pm-crash/\(disk.name).realm"),
                schemaVersion: version, objectTypes: types)
            configuration._engine = .init(simulatedStore: disk, hooks: hooks)
            return configuration
        }

        /// Ten objects keyed by `intCol` (10...19), `stringCol` "0"..."9", at schema version 0.
        static func prepare(_ disk: SimStore) throws {
            let realm = try Realm(configuration: configuration(disk, [PMv0.PMPrimaryStringObject.self], version: 0))
            try realm.write {
                for index in 0..<10 { realm.create(PMv0.PMPrimaryStringObject.self, value: ["\(index)", index + 10]) }
            }
        }

        /// The migration of `prepare`'s file: the key moves to `stringCol`, set from `intCol`.
        static let moveKey: MigrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "PMPrimaryStringObject") { oldObject, newObject in
                newObject?["stringCol"] = "\(oldObject?["intCol"] as? Int ?? -1)"
            }
        }

        /// The schema version `disk` records.
        static func recordedVersion(_ disk: SimStore) throws -> UInt64 {
            let store = try Store.open(.simulated(disk), options: StoreOptions(create: false))
            defer { store.close() }
            let read = try store.beginRead()
            defer { read.end() }
            return read.schemaVersion
        }

        /// `disk` holds `prepare`'s data unmigrated (version 0) or entirely migrated (version 1).
        /// Returns the version it found.
        static func expectOldOrNew(_ disk: SimStore, _ what: String) throws -> UInt64 {
            let version = try recordedVersion(disk)
            if version == 0 {
                let realm = try Realm(configuration: configuration(disk, [PMv0.PMPrimaryStringObject.self], version: 0))
                let objects = realm.objects(PMv0.PMPrimaryStringObject.self)
                #expect(objects.map(\.intCol) == Array(10..<20), "\(what)")
                #expect(objects.map(\.stringCol) == (0..<10).map { "\($0)" }, "\(what)")
            } else {
                #expect(version == 1, "\(what)")
                let realm = try Realm(configuration: configuration(disk, [PMPrimaryStringObject.self], version: 1))
                for index in 10..<20 {
                    let object = realm.object(ofType: PMPrimaryStringObject.self, forPrimaryKey: "\(index)")
                    #expect(object?.intCol == index, "\(what)")
                }
                #expect(realm.objects(PMPrimaryStringObject.self).count == 10, "\(what)")
            }
            return version
        }

        @Test("Spec X24: a crash anywhere in a migration's commit leaves the old file or the migrated one")
        func crashDuringTheMigrationCommit() throws {
            let disk = try SimStore(name: "pm-crash-\(UUID().uuidString)", reservationBytes: 64 << 20)
            try Self.prepare(disk)
            let states = Mutex<[String: SimStore.State]>([:])
            let hooks = EngineHooks(yield: { point in
                switch point {
                case .phaseOneSync: states.withLock { $0["before the page sync"] = disk.captureState() }
                case .slotWrite: states.withLock { $0["before the slot write"] = disk.captureState() }
                case .phaseTwoSync: states.withLock { $0["before the slot sync"] = disk.captureState() }
                default: break
                }
            })
            var migrating = Self.configuration(disk, [PMPrimaryStringObject.self], version: 1, hooks: hooks)
            migrating.migrationBlock = { migration, oldSchemaVersion in
                Self.moveKey(migration, oldSchemaVersion)
                states.withLock { $0["inside the block"] = disk.captureState() }
            }
            do { _ = try Realm(configuration: migrating) }
            let captured = states.withLock { $0 }
            #expect(captured.count == 4)
            var found = Set<UInt64>()
            for (point, state) in captured.sorted(by: { $0.key < $1.key }) {
                let count = state.pendingWrites.count
                let plans: [(String, SimStore.CrashPlan)] = [
                    ("every pending write lost", .allLost),
                    ("every pending write applied", .allApplied(count: count)),
                    (
                        "every pending write torn",
                        SimStore.CrashPlan(
                            fates: Array(repeating: .tornSectors(newSectorMask: 1), count: count))
                    ),
                ]
                for (name, plan) in plans {
                    let image = try SimStore(
                        crashing: state, plan: plan, name: "pm-image-\(UUID().uuidString)",
                        reservationBytes: 64 << 20)
                    found.insert(try Self.expectOldOrNew(image, "\(point), \(name)"))
                }
            }
            #expect(found == [0, 1], "both outcomes are reachable: \(found)")
        }

        @Test("Spec X24: a migration whose commit fails leaves the old file, and the next open migrates it")
        func failedMigrationCommit() throws {
            let disk = try SimStore(name: "pm-fault-\(UUID().uuidString)", reservationBytes: 64 << 20)
            try Self.prepare(disk)
            let hooks = EngineHooks(fault: { site in
                if case .phaseOneSync = site { return .eio }
                return nil
            })
            var failing = Self.configuration(disk, [PMPrimaryStringObject.self], version: 1, hooks: hooks)
            failing.migrationBlock = Self.moveKey
            let error = rejection { _ = try Realm(configuration: failing) }
            #expect(error != nil, "the commit's sync failed")
            try disk.crash(.allLost)
            #expect(try Self.expectOldOrNew(disk, "after the failed commit") == 0)
            var migrating = Self.configuration(disk, [PMPrimaryStringObject.self], version: 1)
            migrating.migrationBlock = Self.moveKey
            do { _ = try Realm(configuration: migrating) }
            #expect(try Self.expectOldOrNew(disk, "after the second migration") == 1)
        }

        @Test("Spec X19, X25: a file this process has open is not migrated")
        func performMigrationRefusesAnOpenFile() throws {
            let url = temporaryDirectory().appendingPathComponent("open.realm")
            let configuration = Realm.Configuration(fileURL: url, objectTypes: [PMTestObject.self])
            var raised = configuration
            raised.schemaVersion = 1
            do {
                let realm = try Realm(configuration: configuration)
                expectRejected(
                    rejection { try Realm._performMigration(for: raised) },
                    "Cannot migrate Realms that are already open.")
                expectRejected(
                    rejection { _ = try Realm._open(configuration: raised, queue: nil) },
                    "already opened with different schema version")
                #expect(realm.objects(PMTestObject.self).isEmpty)
            }
            try Realm.performMigration(for: raised)
            #expect(try schemaVersionAtURL(url) == 1)
        }

        @Test("Spec X21: with no declared classes a migration keeps the stored ones, readable and writable")
        func migrationWithoutObjectTypes() throws {
            let url = temporaryDirectory().appendingPathComponent("untyped.realm")
            try pmMake(url, [PMStringObject.self]) { realm in realm.create(PMStringObject.self, value: ["a"]) }
            var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1)
            configuration.migrationBlock = { migration, _ in
                migration.enumerateObjects(ofType: "PMStringObject") { oldObject, newObject in
                    newObject?["stringCol"] = "\(oldObject?["stringCol"] as? String ?? "")b"
                }
                migration.create("PMStringObject", value: ["c"])
            }
            let realm = try Realm(configuration: configuration)
            #expect(realm.objects(PMStringObject.self).map(\.stringCol) == ["ab", "c"])
        }
    }
}

/// A link and a list of links to `PMPrimaryIntObject`.
final class PMLinkHolder: Object {
    @Persisted var link: PMPrimaryIntObject?
    @Persisted var list: List<PMPrimaryIntObject>
}

/// `PMTestObject` whose `oldIntCol` became the String `renamed`.
enum PMRenamedToString {
    final class PMTestObject: Object {
        @Persisted var renamed: String
        @Persisted var stringCol: String
    }
}

/// `PMTwoStringObject` whose optional `col1` became the required `renamed`.
enum PMRenamedRequired {
    final class PMTwoStringObject: Object {
        @Persisted var renamed: String
        @Persisted var col2: String?
    }
}
