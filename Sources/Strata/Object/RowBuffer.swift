import StrataStorage

/// The decoded values of one row, kept by a live `_ObjectAccessor` between property reads.
///
/// Manually managed storage rather than an array: a property read then costs an index, with
/// no reference counting of a buffer, and an accessor that moves to the next element of an
/// iteration (`_ObjectAccessor.retarget`) refills the same memory. Owned by exactly one
/// accessor, used only on its realm's thread, released by the accessor's `deinit`.
struct RowBuffer {
    private var base: UnsafeMutablePointer<StrataStorage.Value>?
    private var count = 0
    private var capacity = 0

    /// The value of `column`; null for a column beyond the row (added by a later schema).
    @inline(__always)
    func value(at column: Int) -> StrataStorage.Value {
        guard column >= 0, column < count, let base else { return .null }
        return base[column]
    }

    /// The values, as an array.
    var values: [StrataStorage.Value] {
        guard let base else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Replaces the values with `values`, reusing the memory when it is large enough.
    mutating func assign(_ values: ArraySlice<StrataStorage.Value>) {
        guard let base = emptied(capacity: values.count) else { return }
        values.withUnsafeBufferPointer { source in
            guard let start = source.baseAddress else { return }
            base.initialize(from: start, count: source.count)
        }
        count = values.count
    }

    /// Replaces the values with the `count` values at `source`, moved (the source memory is
    /// left uninitialized).
    mutating func assign(moving source: UnsafeMutablePointer<StrataStorage.Value>, count: Int) {
        guard let base = emptied(capacity: count) else { return }
        base.moveInitialize(from: source, count: count)
        self.count = count
    }

    /// Drops the values, and returns storage for at least `needed` values (nil for none).
    private mutating func emptied(capacity needed: Int) -> UnsafeMutablePointer<StrataStorage.Value>? {
        if let base { base.deinitialize(count: count) }
        count = 0
        if needed > capacity {
            base?.deallocate()
            base = UnsafeMutablePointer<StrataStorage.Value>.allocate(capacity: needed)
            capacity = needed
        }
        return base
    }

    /// Frees the storage (the owner's `deinit`).
    mutating func release() {
        guard let base else { return }
        base.deinitialize(count: count)
        base.deallocate()
        self.base = nil
        count = 0
        capacity = 0
    }
}
