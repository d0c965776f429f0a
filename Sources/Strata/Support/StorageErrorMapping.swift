import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

// The one place engine errors become `Realm.Error` (Docs/style.md rule 12).

extension Realm.Error {
    /// Realm's prefix of an error opening a realm file (Spec X6); a copy's destination and the
    /// lock file say "file", not "Realm file".
    static func openPrefix(_ path: String, realmFile: Bool = true) -> String {
        "Failed to open \(realmFile ? "Realm file" : "file") at path '\(path)'"
    }

    /// The API error for an engine error met while opening, reading or writing the realm file
    /// at `path` (`realmFile` false: another file, such as a copy's destination).
    ///
    /// Damage (Spec D8, D17) is code `.invalidDatabase` naming the file and what is damaged:
    /// a damaged page, wherever it is met, "Realm file at path 'p' is corrupted: page 17: ...";
    /// a damaged header or commit slots met by the engine's open of the file (`opening`),
    /// Realm's open message (Spec X6) "Failed to open Realm file at path 'p': ...". Never an
    /// open failure after the open, never an object that looks deleted.
    static func from(_ error: StorageError, path: String, realmFile: Bool = true, opening: Bool = false) -> Realm.Error
    {
        let prefix = openPrefix(path, realmFile: realmFile)
        if error.isCorruption, let (detail, namesPage) = corruptionDetail(error) {
            let message =
                opening && !namesPage ? "\(openPrefix(path)): \(detail)" : corruptedMessage(path: path, detail: detail)
            return Realm.Error(.invalidDatabase, message, path: path)
        }
        switch error {
        case .fileNotFound:
            return Realm.Error(.fileNotFound, "\(prefix): No such file or directory", path: path)
        case .io(let operation, let code):
            return fromErrno(code, path: path, operation: operation, realmFile: realmFile)
        case .truncated(_, let foundBytes) where foundBytes < 4096:
            return Realm.Error(
                .invalidDatabase,
                "\(prefix): file is non-empty but too small (\(foundBytes) bytes) to be a valid Realm.",
                path: path)
        case .notARegularFile(_, let kind):
            // Spec X31: never opened (a FIFO would block the open).
            return Realm.Error(.fileAccess, "\(prefix): not a regular file (it is a \(kind))", path: path)
        case .lockFileUnavailable(let lockPath, _, _, let code, _):
            // Spec X30: the lock file is named, not the realm file, with Realm's advice.
            let reason =
                code == EACCES
                ? "Permission denied" : code == EROFS ? "Read-only file system" : "Operation not permitted"
            return Realm.Error(
                .filePermissionDenied,
                "\(openPrefix(lockPath, realmFile: false)): \(reason): \(error). "
                    + "Please use a path where your app has read-write permissions.",
                path: lockPath)
        case .incompatibleLockFile:
            return Realm.Error(.incompatibleLockFile, "\(prefix): \(error)", path: path + ".lock")
        case .mapCapacityExceeded:
            return Realm.Error(.addressSpaceExhausted, "\(error)")
        case .readOnly:
            return .readOnlyTransaction
        case .poisoned(let cause):
            // Spec D6: Realm has no such state; the message says what to do, then the cause.
            return Realm.Error(.fail, "The file was poisoned by a failed write or sync; reopen it. Cause: \(cause)")
        default:
            return Realm.Error(.fail, "\(error)")
        }
    }

    /// Spec D17: the message of damage found in the open realm file at `path`.
    static func corruptedMessage(path: String, detail: String) -> String {
        "Realm file at path '\(path)' is corrupted: \(detail)"
    }

    /// Spec W13, D17: a link names an object that is not there. Deleting an object removes
    /// the links to it, so only a damaged file (an older copy of a page read back, a lost
    /// write) can hold one.
    static func linkToMissingObject(path: String, className: String, key: ObjectKey) -> Realm.Error {
        Realm.Error(
            .invalidDatabase,
            corruptedMessage(
                path: path, detail: "a link names object \(key.rawValue) of '\(className)', which does not exist"),
            path: path)
    }

    /// What is damaged, page first when the error names one ("page 17: checksum mismatch
    /// (stored 0x..., computed 0x...)", `namesPage` true); nil for an error that is not damage,
    /// and for the file too small to be a realm, whose message is Realm's own (Spec X6).
    static func corruptionDetail(_ error: StorageError) -> (detail: String, namesPage: Bool)? {
        func page(_ number: PageNumber, _ reason: String) -> (String, Bool) {
            ("page \(number.rawValue): \(reason)", true)
        }
        switch error {
        case .truncated(_, let foundBytes) where foundBytes < 4096:
            return nil
        case .checksumMismatch(let number, let expected, let found):
            return page(number, "checksum mismatch (stored \(hex32(expected)), computed \(hex32(found)))")
        case .misdirectedPage(let number, let found):
            return page(number, "holds the contents of page \(found) (misdirected write)")
        case .wrongPageType(let number, let expected, let found):
            return page(number, "has page type \(found), expected \(expected)")
        case .pageOutOfRange(let number, let count):
            return page(number, "is beyond the committed page count \(count)")
        case .corruptPage(let number, let reason):
            return page(number, reason)
        case .referenceMismatch(
            let number, let expectedVersion, let expectedChecksum, let foundVersion, let foundChecksum):
            // Spec D19: a lost or misdirected write.
            return page(
                number,
                "not the page its reference expects (lost or misdirected write): expected version "
                    + "\(expectedVersion) checksum \(hex32(expectedChecksum)), found version \(foundVersion) "
                    + "checksum \(hex32(foundChecksum))")
        case .pageFromTheFuture(let number, let pageVersion, let readVersion):
            return page(
                number, "written by version \(pageVersion), newer than version \(readVersion) that references it")
        default:
            // The header, the slots, a record; and any damage a later engine names: its own text.
            return error.isCorruption ? ("\(error)", false) : nil
        }
    }

    private static func hex32(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// The API error for a commit the engine failed (Spec W17): a failed write or sync is
    /// code `.fail` whatever its errno, carrying the engine's error; the other errors keep
    /// their usual mapping.
    static func commitFailed(_ error: StorageError, path: String) -> Realm.Error {
        switch error {
        case .io, .noSpace, .poisoned:
            return Realm.Error(.fail, "Commit failed: \(error)")
        default:
            return from(error, path: path)
        }
    }

    /// The API error for a failed system call on `path` (Spec X6's messages).
    static func fromErrno(_ code: Int32, path: String, operation: String, realmFile: Bool = true) -> Realm.Error {
        let prefix = openPrefix(path, realmFile: realmFile)
        switch code {
        case ENOENT:
            return Realm.Error(.fileNotFound, "\(prefix): No such file or directory", path: path)
        case EEXIST:
            return Realm.Error(.fileExists, "\(prefix): File exists", path: path)
        case EACCES:
            return Realm.Error(
                .filePermissionDenied,
                "\(prefix): Permission denied. Please use a path where your app has read-write permissions.",
                path: path)
        case EPERM, EROFS:
            return Realm.Error(
                .filePermissionDenied,
                "\(prefix): Operation not permitted. Please use a path where your app has read-write permissions.",
                path: path)
        case EISDIR:
            return Realm.Error(.fileOperationFailed, "\(prefix): Is a directory", path: path)
        case ENOTDIR:
            return Realm.Error(
                .fileOperationFailed,
                "\(openPrefix(path + ".lock", realmFile: false)): parent path is not a directory",
                path: path + ".lock")
        case EMFILE, ENFILE:
            return Realm.Error(
                .fileOperationFailed, "\(openPrefix(path, realmFile: false)): Too many open files",
                path: path)
        case ENOSPC:
            return Realm.Error(.fail, "\(operation) failed: no space left on device")
        case ELOOP:
            // Spec X31: a symlink loop is not a missing file.
            return Realm.Error(.fileAccess, "\(prefix): Too many levels of symbolic links", path: path)
        case EFBIG:
            // Spec X31: the file size limit (ulimit -f), reported instead of SIGXFSZ.
            return Realm.Error(.fail, "\(operation) failed: file size limit exceeded")
        default:
            return Realm.Error(.fileAccess, "\(prefix): \(operation) failed with errno \(code)", path: path)
        }
    }
}

/// Runs an engine call, turning its errors into `Realm.Error` for `path` (`opening`: the
/// call opens the file, `Realm.Error.from`).
@inline(__always)
func engine<R>(_ path: String, opening: Bool = false, _ body: () throws -> R) throws(Realm.Error) -> R {
    do {
        return try body()
    } catch let error as StorageError {
        throw Realm.Error.from(error, path: path, opening: opening)
    } catch let error as Realm.Error {
        throw error
    } catch {
        throw Realm.Error(.fail, "\(error)")
    }
}
