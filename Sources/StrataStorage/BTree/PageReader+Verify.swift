/// The checks `PageReader` promises (see its declaration in Page/PageReader.swift). They sit
/// with the tree code because a tree node is verified by its structure (`NodeValidation`) and
/// handed out as a `NodeView`; the page layer below knows neither.
extension PageReader: PageSource {
    /// The raw bytes of a page that passed the checks `PageReader` promises (any type).
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
            throw StorageError.pageFromTheFuture(
                page: PageNumber(number), pageVersion: version, readVersion: readVersion)
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
