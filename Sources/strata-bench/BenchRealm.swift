import Foundation
import Strata

/// The object layer's record: `PersonRecord` as a Realm class (same ids, 16-byte names, ages).
///
/// The properties are declared in PersonRecord's column order, and the integer primary key
/// makes the Realm API cluster the table on `id`, as the engine layer's table is.
final class BenchPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int

    /// An unmanaged record `id`, as `PersonRecord.values(id:)` describes it.
    static func make(id: Int64) -> BenchPerson {
        let person = BenchPerson()
        person.id = Int(id)
        person.name = PersonRecord.name(id: id)
        person.age = Int(PersonRecord.age(id: id))
        return person
    }
}

/// The object layer's database: a realm of `BenchPerson` in the bench directory, used
/// through the Realm API only (`Realm`, `write`, `add`, `objects`, `object(ofType:…)`).
///
/// Confined to the thread that opened it (the bench's main thread), like every live realm.
/// The realm file is opened with the engine's default store options: `Realm.Configuration`
/// has no counterpart of `--max-file-mib`.
final class BenchRealm {
    let path: String
    let configuration: Realm.Configuration
    /// nil once closed: dropping the last reference closes the realm's file.
    private var openRealm: Realm?
    /// Records hold ids `1...lastID`, each exactly once.
    private(set) var lastID: Int64

    private init(path: String, configuration: Realm.Configuration, realm: Realm, lastID: Int64) {
        precondition(lastID >= 1, "an empty database")
        self.path = path
        self.configuration = configuration
        openRealm = realm
        self.lastID = lastID
    }

    /// The open realm; using a closed BenchRealm is a bench bug.
    var realm: Realm {
        guard let openRealm else { preconditionFailure("the realm of \(path) is closed") }
        return openRealm
    }

    static func configuration(path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [BenchPerson.self])
    }

    /// Creates the realm at `path` (deleting any old one) and adds records `1...recordCount`
    /// in one `realm.write { }`. The total runs from before the write to its return; the
    /// commit part from the end of the block to the write's return.
    static func load(path: String, recordCount: Int) throws -> (BenchRealm, LoadTiming) {
        try deleteFiles(path: path)
        let configuration = configuration(path: path)
        let realm = try Realm(configuration: configuration)
        let lastID = Int64(recordCount)
        let start = MonotonicInstant.now()
        let blockEnd = try realm.write { () -> MonotonicInstant in
            var id: Int64 = 1
            while id <= lastID {
                realm.add(BenchPerson.make(id: id))
                id += 1
            }
            return MonotonicInstant.now()
        }
        let end = MonotonicInstant.now()
        let timing = LoadTiming(
            totalNanos: end.nanos(since: start), commitNanos: end.nanos(since: blockEnd))
        let database = BenchRealm(
            path: path, configuration: configuration, realm: realm, lastID: lastID)
        return (database, timing)
    }

    /// Deletes a closed realm's files.
    /// - Throws: the Realm API's error when the realm is still open.
    static func deleteFiles(path: String) throws {
        try Realm.deleteFiles(for: configuration(path: path))
    }
}

extension BenchRealm: LayerDatabase {
    var layer: BenchLayer { .object }

    func recordCount() throws -> Int {
        realm.objects(BenchPerson.self).count
    }

    func commitOne(id: Int64) throws -> Double {
        let realm = self.realm
        let (_, nanos) = try measureNanos {
            try realm.write { realm.add(BenchPerson.make(id: id)) }
        }
        return nanos
    }

    func appended(throughID id: Int64) {
        precondition(id > lastID, "ids are appended in ascending order")
        lastID = id
    }

    func measureScan() throws -> (totals: ScanWorkload.Totals, nanos: Double) {
        let realm = self.realm
        let (totals, nanos) = measureNanos { Self.scanAll(realm) }
        return (totals, nanos)
    }

    func measureLookups(count: Int) throws -> (ageSum: Int64, nanos: Double) {
        let realm = self.realm
        let lastID = self.lastID
        let (ageSum, nanos) = measureNanos { Self.lookUp(realm, count: count, lastID: lastID) }
        return (ageSum, nanos)
    }

    func measureSnapshots(count: Int) throws -> (ageSum: Int64, nanos: Double) {
        let realm = self.realm
        let lastID = self.lastID
        let (ageSum, nanos) = measureNanos {
            Self.snapshotLookUp(realm, count: count, lastID: lastID)
        }
        return (ageSum, nanos)
    }

    func close() {
        openRealm = nil
    }
}

// The object layer's timed loops. Never inlined, so that profilers can attribute them
// (`valgrind --toggle-collect`), as the engine's are.
extension BenchRealm {
    /// scan: iterates `realm.objects(BenchPerson.self)` (evaluating the Results is part of
    /// the scan), reading id, age and the name, whose UTF-8 bytes it counts as the engine's
    /// scan counts the stored bytes.
    @inline(never)
    static func scanAll(_ realm: Realm) -> ScanWorkload.Totals {
        var totals = ScanWorkload.Totals()
        for person in realm.objects(BenchPerson.self) {
            totals.idSum &+= Int64(person.id)
            totals.ageSum &+= Int64(person.age)
            let name = person.name
            totals.nameByteCount &+= name.utf8.count
            totals.nameLastByteSum &+= Int(name.utf8.last ?? 0)
            totals.recordCount += 1
        }
        return totals
    }

    /// lookup: `count` `object(ofType:forPrimaryKey:)` calls at the realm's current version,
    /// each reading the age; the sum of the ages found (-1 for each miss).
    @inline(never)
    static func lookUp(_ realm: Realm, count: Int, lastID: Int64) -> Int64 {
        var random = XorShift64()
        var ageSum: Int64 = 0
        for _ in 0..<count {
            let id = random.nextID(upTo: lastID)
            let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int(id))
            ageSum &+= person.map { Int64($0.age) } ?? -1
        }
        return ageSum
    }

    /// snapshot: `count` times the Realm API's begin read + get + end: a realm that is not
    /// reading begins a read at the newest version on first access (here the lookup), and
    /// `invalidate()` ends it. (`refresh()` would not begin a new read when nothing was
    /// committed, so it would measure lookups alone.)
    @inline(never)
    static func snapshotLookUp(_ realm: Realm, count: Int, lastID: Int64) -> Int64 {
        var random = XorShift64()
        var ageSum: Int64 = 0
        for _ in 0..<count {
            let id = random.nextID(upTo: lastID)
            let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int(id))
            ageSum &+= person.map { Int64($0.age) } ?? -1
            realm.invalidate()
        }
        return ageSum
    }
}
