import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A file image in anonymous memory at a fixed address: the readable "file" of `MemoryStore`
/// and the visible image (what the page cache would show) of the harness's simulated disk
/// (`package` for that: it lives in StrataSimulation).
///
/// Thread safety: `resize` and `write` are called by one writer at a time (the owning store
/// serialises them); `byteCount` is atomic so readers may check bounds concurrently.
package final class AnonymousImage: @unchecked Sendable {
    private let reservation: AddressReservation
    private let size = Atomic<Int>(0)

    package init(reservationBytes: Int) throws(StorageError) {
        reservation = try AddressReservation(capacityBytes: reservationBytes)
    }

    package var base: UnsafeMutableRawPointer { reservation.base }
    package var byteCount: Int { size.load(ordering: .acquiring) }

    /// Grows (zero-filled) or shrinks the image.
    package func resize(to byteCount: Int) throws(StorageError) {
        let current = size.load(ordering: .relaxed)
        if byteCount > current {
            try reservation.commitAnonymous(fromBytes: current, toBytes: byteCount)
        } else if byteCount < current {
            reservation.discardAnonymous(fromBytes: byteCount, toBytes: current)
        }
        size.store(byteCount, ordering: .releasing)
    }

    package func write(offset: Int, bytes: UnsafeRawPointer, count: Int) {
        precondition(offset >= 0 && offset + count <= byteCount, "write beyond the image")
        memcpy(reservation.base + offset, bytes, count)
    }

    /// Replaces the whole image with `bytes`.
    package func replace(with bytes: [UInt8]) throws(StorageError) {
        try resize(to: 0)
        try resize(to: bytes.count)
        bytes.withUnsafeBytes { raw in
            if let source = raw.baseAddress { memcpy(reservation.base, source, raw.count) }
        }
    }

    package func copyBytes() -> [UInt8] {
        let count = byteCount
        return [UInt8](UnsafeRawBufferPointer(start: reservation.base, count: count))
    }
}
