import StrataStorage

/// The engine layer: the loops strata-bench timed before there were layers (they live in the
/// workload files), with the same timing boundaries: a read workload's transaction begins
/// before the clock starts and ends after it stops, except in snapshot, which times them.
extension BenchDatabase: LayerDatabase {
    var layer: BenchLayer { .engine }

    func recordCount() throws -> Int {
        let read = try store.beginRead()
        defer { read.end() }
        return read.table(id: tableID)?.rowCount ?? -1
    }

    func commitOne(id: Int64) throws -> Double {
        let (_, nanos) = try measureNanos { () throws(StorageError) in
            let write = try store.beginWrite()
            try write.insert(tableID, values: PersonRecord.values(id: id))
            try write.commit()
        }
        return nanos
    }

    func measureScan() throws -> (totals: ScanWorkload.Totals, nanos: Double) {
        let read = try store.beginRead()
        defer { read.end() }
        guard let table = read.table(id: tableID) else {
            throw BenchError.wrongResult(workload: .scan, detail: "the table is missing")
        }
        let (totals, nanos) = try measureNanos { try ScanWorkload.scanAll(read, table) }
        return (totals, nanos)
    }

    func measureLookups(count: Int) throws -> (ageSum: Int64, nanos: Double) {
        let read = try store.beginRead()
        defer { read.end() }
        guard let table = read.table(id: tableID) else {
            throw BenchError.wrongResult(workload: .lookup, detail: "the table is missing")
        }
        let lastID = self.lastID
        let (ageSum, nanos) = try measureNanos {
            try LookupWorkloads.lookUp(read, table, count: count, lastID: lastID)
        }
        return (ageSum, nanos)
    }

    func measureSnapshots(count: Int) throws -> (ageSum: Int64, nanos: Double) {
        let (ageSum, nanos) = try measureNanos {
            try LookupWorkloads.snapshotLookUp(self, count: count)
        }
        return (ageSum, nanos)
    }
}
