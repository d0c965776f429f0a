/// An in-memory database file: the same engine on anonymous memory. Syncs do nothing and
/// nothing survives the process. Shared by identifier inside the process (see `Store`).
///
/// Thread safety: as `PageStore` requires; the image is written only by the writer.
final class MemoryStore: PageStore, @unchecked Sendable {
    let identifier: String
    private let image: AnonymousImage
    private let hooks: EngineHooks
    let generation: UInt64 = 0

    init(identifier: String, reservationBytes: Int, hooks: EngineHooks) throws(StorageError) {
        self.identifier = identifier
        self.hooks = hooks
        image = try AnonymousImage(reservationBytes: reservationBytes)
    }

    var base: UnsafeRawPointer { UnsafeRawPointer(image.base) }
    var mappedByteCount: Int { image.byteCount }
    var isDurable: Bool { false }
    var displayName: String { "memory '\(identifier)'" }

    func fileByteCount() throws(StorageError) -> Int { image.byteCount }

    func setFileByteCount(_ byteCount: Int, site: FaultSite) throws(StorageError) {
        if let fault = hooks.injectedFault(site) { throw fault.storageError(operation: "grow") }
        try image.resize(to: byteCount)
    }

    func extendMap(toByteCount byteCount: Int) throws(StorageError) {}

    func write(_ pieces: [WritePiece]) throws(StorageError) {
        for piece in pieces {
            if let fault = hooks.injectedFault(piece.site) { throw fault.storageError(operation: "write") }
            image.write(offset: piece.offset, bytes: piece.bytes, count: piece.byteCount)
        }
    }

    func sync(_ kind: SyncKind, site: FaultSite) throws(StorageError) {
        if let fault = hooks.injectedFault(site) { throw fault.storageError(operation: "sync") }
    }

    func checkAlive(generation: UInt64) throws(StorageError) {}
}
