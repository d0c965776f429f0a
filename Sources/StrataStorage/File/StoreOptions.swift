/// Where a store's pages live.
public enum StoreLocation: Sendable {
    /// A file on disk (with `<path>.lock` beside it).
    case file(String)
    /// Anonymous memory shared by identifier within this process; gone when the last handle
    /// closes.
    case memory(identifier: String)
    /// A simulated disk for crash and fault testing.
    case simulated(SimStore)

    public var displayName: String {
        switch self {
        case .file(let path): return path
        case .memory(let identifier): return "memory:\(identifier)"
        case .simulated(let sim): return "sim:\(sim.name)"
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
    /// Test hooks; `.none` in production. Fixed by the first open of a file in a process.
    public var hooks: EngineHooks

    public init(create: Bool = true, readOnly: Bool = false, assumeImmutable: Bool = false, pageSizeBytes: Int = 4096,
                maximumFileSizeBytes: Int = 64 << 30, readerSlotCount: Int = 1024,
                growthChunkBytesMin: Int = 64 << 10, hooks: EngineHooks = .none) {
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
