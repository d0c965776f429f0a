/// The shared file as the pager's file and client: what a commit writes to and calls back
/// (Pager/Pager.swift).
extension SharedFile: PagerClient {
    var pagerFile: PagerFile {
        PagerFile(
            store: store, hooks: hooks, pageSizeBytes: pageSizeBytes, fileIdentity: header.fileIdentity,
            capacityBytes: capacityBytes, growthChunkBytesMin: growthChunkBytesMin)
    }

    func publish(_ slot: CommitSlot) { versions.publish(VersionRecord(slot: slot)) }

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
