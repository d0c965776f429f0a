#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SQLite as a `--peers` database: the notes' configuration (Docs/peer-baselines.md part 1),
/// measured in the same process as Strata's layers.
///
/// One connection (`SQLITE_OPEN_NOMUTEX`), `journal_mode=WAL` and `synchronous=FULL` (checked
/// after they are set: every commit syncs the WAL), `cache_size=-65536` (64 MiB), mmap off,
/// autocheckpoint at its default; table `person(id INTEGER PRIMARY KEY, name TEXT, age
/// INTEGER)`, so `id` is the rowid and the table is clustered on it. Every statement is
/// prepared once and reused (bind, step, reset). The same timing boundaries as the engine
/// layer: a read workload's `BEGIN` runs before the clock starts and its `COMMIT` after it
/// stops, except in snapshot, which times `BEGIN`, the lookup and `COMMIT`.
final class SQLitePeer {
    let path: String
    private let sqlite: SQLiteLibrary
    /// nil once closed.
    private var connection: OpaquePointer?
    private let statements: Statements
    /// Records hold ids `1...lastID`, each exactly once.
    private(set) var lastID: Int64 = 0
    /// The name bytes the insert binds (`SQLITE_STATIC`: alive until the next bind).
    private let nameBytes = UnsafeMutableRawPointer.allocate(byteCount: PersonRecord.nameByteCount, alignment: 8)

    /// The prepared statements, reused for the whole run.
    private struct Statements {
        let begin: OpaquePointer
        let commit: OpaquePointer
        let insert: OpaquePointer
        let scan: OpaquePointer
        let lookup: OpaquePointer
        let count: OpaquePointer

        var all: [OpaquePointer] { [begin, commit, insert, scan, lookup, count] }
    }

    private init(path: String, sqlite: SQLiteLibrary, connection: OpaquePointer, statements: Statements) {
        self.path = path
        self.sqlite = sqlite
        self.connection = connection
        self.statements = statements
    }

    deinit {
        close()
        nameBytes.deallocate()
    }

    /// Creates the database at `path` (deleting any old one), then inserts records
    /// `1...recordCount` in one durable transaction: timed from `BEGIN` to the return of
    /// `COMMIT` (and the `COMMIT` alone). Opening, the pragmas and `CREATE TABLE` are untimed.
    static func load(path: String, recordCount: Int, sqlite: SQLiteLibrary) throws -> (SQLitePeer, LoadTiming) {
        try deleteFiles(path: path)
        var opened: OpaquePointer?
        let flags = SQLiteLibrary.openReadWrite | SQLiteLibrary.openCreate | SQLiteLibrary.openNoMutex
        let code = sqlite.open(path, &opened, flags, nil)
        guard code == SQLiteLibrary.resultOK, let connection = opened else {
            let error = sqlite.failure(code, "sqlite3_open_v2 \(path)", connection: opened)
            _ = sqlite.close(opened)
            throw error
        }
        let statements: Statements
        do throws(PeerError) {
            try configure(connection, sqlite)
            statements = try prepareStatements(connection, sqlite)
        } catch {
            _ = sqlite.close(connection)
            throw error
        }
        let peer = SQLitePeer(path: path, sqlite: sqlite, connection: connection, statements: statements)
        let timing = try peer.bulkLoad(recordCount: recordCount)
        return (peer, timing)
    }

    /// The notes' settings, each checked after it is set, and the table.
    private static func configure(_ connection: OpaquePointer, _ sqlite: SQLiteLibrary) throws(PeerError) {
        try execute("PRAGMA journal_mode=WAL", connection, sqlite)
        try execute("PRAGMA synchronous=FULL", connection, sqlite)
        try execute("PRAGMA cache_size=-65536", connection, sqlite)
        let journalMode = try queryText("PRAGMA journal_mode", connection, sqlite)
        let synchronous = try queryText("PRAGMA synchronous", connection, sqlite)
        guard journalMode == "wal", synchronous == "2" else {
            throw PeerError.call(
                peer: "SQLite", function: "PRAGMA", code: 0,
                message: "journal_mode is \(journalMode) and synchronous \(synchronous), not wal and 2 (FULL)")
        }
        try execute("CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, age INTEGER)", connection, sqlite)
    }

    private static func prepareStatements(
        _ connection: OpaquePointer, _ sqlite: SQLiteLibrary
    ) throws(PeerError) -> Statements {
        var made: [OpaquePointer] = []
        do throws(PeerError) {
            for sql in [
                "BEGIN", "COMMIT", "INSERT INTO person(id, name, age) VALUES (?, ?, ?)",
                "SELECT id, name, age FROM person", "SELECT age FROM person WHERE id = ?",
                "SELECT count(*) FROM person",
            ] {
                made.append(try prepare(sql, connection, sqlite))
            }
        } catch {
            for statement in made { _ = sqlite.finalize(statement) }
            throw error
        }
        return Statements(
            begin: made[0], commit: made[1], insert: made[2], scan: made[3], lookup: made[4], count: made[5])
    }

    private static func prepare(
        _ sql: String, _ connection: OpaquePointer, _ sqlite: SQLiteLibrary
    ) throws(PeerError) -> OpaquePointer {
        var statement: OpaquePointer?
        let code = sqlite.prepare(connection, sql, -1, &statement, nil)
        guard code == SQLiteLibrary.resultOK, let statement else {
            _ = sqlite.finalize(statement)
            throw sqlite.failure(code, "prepare \(sql)", connection: connection)
        }
        return statement
    }

    /// Runs `sql` once to the end, ignoring its rows.
    private static func execute(_ sql: String, _ connection: OpaquePointer, _ sqlite: SQLiteLibrary) throws(PeerError) {
        let statement = try prepare(sql, connection, sqlite)
        defer { _ = sqlite.finalize(statement) }
        var code = sqlite.step(statement)
        while code == SQLiteLibrary.resultRow { code = sqlite.step(statement) }
        guard code == SQLiteLibrary.resultDone else { throw sqlite.failure(code, sql, connection: connection) }
    }

    /// The first column of the first row of `sql`, as text.
    private static func queryText(
        _ sql: String, _ connection: OpaquePointer, _ sqlite: SQLiteLibrary
    ) throws(PeerError) -> String {
        let statement = try prepare(sql, connection, sqlite)
        defer { _ = sqlite.finalize(statement) }
        let code = sqlite.step(statement)
        guard code == SQLiteLibrary.resultRow else { throw sqlite.failure(code, sql, connection: connection) }
        return sqlite.columnText(statement, 0).map { String(cString: $0) } ?? ""
    }

    private func bulkLoad(recordCount: Int) throws(PeerError) -> LoadTiming {
        precondition(recordCount >= 1, "an empty database")
        let lastID = Int64(recordCount)
        for id in [1, lastID] where !PeerRecordBytes.nameMatchesRecord(id: id) {
            preconditionFailure("PeerRecordBytes.writeName differs from PersonRecord.name for \(id)")
        }
        let start = MonotonicInstant.now()
        try runToDone(statements.begin, "BEGIN")
        var id: Int64 = 1
        while id <= lastID {
            try insertRecord(id: id)
            id += 1
        }
        let commitStart = MonotonicInstant.now()
        try runToDone(statements.commit, "COMMIT")
        let end = MonotonicInstant.now()
        self.lastID = lastID
        return LoadTiming(totalNanos: end.nanos(since: start), commitNanos: end.nanos(since: commitStart))
    }

    /// Deletes a closed database's files (the database, its WAL and shared memory, a rollback
    /// journal; nothing if there are none).
    static func deleteFiles(path: String) throws(BenchError) {
        for file in [path, path + "-wal", path + "-shm", path + "-journal"]
        where unlink(file) != 0 && errno != ENOENT {
            throw BenchError.system(operation: "unlink \(file)", errno: errno)
        }
    }
}

extension SQLitePeer: LayerDatabase {
    var layer: BenchLayer { .sqlite }

    /// `SELECT count(*)`.
    func recordCount() throws -> Int {
        let count = statements.count
        let code = sqlite.step(count)
        defer { _ = sqlite.reset(count) }
        guard code == SQLiteLibrary.resultRow else { throw failure(code, "SELECT count(*)") }
        return Int(sqlite.columnInt64(count, 0))
    }

    /// `BEGIN`, the insert, `COMMIT`.
    func commitOne(id: Int64) throws -> Double {
        let (_, nanos) = try measureNanos { () throws(PeerError) in
            try runToDone(statements.begin, "BEGIN")
            try insertRecord(id: id)
            try runToDone(statements.commit, "COMMIT")
        }
        return nanos
    }

    func appended(throughID id: Int64) {
        precondition(id > lastID, "ids are appended in ascending order")
        lastID = id
    }

    func measureScan() throws -> (totals: ScanWorkload.Totals, nanos: Double) {
        try runToDone(statements.begin, "BEGIN")
        let measured = try measureNanos { () throws(PeerError) in try scanAll() }
        try runToDone(statements.commit, "COMMIT")
        return (measured.result, measured.elapsedNanos)
    }

    func measureLookups(count: Int) throws -> (ageSum: Int64, nanos: Double) {
        try runToDone(statements.begin, "BEGIN")
        let measured = try measureNanos { () throws(PeerError) in try lookUp(count: count) }
        try runToDone(statements.commit, "COMMIT")
        return (measured.result, measured.elapsedNanos)
    }

    func measureSnapshots(count: Int) throws -> (ageSum: Int64, nanos: Double) {
        let (ageSum, nanos) = try measureNanos { () throws(PeerError) in try snapshotLookUp(count: count) }
        return (ageSum, nanos)
    }

    /// Finalizes the statements and closes the connection (which checkpoints the WAL).
    func close() {
        guard let connection else { return }
        for statement in statements.all { _ = sqlite.finalize(statement) }
        _ = sqlite.close(connection)
        self.connection = nil
    }
}

// The statements' steps, and the timed loops (never inlined, so that profilers can attribute
// them, as the engine's are).
extension SQLitePeer {
    private func failure(_ code: Int32, _ function: String) -> PeerError {
        sqlite.failure(code, function, connection: connection)
    }

    /// Steps a statement that returns no rows, then resets it.
    @inline(__always)
    private func runToDone(_ statement: OpaquePointer, _ function: String) throws(PeerError) {
        let code = sqlite.step(statement)
        _ = sqlite.reset(statement)
        guard code == SQLiteLibrary.resultDone else { throw failure(code, function) }
    }

    @inline(__always)
    private func insertRecord(id: Int64) throws(PeerError) {
        let insert = statements.insert
        PeerRecordBytes.writeName(id: id, to: nameBytes)
        try checkBind(sqlite.bindInt64(insert, 1, id))
        try checkBind(sqlite.bindText(insert, 2, nameBytes, Int32(PersonRecord.nameByteCount), nil))
        try checkBind(sqlite.bindInt64(insert, 3, PersonRecord.age(id: id)))
        try runToDone(insert, "INSERT")
    }

    @inline(__always)
    private func checkBind(_ code: Int32) throws(PeerError) {
        guard code == SQLiteLibrary.resultOK else { throw failure(code, "sqlite3_bind") }
    }

    /// scan: steps `SELECT id, name, age` to the end, reading the three columns (the name's
    /// byte count and last byte).
    @inline(never)
    private func scanAll() throws(PeerError) -> ScanWorkload.Totals {
        let scan = statements.scan
        let step = sqlite.step
        let columnInt64 = sqlite.columnInt64
        let columnText = sqlite.columnText
        let columnBytes = sqlite.columnBytes
        var totals = ScanWorkload.Totals()
        var code = step(scan)
        while code == SQLiteLibrary.resultRow {
            totals.idSum &+= columnInt64(scan, 0)
            let name = columnText(scan, 1)
            let nameCount = Int(columnBytes(scan, 1))
            totals.nameByteCount &+= nameCount
            if let name, nameCount > 0 { totals.nameLastByteSum &+= Int(name[nameCount - 1]) }
            totals.ageSum &+= columnInt64(scan, 2)
            totals.recordCount += 1
            code = step(scan)
        }
        _ = sqlite.reset(scan)
        guard code == SQLiteLibrary.resultDone else { throw failure(code, "SELECT id, name, age") }
        return totals
    }

    /// lookup: `count` runs of the prepared `WHERE id = ?` in one read transaction; the sum of
    /// the ages found (-1 for each miss).
    @inline(never)
    private func lookUp(count: Int) throws(PeerError) -> Int64 {
        var random = XorShift64()
        var ageSum: Int64 = 0
        for _ in 0..<count {
            ageSum &+= try lookUpAge(id: random.nextID(upTo: lastID))
        }
        return ageSum
    }

    /// snapshot: `count` times `BEGIN`, the lookup, `COMMIT`.
    @inline(never)
    private func snapshotLookUp(count: Int) throws(PeerError) -> Int64 {
        var random = XorShift64()
        var ageSum: Int64 = 0
        for _ in 0..<count {
            try runToDone(statements.begin, "BEGIN")
            ageSum &+= try lookUpAge(id: random.nextID(upTo: lastID))
            try runToDone(statements.commit, "COMMIT")
        }
        return ageSum
    }

    @inline(__always)
    private func lookUpAge(id: Int64) throws(PeerError) -> Int64 {
        let lookup = statements.lookup
        try checkBind(sqlite.bindInt64(lookup, 1, id))
        let code = sqlite.step(lookup)
        let age = code == SQLiteLibrary.resultRow ? sqlite.columnInt64(lookup, 0) : -1
        _ = sqlite.reset(lookup)
        guard code == SQLiteLibrary.resultRow || code == SQLiteLibrary.resultDone else {
            throw failure(code, "SELECT age")
        }
        return age
    }
}
