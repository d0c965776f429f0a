/// The single write transaction of a database (across threads and processes).
///
/// Lifecycle: `Store.beginWrite` takes the write lock and starts from the newest version
/// (Spec W: a write always starts at the head) → table operations change private page copies
/// → `commit()` makes version base + 1 durable and visible (two phases, `Pager`), or
/// `rollback()` discards everything without I/O. Either ends the transaction and releases the
/// lock; a transaction dropped while active rolls back.
///
/// Reads inside the transaction see its own changes.
///
/// Confinement: not Sendable. Use it from one thread at a time (the lock itself may be released
/// from any thread).
public final class WriteTransaction: VersionReading {
    enum State { case active, committed, rolledBack, failed }

    let file: SharedFile
    let base: VersionRecord
    let space: WriteSpace
    /// The header slot this commit writes: never the one holding the newest durable version.
    let slotToWrite: Int
    /// The version in the newest valid commit slot: older than `base` while commits made
    /// without a slot (`commit(durable: false)`) wait for one.
    let durableVersion: Version
    /// The pages holding the base version's free list (released by this commit).
    let baseFreeListChain: [UInt32]
    /// The catalog as changed so far, except `pendingTable`: read it through `catalog`.
    private var catalogStorage: Catalog
    var catalogRoot: UInt32
    /// Tables whose descriptor the commit rewrites, except `pendingTable`: read it through
    /// `dirtyTables`.
    private var dirtyTableStorage: Set<TableID> = []
    /// The table the latest object operation changed, not yet written back to the catalog.
    /// Object operations read and store their table here (`info`, `storeTable`), so a bulk
    /// insert does not hash the table's name and id into two dictionaries and a set per
    /// object. Every other access goes through `catalog` or `dirtyTables`, which write it
    /// back first, so nothing can observe the catalog without it.
    private var pendingTable: TableInfo?
    var schemaChanged: Set<String> = []
    var removedCatalogKeys: [[UInt8]] = []
    var catalogMetadataChanged = false
    /// Counts the tables this transaction created or dropped: a caller that keeps a table's
    /// descriptor between object operations (the Realm API's `add`) knows it still names the
    /// same table while the count is unchanged, and need not look it up by name each time.
    public internal(set) var tableSetGeneration = 0
    var schemaVersion: UInt64
    var state = State.active
    /// The encoding buffer of inserts, kept so its capacity is reused (`encodeRow`).
    private var rowBuffer: [UInt8] = []

    init?(file: SharedFile, blocking: Bool) throws(StorageError) {
        guard try file.lockWriter(blocking: blocking) else { return nil }
        do throws(StorageError) {
            try file.checkUsable()
            guard !file.readOnly else { throw StorageError.readOnly }
            let begin = try WriteBegin.prepare(file)
            self.file = file
            base = begin.base
            slotToWrite = begin.slotToWrite
            durableVersion = begin.durableVersion
            baseFreeListChain = begin.freeListChain
            space = WriteSpace(
                reader: begin.reader, newVersion: begin.base.version.next, freeList: begin.freeList,
                pageCount: begin.base.pageCount, hooks: file.hooks)
            catalogStorage = begin.catalog
            catalogRoot = begin.base.catalogRoot
            schemaVersion = begin.base.schemaVersion
        } catch {
            file.unlockWriter()
            throw error
        }
    }

    deinit {
        if state == .active { rollback() }
    }

    /// The catalog with every change of this transaction (`pendingTable` written back).
    var catalog: Catalog {
        get {
            flushPendingTable()
            return catalogStorage
        }
        _modify {
            flushPendingTable()
            yield &catalogStorage
        }
    }

    /// The tables whose descriptors this commit rewrites (`pendingTable` written back).
    var dirtyTables: Set<TableID> {
        get {
            flushPendingTable()
            return dirtyTableStorage
        }
        _modify {
            flushPendingTable()
            yield &dirtyTableStorage
        }
    }

    /// Writes `pendingTable` back into the catalog and marks it dirty.
    private func flushPendingTable() {
        guard let table = pendingTable else { return }
        pendingTable = nil
        catalogStorage.set(table)
        dirtyTableStorage.insert(table.id)
        invariant(pendingTable == nil, "the pending table is written back once")
    }

    /// Whether this transaction inserted, updated or deleted objects of `table` (or created
    /// it): an object of a table it did not touch existed when it began. Reads the pending
    /// descriptor in place (no write-back, which would slow the next object operation).
    public func hasChanges(in table: TableInfo) -> Bool {
        pendingTable?.id == table.id || dirtyTableStorage.contains(table.id)
    }

    /// Records the new state of a table an object operation changed (see `pendingTable`).
    func storeTable(_ table: TableInfo) {
        if pendingTable?.id == table.id {
            // The common case (every object operation after the first on a table): update the
            // pending descriptor in place rather than replace it, which would retain the new
            // name and schema and release the old.
            pendingTable?.adoptObjectState(of: table)
            return
        }
        flushPendingTable()
        invariant(pendingTable == nil, "one pending table")
        pendingTable = table
    }

    /// The table `id` as this transaction sees it.
    func info(_ id: TableID) throws(StorageError) -> TableInfo {
        if let pending = pendingTable, pending.id == id { return pending }
        guard let table = catalog.table(id) else { throw StorageError.noSuchTableID(id) }
        return table
    }

    /// The version this transaction started from.
    public var baseVersion: Version { base.version }
    /// The version `commit()` will create.
    public var newVersion: Version { space.newVersion }
    /// Whether the transaction can still change and commit: false once it committed, rolled
    /// back or failed.
    public var isActive: Bool { state == .active }

    /// Discards every change. No I/O. Idempotent after commit or rollback.
    public func rollback() {
        guard state == .active else { return }
        state = .rolledBack
        file.unlockWriter()
    }

    /// Makes the changes durable and visible as `newVersion` (Spec W, D: the two phases).
    /// With `durable: false` the pages are written and the version published, but no slot
    /// names it until a later durable commit or `Store.makeDeferredCommitsDurable()` (Spec
    /// D10: an async group's commits share one sync); a crash before then recovers the last
    /// durable version.
    /// - Throws: an I/O error, after which the store is poisoned: reopen it to recover the last
    ///   durable version.
    @discardableResult
    public func commit(durable: Bool = true) throws(StorageError) -> Version {
        try checkActive()
        defer {
            if state == .active { state = .failed }
            file.unlockWriter()
        }
        let version = try commitChanges(durable: durable)
        state = .committed
        return version
    }

    /// Commits like `commit(durable:)`, then pins the new version for reading before the write
    /// lock is released, so that no other commit can come between (the committer reads exactly
    /// its own commit). The pin is nil when no reader slot is free; the commit has happened
    /// regardless.
    /// - Throws: as `commit(durable:)`.
    public func commitAndPin(_ kind: PinKind, durable: Bool = true)
        throws(StorageError) -> (version: Version, read: ReadTransaction?)
    {
        try checkActive()
        defer {
            if state == .active { state = .failed }
            file.unlockWriter()
        }
        let version = try commitChanges(durable: durable)
        state = .committed
        let read = try? ReadTransaction(file: file, kind: kind)
        if let read { invariant(read.version == version, "a pin taken under the write lock reads the commit") }
        return (version, read)
    }

    /// Encodes `values` as a row in the reusable row buffer and calls `body` with its bytes.
    func withEncodedRow<R>(
        _ values: [Value], incarnation: Incarnation,
        _ body: ([UInt8]) throws(StorageError) -> R
    ) throws(StorageError) -> R {
        var row: [UInt8] = []
        swap(&row, &rowBuffer)
        defer { swap(&row, &rowBuffer) }
        try RowCodec.encode(
            values, incarnation: incarnation, inlineByteCountMax: rowCellByteCountMax, space: space,
            into: &row)
        return try body(row)
    }

    func checkActive() throws(StorageError) {
        guard state == .active else { throw StorageError.closed }
        try file.store.checkAlive(generation: file.generation)
    }

    var reads: TableReads<WritePages> {
        TableReads(source: space.source, reader: space.reader, space: space)
    }

    /// The schema version to record with this commit.
    public var storedSchemaVersion: UInt64 {
        get { schemaVersion }
        set { schemaVersion = newValue }
    }
}

/// What `WriteTransaction` starts from, prepared under the write lock.
struct WriteBegin {
    let base: VersionRecord
    let reader: PageReader
    let slotToWrite: Int
    let durableVersion: Version
    let freeList: FreeList
    let freeListChain: [UInt32]
    let catalog: Catalog

    static func prepare(_ file: SharedFile) throws(StorageError) -> WriteBegin {
        var base = try newestRecord(file)
        try file.refreshMap()
        let slots = try SlotChoice.choose(
            base: file.store.base, header: file.header,
            fileByteCount: file.store.mappedByteCount,
            checkChecksum: !file.hooks.has(.skipSlotChecksum))
        if slots.newest.version > base.version {
            // A writer (of another process) died after its slot sync but before publishing:
            // its commit is durable and complete, so adopt it rather than overwrite its pages.
            base = VersionRecord(slot: slots.newest)
            file.versions.publish(base)
            file.hooks.mark(.adoptedDurableCommitOfDeadWriter)
        }
        // A newer published version than the slots name is a commit made without a slot
        // (durable: false), by this or another process; the next durable commit covers it.
        guard slots.newest.version <= base.version else {
            throw StorageError.noValidCommitSlot(
                reason:
                    "published version \(base.version.rawValue) is older than the slots' \(slots.newest.version.rawValue)"
            )
        }
        // Spec D16: the slots name at most `Version.maximum`; a commit after it would name a
        // version no open accepts.
        guard base.version < .maximum else {
            throw StorageError.corruptRecord(
                reason: "version \(base.version.rawValue) is the largest a file may reach: no commit can follow it")
        }
        // Spec D7: the newest slot is durable, and the pages only its older neighbour's version
        // holds are free to reuse, once a sync of it was seen; a slot found in the file (after a
        // failed phase-2 sync, a dead writer, or any fresh lock file) is written again first.
        if file.versions.confirmedSlotVersion != slots.newest.version {
            try file.confirmNewestSlot(slots.newest, index: slots.newestIndex)
        }
        try file.ensureMapped(pageCount: base.pageCount)
        let reader = file.reader(for: base)
        let slotToWrite = file.hooks.has(.singleCommitSlot) ? 0 : slots.inactiveIndex
        // The free list and its reuse policy belong to the pager (Spec D, the space rules).
        let (freeList, chain) = try FreeSpacePolicy.reusableSpace(
            base: base.version, head: base.freeListHeadRef,
            entryCount: base.freeListEntryCount, reader: reader,
            durable: slots.newest.version, hooks: file.hooks,
            client: file)
        let catalog = try file.catalog(for: base, reader: reader)
        return WriteBegin(
            base: base, reader: reader, slotToWrite: slotToWrite, durableVersion: slots.newest.version,
            freeList: freeList, freeListChain: chain, catalog: catalog)
    }

    private static func newestRecord(_ file: SharedFile) throws(StorageError) -> VersionRecord {
        let newest = file.versions.newestVersion
        guard let record = file.versions.record(of: newest) else {
            throw StorageError.incompatibleLockFile(reason: "no record of the newest version \(newest.rawValue)")
        }
        return record
    }
}
