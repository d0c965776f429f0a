import Foundation
import Strata
import Synchronization
import Testing

// Fixtures and helpers of the migration parity suites (MigrationTests.swift in this folder):
// our versions of the RealmSwift and Objective-C test objects, prefixed `PM` (parity
// migrations). A class as an earlier schema version stored it is a class of the same name in
// a namespace enum (`PMv0.PMStringObject` is stored as "PMStringObject"), since Strata's
// schema comes from Swift classes only (Realm's tests build such schemas with `RLMSchema`).

/// The namespace of these suites: `swift test --filter RealmParityMigration` selects them.
enum RealmParityMigration {}

final class PMStringObject: Object {
    @Persisted var stringCol: String
}

final class PMIntObject: Object {
    @Persisted var intCol: Int
}

final class PMInt8Object: Object {
    @Persisted var int8Col: Int8
}

final class PMInt16Object: Object {
    @Persisted var int16Col: Int16
}

final class PMInt32Object: Object {
    @Persisted var int32Col: Int32
}

final class PMInt64Object: Object {
    @Persisted var int64Col: Int64
}

final class PMBoolObject: Object {
    @Persisted var boolCol: Bool
}

final class PMPrimaryIntObject: Object {
    @Persisted(primaryKey: true) var intCol: Int
}

final class PMArrayPropertyObject: Object {
    @Persisted var name: String
    @Persisted var array: List<PMStringObject>
    @Persisted var intArray: List<PMIntObject>
}

/// Every scalar type Strata stores, with Realm's `SwiftObject` defaults, a link and a list.
final class PMSwiftObject: Object {
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
    @Persisted var objectCol: PMBoolObject?
    @Persisted var uuidCol = PMSwiftObject.uuid
    @Persisted var arrayCol: List<PMBoolObject>

    static let uuid = UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89") ?? UUID()
}

final class PMOptionalObject: Object {
    @Persisted var optStringCol: String?
    @Persisted var optBinaryCol: Data?
    @Persisted var optDateCol: Date?
    @Persisted var optIntCol: Int?
    @Persisted var optInt8Col: Int8?
    @Persisted var optInt16Col: Int16?
    @Persisted var optInt32Col: Int32?
    @Persisted var optInt64Col: Int64?
    @Persisted var optFloatCol: Float?
    @Persisted var optDoubleCol: Double?
    @Persisted var optBoolCol: Bool?
    @Persisted var optUuidCol: UUID?
}

/// Lists of every element type Strata stores (Realm's `ModernAllTypesObject`, lists only).
final class PMListsObject: Object {
    @Persisted var arrayCol: List<PMBoolObject>
    @Persisted var arrayBool: List<Bool>
    @Persisted var arrayInt: List<Int>
    @Persisted var arrayInt8: List<Int8>
    @Persisted var arrayFloat: List<Float>
    @Persisted var arrayDouble: List<Double>
    @Persisted var arrayString: List<String>
    @Persisted var arrayBinary: List<Data>
    @Persisted var arrayDate: List<Date>
    @Persisted var arrayUuid: List<UUID>
    @Persisted var arrayOptInt: List<Int?>
    @Persisted var arrayOptString: List<String?>
}

final class PMEmployeeObject: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var hired: Bool
}

/// Objective-C's `MigrationTestObject`.
final class PMTestObject: Object {
    @Persisted var intCol: Int
    @Persisted var stringCol: String
}

/// Objective-C's `MigrationLinkObject` (without its set and dictionary).
final class PMLinkObject: Object {
    @Persisted var object: PMTestObject?
    @Persisted var array: List<PMTestObject>
}

/// Objective-C's `MigrationTwoStringObject`.
final class PMTwoStringObject: Object {
    @Persisted var col1: String?
    @Persisted var col2: String?
}

/// Objective-C's `PrimaryStringObject`: a string primary key and an int.
final class PMPrimaryStringObject: Object {
    @Persisted(primaryKey: true) var stringCol: String
    @Persisted var intCol: Int
}

/// Objective-C's `AllOptionalTypes`.
final class PMAllOptionalTypes: Object {
    @Persisted var intObj: Int?
    @Persisted var floatObj: Float?
    @Persisted var doubleObj: Double?
    @Persisted var boolObj: Bool?
    @Persisted var string: String?
    @Persisted var data: Data?
    @Persisted var date: Date?
}

/// The classes as an earlier schema version stored them.
enum PMv0 {
    final class PMStringObject: Object {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // Realm's test model spells the property this way.
        @Persisted var before_stringCol: String
    }

    final class PMDeletedClass: Object {
        @Persisted var id: Int
    }

    final class PMEmployeeObject: Object {
        @Persisted var name: String
    }

    /// `intCol` only (Objective-C's `testAddingPropertyAtEnd`).
    final class PMTestObject: Object {
        @Persisted var intCol: Int
    }

    /// `intCol` is not yet a primary key.
    final class PMPrimaryIntObject: Object {
        @Persisted var intCol: Int
    }

    /// The primary key is `intCol` (Objective-C's `testModifyPrimaryKeyInMigration`).
    final class PMPrimaryStringObject: Object {
        @Persisted var stringCol: String
        @Persisted(primaryKey: true) var intCol: Int
    }

    /// The required form of every property (Objective-C's `testRequiredToNullableAutoMigration`).
    final class PMAllOptionalTypes: Object {
        @Persisted var intObj: Int
        @Persisted var floatObj: Float
        @Persisted var doubleObj: Double
        @Persisted var boolObj: Bool
        @Persisted var string: String
        @Persisted var data: Data
        @Persisted var date: Date
    }

    /// `col1` is the primary key (Objective-C's `testRemovingPrimaryKeyRequiresMigration`).
    final class PMTwoStringObject: Object {
        @Persisted(primaryKey: true) var col1: String?
        @Persisted var col2: String?
    }
}

/// `PMTestObject` with an extra `deletedCol` (Objective-C's `testRemoveProperty`).
enum PMWithDeleted {
    final class PMTestObject: Object {
        @Persisted var intCol: Int
        @Persisted var stringCol: String
        @Persisted var deletedCol: Bool
    }
}

/// `PMTestObject` whose `stringCol` is an Int (Objective-C's `testChangePropertyType`), and
/// whose first property is `oldIntCol` (`testRemoveAndAddProperty`).
enum PMIntString {
    final class PMTestObject: Object {
        @Persisted var intCol: Int
        @Persisted var stringCol: Int
    }
}

enum PMOldInt {
    final class PMTestObject: Object {
        @Persisted var oldIntCol: Int
        @Persisted var stringCol: String
    }
}

/// `PMLinkObject` whose `object` links to `PMLinkObject` (Objective-C's
/// `testChangeObjectLinkType`), and whose `array` links to `PMLinkObject`
/// (`testChangeArrayLinkType`).
enum PMRetargeted {
    final class PMLinkObject: Object {
        @Persisted var object: PMRetargeted.PMLinkObject?
        @Persisted var array: List<PMTestObject>
    }
}

enum PMRetargetedList {
    final class PMLinkObject: Object {
        @Persisted var object: PMTestObject?
        @Persisted var array: List<PMRetargetedList.PMLinkObject>
    }
}

/// `PMTwoStringObject` variants: an index, a primary key on `col1` or `col2`, `col1` required,
/// `col1` only, `col1` an Int.
enum PMIndexed {
    final class PMTwoStringObject: Object {
        @Persisted(indexed: true) var col1: String?
        @Persisted var col2: String?
    }
}

enum PMKeyOnCol2 {
    final class PMTwoStringObject: Object {
        @Persisted var col1: String?
        @Persisted(primaryKey: true) var col2: String?
    }
}

enum PMRequiredCol1 {
    final class PMTwoStringObject: Object {
        @Persisted var col1: String
        @Persisted var col2: String?
    }
}

enum PMCol1Only {
    final class PMTwoStringObject: Object {
        @Persisted var col1: String?
    }
}

enum PMIntCol1 {
    final class PMTwoStringObject: Object {
        @Persisted var col1: Int
        @Persisted var col2: String?
    }
}

/// A one-flag box a migration block (a `@Sendable` closure) sets.
final class PMFlag: Sendable {
    private let state = Atomic<Int>(0)
    func set() { state.add(1, ordering: .relaxed) }
    var count: Int { state.load(ordering: .relaxed) }
    var value: Bool { count > 0 }
}
