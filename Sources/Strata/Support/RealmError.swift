import Foundation
import StrataStorage

extension Realm {
    /// An error of the Realm API: a code Realm Swift code can match on, and Realm's message.
    ///
    /// Recoverable errors (files, I/O, limits) are thrown where the API throws. Misuse that
    /// Realm reports as an exception (wrong thread, writes outside a transaction, ...) has code
    /// `.programmerError`: the public API traps with the message, and the throwing entry points
    /// of `package` access throw the same value, so every rejection is observable in-process.
    ///
    /// Sendable. Match codes as in Realm Swift: `catch Realm.Error.fileNotFound { ... }`.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// What kind of failure (after `Realm.Error.Code`; `programmerError` is Strata's name for
        /// Realm's exceptions).
        public enum Code: Int, Sendable, Hashable, CustomStringConvertible {
            /// A general failure: a commit or an async write that could not complete, or an error
            /// with no more specific code.
            case fail = 1
            /// The file could not be opened or read: it is not a regular file, or an I/O error
            /// occurred.
            case fileAccess = 2
            /// The process may not open or create the file in the mode asked for.
            case filePermissionDenied = 3
            /// The destination file exists already (a copy is never written over an existing file).
            case fileExists = 4
            /// The file does not exist (a read-only open never creates one).
            case fileNotFound = 5
            /// The lock file beside the realm file was made by an incompatible version or for
            /// another file.
            case incompatibleLockFile = 8
            /// The file needs a format upgrade; kept for Realm Swift source compatibility, Strata
            /// never throws it.
            case fileFormatUpgradeRequired = 6
            /// The file could not be mapped into memory: the address space is exhausted.
            case addressSpaceExhausted = 9
            /// The file's schema differs from the configuration's and a migration is required.
            case schemaMismatch = 10
            /// The file is not a realm file, is of another format, or is damaged (Spec D17).
            case invalidDatabase = 11
            /// The file is already open with settings that conflict; kept for Realm Swift source
            /// compatibility, Strata never throws it.
            case alreadyOpen = 12
            /// A file operation failed, for example because the path names a directory.
            case fileOperationFailed = 13
            /// Misuse of the API that Realm reports as an exception (wrong thread, a write outside
            /// a transaction, ...): the public API traps with the message.
            case programmerError = 100

            public var description: String {
                switch self {
                case .fail: return "fail"
                case .fileAccess: return "fileAccess"
                case .filePermissionDenied: return "filePermissionDenied"
                case .fileExists: return "fileExists"
                case .fileNotFound: return "fileNotFound"
                case .incompatibleLockFile: return "incompatibleLockFile"
                case .fileFormatUpgradeRequired: return "fileFormatUpgradeRequired"
                case .addressSpaceExhausted: return "addressSpaceExhausted"
                case .schemaMismatch: return "schemaMismatch"
                case .invalidDatabase: return "invalidDatabase"
                case .alreadyOpen: return "alreadyOpen"
                case .fileOperationFailed: return "fileOperationFailed"
                case .programmerError: return "programmerError"
                }
            }
        }

        /// What kind of failure this is; match on it to tell recoverable errors apart.
        public let code: Code
        /// Realm's message (tests match fragments of it).
        public let message: String
        /// The file the error is about, for errors opening, reading or writing a file (the
        /// realm's, its lock file's, a copy's destination); nil for the others.
        public let fileURL: URL?

        /// An error of `code` with `message`, about no particular file.
        public init(_ code: Code, _ message: String) {
            self.init(code, message, fileURL: nil)
        }

        /// An error of `code`, as RealmSwift's `Realm.Error(_:userInfo:)` makes one: the message
        /// from `NSLocalizedDescriptionKey` (else the code's name), the file from
        /// `NSFilePathErrorKey`.
        public init(_ code: Code, userInfo: [String: Any] = [:]) {
            let path = userInfo[NSFilePathErrorKey] as? String
            self.init(
                code, userInfo[NSLocalizedDescriptionKey] as? String ?? "\(code)",
                fileURL: path.map { URL(fileURLWithPath: $0) })
        }

        /// An error about the file at `path`.
        init(_ code: Code, _ message: String, path: String) {
            self.init(code, message, fileURL: URL(fileURLWithPath: path))
        }

        init(_ code: Code, _ message: String, fileURL: URL?) {
            self.code = code
            self.message = message
            self.fileURL = fileURL
        }

        public var localizedDescription: String { message }
        public var description: String { "Realm.Error.\(code): \(message)" }

        /// `Code.fail`, so that `catch Realm.Error.fail` matches.
        public static let fail = Code.fail
        /// `Code.fileAccess`, so that `catch Realm.Error.fileAccess` matches.
        public static let fileAccess = Code.fileAccess
        /// `Code.filePermissionDenied`, so that `catch Realm.Error.filePermissionDenied` matches.
        public static let filePermissionDenied = Code.filePermissionDenied
        /// `Code.fileExists`, so that `catch Realm.Error.fileExists` matches.
        public static let fileExists = Code.fileExists
        /// `Code.fileNotFound`, so that `catch Realm.Error.fileNotFound` matches.
        public static let fileNotFound = Code.fileNotFound
        /// `Code.incompatibleLockFile`, so that `catch Realm.Error.incompatibleLockFile` matches.
        public static let incompatibleLockFile = Code.incompatibleLockFile
        /// `Code.schemaMismatch`, so that `catch Realm.Error.schemaMismatch` matches.
        public static let schemaMismatch = Code.schemaMismatch
        /// `Code.invalidDatabase`, so that `catch Realm.Error.invalidDatabase` matches.
        public static let invalidDatabase = Code.invalidDatabase
        /// `Code.alreadyOpen`, so that `catch Realm.Error.alreadyOpen` matches.
        public static let alreadyOpen = Code.alreadyOpen
        /// `Code.fileOperationFailed`, so that `catch Realm.Error.fileOperationFailed` matches.
        public static let fileOperationFailed = Code.fileOperationFailed
        /// `Code.programmerError`, so that `catch Realm.Error.programmerError` matches.
        public static let programmerError = Code.programmerError
    }
}

/// `catch Realm.Error.fileNotFound`: matches a `Realm.Error` with that code.
public func ~= (code: Realm.Error.Code, error: any Error) -> Bool {
    guard let error = error as? Realm.Error else { return false }
    return error.code == code
}

// The messages, one place (the model's ModelError quotes the same fragments; Spec rules cite
// them).
extension Realm.Error {
    static func misuse(_ message: String) -> Realm.Error { Realm.Error(.programmerError, message) }

    // Confinement (Spec C)
    static let wrongThread = misuse("Realm accessed from incorrect thread.")
    static let incorrectQueue = misuse("Realm opened from incorrect dispatch queue.")
    static func notSerialQueue(label: String) -> Realm.Error {
        misuse(
            "Invalid queue '\(label)' (OS_dispatch_queue_concurrent): "
                + "Realms can only be confined to serial queues or the main queue.")
    }
    // Writes (Spec W)
    static let alreadyInWrite = misuse("The Realm is already in a write transaction")
    static let noWriteToCommit = misuse("Can't commit a non-existing write transaction")
    static let noWriteToCancel = misuse("Can't cancel a non-existing write transaction")
    /// A property set outside a write (RLMVerifyInWriteTransaction of an object).
    static let objectSetOutsideWrite = misuse(
        "Attempting to modify object outside of a write transaction - call beginWriteTransaction on an RLMRealm instance first."
    )
    /// `add`, `create` or `delete` outside a write (RLMVerifyInWriteTransaction of a realm).
    static let realmChangeOutsideWrite = misuse(
        "Can only add, remove, or create objects in a Realm in a write transaction - call beginWriteTransaction on an RLMRealm instance first."
    )
    /// A List mutation outside a write, also on a frozen List (RLMThrowCollectionException's
    /// translation of realm-core's `Collection::verify_in_transaction`).
    static let listOutsideWrite = misuse("Cannot modify List outside of a write transaction.")
    static let resultsOutsideWrite = misuse("Cannot modify Results outside of a write transaction.")
    /// A MutableSet mutation outside a write (realm-core's message names the collection's kind).
    static let setOutsideWrite = misuse("Cannot modify Set outside of a write transaction.")
    /// A set operation with an unmanaged set on the right of a managed one (RLMManagedSet's
    /// `managedObjectFrom:`).
    static let setOperandUnmanaged = misuse("Right hand side value must be a managed Set.")
    /// A set operation between sets of two realm instances (RLMManagedSet's words, as spelled).
    static let setsOfDifferentRealms = misuse("Cannot insersect sets managed by different Realms.")
    /// A migration's old objects are set outside any write (realm-core's `Realm::verify_in_write`).
    static let managedObjectsOutsideWrite = misuse("Cannot modify managed objects outside of a write transaction.")
    static let deleteFromOtherRealm = misuse("Can only delete an object from the Realm it belongs to.")
    static let deleteUnmanaged = misuse("Can only delete an object from the Realm it belongs to.")
    /// `delete(results)` or `delete(list)` of another realm instance (`-[RLMRealm deleteObjects:]`).
    static let deleteCollectionFromOtherRealm = misuse("Can only delete objects from the Realm they belong to.")
    static let objectInvalidated = misuse("Object has been deleted or invalidated.")
    static let addInvalidated = misuse("Adding a deleted or invalidated object to a Realm is not permitted")
    static let addToOtherRealm = misuse(
        "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
    static func primaryKeyExists(type: String, value: String) -> Realm.Error {
        misuse("Attempting to create an object of type '\(type)' with an existing primary key value '\(value)'")
    }
    static func noPrimaryKey(type: String) -> Realm.Error {
        misuse("'\(type)' does not have a primary key and can not be updated")
    }
    static let primaryKeyChange = misuse("Primary key can't be changed after an object is inserted.")
    /// `object(ofType:forPrimaryKey:)` of a class without one (realm-core's
    /// `MissingPrimaryKeyException`).
    static func primaryKeyUndefined(type: String) -> Realm.Error {
        misuse("'\(type)' does not have a primary key defined")
    }
    static let frozenTransaction = misuse("Can't perform transactions on a frozen Realm")
    static let readOnlyTransaction = misuse("Can't perform transactions on read-only Realms.")
    // Versions (Spec V)
    /// A managed List whose owner was deleted, or whose realm was invalidated (realm-core's
    /// `Collection::verify_attached`).
    static let collectionInvalidated = misuse(
        "List is no longer valid. Either the parent object was deleted or the "
            + "containing Realm has been invalidated or closed.")
    /// The same for a MutableSet.
    static let setInvalidated = misuse(
        "Set is no longer valid. Either the parent object was deleted or the "
            + "containing Realm has been invalidated or closed.")
    static let resultsInvalidated = misuse("Access to invalidated Results objects")
    static let iteratorInvalidated = misuse("Collection is no longer valid")
    // Freeze (Spec F)
    static let frozenRealmInvalidated = misuse("Cannot read from a frozen Realm which has been invalidated.")
    static let unmanagedThaw = misuse("Unmanaged objects cannot be thawed.")
    static let unmanagedFreeze = misuse("Unmanaged objects cannot be frozen.")
    /// A collection observer on an unmanaged object's LinkingObjects (RLMLinkingObjects'
    /// `addNotificationBlock:`, LinkingObjectsTests.testLinkingObjectsOnUnmanagedObject).
    static let unmanagedNotifications = misuse("Change notifications are only supported on managed collections.")
    /// A class definition realm-core's `ObjectSchema::validate` refuses (a LinkingObjects
    /// property whose origin does not link to its class), at open.
    static func schemaValidation(_ problem: String) -> Realm.Error {
        misuse("Schema validation failed due to the following errors:\n- \(problem)")
    }
    /// Setting a LinkingObjects property, which is computed (RealmSwift declares it read-only).
    static let computedPropertySet = misuse("LinkingObjects properties are computed and cannot be set")
    /// A key path that goes on past a LinkingObjects property (a typed query reads through one
    /// member at a time: `$0.owners.name`; `Docs/limits.md`).
    static let linkingObjectsKeyPath = misuse(
        "A LinkingObjects property can only end a key path in Strata's typed queries")
    /// A query, sort or distinct of an unmanaged object's LinkingObjects, which have no realm
    /// to read (Strata's words: Realm answers with empty Results, `Docs/limits.md`).
    static func unmanagedLinkingObjects(_ operation: String) -> Realm.Error {
        misuse("'\(operation)' is only available on the LinkingObjects of a managed object")
    }
    /// What an unmanaged List refuses: `freeze()`, `thaw()`, `where` (RLMArray's methods for
    /// managed arrays only).
    static let unmanagedListOnly = misuse(
        "This method may only be called on RLMArray instances retrieved from an RLMRealm")
    /// The same of an unmanaged Map (RLMDictionary's methods for managed dictionaries only).
    static let unmanagedMapOnly = misuse(
        "This method may only be called on RLMDictionary instances retrieved from an RLMRealm")
    /// A Map mutation outside a write (realm-core's message names the collection's kind).
    static let mapOutsideWrite = misuse("Cannot modify Dictionary outside of a write transaction.")
    /// The same for a Map.
    static let mapInvalidated = misuse(
        "Dictionary is no longer valid. Either the parent object was deleted or the "
            + "containing Realm has been invalidated or closed.")
    /// The same of an unmanaged MutableSet (RLMSet's methods for managed sets only).
    static let unmanagedSetOnly = misuse(
        "This method may only be called on RLMSet instances retrieved from an RLMRealm")
    static let freezeInCreatingWrite = misuse(
        "Cannot freeze an object in the same write transaction as it was created in.")
    static let frozenModify = misuse("Attempting to modify a frozen object - call thaw on the Object instance first.")
    // References (Spec T)
    static let referenceToUnmanaged = misuse(
        "Cannot construct reference to unmanaged object, "
            + "which can be passed across threads directly")
    static let referenceToInvalidated = misuse("Cannot construct reference to invalidated object")
    static let resolveTwice = misuse("Can only resolve a thread safe reference once.")
    static let threadSafeUnmanaged = misuse("Only managed objects may be wrapped as thread safe.")
    // Limits (Spec L)
    static func tooManyActiveVersions(count: Int, limit: Int) -> Realm.Error {
        Realm.Error(.fail, "Number of active versions (\(count)) in the Realm exceeded the limit of \(limit)")
    }
    // Collections
    static func outOfBounds(index: Int, count: Int) -> Realm.Error {
        misuse("Index \(index) is out of bounds (must be less than \(count)).")
    }
    /// A property name the class lacks, for `object[name]`, `value(forKey:)` and
    /// `setValue(_:forKey:)` (`RLMDynamicGetByName`, `RLMDynamicValidatedSet`).
    static func invalidPropertyName(_ name: String, type: String) -> Realm.Error {
        misuse("Invalid property name '\(name)' for class '\(type)'.")
    }
    /// realm-core's `parse_keypath` of `Results::sort`: "Cannot sort on key path 'k': <why>.".
    static func cannotSort(keyPath: String, _ why: String) -> Realm.Error {
        misuse("Cannot sort on key path '\(keyPath)': \(why).")
    }
    /// RLMResults' `distinctResultsUsingKeyPaths:`: a key path with a collection operator
    /// (realm-core's own checks then answer as for a sort, `cannotSort`).
    static func cannotDistinct(keyPath: String) -> Realm.Error {
        misuse("Cannot distinct on keypath '\(keyPath)': KVC collection operators are not supported.")
    }
    static func typeNotManaged(_ name: String) -> Realm.Error {
        misuse(
            "Object type '\(name)' is not managed by the Realm. If using a custom `objectClasses` / `objectTypes` "
                + "array in your configuration, add `\(name)` to the list of `objectClasses` / `objectTypes`.")
    }
    // Files (Spec X)
    /// The context's own cached instance (`getCachedRealm` of RLMRealm.mm); `period`: another
    /// instance of the process has the file open (realm-core's `RealmCoordinator::get_realm`
    /// ends its sentence).
    static func differentReadPermissions(path: String, period: Bool = false) -> Realm.Error {
        misuse("Realm at path '\(path)' already opened with different read permissions" + (period ? "." : ""))
    }
    /// Spec X32: as `differentReadPermissions`, for a file and an in-memory realm of one path.
    static func differentInMemorySettings(path: String, period: Bool = false) -> Realm.Error {
        misuse("Realm at path '\(path)' already opened with different inMemory settings" + (period ? "." : ""))
    }
    /// realm-core's `RealmCoordinator::get_realm` names no versions (`open` and `requested`
    /// are kept for the callers).
    static func differentSchemaVersion(path: String, open: UInt64, requested: UInt64) -> Realm.Error {
        misuse("Realm at path '\(path)' already opened with different schema version.")
    }
    static func alreadyOpen(path: String) -> Realm.Error {
        Realm.Error(.alreadyOpen, "Cannot delete files of an open Realm: '\(path)' is still in use.")
    }
    static let encryptionKeyLength = misuse("Encryption key must be exactly 64 bytes long")
    /// `observe(on: actor)` of an unmanaged object or List (RealmSwift's `with(_:on:_:)`).
    static let unmanagedActorObservation = misuse("Change notifications are only supported for managed objects")
    // Realm (Spec F, V, X)
    static let frozenAutorefresh = misuse("Auto-refresh cannot be enabled for frozen Realms.")
    static let readOnlyRefresh = misuse("Read-only Realms do not change and cannot be refreshed.")
    static let encryptionUnsupported = Realm.Error(.fail, "Encryption is not supported by Strata: the key must be nil")
}

/// Runs `body` and traps with Realm's message if it throws: the public face of an API that
/// Realm Swift does not declare `throws` (Spec: rejections are traps there).
@inline(__always)
func trapping<R>(_ body: () throws(Realm.Error) -> R) -> R {
    do {
        return try body()
    } catch {
        fatalError(error.message)
    }
}

/// `trapping` for async entry points, in the caller's isolation.
func trapping<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws(Realm.Error) -> R
) async -> R {
    do {
        return try await body()
    } catch {
        fatalError(error.message)
    }
}
