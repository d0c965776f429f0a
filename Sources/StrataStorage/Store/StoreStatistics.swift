/// A summary of a database for `strata-tool stat`.
public struct StoreStatistics: Sendable {
    /// The store's path, or its in-memory name.
    public let displayName: String
    /// The file's page size.
    public let pageSizeBytes: Int
    /// The newest published version.
    public let newestVersion: Version
    /// The versions in the two commit slots (nil: empty or invalid).
    public let slotVersions: [Version?]
    /// The data file's size on disk (it grows in chunks, so beyond the logical pages).
    public let fileByteCount: Int
    /// Logical pages of the newest version, the header page included.
    public let pageCount: Int
    /// Free pages reusable by the next commit.
    public let reusablePageCount: Int
    /// Free pages still held for versions that readers pin.
    public let pinnedFreePageCount: Int
    /// Pages in use by the newest version (header included).
    public var usedPageCount: Int { pageCount - reusablePageCount - pinnedFreePageCount }
    /// Every pinned version, oldest first (`Store.pinnedVersions()`).
    public let pinnedVersions: [Store.PinnedVersion]
    /// Processes holding reader slots.
    public let readerProcessCount: Int
    /// Each table of the newest version with its row count.
    public let tables: [VerificationReport.TableSummary]
    /// Set when the file's newest commit slot is damaged and it opens at the older slot's
    /// version (Spec D15).
    public let slotFallback: SlotFallback?
}

extension Store {
    /// Counts pages, free space, pins and rows of the newest version.
    /// - Complexity: O(free-list pages + tables).
    public func statistics() throws(StorageError) -> StoreStatistics {
        let read = try beginRead(.frozen)
        defer { read.end() }
        let (entries, _) = try FreeListCodec.read(
            head: read.record.freeListHeadRef, entryCount: read.record.freeListEntryCount,
            reader: read.reader)
        let oldest = min(file.versions.oldestPinnedVersion() ?? read.version, read.version)
        var reusable = 0
        var pinned = 0
        for (run, releasedBy) in entries {
            if releasedBy <= oldest { reusable += Int(run.count) } else { pinned += Int(run.count) }
        }
        try file.refreshMap()
        let slotVersions = FileHeader.slotOffsets.map { offset -> Version? in
            let decoded = CommitSlot.decode(
                file.store.base + offset, fileIdentity: file.header.fileIdentity,
                filePageCount: file.store.mappedByteCount / file.pageSizeBytes, checkChecksum: true)
            if case .success(let slot) = decoded { return slot.version }
            return nil
        }
        let fallback = try slotFallback()
        let tables = read.tables().map { VerificationReport.TableSummary(name: $0.name, rowCount: $0.rowCount) }
        // Our own pin is not a reader: drop it before counting pins and reader processes.
        read.end()
        return StoreStatistics(
            displayName: file.displayName, pageSizeBytes: file.pageSizeBytes, newestVersion: read.version,
            slotVersions: slotVersions, fileByteCount: try file.store.fileByteCount(),
            pageCount: Int(read.record.pageCount),
            reusablePageCount: reusable, pinnedFreePageCount: pinned, pinnedVersions: pinnedVersions(),
            readerProcessCount: Set(file.versions.pinningSlots().map(\.pid)).count,
            tables: tables, slotFallback: fallback)
    }
}
