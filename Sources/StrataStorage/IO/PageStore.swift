#if canImport(Glibc)
    import Glibc
#endif

/// The storage seam (Docs/architecture.md §5 "Storage seam"): the engine reads and writes the database file
/// only through a `PageStore`.
///
/// Gives above: a stable base address from which committed pages are read zero-copy, batched
/// writes at byte offsets, the two kinds of sync, and growth. Needs below: the OS (`FileStore`),
/// or nothing (`MemoryStore`, and the harness's simulated disk in StrataSimulation).
///
/// Contract:
/// - `base` never changes; `[base, base + mappedByteCount)` is readable and shows every write
///   made through `write` (as the OS page cache would), whether or not it was synced.
/// - `write` and `sync` report failures as `StorageError`; they never retry a sync.
/// - Growth (`setFileByteCount`) extends the map in place; it never moves or unmaps a byte a
///   reader may hold.
/// - Only the single writer (holding the write lock) calls `write`, `sync` and
///   `setFileByteCount`; `extendMap` and the readers' accessors may run on any thread.
///
/// `package`, not public: stores other than the engine's own come from the test-only
/// StrataSimulation target, never from users.
package protocol PageStore: AnyObject, Sendable {
    /// Start of the readable image.
    var base: UnsafeRawPointer { get }
    /// How many bytes from `base` are currently readable.
    var mappedByteCount: Int { get }
    /// Whether syncs make data durable across a crash (false for `MemoryStore`).
    var isDurable: Bool { get }
    /// A short description for errors and `stat` ("file /tmp/x.strata", "memory 'id'", ...).
    var displayName: String { get }
    /// The file's current size in bytes (as the OS reports it now, durable or not).
    func fileByteCount() throws(StorageError) -> Int
    /// Grows (or shrinks, only before any reader exists) the file to `byteCount` and maps the
    /// new extent. Not durable until a `.full` sync.
    func setFileByteCount(_ byteCount: Int, site: FaultSite) throws(StorageError)
    /// Maps up to `byteCount` of the file when another process grew it.
    func extendMap(toByteCount byteCount: Int) throws(StorageError)
    /// Writes each piece at its offset. Pieces may be in any order and must not overlap.
    func write(_ pieces: [WritePiece]) throws(StorageError)
    /// `.data` is fdatasync (contents), `.full` is fsync (contents and size).
    func sync(_ kind: SyncKind, site: FaultSite) throws(StorageError)
    /// Verifies that the store is still the one the caller opened (a simulated crash kills
    /// every handle of the previous boot).
    func checkAlive(generation: UInt64) throws(StorageError)
    /// The current boot's generation (see `checkAlive`).
    var generation: UInt64 { get }
}

/// A store that lives in this process only and is handed to `Store.open` as an object, not
/// found by a name (`StoreLocation.processLocal`): the harness's simulated disk. Every handle
/// opened on one store during one boot shares one `SharedFile`; the registry keys it by the
/// store's object identity and the generation `boot` returns.
package protocol ProcessLocalStore: PageStore {
    /// Installs the hooks of the engine booting on this store (called on every open) and
    /// returns the current boot's generation.
    func boot(hooks: EngineHooks) -> UInt64
}

/// One contiguous write: `byteCount` bytes from `bytes` to file offset `offset`.
package struct WritePiece {
    package let offset: Int
    package let bytes: UnsafeRawPointer
    package let byteCount: Int
    /// What is being written, for fault sites and crash-image descriptions.
    package let site: FaultSite
}

/// Which sync a commit asks of a page store: a commit that grew the file needs the size made
/// durable too (Docs/commit-protocol.md, phase 1).
public enum SyncKind: Sendable, Hashable {
    /// fdatasync: file contents.
    case data
    /// fsync: contents and metadata (size), used when the file grew.
    case full
}

extension InjectedFault {
    /// The error an operation fails with when this fault is injected into it.
    package func storageError(operation: String) -> StorageError {
        switch self {
        case .eio: return .io(operation: operation, errno: EIO)
        case .enospc: return .noSpace(operation: operation)
        }
    }
}
