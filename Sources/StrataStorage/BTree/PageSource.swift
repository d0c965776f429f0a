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
