/// What the object layer's performance workloads need of Strata's two layers (the peers have
/// no version of them): `filtered_count` and `update_all`, and an untimed age sum for their
/// checks. `scan_memory` uses `measureScan` of `LayerDatabase`; `indexed_lookup` runs on
/// databases of its own (`NameLookupDatabase`).
///
/// The engine's conformance (BenchDatabase+Workloads.swift) does with its transactions what
/// the object layer's (BenchRealm+Workloads.swift) does with the Realm API. As in
/// `LayerDatabase`, each `measure…` method returns what it read, for the workload's check,
/// with the nanoseconds of the timed part only.
protocol StrataLayerDatabase: LayerDatabase {
    /// Counts the records whose age is above `age`, evaluating a fresh query.
    func measureFilteredCount(ageAbove age: Int64) throws -> (count: Int, nanos: Double)

    /// The sum of every record's age as an aggregate of a fresh query (Spec V21).
    func measureAgeSumAggregate() throws -> (sum: Int64, nanos: Double)

    /// One durable write transaction adding 1 to the age of every record.
    func measureUpdateAll() throws -> UpdateAllTiming

    /// The sum of every record's age now, read untimed (for checks).
    func ageSum() throws -> Int64
}

/// What `indexed_lookup` needs of its own databases, one per Strata layer: records like the
/// shared database's, with a secondary index on the name (`LayerLoader.loadIndexedName`).
///
/// Engine layer: a `BenchDatabase` whose `person` table was created with
/// `PersonRecord.nameIndexedColumns`. Object layer: a `BenchIndexedRealm` of
/// `BenchIndexedPerson`, whose name is `@Persisted(indexed: true)`.
protocol NameLookupDatabase: AnyObject {
    var layer: BenchLayer { get }
    /// Records hold ids `1...lastID`, each exactly once.
    var lastID: Int64 { get }

    /// For each name, finds the first record with that name through the name's index; returns
    /// the sum of the ids found (-1 for each miss) and the nanoseconds of the queries.
    /// - Throws: `BenchError.wrongResult` when the engine's table has no index on the name.
    func measureNameLookups(_ names: [String]) throws -> (idSum: Int64, nanos: Double)

    /// Closes the database; the files stay.
    func close()
}

/// What one `update_all` transaction did and took.
struct UpdateAllTiming {
    /// Records whose age the transaction changed.
    let updatedCount: Int
    /// From the beginning of the write to the return of the commit.
    let totalNanos: Double
    /// The commit alone.
    let commitNanos: Double
}

extension Array where Element == any LayerDatabase {
    /// Strata's layers among the databases, in run order (the peers left out).
    var strataLayers: [any StrataLayerDatabase] {
        compactMap { $0 as? any StrataLayerDatabase }
    }
}
