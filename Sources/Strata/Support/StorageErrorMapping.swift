#if canImport(Glibc)
import Glibc
#endif
import StrataStorage

// The one place engine errors become `Realm.Error` (Docs/style.md rule 12).

extension Realm.Error {
    /// Realm's prefix of an error opening a realm file (Spec X6); a copy's destination and the
    /// lock file say "file", not "Realm file".
    static func openPrefix(_ path: String, realmFile: Bool = true) -> String {
        "Failed to open \(realmFile ? "Realm file" : "file") at path '\(path)'"
    }

    /// The API error for an engine error met while opening, reading or writing the realm file
    /// at `path` (`realmFile` false: another file, such as a copy's destination).
    static func from(_ error: StorageError, path: String, realmFile: Bool = true) -> Realm.Error {
        let prefix = openPrefix(path, realmFile: realmFile)
        switch error {
        case .fileNotFound:
            return Realm.Error(.fileNotFound, "\(prefix): No such file or directory", path: path)
        case .io(let operation, let code):
            return fromErrno(code, path: path, operation: operation, realmFile: realmFile)
        case .truncated(_, let foundBytes) where foundBytes < 4096:
            return Realm.Error(.invalidDatabase,
                               "\(prefix): file is non-empty but too small (\(foundBytes) bytes) to be a valid Realm.",
                               path: path)
        case .notAStrataFile, .unsupportedFormatVersion, .unsupportedPageSize, .truncated, .corruptHeader,
             .noValidCommitSlot, .checksumMismatch, .misdirectedPage, .wrongPageType, .pageOutOfRange,
             .corruptPage, .pageFromTheFuture, .referenceMismatch, .corruptRecord:
            return Realm.Error(.invalidDatabase, "\(prefix): \(error)", path: path)
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
            return Realm.Error(.filePermissionDenied,
                               "\(prefix): Permission denied. Please use a path where your app has read-write permissions.",
                               path: path)
        case EPERM, EROFS:
            return Realm.Error(.filePermissionDenied,
                               "\(prefix): Operation not permitted. Please use a path where your app has read-write permissions.",
                               path: path)
        case EISDIR:
            return Realm.Error(.fileOperationFailed, "\(prefix): Is a directory", path: path)
        case ENOTDIR:
            return Realm.Error(.fileOperationFailed,
                               "\(openPrefix(path + ".lock", realmFile: false)): parent path is not a directory",
                               path: path + ".lock")
        case EMFILE, ENFILE:
            return Realm.Error(.fileOperationFailed, "\(openPrefix(path, realmFile: false)): Too many open files",
                               path: path)
        case ENOSPC:
            return Realm.Error(.fail, "\(operation) failed: no space left on device")
        default:
            return Realm.Error(.fileAccess, "\(prefix): \(operation) failed with errno \(code)", path: path)
        }
    }
}

/// Runs an engine call, turning its errors into `Realm.Error` for `path`.
@inline(__always)
func engine<R>(_ path: String, _ body: () throws -> R) throws(Realm.Error) -> R {
    do {
        return try body()
    } catch let error as StorageError {
        throw Realm.Error.from(error, path: path)
    } catch let error as Realm.Error {
        throw error
    } catch {
        throw Realm.Error(.fail, "\(error)")
    }
}
