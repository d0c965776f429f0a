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

    func measureNameLookups(_ names: [String]) throws -> (idSum: Int64, nanos: Double) {
        let read = try store.beginRead()
        defer { read.end() }
        let table = try personTable(read, .indexedLookup)
        let nameBytes = names.map { Array($0.utf8) }
        let (idSum, nanos) = try measureNanos { try Self.findNames(read, table, nameBytes) }
        return (idSum, nanos)
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

    /// indexed_lookup: for each name, a scan in key order up to the first row holding it
    /// (there is no index on the name); the sum of the ids found, -1 for each miss.
    @inline(never)
    static func findNames(_ read: ReadTransaction, _ table: TableInfo, _ names: [[UInt8]]) throws
        -> Int64
    {
        var idSum: Int64 = 0
        for name in names {
            var found: Int64 = -1
            try read.forEachRow(table, from: nil) { _, row in
                let matches =
                    try row.withInlineBytes(at: PersonRecord.nameColumn) { bytes in
                        bytes.elementsEqual(name)
                    } ?? false
                guard matches else { return true }
                found = try row.int(at: PersonRecord.idColumn) ?? -1
                return false
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
