import CStrataSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `<file>.lock`: the shared memory map holding the `VersionTable`, plus the two kernel locks
/// that coordinate processes (Docs/architecture.md §2).
///
/// - Session lock (`flock`): every process holds it shared while the file is open. An opener
///   that can take it exclusively is alone, so it (re)initialises the table from the data
///   file's newest durable slot: pins of processes that died are forgotten with them.
/// - Init lock (OFD lock on byte `initLockOffset`): serialises openers, so the exclusive try
///   and the initialisation happen for one opener at a time.
/// - Write lock (OFD lock on byte `writeLockOffset`): one writer per file across processes.
///   OFD locks belong to the open file description, so they also exclude other descriptors in
///   this process, are released if the process dies, and may be released by any thread.
///
/// The lock bytes lie far beyond the table so that they never overlap mapped data.
final class LockFile: @unchecked Sendable {
    static let initLockOffset = off_t(1) << 40
    static let writeLockOffset = initLockOffset + 1

    let path: String
    private let descriptor: Int32
    private let region: UnsafeMutableRawPointer
    private let regionByteCount: Int
    let table: VersionTable
    /// True when this opener found nobody else and initialised the table.
    let initialisedByThisOpener: Bool

    /// Opens (creating if needed) and maps the lock file of a database. `initialRecord` is
    /// called only when this opener initialises the table.
    init(
        path: String, fileIdentity: UInt64, pageSizeBytes: Int, slotCount: Int,
        initialRecord: () throws(StorageError) -> VersionRecord
    ) throws(StorageError) {
        self.path = path
        let fd = try SystemCalls.open(path, flags: O_RDWR | O_CREAT, mode: 0o644)
        descriptor = fd
        var mappedRegion: UnsafeMutableRawPointer?
        var mappedByteCount = 0
        do throws(StorageError) {
            try Self.lock(fd, offset: Self.initLockOffset, blocking: true)
            defer { Self.unlock(fd, offset: Self.initLockOffset) }
            let alone = flock(fd, LOCK_EX | LOCK_NB) == 0
            if !alone && errno != EWOULDBLOCK {
                throw StorageError.io(operation: "flock \(path)", errno: errno)
            }
            let byteCount = VersionTable.byteCount(slotCount: slotCount)
            if alone {
                try SystemCalls.truncate(fd, byteCount: 0, operation: "ftruncate \(path)")
                try SystemCalls.truncate(fd, byteCount: byteCount, operation: "ftruncate \(path)")
            } else {
                // Shared: never blocks, since exclusive holders hold the init lock, which we have.
                guard flock(fd, LOCK_SH) == 0 else {
                    throw StorageError.io(operation: "flock \(path)", errno: errno)
                }
                let size = try SystemCalls.fileSize(descriptor)
                guard size >= byteCount else {
                    throw StorageError.incompatibleLockFile(
                        reason: "lock file has \(size) bytes, expected \(byteCount)")
                }
            }
            let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
            guard let address, address != MAP_FAILED else {
                throw StorageError.io(operation: "mmap \(path)", errno: errno)
            }
            mappedRegion = address
            mappedByteCount = byteCount
            region = address
            regionByteCount = byteCount
            let table = VersionTable(base: address, slotCount: slotCount)
            if alone {
                table.initialise(fileIdentity: fileIdentity, pageSizeBytes: pageSizeBytes, record: try initialRecord())
                guard flock(fd, LOCK_SH) == 0 else {
                    throw StorageError.io(operation: "flock \(path)", errno: errno)
                }
            } else {
                try table.validate(fileIdentity: fileIdentity, pageSizeBytes: pageSizeBytes)
            }
            self.table = table
            initialisedByThisOpener = alone
        } catch {
            if let mappedRegion { munmap(mappedRegion, mappedByteCount) }
            SystemCalls.close(fd)
            throw error
        }
    }

    deinit {
        munmap(region, regionByteCount)
        SystemCalls.close(descriptor)  // drops the session lock and any OFD lock
    }

    /// Takes the cross-process write lock. Returns false when `blocking` is false and another
    /// process holds it; `onWait` runs once before blocking.
    func lockWriter(blocking: Bool, onWait: () -> Void) throws(StorageError) -> Bool {
        if (try? Self.lock(descriptor, offset: Self.writeLockOffset, blocking: false)) != nil { return true }
        guard blocking else { return false }
        onWait()
        try Self.lock(descriptor, offset: Self.writeLockOffset, blocking: true)
        return true
    }

    func unlockWriter() {
        Self.unlock(descriptor, offset: Self.writeLockOffset)
    }

    private static func lock(_ descriptor: Int32, offset: off_t, blocking: Bool) throws(StorageError) {
        let command = blocking ? strata_f_ofd_setlkw() : strata_f_ofd_setlk()
        while strata_fcntl_lock(descriptor, command, Int16(F_WRLCK), offset, 1) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw StorageError.io(operation: "lock", errno: code)
        }
    }

    private static func unlock(_ descriptor: Int32, offset: off_t) {
        _ = strata_fcntl_lock(descriptor, strata_f_ofd_setlk(), Int16(F_UNLCK), offset, 1)
    }
}

/// A `VersionTable` in anonymous memory: for stores no other process can open.
final class PrivateVersionRegion: @unchecked Sendable {
    let table: VersionTable
    private let region: UnsafeMutableRawPointer
    private let byteCount: Int

    init(fileIdentity: UInt64, pageSizeBytes: Int, slotCount: Int, record: VersionRecord) {
        byteCount = VersionTable.byteCount(slotCount: slotCount)
        region = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        table = VersionTable(base: region, slotCount: slotCount)
        table.initialise(fileIdentity: fileIdentity, pageSizeBytes: pageSizeBytes, record: record)
    }

    deinit { region.deallocate() }
}
