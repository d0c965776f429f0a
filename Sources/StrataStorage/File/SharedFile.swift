import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Everything one process keeps for one open database, shared by all of its `Store` handles
/// and transactions: the page store and its map, the version table, the pins, the checksum
/// cache, the write lock, and the poison flag.
///
/// States: open → (poisoned) → released. A poisoned file accepts no new transactions; its
/// handles fail with `.poisoned` until every handle is gone and the file is opened again,
/// which recovers the last durable version (Spec D: never retry a failed sync).
///
/// Lock order (outer first): `writerGate` → lock-file write lock → `state` → `PinRegistry`.
final class SharedFile: @unchecked Sendable {
    let store: PageStore
    let header: FileHeader
    let hooks: EngineHooks
    let readOnly: Bool
    let generation: UInt64
    let checksumCache: ChecksumCache
    let versions: VersionTable
    let pins: PinRegistry
    let growthChunkBytesMin: Int
    /// The largest the file may grow to (`StoreOptions.maximumFileSizeBytes`, whole pages):
    /// the map's reservation and the checksum cache are sized for it.
    let capacityBytes: Int
    let displayName: String
    /// Set only for real files: the lock file and its cross-process write lock.
    private let lockFile: LockFile?
    /// `<file>.note`, rung after every publish (nil for memory and simulated stores, and when
    /// it cannot be written).
    let note: CommitNote?
    /// Set for stores no other process can see.
    private let privateRegion: PrivateVersionRegion?
    /// In-process writer exclusion; a semaphore so that any thread may release it.
    private let writerGate = DispatchSemaphore(value: 1)
    /// The slots chosen at open (for `stat`).
    let slotsAtOpen: SlotChoice

    struct MutableState {
        var poisonCause: String?
        /// The free list of the newest version this process committed, to skip reading it.
        var freeListCache: (version: Version, list: FreeList, chain: [UInt32])?
        /// Recently loaded catalogs by version.
        var catalogCache: [(version: Version, catalog: Catalog)] = []
        /// Whether a reader's pin held freed pages back when the previous write began (for the
        /// `pageReuseAfterLastPinDropped` probe).
        var pinHeldPagesBack = false
    }
    private let state = Lock(MutableState())
    /// Raised (after `poisonCause`) when the file is poisoned; never lowered.
    let poisonFlag = FailureFlag()

    var pageSizeBytes: Int { header.pageSizeBytes }
    var isDurable: Bool { store.isDurable }

    private init(
        store: PageStore, header: FileHeader, options: StoreOptions, readOnly: Bool, generation: UInt64,
        slots: SlotChoice, lockFile: LockFile?, privateRegion: PrivateVersionRegion?,
        note: CommitNote? = nil
    ) throws(StorageError) {
        self.store = store
        self.header = header
        self.hooks = options.hooks
        self.readOnly = readOnly
        self.generation = generation
        self.lockFile = lockFile
        self.note = note
        self.privateRegion = privateRegion
        self.slotsAtOpen = slots
        self.growthChunkBytesMin = options.growthChunkBytesMin
        self.capacityBytes = options.maximumFileSizeBytes / header.pageSizeBytes * header.pageSizeBytes
        guard store.mappedByteCount <= capacityBytes else {
            throw StorageError.mapCapacityExceeded(requestedBytes: store.mappedByteCount, capacityBytes: capacityBytes)
        }
        self.displayName = store.displayName
        guard let table = lockFile?.table ?? privateRegion?.table else {
            throw StorageError.invalidArgument("a shared file needs a version table")
        }
        versions = table
        pins = PinRegistry(table: table, hooks: options.hooks)
        checksumCache = try ChecksumCache(pageCapacity: max(1, options.maximumFileSizeBytes / header.pageSizeBytes))
        if slots.recoveredFromOlderSlot { hooks.mark(.tornSlotRecoveredFromOtherSlot) }
        if lockFile?.initialisedByThisOpener == true { hooks.mark(.lockFileInitialised) }
    }

    /// The idle reader slot goes with the file; the version table is still mapped here (stored
    /// properties are released after this body).
    deinit { pins.releaseIdleSlot() }

    // MARK: opening

    static func openFile(path: String, options: StoreOptions) throws(StorageError) -> SharedFile {
        // Spec X28: the data file is mapped before the lock file's session lock is taken, so a
        // deletion (which holds that lock exclusively while it removes the files) can remove the
        // file this opener mapped while it waits for the lock: then it opens again, and gets
        // the new file. Twice at most, so that a path deleted over and over still opens.
        for _ in 0..<2 {
            if let opened = try openFile(path: path, options: options, acceptDeleted: false) { return opened }
        }
        guard let opened = try openFile(path: path, options: options, acceptDeleted: true) else {
            throw StorageError.invalidArgument("\(path) could not be opened")
        }
        return opened
    }

    /// One attempt of `openFile`: nil when the file was deleted or replaced while this waited
    /// for the lock file (unless `acceptDeleted`).
    private static func openFile(
        path: String, options: StoreOptions,
        acceptDeleted: Bool
    ) throws(StorageError) -> SharedFile? {
        if access(path, F_OK) != 0 {
            // Spec X31: only a missing file is "not found" (a symlink loop is ELOOP, a
            // forbidden directory EACCES).
            let code = errno
            if code != ENOENT { throw StorageError.io(operation: "open \(path)", errno: code) }
            guard options.create && !options.readOnly else { throw StorageError.fileNotFound(path: path) }
            try FileCreation.createFile(path: path, pageSizeBytes: options.pageSizeBytes)
        }
        let store = try FileStore(
            path: path, readOnly: options.readOnly,
            reservationBytes: options.maximumFileSizeBytes, hooks: options.hooks)
        let fileByteCount = store.mappedByteCount
        let header = try FileHeader.decode(store.base, fileByteCount: fileByteCount, path: path)
        let slots = try SlotChoice.choose(
            store: store, header: header, checkChecksum: !options.hooks.has(.skipSlotChecksum))
        let lockPath = path + ".lock"
        var lockFile: LockFile?
        var privateRegion: PrivateVersionRegion?
        do throws(StorageError) {
            lockFile = try LockFile(
                path: lockPath, fileIdentity: header.fileIdentity, pageSizeBytes: header.pageSizeBytes,
                slotCount: options.readerSlotCount,
                initialRecord: { () throws(StorageError) in VersionRecord(slot: slots.newest) })
        } catch {
            guard case .io(_, let code) = error, code == EACCES || code == EPERM || code == EROFS else { throw error }
            // Spec X30: without write access to the lock file this process cannot pin the
            // version it reads (reader slots live in the lock file), so a writer could reuse
            // the pages under it. Reading goes on only where no writer can exist: on a
            // read-only file system; when the lock file is missing and nobody can create it
            // (EPERM from an immutable directory, EROFS: every writer holds the lock file, and
            // none can make it); or when the caller asserts it. EACCES from a missing lock
            // file is not enough: another user may have the right to create it.
            let exists = access(lockPath, F_OK) == 0
            let noWriterCanExist =
                SystemCalls.isOnReadOnlyFileSystem(store.descriptor)
                || (!exists && (code == EPERM || code == EROFS))
            guard options.readOnly, options.assumeImmutable || noWriterCanExist else {
                let directory = SystemCalls.parentDirectory(of: lockPath)
                throw StorageError.lockFileUnavailable(
                    lockPath: lockPath, directory: directory, exists: exists,
                    errno: code, readOnlyOpen: options.readOnly)
            }
            privateRegion = PrivateVersionRegion(
                fileIdentity: header.fileIdentity, pageSizeBytes: header.pageSizeBytes,
                slotCount: 64, record: VersionRecord(slot: slots.newest))
        }
        if lockFile != nil, !acceptDeleted, !SystemCalls.isFile(store.descriptor, named: path) { return nil }
        return try SharedFile(
            store: store, header: header, options: options, readOnly: options.readOnly,
            generation: store.generation, slots: slots, lockFile: lockFile, privateRegion: privateRegion,
            note: lockFile == nil ? nil : CommitNote(databasePath: path, readOnly: options.readOnly))
    }

    /// Opens a store that lives in this process only (memory or simulated).
    static func openPrivate(store: PageStore, generation: UInt64, options: StoreOptions) throws(StorageError)
        -> SharedFile
    {
        if store.mappedByteCount == 0 {
            guard options.create && !options.readOnly else { throw StorageError.fileNotFound(path: store.displayName) }
            try FileCreation.initialise(store: store, pageSizeBytes: options.pageSizeBytes)
        }
        let fileByteCount = store.mappedByteCount
        let header = try FileHeader.decode(store.base, fileByteCount: fileByteCount, path: store.displayName)
        let slots = try SlotChoice.choose(
            base: store.base, header: header, fileByteCount: fileByteCount,
            checkChecksum: !options.hooks.has(.skipSlotChecksum))
        let region = PrivateVersionRegion(
            fileIdentity: header.fileIdentity, pageSizeBytes: header.pageSizeBytes,
            slotCount: options.readerSlotCount, record: VersionRecord(slot: slots.newest))
        return try SharedFile(
            store: store, header: header, options: options, readOnly: options.readOnly,
            generation: generation, slots: slots, lockFile: nil, privateRegion: region)
    }

    // MARK: state

    /// Every read begins here, so the common case reads one atomic flag instead of taking the
    /// state lock; the cause is read under the lock only once the flag is set.
    func checkUsable() throws(StorageError) {
        try store.checkAlive(generation: generation)
        guard poisonFlag.isRaised else { return }
        if let cause = state.withLock({ $0.poisonCause }) { throw StorageError.poisoned(cause: cause) }
    }

    var isPoisoned: Bool { poisonFlag.isRaised }

    /// Marks the file unusable after a failed write or sync.
    func poison(_ cause: StorageError) {
        state.withLock { if $0.poisonCause == nil { $0.poisonCause = cause.description } }
        poisonFlag.raise()
    }

    func withState<R>(_ body: (inout MutableState) -> R) -> R {
        state.withLock { body(&$0) }
    }

    /// Makes sure the map covers `pageCount` pages (another process may have grown the file).
    @inline(__always)
    /// Extends the map over everything the file holds now: another process may have grown it
    /// since this one last looked (its slots may point past the end of this process's map).
    func refreshMap() throws(StorageError) {
        let fileBytes = try store.fileByteCount()
        if fileBytes > store.mappedByteCount { try store.extendMap(toByteCount: fileBytes) }
    }

    func ensureMapped(pageCount: UInt32) throws(StorageError) {
        let needed = Int(pageCount) * header.pageSizeBytes
        if store.mappedByteCount < needed {
            try store.extendMap(toByteCount: try store.fileByteCount())
            guard store.mappedByteCount >= needed else {
                throw StorageError.truncated(expectedBytes: needed, foundBytes: store.mappedByteCount)
            }
        }
    }

    func reader(for record: VersionRecord) -> PageReader {
        PageReader(
            base: store.base, pageSizeBytes: header.pageSizeBytes, pageCount: record.pageCount,
            readVersion: record.version, cache: checksumCache,
            checkReferences: !hooks.has(.skipReferenceCheck))
    }

    /// The catalog of `record`'s version, from the cache when possible.
    func catalog(for record: VersionRecord, reader: PageReader) throws(StorageError) -> Catalog {
        if let cached = state.withLock({ s in s.catalogCache.first { $0.version == record.version }?.catalog }) {
            return cached
        }
        let catalog = try TableReads(source: reader, reader: reader, space: nil).loadCatalog(
            root: record.catalogRootRef)
        remember(catalog, for: record.version)
        return catalog
    }

    func remember(_ catalog: Catalog, for version: Version) {
        state.withLock { s in
            s.catalogCache.removeAll { $0.version == version }
            s.catalogCache.insert((version, catalog), at: 0)
            if s.catalogCache.count > 4 { s.catalogCache.removeLast() }
        }
    }

    // MARK: the write lock

    /// Writers let in by the seeded bug `writersDoNotExclude` without the lock (their unlock
    /// must not release the holder's).
    private let bypassingWriters = Lock(0)

    /// Takes the write lock of this process and, for files, of every process. Returns false
    /// when `blocking` is false and another writer holds it.
    func lockWriter(blocking: Bool) throws(StorageError) -> Bool {
        hooks.at(.writeLockWait)
        if writerGate.wait(timeout: .now()) != .success {
            guard blocking else { return false }
            if hooks.has(.writersDoNotExclude) {
                bypassingWriters.withLock { $0 += 1 }
                hooks.at(.writeLockAcquired)
                return true
            }
            hooks.mark(.writerBlockedByOtherThread)
            hooks.at(.writeLockBlocks)
            writerGate.wait()
        }
        if let lockFile {
            do {
                let acquired = try lockFile.lockWriter(blocking: blocking) { hooks.mark(.writerBlockedByOtherProcess) }
                if !acquired {
                    writerGate.signal()
                    return false
                }
            } catch {
                writerGate.signal()
                throw error
            }
        }
        hooks.at(.writeLockAcquired)
        return true
    }

    /// Takes the write lock only if it is free, without the hooks' yield points or probes (for
    /// inspection that must not disturb a harness's schedule: `Store.slotFallback()`). Release
    /// with `unlockWriterQuietly()`.
    func tryLockWriterQuietly() -> Bool {
        guard writerGate.wait(timeout: .now()) == .success else { return false }
        if let lockFile, (try? lockFile.lockWriter(blocking: false, onWait: {})) != true {
            writerGate.signal()
            return false
        }
        return true
    }

    func unlockWriterQuietly() {
        lockFile?.unlockWriter()
        writerGate.signal()
    }

    func unlockWriter() {
        if hooks.has(.writersDoNotExclude) {
            let bypassed = bypassingWriters.withLock { count -> Bool in
                guard count > 0 else { return false }
                count -= 1
                return true
            }
            if bypassed { return }
        }
        lockFile?.unlockWriter()
        writerGate.signal()
        hooks.at(.writeLockReleased)
    }
}

/// The process-wide registry of shared files, so that every handle of one database in this
/// process shares one map, one version table view and one write lock.
enum SharedFileRegistry {
    private enum Key: Hashable {
        case file(device: UInt64, inode: UInt64, readOnly: Bool)
        case memory(String)
        case processLocal(ObjectIdentifier, generation: UInt64)
    }

    private final class WeakEntry: @unchecked Sendable {
        weak var file: SharedFile?
        init(_ file: SharedFile) { self.file = file }
    }

    private static let entries = Lock<[Key: WeakEntry]>([:])

    /// Memory stores are kept alive by their handles only; this keeps the store of an
    /// identifier alive while any shared file uses it.
    static func open(_ location: StoreLocation, options: StoreOptions) throws(StorageError) -> SharedFile {
        switch location.kind {
        case .file(let path):
            return try openFile(path: path, options: options)
        case .memory(let identifier):
            return try entries.withLock { table throws(StorageError) -> SharedFile in
                if let existing = table[.memory(identifier)]?.file, !existing.isPoisoned { return existing }
                let store = try MemoryStore(
                    identifier: identifier, reservationBytes: min(options.maximumFileSizeBytes, 16 << 30),
                    hooks: options.hooks)
                let file = try SharedFile.openPrivate(store: store, generation: 0, options: options)
                table[.memory(identifier)] = WeakEntry(file)
                return file
            }
        case .processLocal(let store):
            return try entries.withLock { table throws(StorageError) -> SharedFile in
                let generation = store.boot(hooks: options.hooks)
                let key = Key.processLocal(ObjectIdentifier(store), generation: generation)
                if let existing = table[key]?.file, !existing.isPoisoned { return existing }
                let file = try SharedFile.openPrivate(store: store, generation: generation, options: options)
                table[key] = WeakEntry(file)
                return file
            }
        }
    }

    private static func openFile(path: String, options: StoreOptions) throws(StorageError) -> SharedFile {
        // Files are keyed by device and inode, read after the file exists; creation happens
        // outside the registry lock (`SharedFile.openFile` handles racing creators).
        func identity() -> Key? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return .file(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), readOnly: options.readOnly)
        }
        if let key = identity(), let existing = entries.withLock({ $0[key]?.file }), !existing.isPoisoned {
            return existing
        }
        let file = try SharedFile.openFile(path: path, options: options)
        guard let key = identity() else { return file }
        return entries.withLock { table in
            if let existing = table[key]?.file, !existing.isPoisoned { return existing }
            table[key] = WeakEntry(file)
            return file
        }
    }
}
