#if canImport(Glibc)
    import Glibc
#endif

/// How `TreeWriter.put` treats a key that already exists (or does not).
enum PutMode {
    /// Fails with `.keyExists` when the key exists.
    case insert
    /// Fails with `.keyMissing` when the key does not exist.
    case update
    /// Inserts or replaces.
    case upsert
}

enum PutOutcome: Equatable {
    case inserted
    case replaced
    case keyExists
    case keyMissing
}

/// Changes one B+tree by copy-on-write inside a write transaction.
///
/// Gives above: `put` and `remove` on a tree named by its root page (updated in place when the
/// root moves). Needs below: `WriteSpace` (private page copies, allocation, release).
///
/// Tree invariants kept (checked by `verify()`): keys strictly ascending within and across
/// nodes; every leaf at the same depth; branch entry i's key ≤ every key of child i + 1 and >
/// every key of child i; no empty node except an empty root leaf, which is then removed (root
/// 0 means an empty tree). Splits of the rightmost path put only the new entry in the new node,
/// so ascending inserts fill pages completely; deletes merge or rebalance nodes below a quarter
/// full, so insert/delete churn cannot grow the file without bound.
///
/// Descents are iterative with the path kept in a `TreePath` (no recursion). Merging and
/// rebalancing after a delete are in TreeWriter+Rebalance.swift.
///
/// Append path. Inserting keys in ascending order is the common bulk load, and each such
/// insert lands at the end of the rightmost leaf. A put that leaves its entry in a leaf on the
/// right edge without splitting records that leaf in `WriteSpace.appendHint`; the next put on
/// the same root whose key sorts after the leaf's last key and whose cell fits goes straight
/// into the leaf, with no descent. Why that is the same result as a descent:
/// 1. Every other `put`, every `remove` and `freeAll` (on any tree) clears the hint first, so
///    between the put that set it and its use only append-path inserts ran. Nothing else
///    changes tree pages: overflow pages are separate pages, and `allocate` never hands out a
///    dirty page, which the hinted root and leaf are.
/// 2. An append-path insert adds a largest key to the rightmost leaf without splitting: the
///    root, the path and the leaf's page number stay, so the leaf stays the rightmost.
/// 3. The descent for a key larger than every key of the rightmost leaf takes the last child
///    at every level (separators bound the keys on their right from below), and the lower
///    bound in that leaf is its end, with no equal key. So the append path inserts where a
///    descent would, and the key cannot exist (`.insert` and `.upsert` both insert).
/// 4. The write transaction owns the space, so commit and rollback end the hint with it.
/// Debug builds (`STRATA_CHECKS`) re-derive the rightmost leaf on every use and compare.
///
/// Generic over the space so that whole-module optimisation specialises it for the write
/// path's one conformer: no existential call per page.
struct TreeWriter<Space: PageAllocator> {
    let space: Space
    let byteKeys: Bool

    var pageSizeBytes: Int { space.pageSizeBytes }
    var underflowByteCount: Int { space.pageSizeBytes / 4 }

    /// Puts `cell` under `key`. `onOldCell` sees the old cell before it is replaced.
    func put(
        root: inout UInt32, key: SearchKey, cell: UnsafeRawBufferPointer, mode: PutMode,
        onOldCell: ((UnsafeRawBufferPointer) throws(StorageError) -> Void)? = nil
    ) throws(StorageError) -> PutOutcome {
        invariant(
            cell.count <= PageLayout.leafCellByteCountMax(pageSizeBytes: pageSizeBytes), "cells fit a quarter page")
        if mode != .update, let leafBuffer = appendLeaf(root: root, key: key, cellByteCount: cell.count) {
            let count = NodeView(base: UnsafeRawPointer(leafBuffer), pageSizeBytes: pageSizeBytes).count
            try NodeEdit.insert(
                leafBuffer, pageSizeBytes: pageSizeBytes, scratch: space.scratch, index: count,
                image: key.image, child: .none, cell: cell)
            space.hooks.mark(.treeAppendPath)
            return .inserted
        }
        space.appendHint.pointee = AppendHint()
        if root == 0 {
            if mode == .update { return .keyMissing }
            let (page, buffer) = try space.allocate()
            NodeEdit.initialise(
                buffer, pageSizeBytes: pageSizeBytes, type: .leaf, byteKeys: byteKeys, leftmostChild: .none)
            try NodeEdit.insert(
                buffer, pageSizeBytes: pageSizeBytes, scratch: space.scratch, index: 0,
                image: key.image, child: .none, cell: cell)
            root = page
            space.appendHint.pointee = AppendHint(root: page, leafPage: page, leafBuffer: buffer, byteKeys: byteKeys)
            return .inserted
        }
        if mode == .update, try TreeSearch.find(space.source, root: root, key: key) == nil {
            return .keyMissing
        }
        var path = space.takeTreePath()
        defer { space.returnTreePath(path) }
        let (leafPage, leafBuffer) = try descend(root: &root, key: key, path: &path)
        let leaf = NodeView(base: UnsafeRawPointer(leafBuffer), pageSizeBytes: pageSizeBytes)
        let (index, found) = TreeSearch.leafLowerBound(leaf, key)
        if found {
            if mode == .insert { return .keyExists }
            try onOldCell?(leaf.cell(index))
            try NodeEdit.remove(leafBuffer, pageSizeBytes: pageSizeBytes, index: index)
        } else if mode == .update {
            return .keyMissing
        }
        let inPlace = try insertEntry(
            root: &root, level: path.count, page: leafPage, buffer: leafBuffer,
            index: index, image: key.image, child: .none, cell: cell,
            allowAppendSplit: !found, path: path)
        if inPlace && onRightEdge(level: path.count, path: path) {
            space.appendHint.pointee = AppendHint(
                root: root, leafPage: leafPage, leafBuffer: leafBuffer, byteKeys: byteKeys)
        }
        return found ? .replaced : .inserted
    }

    /// Removes `key`; false when it is absent (nothing is copied then).
    func remove(
        root: inout UInt32, key: SearchKey,
        onOldCell: ((UnsafeRawBufferPointer) throws(StorageError) -> Void)? = nil
    ) throws(StorageError) -> Bool {
        space.appendHint.pointee = AppendHint()
        guard root != 0, try TreeSearch.find(space.source, root: root, key: key) != nil else { return false }
        var path = space.takeTreePath()
        defer { space.returnTreePath(path) }
        let (leafPage, leafBuffer) = try descend(root: &root, key: key, path: &path)
        let leaf = NodeView(base: UnsafeRawPointer(leafBuffer), pageSizeBytes: pageSizeBytes)
        let (index, found) = TreeSearch.leafLowerBound(leaf, key)
        invariant(found, "a key found before the descent is found after it")
        guard found else { return false }
        try onOldCell?(leaf.cell(index))
        try NodeEdit.remove(leafBuffer, pageSizeBytes: pageSizeBytes, index: index)
        try rebalance(root: &root, leafPage: leafPage, leafBuffer: leafBuffer, path: path)
        return true
    }

    /// Frees every page of the tree (dropping a table). Each committed child is checked
    /// against what its parent expects before it is freed (Spec D19): a stale branch names pages
    /// of an older version, which may belong to other trees now, and freeing them would turn one
    /// detected lost write into damage elsewhere. The caller checks the root against the catalog.
    func freeAll(root: UInt32) throws(StorageError) {
        space.appendHint.pointee = AppendHint()
        guard root != 0 else { return }
        var stack: [(page: UInt32, depth: Int)] = [(root, 0)]
        while let (page, depth) = stack.popLast() {
            guard depth < TreeSearch.depthMax else {
                throw StorageError.corruptPage(
                    page: PageNumber(page), reason: "tree deeper than \(TreeSearch.depthMax)")
            }
            let node = try space.source.node(page)
            if !node.isLeaf {
                for child in 0...node.count {
                    _ = try space.source.child(of: node, child)
                    stack.append((node.child(child), depth + 1))
                }
            }
            space.free(page)
        }
    }

    // MARK: append path

    /// The remembered rightmost leaf of the tree at `root` when a key sorting after all its
    /// keys, with a cell of `cellByteCount` bytes, can go at its end (see the type's doc).
    @inline(__always)
    private func appendLeaf(root: UInt32, key: SearchKey, cellByteCount: Int) -> UnsafeMutableRawPointer? {
        let hint = space.appendHint.pointee
        guard root != 0, hint.root == root, hint.byteKeys == byteKeys, let buffer = hint.leafBuffer else { return nil }
        let leaf = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
        let count = leaf.count
        guard count > 0, TreeSearch.compare(leaf, count - 1, key) < 0,
            NodeEdit.fits(leaf, cellLength: cellByteCount)
        else { return nil }
        #if STRATA_CHECKS
            checkAppendHint(hint)
        #endif
        return buffer
    }

    #if STRATA_CHECKS
        /// The hinted leaf is the rightmost leaf of the tree at `hint.root`, and every page on the
        /// way is this transaction's own copy.
        private func checkAppendHint(_ hint: AppendHint) {
            var page = hint.root
            var depth = 0
            while depth < TreeSearch.depthMax {
                guard let buffer = space.dirtyBuffer(page) else {
                    invariant(false, "the append path's pages are dirty")
                    return
                }
                let node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
                if node.isLeaf {
                    invariant(
                        page == hint.leafPage && buffer == hint.leafBuffer, "the hinted leaf is the rightmost leaf")
                    return
                }
                page = node.child(node.count)
                depth += 1
            }
            invariant(false, "the append path's tree is shallower than depthMax")
        }
    #endif

    // MARK: descent

    /// Makes the path from the root to the leaf for `key` writable, recording the ancestors
    /// in `path` (index 0 is the root). Returns the leaf.
    private func descend(root: inout UInt32, key: SearchKey, path: inout TreePath) throws(StorageError) -> (
        UInt32, UnsafeMutableRawPointer
    ) {
        path.removeAll()
        var (page, buffer) = try space.writable(root)
        root = page
        try checkKind(buffer, page: page)
        while true {
            let node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
            if node.isLeaf { return (page, buffer) }
            guard path.count < TreeSearch.depthMax else {
                throw StorageError.corruptPage(
                    page: PageNumber(page), reason: "tree deeper than \(TreeSearch.depthMax)")
            }
            let childIndex = TreeSearch.branchChildIndex(node, key)
            let child = node.childRef(childIndex)
            let (childPage, childBuffer) = try space.writable(child)
            if childPage != child.page {
                NodeEdit.setChild(buffer, index: childIndex, ref: PageRef(page: childPage, expectation: .none))
            }
            path.append(page: page, buffer: buffer, childIndex: childIndex)
            page = childPage
            buffer = childBuffer
            try checkKind(buffer, page: page)
        }
    }

    private func checkKind(_ buffer: UnsafeMutableRawPointer, page: UInt32) throws(StorageError) {
        let node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
        guard node.hasByteKeys == byteKeys else {
            throw StorageError.corruptPage(page: PageNumber(page), reason: "node of the wrong key kind")
        }
    }

    /// True when every ancestor on the path took its last child (the node is the rightmost).
    private func onRightEdge(level: Int, path: TreePath) -> Bool {
        for ancestor in 0..<level {
            let node = NodeView(base: UnsafeRawPointer(path.buffers[ancestor]), pageSizeBytes: pageSizeBytes)
            if path.childIndexes[ancestor] != node.count { return false }
        }
        return true
    }

    // MARK: insertion and splits

    /// Inserts an entry into the node at `level` (its ancestors are `path[0..<level]`),
    /// splitting it, and its ancestors, as needed. Returns true when the node at `level` took
    /// the entry without a split (so the path is unchanged).
    @discardableResult
    func insertEntry(
        root: inout UInt32, level startLevel: Int, page startPage: UInt32,
        buffer startBuffer: UnsafeMutableRawPointer, index startIndex: Int,
        image startImage: UInt64, child startChild: PageRef,
        cell startCell: UnsafeRawBufferPointer, allowAppendSplit: Bool,
        path: TreePath
    ) throws(StorageError) -> Bool {
        var level = startLevel
        var page = startPage
        var buffer = startBuffer
        var index = startIndex
        var image = startImage
        var child = startChild
        var cell = startCell
        // Holds the separator carried up from a split; allocated only when a split happens.
        var separatorBuffer: UnsafeMutableRawBufferPointer?
        defer { separatorBuffer?.deallocate() }
        while true {
            let node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
            if NodeEdit.fits(node, cellLength: cell.count) {
                try NodeEdit.insert(
                    buffer, pageSizeBytes: pageSizeBytes, scratch: space.scratch, index: index,
                    image: image, child: child, cell: cell)
                return level == startLevel
            }
            let append = allowAppendSplit && index == node.count && onRightEdge(level: level, path: path)
            let split = try splitNode(buffer, index: index, image: image, child: child, cell: cell, append: append)
            if level == 0 {
                let (newRoot, rootBuffer) = try space.allocate()
                NodeEdit.initialise(
                    rootBuffer, pageSizeBytes: pageSizeBytes, type: .branch, byteKeys: byteKeys,
                    leftmostChild: PageRef(page: page, expectation: .none))
                try withBytes(split.separatorKey) { key throws(StorageError) in
                    try NodeEdit.insert(
                        rootBuffer, pageSizeBytes: pageSizeBytes, scratch: space.scratch, index: 0,
                        image: split.separatorImage, child: PageRef(page: split.rightPage, expectation: .none),
                        cell: key)
                }
                root = newRoot
                space.hooks.mark(.treeRootSplit)
                return false
            }
            level -= 1
            page = path.pages[level]
            buffer = path.buffers[level]
            index = path.childIndexes[level]
            image = split.separatorImage
            child = PageRef(page: split.rightPage, expectation: .none)
            // `splitNode` has consumed the previous `cell`, so the buffer can be reused.
            let keyBuffer =
                separatorBuffer
                ?? UnsafeMutableRawBufferPointer.allocate(byteCount: pageSizeBytes, alignment: 8)
            separatorBuffer = keyBuffer
            keyBuffer.copyBytes(from: split.separatorKey)
            cell = UnsafeRawBufferPointer(rebasing: keyBuffer[0..<split.separatorKey.count])
        }
    }

    private struct Split {
        let rightPage: UInt32
        let separatorImage: UInt64
        /// The separator's full key (byte-keyed trees) or empty.
        let separatorKey: [UInt8]
    }

    /// Splits the full node in `buffer` while inserting one entry at `index`.
    private func splitNode(
        _ buffer: UnsafeMutableRawPointer, index: Int, image: UInt64, child: PageRef,
        cell: UnsafeRawBufferPointer, append: Bool
    ) throws(StorageError) -> Split {
        if append {
            let node = NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: pageSizeBytes)
            if node.isLeaf {
                // An append split of a leaf keeps every old entry on the left and puts only the
                // new one on the right: the left node stays as it is, no rebuild.
                invariant(index == node.count, "an append split adds the last entry")
                let (right, rightBuffer) = try space.allocate()
                NodeEdit.initialise(
                    rightBuffer, pageSizeBytes: pageSizeBytes, type: .leaf, byteKeys: byteKeys,
                    leftmostChild: .none)
                try NodeEdit.insert(
                    rightBuffer, pageSizeBytes: pageSizeBytes, scratch: space.scratch, index: 0,
                    image: image, child: child, cell: cell)
                let separatorKey = byteKeys ? Array(leafKey(cell)) : []
                return Split(rightPage: right, separatorImage: image, separatorKey: separatorKey)
            }
        }
        memcpy(space.scratch, buffer, pageSizeBytes)
        let old = NodeView(base: UnsafeRawPointer(space.scratch), pageSizeBytes: pageSizeBytes)
        var entries = space.entryScratch
        entries.removeAll(keepingCapacity: true)
        NodeEdit.entries(of: old, into: &entries)
        entries.insert(NodeEntry(image: image, child: child, cell: cell), at: index)
        defer { space.entryScratch = entries }
        let (right, rightBuffer) = try space.allocate()
        if old.isLeaf {
            let middle =
                append
                ? entries.count - 1
                : splitPoint(entries, stride: PageLayout.leafEntryStride, low: 1, high: entries.count - 1)
            var rightStart = middle
            if space.hooks.has(.treeSplitOffByOne) && entries.count - middle >= 2 { rightStart += 1 }
            let separatorKey = byteKeys ? Array(leafKey(entries[middle].cell)) : []
            try NodeEdit.build(
                buffer, pageSizeBytes: pageSizeBytes, type: .leaf, byteKeys: byteKeys,
                leftmostChild: .none, entries: entries[0..<middle])
            try NodeEdit.build(
                rightBuffer, pageSizeBytes: pageSizeBytes, type: .leaf, byteKeys: byteKeys,
                leftmostChild: .none, entries: entries[rightStart...])
            return Split(rightPage: right, separatorImage: entries[middle].image, separatorKey: separatorKey)
        }
        // Branch: the middle entry moves up; its child becomes the right node's leftmost child.
        let middle =
            append
            ? entries.count - 2
            : splitPoint(entries, stride: PageLayout.branchEntryStride, low: 1, high: entries.count - 2)
        let up = entries[middle]
        let separatorKey = Array(up.cell)
        try NodeEdit.build(
            buffer, pageSizeBytes: pageSizeBytes, type: .branch, byteKeys: byteKeys,
            leftmostChild: old.childRef(0), entries: entries[0..<middle])
        try NodeEdit.build(
            rightBuffer, pageSizeBytes: pageSizeBytes, type: .branch, byteKeys: byteKeys,
            leftmostChild: up.child, entries: entries[(middle + 1)...])
        return Split(rightPage: right, separatorImage: up.image, separatorKey: separatorKey)
    }

    /// The index that splits `entries` into two halves of about equal bytes, in [low, high].
    func splitPoint(_ entries: [NodeEntry], stride: Int, low: Int, high: Int) -> Int {
        let total = entries.reduce(0) { $0 + stride + $1.cell.count }
        var accumulated = 0
        var index = 0
        while index < entries.count {
            let size = stride + entries[index].cell.count
            if accumulated + size / 2 >= total / 2 { break }
            accumulated += size
            index += 1
        }
        return max(low, min(high, index))
    }

    /// The key part of a byte-keyed leaf cell.
    func leafKey(_ cell: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let (length, header) = decodeCellKeyLength(cell)
        return UnsafeRawBufferPointer(rebasing: cell[header..<(header + length)])
    }
}

/// The rightmost leaf a put left behind, for `TreeWriter`'s append path. Root 0: none.
struct AppendHint {
    var root: UInt32 = 0
    var leafPage: UInt32 = 0
    var leafBuffer: UnsafeMutableRawPointer?
    var byteKeys = false
}

/// The ancestors of the node a put or remove works on, root first: each one's page, its
/// writable buffer, and the child index the descent took.
///
/// A value threaded through `TreeWriter`'s helpers rather than arrays stored in the class
/// `WriteSpace`: every access to a class's stored array costs a dynamic exclusivity check and
/// a uniqueness check, several per tree level and insert. `WriteSpace` keeps one spare path
/// so its capacity is reused.
struct TreePath {
    private(set) var pages: [UInt32] = []
    private(set) var buffers: [UnsafeMutableRawPointer] = []
    private(set) var childIndexes: [Int] = []

    var count: Int { pages.count }

    /// Empties the path, keeping capacity. (`removeLast(_:)` rather than
    /// `removeAll(keepingCapacity:)`, which goes through the general `replaceSubrange`.)
    mutating func removeAll() {
        let count = pages.count
        guard count > 0 else { return }
        pages.removeLast(count)
        buffers.removeLast(count)
        childIndexes.removeLast(count)
    }

    mutating func append(page: UInt32, buffer: UnsafeMutableRawPointer, childIndex: Int) {
        pages.append(page)
        buffers.append(buffer)
        childIndexes.append(childIndex)
        invariant(pages.count == buffers.count && buffers.count == childIndexes.count, "path arrays in step")
    }
}
