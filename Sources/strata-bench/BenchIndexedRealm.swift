import Foundation
import Strata

/// indexed_lookup's record on the object layer: `BenchPerson` with an indexed name, so that
/// the engine keeps a secondary index on it (Spec W26) and `where { $0.name == X }` reads
/// through that index. A class of its own, in a realm of its own: `BenchPerson`'s realm has no
/// index, so the other workloads keep their figures.
final class BenchIndexedPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int

    /// An unmanaged record `id`, as `PersonRecord.values(id:)` describes it.
    static func make(id: Int64) -> BenchIndexedPerson {
        let person = BenchIndexedPerson()
        person.id = Int(id)
        person.name = PersonRecord.name(id: id)
        person.age = Int(PersonRecord.age(id: id))
        return person
    }
}

/// indexed_lookup's object-layer database: a realm of `BenchIndexedPerson` in the bench
/// directory, loaded untimed, used through the Realm API only, and deleted by the workload.
///
/// Confined to the thread that opened it (the bench's main thread), like every live realm.
final class BenchIndexedRealm {
    let path: String
    /// nil once closed: dropping the last reference closes the realm's file.
    private var openRealm: Realm?
    /// Records hold ids `1...lastID`, each exactly once.
    let lastID: Int64

    private init(path: String, realm: Realm, lastID: Int64) {
        precondition(lastID >= 1, "an empty database")
        self.path = path
        openRealm = realm
        self.lastID = lastID
    }

    /// The open realm; using a closed BenchIndexedRealm is a bench bug.
    var realm: Realm {
        guard let openRealm else { preconditionFailure("the realm of \(path) is closed") }
        return openRealm
    }

    static func configuration(path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [BenchIndexedPerson.self])
    }

    /// Creates the realm at `path` (deleting any old one) and adds records `1...recordCount`
    /// in one `realm.write { }`, untimed.
    static func load(path: String, recordCount: Int) throws -> BenchIndexedRealm {
        try deleteFiles(path: path)
        let realm = try Realm(configuration: configuration(path: path))
        let lastID = Int64(recordCount)
        try realm.write {
            var id: Int64 = 1
            while id <= lastID {
                realm.add(BenchIndexedPerson.make(id: id))
                id += 1
            }
        }
        return BenchIndexedRealm(path: path, realm: realm, lastID: lastID)
    }

    /// Deletes a closed realm's files.
    /// - Throws: the Realm API's error when the realm is still open.
    static func deleteFiles(path: String) throws {
        try Realm.deleteFiles(for: configuration(path: path))
    }
}

extension BenchIndexedRealm: NameLookupDatabase {
    var layer: BenchLayer { .object }

    func measureNameLookups(_ names: [String]) throws -> (idSum: Int64, nanos: Double) {
        let realm = self.realm
        let (idSum, nanos) = measureNanos { Self.findNames(realm, names) }
        return (idSum, nanos)
    }

    func close() {
        openRealm = nil
    }
}

// The object layer's timed loop. Never inlined, so that profilers can attribute it.
extension BenchIndexedRealm {
    /// indexed_lookup: for each name, `where { $0.name == name }.first` on fresh Results,
    /// which the Realm API evaluates through the name's index; the sum of the ids found, -1
    /// for each miss.
    @inline(never)
    static func findNames(_ realm: Realm, _ names: [String]) -> Int64 {
        var idSum: Int64 = 0
        for name in names {
            let person = realm.objects(BenchIndexedPerson.self).where { $0.name == name }.first
            idSum &+= person.map { Int64($0.id) } ?? -1
        }
        return idSum
    }
}
