/// Which free pages a write may reuse (Docs/architecture.md §2 "Versions, pins and space";
/// Spec D): the base version's free list with every run the pins allow made reusable. The
/// durable version counts as pinned: until a slot names a newer version, a crash recovers it,
/// so its pages are never overwritten (Spec D10).
enum FreeSpacePolicy {
    /// The base version's free list (from `client`'s cache when it is the base's, else read
    /// from `head`) with what is reusable promoted, and the pages holding it.
    static func reusableSpace(
        base: Version, head: PageRef, entryCount: UInt64, reader: PageReader, durable: Version,
        hooks: EngineHooks, client: some PagerClient
    ) throws(StorageError)
        -> (FreeList, [UInt32])
    {
        var oldest = oldestPinned(client, base: base)
        if oldest < base && !hooks.has(.neverReclaimDeadReaders) && client.reclaimDeadReaders() > 0 {
            hooks.mark(.deadReaderSlotReclaimed)
            oldest = oldestPinned(client, base: base)
        }
        if hooks.has(.reusePinnedPages) { oldest = base }
        if !hooks.has(.reuseDurablePages) { oldest = min(oldest, durable) }
        let cached = client.cachedFreeList
        var list: FreeList
        let chain: [UInt32]
        if let cached, cached.version == base {
            list = cached.list
            chain = cached.chain
        } else {
            let (entries, pages) = try FreeListCodec.read(head: head, entryCount: entryCount, reader: reader)
            list = FreeList.fromEntries(entries, oldestPinned: oldest)
            chain = pages
        }
        let promoted = list.promote(oldestPinned: oldest)
        let heldBack = list.pendingPageCount > 0 && oldest < base
        let heldBackBefore = client.swapPinHeldPagesBack(heldBack)
        if heldBack { hooks.mark(.pageReuseWaitedForPin) }
        // Pages a pin held back at the previous write are reusable now that no pin is older
        // than the base: the last pin on their version dropped.
        if promoted > 0 && heldBackBefore && oldest == base {
            hooks.mark(.pageReuseAfterLastPinDropped)
        }
        return (list, chain)
    }

    /// The oldest version any process pins, never newer than the base (the newest version is
    /// always treated as pinned: the next commit will release its pages).
    private static func oldestPinned(_ client: some PagerClient, base: Version) -> Version {
        min(client.oldestPinnedVersion() ?? base, base)
    }
}
