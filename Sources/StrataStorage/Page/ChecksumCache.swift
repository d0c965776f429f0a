import CStrataSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Remembers which page contents this process has already verified, so that zero-copy reads
/// check each page's checksum once per content rather than on every access.
///
/// Entry `n` holds the version field of page `n` when it was last verified (0: never). Pages
/// are immutable between being written by a commit and being freed and rewritten by a later
/// one, and a rewrite carries a new version, so "entry == the page's version field" means
/// these exact bytes were verified. The writer, in this or another process, rewrites only pages
/// no pinned version can reach, so no reader can see a page change under it.
///
/// The table is a lazily backed anonymous map sized for the largest file the store can map;
/// untouched entries cost nothing. Entries are read and written with relaxed atomics: two
/// threads verifying the same page race benignly (both store the same value).
final class ChecksumCache: @unchecked Sendable {
    private let entries: UnsafeMutableRawPointer
    private let byteCount: Int
    let pageCapacity: Int

    init(pageCapacity: Int) throws(StorageError) {
        self.pageCapacity = pageCapacity
        byteCount = max(8, pageCapacity * 8)
        let address = mmap(
            nil, byteCount, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let address, address != MAP_FAILED else {
            throw StorageError.io(operation: "reserve checksum cache", errno: errno)
        }
        entries = address
    }

    deinit { munmap(entries, byteCount) }

    @inline(__always)
    func verifiedVersion(of page: UInt32) -> UInt64 {
        strata_atomic_load_u64_relaxed_inline(entries + Int(page) * 8)
    }

    @inline(__always)
    func markVerified(_ page: UInt32, version: UInt64) {
        strata_atomic_store_u64_relaxed_inline(entries + Int(page) * 8, version)
    }

    /// Forgets every entry (after a simulated crash replaced the image under this cache).
    func reset() {
        memset(entries, 0, byteCount)
    }
}
