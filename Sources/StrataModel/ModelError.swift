// Every rejection the model can return. Each case carries Realm's message (the rules quote the
// fragment that must appear) and the `Realm.Error` code the API reports; programmer errors that
// Realm raises as exceptions have code `.programmerError` (a throw where the signature throws,
// otherwise a trap whose throwing internal entry point throws the same error: Spec V-area
// preamble).

/// The code a rejection carries, after `Realm.Error.Code`.
public enum ModelErrorCode: String, Hashable, Sendable {
    case programmerError, fail, fileExists, fileNotFound, filePermissionDenied,
        fileOperationFailed, invalidDatabase, schemaMismatch, alreadyOpen, cancelled
}

/// How an engine commit failed (Spec W17, D6, L8); the harness passes the engine's choice in.
public enum CommitFailure: Hashable, Sendable {
    /// A page write or the phase-1 sync failed: the slot was never written.
    case beforeSlot
    /// The slot write or the phase-2 sync failed; `slotOnDisk` says whether reopen finds the
    /// new version (Spec D7: either is legal).
    case atSlot(slotOnDisk: Bool)
    /// The commit needed a file larger than the reserved space; refused before any write.
    case mapCapacityExceeded
}

public enum ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    // Confinement (C)
    case wrongThread
    case incorrectQueue
    case notSerialQueue(label: String)
    case noRunLoop
    case incorrectRealmSkip
    case queryAfterChangesInWrite
    case asyncRefreshContext
    case asyncWriteContext
    // Writes (W)
    case alreadyInWrite
    case noWriteToCommit
    case noWriteToCancel
    case notInWrite
    case resultsOutsideWrite
    case deleteFromOtherRealm
    /// Spec W11: Results or a List of another realm instance.
    case deleteCollectionFromOtherRealm
    case objectInvalidated
    case addInvalidated
    case addToOtherRealm
    case primaryKeyExists(type: String, primaryKey: Int)
    case frozenTransaction
    case readOnlyTransaction
    case commitFailed(CommitFailure)
    case poisoned
    case thrownByBlock(code: Int)
    // Versions (V)
    /// Results of a realm invalidated since they were made (Spec V13).
    case collectionInvalidated
    /// A List whose owner is gone or whose realm was invalidated (Spec V13, W12, T5).
    case listInvalidated
    /// Spec X10: `refresh()` of a read-only realm.
    case readOnlyRefresh
    case iteratorInvalidated
    // Freeze (F)
    case frozenObservation
    /// Spec F2: `autorefresh = true` on a frozen realm.
    case frozenAutorefresh
    case frozenRealmInvalidated
    case unmanagedThaw
    case unmanagedFreeze
    case freezeInCreatingWrite
    case frozenModify
    // References (T)
    case referenceToUnmanaged
    case referenceToInvalidated
    case resolveTwice
    case threadSafeUnmanaged
    // Limits (L)
    case tooManyActiveVersions(count: Int, limit: Int)
    case tooManyReaders
    // Notifications (N)
    case readOnlyObservation
    case unmanagedObservation
    /// Spec N19: `observe` on an object without a realm (unmanaged, or deleted through itself).
    case unmanagedObjectObservation
    case unknownKeyPath(property: String, type: String)
    // Async (A)
    case realmClosed
    case cancelled
    case asyncWriteWithoutRunLoop
    // Spec A20: refused inside a commit completion (the engine's checks; the model's
    // completions run no caller code).
    case beginInCompletion
    case commitInCompletion
    case cancelInCompletion
    // Files (X)
    case outOfBounds(index: Int, count: Int)
    /// Spec V20: a sort key path the class cannot be sorted by (realm-core's parse_keypath).
    case cannotSort(keyPath: String, reason: String)
    /// A property name the class does not have (`setValue(_:forKey:)`, `object.link = ...` of a
    /// type without a link).
    case invalidPropertyName(name: String, type: String)
    /// Spec V25: a Map key starting with '$' or containing '.' (realm-core's Dictionary::insert).
    case invalidMapKey(String)
    case fileNotFound(path: String)
    case fileExists(path: String)
    case parentDirectoryMissing(path: String)
    case parentNotDirectory(path: String)
    case isDirectory(path: String)
    case permissionDenied(path: String, readOnly: Bool)
    case copyPermissionDenied(path: String)
    case operationNotPermitted(path: String)
    case tooManyOpenFiles(path: String)
    case tooSmall(path: String, byteCount: Int)
    case alreadyOpen(path: String)
    case differentReadPermissions(path: String)
    case schemaMismatch(type: String, column: String)
    /// Spec X19: a read-write open at the file's schema version with a type whose columns
    /// differ (`added`: the declaration has a column the file lacks, else the reverse).
    case migrationRequired(type: String, column: String, added: Bool)
    /// Spec X19: a schema version below the one the file records.
    case schemaVersionLower(requested: UInt64, recorded: UInt64)
    /// Spec X19: the process has the file open at another schema version.
    case differentSchemaVersion(path: String)
    case encryptionKeyLength
    case corruptFile(path: String)
    case encryptionUnsupported
    // Harness misuse: an identifier the state does not know, or an operation the state cannot
    // take (not an API error; a harness that generates it has a bug).
    case invalidStep(String)

    public var code: ModelErrorCode {
        switch self {
        case .commitFailed, .poisoned, .tooManyActiveVersions, .tooManyReaders,
            .encryptionUnsupported, .schemaVersionLower:
            return .fail
        case .cancelled: return .cancelled
        case .fileNotFound, .parentDirectoryMissing: return .fileNotFound
        case .fileExists: return .fileExists
        case .permissionDenied, .copyPermissionDenied, .operationNotPermitted: return .filePermissionDenied
        case .parentNotDirectory, .isDirectory, .tooManyOpenFiles: return .fileOperationFailed
        case .tooSmall, .corruptFile: return .invalidDatabase
        case .alreadyOpen: return .alreadyOpen
        case .schemaMismatch, .migrationRequired: return .schemaMismatch
        default: return .programmerError
        }
    }

    /// Realm's message, or the fragment of it the rules fix.
    public var message: String {
        switch self {
        case .wrongThread: return "Realm accessed from incorrect thread."
        case .incorrectQueue: return "Realm opened from incorrect dispatch queue."
        case .notSerialQueue(let label):
            return "Invalid queue '\(label)' (OS_dispatch_queue_concurrent): "
                + "Realms can only be confined to serial queues or the main queue."
        case .noRunLoop: return "Can only add notification blocks from within runloops."
        case .incorrectRealmSkip:
            return "Incorrect Realm: only notifications for the Realm being modified can be skipped."
        case .queryAfterChangesInWrite:
            return "Cannot create asynchronous query after making changes in a write transaction."
        case .asyncRefreshContext:
            return "asyncRefresh() can only be called on main thread or actor-isolated Realms"
        case .asyncWriteContext:
            return "asyncWrite() can only be called on main thread or actor-isolated Realms"
        case .asyncWriteWithoutRunLoop:
            return "Cannot schedule async transaction. Make sure you are running from inside a run loop."
        case .beginInCompletion: return "Can't begin a write transaction from inside a commit completion callback."
        case .commitInCompletion: return "Can't commit a write transaction from inside a commit completion callback."
        case .cancelInCompletion: return "Can't cancel a write transaction from inside a commit completion callback."
        case .alreadyInWrite: return "The Realm is already in a write transaction"
        case .noWriteToCommit: return "Can't commit a non-existing write transaction"
        case .noWriteToCancel: return "Can't cancel a non-existing write transaction"
        case .notInWrite:
            // Spec W9: Realm's words differ by what is changed: "Attempting to modify object
            // outside of a write transaction - ...", "Cannot modify List outside of a write
            // transaction." (also a frozen List, F12), "Can only add, remove, or create objects in
            // a Realm in a write transaction - ...".
            return "write transaction"
        case .resultsOutsideWrite: return "Cannot modify Results outside of a write transaction."
        case .deleteFromOtherRealm: return "Can only delete an object from the Realm it belongs to."
        case .deleteCollectionFromOtherRealm: return "Can only delete objects from the Realm they belong to."
        case .objectInvalidated: return "Object has been deleted or invalidated."
        case .invalidMapKey(let key):
            return key.hasPrefix("$")
                ? "Dictionary::insert: key must not start with '$'" : "Dictionary::insert: key must not contain '.'"
        case .addInvalidated: return "Adding a deleted or invalidated object to a Realm is not permitted"
        case .addToOtherRealm:
            return "Object is already managed by another Realm. Use create instead to copy it into this Realm."
        case .primaryKeyExists(let type, let key):
            return "Attempting to create an object of type '\(type)' with an existing primary key "
                + "value '\(key)'"
        case .frozenTransaction: return "Can't perform transactions on a frozen Realm"
        case .readOnlyTransaction: return "Can't perform transactions on read-only Realms."
        // The engine's message goes on with its own error (W17); where the commit failed is
        // the model's business, not the message's.
        case .commitFailed: return "Commit failed: "
        case .poisoned: return "The file was poisoned by a failed write or sync; reopen it."
        case .thrownByBlock(let code): return "The block threw error \(code)"
        case .collectionInvalidated: return "Access to invalidated Results objects"
        case .listInvalidated:
            return "List is no longer valid. Either the parent object was deleted or the containing Realm has "
                + "been invalidated or closed."
        case .readOnlyRefresh: return "Read-only Realms do not change and cannot be refreshed."
        case .iteratorInvalidated: return "Collection is no longer valid"
        case .frozenObservation:
            return "Frozen Realms do not change and do not have change notifications."
        case .frozenAutorefresh: return "Auto-refresh cannot be enabled for frozen Realms."
        case .frozenRealmInvalidated:
            return "Cannot read from a frozen Realm which has been invalidated."
        case .unmanagedThaw: return "Unmanaged objects cannot be thawed."
        case .unmanagedFreeze: return "Unmanaged objects cannot be frozen."
        case .freezeInCreatingWrite:
            return "Cannot freeze an object in the same write transaction as it was created in."
        case .frozenModify:
            // Spec F12: objects only; a frozen List is never in a write (W9's List message).
            return "Attempting to modify a frozen object - call thaw on the Object instance first."
        case .referenceToUnmanaged:
            return "Cannot construct reference to unmanaged object, which can be passed across threads directly"
        case .referenceToInvalidated: return "Cannot construct reference to invalidated object"
        case .resolveTwice: return "Can only resolve a thread safe reference once."
        case .threadSafeUnmanaged: return "Only managed objects may be wrapped as thread safe."
        case .tooManyActiveVersions(let count, let limit):
            return "Number of active versions (\(count)) in the Realm exceeded the limit of \(limit)"
        case .tooManyReaders: return "Too many readers: every reader slot is in use."
        case .readOnlyObservation:
            return "Read-only Realms do not change and do not have change notifications."
        case .unmanagedObservation: return "Change notifications are only supported on managed collections."
        case .unmanagedObjectObservation:
            return "Only objects which are managed by a Realm support change notifications"
        case .unknownKeyPath(let property, let type):
            return "Invalid property name: property '\(property)' not found in object of type '\(type)'"
        case .realmClosed: return "Cannot access realm that has been closed."
        case .cancelled: return "CancellationError"
        case .outOfBounds(let index, let count):
            return "Index \(index) is out of bounds (must be less than \(count))."
        case .cannotSort(let keyPath, let reason): return "Cannot sort on key path '\(keyPath)': \(reason)."
        case .invalidPropertyName(let name, let type): return "Invalid property name '\(name)' for class '\(type)'."
        case .fileNotFound(let path): return "Failed to open Realm file at path '\(path)': No such file or directory"
        case .fileExists(let path): return "Failed to open file at path '\(path)': File exists"
        case .parentDirectoryMissing(let path):
            return "Failed to open file at path '\(path)': parent directory does not exist"
        case .parentNotDirectory(let path):
            return "Failed to open file at path '\(path).lock': parent path is not a directory"
        case .isDirectory(let path): return "Failed to open Realm file at path '\(path)': Is a directory"
        case .permissionDenied(let path, let readOnly):
            return "Failed to open Realm file at path '\(path)': Permission denied. Please use a path "
                + "where your app has \(readOnly ? "read" : "read-write") permissions."
        case .copyPermissionDenied(let path): return "Failed to open file at path '\(path)': Permission denied"
        case .operationNotPermitted(let path):
            return "Failed to open Realm file at path '\(path)': Operation not permitted. Please use a "
                + "path where your app has read-write permissions."
        case .tooManyOpenFiles(let path):
            return "Failed to open file at path '\(path)': Too many open files"
        case .tooSmall(let path, let byteCount):
            return
                "Failed to open Realm file at path '\(path)': file is non-empty but too small (\(byteCount) bytes) to be a valid "
                + "Realm."
        case .alreadyOpen(let path):
            return "Cannot delete files of an open Realm: '\(path)' is still in use."
        case .differentReadPermissions(let path):
            return "Realm at path '\(path)' already opened with different read permissions"
        case .schemaMismatch(let type, let column):
            return "Schema mismatch: type '\(type)' has no column '\(column)' in the file"
        case .migrationRequired(let type, let column, let added):
            return "Migration is required due to the following errors:\n- Property '\(type).\(column)' has been "
                + (added ? "added." : "removed.")
        case .schemaVersionLower(let requested, let recorded):
            return "Provided schema version \(requested) is less than last set version \(recorded)."
        case .differentSchemaVersion(let path):
            return "Realm at path '\(path)' already opened with different schema version."
        case .corruptFile(let path):
            return "'\(path)': no valid commit slot or a page failed its checksum"
        case .encryptionKeyLength: return "Encryption key must be exactly 64 bytes long"
        case .encryptionUnsupported: return "Encryption is not supported"
        case .invalidStep(let why): return "invalid step: \(why)"
        }
    }

    public var description: String { "\(code): \(message)" }
}
