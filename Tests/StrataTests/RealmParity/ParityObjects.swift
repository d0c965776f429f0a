import Foundation
import Strata
import Synchronization
import Testing

/// The object-layer parity suites (`ObjectTests`, `ObjectAccessorTests`, `ObjectCreationTests`,
/// `ModernObjectTests`, `ModernObjectAccessorTests`) and their fixtures: our own classes with
/// the names, properties and defaults of the classes Realm's tests use (stored under those
/// names), so expected values and messages read as Realm's do. Properties of types Strata does
/// not have yet (ObjectId, Decimal128, AnyRealmValue, MutableSet, Map, LinkingObjects, enums)
/// are left out.
enum RealmParityObjects {
    // MARK: helpers

    /// A configuration of a new file; classes are taken as they are used.
    static func configuration(_ name: String = "parity.realm") -> Realm.Configuration {
        Realm.Configuration(fileURL: temporaryDirectory().appendingPathComponent(name))
    }

    /// A realm of a new file, for the calling thread.
    static func realm() throws -> Realm { try Realm(configuration: configuration()) }

    static let data = Data("a".utf8)
    static let uuid137 = UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89") ?? UUID()
    static let utf8TestString = "值значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"

    /// A counter for defaults that differ per instance (`testDynamicDefaultPropertyValues`).
    static let seed = Atomic<Int>(0)
    static func nextSeed() -> Int { seed.add(1, ordering: .relaxed).newValue }

    // MARK: fixtures

    final class SwiftBoolObject: Object {
        @Persisted var boolCol = false
    }

    final class SwiftIntObject: Object {
        @Persisted var intCol = 0
    }

    final class SwiftLongObject: Object {
        @Persisted var longCol: Int64 = 0
    }

    final class SwiftStringObject: Object {
        @Persisted var stringCol = ""
    }

    final class SwiftObject: Object {
        @Persisted var boolCol = false
        @Persisted var intCol = 123
        @Persisted var int8Col: Int8 = 123
        @Persisted var int16Col: Int16 = 123
        @Persisted var int32Col: Int32 = 123
        @Persisted var int64Col: Int64 = 123
        @Persisted var floatCol = 1.23 as Float
        @Persisted var doubleCol = 12.3
        @Persisted var stringCol = "a"
        @Persisted var binaryCol = Data("a".utf8)
        @Persisted var dateCol = Date(timeIntervalSince1970: 1)
        @Persisted var objectCol: SwiftBoolObject? = SwiftBoolObject()
        @Persisted var uuidCol: UUID = RealmParityObjects.uuid137
        @Persisted var arrayCol: List<SwiftBoolObject>

        static func defaultValues() -> [String: Any] {
            [
                "boolCol": false, "intCol": 123, "int8Col": 123 as Int8, "int16Col": 123 as Int16,
                "int32Col": 123 as Int32, "int64Col": 123 as Int64, "floatCol": 1.23 as Float, "doubleCol": 12.3,
                "stringCol": "a", "binaryCol": Data("a".utf8), "dateCol": Date(timeIntervalSince1970: 1),
                "objectCol": [false], "uuidCol": RealmParityObjects.uuid137,
            ]
        }
    }

    /// Realm's `SwiftOptionalObject` (its RealmOptional properties are plain optionals here).
    class SwiftOptionalObject: Object {
        @Persisted var optNSStringCol: String?
        @Persisted var optStringCol: String?
        @Persisted var optBinaryCol: Data?
        @Persisted var optDateCol: Date?
        @Persisted var optUuidCol: UUID?
        @Persisted var optIntCol: Int?
        @Persisted var optInt8Col: Int8?
        @Persisted var optInt16Col: Int16?
        @Persisted var optInt32Col: Int32?
        @Persisted var optInt64Col: Int64?
        @Persisted var optFloatCol: Float?
        @Persisted var optDoubleCol: Double?
        @Persisted var optBoolCol: Bool?
        @Persisted var optObjectCol: SwiftBoolObject?

        static let propertyNames = [
            "optNSStringCol", "optStringCol", "optBinaryCol", "optDateCol", "optUuidCol",
            "optIntCol", "optInt8Col", "optInt16Col", "optInt32Col", "optInt64Col",
            "optFloatCol", "optDoubleCol", "optBoolCol", "optObjectCol",
        ]
    }

    /// A subclass adding an optional integer primary key (superclass properties come first).
    final class SwiftOptionalPrimaryObject: SwiftOptionalObject {
        @Persisted(primaryKey: true) var id: Int?
    }

    final class SwiftOptionalDefaultValuesObject: Object {
        @Persisted var optNSStringCol: String? = "A"
        @Persisted var optStringCol: String? = "B"
        @Persisted var optBinaryCol: Data? = Data("C".utf8)
        @Persisted var optDateCol: Date? = Date(timeIntervalSince1970: 10)
        @Persisted var optUuidCol: UUID? = UUID(uuidString: "00000000-0000-0000-0000-000000000000")
        @Persisted var optIntCol: Int? = 1
        @Persisted var optInt8Col: Int8? = 1
        @Persisted var optInt16Col: Int16? = 1
        @Persisted var optInt32Col: Int32? = 1
        @Persisted var optInt64Col: Int64? = 1
        @Persisted var optFloatCol: Float? = 2.2
        @Persisted var optDoubleCol: Double? = 3.3
        @Persisted var optBoolCol: Bool? = true
        @Persisted var optObjectCol: SwiftBoolObject? = SwiftBoolObject(value: [true])
    }

    final class SwiftListObject: Object {
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

    final class SwiftPrimaryStringObject: Object {
        @Persisted(primaryKey: true) var stringCol = ""
        @Persisted var intCol = 0
    }

    final class SwiftPrimaryIntObject: Object {
        @Persisted var stringCol = ""
        @Persisted(primaryKey: true) var intCol = 0
    }

    final class SwiftPrimaryOptionalIntObject: Object {
        @Persisted var stringCol = ""
        @Persisted(primaryKey: true) var intCol: Int?
    }

    final class SwiftPrimaryUUIDObject: Object {
        @Persisted(primaryKey: true) var uuidCol = UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e") ?? UUID()
        @Persisted var stringCol = ""
    }

    final class SwiftLinkToPrimaryStringObject: Object {
        @Persisted(primaryKey: true) var pk = ""
        @Persisted var object: SwiftPrimaryStringObject?
        @Persisted var objects: List<SwiftPrimaryStringObject>
    }

    final class SwiftDynamicDefaultObject: Object {
        @Persisted(primaryKey: true) var intCol = RealmParityObjects.nextSeed()
        @Persisted var floatCol = Float(RealmParityObjects.nextSeed())
        @Persisted var doubleCol = Double(RealmParityObjects.nextSeed())
        @Persisted var dateCol = Date(timeIntervalSinceReferenceDate: TimeInterval(RealmParityObjects.nextSeed()))
        @Persisted var stringCol = UUID().uuidString
        @Persisted var binaryCol = Data(UUID().uuidString.utf8)
    }

    final class SwiftAllIntSizesObject: Object {
        @Persisted var int8: Int8 = 0
        @Persisted var int16: Int16 = 0
        @Persisted var int32: Int32 = 0
        @Persisted var int64: Int64 = 0
    }

    final class SwiftArrayPropertyObject: Object {
        @Persisted var name = ""
        @Persisted var array: List<SwiftStringObject>
        @Persisted var intArray: List<SwiftIntObject>
    }

    final class SwiftListOfSwiftObject: Object {
        @Persisted var array: List<SwiftObject>
    }

    final class SwiftRecursiveObject: Object {
        @Persisted var objects: List<SwiftRecursiveObject>
    }

    final class SwiftEmployeeObject: Object {
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var hired = false
    }

    final class SwiftCompanyObject: Object {
        @Persisted var name = ""
        @Persisted var employees: List<SwiftEmployeeObject>
    }

    final class SwiftDogObject: Object {
        @Persisted var dogName = ""
    }

    final class SwiftOwnerObject: Object {
        @Persisted var name = ""
        @Persisted var dog: SwiftDogObject? = SwiftDogObject()
    }

    final class SwiftCircleObject: Object {
        @Persisted var obj: SwiftCircleObject?
        @Persisted var array: List<SwiftCircleObject>
    }

    class SwiftGenericPropsOrderingParent: Object {
        var implicitlyIgnoredComputedProperty: Int { 0 }
        @Persisted var parentFirstList: List<SwiftIntObject>
        @Persisted var parentFirstNumber = 0
        @Persisted var parentSecondNumber = 1
    }

    final class SwiftGenericPropsOrderingObject: SwiftGenericPropsOrderingParent {
        var firstIgnored = 999
        @Persisted var firstNumber = 0
        var secondIgnored = 999
        @Persisted var firstArray: List<SwiftStringObject>
        @Persisted var secondNumber = 0
        var computedProp: String { "\(firstNumber), \(secondNumber), and \(thirdNumber)" }
        @Persisted var secondArray: List<SwiftStringObject>
        @Persisted var firstOptionalNumber: Int?
        var thirdIgnored = 999
        @Persisted var thirdNumber = 0
        @Persisted var secondOptionalNumber: Int?
    }

    final class ObjectWithPrivateOptionals: Object {
        private var nilInt: Int?
        private var nilString: String?
        private var int: Int? = 123
        private var string: String? = "123"
        @Persisted var value = 5
    }

    // Modern fixtures (ModernTestObjects.swift).

    final class ModernAllTypesObject: Object {
        @Persisted(primaryKey: true) var pk: Int
        @Persisted var boolCol: Bool
        @Persisted var intCol: Int
        @Persisted var int8Col: Int8 = 1
        @Persisted var int16Col: Int16 = 2
        @Persisted var int32Col: Int32 = 3
        @Persisted var int64Col: Int64 = 4
        @Persisted var floatCol: Float = 5
        @Persisted var doubleCol: Double = 6
        @Persisted var stringCol: String
        @Persisted var binaryCol: Data
        @Persisted var dateCol: Date
        @Persisted var objectCol: ModernAllTypesObject?
        @Persisted var arrayCol: List<ModernAllTypesObject>
        @Persisted var uuidCol: UUID

        @Persisted var optIntCol: Int?
        @Persisted var optInt8Col: Int8?
        @Persisted var optInt16Col: Int16?
        @Persisted var optInt32Col: Int32?
        @Persisted var optInt64Col: Int64?
        @Persisted var optFloatCol: Float?
        @Persisted var optDoubleCol: Double?
        @Persisted var optBoolCol: Bool?
        @Persisted var optStringCol: String?
        @Persisted var optBinaryCol: Data?
        @Persisted var optDateCol: Date?
        @Persisted var optUuidCol: UUID?

        @Persisted var arrayBool: List<Bool>
        @Persisted var arrayInt: List<Int>
        @Persisted var arrayInt8: List<Int8>
        @Persisted var arrayInt16: List<Int16>
        @Persisted var arrayInt32: List<Int32>
        @Persisted var arrayInt64: List<Int64>
        @Persisted var arrayFloat: List<Float>
        @Persisted var arrayDouble: List<Double>
        @Persisted var arrayString: List<String>
        @Persisted var arrayBinary: List<Data>
        @Persisted var arrayDate: List<Date>
        @Persisted var arrayUuid: List<UUID>

        @Persisted var arrayOptBool: List<Bool?>
        @Persisted var arrayOptInt: List<Int?>
        @Persisted var arrayOptInt8: List<Int8?>
        @Persisted var arrayOptInt16: List<Int16?>
        @Persisted var arrayOptInt32: List<Int32?>
        @Persisted var arrayOptInt64: List<Int64?>
        @Persisted var arrayOptFloat: List<Float?>
        @Persisted var arrayOptDouble: List<Double?>
        @Persisted var arrayOptString: List<String?>
        @Persisted var arrayOptBinary: List<Data?>
        @Persisted var arrayOptDate: List<Date?>
        @Persisted var arrayOptUuid: List<UUID?>
    }

    final class ModernDynamicDefaultObject: Object {
        @Persisted(primaryKey: true) var intCol = RealmParityObjects.nextSeed()
        @Persisted var floatCol = Float(RealmParityObjects.nextSeed())
        @Persisted var doubleCol = Double(RealmParityObjects.nextSeed())
        @Persisted var dateCol = Date(timeIntervalSinceReferenceDate: TimeInterval(RealmParityObjects.nextSeed()))
        @Persisted var stringCol = UUID().uuidString
        @Persisted var binaryCol = Data(UUID().uuidString.utf8)
    }

    final class SetterObservers: Object {
        @Persisted var value: Int {
            willSet { willSetCallback?() }
            didSet { didSetCallback?() }
        }
        var willSetCallback: (() -> Void)?
        var didSetCallback: (() -> Void)?
    }

    final class ObjectWithArcMethodCategoryNames: Object {
        @Persisted var newValue: String
        @Persisted var allocValue: String
        @Persisted var copyValue: String
        @Persisted var mutableCopyValue: String
        @Persisted var initValue: String
    }

    final class ModernPrimaryIntObject: Object { @Persisted(primaryKey: true) var pk: Int }
    final class ModernPrimaryInt8Object: Object { @Persisted(primaryKey: true) var pk: Int8 }
    final class ModernPrimaryInt16Object: Object { @Persisted(primaryKey: true) var pk: Int16 }
    final class ModernPrimaryInt32Object: Object { @Persisted(primaryKey: true) var pk: Int32 }
    final class ModernPrimaryInt64Object: Object { @Persisted(primaryKey: true) var pk: Int64 }
    final class ModernPrimaryOptionalIntObject: Object { @Persisted(primaryKey: true) var pk: Int? }
    final class ModernPrimaryOptionalInt8Object: Object { @Persisted(primaryKey: true) var pk: Int8? }
    final class ModernPrimaryOptionalInt16Object: Object { @Persisted(primaryKey: true) var pk: Int16? }
    final class ModernPrimaryOptionalInt32Object: Object { @Persisted(primaryKey: true) var pk: Int32? }
    final class ModernPrimaryOptionalInt64Object: Object { @Persisted(primaryKey: true) var pk: Int64? }
    final class ModernPrimaryStringObject: Object { @Persisted(primaryKey: true) var pk: String }
    final class ModernPrimaryOptionalStringObject: Object { @Persisted(primaryKey: true) var pk: String? }
    final class ModernPrimaryUUIDObject: Object { @Persisted(primaryKey: true) var pk: UUID }
    final class ModernPrimaryOptionalUUIDObject: Object { @Persisted(primaryKey: true) var pk: UUID? }
}

/// Waits on the calling thread's run loop until `condition` holds (bounded only by the hang
/// guard: `condition` must be something that comes), then a little longer so that callbacks
/// that should not come have had their chance.
func settleRunLoop(until condition: () -> Bool) -> Bool {
    let reached = spinRunLoop(until: condition)
    _ = spinRunLoop(seconds: 0.2) { false }
    return reached && condition()
}
