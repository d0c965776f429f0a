import Foundation
import StrataStorage

extension Realm {
    /// The block a migration runs: the migration, and the schema version the file had.
    public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

    /// How to open a realm: where its data lives, how it is opened, its schema and limits.
    ///
    /// A `Sendable` value (Spec C9): one configuration opens realms in any number of threads and
    /// queues. `fileURL` and `inMemoryIdentifier` exclude each other (Spec X16): setting one
    /// clears the other.
    ///
    /// ```swift
    /// var config = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/dogs.realm"))
    /// config.objectTypes = [Dog.self, Person.self]
    /// let realm = try Realm(configuration: config)
    /// ```
    public struct Configuration: Sendable {
        private var location: Location

        enum Location: Hashable, Sendable {
            case file(URL)
            case memory(String)
        }

        /// Whether the realm is opened without the ability to write (Spec X10).
        public var readOnly: Bool
        /// Strata's addition for `readOnly` realms: asserts that no process writes the file
        /// while it is open, so a read-only realm may open it although this process cannot
        /// write its lock file (another user's file, a directory it may not write). Without it
        /// such an open throws `.filePermissionDenied` naming the lock file, unless the file
        /// system is read-only (Spec X30): the lock file is where a reader pins the version it
        /// reads, and without a pin a writer may reuse the pages under it. Realm's own
        /// read-only mode always assumes this; Strata assumes it only when told. Default false.
        public var assumeImmutable: Bool = false
        /// The schema version of the classes; a higher one than the file's runs the migration.
        public var schemaVersion: UInt64
        /// Runs when the file's schema version is lower than `schemaVersion`.
        public var migrationBlock: MigrationBlock?
        /// Delete the file instead of failing when its schema differs and no migration applies.
        public var deleteRealmIfMigrationNeeded: Bool
        /// The classes of the realm. nil means every class the process uses (Linux has no class
        /// enumeration, so each class joins the schema when first used; see `Docs/limits.md`).
        public var objectTypes: [Object.Type]?
        /// Fail writes once more versions than this are pinned (Spec L1, L2); nil or 0: no limit.
        public var maximumNumberOfActiveVersions: UInt?
        /// A file copied to `fileURL` before the first open if nothing exists there (Spec X5).
        public var seedFilePath: URL?
        /// Must be nil or 64 bytes (Spec X17); Strata does not encrypt, so a key fails the open.
        public var encryptionKey: Data?
        /// The harness's hold on the engine: a simulated disk instead of the file, and the
        /// engine's test hooks. nil in production; `package`, so users never see it.
        package var _engine: EngineOverride?

        /// The harness's hold on the API layer: its seeded bugs (`APIHooks`). `.none` in
        /// production.
        package var _api = APIHooks.none

        /// A store of this process (the simulated disk of StrataSimulation) and test hooks for
        /// the file of a configuration (StrataCheck and the tests only).
        package struct EngineOverride: Sendable {
            /// When set, the realm's pages live on this disk and `fileURL` only names it.
            package var simulatedStore: (any ProcessLocalStore)?
            package var hooks: EngineHooks
            /// Properties indexed as if declared `@Persisted(indexed: true)`, by class name (Spec
            /// W26): how the harness indexes its fixed classes in the generations that query by
            /// equality, while older generations keep their files (and so their replays) as
            /// they were.
            package var indexedProperties: [String: Set<String>]
            package init(
                simulatedStore: (any ProcessLocalStore)? = nil, hooks: EngineHooks = .none,
                indexedProperties: [String: Set<String>] = [:]
            ) {
                self.simulatedStore = simulatedStore
                self.hooks = hooks
                self.indexedProperties = indexedProperties
            }
        }

        /// A configuration with the given settings and Realm's defaults for the rest (each is
        /// described on its property). Given an `inMemoryIdentifier`, the realm is in memory and
        /// `fileURL` is ignored (Spec X16); without either, it is `defaultFileURL`. Nothing else is
        /// checked here: an invalid value (say an encryption key of the wrong length) fails when
        /// a realm is opened with the configuration.
        public init(
            fileURL: URL? = nil, inMemoryIdentifier: String? = nil,
            encryptionKey: Data? = nil, readOnly: Bool = false, schemaVersion: UInt64 = 0,
            migrationBlock: MigrationBlock? = nil, deleteRealmIfMigrationNeeded: Bool = false,
            objectTypes: [Object.Type]? = nil, maximumNumberOfActiveVersions: UInt? = nil,
            seedFilePath: URL? = nil
        ) {
            if let inMemoryIdentifier {
                location = .memory(inMemoryIdentifier)
            } else {
                location = .file(fileURL ?? Configuration.defaultFileURL)
            }
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.objectTypes = objectTypes
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.seedFilePath = seedFilePath
        }

        /// The file of the realm; nil for an in-memory realm. Setting it clears
        /// `inMemoryIdentifier` (Spec X16).
        public var fileURL: URL? {
            get {
                if case .file(let url) = location { return url }
                return nil
            }
            set { location = .file(newValue ?? Configuration.defaultFileURL) }
        }

        /// The identifier of an in-memory realm; setting it clears `fileURL` (Spec X16).
        public var inMemoryIdentifier: String? {
            get {
                if case .memory(let identifier) = location { return identifier }
                return nil
            }
            set {
                if let newValue {
                    location = .memory(newValue)
                } else if case .memory = location {
                    location = .file(Configuration.defaultFileURL)
                }
            }
        }

        /// The path the realm is known by: the file's, or for an in-memory realm a path under
        /// the temporary directory ending with its identifier (Spec X9).
        var path: String {
            switch location {
            case .file(let url): return url.standardizedFileURL.path
            case .memory(let identifier):
                return FileManager.default.temporaryDirectory.appendingPathComponent(identifier).path
            }
        }

        var isInMemory: Bool {
            if case .memory = location { return true }
            return false
        }

        /// The key realms of one file share: equal for configurations of the same file.
        var fileKey: String {
            // The disk itself, not its name: two disks may share a name.
            if let sim = _engine?.simulatedStore { return "sim:\(ObjectIdentifier(sim))" }
            return isInMemory ? "memory:" + path : path
        }

        /// The engine's secondary indexes of `schema`'s table (Spec W26): its declared indexes and
        /// those the harness adds (`EngineOverride.indexedProperties`).
        func engineIndexedColumns(_ schema: ObjectSchema) -> UInt64 {
            guard let extra = _engine?.indexedProperties[schema.className] else { return schema.engineIndexedColumns }
            return schema.indexMask { $0.isIndexed || extra.contains($0.name) }
        }

        /// The key a realm of the same path with the other in-memory setting has (Spec X32);
        /// nil for a simulated disk, which no other configuration names.
        var otherInMemorySettingFileKey: String? {
            if _engine?.simulatedStore != nil { return nil }
            return isInMemory ? path : "memory:" + path
        }

        /// The settings Realm rejects before it opens anything (RealmSwift hands the whole
        /// configuration to Realm's own first): an empty path or in-memory identifier, an
        /// encryption key that is not 64 bytes (Spec X17), the schema version reserved for
        /// unversioned files, and `readOnly` with `deleteRealmIfMigrationNeeded`
        /// (`RealmConfigurationTests.testCannotSetMutuallyExclusiveProperties`). Checked in this
        /// order, the order RealmSwift's `rlmConfiguration` sets them in.
        /// - Throws: `Realm.Error` with code `.programmerError` and Realm's message.
        func validate() throws(Realm.Error) {
            switch location {
            case .file(let url):
                if url.path.isEmpty { throw Realm.Error.misuse("Realm path must not be empty") }
            case .memory(let identifier):
                if identifier.isEmpty { throw Realm.Error.misuse("In-memory identifier must not be empty") }
            }
            if let encryptionKey, encryptionKey.count != 64 { throw Realm.Error.encryptionKeyLength }
            if schemaVersion == UInt64.max {
                throw Realm.Error.misuse("Cannot set schema version to \(UInt64.max) (RLMNotVersioned)")
            }
            if readOnly && deleteRealmIfMigrationNeeded {
                throw Realm.Error.misuse("Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
            }
        }

        /// Spec L4: nil and 0 mean no limit.
        var activeVersionLimit: Int? {
            guard let limit = maximumNumberOfActiveVersions, limit > 0 else { return nil }
            return Int(clamping: limit)
        }

        // MARK: the default

        /// `default.realm` in the current directory when first asked (Linux has no
        /// per-application documents directory).
        static var defaultFileURL: URL {
            let directory = FileManager.default.currentDirectoryPath
            return URL(fileURLWithPath: directory).appendingPathComponent("default.realm")
        }

        private static let defaultStorage = Lock<Configuration?>(nil)

        /// The configuration `Realm()` uses. A value (Spec X16): changing a copy changes
        /// nothing until it is assigned back.
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.withLock { stored in stored ?? Configuration() } }
            set { defaultStorage.withLock { $0 = newValue } }
        }
    }
}
