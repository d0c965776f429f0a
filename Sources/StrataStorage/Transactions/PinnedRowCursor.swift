/// A read transaction's rows of one table, found one at a time by ascending key: what the
/// Realm API's iteration hands each object as it reaches it, so that no object searches the
/// tree for its row and no row is copied (`ReadTransaction.pinnedRowCursor(_:from:)`).
///
/// The rows lie in the pages the transaction pins (`RowView.pinned`): the `InlineRow`s it
/// gives, and the cursor itself, may be used only while that transaction is open. The
/// keeper must drop the cursor, without calling it, once the transaction may have ended.
///
/// Confinement: not `Sendable`; one thread at a time, as its transaction's reads.
public struct PinnedRowCursor {
    private var cursor: TreeCursor<PageReader>
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
    }

    /// The row stored under `key` (at least the key asked before, as cursors only move
    /// forward): nil when there is none, or when it is not inline in its cell (a whole-row
    /// overflow, which the caller reads through a `RowView`).
    /// - Throws: `StorageError` for a damaged tree or row header.
    public mutating func row(at key: ObjectKey) throws(StorageError) -> InlineRow? {
        var steps = 0
        while cursor.isValid {
            let leaf = cursor.leaf
            guard leaf.isLeaf && !leaf.hasByteKeys else {
                throw StorageError.corruptRecord(
                    reason: "row tree of '\(tableName)' has a byte-keyed or branch node as leaf")
            }
            let found = intKeyFromImage(leaf.leafKeyImage(cursor.index))
            if found == key.rawValue {
                let cell = leaf.leafCell(cursor.index)
                guard cell.count >= 2 && InlineRow.isInline(format: cell[0]) else { return nil }
                return try InlineRow(parsing: cell)
            }
            if found > key.rawValue { return nil }
            steps += 1
            if steps > Self.stepsBeforeSeek {
                try cursor.seek(root: root, atLeast: .int(key.rawValue))
                steps = 0
                continue
            }
            try cursor.next()
        }
        return nil
    }
}
