import StrataStorage

/// One row's stored bytes, kept by a live `_ObjectAccessor` between property reads.
///
/// The bytes, not decoded values: a property read decodes its own column only (the row's
/// offset table makes that O(1)), so an integer read allocates nothing and a string is made
/// only when its property is read. A row of a read transaction is kept in place, as the
/// `InlineRow` of a `RowView.pinned` (no copy at all; the accessor uses it only while the
/// realm's stamp says that read is still open; a value of it in overflow pages is read by
/// searching the row again); a row read inside a write is copied, and only when it has no
/// values in overflow pages.
///
/// Manually managed memory rather than an array: no reference counting per read, and an
/// accessor moved to the next element of an iteration (`_ObjectAccessor.retarget`) refills
/// the same memory. Owned by exactly one accessor, used only on its realm's thread, released
/// by the accessor's `deinit`.
struct RowBuffer {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The kept row, over `base`; nil when none is kept.
    private(set) var row: InlineRow?

    /// Replaces the kept row with a copy of `bytes`, an inline row without overflow values,
    /// reusing the memory when it is large enough. Returns false, keeping nothing, when the
    /// bytes are not a row (damage: the property reads that search the row report it).
    @discardableResult
    mutating func assign(_ bytes: UnsafeRawBufferPointer) -> Bool {
        row = nil
        guard let source = bytes.baseAddress, bytes.count > 0 else { return false }
        if bytes.count > capacity {
            base?.deallocate()
            // Rows of one table are mostly of one size: a little room spares most regrowth.
            let size = max(bytes.count, 64)
            base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            capacity = size
        }
        guard let base else { return false }
        base.copyMemory(from: source, byteCount: bytes.count)
        row = try? InlineRow.detached(UnsafeRawBufferPointer(start: base, count: bytes.count))
        return row != nil
    }

    /// Keeps `row`, the inline part of a `RowView.pinned`, in place: nothing is copied.
    mutating func keep(pinned row: InlineRow) {
        self.row = row
    }

    /// Frees the memory (the owner's `deinit`).
    mutating func release() {
        row = nil
        base?.deallocate()
        base = nil
        capacity = 0
    }
}
