#if canImport(Glibc)
    import Glibc
#endif

/// Large values live in chains of overflow pages (`PageLayout`: payload after the 40-byte
/// chain header, header link = next page with its expectation, 0 ends the chain). The
/// referencing record stores the byte length and a reference to the first page, so a reader
/// knows exactly how many pages to expect: a chain that is longer, shorter or loops is reported
/// as corruption, and every page must be the one its reference expects (Spec D19).
enum OverflowChain {
    static func pageCount(byteCount: Int, pageSizeBytes: Int) -> Int {
        let payload = PageLayout.overflowPayloadByteCount(pageSizeBytes: pageSizeBytes)
        return max(1, (byteCount + payload - 1) / payload)
    }

    /// Writes `bytes` into new pages; returns a reference to the first page. The pages are
    /// sealed here, last first, so that each link and the returned reference carry the final
    /// checksum of the page they name (Spec D19); nothing changes them before the commit, whose
    /// own sealing rewrites the same bytes.
    static func write<Space: PageAllocator>(_ bytes: UnsafeRawBufferPointer, space: Space) throws(StorageError)
        -> PageRef
    {
        let payload = PageLayout.overflowPayloadByteCount(pageSizeBytes: space.pageSizeBytes)
        let count = pageCount(byteCount: bytes.count, pageSizeBytes: space.pageSizeBytes)
        var pages: [(UInt32, UnsafeMutableRawPointer)] = []
        pages.reserveCapacity(count)
        for _ in 0..<count { pages.append(try space.allocate()) }
        var next = PageRef.none
        for index in pages.indices.reversed() {
            let (page, buffer) = pages[index]
            memset(buffer, 0, space.pageSizeBytes)
            buffer.storeBytes(of: PageType.overflow.rawValue, toByteOffset: PageLayout.typeOffset, as: UInt8.self)
            storeUInt32(buffer, PageLayout.linkOffset, next.page)
            next.expectation.store(buffer, PageLayout.nextExpectationOffset)
            let start = index * payload
            let length = min(payload, bytes.count - start)
            if length > 0, let source = bytes.baseAddress {
                memcpy(buffer + PageLayout.chainPayloadOffset, source + start, length)
            }
            sealPage(buffer, pageSizeBytes: space.pageSizeBytes, number: PageNumber(page), version: space.newVersion)
            next = PageRef(page: page, expectation: PageExpectation.of(UnsafeRawPointer(buffer)))
        }
        return next
    }

    /// The reference held by the chain page at `bytes` to the next page.
    static func nextRef(_ bytes: UnsafeRawPointer) -> PageRef {
        PageRef(
            page: loadUInt32(bytes, PageLayout.linkOffset),
            expectation: PageExpectation.load(bytes, PageLayout.nextExpectationOffset))
    }

    /// Reads a chain of `byteCount` bytes starting at `first`.
    static func read<S: PageSource>(first: PageRef, byteCount: Int, source: S) throws(StorageError) -> [UInt8] {
        let payload = PageLayout.overflowPayloadByteCount(pageSizeBytes: source.pageSizeBytes)
        var result = [UInt8](repeating: 0, count: byteCount)
        var ref = first
        var done = 0
        var visited = 0
        let expected = pageCount(byteCount: byteCount, pageSizeBytes: source.pageSizeBytes)
        try withMutableBytes(&result) { destination throws(StorageError) in
            while visited < expected {
                guard ref.page != 0 else {
                    throw StorageError.corruptRecord(
                        reason: "overflow chain ends after \(visited) of \(expected) pages")
                }
                let bytes = try source.page(ref, type: .overflow)
                let length = min(payload, byteCount - done)
                if length > 0, let target = destination.baseAddress {
                    memcpy(target + done, bytes + PageLayout.chainPayloadOffset, length)
                }
                done += length
                visited += 1
                ref = nextRef(bytes)
            }
        }
        guard ref.page == 0 else {
            throw StorageError.corruptRecord(reason: "overflow chain longer than \(expected) pages")
        }
        return result
    }

    /// The pages of a chain (for freeing and for verification).
    static func pages<S: PageSource>(first: PageRef, byteCount: Int, source: S) throws(StorageError) -> [UInt32] {
        let expected = pageCount(byteCount: byteCount, pageSizeBytes: source.pageSizeBytes)
        var result: [UInt32] = []
        result.reserveCapacity(expected)
        var ref = first
        while result.count < expected {
            guard ref.page != 0 else {
                throw StorageError.corruptRecord(
                    reason: "overflow chain ends after \(result.count) of \(expected) pages")
            }
            let bytes = try source.page(ref, type: .overflow)
            result.append(ref.page)
            ref = nextRef(bytes)
        }
        guard ref.page == 0 else {
            throw StorageError.corruptRecord(reason: "overflow chain longer than \(expected) pages")
        }
        return result
    }
}
