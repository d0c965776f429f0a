#if canImport(Glibc)
    import Glibc
#endif

/// The pager's I/O: growing the file, phase 1 (the pages) and phase 2 (the slot). See
/// Pager/Pager.swift for the states these move a write through.
extension Pager {
    // MARK: deferred durability (Spec D10)

    /// A commit without a slot: its pages are written, not synced, and the version is published
    /// for readers. A growth is synced at once (the size is metadata a later `fdatasync` of
    /// another process's commit would not know to cover).
    static func writeWithoutSlot(
        file: PagerFile, client: some PagerClient,
        pages: [(key: UInt32, value: UnsafeMutableRawPointer)],
        pageCount: UInt32
    ) throws(StorageError) {
        let grew = try growIfNeeded(file: file, client: client, pageCount: pageCount)
        try writePages(file: file, pages: pages)
        if grew { try syncPages(file: file, grew: true) }
    }

    // MARK: the two phases

    static func writeAndSync(
        file: PagerFile, client: some PagerClient, slot: CommitSlot, slotIndex: Int,
        pages: [(key: UInt32, value: UnsafeMutableRawPointer)],
        checks: CommitChecks
    ) throws(StorageError) {
        let grew = try growIfNeeded(file: file, client: client, pageCount: slot.pageCount)
        if file.hooks.has(.slotBeforeData) {
            try writeSlot(file: file, slot: slot, slotIndex: slotIndex)
            try syncSlot(file: file)
            try writePages(file: file, pages: pages)
            try syncPages(file: file, grew: grew)
            client.slotSynced(slot)
            return
        }
        try writePages(file: file, pages: pages)
        try syncPages(file: file, grew: grew)
        checks.run(.phaseOneSynced)
        try writeSlot(file: file, slot: slot, slotIndex: slotIndex)
        if file.hooks.has(.publishBeforeSlotSync) { client.publish(slot) }
        try syncSlot(file: file)
        client.slotSynced(slot)
        checks.run(.slotSynced)
    }

    /// Growth adds a thirty-second of the file, at least `growthChunkBytesMin` and at most
    /// this (unless one commit needs more).
    static let growthChunkBytesMax = 1 << 20
    /// Growth targets are multiples of this (and of the page size).
    static let growthAlignmentBytes = 64 << 10

    /// Grows the file (in chunks) to hold `pageCount` pages. Returns whether it grew.
    ///
    /// The chunk trades file size against syncs: a commit that grows the file needs `fsync`
    /// (the size is metadata) instead of `fdatasync`. A thirty-second of the file keeps the
    /// number of growths logarithmic in the file size while wasting at most ~3 % of it (a
    /// fixed 1 MiB chunk made a 4.4 MB file 5.4 MB after its first small commit).
    static func growIfNeeded(file: PagerFile, client: some PagerClient, pageCount: UInt32) throws(StorageError) -> Bool
    {
        let needed = Int(pageCount) * file.pageSizeBytes
        let current = try file.store.fileByteCount()
        guard needed > current else { return false }
        // Checked before touching the file, so a refused growth leaves it as it was.
        guard needed <= file.capacityBytes else {
            throw StorageError.mapCapacityExceeded(requestedBytes: needed, capacityBytes: file.capacityBytes)
        }
        let chunk = max(file.growthChunkBytesMin, min(current / 32, growthChunkBytesMax))
        var target = max(needed, current + chunk)
        let alignment = max(growthAlignmentBytes, file.pageSizeBytes)
        target = min((target + alignment - 1) / alignment * alignment, file.capacityBytes)
        // Spec X31: a growth chunk never crosses the file size limit (ulimit -f) when the pages
        // themselves fit under it, so the last commits that fit still succeed.
        if let limit = SystemCalls.fileSizeLimitBytes(), needed <= limit, target > limit {
            target = max(needed, limit / file.pageSizeBytes * file.pageSizeBytes)
        }
        invariant(target >= needed, "growth covers the pages")
        invariant(target % file.pageSizeBytes == 0, "the file holds whole pages")
        do {
            try file.store.setFileByteCount(target, site: .grow(toBytes: target))
        } catch {
            // A failed growth changed nothing the readers rely on; still, stop: the disk is full
            // or failing.
            throw error
        }
        if client.hasReaders { file.hooks.mark(.growthWhileReaderActive) }
        return true
    }

    static func writePages(file: PagerFile, pages: [(key: UInt32, value: UnsafeMutableRawPointer)]) throws(StorageError)
    {
        let pageSize = file.pageSizeBytes
        let pieces = pages.map {
            WritePiece(
                offset: Int($0.key) * pageSize, bytes: UnsafeRawPointer($0.value), byteCount: pageSize,
                site: .pageWrite(PageNumber($0.key)))
        }
        do {
            if file.hooks.yield != nil {
                // Controlled scheduling: one page at a time, with a yield point before each.
                for piece in pieces {
                    if case .pageWrite(let page) = piece.site { file.hooks.at(.pageWrite(page)) }
                    try file.store.write([piece])
                }
            } else {
                try file.store.write(pieces)
            }
        } catch {
            file.hooks.mark(.pageWriteFailed)
            throw error
        }
    }

    static func syncPages(file: PagerFile, grew: Bool) throws(StorageError) {
        file.hooks.at(.phaseOneSync)
        if file.hooks.has(.skipPhaseOneSync) { return }
        let kind: SyncKind = grew && !file.hooks.has(.dataSyncAfterGrowth) ? .full : .data
        do {
            try file.store.sync(kind, site: .phaseOneSync)
        } catch {
            file.hooks.mark(.phaseOneSyncFailed)
            guard file.hooks.has(.retrySyncAfterEIO) else { throw error }
            try file.store.sync(kind, site: .phaseOneSync)  // seeded bug: "succeeds" without the data
        }
    }

    static func writeSlot(file: PagerFile, slot: CommitSlot, slotIndex: Int) throws(StorageError) {
        file.hooks.at(.slotWrite)
        let bytes = slot.encode()
        do {
            try withBytes(bytes) { raw throws(StorageError) in
                guard let base = raw.baseAddress else { return }
                try file.store.write([
                    WritePiece(
                        offset: FileHeader.slotOffsets[slotIndex], bytes: base,
                        byteCount: raw.count, site: .slotWrite(slot: slotIndex))
                ])
            }
        } catch {
            file.hooks.mark(.slotWriteFailed)
            throw error
        }
    }

    /// Writes the newest slot again, byte for byte, and syncs it (`SharedFile.confirmNewestSlot`):
    /// only a new write makes a slot durable whose earlier sync failed or never ran. No yield
    /// point: it belongs to no commit, and a crash around it leaves the slot as it was or
    /// rewritten with the same bytes (a torn mix of the two reads as the one slot).
    static func rewriteSlot(file: PagerFile, slot: CommitSlot, slotIndex: Int) throws(StorageError) {
        let bytes = slot.encode()
        try withBytes(bytes) { raw throws(StorageError) in
            guard let base = raw.baseAddress else { return }
            try file.store.write([
                WritePiece(
                    offset: FileHeader.slotOffsets[slotIndex], bytes: base, byteCount: raw.count,
                    site: .slotRewrite(slot: slotIndex))
            ])
        }
        try file.store.sync(.data, site: .slotRewriteSync)
    }

    static func syncSlot(file: PagerFile) throws(StorageError) {
        file.hooks.at(.phaseTwoSync)
        do {
            try file.store.sync(.data, site: .phaseTwoSync)
        } catch {
            file.hooks.mark(.phaseTwoSyncFailed)
            throw error
        }
    }
}
