#if canImport(Glibc)
    import Glibc
#endif

extension TreeWriter {
    // MARK: deletion and rebalancing

    func rebalance(
        root: inout UInt32, leafPage: UInt32, leafBuffer: UnsafeMutableRawPointer,
        path: TreePath
    ) throws(StorageError) {
        var level = path.count
        var page = leafPage
        var buffer = leafBuffer
        while level > 0 {
            let node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
            if node.count > 0 && node.usedByteCount >= underflowByteCount { break }
            let parentBuffer = path.buffers[level - 1]
            let childIndex = path.childIndexes[level - 1]
            if node.isLeaf && node.count == 0 {
                try removeChild(parentBuffer, childIndex: childIndex)
                space.free(page)
                space.hooks.mark(.treeNodeMerge)
            } else {
                let stop = try rebalanceWithSibling(
                    root: &root, level: level, path: path, page: page, buffer: buffer,
                    parentBuffer: parentBuffer, childIndex: childIndex)
                if stop { break }
            }
            level -= 1
            page = path.pages[level]
            buffer = path.buffers[level]
        }
        try collapseRoot(root: &root)
    }

    /// Removes child `childIndex` (and the key that bounds it) from a branch.
    private func removeChild(_ parentBuffer: UnsafeMutableRawPointer, childIndex: Int) throws(StorageError) {
        if childIndex == 0 {
            let parent = NodeView(base: UnsafeRawPointer(parentBuffer), pageSizeBytes: pageSizeBytes)
            NodeEdit.setChild(parentBuffer, index: 0, ref: parent.childRef(1))
            try NodeEdit.remove(parentBuffer, pageSizeBytes: pageSizeBytes, index: 0)
        } else {
            try NodeEdit.remove(parentBuffer, pageSizeBytes: pageSizeBytes, index: childIndex - 1)
        }
    }

    /// Merges the node with a sibling, or moves entries between them. Returns true when the
    /// levels above need no further work.
    private func rebalanceWithSibling(
        root: inout UInt32, level: Int, path: TreePath, page: UInt32, buffer: UnsafeMutableRawPointer,
        parentBuffer: UnsafeMutableRawPointer, childIndex: Int
    ) throws(StorageError) -> Bool {
        let parent = NodeView(base: UnsafeRawPointer(parentBuffer), pageSizeBytes: pageSizeBytes)
        let siblingIndex = childIndex > 0 ? childIndex - 1 : childIndex + 1
        invariant(siblingIndex <= parent.count, "a branch has at least two children")
        let siblingChild = parent.childRef(siblingIndex)
        let (siblingPage, siblingBuffer) = try space.writable(siblingChild)
        if siblingPage != siblingChild.page {
            NodeEdit.setChild(parentBuffer, index: siblingIndex, ref: PageRef(page: siblingPage, expectation: .none))
        }
        let leftIsNode = childIndex < siblingIndex
        let leftBuffer = leftIsNode ? buffer : siblingBuffer
        let rightBuffer = leftIsNode ? siblingBuffer : buffer
        let rightPage = leftIsNode ? siblingPage : page
        let separatorIndex = min(childIndex, siblingIndex)

        memcpy(space.scratch, leftBuffer, pageSizeBytes)
        memcpy(space.scratch2, rightBuffer, pageSizeBytes)
        let left = NodeView(base: UnsafeRawPointer(space.scratch), pageSizeBytes: pageSizeBytes)
        let right = NodeView(base: UnsafeRawPointer(space.scratch2), pageSizeBytes: pageSizeBytes)
        guard left.isLeaf == right.isLeaf, left.hasByteKeys == byteKeys, right.hasByteKeys == byteKeys else {
            throw StorageError.corruptPage(page: PageNumber(rightPage), reason: "siblings of different kinds")
        }
        let isLeaf = left.isLeaf
        let parentSeparatorKey = Array(parent.cell(separatorIndex))
        let parentSeparatorImage = parent.keyImage(separatorIndex)

        var entries = space.entryScratch
        entries.removeAll(keepingCapacity: true)
        defer { space.entryScratch = entries }
        NodeEdit.entries(of: left, into: &entries)
        return try withBytes(parentSeparatorKey) { separatorCell throws(StorageError) -> Bool in
            if !isLeaf {
                entries.append(NodeEntry(image: parentSeparatorImage, child: right.childRef(0), cell: separatorCell))
            }
            NodeEdit.entries(of: right, into: &entries)
            let stride = isLeaf ? PageLayout.leafEntryStride : PageLayout.branchEntryStride
            let combined = PageLayout.entriesOffset + entries.reduce(0) { $0 + stride + $1.cell.count }
            let type: PageType = isLeaf ? .leaf : .branch
            if combined <= pageSizeBytes {
                try NodeEdit.build(
                    leftBuffer, pageSizeBytes: pageSizeBytes, type: type, byteKeys: byteKeys,
                    leftmostChild: isLeaf ? .none : left.childRef(0), entries: entries[...])
                try NodeEdit.remove(parentBuffer, pageSizeBytes: pageSizeBytes, index: separatorIndex)
                space.free(rightPage)
                space.hooks.mark(.treeNodeMerge)
                return false
            }
            // Redistribute: both halves get about half the bytes; the separator changes.
            let middle: Int
            let newSeparatorImage: UInt64
            let newSeparatorKey: [UInt8]
            if isLeaf {
                middle = splitPoint(entries, stride: stride, low: 1, high: entries.count - 1)
                newSeparatorImage = entries[middle].image
                newSeparatorKey = byteKeys ? Array(leafKey(entries[middle].cell)) : []
                try NodeEdit.build(
                    leftBuffer, pageSizeBytes: pageSizeBytes, type: .leaf, byteKeys: byteKeys,
                    leftmostChild: .none, entries: entries[0..<middle])
                try NodeEdit.build(
                    rightBuffer, pageSizeBytes: pageSizeBytes, type: .leaf, byteKeys: byteKeys,
                    leftmostChild: .none, entries: entries[middle...])
            } else {
                middle = splitPoint(entries, stride: stride, low: 1, high: entries.count - 2)
                let up = entries[middle]
                newSeparatorImage = up.image
                newSeparatorKey = Array(up.cell)
                try NodeEdit.build(
                    leftBuffer, pageSizeBytes: pageSizeBytes, type: .branch, byteKeys: byteKeys,
                    leftmostChild: left.childRef(0), entries: entries[0..<middle])
                try NodeEdit.build(
                    rightBuffer, pageSizeBytes: pageSizeBytes, type: .branch, byteKeys: byteKeys,
                    leftmostChild: up.child, entries: entries[(middle + 1)...])
            }
            space.hooks.mark(.treeNodeBorrow)
            try NodeEdit.remove(parentBuffer, pageSizeBytes: pageSizeBytes, index: separatorIndex)
            // The new separator may be longer than the old (byte keys): inserting it can split
            // the parent, which ends the rebalancing (both halves are then half full).
            try withBytes(newSeparatorKey) { key throws(StorageError) in
                _ = try insertEntry(
                    root: &root, level: level - 1, page: path.pages[level - 1],
                    buffer: parentBuffer, index: separatorIndex, image: newSeparatorImage,
                    child: PageRef(page: rightPage, expectation: .none), cell: key, allowAppendSplit: false, path: path)
            }
            return true
        }
    }

    /// Removes root levels that have a single child, and an empty root leaf.
    private func collapseRoot(root: inout UInt32) throws(StorageError) {
        var steps = 0
        while root != 0 && steps < TreeSearch.depthMax {
            steps += 1
            let node = try space.source.node(root)
            if node.isLeaf {
                if node.count == 0 {
                    space.free(root)
                    root = 0
                }
                return
            }
            guard node.count == 0 else { return }
            let only = node.childRef(0)
            // The only child becomes the root: its reference moves to the catalog, which reads
            // the expectation back from the page, so check it against the branch's first (D19).
            try space.checkCommitted(only)
            space.free(root)
            root = only.page
            space.hooks.mark(.treeRootCollapse)
        }
    }
}
