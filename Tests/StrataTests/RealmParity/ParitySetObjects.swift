import Foundation
import Strata
import Testing

// Fixtures of the Realm parity suites for sets (MutableSetTests.swift and
// PrimitiveMutableSetTests.swift in this folder): our versions of RealmSwift's test objects of
// the same names without `Swift`, prefixed `PS` (parity sets). Decimal128 and ObjectId sets are
// left out (Strata has neither type yet).

/// The namespace of these suites (`swift test --filter RealmParity` selects them).
enum RealmParitySets {}

final class PSMutableSetPropertyObject: Object {
    @Persisted var name: String
    @Persisted var set: MutableSet<PLStringObject>
    @Persisted var intSet: MutableSet<PLIntObject>
}

/// Realm's `SwiftObject` as far as `testEnumeratingSetWithSetProperties` reads it.
final class PSSwiftObject: Object {
    @Persisted var intCol = 123
    @Persisted var objectCol: PLBoolObject?
    @Persisted var setCol: MutableSet<PLBoolObject>

    required init() {
        super.init()
        objectCol = PLBoolObject()
    }
}

final class PSMutableSetOfSwiftObject: Object {
    @Persisted var set: MutableSet<PSSwiftObject>
}

/// A set of every primitive type Strata stores, plain and optional.
final class PSMutableSetObject: Object {
    @Persisted var int: MutableSet<Int>
    @Persisted var int8: MutableSet<Int8>
    @Persisted var int16: MutableSet<Int16>
    @Persisted var int32: MutableSet<Int32>
    @Persisted var int64: MutableSet<Int64>
    @Persisted var float: MutableSet<Float>
    @Persisted var double: MutableSet<Double>
    @Persisted var string: MutableSet<String>
    @Persisted var data: MutableSet<Data>
    @Persisted var date: MutableSet<Date>
    @Persisted var uuid: MutableSet<UUID>

    @Persisted var intOpt: MutableSet<Int?>
    @Persisted var int8Opt: MutableSet<Int8?>
    @Persisted var int16Opt: MutableSet<Int16?>
    @Persisted var int32Opt: MutableSet<Int32?>
    @Persisted var int64Opt: MutableSet<Int64?>
    @Persisted var floatOpt: MutableSet<Float?>
    @Persisted var doubleOpt: MutableSet<Double?>
    @Persisted var stringOpt: MutableSet<String?>
    @Persisted var dataOpt: MutableSet<Data?>
    @Persisted var dateOpt: MutableSet<Date?>
    @Persisted var uuidOpt: MutableSet<UUID?>
}

/// A class whose `tags` change from a List (`PSListed.PSTagged`) to a set, stored under one name.
final class PSTagged: Object {
    @Persisted var tags: MutableSet<Int>
}

enum PSListed {
    final class PSTagged: Object {
        @Persisted var tags: List<Int>
    }
}

let paritySetTypes: [Object.Type] = [
    PLStringObject.self, PLIntObject.self, PLBoolObject.self, PSSwiftObject.self,
    PSMutableSetPropertyObject.self, PSMutableSetOfSwiftObject.self, PSMutableSetObject.self,
]

/// `test.realm` and `default.realm` of one test case, with the set classes.
struct ParitySetFiles {
    let directory = temporaryDirectory()

    var testConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: directory.appendingPathComponent("test.realm"), objectTypes: paritySetTypes)
    }

    func realmWithTestPath() throws -> Realm { try Realm(configuration: testConfiguration) }

    func defaultRealm() throws -> Realm {
        try Realm(
            configuration: Realm.Configuration(
                fileURL: directory.appendingPathComponent("default.realm"), objectTypes: paritySetTypes))
    }
}
