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
/// Every reference from one page to another carries what the referring page expects of the
/// page it names (Spec D19, ZFS-style block pointers): the page number, the version of the
/// commit that wrote it and its checksum, so a page that is intact but not the copy its parent
/// wrote (a lost write, a misdirected write of an older page) is detected. A `PageRef` in
/// the layout below is {page u32, checksum u32, version u64} (16 bytes) or, where the page
/// number is stored elsewhere, the expectation {checksum u32, version u64} (12 bytes).
///
/// Tree nodes (leaf and branch) continue with:
///
/// | offset | size | meaning                                                          |
/// |-------:|-----:|------------------------------------------------------------------|
/// |     24 |    2 | cell area start: cells occupy [start, pageSize)                   |
/// |     26 |    2 | dead bytes inside the cell area (freed cells, reclaimed on compaction) |
/// |     28 |    4 | branch: leftmost child's checksum; leaf: zero                     |
/// |     32 |    8 | branch: leftmost child's version; leaf: zero                      |
/// |     40 |    … | entries: leaf 12 bytes {key u64, cell offset u16, cell length u16}; |
/// |        |      | branch 28 bytes {key u64, child u32, child checksum u32, child version u64, |
/// |        |      | cell offset u16, cell length u16}                                 |
///
/// The entry key is an order-preserving 64-bit image of the real key (`TreeKey`), so most
/// comparisons are one integer compare. Int-keyed trees store the whole key there; byte-keyed
/// trees store the first 8 bytes and keep the full key in the cell. A branch's child in entry i
/// holds keys ≥ entry i's key; the leftmost child (header link) holds keys < entry 0's key.
///
/// Overflow and free-list pages ("chain pages") continue with the next page's expectation:
///
/// | offset | size | meaning                                                          |
/// |-------:|-----:|------------------------------------------------------------------|
/// |     24 |    4 | next page's checksum (0 when the link is 0)                       |
/// |     28 |    8 | next page's version (0 when the link is 0)                        |
/// |     36 |    4 | zero                                                             |
/// |     40 |    … | overflow: bytes of a large value; free list: 16-byte entries      |
/// |        |      | {first page u32, page count u32, released-by u64}                 |
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
    /// The leftmost child's expectation (branches).
    static let leftmostExpectationOffset = 28
    static let entriesOffset = 40

    static let leafEntryStride = 12
    static let branchEntryStride = 28
    /// Within a branch entry: the child's page number, then its expectation.
    static let branchChildOffset = 8
    static let branchExpectationOffset = 12

    /// Chain pages (overflow, free list): the next page's expectation, then the payload.
    static let nextExpectationOffset = 24
    static let chainPayloadOffset = 40

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

    static func overflowPayloadByteCount(pageSizeBytes: Int) -> Int { pageSizeBytes - chainPayloadOffset }

    static func freeListEntriesPerPage(pageSizeBytes: Int) -> Int {
        (pageSizeBytes - chainPayloadOffset) / freeListEntryStride
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

/// What a reference expects of the page it names (Spec D19): the version of the commit that
/// wrote the page and the page's checksum. Stored as {checksum u32, version u64}.
struct PageExpectation: Hashable, Sendable {
    var checksum: UInt32
    var version: UInt64

    /// The expectation of "no page" (a link or root of 0).
    static let none = PageExpectation(checksum: 0, version: 0)
    static let byteCount = 12

    /// What `page` (a sealed page) is: the expectation a reference to it must carry.
    static func of(_ page: UnsafeRawPointer) -> PageExpectation {
        PageExpectation(
            checksum: loadUInt32(page, PageLayout.checksumOffset),
            version: loadUInt64(page, PageLayout.versionOffset))
    }

    static func load(_ base: UnsafeRawPointer, _ offset: Int) -> PageExpectation {
        PageExpectation(checksum: loadUInt32(base, offset), version: loadUInt64(base, offset + 4))
    }

    func store(_ base: UnsafeMutableRawPointer, _ offset: Int) {
        storeUInt32(base, offset, checksum)
        storeUInt64(base, offset + 4, version)
    }

    /// Throws unless the verified page `number` at `page` is the page this expectation names.
    @inline(__always)
    func check(_ page: UnsafeRawPointer, number: UInt32) throws(StorageError) {
        let found = PageExpectation.of(page)
        guard found == self else {
            throw StorageError.referenceMismatch(
                page: PageNumber(number), expectedVersion: version,
                expectedChecksum: checksum, foundVersion: found.version,
                foundChecksum: found.checksum)
        }
    }
}

/// A reference to a page: its number and what the referrer expects of it (Spec D19).
struct PageRef: Equatable, Sendable {
    var page: UInt32
    var expectation: PageExpectation

    static let none = PageRef(page: 0, expectation: .none)
}
