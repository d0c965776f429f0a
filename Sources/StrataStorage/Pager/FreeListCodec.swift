/// The free list on disk: a chain of free-list pages (`PageLayout`), each holding up to
/// `freeListEntriesPerPage` entries {first page u32, page count u32, released-by u64}.
/// Written whole by every commit (into pages taken from the new free list itself or the file
/// end); the slot records the first page with its checksum and the entry count, and each
/// page's link carries what it expects of the next page, so a truncated, looping or stale chain
/// is detected (Spec D19).
enum FreeListCodec {
    typealias Entry = (run: FreeList.Run, releasedBy: Version)

    /// Reads the free list of a version; returns its entries and the pages of the chain.
    static func read(head: PageRef, entryCount: UInt64, reader: PageReader) throws(StorageError) -> (
        entries: [Entry], chain: [UInt32]
    ) {
        var entries: [Entry] = []
        var chain: [UInt32] = []
        var ref = head
        let perPage = PageLayout.freeListEntriesPerPage(pageSizeBytes: reader.pageSizeBytes)
        guard entryCount <= UInt64(reader.pageCount) else {
            throw StorageError.corruptRecord(reason: "free list of \(entryCount) entries in \(reader.pageCount) pages")
        }
        while ref.page != 0 {
            guard chain.count < Int(reader.pageCount) else {
                throw StorageError.corruptRecord(reason: "free-list chain loops")
            }
            let bytes = try reader.page(ref, type: .freeList)
            chain.append(ref.page)
            let count = Int(loadUInt16(bytes, PageLayout.countOffset))
            invariant(count <= perPage, "validated by PageReader")
            for index in 0..<count {
                let at = PageLayout.chainPayloadOffset + index * PageLayout.freeListEntryStride
                let start = loadUInt32(bytes, at)
                let length = loadUInt32(bytes, at + 4)
                let releasedBy = Version(loadUInt64(bytes, at + 8))
                guard start >= 1, length >= 1, UInt64(start) + UInt64(length) <= UInt64(reader.pageCount) else {
                    throw StorageError.corruptRecord(
                        reason: "free run \(start)+\(length) outside \(reader.pageCount) pages")
                }
                guard releasedBy.rawValue <= reader.readVersion else {
                    throw StorageError.corruptRecord(
                        reason: "free run released by future version \(releasedBy.rawValue)")
                }
                entries.append((FreeList.Run(start: start, count: length), releasedBy))
            }
            ref = OverflowChain.nextRef(bytes)
        }
        guard UInt64(entries.count) == entryCount else {
            throw StorageError.corruptRecord(reason: "free list has \(entries.count) entries, slot says \(entryCount)")
        }
        // No page may be listed twice (overlapping runs would hand one page out twice).
        let sorted = entries.map(\.run).sorted { $0.start < $1.start }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.end > b.start {
            throw StorageError.corruptRecord(
                reason: "free runs \(a.start)+\(a.count) and \(b.start)+\(b.count) overlap")
        }
        return (entries, chain)
    }

    /// Fills `pages` (already allocated, zeroed) with `entries`, chained in order.
    static func write(
        _ entries: [Entry], into pages: [(page: UInt32, buffer: UnsafeMutableRawPointer)], pageSizeBytes: Int
    ) {
        let perPage = PageLayout.freeListEntriesPerPage(pageSizeBytes: pageSizeBytes)
        invariant(pages.count * perPage >= entries.count, "enough free-list pages")
        var next = 0
        for (position, (_, buffer)) in pages.enumerated() {
            buffer.storeBytes(of: PageType.freeList.rawValue, toByteOffset: PageLayout.typeOffset, as: UInt8.self)
            let link = position + 1 < pages.count ? pages[position + 1].page : 0
            storeUInt32(buffer, PageLayout.linkOffset, link)
            let count = min(perPage, entries.count - next)
            storeUInt16(buffer, PageLayout.countOffset, UInt16(count))
            for index in 0..<count {
                let (run, releasedBy) = entries[next + index]
                let at = PageLayout.chainPayloadOffset + index * PageLayout.freeListEntryStride
                storeUInt32(buffer, at, run.start)
                storeUInt32(buffer, at + 4, run.count)
                storeUInt64(buffer, at + 8, releasedBy.rawValue)
            }
            next += count
        }
        invariant(next == entries.count, "every entry written")
    }

    /// Seals the chain's pages last first, each link recording the next page's final checksum
    /// and version (Spec D19). Returns the head's checksum (0 for an empty chain).
    static func seal(
        _ pages: [(page: UInt32, buffer: UnsafeMutableRawPointer)], pageSizeBytes: Int,
        version: Version
    ) -> UInt32 {
        var next = PageExpectation.none
        for (page, buffer) in pages.reversed() {
            next.store(buffer, PageLayout.nextExpectationOffset)
            sealPage(buffer, pageSizeBytes: pageSizeBytes, number: PageNumber(page), version: version)
            next = PageExpectation.of(UnsafeRawPointer(buffer))
        }
        return next.checksum
    }
}
