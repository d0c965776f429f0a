/// Read access to a tree node (leaf or branch) laid out as `PageLayout` describes.
///
/// A `NodeView` is only made from a page that has passed `NodeValidation` (read path) or that
/// this process built (write path), so its accessors do not bounds-check: validation already
/// proved every entry and cell lies inside the page.
struct NodeView {
    let base: UnsafeRawPointer
    let pageSizeBytes: Int

    @inline(__always) var type: UInt8 { base.load(fromByteOffset: PageLayout.typeOffset, as: UInt8.self) }
    @inline(__always) var isLeaf: Bool { type == PageType.leaf.rawValue }
    @inline(__always) var count: Int { Int(loadUInt16(base, PageLayout.countOffset)) }
    @inline(__always) var hasByteKeys: Bool {
        base.load(fromByteOffset: PageLayout.flagsOffset, as: UInt8.self) & NodeFlags.byteKeys != 0
    }
    @inline(__always) var cellStart: Int { Int(loadUInt16(base, PageLayout.cellStartOffset)) }
    @inline(__always) var deadBytes: Int { Int(loadUInt16(base, PageLayout.deadBytesOffset)) }
    @inline(__always) var stride: Int { isLeaf ? PageLayout.leafEntryStride : PageLayout.branchEntryStride }

    @inline(__always) func keyImage(_ index: Int) -> UInt64 {
        loadUInt64(base, PageLayout.entriesOffset + index * stride)
    }

    @inline(__always) func cellOffset(_ index: Int) -> Int {
        Int(loadUInt16(base, PageLayout.entriesOffset + index * stride + stride - 4))
    }

    @inline(__always) func cellLength(_ index: Int) -> Int {
        Int(loadUInt16(base, PageLayout.entriesOffset + index * stride + stride - 2))
    }

    @inline(__always) func cell(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + cellOffset(index), count: cellLength(index))
    }

    // Leaf-only accessors for loops that already know the node is a leaf: fixed stride and
    // wrapping arithmetic (index < count ≤ what fits a page), so no per-entry type test or
    // overflow check.
    @inline(__always) func leafKeyImage(_ index: Int) -> UInt64 {
        invariant(isLeaf, "leaf accessor on a leaf")
        return loadUInt64(base, PageLayout.entriesOffset &+ index &* PageLayout.leafEntryStride)
    }

    @inline(__always) func leafCell(_ index: Int) -> UnsafeRawBufferPointer {
        invariant(isLeaf, "leaf accessor on a leaf")
        let entry = PageLayout.entriesOffset &+ index &* PageLayout.leafEntryStride
        let offset = Int(loadUInt16(base, entry &+ 8))
        let length = Int(loadUInt16(base, entry &+ 10))
        return UnsafeRawBufferPointer(start: base + offset, count: length)
    }

    /// Child `index` of a branch: 0 is the leftmost child, i > 0 is the child of entry i - 1.
    @inline(__always) func child(_ index: Int) -> UInt32 {
        index == 0
            ? loadUInt32(base, PageLayout.linkOffset)
            : loadUInt32(
                base,
                PageLayout.entriesOffset + (index - 1) * PageLayout.branchEntryStride
                    + PageLayout.branchChildOffset)
    }

    /// What the branch expects of child `index` (Spec D19). In a node being built by a write
    /// transaction, the expectation of a child that is itself dirty is filled in by the commit.
    @inline(__always) func childExpectation(_ index: Int) -> PageExpectation {
        index == 0
            ? PageExpectation.load(base, PageLayout.leftmostExpectationOffset)
            : PageExpectation.load(
                base,
                PageLayout.entriesOffset + (index - 1) * PageLayout.branchEntryStride
                    + PageLayout.branchExpectationOffset)
    }

    @inline(__always) func childRef(_ index: Int) -> PageRef {
        PageRef(page: child(index), expectation: childExpectation(index))
    }

    /// The full key of entry `index` (byte-keyed trees): a leaf cell starts with a varint key
    /// length; a branch cell is the key.
    func fullKey(_ index: Int) -> UnsafeRawBufferPointer {
        let cell = self.cell(index)
        if !isLeaf { return cell }
        let (length, headerBytes) = decodeCellKeyLength(cell)
        return UnsafeRawBufferPointer(rebasing: cell[headerBytes..<(headerBytes + length)])
    }

    /// The value part of leaf entry `index`.
    func value(_ index: Int) -> UnsafeRawBufferPointer {
        let cell = self.cell(index)
        guard hasByteKeys else { return cell }
        let (length, headerBytes) = decodeCellKeyLength(cell)
        return UnsafeRawBufferPointer(rebasing: cell[(headerBytes + length)...])
    }

    /// Bytes in use: header, entries, live cells.
    var usedByteCount: Int {
        PageLayout.entriesOffset + count * stride + liveCellByteCount
    }

    var liveCellByteCount: Int { pageSizeBytes - cellStart - deadBytes }

    /// Contiguous free bytes between the entries and the cells.
    var gapByteCount: Int { cellStart - (PageLayout.entriesOffset + count * stride) }
}

/// Decodes the key-length prefix of a byte-keyed leaf cell: one byte below 0x80, else two.
@inline(__always)
func decodeCellKeyLength(_ cell: UnsafeRawBufferPointer) -> (length: Int, headerBytes: Int) {
    let first = Int(cell[0])
    if first < 0x80 { return (first, 1) }
    return ((first & 0x7F) | (Int(cell[1]) << 7), 2)
}

func encodeCellKeyLength(_ length: Int, into writer: inout ByteWriter) {
    if length < 0x80 {
        writer.append(UInt8(length))
    } else {
        writer.append(UInt8(length & 0x7F) | 0x80)
        writer.append(UInt8(length >> 7))
    }
}

/// Structural validation of a node read from disk, done once per page content (with the
/// checksum): afterwards `NodeView` accessors are safe without bounds checks.
enum NodeValidation {
    static func check(_ base: UnsafeRawPointer, page: PageNumber, pageSizeBytes: Int) throws(StorageError) {
        let node = NodeView(base: base, pageSizeBytes: pageSizeBytes)
        let type = node.type
        guard type == PageType.leaf.rawValue || type == PageType.branch.rawValue else {
            throw StorageError.wrongPageType(page: page, expected: PageType.leaf.rawValue, found: type)
        }
        let count = node.count
        let stride = node.stride
        let entriesEnd = PageLayout.entriesOffset + count * stride
        let cellStart = node.cellStart
        guard entriesEnd <= cellStart, cellStart <= pageSizeBytes else {
            throw StorageError.corruptPage(page: page, reason: "entries overlap cells")
        }
        guard node.deadBytes <= pageSizeBytes - cellStart else {
            throw StorageError.corruptPage(page: page, reason: "dead bytes exceed cell area")
        }
        if type == PageType.branch.rawValue && count == 0 {
            throw StorageError.corruptPage(page: page, reason: "branch without keys")
        }
        let byteKeys = node.hasByteKeys
        for index in 0..<count {
            let offset = node.cellOffset(index)
            let length = node.cellLength(index)
            guard offset >= cellStart, offset + length <= pageSizeBytes else {
                throw StorageError.corruptPage(page: page, reason: "cell \(index) outside the cell area")
            }
            if byteKeys && node.isLeaf {
                guard length >= 1 else { throw StorageError.corruptPage(page: page, reason: "empty cell") }
                let cell = node.cell(index)
                if cell[0] >= 0x80 && length < 2 {
                    throw StorageError.corruptPage(page: page, reason: "cell key length truncated")
                }
                let (keyLength, header) = decodeCellKeyLength(cell)
                guard header + keyLength <= length else {
                    throw StorageError.corruptPage(page: page, reason: "cell key beyond cell")
                }
            }
            if !node.isLeaf && node.child(index + 1) == 0 {
                throw StorageError.corruptPage(page: page, reason: "branch child \(index + 1) is page 0")
            }
        }
        if !node.isLeaf && node.child(0) == 0 {
            throw StorageError.corruptPage(page: page, reason: "branch leftmost child is page 0")
        }
    }
}
