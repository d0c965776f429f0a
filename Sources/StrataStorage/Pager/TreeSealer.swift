/// Seals a commit's dirty tree pages bottom-up (Spec D19): a branch is sealed only after its
/// dirty children, and records each one's final checksum and version. Committed (clean)
/// children keep the expectation their parent already holds: the tree writer carries it with
/// the child through every split, merge and move. Iterative (Docs/style.md rule 9).
struct TreeSealer {
    let space: WriteSpace
    /// Pages sealed so far.
    var sealed = Set<UInt32>()

    init(space: WriteSpace) { self.space = space }

    /// Seals the dirty part of the tree at `root` and returns what a reference to the root
    /// must expect. A committed root is the page its reference was checked against (when the
    /// catalog was loaded, or by `TreeWriter` when a collapse promoted it), so its own header
    /// is its expectation.
    mutating func seal(root: UInt32) throws(StorageError) -> PageExpectation {
        guard root != 0 else { return .none }
        guard let rootBuffer = space.dirtyBuffer(root) else {
            return PageExpectation.of(try space.reader.verifiedPage(root))
        }
        let pageSizeBytes = space.pageSizeBytes
        var stack: [(page: UInt32, buffer: UnsafeMutableRawPointer, next: Int)] = [(root, rootBuffer, 0)]
        while let top = stack.last {
            let node = NodeView(base: UnsafeRawPointer(top.buffer), pageSizeBytes: pageSizeBytes)
            if !node.isLeaf && top.next <= node.count {
                stack[stack.count - 1].next += 1
                let child = node.child(top.next)
                if let childBuffer = space.dirtyBuffer(child), !sealed.contains(child) {
                    guard stack.count < TreeSearch.depthMax else {
                        throw StorageError.corruptPage(
                            page: PageNumber(child), reason: "tree deeper than \(TreeSearch.depthMax)")
                    }
                    stack.append((child, childBuffer, 0))
                }
                continue
            }
            if !node.isLeaf {
                for index in 0...node.count {
                    if let childBuffer = space.dirtyBuffer(node.child(index)) {
                        NodeEdit.setChildExpectation(
                            top.buffer, index: index, PageExpectation.of(UnsafeRawPointer(childBuffer)))
                    }
                }
            }
            sealPage(top.buffer, pageSizeBytes: pageSizeBytes, number: PageNumber(top.page), version: space.newVersion)
            sealed.insert(top.page)
            stack.removeLast()
        }
        return PageExpectation.of(UnsafeRawPointer(rootBuffer))
    }
}
