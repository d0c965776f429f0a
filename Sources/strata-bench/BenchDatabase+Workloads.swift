import StrataStorage

/// The engine layer's versions of the object layer's performance workloads: scans with
/// `forEachRow` reading columns through `RowView`, and updates with `WriteTransaction.update`.
/// A read workload's transaction begins before the clock starts and ends after it stops, as in
/// the other engine workloads.
extension BenchDatabase: StrataLayerDatabase {
    func measureFilteredCount(ageAbove age: Int64) throws -> (count: Int, nanos: Double) {
        let read = try store.beginRead()
        defer { read.end() }
        let table = try personTable(read, .filteredCount)
        let (count, nanos) = try measureNanos { try Self.countAges(read, table, above: age) }
        return (count, nanos)
    }

    func measureAgeSumAggregate() throws -> (sum: Int64, nanos: Double) {
        let read = try store.beginRead()
        defer { read.end() }
        let table = try personTable(read, .aggregateSum)
        let (sum, nanos) = try measureNanos { try Self.sumAges(read, table) }
        return (sum, nanos)
    }

    func measureUpdateAll() throws -> UpdateAllTiming {
        let start = MonotonicInstant.now()
        let write = try store.beginWrite()
        guard let table = write.table(id: tableID) else {
            write.rollback()
            throw BenchError.wrongResult(workload: .updateAll, detail: "the table is missing")
        }
        let updatedCount: Int
        do {
            updatedCount = try Self.incrementAges(write, table, lastID: lastID)
        } catch {
            write.rollback()
            throw error
        }
        let commitStart = MonotonicInstant.now()
        try write.commit()
        let end = MonotonicInstant.now()
        return UpdateAllTiming(
            updatedCount: updatedCount, totalNanos: end.nanos(since: start),
            commitNanos: end.nanos(since: commitStart))
    }

    func ageSum() throws -> Int64 {
        let read = try store.beginRead()
        defer { read.end() }
        let table = try personTable(read, .updateAll)
        var sum: Int64 = 0
        try read.forEachRow(table, from: nil) { _, row in
            sum &+= try row.int(at: PersonRecord.ageColumn) ?? 0
            return true
        }
        return sum
    }

    private func personTable(_ read: ReadTransaction, _ workload: Workload) throws -> TableInfo {
        guard let table = read.table(id: tableID) else {
            throw BenchError.wrongResult(workload: workload, detail: "the table is missing")
        }
        return table
    }
}

/// indexed_lookup's engine database: the `person` table created with
/// `PersonRecord.nameIndexedColumns`, queried with `ReadTransaction.indexedKeys`.
extension BenchDatabase: NameLookupDatabase {
    func measureNameLookups(_ names: [String]) throws -> (idSum: Int64, nanos: Double) {
        let read = try store.beginRead()
        defer { read.end() }
        let table = try personTable(read, .indexedLookup)
        guard table.indexedColumns & PersonRecord.nameIndexedColumns != 0 else {
            throw BenchError.wrongResult(
                workload: .indexedLookup, detail: "engine layer: the name column has no index")
        }
        // The query values and the bytes to compare are made before the clock starts.
        let queries = names.map { NameQuery(value: .string($0), bytes: Array($0.utf8)) }
        let (idSum, nanos) = try measureNanos { try Self.findNames(read, table, queries) }
        return (idSum, nanos)
    }

    /// One name to find: the value the index is asked for, and the bytes a row must hold.
    struct NameQuery {
        let value: Value
        let bytes: [UInt8]
    }
}

// The engine layer's timed loops. Never inlined, so that profilers can attribute them.
extension BenchDatabase {
    /// filtered_count: one scan counting the rows whose age is above `age`.
    @inline(never)
    static func countAges(_ read: ReadTransaction, _ table: TableInfo, above age: Int64) throws
        -> Int
    {
        var count = 0
        try read.forEachRow(table, from: nil) { _, row in
            if try row.int(at: PersonRecord.ageColumn) ?? Int64.min > age { count += 1 }
            return true
        }
        return count
    }

    /// aggregate_sum: one scan adding up the age column.
    @inline(never)
    static func sumAges(_ read: ReadTransaction, _ table: TableInfo) throws -> Int64 {
        var sum: Int64 = 0
        try read.forEachRow(table, from: nil) { _, row in
            sum &+= try row.int(at: PersonRecord.ageColumn) ?? 0
            return true
        }
        return sum
    }

    /// indexed_lookup: for each name, the candidates `indexedKeys` gives for the name column
    /// (ascending), then the first candidate row whose name is that name (the index names
    /// candidates only); the sum of the ids found, -1 for each miss.
    @inline(never)
    static func findNames(_ read: ReadTransaction, _ table: TableInfo, _ queries: [NameQuery])
        throws -> Int64
    {
        var idSum: Int64 = 0
        for query in queries {
            guard
                let candidates = try read.indexedKeys(
                    table, column: PersonRecord.nameColumn, equalTo: query.value)
            else {
                throw BenchError.wrongResult(
                    workload: .indexedLookup, detail: "engine layer: the name column has no index")
            }
            var found: Int64 = -1
            for key in candidates {
                // nil when the row is missing (the outer optional) or holds another name.
                let id = try read.withRow(table, key: key) { row -> Int64? in
                    let matches =
                        try row.withInlineBytes(at: PersonRecord.nameColumn) { bytes in
                            bytes.elementsEqual(query.bytes)
                        } ?? false
                    return matches ? try row.int(at: PersonRecord.idColumn) : nil
                }
                guard case let id?? = id else { continue }
                found = id
                break
            }
            idSum &+= found
        }
        return idSum
    }

    /// update_all: reads each record's name and age in the write and rewrites the record with
    /// the age plus 1 (`update` replaces a whole row); the number of records updated.
    @inline(never)
    static func incrementAges(_ write: WriteTransaction, _ table: TableInfo, lastID: Int64) throws
        -> Int
    {
        var updatedCount = 0
        var id: Int64 = 1
        while id <= lastID {
            let key = ObjectKey(id)
            let stored = try write.withRow(table, key: key) { row in
                (try row.value(at: PersonRecord.nameColumn), try row.int(at: PersonRecord.ageColumn))
            }
            guard let (name, age) = stored, let age else {
                throw BenchError.wrongResult(
                    workload: .updateAll, detail: "engine layer: record \(id) is missing")
            }
            try write.update(table.id, key: key, values: [.int(id), name, .int(age + 1)])
            updatedCount += 1
            id += 1
        }
        return updatedCount
    }
}
