/// Where a store's pages live: `.file(path)` or `.memory(identifier:)`.
///
/// A struct rather than an enum so that the engine can take a store object from the test-only
/// StrataSimulation target (`processLocal`, `package`) without a public case users could see.
public struct StoreLocation: Sendable {
    package enum Kind: Sendable {
        case file(String)
        case memory(identifier: String)
        case processLocal(any ProcessLocalStore)
    }

    package let kind: Kind

    package init(_ kind: Kind) {
        self.kind = kind
    }

    /// A file on disk (with `<path>.lock` beside it).
    public static func file(_ path: String) -> StoreLocation { StoreLocation(.file(path)) }

    /// Anonymous memory shared by identifier within this process; gone when the last handle
    /// closes.
    public static func memory(identifier: String) -> StoreLocation { StoreLocation(.memory(identifier: identifier)) }

    /// A store object of this process (the harness's simulated disk).
    package static func processLocal(_ store: any ProcessLocalStore) -> StoreLocation {
        StoreLocation(.processLocal(store))
    }

    /// The location as messages and reports name it: the path, `memory:<identifier>`, or the
    /// process-local store's own name.
    public var displayName: String {
        switch kind {
        case .file(let path): return path
        case .memory(let identifier): return "memory:\(identifier)"
        case .processLocal(let store): return store.displayName
        }
    }
}

/// How to open a store.
public struct StoreOptions: Sendable {
    /// Create the file when it does not exist.
    public var create: Bool
    /// Open without the ability to write (no write transactions).
    public var readOnly: Bool
    /// For a read-only open: the caller asserts that no process writes the file while it is
    /// open, so it may be read without a lock file when this process cannot write one (another
    /// user's database, a directory it may not write). Without it such an open is refused
    /// unless the file system is read-only (Spec X30): a reader that cannot write the lock file
    /// cannot pin its version, and a writer would reuse the pages it reads. Ignored when the
    /// lock file can be used.
    public var assumeImmutable: Bool
    /// Page size of a newly created file (a power of two, 4 KiB ... 32 KiB).
    public var pageSizeBytes: Int
    /// Address space reserved for the map: the largest the file can grow while open.
    public var maximumFileSizeBytes: Int
    /// Reader slots in a new lock file (each pins one version of one process).
    public var readerSlotCount: Int
    /// The file grows by at least this much at a time (else by a thirty-second of its size,
    /// up to 1 MiB; see `Pager.growIfNeeded`).
    public var growthChunkBytesMin: Int
    /// Test hooks (the harness's and the tests'); `.none` in production, and not part of the
    /// public API. Fixed by the first open of a file in a process.
    package var hooks: EngineHooks = .none

    /// Options with the engine's defaults for everything not given (each is described on its
    /// property).
    public init(
        create: Bool = true, readOnly: Bool = false, assumeImmutable: Bool = false, pageSizeBytes: Int = 4096,
        maximumFileSizeBytes: Int = 64 << 30, readerSlotCount: Int = 1024,
        growthChunkBytesMin: Int = 64 << 10
    ) {
        self.create = create
        self.readOnly = readOnly
        self.assumeImmutable = assumeImmutable
        self.pageSizeBytes = pageSizeBytes
        self.maximumFileSizeBytes = maximumFileSizeBytes
        self.readerSlotCount = readerSlotCount
        self.growthChunkBytesMin = growthChunkBytesMin
    }

    /// The same options with test hooks (the harness and the tests).
    package init(
        create: Bool = true, readOnly: Bool = false, assumeImmutable: Bool = false, pageSizeBytes: Int = 4096,
        maximumFileSizeBytes: Int = 64 << 30, readerSlotCount: Int = 1024,
        growthChunkBytesMin: Int = 64 << 10, hooks: EngineHooks
    ) {
        self.create = create
        self.readOnly = readOnly
        self.assumeImmutable = assumeImmutable
        self.pageSizeBytes = pageSizeBytes
        self.maximumFileSizeBytes = maximumFileSizeBytes
        self.readerSlotCount = readerSlotCount
        self.growthChunkBytesMin = growthChunkBytesMin
        self.hooks = hooks
    }
}
