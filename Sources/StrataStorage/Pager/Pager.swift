#if canImport(Glibc)
    import Glibc
#endif

/// The pager: one write's pages (`WriteSpace`: dirty copies, allocation, releases), the free
/// list and its reuse policy (`FreeList`, `FreeSpacePolicy`), and the two commit phases that
/// make a write durable (Docs/architecture.md §2; Spec W and D). It names nothing above it:
/// the write describes its commit in a `CommitRequest`, and the layers above implement
/// `PagerClient` for what the pager must call back (publish, poison, the pins).
///
/// A write, as the pager sees it:
///
/// ```
///                 beginCommit                 commit (seals the catalog tree, rebuilds
///   open ──────▶ dirty ─────────────────────▶ sealed   the free list, seals the rest)
///   (WriteSpace   (tables' trees sealed by        │
///    made at       the write, catalog flushed     │ writePages + syncPages          phase 1
///    begin)        by Tables into its pages)      ▼
///                                           phase 1 synced
///                                                 │ writeSlot + syncSlot            phase 2
///                                                 ▼
///                                           slot synced ──publish──▶ published
///
///   any write or sync failing ──▶ poisoned (client.poison; the error is thrown, the
///                                 transaction ends failed, the file takes no new
///                                 transaction until it is reopened: Spec D12)
///   durable: false ── sealed ──writeWithoutSlot──▶ pages written (synced only if the file
///                                 grew) ──publish──▶ published, no slot names it (Spec D10)
///                                 until makeBaseDurable: syncPages, writeSlot, syncSlot
/// ```
///
/// Transitions and what performs them:
/// - open → dirty: `WriteSpace.writable`, `allocate`, `free` (tree and record code through
///   `PageAllocator`); `beginCommit` ends it and starts a `TreeSealer`.
/// - dirty → sealed: `commit` (`TreeSealer.seal`, `rebuildFreeList`, `FreeListCodec.seal`,
///   `sealPage`).
/// - sealed → phase 1 synced: `writePages`, `syncPages` (fsync if `growIfNeeded` grew the
///   file, else fdatasync).
/// - phase 1 synced → slot synced: `writeSlot` (the inactive slot), `syncSlot` (fdatasync).
/// - slot synced → published: `client.publish`.
///
/// What is trustworthy in which state:
/// - open, dirty: the space's dirty pages are private and may change; `pageCount`, the free
///   list and `releasedByThisCommit` are final only at `finishFreeList`.
/// - sealed: every dirty page carries its final version, number and checksum, every reference
///   its final expectation (Spec D19); the `CommitSlot` value is final. Nothing on disk changed.
/// - phase 1 synced: the new pages are durable but unreachable: a crash recovers the previous
///   version, whose pages this commit never wrote (it writes only pages free in every pinned
///   version and the durable one, never its own releases).
/// - slot synced: the new version is durable; a crash recovers it.
/// - published: readers of this process and others see it.
/// - poisoned: nothing on disk is trusted beyond the last synced slot; a sync is never retried
///   (Linux may have dropped the dirty pages and would report the retry as a success).
///
/// Debug builds (`STRATA_CHECKS`) run `checkInvariants` at every transition.
enum Pager {
    /// Ends the dirty state: from here the write's trees are sealed bottom-up (Spec D19).
    static func beginCommit(_ space: WriteSpace) -> TreeSealer {
        if space.hooks.has(.plantedCrashInCommit) { plantedCrash() }
        CommitChecks(space: space, basePageCount: 0, freeList: nil).run(.dirty)
        return TreeSealer(space: space)
    }

    /// Seals what the write left unsealed, then writes and syncs it (`request.durable`) or
    /// writes it without a slot, and publishes the new version through `client`. The table
    /// trees are sealed and the catalog flushed by the write before (`beginCommit`).
    static func commit(
        _ space: WriteSpace, sealer: inout TreeSealer, request: CommitRequest, file: PagerFile,
        client: some PagerClient
    ) throws(StorageError) -> CommitOutcome {
        let newVersion = space.newVersion
        // Spec D19: the catalog (whose leaves hold the tables' roots) after the tables' trees,
        // then the free list (written last, its head in the slot).
        let catalogRootExpectation = try sealer.seal(root: request.catalogRoot)
        let (list, listPages) = try rebuildFreeList(space, baseFreeListChain: request.baseFreeListChain)
        let freeListHeadChecksum = FreeListCodec.seal(listPages, pageSizeBytes: file.pageSizeBytes, version: newVersion)
        for (page, _) in listPages { sealer.sealed.insert(page) }
        let entryCount = list.entries().count
        let slot = CommitSlot(
            version: newVersion, catalogRoot: PageNumber(request.catalogRoot),
            freeListHead: PageNumber(listPages.first?.page ?? 0), pageCount: space.pageCount,
            schemaVersion: request.schemaVersion, fileIdentity: file.fileIdentity,
            freeListEntryCount: UInt64(entryCount), catalogRootExpectation: catalogRootExpectation,
            freeListHeadChecksum: freeListHeadChecksum)
        invariant(slot.pageCount >= request.basePageCount, "the logical page count never shrinks")
        let pages = space.dirty.sorted { $0.key < $1.key }
        // The rest: overflow pages (sealed when written; sealing again writes the same bytes).
        for (page, buffer) in pages where !sealer.sealed.contains(page) {
            sealPage(buffer, pageSizeBytes: file.pageSizeBytes, number: PageNumber(page), version: newVersion)
        }
        let checks = CommitChecks(space: space, basePageCount: request.basePageCount, freeList: list)
        checks.run(.sealed)
        do {
            if request.durable {
                try writeAndSync(
                    file: file, client: client, slot: slot, slotIndex: request.slotToWrite, pages: pages,
                    checks: checks)
            } else {
                try writeWithoutSlot(file: file, client: client, pages: pages, pageCount: slot.pageCount)
            }
        } catch {
            client.poison(error)
            throw error
        }
        file.hooks.at(.publish)
        if !file.hooks.has(.publishBeforeSlotSync) { client.publish(slot) }
        checks.run(.published)
        return CommitOutcome(slot: slot, freeList: list, freeListChain: listPages.map(\.page))
    }

    /// Makes `base` durable if no slot names it yet (commits made with `durable: false`, the
    /// newest durable one being `durableVersion`): phase 1's sync covers their pages, then
    /// phase 2 writes and syncs the slot. Returns whether there was anything to do.
    /// `groupPart` is the slot of the first such commit, written instead of `base` only under
    /// the seeded bug `groupDurableInPart`.
    static func makeBaseDurable(
        base: CommitSlot, durableVersion: Version, groupPart: CommitSlot?, slotIndex: Int,
        file: PagerFile, client: some PagerClient
    ) throws(StorageError) -> Bool {
        guard durableVersion < base.version else { return false }
        do {
            try syncPages(file: file, grew: false)
            var slot = base
            if file.hooks.has(.groupDurableInPart), let groupPart {  // seeded bug: Spec D10 broken
                slot = groupPart
            }
            try writeSlot(file: file, slot: slot, slotIndex: slotIndex)
            try syncSlot(file: file)
            client.slotSynced(slot)
        } catch {
            client.poison(error)
            throw error
        }
        return true
    }

    /// `SeededBugs.plantedCrashInCommit`: a store through a bad pointer (the first page of the
    /// address space is never mapped), which the kernel answers with SIGSEGV.
    @inline(never)
    private static func plantedCrash() {
        if let bad = UnsafeMutableRawPointer(bitPattern: 64) { memset(bad, 0x5A, 8) }
    }

    /// Tags this commit's releases with the new version and writes the list into pages taken
    /// from its reusable part (or the file end), never from this commit's own releases.
    private static func rebuildFreeList(_ space: WriteSpace, baseFreeListChain: [UInt32]) throws(StorageError)
        -> (FreeList, [(page: UInt32, buffer: UnsafeMutableRawPointer)])
    {
        var (list, released) = space.finishFreeList()
        list.release(released + baseFreeListChain, by: space.newVersion)
        let perPage = PageLayout.freeListEntriesPerPage(pageSizeBytes: space.pageSizeBytes)
        // Taking the lowest reusable page never adds a run, so the count only shrinks.
        let pagesNeeded = (list.entries().count + perPage - 1) / perPage
        var listPages: [(page: UInt32, buffer: UnsafeMutableRawPointer)] = []
        for _ in 0..<pagesNeeded { listPages.append(try space.allocateFromList(&list)) }
        let entries = list.entries()
        invariant(entries.count <= listPages.count * perPage, "the free list fits its pages")
        FreeListCodec.write(entries, into: listPages, pageSizeBytes: space.pageSizeBytes)
        return (list, listPages)
    }
}

/// The file a commit writes to: what the pager needs of the shared file above it.
struct PagerFile {
    let store: PageStore
    let hooks: EngineHooks
    let pageSizeBytes: Int
    /// Written into every slot (a slot of another file is rejected at open).
    let fileIdentity: UInt64
    /// The largest the file may grow to (whole pages).
    let capacityBytes: Int
    let growthChunkBytesMin: Int
}

/// What a write asks the pager to commit besides its pages.
struct CommitRequest {
    /// The catalog tree's root, once the write flushed its catalog into its pages.
    let catalogRoot: UInt32
    let schemaVersion: UInt64
    /// The base version's page count: the new one is never smaller.
    let basePageCount: UInt32
    /// The pages holding the base version's free list (released by this commit).
    let baseFreeListChain: [UInt32]
    /// The header slot to write: never the one holding the newest durable version.
    let slotToWrite: Int
    /// False: write the pages without a slot (Spec D10).
    let durable: Bool
}

/// What a commit produced: its slot (written, or to be written by a later durable commit) and
/// the free list it wrote, with the pages holding it.
struct CommitOutcome {
    let slot: CommitSlot
    let freeList: FreeList
    let freeListChain: [UInt32]
}

/// What the pager calls back in the layers above it (the shared file implements it).
protocol PagerClient: AnyObject {
    /// Readers see `slot`'s version from now on (Spec W: publish).
    func publish(_ slot: CommitSlot)
    /// Phase 2's sync of `slot` returned: the slot is durable (`VersionTable.confirmSlot`).
    func slotSynced(_ slot: CommitSlot)
    /// A write or sync failed: the file takes no new transaction until reopened (Spec D12).
    func poison(_ cause: StorageError)
    /// Whether some reader pins a version now (the `growthWhileReaderActive` probe).
    var hasReaders: Bool { get }
    /// The oldest version any process pins, if any.
    func oldestPinnedVersion() -> Version?
    /// Frees the reader slots of dead processes; returns how many.
    func reclaimDeadReaders() -> Int
    /// The free list this process committed last, with its version and pages, if known.
    var cachedFreeList: (version: Version, list: FreeList, chain: [UInt32])? { get }
    /// Records whether a pin held freed pages back at this write's begin; returns the
    /// previous write's answer.
    func swapPinHeldPagesBack(_ heldBack: Bool) -> Bool
}

/// The states of a write as the pager sees it (see `Pager`).
enum WriteState: String {
    case dirty, sealed, phaseOneSynced, slotSynced, published
}

/// The checks `Pager` runs at each transition of one commit (`STRATA_CHECKS` builds only; the
/// value is a few words, built once per commit).
struct CommitChecks {
    unowned(unsafe) let space: WriteSpace
    let basePageCount: UInt32
    /// The free list the commit writes (nil before it is rebuilt: the space's own).
    let freeList: FreeList?

    @inline(__always)
    func run(_ state: WriteState) {
        #if STRATA_CHECKS
            Pager.checkInvariants(space, state, basePageCount: basePageCount, freeList: freeList)
        #endif
    }
}

extension Pager {
    /// The pager's invariants in `state` (Docs/style.md rule 8): every dirty page was
    /// allocated by this write and lies in [1, pageCount); no page is both free and dirty; no
    /// page this commit releases is dirty (it belongs to the version on disk, which must stay
    /// intact until the new slot is durable; not checked under the seeded bug `reuseOwnFrees`,
    /// which breaks it on purpose for the checkers to catch); every free page lies below the
    /// page count; the page count lies in [basePageCount, pageCountMax].
    static func checkInvariants(
        _ space: WriteSpace, _ state: WriteState, basePageCount: UInt32,
        freeList: FreeList?
    ) {
        #if STRATA_CHECKS
            let pageCount = space.pageCount
            invariant(pageCount >= basePageCount && pageCount <= WriteSpace.pageCountMax, "the page count is in bounds")
            let dirty = Set(space.dirty.map(\.key))
            for page in dirty {
                invariant(page != 0 && page < pageCount, "a dirty page lies in the file")
                invariant(space.allocatedByThisWrite.contains(page), "every dirty page was allocated by this write")
            }
            let free = (freeList ?? space.freeList).allPages()
            for page in free {
                invariant(page != 0 && page < pageCount, "a free page lies in the file")
                invariant(!dirty.contains(page), "no page is both free and dirty")
            }
            if !space.hooks.has(.reuseOwnFrees) {
                for page in space.releasedByThisCommit {
                    invariant(!dirty.contains(page), "a page released by this commit is not reused by it")
                }
            }
            _ = state
        #endif
    }
}
