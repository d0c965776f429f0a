/// What the tree and record code need of a write's pages (Pager/WriteSpace.swift conforms):
/// private copies of committed pages (copy-on-write), new and freed pages, the write's view of
/// its pages, and scratch memory reused across operations.
///
/// The code using it is generic over the conformer (`TreeWriter<Space>`,
/// `OverflowChain.write`, `RowCodec.encode`), not existential: whole-module optimisation
/// specialises it for the write path's one space, so the hot paths make direct calls, as when
/// they named the space's class.
protocol PageAllocator: AnyObject {
    var pageSizeBytes: Int { get }
    /// The version the write creates: what its pages are sealed with.
    var newVersion: Version { get }
    var hooks: EngineHooks { get }
    /// The pages as the write sees them: its dirty copies first, committed pages otherwise.
    var source: WritePages { get }
    /// The rightmost leaf the latest tree put left behind (`TreeWriter`'s append path); only
    /// `TreeWriter` touches it.
    var appendHint: UnsafeMutablePointer<AppendHint> { get }
    /// Two pages of scratch for node rebuilds.
    var scratch: UnsafeMutableRawPointer { get }
    var scratch2: UnsafeMutableRawPointer { get }
    /// Entry storage for node rebuilds, kept so its capacity is reused.
    var entryScratch: [NodeEntry] { get set }

    /// The buffer of `page` if the write made it dirty.
    func dirtyBuffer(_ page: UInt32) -> UnsafeMutableRawPointer?
    /// A private, modifiable copy of the page `ref` names, possibly under a new number; a
    /// committed page must be the one the reference expects (Spec D19).
    func writable(_ ref: PageRef) throws(StorageError) -> (page: UInt32, buffer: UnsafeMutableRawPointer)
    /// A private copy of a root (whose expectation was checked when it was loaded).
    func writable(_ page: UInt32) throws(StorageError) -> (page: UInt32, buffer: UnsafeMutableRawPointer)
    /// Checks that a committed page is the one `ref` expects (dirty pages pass).
    func checkCommitted(_ ref: PageRef) throws(StorageError)
    /// A new page with a zeroed header.
    func allocate() throws(StorageError) -> (page: UInt32, buffer: UnsafeMutableRawPointer)
    /// Releases `page`: at once if this write allocated it, else at commit.
    func free(_ page: UInt32)
    /// The spare `TreePath` (its capacity reused); give it back with `returnTreePath`.
    func takeTreePath() -> TreePath
    func returnTreePath(_ path: TreePath)
}
