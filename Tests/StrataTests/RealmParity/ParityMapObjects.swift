import Foundation
import Strata
import Testing

// Fixtures of the Realm parity suites for maps (MapTests.swift in this folder): our versions of
// RealmSwift's test objects of the same names without `Swift`, prefixed `PD` (parity
// dictionaries). Decimal128 and ObjectId maps are left out (Strata has neither type yet).

/// The namespace of these suites (`swift test --filter RealmParity` selects them).
enum RealmParityMaps {}

final class PDMapPropertyObject: Object {
    @Persisted var name: String
    @Persisted var map: Map<String, PLStringObject?>
}

final class PDMapOfIntObject: Object {
    @Persisted var map: Map<String, PLIntObject?>
}

/// A map of every primitive type Strata stores, plain and optional, and of objects (Realm's
/// `SwiftMapObject`; PrimitiveMapTests runs over the primitive ones).
final class PDMapObject: Object {
    @Persisted var bool: Map<String, Bool>
    @Persisted var int: Map<String, Int>
    @Persisted var int8: Map<String, Int8>
    @Persisted var int16: Map<String, Int16>
    @Persisted var int32: Map<String, Int32>
    @Persisted var int64: Map<String, Int64>
    @Persisted var float: Map<String, Float>
    @Persisted var double: Map<String, Double>
    @Persisted var string: Map<String, String>
    @Persisted var data: Map<String, Data>
    @Persisted var date: Map<String, Date>
    @Persisted var uuid: Map<String, UUID>
    @Persisted var object: Map<String, PLStringObject?>

    @Persisted var boolOpt: Map<String, Bool?>
    @Persisted var intOpt: Map<String, Int?>
    @Persisted var int8Opt: Map<String, Int8?>
    @Persisted var int16Opt: Map<String, Int16?>
    @Persisted var int32Opt: Map<String, Int32?>
    @Persisted var int64Opt: Map<String, Int64?>
    @Persisted var floatOpt: Map<String, Float?>
    @Persisted var doubleOpt: Map<String, Double?>
    @Persisted var stringOpt: Map<String, String?>
    @Persisted var dataOpt: Map<String, Data?>
    @Persisted var dateOpt: Map<String, Date?>
    @Persisted var uuidOpt: Map<String, UUID?>
}

/// A map of non-optional objects, which Realm refuses to declare and Strata accepts.
final class PDMapOfRequiredObject: Object {
    @Persisted var map: Map<String, PLIntObject>
}

let parityMapTypes: [Object.Type] = [
    PLStringObject.self, PLIntObject.self, PDMapPropertyObject.self, PDMapOfIntObject.self, PDMapObject.self,
    PDMapOfRequiredObject.self,
]

/// `test.realm` of one test case, with the map classes.
struct ParityMapFiles {
    let directory = temporaryDirectory()

    var testConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: directory.appendingPathComponent("test.realm"), objectTypes: parityMapTypes)
    }

    func realmWithTestPath() throws -> Realm { try Realm(configuration: testConfiguration) }
}
