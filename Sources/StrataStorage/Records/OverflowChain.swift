#if canImport(Glibc)
import Glibc
#endif

/// Large values live in chains of overflow pages (`PageLayout`: payload after the 24-byte
/// header, header link = next page, 0 ends the chain). The referencing record stores the byte
/// length and the first page, so a reader knows exactly how many pages to expect: a chain that
/// is longer, shorter or loops is reported as corruption.
enum OverflowChain {
    static func pageCount(byteCount: Int, pageSizeBytes: Int) -> Int {
        let payload = PageLayout.overflowPayloadByteCount(pageSizeBytes: pageSizeBytes)
        return max(1, (byteCount + payload - 1) / payload)
    }

    /// Writes `bytes` into new pages; returns the first page.
    static func write(_ bytes: UnsafeRawBufferPointer, space: WriteSpace) throws(StorageError) -> UInt32 {
        let payload = PageLayout.overflowPayloadByteCount(pageSizeBytes: space.pageSizeBytes)
        let count = pageCount(byteCount: bytes.count, pageSizeBytes: space.pageSizeBytes)
        var pages: [(UInt32, UnsafeMutableRawPointer)] = []
        pages.reserveCapacity(count)
        for _ in 0..<count { pages.append(try space.allocate()) }
        for (index, (_, buffer)) in pages.enumerated() {
            memset(buffer, 0, space.pageSizeBytes)
            buffer.storeBytes(of: PageType.overflow.rawValue, toByteOffset: PageLayout.typeOffset, as: UInt8.self)
            let next = index + 1 < pages.count ? pages[index + 1].0 : 0
            storeUInt32(buffer, PageLayout.linkOffset, next)
            let start = index * payload
            let length = min(payload, bytes.count - start)
            if length > 0, let source = bytes.baseAddress {
                memcpy(buffer + PageLayout.headerByteCount, source + start, length)
            }
        }
        return pages[0].0
    }

    /// Reads a chain of `byteCount` bytes starting at `first`.
    static func read<S: PageSource>(first: UInt32, byteCount: Int, source: S) throws(StorageError) -> [UInt8] {
        let payload = PageLayout.overflowPayloadByteCount(pageSizeBytes: source.pageSizeBytes)
        var result = [UInt8](repeating: 0, count: byteCount)
        var page = first
        var done = 0
        var visited = 0
        let expected = pageCount(byteCount: byteCount, pageSizeBytes: source.pageSizeBytes)
        try withMutableBytes(&result) { destination throws(StorageError) in
            while visited < expected {
                guard page != 0 else {
                    throw StorageError.corruptRecord(reason: "overflow chain ends after \(visited) of \(expected) pages")
                }
                let bytes = try source.page(page, type: .overflow)
                let length = min(payload, byteCount - done)
                if length > 0, let target = destination.baseAddress {
                    memcpy(target + done, bytes + PageLayout.headerByteCount, length)
                }
                done += length
                visited += 1
                page = loadUInt32(bytes, PageLayout.linkOffset)
            }
        }
        guard page == 0 else {
            throw StorageError.corruptRecord(reason: "overflow chain longer than \(expected) pages")
        }
        return result
    }

    /// The pages of a chain (for freeing and for verification).
    static func pages<S: PageSource>(first: UInt32, byteCount: Int, source: S) throws(StorageError) -> [UInt32] {
        let expected = pageCount(byteCount: byteCount, pageSizeBytes: source.pageSizeBytes)
        var result: [UInt32] = []
        result.reserveCapacity(expected)
        var page = first
        while result.count < expected {
            guard page != 0 else {
                throw StorageError.corruptRecord(reason: "overflow chain ends after \(result.count) of \(expected) pages")
            }
            let bytes = try source.page(page, type: .overflow)
            result.append(page)
            page = loadUInt32(bytes, PageLayout.linkOffset)
        }
        guard page == 0 else {
            throw StorageError.corruptRecord(reason: "overflow chain longer than \(expected) pages")
        }
        return result
    }
}
