#if canImport(Glibc)
    import Glibc
#endif

/// Every error the engine reports (Docs/style.md rule 12): what the disk, the OS or a caller can cause.
/// Engine bugs are not errors: they trap through `invariant`.
///
/// A file that is not ours, of an unsupported version, truncated or corrupt always produces
/// one of the file cases below, naming what is wrong; never a crash, never wrong data.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: the file
    /// The file does not start with Strata's magic bytes.
    case notAStrataFile(path: String)
    /// The file was written by a format version this build cannot read.
    case unsupportedFormatVersion(found: UInt32, supported: UInt32)
    /// The file header names a page size this build does not support.
    case unsupportedPageSize(Int)
    /// The file is shorter than its header or its newest commit requires.
    case truncated(expectedBytes: Int, foundBytes: Int)
    /// The file header sector fails its checksum or holds impossible values.
    case corruptHeader(reason: String)
    /// Neither commit slot is valid: no committed version can be recovered.
    case noValidCommitSlot(reason: String)
    /// A page's checksum does not match its contents.
    case checksumMismatch(page: PageNumber, expected: UInt32, found: UInt32)
    /// A page holds the contents of another page (a misdirected write).
    case misdirectedPage(page: PageNumber, foundPageNumber: UInt32)
    /// A page is not of the type its parent says it is.
    case wrongPageType(page: PageNumber, expected: UInt8, found: UInt8)
    /// A reference points outside the committed pages.
    case pageOutOfRange(page: PageNumber, pageCount: UInt32)
    /// A page's contents are malformed although its checksum matched.
    case corruptPage(page: PageNumber, reason: String)
    /// A page was written by a version newer than the one that references it.
    case pageFromTheFuture(page: PageNumber, pageVersion: UInt64, readVersion: UInt64)
    /// A page passed its own checks but is not the page its reference expects (Spec F13): a
    /// lost write left an older copy, or a write of another, older page landed at its address.
    case referenceMismatch(
        page: PageNumber, expectedVersion: UInt64, expectedChecksum: UInt32,
        foundVersion: UInt64, foundChecksum: UInt32)
    /// A stored record could not be decoded.
    case corruptRecord(reason: String)

    // MARK: the OS
    /// A system call failed; `errno` is the raw error number.
    case io(operation: String, errno: Int32)
    /// The device is full (ENOSPC while writing or growing).
    case noSpace(operation: String)
    /// An earlier write or sync failed; nothing more can be done on this handle. Reopen the file
    /// to recover the last durable version (Spec D: never retry a failed sync).
    case poisoned(cause: String)
    /// The reserved address space cannot hold a file this large (raise `maximumFileSizeBytes`).
    case mapCapacityExceeded(requestedBytes: Int, capacityBytes: Int)
    /// The path names a FIFO, device, socket or other special file, never opened as a database
    /// (Spec X31: a blocking open of a FIFO would hang).
    case notARegularFile(path: String, kind: String)
    /// The lock file has an incompatible layout (another build of Strata has it open).
    case incompatibleLockFile(reason: String)
    /// Every reader slot of the lock file is in use.
    case tooManyReaders(slotCount: Int)
    /// The lock file `<file>.lock` cannot be created (`exists` false: its directory, `directory`,
    /// may not be written) or opened for writing, failing with `errno` (Spec X30). A read-only
    /// open without it is refused unless the file system is read-only or the caller set
    /// `StoreOptions.assumeImmutable` (`readOnlyOpen` true).
    case lockFileUnavailable(lockPath: String, directory: String, exists: Bool, errno: Int32, readOnlyOpen: Bool)

    // MARK: the caller
    /// The store was opened read-only.
    case readOnly
    /// The store or transaction was closed or ended.
    case closed
    /// The file does not exist and creation was not requested.
    case fileNotFound(path: String)
    /// The simulated device crashed; handles opened before the crash are dead.
    case crashed
    /// No table has this name at the version read.
    case tableNotFound(String)
    /// `createTable` named a table that exists already.
    case tableExists(String)
    /// No table has this identifier at the version read (dropped, or never created).
    case noSuchTableID(TableID)
    /// An object with this key (or primary key) already exists.
    case duplicateKey(table: String, key: String)
    /// An update named a key that holds no object in the table.
    case objectNotFound(table: String, key: ObjectKey)
    /// A value does not fit: a key longer than `maximumKeyBytes`, a row with too many columns.
    case valueTooLarge(reason: String)
    /// An argument is outside what the API accepts.
    case invalidArgument(String)
    /// The version is no longer readable: nothing pins it.
    case versionNotPinned(Version)

    public var description: String {
        switch self {
        case .notAStrataFile(let path): return "not a Strata file: \(path)"
        case .unsupportedFormatVersion(let found, let supported):
            return "unsupported file format version \(found) (this build reads \(supported))"
        case .unsupportedPageSize(let size): return "unsupported page size \(size)"
        case .truncated(let expected, let found):
            return "file truncated: needs \(expected) bytes, has \(found)"
        case .corruptHeader(let reason): return "corrupt file header: \(reason)"
        case .noValidCommitSlot(let reason): return "no valid commit slot: \(reason)"
        case .checksumMismatch(let page, let expected, let found):
            return "checksum mismatch on page \(page.rawValue): stored \(hex(expected)), computed \(hex(found))"
        case .misdirectedPage(let page, let found):
            return "page \(page.rawValue) holds the contents of page \(found) (misdirected write)"
        case .wrongPageType(let page, let expected, let found):
            return "page \(page.rawValue) has type \(found), expected \(expected)"
        case .pageOutOfRange(let page, let count):
            return "page \(page.rawValue) is beyond the committed page count \(count)"
        case .corruptPage(let page, let reason): return "corrupt page \(page.rawValue): \(reason)"
        case .pageFromTheFuture(let page, let pageVersion, let readVersion):
            return
                "page \(page.rawValue) was written by version \(pageVersion), newer than version \(readVersion) that references it"
        case .referenceMismatch(
            let page, let expectedVersion, let expectedChecksum, let foundVersion, let foundChecksum):
            return "corrupt page \(page.rawValue): not the page its reference expects (lost or misdirected write): "
                + "expected version \(expectedVersion) checksum \(hex(expectedChecksum)), "
                + "found version \(foundVersion) checksum \(hex(foundChecksum))"
        case .corruptRecord(let reason): return "corrupt record: \(reason)"
        case .io(let operation, let code): return "\(operation) failed: \(errnoName(code))"
        case .noSpace(let operation): return "\(operation) failed: no space left on device"
        case .poisoned(let cause):
            return "the handle is poisoned by an earlier I/O failure (\(cause)); reopen to recover"
        case .mapCapacityExceeded(let requested, let capacity):
            return "file of \(requested) bytes exceeds the reserved map of \(capacity) bytes"
        case .notARegularFile(let path, let kind): return "not a regular file: \(path) is a \(kind)"
        case .incompatibleLockFile(let reason): return "incompatible lock file: \(reason)"
        case .tooManyReaders(let count): return "all \(count) reader slots are in use"
        case .lockFileUnavailable(let lockPath, let directory, let exists, let code, let readOnlyOpen):
            let cause =
                exists
                ? "the lock file '\(lockPath)' exists, but this process may not open it for writing (\(errnoName(code)))"
                : "the lock file '\(lockPath)' cannot be created: this process may not write its directory '\(directory)' (\(errnoName(code)))"
            guard readOnlyOpen else { return cause }
            return cause + "; a read-only open without the lock file cannot pin the version it reads, so a writer "
                + "could reuse its pages: it is allowed only on a read-only file system, or with assumeImmutable "
                + "when no process writes the file"
        case .readOnly: return "the store is read-only"
        case .closed: return "the store or transaction is closed"
        case .fileNotFound(let path): return "no such file: \(path)"
        case .crashed: return "the simulated device crashed; reopen the store"
        case .tableNotFound(let name): return "no table named '\(name)'"
        case .tableExists(let name): return "a table named '\(name)' already exists"
        case .noSuchTableID(let id): return "no table with id \(id.rawValue)"
        case .duplicateKey(let table, let key): return "table '\(table)' already has key \(key)"
        case .objectNotFound(let table, let key): return "table '\(table)' has no object \(key.rawValue)"
        case .valueTooLarge(let reason): return "value too large: \(reason)"
        case .invalidArgument(let reason): return "invalid argument: \(reason)"
        case .versionNotPinned(let version): return "version \(version.rawValue) is not pinned"
        }
    }

    /// True for errors that mean the file's contents are damaged (exit code 1 in strata-tool).
    public var isCorruption: Bool {
        switch self {
        case .notAStrataFile, .unsupportedFormatVersion, .unsupportedPageSize, .truncated,
            .corruptHeader, .noValidCommitSlot, .checksumMismatch, .misdirectedPage,
            .wrongPageType, .pageOutOfRange, .corruptPage, .pageFromTheFuture, .referenceMismatch,
            .corruptRecord:
            return true
        default:
            return false
        }
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

func errnoName(_ code: Int32) -> String {
    switch code {
    case EIO: return "EIO (input/output error)"
    case ENOSPC: return "ENOSPC (no space left on device)"
    case EACCES: return "EACCES (permission denied)"
    case ENOENT: return "ENOENT (no such file or directory)"
    case EROFS: return "EROFS (read-only file system)"
    case EAGAIN: return "EAGAIN (resource temporarily unavailable)"
    case EINTR: return "EINTR (interrupted)"
    case ELOOP: return "ELOOP (too many levels of symbolic links)"
    case EFBIG: return "EFBIG (file size limit exceeded)"
    case EISDIR: return "EISDIR (is a directory)"
    default:
        if let text = strerror(code) { return "errno \(code) (\(String(cString: text)))" }
        return "errno \(code)"
    }
}
