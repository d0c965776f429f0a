import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An open database: the engine's entry point.
///
/// ```swift
/// let store = try Store.open(.file("/tmp/people.strata"))
/// let write = try store.beginWrite()
/// let people = try write.createTable("Person", primaryKey: .int(column: 0))
/// try write.insert(people.id, values: [.int(1), .string("Ada"), .int(36)])
/// try write.commit()
/// let read = try store.beginRead()
/// let ada = try read.row(people, key: ObjectKey(1))   // [.int(1), .string("Ada"), .int(36)]
/// ```
///
/// Sendable: any thread may begin transactions. Every `Store` of one database in a process
/// shares one map, one version table and one write lock.
public final class Store: Sendable {
    let file: SharedFile
    /// Where the database lives: a file path, or an in-memory store.
    public let location: StoreLocation
    private let closed = Atomic<Bool>(false)

    private init(file: SharedFile, location: StoreLocation) {
        self.file = file
        self.location = location
    }

    /// Opens (or creates) a database.
    /// - Throws: a file error naming what is wrong for files that are not Strata files, of an
    ///   unsupported version, truncated or corrupt; `.fileNotFound` without `create`.
    public static func open(_ location: StoreLocation, options: StoreOptions = StoreOptions()) throws(StorageError)
        -> Store
    {
        guard PageLayout.isSupported(pageSizeBytes: options.pageSizeBytes) else {
            throw StorageError.unsupportedPageSize(options.pageSizeBytes)
        }
        guard options.readerSlotCount >= 1 && options.readerSlotCount <= 1 << 16 else {
            throw StorageError.invalidArgument("reader slot count \(options.readerSlotCount)")
        }
        return Store(file: try SharedFileRegistry.open(location, options: options), location: location)
    }

    /// The file's page size, fixed when it was created (4–32 KiB).
    public var pageSizeBytes: Int { file.pageSizeBytes }
    /// Whether the store was opened read-only: writes fail, and its reads still pin versions
    /// through the lock file.
    public var isReadOnly: Bool { file.readOnly }
    /// Whether commits survive a crash (false for in-memory stores).
    public var isDurable: Bool { file.isDurable }
    /// The newest published version.
    public var newestVersion: Version { file.versions.newestVersion }

    /// The version the newest valid commit slot names: what a crash now would recover, once a
    /// sync of that slot was seen (a write begin makes sure of it: Spec D7). Older than
    /// `newestVersion` while commits made without a slot wait for one (Spec D10).
    public func durableVersion() throws(StorageError) -> Version {
        try file.refreshMap()
        return try SlotChoice.choose(store: file.store, header: file.header, checkChecksum: true).newest.version
    }
    /// The fallback to the older commit slot that opening the file now would make (Spec D15):
    /// the slot with the higher version is damaged, so the file recovers the other slot's
    /// version and every commit after it is gone. Nil when the newest slot is sound.
    ///
    /// A writer of another process writing its slot at this moment looks like such damage for
    /// the microseconds the write takes, so a fallback seen is checked again while holding the
    /// write lock (or, when a writer holds it, read again after a pause) before it is reported.
    public func slotFallback() throws(StorageError) -> SlotFallback? {
        try checkOpen()
        func look() throws(StorageError) -> SlotFallback? {
            try file.refreshMap()
            return try SlotChoice.choose(
                store: file.store, header: file.header,
                checkChecksum: !file.hooks.has(.skipSlotChecksum)
            ).fallback
        }
        guard var seen = try look() else { return nil }
        for _ in 0..<3 {
            if file.tryLockWriterQuietly() {
                defer { file.unlockWriterQuietly() }
                return try look()
            }
            usleep(10_000)
            guard let again = try look() else { return nil }
            seen = again
        }
        return seen
    }

    /// True after an I/O failure: reopen to recover.
    public var isPoisoned: Bool { file.isPoisoned }

    /// Raised when the file is poisoned (Spec D6): what `checkNotPoisoned()` asks first, for a
    /// caller that checks on every call and keeps the flag to read it inline.
    public var poisonFlag: FailureFlag { file.poisonFlag }

    /// Throws `.poisoned` with its cause after an I/O failure; one atomic load otherwise.
    @inline(__always)
    public func checkNotPoisoned() throws(StorageError) {
        guard file.isPoisoned else { return }
        try file.checkUsable()
    }

    private func checkOpen() throws(StorageError) {
        guard !closed.load(ordering: .relaxed) else { throw StorageError.closed }
    }

    /// Begins a read transaction on the newest version. Never blocks.
    public func beginRead(_ kind: PinKind = .live) throws(StorageError) -> ReadTransaction {
        try checkOpen()
        return try ReadTransaction(file: file, kind: kind)
    }

    /// Begins a read of `version` if a transaction of this process still pins it; nil when
    /// none does (the version may already be reclaimed). Never blocks.
    public func beginRead(pinnedVersion version: Version, _ kind: PinKind = .live) throws(StorageError)
        -> ReadTransaction?
    {
        try checkOpen()
        do {
            return try ReadTransaction(file: file, pinnedVersion: version, kind: kind)
        } catch .versionNotPinned {
            return nil
        }
    }

    /// Begins the write transaction, waiting while another thread or process writes.
    /// - Throws: `.readOnly`, `.poisoned`.
    public func beginWrite() throws(StorageError) -> WriteTransaction {
        try checkOpen()
        guard let transaction = try WriteTransaction(file: file, blocking: true) else {
            throw StorageError.io(operation: "take the write lock", errno: EAGAIN)
        }
        return transaction
    }

    /// Begins the write transaction if no other writer holds the lock; nil otherwise.
    public func tryBeginWrite() throws(StorageError) -> WriteTransaction? {
        try checkOpen()
        return try WriteTransaction(file: file, blocking: false)
    }

    /// Runs `body` in a write transaction and commits it; rolls back if `body` throws.
    @discardableResult
    public func write<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
        let transaction = try beginWrite()
        do {
            let result = try body(transaction)
            try transaction.commit()
            return result
        } catch {
            transaction.rollback()
            throw error
        }
    }

    /// `makeDeferredCommitsDurable()` as the background group sync calls it (Spec D10): the
    /// `groupSyncBegins` yield point first, where a harness may hold the sync.
    @discardableResult
    public func makeDeferredCommitsDurableInBackground() throws(StorageError) -> Bool {
        file.hooks.at(.groupSyncBegins)
        return try makeDeferredCommitsDurable()
    }

    /// The `groupSyncEnds` yield point: the background group sync is over.
    public func groupSyncEnded() { file.hooks.at(.groupSyncEnds) }

    /// Makes every commit made with `durable: false` durable (Spec D10, D13): one sync of their
    /// pages, then a slot naming the newest version, under the write lock. Returns whether
    /// there was such a commit (another process's durable commit may have covered them).
    /// - Throws: an I/O error, after which the store is poisoned (Spec D12).
    @discardableResult
    public func makeDeferredCommitsDurable() throws(StorageError) -> Bool {
        let transaction = try beginWrite()
        defer { transaction.rollback() }
        return try transaction.makeBaseDurable()
    }

    /// Marks the handle closed: new transactions fail with `.closed`. Resources are released
    /// when the last handle and transaction of the database in this process are gone.
    public func close() {
        closed.store(true, ordering: .relaxed)
    }

    // MARK: versions

    /// A version some process pins, with its pin counts summed over processes.
    public struct PinnedVersion: Sendable, Hashable {
        /// The pinned version.
        public let version: Version
        /// Pins of live reads (a realm reading this version, an unresolved reference).
        public let livePins: Int
        /// Pins of frozen values.
        public let frozenPins: Int
        /// How many processes hold a pin on it.
        public let processCount: Int
    }

    /// Every pinned version (any process), oldest first.
    public func pinnedVersions() -> [PinnedVersion] {
        var byVersion: [Version: (live: Int, frozen: Int, processes: Set<UInt64>)] = [:]
        for slot in file.versions.pinningSlots() {
            var entry = byVersion[slot.version] ?? (0, 0, [])
            entry.live += Int(slot.livePins)
            entry.frozen += Int(slot.frozenPins)
            entry.processes.insert(slot.pid)
            byVersion[slot.version] = entry
        }
        return byVersion.keys.sorted().map { version in
            let entry = byVersion[version] ?? (0, 0, [])
            return PinnedVersion(
                version: version, livePins: entry.live, frozenPins: entry.frozen,
                processCount: entry.processes.count)
        }
    }

    /// The oldest version each process pins, by pid (any process, dead ones whose slots were
    /// not reclaimed yet included): a harness that kills processes checks that a dead one's
    /// pins go (Spec L6).
    public func pinningProcesses() -> [Int32: Version] {
        var oldest: [Int32: Version] = [:]
        for slot in file.versions.pinningSlots() {
            let pid = Int32(truncatingIfNeeded: slot.pid)
            oldest[pid] = min(oldest[pid] ?? slot.version, slot.version)
        }
        return oldest
    }

    /// How many distinct versions are pinned (for `maximumNumberOfActiveVersions`).
    public var pinnedVersionCount: Int { Set(file.versions.pinningSlots().map(\.version)).count }

    /// Frees reader slots of processes that died. Returns how many.
    @discardableResult
    public func reclaimDeadReaders() -> Int { file.versions.reclaimDeadSlots() }

    // MARK: files

    /// The files a database at `path` consists of.
    public static func files(for path: String) -> [String] { [path, path + ".lock", path + ".note"] }

    /// The file every commit rings (`CommitNote`), for a `CommitNoteWatch`; nil for memory and
    /// simulated stores, which no other process can commit to.
    public var notePath: String? { file.note?.path }

    /// Deletes a database's files. Only safe when no process has it open.
    /// - Returns: whether the database file existed.
    @discardableResult
    public static func deleteFiles(path: String, keepingLockFile: Bool = false) throws(StorageError) -> Bool {
        var existed = false
        for (index, name) in files(for: path).enumerated() where !(keepingLockFile && name == path + ".lock") {
            if unlink(name) == 0 {
                if index == 0 { existed = true }
            } else if errno != ENOENT {
                throw StorageError.io(operation: "unlink \(name)", errno: errno)
            }
        }
        return existed
    }

    /// Whether anything exists at `path` (a database file or not).
    public static func fileExists(path: String) -> Bool { access(path, F_OK) == 0 }
}
