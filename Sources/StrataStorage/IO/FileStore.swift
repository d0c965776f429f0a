import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The real file: pages are read from a shared read-only memory map and written with
/// `pwrite`/`pwritev`, as LMDB does by default. Reads never copy; writes never go through the
/// map, so a stray pointer cannot corrupt the file.
///
/// Thread safety: `write`, `sync` and `setFileByteCount` are called only by the writer holding
/// the write lock. `extendMap` may be called by any reader; `mapLock` serialises map growth.
final class FileStore: PageStore, @unchecked Sendable {
    let path: String
    let descriptor: Int32
    let readOnly: Bool
    private let reservation: AddressReservation
    private let hooks: EngineHooks
    /// Bytes mapped so far; only grows. Guarded by `mapLock` for writes, atomic for reads.
    private let mapped = Atomic<Int>(0)
    private let mapLock = Lock<Void>(())
    let generation: UInt64 = 0

    var base: UnsafeRawPointer { UnsafeRawPointer(reservation.base) }
    var mappedByteCount: Int { mapped.load(ordering: .acquiring) }
    var isDurable: Bool { true }
    var displayName: String { "file \(path)" }

    /// Opens an existing file and maps all of it.
    init(path: String, readOnly: Bool, reservationBytes: Int, hooks: EngineHooks) throws(StorageError) {
        self.path = path
        self.readOnly = readOnly
        self.hooks = hooks
        descriptor = try SystemCalls.open(path, flags: readOnly ? O_RDONLY : O_RDWR)
        do {
            reservation = try AddressReservation(capacityBytes: reservationBytes)
            let size = try SystemCalls.fileSize(descriptor)
            try extendMap(toByteCount: size)
        } catch {
            SystemCalls.close(descriptor)
            throw error
        }
    }

    deinit {
        SystemCalls.close(descriptor)
    }

    func fileByteCount() throws(StorageError) -> Int {
        try SystemCalls.fileSize(descriptor)
    }

    func setFileByteCount(_ byteCount: Int, site: FaultSite) throws(StorageError) {
        precondition(!readOnly, "growing a read-only store")
        if let fault = hooks.injectedFault(site) { throw fault.storageError(operation: "fallocate") }
        let current = try SystemCalls.fileSize(descriptor)
        if byteCount > current {
            try SystemCalls.allocate(descriptor, byteCount: byteCount)
        }
        try extendMap(toByteCount: byteCount)
    }

    func extendMap(toByteCount byteCount: Int) throws(StorageError) {
        // Map whole system pages only up to the file end: touching a mapped page beyond the
        // end of the file raises SIGBUS, so never map past it.
        try mapLock.withLock { _ throws(StorageError) in
            let current = mapped.load(ordering: .relaxed)
            guard byteCount > current else { return }
            try reservation.mapFile(descriptor: descriptor, fromBytes: current, toBytes: byteCount)
            mapped.store(byteCount, ordering: .releasing)
        }
    }

    func write(_ pieces: [WritePiece]) throws(StorageError) {
        precondition(!readOnly, "writing a read-only store")
        // Coalesce pieces that land back to back into one pwritev.
        let ordered = pieces.sorted { $0.offset < $1.offset }
        var runStart = 0
        while runStart < ordered.count {
            var runEnd = runStart + 1
            while runEnd < ordered.count
                && ordered[runEnd].offset == ordered[runEnd - 1].offset + ordered[runEnd - 1].byteCount
            {
                runEnd += 1
            }
            for piece in ordered[runStart..<runEnd] {
                if let fault = hooks.injectedFault(piece.site) {
                    throw fault.storageError(operation: "pwrite")
                }
            }
            if runEnd - runStart == 1 {
                let piece = ordered[runStart]
                try SystemCalls.writeAll(descriptor, piece.bytes, count: piece.byteCount, offset: piece.offset)
            } else {
                let buffers = ordered[runStart..<runEnd].map { ($0.bytes, $0.byteCount) }
                try SystemCalls.writeVector(descriptor, buffers, offset: ordered[runStart].offset)
            }
            runStart = runEnd
        }
    }

    func sync(_ kind: SyncKind, site: FaultSite) throws(StorageError) {
        if let fault = hooks.injectedFault(site) { throw fault.storageError(operation: "fdatasync") }
        switch kind {
        case .data: try SystemCalls.dataSync(descriptor)
        case .full: try SystemCalls.fullSync(descriptor)
        }
    }

    func checkAlive(generation: UInt64) throws(StorageError) {}
}
