/// Page number → buffer of a write transaction's dirty pages (`WriteSpace`).
///
/// Replaces a `[UInt32: UnsafeMutableRawPointer]`: the tree writer looks pages up once per
/// tree level per insert, and `Dictionary` hashes every key with SipHash. This table uses open
/// addressing with linear probing and a multiplicative (Fibonacci) hash; page 0, the header
/// page, is never dirty and marks an empty slot. Removal shifts later entries of the probe run
/// back, so there are no tombstones and a lookup stops at the first empty slot.
///
/// Invariants (`checkInvariants`): at most half the slots are used; every entry is reachable
/// from its home slot without crossing an empty slot; `count` is the number of entries.
struct DirtyPageTable {
    private var pages: [UInt32]
    private var buffers: [UnsafeMutableRawPointer?]
    private(set) var count = 0
    /// 64 - log2(slot count): the hash keeps the top bits of the product.
    private var shift: UInt64

    private static let initialSlotCount = 64

    init() {
        pages = Array(repeating: 0, count: Self.initialSlotCount)
        buffers = Array(repeating: nil, count: Self.initialSlotCount)
        shift = UInt64(64 - Self.initialSlotCount.trailingZeroBitCount)
    }

    @inline(__always)
    private func homeSlot(_ page: UInt32) -> Int {
        Int(truncatingIfNeeded: (UInt64(page) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The buffer of `page`, or nil when it is not dirty.
    @inline(__always)
    subscript(page: UInt32) -> UnsafeMutableRawPointer? {
        guard page != 0 else { return nil }
        let mask = pages.count - 1
        var slot = homeSlot(page)
        while true {
            let found = pages[slot]
            if found == page { return buffers[slot] }
            if found == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// Adds `page`, which must not be in the table.
    mutating func insert(_ buffer: UnsafeMutableRawPointer, for page: UInt32) {
        precondition(page != 0, "the header page is never dirty")
        if (count + 1) * 2 > pages.count { grow() }
        let mask = pages.count - 1
        var slot = homeSlot(page)
        while pages[slot] != 0 {
            precondition(pages[slot] != page, "a dirty page is inserted once")
            slot = (slot + 1) & mask
        }
        pages[slot] = page
        buffers[slot] = buffer
        count += 1
    }

    /// Removes `page` and returns its buffer (nil when it was not dirty).
    mutating func removeValue(forKey page: UInt32) -> UnsafeMutableRawPointer? {
        guard page != 0 else { return nil }
        let mask = pages.count - 1
        var slot = homeSlot(page)
        while pages[slot] != page {
            if pages[slot] == 0 { return nil }
            slot = (slot + 1) & mask
        }
        let removed = buffers[slot]
        // Backward-shift deletion: move each later entry of the run into the hole when its
        // home slot does not lie (cyclically) between the hole and its own slot.
        var hole = slot
        var next = (slot + 1) & mask
        while pages[next] != 0 {
            let home = homeSlot(pages[next])
            let distanceFromHome = (next - home) & mask
            let distanceFromHole = (next - hole) & mask
            if distanceFromHome >= distanceFromHole {
                pages[hole] = pages[next]
                buffers[hole] = buffers[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        pages[hole] = 0
        buffers[hole] = nil
        count -= 1
        checkInvariants()
        return removed
    }

    /// Every entry, in no particular order.
    var entries: [(key: UInt32, value: UnsafeMutableRawPointer)] {
        var result: [(key: UInt32, value: UnsafeMutableRawPointer)] = []
        result.reserveCapacity(count)
        for slot in pages.indices where pages[slot] != 0 {
            if let buffer = buffers[slot] { result.append((pages[slot], buffer)) }
        }
        invariant(result.count == count, "every entry has a buffer")
        return result
    }

    private mutating func grow() {
        let old = entries
        let slotCount = pages.count * 2
        pages = Array(repeating: 0, count: slotCount)
        buffers = Array(repeating: nil, count: slotCount)
        shift = UInt64(64 - slotCount.trailingZeroBitCount)
        count = 0
        for (page, buffer) in old { insert(buffer, for: page) }
        checkInvariants()
    }

    func checkInvariants() {
        #if STRATA_CHECKS
            invariant(count * 2 <= pages.count, "the table is at most half full")
            var found = 0
            for slot in pages.indices where pages[slot] != 0 {
                found += 1
                invariant(self[pages[slot]] == buffers[slot], "every entry is reachable from its home slot")
            }
            invariant(found == count, "count matches the entries")
        #endif
    }
}
