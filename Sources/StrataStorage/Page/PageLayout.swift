/// On-disk layout of every page except the header page (page 0).
///
/// All integers little-endian. Every page starts with this 24-byte header:
///
/// | offset | size | meaning                                                          |
/// |-------:|-----:|------------------------------------------------------------------|
/// |      0 |    4 | CRC32C of bytes [4, pageSize)                                     |
/// |      4 |    1 | page type (`PageType`)                                            |
/// |      5 |    1 | flags (tree nodes: bit 0 = byte keys)                             |
/// |      6 |    2 | entry count (tree nodes, free-list pages)                         |
/// |      8 |    8 | version of the commit that wrote the page                          |
/// |     16 |    4 | the page's own number (detects misdirected writes)               |
/// |     20 |    4 | link: branch = leftmost child; overflow, free list = next page    |
///
/// Tree nodes (leaf and branch) continue with:
///
/// | offset | size | meaning                                                          |
/// |-------:|-----:|------------------------------------------------------------------|
/// |     24 |    2 | cell area start: cells occupy [start, pageSize)                   |
/// |     26 |    2 | dead bytes inside the cell area (freed cells, reclaimed on compaction) |
/// |     28 |    4 | zero                                                             |
/// |     32 |    … | entries: leaf 12 bytes {key u64, cell offset u16, cell length u16}; |
/// |        |      | branch 16 bytes {key u64, child u32, cell offset u16, cell length u16} |
///
/// The entry key is an order-preserving 64-bit image of the real key (`TreeKey`), so most
/// comparisons are one integer compare. Int-keyed trees store the whole key there; byte-keyed
/// trees store the first 8 bytes and keep the full key in the cell. A branch's child in entry i
/// holds keys ≥ entry i's key; the leftmost child (header link) holds keys < entry 0's key.
///
/// Overflow pages hold bytes [24, pageSize) of a large value and link to the next page.
/// Free-list pages hold 16-byte entries {first page u32, page count u32, released-by u64}.
enum PageLayout {
    static let checksumOffset = 0
    static let typeOffset = 4
    static let flagsOffset = 5
    static let countOffset = 6
    static let versionOffset = 8
    static let pageNumberOffset = 16
    static let linkOffset = 20
    static let headerByteCount = 24

    static let cellStartOffset = 24
    static let deadBytesOffset = 26
    static let entriesOffset = 32

    static let leafEntryStride = 12
    static let branchEntryStride = 16

    static let freeListEntryStride = 16

    static let pageSizeMin = 4096
    static let pageSizeMax = 32768
    static let defaultPageSize = 4096

    static func isSupported(pageSizeBytes: Int) -> Bool {
        pageSizeBytes >= pageSizeMin && pageSizeBytes <= pageSizeMax
            && pageSizeBytes & (pageSizeBytes - 1) == 0
    }

    /// The largest cell a leaf accepts: at least four entries must fit in a page so that a
    /// split always leaves both halves non-empty.
    static func leafCellByteCountMax(pageSizeBytes: Int) -> Int {
        (pageSizeBytes - entriesOffset) / 4 - leafEntryStride
    }

    /// The longest key a byte-keyed tree accepts (a branch must hold at least four).
    static func keyByteCountMax(pageSizeBytes: Int) -> Int { pageSizeBytes / 8 }

    static func overflowPayloadByteCount(pageSizeBytes: Int) -> Int { pageSizeBytes - headerByteCount }

    static func freeListEntriesPerPage(pageSizeBytes: Int) -> Int {
        (pageSizeBytes - headerByteCount) / freeListEntryStride
    }
}

enum PageType: UInt8, Sendable {
    case leaf = 1
    case branch = 2
    case overflow = 3
    case freeList = 4
}

/// Bit 0 of a tree node's flags.
enum NodeFlags {
    static let byteKeys: UInt8 = 1
}

/// Writes the common header fields and the checksum of a page about to be written.
/// Pair check: `PageReader.verify` recomputes exactly this checksum after reading.
func sealPage(_ page: UnsafeMutableRawPointer, pageSizeBytes: Int, number: PageNumber, version: Version) {
    storeUInt64(page, PageLayout.versionOffset, version.rawValue)
    storeUInt32(page, PageLayout.pageNumberOffset, number.rawValue)
    let checksum = CRC32C.checksum(UnsafeRawPointer(page) + 4, count: pageSizeBytes - 4)
    storeUInt32(page, PageLayout.checksumOffset, checksum)
    invariant(loadUInt32(page, PageLayout.checksumOffset) == checksum, "seal stored its checksum")
}
