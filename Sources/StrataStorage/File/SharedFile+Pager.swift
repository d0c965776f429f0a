/// The shared file as the pager's file and client: what a commit writes to and calls back
/// (Pager/Pager.swift).
extension SharedFile: PagerClient {
    var pagerFile: PagerFile {
        PagerFile(
            store: store, hooks: hooks, pageSizeBytes: pageSizeBytes, fileIdentity: header.fileIdentity,
            capacityBytes: capacityBytes, growthChunkBytesMin: growthChunkBytesMin)
    }

    func publish(_ slot: CommitSlot) { versions.publish(VersionRecord(slot: slot)) }

    func slotSynced(_ slot: CommitSlot) { versions.confirmSlot(slot.version) }

    /// Makes the newest slot, which no sync was seen to make durable, durable: it is written
    /// again with the same bytes and synced (Spec D7). A failure poisons the file (Spec D6).
    /// Under the write lock.
    func confirmNewestSlot(_ slot: CommitSlot, index: Int) throws(StorageError) {
        if hooks.has(.trustUnconfirmedSlot) { return }  // the seeded bug: Spec D7 broken
        do {
            try Pager.rewriteSlot(file: pagerFile, slot: slot, slotIndex: index)
        } catch {
            poison(error)
            throw error
        }
        hooks.mark(.unconfirmedSlotRewritten)
        versions.confirmSlot(slot.version)
    }

    var hasReaders: Bool { !pins.isEmpty }

    func oldestPinnedVersion() -> Version? { versions.oldestPinnedVersion() }

    func reclaimDeadReaders() -> Int { versions.reclaimDeadSlots() }

    var cachedFreeList: (version: Version, list: FreeList, chain: [UInt32])? { withState { $0.freeListCache } }

    func swapPinHeldPagesBack(_ heldBack: Bool) -> Bool {
        withState { state -> Bool in
            let previous = state.pinHeldPagesBack
            state.pinHeldPagesBack = heldBack
            return previous
        }
    }
}
