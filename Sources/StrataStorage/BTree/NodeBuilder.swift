#if canImport(Glibc)
    import Glibc
#endif

/// One entry while nodes are being rebuilt: its key image, its child (branches), and its cell
/// bytes, which point into a scratch copy or a caller's buffer that outlives the rebuild.
struct NodeEntry {
    var image: UInt64
    /// Branches: the child and what this node expects of it (Spec D19); leaves: `.none`.
    var child: PageRef
    var cell: UnsafeRawBufferPointer
}

/// In-place edits of a dirty node buffer. Callers check that the edit fits first
/// (`fits(...)`). Every length that reaches `memmove` or `memset` is checked here in every
/// build, not only by `invariant` (compiled out in release): a node whose entries and cells
/// overlap (an engine bug, or damage that got past `NodeValidation`) throws
/// `StorageError.corruptPage` (Spec D8) instead of handing the C library a negative or oversized
/// length.
/// The checks are integer comparisons on the edit's own path.
enum NodeEdit {
    /// Throws unless `condition` holds: the node in `buffer` is not what an edit may work on.
    @inline(__always)
    static func check(_ condition: Bool, _ buffer: UnsafeRawPointer, _ what: @autoclosure () -> String)
        throws(StorageError)
    {
        guard condition else {
            // The page number the node's header carries (the page it was read from).
            throw StorageError.corruptPage(
                page: PageNumber(loadUInt32(buffer, PageLayout.pageNumberOffset)),
                reason: "a node being edited \(what())")
        }
    }

    static func initialise(
        _ buffer: UnsafeMutableRawPointer, pageSizeBytes: Int, type: PageType,
        byteKeys: Bool, leftmostChild: PageRef
    ) {
        buffer.storeBytes(of: type.rawValue, toByteOffset: PageLayout.typeOffset, as: UInt8.self)
        buffer.storeBytes(of: byteKeys ? NodeFlags.byteKeys : 0, toByteOffset: PageLayout.flagsOffset, as: UInt8.self)
        storeUInt16(buffer, PageLayout.countOffset, 0)
        storeUInt32(buffer, PageLayout.linkOffset, leftmostChild.page)
        storeUInt16(buffer, PageLayout.cellStartOffset, UInt16(truncatingIfNeeded: pageSizeBytes))
        storeUInt16(buffer, PageLayout.deadBytesOffset, 0)
        leftmostChild.expectation.store(buffer, PageLayout.leftmostExpectationOffset)
    }

    /// Builds a node from `entries`, cells packed at the page end, unused bytes zeroed.
    static func build(
        _ buffer: UnsafeMutableRawPointer, pageSizeBytes: Int, type: PageType,
        byteKeys: Bool, leftmostChild: PageRef, entries: ArraySlice<NodeEntry>
    ) throws(StorageError) {
        initialise(buffer, pageSizeBytes: pageSizeBytes, type: type, byteKeys: byteKeys, leftmostChild: leftmostChild)
        let stride = type == .leaf ? PageLayout.leafEntryStride : PageLayout.branchEntryStride
        var cellStart = pageSizeBytes
        var index = 0
        for entry in entries {
            cellStart -= entry.cell.count
            try check(
                cellStart >= PageLayout.entriesOffset + (index + 1) * stride, buffer,
                "does not fit its page: \(entries.count) entries")
            if entry.cell.count > 0, let source = entry.cell.baseAddress {
                memmove(buffer + cellStart, source, entry.cell.count)
            }
            writeEntry(
                buffer, index: index, stride: stride, image: entry.image, child: entry.child,
                cellOffset: cellStart, cellLength: entry.cell.count)
            index += 1
        }
        let entriesEnd = PageLayout.entriesOffset + index * stride
        invariant(entriesEnd <= cellStart, "a built node fits its page")
        try check(
            entriesEnd <= cellStart, buffer,
            "does not fit its page: entries end at \(entriesEnd), cells start at \(cellStart)")
        memset(buffer + entriesEnd, 0, cellStart - entriesEnd)
        storeUInt16(buffer, PageLayout.countOffset, UInt16(index))
        storeUInt16(buffer, PageLayout.cellStartOffset, UInt16(truncatingIfNeeded: cellStart))
    }

    @inline(__always)
    static func writeEntry(
        _ buffer: UnsafeMutableRawPointer, index: Int, stride: Int, image: UInt64,
        child: PageRef, cellOffset: Int, cellLength: Int
    ) {
        let at = PageLayout.entriesOffset + index * stride
        storeUInt64(buffer, at, image)
        if stride == PageLayout.branchEntryStride {
            storeUInt32(buffer, at + PageLayout.branchChildOffset, child.page)
            child.expectation.store(buffer, at + PageLayout.branchExpectationOffset)
        }
        storeUInt16(buffer, at + stride - 4, UInt16(truncatingIfNeeded: cellOffset))
        storeUInt16(buffer, at + stride - 2, UInt16(truncatingIfNeeded: cellLength))
    }

    /// Whether an entry with a cell of `cellLength` bytes fits, possibly after compaction.
    static func fits(_ node: NodeView, cellLength: Int) -> Bool {
        node.gapByteCount + node.deadBytes >= node.stride + cellLength
    }

    /// Inserts an entry at `index`, compacting first if the free gap is too small.
    /// Precondition: `fits(node, cellLength: cell.count)`.
    static func insert(
        _ buffer: UnsafeMutableRawPointer, pageSizeBytes: Int, scratch: UnsafeMutableRawPointer,
        index: Int, image: UInt64, child: PageRef, cell: UnsafeRawBufferPointer
    ) throws(StorageError) {
        var node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
        let stride = node.stride
        try checkShape(node, buffer, pageSizeBytes: pageSizeBytes)
        if node.gapByteCount < stride + cell.count {
            try compact(buffer, pageSizeBytes: pageSizeBytes, scratch: scratch)
            node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
        }
        invariant(node.gapByteCount >= stride + cell.count, "insert only where it fits")
        let count = node.count
        try check(
            node.gapByteCount >= stride + cell.count && index >= 0 && index <= count, buffer,
            "has no room for entry \(index) of \(count) with a \(cell.count)-byte cell")
        let at = PageLayout.entriesOffset + index * stride
        if index < count {
            memmove(buffer + at + stride, buffer + at, (count - index) * stride)
        }
        let cellStart = node.cellStart - cell.count
        if cell.count > 0, let source = cell.baseAddress { memmove(buffer + cellStart, source, cell.count) }
        writeEntry(
            buffer, index: index, stride: stride, image: image, child: child,
            cellOffset: cellStart, cellLength: cell.count)
        storeUInt16(buffer, PageLayout.countOffset, UInt16(count + 1))
        storeUInt16(buffer, PageLayout.cellStartOffset, UInt16(truncatingIfNeeded: cellStart))
    }

    /// Removes entry `index`; its cell becomes dead space.
    static func remove(_ buffer: UnsafeMutableRawPointer, pageSizeBytes: Int, index: Int) throws(StorageError) {
        let node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
        let stride = node.stride
        let count = node.count
        invariant(index >= 0 && index < count, "remove an existing entry")
        try checkShape(node, buffer, pageSizeBytes: pageSizeBytes)
        try check(index >= 0 && index < count, buffer, "has no entry \(index) of \(count) to remove")
        let cellOffset = node.cellOffset(index)
        let cellLength = node.cellLength(index)
        try check(
            cellOffset >= node.cellStart && cellOffset + cellLength <= pageSizeBytes, buffer,
            "has entry \(index)'s cell outside its cell area")
        let at = PageLayout.entriesOffset + index * stride
        if index + 1 < count {
            memmove(buffer + at, buffer + at + stride, (count - index - 1) * stride)
        }
        memset(buffer + PageLayout.entriesOffset + (count - 1) * stride, 0, stride)
        storeUInt16(buffer, PageLayout.countOffset, UInt16(count - 1))
        if cellOffset == node.cellStart {
            // The lowest cell: give its bytes straight back to the gap.
            memset(buffer + cellOffset, 0, cellLength)
            storeUInt16(buffer, PageLayout.cellStartOffset, UInt16(truncatingIfNeeded: cellOffset + cellLength))
        } else {
            storeUInt16(buffer, PageLayout.deadBytesOffset, UInt16(node.deadBytes + cellLength))
        }
    }

    /// Rewrites the node with its cells packed, reclaiming dead bytes.
    static func compact(_ buffer: UnsafeMutableRawPointer, pageSizeBytes: Int, scratch: UnsafeMutableRawPointer)
        throws(StorageError)
    {
        memcpy(scratch, buffer, pageSizeBytes)
        let old = NodeView(base: UnsafeRawPointer(scratch), pageSizeBytes: pageSizeBytes)
        var entries: [NodeEntry] = []
        entries.reserveCapacity(old.count)
        for index in 0..<old.count {
            entries.append(
                NodeEntry(
                    image: old.keyImage(index),
                    child: old.isLeaf ? .none : old.childRef(index + 1),
                    cell: old.cell(index)))
        }
        try checkShape(old, buffer, pageSizeBytes: pageSizeBytes)
        for index in 0..<old.count {
            let offset = old.cellOffset(index)
            try check(
                offset >= old.cellStart && offset + old.cellLength(index) <= pageSizeBytes, buffer,
                "has entry \(index)'s cell outside its cell area")
        }
        try build(
            buffer, pageSizeBytes: pageSizeBytes, type: old.isLeaf ? .leaf : .branch,
            byteKeys: old.hasByteKeys, leftmostChild: old.isLeaf ? .none : old.childRef(0), entries: entries[...])
    }

    /// The header's lengths agree with each other and the page: entries end before the cells,
    /// the cells end at the page's end.
    static func checkShape(_ node: NodeView, _ buffer: UnsafeRawPointer, pageSizeBytes: Int) throws(StorageError) {
        let entriesEnd = PageLayout.entriesOffset + node.count * node.stride
        try check(
            entriesEnd <= node.cellStart && node.cellStart <= pageSizeBytes, buffer,
            "has entries ending at \(entriesEnd) past its cells' start \(node.cellStart)")
    }

    /// Sets child `index` of a branch. A child this transaction copied gets `.none` as its
    /// expectation, which the commit fills in when it seals the child (Spec D19); a committed
    /// child moved from elsewhere keeps the expectation its old parent held.
    static func setChild(_ buffer: UnsafeMutableRawPointer, index: Int, ref: PageRef) {
        if index == 0 {
            storeUInt32(buffer, PageLayout.linkOffset, ref.page)
            ref.expectation.store(buffer, PageLayout.leftmostExpectationOffset)
        } else {
            let at = PageLayout.entriesOffset + (index - 1) * PageLayout.branchEntryStride
            storeUInt32(buffer, at + PageLayout.branchChildOffset, ref.page)
            ref.expectation.store(buffer, at + PageLayout.branchExpectationOffset)
        }
    }

    /// Records what a branch expects of child `index`, sealed by this commit.
    static func setChildExpectation(_ buffer: UnsafeMutableRawPointer, index: Int, _ expectation: PageExpectation) {
        let at =
            index == 0
            ? PageLayout.leftmostExpectationOffset
            : PageLayout.entriesOffset + (index - 1) * PageLayout.branchEntryStride + PageLayout.branchExpectationOffset
        expectation.store(buffer, at)
    }

    /// The entries of `node` (which must not change while the result is used).
    static func entries(of node: NodeView, into result: inout [NodeEntry]) {
        for index in 0..<node.count {
            result.append(
                NodeEntry(
                    image: node.keyImage(index),
                    child: node.isLeaf ? .none : node.childRef(index + 1),
                    cell: node.cell(index)))
        }
    }
}
