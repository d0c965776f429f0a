#if canImport(Glibc)
    import Glibc
#endif

/// A fixed range of virtual address space that a store's pages live in.
///
/// Why: readers hold raw pointers into the map while the writer grows the file. Reserving the
/// whole range up front (`PROT_NONE`, no backing) and mapping the file into its prefix with
/// `MAP_FIXED` as it grows means the base address never moves, so growth never invalidates a
/// reader still using the old extent . Reserved but unmapped space costs no
/// memory.
///
/// Two backings share this type: a file (`mapFile`) for `FileStore`, and anonymous memory
/// (`commitAnonymous`) for `AnonymousImage`.
///
/// Thread safety: `base` and `capacityBytes` are immutable. Growth (`mapFile`,
/// `commitAnonymous`) is serialised by the owning store's lock.
final class AddressReservation: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let capacityBytes: Int

    /// Reserves `capacityBytes` (rounded up to the system page size) of address space.
    init(capacityBytes requested: Int) throws(StorageError) {
        let systemPage = Int(sysconf(Int32(_SC_PAGESIZE)))
        let capacity = (requested + systemPage - 1) / systemPage * systemPage
        let address = mmap(
            nil, capacity, PROT_NONE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let address, address != MAP_FAILED else {
            throw StorageError.io(operation: "reserve address space", errno: errno)
        }
        base = address
        capacityBytes = capacity
    }

    deinit {
        munmap(base, capacityBytes)
    }

    /// Maps `[fromBytes, toBytes)` of the file `descriptor` at the same offsets of the range,
    /// read-only and shared, so the map sees every `pwrite` through the page cache.
    func mapFile(descriptor: Int32, fromBytes: Int, toBytes: Int) throws(StorageError) {
        precondition(fromBytes <= toBytes, "map range is inverted")
        guard toBytes <= capacityBytes else {
            throw StorageError.mapCapacityExceeded(requestedBytes: toBytes, capacityBytes: capacityBytes)
        }
        guard toBytes > fromBytes else { return }
        // mmap offsets must be system-page aligned. Remapping the partial page at the start
        // again is harmless: it shows the same file bytes at the same address.
        let systemPage = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = fromBytes / systemPage * systemPage
        let address = mmap(
            base + start, toBytes - start, PROT_READ,
            MAP_SHARED | MAP_FIXED, descriptor, off_t(start))
        guard let address, address != MAP_FAILED else {
            throw StorageError.io(operation: "mmap", errno: errno)
        }
        invariant(address == base + start, "MAP_FIXED returned another address")
    }

    /// Makes `[fromBytes, toBytes)` readable and writable anonymous memory (zero-filled).
    func commitAnonymous(fromBytes: Int, toBytes: Int) throws(StorageError) {
        precondition(fromBytes <= toBytes, "commit range is inverted")
        guard toBytes <= capacityBytes else {
            throw StorageError.mapCapacityExceeded(requestedBytes: toBytes, capacityBytes: capacityBytes)
        }
        guard toBytes > fromBytes else { return }
        // Round to system pages: mprotect works on whole pages.
        let systemPage = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = fromBytes / systemPage * systemPage
        let end = (toBytes + systemPage - 1) / systemPage * systemPage
        guard mprotect(base + start, min(end, capacityBytes) - start, PROT_READ | PROT_WRITE) == 0 else {
            throw StorageError.io(operation: "mprotect", errno: errno)
        }
    }

    /// Returns `[fromBytes, toBytes)` of anonymous memory to the kernel and makes it zero again
    /// (used when a simulated crash shrinks the visible file).
    func discardAnonymous(fromBytes: Int, toBytes: Int) {
        let systemPage = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (fromBytes + systemPage - 1) / systemPage * systemPage
        let end = toBytes / systemPage * systemPage
        if end > start { madvise(base + start, end - start, MADV_DONTNEED) }
        // The partial system page at the start (if any) is zeroed by hand.
        if start > fromBytes { memset(base + fromBytes, 0, min(start, toBytes) - fromBytes) }
    }
}
