/// Where the tree code gets pages from: the committed pages of a version (`PageReader`), or
/// those plus a write transaction's dirty pages (`WritePages`). Generic code over this protocol
/// is specialised per source, so the read path makes no existential call per key.
protocol PageSource {
    var pageSizeBytes: Int { get }
    /// A validated tree node (leaf or branch).
    func node(_ page: UInt32) throws(StorageError) -> NodeView
    /// A validated page of `type` (overflow or free list).
    func page(_ page: UInt32, type: PageType) throws(StorageError) -> UnsafeRawPointer
    /// Child `index` of the branch `parent`, validated and, if committed, checked against the
    /// parent's expectation (Spec D19).
    func child(of parent: NodeView, _ index: Int) throws(StorageError) -> NodeView
    /// A validated page of `type` that is, if committed, the page `ref` expects (Spec D19).
    func page(_ ref: PageRef, type: PageType) throws(StorageError) -> UnsafeRawPointer
}

/// Verified, zero-copy read access to the committed pages of one version.
///
/// Every page handed out has: a number in [1, pageCount) of its version; a checksum that
/// matched its contents (checked once per content, see `ChecksumCache`); its own number in its
/// header (misdirected writes); a version no newer than the reader's; for tree nodes,
/// a structure that `NodeValidation` accepted; and, when reached through a reference (`child`,
/// `page(_:type:)` with a `PageRef`), the version and checksum the reference expects (Spec
/// D19: a lost write or a misdirected write of an older page). A page failing any of these is an error naming
/// the page; it is never returned as data .
struct PageReader: PageSource {
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

    init(base: UnsafeRawPointer, pageSizeBytes: Int, pageCount: UInt32, readVersion: Version,
         cache: ChecksumCache, trustCache: Bool = true, checkReferences: Bool = true) {
        self.checkReferences = checkReferences
        self.base = base
        self.pageSizeBytes = pageSizeBytes
        self.pageShift = pageSizeBytes.trailingZeroBitCount
        self.pageCount = pageCount
        self.readVersion = readVersion.rawValue
        self.cache = cache
        self.trustCache = trustCache
    }

    /// The raw bytes of a page that passed the checks above (any type).
    @inline(__always)
    func verifiedPage(_ number: UInt32) throws(StorageError) -> UnsafeRawPointer {
        guard number != 0 && number < pageCount else {
            throw StorageError.pageOutOfRange(page: PageNumber(number), pageCount: pageCount)
        }
        let page = base + (Int(number) << pageShift)
        let version = loadUInt64(page, PageLayout.versionOffset)
        if !trustCache || version == 0 || cache.verifiedVersion(of: number) != version {
            try verify(page, number: number, version: version)
        }
        guard version <= readVersion else {
            throw StorageError.pageFromTheFuture(page: PageNumber(number), pageVersion: version, readVersion: readVersion)
        }
        return page
    }

    @inline(__always)
    func node(_ number: UInt32) throws(StorageError) -> NodeView {
        let page = try verifiedPage(number)
        let type = page.load(fromByteOffset: PageLayout.typeOffset, as: UInt8.self)
        guard type == PageType.leaf.rawValue || type == PageType.branch.rawValue else {
            throw StorageError.wrongPageType(page: PageNumber(number), expected: PageType.leaf.rawValue, found: type)
        }
        return NodeView(base: page, pageSizeBytes: pageSizeBytes)
    }

    @inline(__always)
    func child(of parent: NodeView, _ index: Int) throws(StorageError) -> NodeView {
        let number = parent.child(index)
        let child = try node(number)
        if checkReferences { try parent.childExpectation(index).check(child.base, number: number) }
        return child
    }

    func page(_ ref: PageRef, type: PageType) throws(StorageError) -> UnsafeRawPointer {
        let page = try self.page(ref.page, type: type)
        if checkReferences { try ref.expectation.check(page, number: ref.page) }
        return page
    }

    /// A tree root named by `ref` (from a commit slot or the catalog), checked against it.
    func root(_ ref: PageRef) throws(StorageError) -> NodeView {
        let root = try node(ref.page)
        if checkReferences { try ref.expectation.check(root.base, number: ref.page) }
        return root
    }

    func page(_ number: UInt32, type: PageType) throws(StorageError) -> UnsafeRawPointer {
        let page = try verifiedPage(number)
        let found = page.load(fromByteOffset: PageLayout.typeOffset, as: UInt8.self)
        guard found == type.rawValue else {
            throw StorageError.wrongPageType(page: PageNumber(number), expected: type.rawValue, found: found)
        }
        return page
    }

    /// The slow path: checksum, self number, structure. Marks the content verified.
    @inline(never)
    private func verify(_ page: UnsafeRawPointer, number: UInt32, version: UInt64) throws(StorageError) {
        let stored = loadUInt32(page, PageLayout.checksumOffset)
        let computed = CRC32C.checksum(page + 4, count: pageSizeBytes - 4)
        guard stored == computed else {
            throw StorageError.checksumMismatch(page: PageNumber(number), expected: stored, found: computed)
        }
        let selfNumber = loadUInt32(page, PageLayout.pageNumberOffset)
        guard selfNumber == number else {
            throw StorageError.misdirectedPage(page: PageNumber(number), foundPageNumber: selfNumber)
        }
        guard version != 0 else {
            throw StorageError.corruptPage(page: PageNumber(number), reason: "page written by version 0")
        }
        let type = page.load(fromByteOffset: PageLayout.typeOffset, as: UInt8.self)
        switch PageType(rawValue: type) {
        case .leaf, .branch:
            try NodeValidation.check(page, page: PageNumber(number), pageSizeBytes: pageSizeBytes)
        case .freeList:
            let count = Int(loadUInt16(page, PageLayout.countOffset))
            guard count <= PageLayout.freeListEntriesPerPage(pageSizeBytes: pageSizeBytes) else {
                throw StorageError.corruptPage(page: PageNumber(number), reason: "free-list count \(count) too large")
            }
        case .overflow:
            break
        case nil:
            throw StorageError.corruptPage(page: PageNumber(number), reason: "unknown page type \(type)")
        }
        cache.markVerified(number, version: version)
    }
}
