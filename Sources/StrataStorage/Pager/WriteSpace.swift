#if canImport(Glibc)
    import Glibc
#endif

/// The pages of one write transaction: its dirty page buffers, the allocator, and the pages it
/// releases. Copy-on-write happens here: a committed page is never modified, `writable` gives
/// a private copy under a new page number and records the old one as released.
///
/// Invariants:
/// - every dirty page was allocated by this transaction (COW gives new numbers), so freeing a
///   dirty page returns it to this transaction at once;
/// - a page released by this commit (part of the base version) is never reused by it (Spec D:
///   the version on disk stays intact until the new slot is durable);
/// - pages are taken from the free list only when reusable under the pins seen at begin.
///
/// Not thread-safe: owned by the write transaction, which is confined to one thread at a time.
final class WriteSpace: PageAllocator {
    let pageSizeBytes: Int
    let reader: PageReader
    let newVersion: Version
    let hooks: EngineHooks
    /// The dirty pages. Kept behind a `let` pointer rather than in a stored `var`: the tree
    /// writer reads it once per tree level, and every access to a class's stored `var` costs
    /// a dynamic exclusivity check. Only this class touches it; it is freed in `deinit`.
    private let dirtyTable: UnsafeMutablePointer<DirtyPageTable>
    /// The dirty-page table itself, for views of this write's pages (`WritePages`, `RowView`).
    var dirtyPages: UnsafeMutablePointer<DirtyPageTable> { dirtyTable }
    /// The dirty pages and their buffers, in no particular order (the commit sorts them).
    var dirty: [(key: UInt32, value: UnsafeMutableRawPointer)] { dirtyTable.pointee.entries }
    /// The rightmost leaf the latest tree put left behind (`TreeWriter`'s append path). Behind
    /// a `let` pointer like `dirtyTable`: every insert reads it. Only `TreeWriter` touches it.
    let appendHint: UnsafeMutablePointer<AppendHint>
    private(set) var freeList: FreeList
    /// Logical page count: pages [0, pageCount) are reachable or free after this commit.
    private(set) var pageCount: UInt32
    /// Pages of the base version released by this commit.
    private(set) var releasedByThisCommit: [UInt32] = []
    /// Pages allocated and freed again within this transaction: free in every version.
    private var freedDirty: [UInt32] = []
    private var spareBuffers: [UnsafeMutableRawPointer] = []
    /// Two pages of scratch for node rebuilds.
    let scratch: UnsafeMutableRawPointer
    let scratch2: UnsafeMutableRawPointer
    /// Reused path storage for tree descents (`takeTreePath`).
    private var spareTreePath = TreePath()
    var entryScratch: [NodeEntry] = []

    static let pageCountMax = UInt32.max - 1

    init(reader: PageReader, newVersion: Version, freeList: FreeList, pageCount: UInt32, hooks: EngineHooks) {
        self.reader = reader
        self.pageSizeBytes = reader.pageSizeBytes
        self.newVersion = newVersion
        self.freeList = freeList
        self.pageCount = pageCount
        self.hooks = hooks
        dirtyTable = UnsafeMutablePointer<DirtyPageTable>.allocate(capacity: 1)
        dirtyTable.initialize(to: DirtyPageTable())
        appendHint = UnsafeMutablePointer<AppendHint>.allocate(capacity: 1)
        appendHint.initialize(to: AppendHint())
        scratch = UnsafeMutableRawPointer.allocate(byteCount: reader.pageSizeBytes, alignment: 64)
        scratch2 = UnsafeMutableRawPointer.allocate(byteCount: reader.pageSizeBytes, alignment: 64)
        invariant(newVersion > Version(reader.readVersion), "a commit creates a newer version")
    }

    deinit {
        for (_, buffer) in dirtyTable.pointee.entries { buffer.deallocate() }
        dirtyTable.deinitialize(count: 1)
        dirtyTable.deallocate()
        appendHint.deinitialize(count: 1)
        appendHint.deallocate()
        for buffer in spareBuffers { buffer.deallocate() }
        scratch.deallocate()
        scratch2.deallocate()
    }

    /// The spare `TreePath` (its capacity reused); give it back with `returnTreePath`.
    func takeTreePath() -> TreePath {
        var path = TreePath()
        swap(&path, &spareTreePath)
        return path
    }

    func returnTreePath(_ path: TreePath) { spareTreePath = path }

    var source: WritePages { WritePages(reader: reader, dirty: dirtyTable) }

    @inline(__always)
    func dirtyBuffer(_ page: UInt32) -> UnsafeMutableRawPointer? { dirtyTable.pointee[page] }

    /// A private, modifiable copy of the page `ref` names, possibly under a new number. A
    /// committed page must be the one the reference expects (Spec D19); a dirty page is this
    /// transaction's own, whose expectation the commit fills in.
    func writable(_ ref: PageRef) throws(StorageError) -> (page: UInt32, buffer: UnsafeMutableRawPointer) {
        if let buffer = dirtyTable.pointee[ref.page] { return (ref.page, buffer) }
        let committed = try reader.verifiedPage(ref.page)
        if reader.checkReferences { try ref.expectation.check(committed, number: ref.page) }
        return try copy(ref.page, committed)
    }

    /// A private copy of a root (whose expectation was checked when the catalog was loaded).
    func writable(_ page: UInt32) throws(StorageError) -> (page: UInt32, buffer: UnsafeMutableRawPointer) {
        if let buffer = dirtyTable.pointee[page] { return (page, buffer) }
        return try copy(page, try reader.verifiedPage(page))
    }

    /// Checks that a committed page is the one `ref` expects (dirty pages pass: their
    /// expectation is filled in by the commit).
    func checkCommitted(_ ref: PageRef) throws(StorageError) {
        guard ref.page != 0, dirtyTable.pointee[ref.page] == nil, reader.checkReferences else { return }
        try ref.expectation.check(try reader.verifiedPage(ref.page), number: ref.page)
    }

    private func copy(_ page: UInt32, _ committed: UnsafeRawPointer) throws(StorageError) -> (
        page: UInt32, buffer: UnsafeMutableRawPointer
    ) {
        let (newPage, buffer) = try allocate()
        memcpy(buffer, committed, pageSizeBytes)
        #if STRATA_CHECKS
            invariant(!freedOnce.contains(page), "a committed page is released once")
            freedOnce.insert(page)
        #endif
        releasedByThisCommit.append(page)
        invariant(newPage != page, "COW never rewrites a committed page in place")
        return (newPage, buffer)
    }

    /// A new page with a zeroed header.
    func allocate() throws(StorageError) -> (page: UInt32, buffer: UnsafeMutableRawPointer) {
        let page: UInt32
        if let reused = freedDirty.popLast() {
            page = reused
        } else if hooks.has(.reuseOwnFrees), let own = releasedByThisCommit.popLast() {
            page = own  // seeded bug: overwrites a page of the version on disk
        } else if let free = freeList.takeLowest() {
            page = free
        } else {
            guard pageCount < Self.pageCountMax else {
                throw StorageError.valueTooLarge(reason: "the file would exceed \(Self.pageCountMax) pages")
            }
            page = pageCount
            pageCount += 1
        }
        let buffer =
            spareBuffers.popLast()
            ?? UnsafeMutableRawPointer.allocate(byteCount: pageSizeBytes, alignment: 64)
        memset(buffer, 0, PageLayout.entriesOffset)
        invariant(dirtyTable.pointee[page] == nil, "a page is allocated once")
        dirtyTable.pointee.insert(buffer, for: page)
        #if STRATA_CHECKS
            freedOnce.remove(page)
            allocatedByThisWrite.insert(page)
        #endif
        invariant(page != 0, "the header page is never allocated")
        return (page, buffer)
    }

    #if STRATA_CHECKS
        /// Every page released or freed by this transaction, to catch a double free at its source.
        private var freedOnce = Set<UInt32>()
        /// Every page this write allocated (`Pager.checkInvariants`: dirty pages are among them).
        private(set) var allocatedByThisWrite = Set<UInt32>()
    #endif

    /// Releases `page`: at once if this transaction allocated it, else at commit.
    func free(_ page: UInt32) {
        invariant(page != 0, "the header page is never freed")
        #if STRATA_CHECKS
            invariant(!freedOnce.contains(page) || dirtyTable.pointee[page] != nil, "a page is freed once")
            freedOnce.insert(page)
        #endif
        if let buffer = dirtyTable.pointee.removeValue(forKey: page) {
            spareBuffers.append(buffer)
            freedDirty.append(page)
        } else {
            releasedByThisCommit.append(page)
        }
    }

    /// Hands the final free-list state to the commit: pages freed within the transaction are
    /// reusable now, pages released by this commit wait for the pins (`Pager.commit`).
    func finishFreeList() -> (freeList: FreeList, releasedByThisCommit: [UInt32]) {
        var list = freeList
        list.addReusable(pages: freedDirty)
        freedDirty.removeAll()
        return (list, releasedByThisCommit)
    }

    /// Allocation for the free-list pages themselves, after `finishFreeList`: from `list`'s
    /// reusable pages or the file end, never from this commit's releases.
    func allocateFromList(_ list: inout FreeList) throws(StorageError) -> (
        page: UInt32, buffer: UnsafeMutableRawPointer
    ) {
        let page: UInt32
        if let free = list.takeLowest() {
            page = free
        } else {
            guard pageCount < Self.pageCountMax else {
                throw StorageError.valueTooLarge(reason: "the file would exceed \(Self.pageCountMax) pages")
            }
            page = pageCount
            pageCount += 1
        }
        let buffer =
            spareBuffers.popLast()
            ?? UnsafeMutableRawPointer.allocate(byteCount: pageSizeBytes, alignment: 64)
        memset(buffer, 0, pageSizeBytes)
        dirtyTable.pointee.insert(buffer, for: page)
        #if STRATA_CHECKS
            allocatedByThisWrite.insert(page)
        #endif
        return (page, buffer)
    }
}
