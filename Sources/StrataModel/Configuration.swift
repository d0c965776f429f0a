// A realm's configuration as the model sees it: where the data lives, how it is opened, and
// the limits that apply. A value: one configuration opens realms in any number of contexts
// (Spec C9).

/// Where a realm's data lives. One enum, so a configuration names a file or an in-memory
/// identifier, never both: setting one clears the other (Spec X16).
public enum FileLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    case path(String)
    case inMemory(identifier: String)

    public var isInMemory: Bool {
        if case .inMemory = self { return true }
        return false
    }

    /// The path the API reports. Spec X9: an in-memory realm's path is under the temporary
    /// directory and ends with its identifier.
    public func path(temporaryDirectory: String) -> String {
        switch self {
        case .path(let path): return path
        case .inMemory(let identifier): return temporaryDirectory + "/" + identifier
        }
    }

    public var description: String {
        switch self {
        case .path(let path): return path
        case .inMemory(let identifier): return "memory:\(identifier)"
        }
    }
}

public struct Configuration: Hashable, Sendable {
    public var location: FileLocation
    public var readOnly: Bool
    /// nil and 0 both mean no limit (Spec L4).
    public var maximumNumberOfActiveVersions: Int?
    /// The length of the encryption key, or nil for none (Spec X17).
    public var encryptionKeyByteCount: Int?
    /// A file copied to `location` before the first open (Spec X5).
    public var seedFilePath: String?
    public var schema: Schema
    /// The schema version the declared schema has (Spec X19).
    public var schemaVersion: UInt64
    /// Reset the file instead of migrating it (Spec X26).
    public var deleteRealmIfMigrationNeeded: Bool

    public init(
        location: FileLocation, readOnly: Bool = false,
        maximumNumberOfActiveVersions: Int? = nil, encryptionKeyByteCount: Int? = nil,
        seedFilePath: String? = nil, schema: Schema = .standard, schemaVersion: UInt64 = 0,
        deleteRealmIfMigrationNeeded: Bool = false
    ) {
        self.location = location
        self.readOnly = readOnly
        self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
        self.encryptionKeyByteCount = encryptionKeyByteCount
        self.seedFilePath = seedFilePath
        self.schema = schema
        self.schemaVersion = schemaVersion
        self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
    }

    /// Spec X16: the default configuration names the default file, no in-memory identifier, no
    /// key, read-write, the standard schema.
    public static let defaultConfiguration = Configuration(location: .path("default.realm"))

    /// The limit in force, if any (Spec L4: nil and 0 mean none).
    var activeVersionLimit: Int? {
        guard let limit = maximumNumberOfActiveVersions, limit > 0 else { return nil }
        return limit
    }
}

/// What kind of confinement context a `ContextID` is.
public enum ContextKind: Hashable, Sendable {
    /// The main thread: has an event loop, and `Realm(queue: .main)` is its thread realm.
    case mainThread
    /// Another thread; `hasEventLoop` says whether it runs a run loop (Spec C11, V8).
    case thread(hasEventLoop: Bool)
    /// A serial dispatch queue; every block on it can observe (Spec C11).
    case serialQueue(label: String)
    /// A concurrent or global queue: no realm can be confined to it (Spec C4).
    case concurrentQueue(label: String)
    /// An actor (Spec C15).
    case actor

    /// Whether callbacks and async work can be delivered to this context.
    public var hasScheduler: Bool {
        switch self {
        case .mainThread, .serialQueue, .actor: return true
        case .thread(let hasEventLoop): return hasEventLoop
        case .concurrentQueue: return false
        }
    }
}

/// How `open` confines the realm it returns.
public enum Confinement: Hashable, Sendable {
    /// `Realm(configuration:)` on the calling thread (or the calling actor).
    case callingContext
    /// `Realm(configuration:queue:)`.
    case queue(ContextID)
}

/// Facts about a path outside the model's files, set by the harness to mirror the file system
/// (Spec X4, X6, X12).
public enum PathCondition: Hashable, Sendable {
    case parentMissing
    case parentNotDirectory
    case isDirectory
    case notWritable
    case notReadable
    case immutable
    case tooSmall(byteCount: Int)
    case noFileDescriptors
    /// The file's pages or slots fail their checks (Spec D4, D8, D19).
    case corrupted
}
