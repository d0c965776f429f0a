/// Verified, zero-copy read access to the committed pages of one version.
///
/// Every page handed out has: a number in [1, pageCount) of its version; a checksum that
/// matched its contents (checked once per content, see `ChecksumCache`); its own number in its
/// header (misdirected writes); a version no newer than the reader's; for tree nodes,
/// a structure that `NodeValidation` accepted; and, when reached through a reference (`child`,
/// `page(_:type:)` with a `PageRef`), the version and checksum the reference expects (Spec
/// D19: a lost write or a misdirected write of an older page). A page failing any of these is an error naming
/// the page; it is never returned as data .
///
/// The accessors that check all this live with the tree code (BTree/PageReader+Verify.swift):
/// verifying a node page means validating its structure, which only the B+tree knows.
struct PageReader {
    let base: UnsafeRawPointer
    let pageSizeBytes: Int
    let pageShift: Int
    /// Pages [0, pageCount) exist in this version.
    let pageCount: UInt32
    let readVersion: UInt64
    /// Owned by the `SharedFile`, which every transaction keeps alive; unowned so that copying
    /// a reader into each row view costs no reference counting on the read path.
    unowned(unsafe) let cache: ChecksumCache
    /// When false (the writer's seeded bug switches, `verify` re-checking on purpose) every
    /// access re-verifies.
    let trustCache: Bool
    /// False only under the seeded bug `skipReferenceCheck`: references are followed without
    /// checking what they expect.
    let checkReferences: Bool

    init(
        base: UnsafeRawPointer, pageSizeBytes: Int, pageCount: UInt32, readVersion: Version,
        cache: ChecksumCache, trustCache: Bool = true, checkReferences: Bool = true
    ) {
        self.checkReferences = checkReferences
        self.base = base
        self.pageSizeBytes = pageSizeBytes
        self.pageShift = pageSizeBytes.trailingZeroBitCount
        self.pageCount = pageCount
        self.readVersion = readVersion.rawValue
        self.cache = cache
        self.trustCache = trustCache
    }
}
