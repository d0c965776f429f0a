/// A read transaction's rows of one table, found one at a time by ascending key: what the
/// Realm API's iteration hands each object as it reaches it, so that no object searches the
/// tree for its row and no row is copied (`ReadTransaction.pinnedRowCursor(_:from:)`).
///
/// The rows lie in the pages the transaction pins (`RowView.pinned`): the `InlineRow`s it
/// gives, and the cursor itself, may be used only while that transaction is open. The
/// keeper must drop the cursor, without calling it, once the transaction may have ended. A
/// class, so that its keeper steps it in place and never copies the path it holds.
///
/// Confinement: not `Sendable`; one thread at a time, as its transaction's reads.
public final class PinnedRowCursor {
    // Only this class's methods touch its fields, never with two accesses at once: no dynamic
    // exclusivity check is needed.

    /// The path to the current leaf; consulted only to move to the next leaf or to seek.
    @exclusivity(unchecked) private var cursor: TreeCursor<PageReader>
    /// The current leaf (checked to be an integer-keyed leaf when it was reached), and the
    /// entry in it: consecutive keys, a scan's common case, are found without touching the
    /// path. nil once the cursor has passed the last entry.
    @exclusivity(unchecked) private var leaf: NodeView?
    @exclusivity(unchecked) private var index = 0
    @exclusivity(unchecked) private var count = 0
    private let root: UInt32
    private let tableName: String

    /// Steps one `row(at:)` takes before it searches the tree from the root instead (keys far
    /// apart, as a selective query's are, cost one descent each rather than a walk).
    private static var stepsBeforeSeek: Int { 32 }

    init(reader: PageReader, root: UInt32, tableName: String, from start: ObjectKey?) throws(StorageError) {
        cursor = TreeCursor(source: reader)
        self.root = root
        self.tableName = tableName
        try cursor.seek(root: root, atLeast: start.map { .int($0.rawValue) })
        try enterLeaf()
    }

    /// The row stored under `key` (at least the key asked before, as cursors only move
    /// forward): nil when there is none, or when it is not inline in its cell (a whole-row
    /// overflow, which the caller reads through a `RowView`).
    /// - Throws: `StorageError` for a damaged tree or row header.
    public func row(at key: ObjectKey) throws(StorageError) -> InlineRow? {
        var steps = 0
        var sought = false
        while let leaf {
            if index < count {
                let found = intKeyFromImage(leaf.leafKeyImage(index))
                if found == key.rawValue {
                    let cell = leaf.leafCell(index)
                    guard cell.count >= 2 && InlineRow.isInline(format: cell[0]) else { return nil }
                    return try InlineRow(parsing: cell)
                }
                if found > key.rawValue { return nil }
                index &+= 1
                steps &+= 1
                guard steps > Self.stepsBeforeSeek else { continue }
                // A descent lands on the first entry not below the key: walking on from it
                // far enough to need another means the keys are out of order (damage), which
                // would otherwise send every call round this loop for good.
                guard !sought else {
                    throw StorageError.corruptRecord(reason: "row tree of '\(tableName)' has keys out of order")
                }
                try cursor.seek(root: root, atLeast: .int(key.rawValue))
                sought = true
                steps = 0
            } else {
                try cursor.nextLeaf()
            }
            try enterLeaf()
        }
        return nil
    }

    /// Takes the tree cursor's position as the current leaf and entry, checking the leaf once.
    private func enterLeaf() throws(StorageError) {
        guard cursor.isValid else {
            leaf = nil
            return
        }
        let node = cursor.leaf
        guard node.isLeaf && !node.hasByteKeys else {
            throw StorageError.corruptRecord(
                reason: "row tree of '\(tableName)' has a byte-keyed or branch node as leaf")
        }
        leaf = node
        index = cursor.index
        count = node.count
    }
}
