#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// LMDB as a `--peers` database: the notes' configuration (Docs/peer-baselines.md part 1),
/// measured in the same process as Strata's layers.
///
/// Default environment flags (so every commit syncs: data pages, then the meta page), plus
/// `MDB_NOSUBDIR` so that the database is the file `path` (and `path-lock`) in the bench's
/// flat directory. One unnamed database with `MDB_INTEGERKEY`: the key is the id as a native
/// 8-byte integer, compared as an integer, so cursor order is id order; the value is the 16
/// name bytes then the age (8 bytes). Plain `mdb_put` (no `MDB_APPEND`). Timing boundaries
/// follow the engine layer's: a read workload's transaction begins before the clock starts
/// and ends after it stops, except in snapshot. snapshot reuses one read-only transaction
/// handle with `mdb_txn_renew` (a new snapshot of the newest commit) + `mdb_get` +
/// `mdb_txn_reset` (the snapshot released): LMDB's fastest begin-read + get + end, the
/// notes' row e2.
final class LMDBPeer {
    let path: String
    private let lmdb: LMDBLibrary
    /// nil once closed.
    private var environment: OpaquePointer?
    /// The `MDB_dbi` of the records (set by the bulk load's write transaction).
    private var database: UInt32 = 0
    /// Records hold ids `1...lastID`, each exactly once.
    private(set) var lastID: Int64 = 0
    /// The `MDB_val`s of every call, and the bytes of one key and one value to put.
    private let key = LMDBValue.allocate()
    private let value = LMDBValue.allocate()
    private let keyBytes = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
    private let valueBytes = UnsafeMutableRawPointer.allocate(
        byteCount: PeerRecordBytes.lmdbValueByteCount, alignment: 8)

    private init(path: String, lmdb: LMDBLibrary, environment: OpaquePointer) {
        self.path = path
        self.lmdb = lmdb
        self.environment = environment
    }

    deinit {
        close()
        key.deallocate()
        value.deallocate()
        keyBytes.deallocate()
        valueBytes.deallocate()
    }

    /// The open environment; using a closed peer is a bench bug.
    private var openEnvironment: OpaquePointer {
        guard let environment else { preconditionFailure("the LMDB environment \(path) is closed") }
        return environment
    }

    /// Creates the database at `path` (deleting any old one), with a map large enough for
    /// `capacityRecords`, and puts records `1...recordCount` in one durable transaction: timed
    /// from `mdb_txn_begin` to the return of `mdb_txn_commit` (and that call alone).
    static func load(
        path: String, recordCount: Int, capacityRecords: Int, lmdb: LMDBLibrary
    ) throws -> (LMDBPeer, LoadTiming) {
        try deleteFiles(path: path)
        var created: OpaquePointer?
        try lmdb.check(lmdb.envCreate(&created), "mdb_env_create")
        guard let created else { throw lmdb.failure(-1, "mdb_env_create") }
        let peer = LMDBPeer(path: path, lmdb: lmdb, environment: created)
        // 256 bytes per record covers half-full pages and the copies of a commit; 1 GiB as the
        // notes' runs used at least.
        try lmdb.check(lmdb.envSetMapSize(created, max(1 << 30, capacityRecords * 256)), "mdb_env_set_mapsize")
        try lmdb.check(lmdb.envOpen(created, path, LMDBLibrary.noSubdirectory, 0o644), "mdb_env_open")
        let timing = try peer.bulkLoad(recordCount: recordCount)
        return (peer, timing)
    }

    private func bulkLoad(recordCount: Int) throws(PeerError) -> LoadTiming {
        precondition(recordCount >= 1, "an empty database")
        let lastID = Int64(recordCount)
        for id in [1, lastID] where !PeerRecordBytes.nameMatchesRecord(id: id) {
            preconditionFailure("PeerRecordBytes.writeName differs from PersonRecord.name for \(id)")
        }
        let start = MonotonicInstant.now()
        let transaction = try beginTransaction(flags: 0)
        do throws(PeerError) {
            try lmdb.check(
                lmdb.dbiOpen(transaction, nil, LMDBLibrary.integerKey | LMDBLibrary.create, &database),
                "mdb_dbi_open")
            var id: Int64 = 1
            while id <= lastID {
                try putRecord(transaction, id: id)
                id += 1
            }
        } catch {
            lmdb.txnAbort(transaction)
            throw error
        }
        let commitStart = MonotonicInstant.now()
        try lmdb.check(lmdb.txnCommit(transaction), "mdb_txn_commit")
        let end = MonotonicInstant.now()
        self.lastID = lastID
        return LoadTiming(totalNanos: end.nanos(since: start), commitNanos: end.nanos(since: commitStart))
    }

    @inline(__always)
    private func putRecord(_ transaction: OpaquePointer, id: Int64) throws(PeerError) {
        keyBytes.storeBytes(of: id, as: Int64.self)
        PeerRecordBytes.writeName(id: id, to: valueBytes)
        valueBytes.storeBytes(
            of: PersonRecord.age(id: id), toByteOffset: PeerRecordBytes.lmdbAgeOffset, as: Int64.self)
        key.set(size: 8, data: keyBytes)
        value.set(size: PeerRecordBytes.lmdbValueByteCount, data: valueBytes)
        try lmdb.check(lmdb.put(transaction, database, key.pointer, value.pointer, 0), "mdb_put")
    }

    private func beginTransaction(flags: UInt32) throws(PeerError) -> OpaquePointer {
        var transaction: OpaquePointer?
        try lmdb.check(lmdb.txnBegin(openEnvironment, nil, flags, &transaction), "mdb_txn_begin")
        guard let transaction else { throw lmdb.failure(-1, "mdb_txn_begin") }
        return transaction
    }

    /// Deletes a closed database's files (`path` and `path-lock`; nothing if there are none).
    static func deleteFiles(path: String) throws(BenchError) {
        for file in [path, path + "-lock"] where unlink(file) != 0 && errno != ENOENT {
            throw BenchError.system(operation: "unlink \(file)", errno: errno)
        }
    }
}

extension LMDBPeer: LayerDatabase {
    var layer: BenchLayer { .lmdb }

    /// `ms_entries` of `mdb_stat`. MDB_stat is two unsigned ints (page size, depth), then four
    /// size_t (branch, leaf, overflow pages, entries): 40 bytes, the entries at offset 32.
    func recordCount() throws -> Int {
        let transaction = try beginTransaction(flags: LMDBLibrary.readOnly)
        defer { lmdb.txnAbort(transaction) }
        let statistics = UnsafeMutableRawPointer.allocate(byteCount: 40, alignment: 8)
        defer { statistics.deallocate() }
        statistics.initializeMemory(as: UInt8.self, repeating: 0, count: 40)
        try lmdb.check(lmdb.stat(transaction, database, statistics), "mdb_stat")
        return statistics.load(fromByteOffset: 32, as: Int.self)
    }

    func commitOne(id: Int64) throws -> Double {
        let (_, nanos) = try measureNanos { () throws(PeerError) in
            let transaction = try beginTransaction(flags: 0)
            do throws(PeerError) {
                try putRecord(transaction, id: id)
            } catch {
                lmdb.txnAbort(transaction)
                throw error
            }
            try lmdb.check(lmdb.txnCommit(transaction), "mdb_txn_commit")
        }
        return nanos
    }

    func appended(throughID id: Int64) {
        precondition(id > lastID, "ids are appended in ascending order")
        lastID = id
    }

    func measureScan() throws -> (totals: ScanWorkload.Totals, nanos: Double) {
        let transaction = try beginTransaction(flags: LMDBLibrary.readOnly)
        defer { lmdb.txnAbort(transaction) }
        let (totals, nanos) = try measureNanos { () throws(PeerError) in try scanAll(transaction) }
        return (totals, nanos)
    }

    func measureLookups(count: Int) throws -> (ageSum: Int64, nanos: Double) {
        let transaction = try beginTransaction(flags: LMDBLibrary.readOnly)
        defer { lmdb.txnAbort(transaction) }
        let (ageSum, nanos) = try measureNanos { () throws(PeerError) in
            try lookUp(transaction, count: count)
        }
        return (ageSum, nanos)
    }

    func measureSnapshots(count: Int) throws -> (ageSum: Int64, nanos: Double) {
        // The handle the timed loop renews and resets; begun and reset before the clock.
        let transaction = try beginTransaction(flags: LMDBLibrary.readOnly)
        defer { lmdb.txnAbort(transaction) }
        lmdb.txnReset(transaction)
        let (ageSum, nanos) = try measureNanos { () throws(PeerError) in
            try snapshotLookUp(transaction, count: count)
        }
        return (ageSum, nanos)
    }

    func close() {
        guard let environment else { return }
        lmdb.envClose(environment)
        self.environment = nil
    }
}

// The timed loops. Never inlined, so that profilers can attribute them, as the engine's are.
extension LMDBPeer {
    /// scan: a cursor from `MDB_FIRST` through `MDB_NEXT`, reading the id (the key), the age
    /// and the name's bytes (count and last byte) of each value.
    @inline(never)
    private func scanAll(_ transaction: OpaquePointer) throws(PeerError) -> ScanWorkload.Totals {
        var cursor: OpaquePointer?
        try lmdb.check(lmdb.cursorOpen(transaction, database, &cursor), "mdb_cursor_open")
        defer { lmdb.cursorClose(cursor) }
        let cursorGet = lmdb.cursorGet
        var totals = ScanWorkload.Totals()
        var code = cursorGet(cursor, key.pointer, value.pointer, LMDBLibrary.cursorFirst)
        while code == 0 {
            guard key.size == 8, value.size == PeerRecordBytes.lmdbValueByteCount, let keyData = key.data,
                let valueData = value.data
            else {
                totals.nameByteCount = Int.min  // a malformed record: fail the check
                break
            }
            totals.idSum &+= keyData.loadUnaligned(as: Int64.self)
            totals.ageSum &+= valueData.loadUnaligned(fromByteOffset: PeerRecordBytes.lmdbAgeOffset, as: Int64.self)
            let nameCount = value.size - 8
            totals.nameByteCount &+= nameCount
            totals.nameLastByteSum &+= Int(valueData.load(fromByteOffset: nameCount - 1, as: UInt8.self))
            totals.recordCount += 1
            code = cursorGet(cursor, key.pointer, value.pointer, LMDBLibrary.cursorNext)
        }
        guard code == 0 || code == LMDBLibrary.notFound else { throw lmdb.failure(code, "mdb_cursor_get") }
        return totals
    }

    /// lookup: `count` `mdb_get` calls in one read transaction, each reading the age; the sum
    /// of the ages found (-1 for each miss).
    @inline(never)
    private func lookUp(_ transaction: OpaquePointer, count: Int) throws(PeerError) -> Int64 {
        var random = XorShift64()
        var ageSum: Int64 = 0
        for _ in 0..<count {
            ageSum &+= try getAge(transaction, id: random.nextID(upTo: lastID))
        }
        return ageSum
    }

    /// snapshot: `count` times `mdb_txn_renew` + `mdb_get` + `mdb_txn_reset` on one handle.
    @inline(never)
    private func snapshotLookUp(_ transaction: OpaquePointer, count: Int) throws(PeerError) -> Int64 {
        var random = XorShift64()
        var ageSum: Int64 = 0
        for _ in 0..<count {
            try lmdb.check(lmdb.txnRenew(transaction), "mdb_txn_renew")
            let age = try getAge(transaction, id: random.nextID(upTo: lastID))
            lmdb.txnReset(transaction)
            ageSum &+= age
        }
        return ageSum
    }

    @inline(__always)
    private func getAge(_ transaction: OpaquePointer, id: Int64) throws(PeerError) -> Int64 {
        keyBytes.storeBytes(of: id, as: Int64.self)
        key.set(size: 8, data: keyBytes)
        let code = lmdb.get(transaction, database, key.pointer, value.pointer)
        if code == LMDBLibrary.notFound { return -1 }
        try lmdb.check(code, "mdb_get")
        guard value.size == PeerRecordBytes.lmdbValueByteCount, let data = value.data else { return -1 }
        return data.loadUnaligned(fromByteOffset: PeerRecordBytes.lmdbAgeOffset, as: Int64.self)
    }
}
