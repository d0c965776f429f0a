/// Searching a B+tree without changing it: point lookups and the in-node binary searches the
/// writer shares. Iterative (no recursion, Docs/style.md rule 9) and bounded by `depthMax`, so a
/// corrupt file with a cycle of child pointers ends in an error, not a hang.
enum TreeSearch {
    /// No tree deeper than this can exist: even 4 KiB pages with 4 entries each would need
    /// more pages than a 32-bit page number can name.
    static let depthMax = 32

    /// Compares entry `index` of `node` with `key`: negative when the entry sorts first.
    @inline(__always)
    static func compare(_ node: NodeView, _ index: Int, _ key: SearchKey) -> Int {
        let image = node.keyImage(index)
        if image != key.image { return image < key.image ? -1 : 1 }
        if key.kind == .int { return 0 }
        return compareBytes(node.fullKey(index), key.bytes)
    }

    /// The first leaf entry not less than `key`, and whether it equals `key`.
    @inline(__always)
    static func leafLowerBound(_ node: NodeView, _ key: SearchKey) -> (index: Int, found: Bool) {
        var low = 0
        var high = node.count
        if key.kind == .int {
            while low < high {
                let middle = (low &+ high) >> 1
                if node.keyImage(middle) < key.image { low = middle + 1 } else { high = middle }
            }
            return (low, low < node.count && node.keyImage(low) == key.image)
        }
        while low < high {
            let middle = (low &+ high) >> 1
            if compare(node, middle, key) < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, low < node.count && compare(node, low, key) == 0)
    }

    /// The child of a branch whose subtree holds `key`: the number of entries ≤ `key`.
    @inline(__always)
    static func branchChildIndex(_ node: NodeView, _ key: SearchKey) -> Int {
        var low = 0
        var high = node.count
        if key.kind == .int {
            while low < high {
                let middle = (low &+ high) >> 1
                if node.keyImage(middle) <= key.image { low = middle + 1 } else { high = middle }
            }
            return low
        }
        while low < high {
            let middle = (low &+ high) >> 1
            if compare(node, middle, key) <= 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The leaf node and entry index holding `key`, or nil.
    @inline(__always)
    static func find<S: PageSource>(_ source: S, root: UInt32, key: SearchKey) throws(StorageError) -> (
        node: NodeView, index: Int
    )? {
        guard root != 0 else { return nil }
        var node = try source.node(root)
        var depth = 0
        while !node.isLeaf {
            depth += 1
            guard depth < depthMax else {
                throw StorageError.corruptPage(page: PageNumber(root), reason: "tree deeper than \(depthMax)")
            }
            node = try source.child(of: node, branchChildIndex(node, key))
        }
        let (index, found) = leafLowerBound(node, key)
        return found ? (node, index) : nil
    }
}

/// An ordered position in a tree: the path from the root to one leaf entry. Used for range
/// scans; moves forward only. The nodes it holds stay valid while the version is pinned.
struct TreeCursor<Source: PageSource> {
    private let source: Source
    private var nodes: [NodeView] = []
    private var indexes: [Int] = []
    /// True while the cursor is on an entry.
    private(set) var isValid = false

    init(source: Source) {
        self.source = source
        nodes.reserveCapacity(8)
        indexes.reserveCapacity(8)
    }

    var leaf: NodeView { nodes[nodes.count - 1] }
    var index: Int { indexes[indexes.count - 1] }

    /// Positions on the first entry ≥ `key` (or the first entry when `key` is nil).
    mutating func seek(root: UInt32, atLeast key: SearchKey?) throws(StorageError) {
        nodes.removeAll(keepingCapacity: true)
        indexes.removeAll(keepingCapacity: true)
        isValid = false
        guard root != 0 else { return }
        var node = try source.node(root)
        while !node.isLeaf {
            guard nodes.count < TreeSearch.depthMax else {
                throw StorageError.corruptPage(
                    page: PageNumber(root), reason: "tree deeper than \(TreeSearch.depthMax)")
            }
            let childIndex = key.map { TreeSearch.branchChildIndex(node, $0) } ?? 0
            nodes.append(node)
            indexes.append(childIndex)
            node = try source.child(of: node, childIndex)
        }
        let start = key.map { TreeSearch.leafLowerBound(node, $0).index } ?? 0
        nodes.append(node)
        indexes.append(start)
        if start < node.count {
            isValid = true
        } else {
            try advanceLeaf()
        }
    }

    /// Moves to the next entry; false at the end.
    @discardableResult
    mutating func next() throws(StorageError) -> Bool {
        guard isValid else { return false }
        let last = indexes.count - 1
        indexes[last] += 1
        if indexes[last] < nodes[last].count { return true }
        try advanceLeaf()
        return isValid
    }

    /// Moves to the first entry of the next leaf (skipping the rest of this one); false at
    /// the end. Scans that walk a leaf's entries themselves use this to move on.
    @discardableResult
    mutating func nextLeaf() throws(StorageError) -> Bool {
        guard isValid else { return false }
        try advanceLeaf()
        return isValid
    }

    /// Steps past the end of the current leaf to the first entry of the next non-empty leaf.
    private mutating func advanceLeaf() throws(StorageError) {
        // Pop finished levels.
        while true {
            nodes.removeLast()
            indexes.removeLast()
            guard let parentLast = nodes.indices.last else {
                isValid = false
                return
            }
            indexes[parentLast] += 1
            if indexes[parentLast] <= nodes[parentLast].count { break }
        }
        // Descend leftmost.
        var node = try source.child(of: nodes[nodes.count - 1], indexes[indexes.count - 1])
        while !node.isLeaf {
            guard nodes.count < TreeSearch.depthMax else {
                throw StorageError.corruptPage(page: .header, reason: "tree deeper than \(TreeSearch.depthMax)")
            }
            nodes.append(node)
            indexes.append(0)
            node = try source.child(of: node, 0)
        }
        nodes.append(node)
        indexes.append(0)
        if node.count == 0 {
            // Only an empty root leaf may be empty; a non-root empty leaf is corrupt.
            throw StorageError.corruptPage(page: .header, reason: "empty non-root leaf")
        }
        isValid = true
    }
}
