import Foundation
import Testing

@testable import StrataStorage

/// Spec D8: an edit of a B+tree node whose lengths disagree (entries running past the cells, a
/// cell outside the cell area, more cells than the page holds) throws `corruptPage` in every
/// build; `invariant` alone is compiled out in release, where such a node reached `memset` with
/// a negative length and killed the process.
@Suite struct NodeEditCheckTests {
    static let pageSizeBytes = 4096

    /// A leaf of `count` 8-byte cells, well formed, in a fresh page buffer (page number 7).
    private func leaf(count: Int) -> UnsafeMutableRawPointer {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.pageSizeBytes, alignment: 8)
        memset(buffer, 0, Self.pageSizeBytes)
        NodeEdit.initialise(
            buffer, pageSizeBytes: Self.pageSizeBytes, type: .leaf, byteKeys: false, leftmostChild: .none)
        storeUInt32(buffer, 16, 7)
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: Self.pageSizeBytes, alignment: 8)
        defer { scratch.deallocate() }
        let cell: [UInt8] = Array(repeating: 0xAB, count: 8)
        for index in 0..<count {
            cell.withUnsafeBytes { bytes in
                _ = try? NodeEdit.insert(
                    buffer, pageSizeBytes: Self.pageSizeBytes, scratch: scratch, index: index,
                    image: UInt64(index), child: .none, cell: bytes)
            }
        }
        return buffer
    }

    private func expectCorrupt(
        _ body: () throws(StorageError) -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do throws(StorageError) {
            try body()
            Issue.record("the edit of a corrupt node went ahead", sourceLocation: sourceLocation)
        } catch {
            guard case .corruptPage(let page, let reason) = error else {
                Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(page == PageNumber(7), sourceLocation: sourceLocation)
            #expect(reason.hasPrefix("a node being edited"), "\(reason)", sourceLocation: sourceLocation)
        }
    }

    @Test func aWellFormedNodeIsEdited() throws {
        let buffer = leaf(count: 5)
        defer { buffer.deallocate() }
        #expect(NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: Self.pageSizeBytes).count == 5)
        try NodeEdit.remove(buffer, pageSizeBytes: Self.pageSizeBytes, index: 2)
        #expect(NodeView(base: UnsafeRawPointer(buffer), pageSizeBytes: Self.pageSizeBytes).count == 4)
    }

    @Test func entriesPastTheCellsAreCorruptForEveryEdit() throws {
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: Self.pageSizeBytes, alignment: 8)
        defer { scratch.deallocate() }
        let cell: [UInt8] = [1, 2, 3]
        // The count says 400 entries (4,800 bytes of entries on a 4,096-byte page).
        let buffer = leaf(count: 3)
        defer { buffer.deallocate() }
        storeUInt16(buffer, PageLayout.countOffset, 400)
        expectCorrupt { () throws(StorageError) in
            try withBytes(cell) { bytes throws(StorageError) in
                try NodeEdit.insert(
                    buffer, pageSizeBytes: Self.pageSizeBytes, scratch: scratch, index: 0,
                    image: 1, child: .none, cell: bytes)
            }
        }
        expectCorrupt { () throws(StorageError) in
            try NodeEdit.remove(buffer, pageSizeBytes: Self.pageSizeBytes, index: 0)
        }
        expectCorrupt { () throws(StorageError) in
            try NodeEdit.compact(buffer, pageSizeBytes: Self.pageSizeBytes, scratch: scratch)
        }
    }

    @Test func aCellOutsideTheCellAreaIsCorrupt() throws {
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: Self.pageSizeBytes, alignment: 8)
        defer { scratch.deallocate() }
        let buffer = leaf(count: 3)
        defer { buffer.deallocate() }
        // Entry 1's cell length runs past the page's end.
        storeUInt16(
            buffer, PageLayout.entriesOffset + PageLayout.leafEntryStride + PageLayout.leafEntryStride - 2, 60_000)
        expectCorrupt { () throws(StorageError) in
            try NodeEdit.remove(buffer, pageSizeBytes: Self.pageSizeBytes, index: 1)
        }
        expectCorrupt { () throws(StorageError) in
            try NodeEdit.compact(buffer, pageSizeBytes: Self.pageSizeBytes, scratch: scratch)
        }
    }

    @Test func buildingMoreThanAPageHoldsIsCorrupt() throws {
        let buffer = leaf(count: 0)
        defer { buffer.deallocate() }
        let big = [UInt8](repeating: 7, count: 1500)
        expectCorrupt { () throws(StorageError) in
            try withBytes(big) { bytes throws(StorageError) in
                let entries = (0..<3).map { NodeEntry(image: UInt64($0), child: .none, cell: bytes) }
                try NodeEdit.build(
                    buffer, pageSizeBytes: Self.pageSizeBytes, type: .leaf, byteKeys: false,
                    leftmostChild: .none, entries: entries[...])
            }
        }
    }
}
