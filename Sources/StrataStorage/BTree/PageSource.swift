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

/// Pages as a write transaction sees them: its dirty copies first, committed pages otherwise.
/// Holds the write's dirty-page table itself (owned by its `PageAllocator`, which outlives
/// every view of its pages), so a lookup costs no reference counting and no class access.
struct WritePages: PageSource {
    let reader: PageReader
    let dirty: UnsafeMutablePointer<DirtyPageTable>

    var pageSizeBytes: Int { reader.pageSizeBytes }

    @inline(__always)
    func node(_ page: UInt32) throws(StorageError) -> NodeView {
        if let buffer = dirty.pointee[page] {
            return NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: reader.pageSizeBytes)
        }
        return try reader.node(page)
    }

    /// Child `index` of `parent`; a committed child must be the page the parent expects.
    @inline(__always)
    func child(of parent: NodeView, _ index: Int) throws(StorageError) -> NodeView {
        let page = parent.child(index)
        if let buffer = dirty.pointee[page] {
            return NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: reader.pageSizeBytes)
        }
        return try reader.child(of: parent, index)
    }

    func page(_ page: UInt32, type: PageType) throws(StorageError) -> UnsafeRawPointer {
        if let buffer = dirty.pointee[page] { return UnsafeRawPointer(buffer) }
        return try reader.page(page, type: type)
    }

    func page(_ ref: PageRef, type: PageType) throws(StorageError) -> UnsafeRawPointer {
        if let buffer = dirty.pointee[ref.page] { return UnsafeRawPointer(buffer) }
        return try reader.page(ref, type: type)
    }
}
