#if canImport(Glibc)
import Glibc
#endif

/// The commit protocol (Docs/architecture.md §2; Spec W and D).
///
/// ```
///   active ──seal table trees──▶ each dirty tree page sealed after its dirty children
///          ──flushCatalog──▶ catalog written into private pages (with the tables' roots' expectations)
///          ──seal catalog tree──▶ its root's expectation goes to the slot
///          ──rebuildFreeList──▶ releases tagged with the new version, list written, sealed last page first
///          ──seal──▶ every other dirty page gets version, own number, checksum
///          ──phase 1: writePages, syncPages (fsync if the file grew, else fdatasync)
///          ──phase 2: writeSlot (the inactive slot), syncSlot (fdatasync)
///          ──publish──▶ readers see the new version
/// ```
/// A crash before the slot sync returns leaves the previous version (its pages were never
/// touched: a commit only writes pages free in every pinned version, never its own releases);
/// a crash after it leaves the new one (its pages were durable before the slot was written).
/// A failed write or sync poisons the file and is reported; a sync is never retried (Linux may
/// have dropped the dirty pages and would report the retry as a success).
enum Committer {
    static func commit(_ transaction: WriteTransaction, durable: Bool = true) throws(StorageError) -> Version {
        let file = transaction.file
        let space = transaction.space
        let newVersion = space.newVersion
        if file.hooks.has(.plantedCrashInCommit) { plantedCrash() }
        // Spec D19: pages are sealed bottom-up, so that every reference records the final
        // checksum and version of the page it names: the tables' trees, then the catalog (whose
        // leaves hold the tables' roots), then the free list (written last, its head in the slot).
        var sealer = TreeSealer(space: space)
        for id in transaction.dirtyTables.sorted() {
            guard var table = transaction.catalog.table(id) else { continue }
            table.rowRootExpectation = try sealer.seal(root: table.rowRoot)
            table.indexRootExpectation = try sealer.seal(root: table.indexRoot)
            transaction.catalog.set(table)
        }
        try flushCatalog(transaction)
        let catalogRootExpectation = try sealer.seal(root: transaction.catalogRoot)
        let (list, listPages) = try rebuildFreeList(transaction)
        let freeListHeadChecksum = FreeListCodec.seal(listPages, pageSizeBytes: file.pageSizeBytes, version: newVersion)
        for (page, _) in listPages { sealer.sealed.insert(page) }
        let entryCount = list.entries().count
        let record = VersionRecord(version: newVersion, catalogRoot: transaction.catalogRoot,
                                   freeListHead: listPages.first?.page ?? 0, pageCount: space.pageCount,
                                   schemaVersion: transaction.schemaVersion, freeListEntryCount: UInt64(entryCount),
                                   catalogRootExpectation: catalogRootExpectation,
                                   freeListHeadChecksum: freeListHeadChecksum)
        invariant(record.pageCount >= transaction.base.pageCount, "the logical page count never shrinks")
        let pages = space.dirty.sorted { $0.key < $1.key }
        // The rest: overflow pages (sealed when written; sealing again writes the same bytes).
        for (page, buffer) in pages where !sealer.sealed.contains(page) {
            sealPage(buffer, pageSizeBytes: file.pageSizeBytes, number: PageNumber(page), version: newVersion)
        }
        do {
            if durable {
                try writeAndSync(file: file, transaction: transaction, record: record, pages: pages)
            } else {
                try writeWithoutSlot(file: file, pages: pages, pageCount: record.pageCount)
            }
        } catch {
            file.poison(error)
            throw error
        }
        file.hooks.at(.publish)
        if !file.hooks.has(.publishBeforeSlotSync) { file.versions.publish(record) }
        file.note?.ring()  // other processes' realms hear of it (after the publish they will read)
        file.withState { state in state.freeListCache = (newVersion, list, listPages.map(\.page)) }
        file.remember(transaction.catalog, for: newVersion)
        return newVersion
    }

    /// `SeededBugs.plantedCrashInCommit`: a store through a bad pointer (the first page of the
    /// address space is never mapped), which the kernel answers with SIGSEGV.
    @inline(never)
    private static func plantedCrash() {
        if let bad = UnsafeMutableRawPointer(bitPattern: 64) { memset(bad, 0x5A, 8) }
    }

    // MARK: preparing the pages

    private static func flushCatalog(_ transaction: WriteTransaction) throws(StorageError) {
        let writer = TreeWriter(space: transaction.space, byteKeys: true)
        var root = transaction.catalogRoot
        for key in transaction.removedCatalogKeys {
            _ = try withBytes(key) { bytes throws(StorageError) -> Bool in
                try writer.remove(root: &root, key: .bytes(bytes)) { old throws(StorageError) in
                    try freeCatalogValueOverflow(old, transaction: transaction)
                }
            }
        }
        if transaction.catalogMetadataChanged {
            try put(CatalogCodec.metadataKey, [.int(Int64(transaction.catalog.nextTableID))], root: &root, transaction: transaction)
        }
        for id in transaction.dirtyTables.sorted() {
            guard let table = transaction.catalog.table(id) else { continue }
            try put(CatalogCodec.descriptorKey(table.name), CatalogCodec.descriptorValues(table), root: &root,
                    transaction: transaction)
        }
        for name in transaction.schemaChanged.sorted() {
            guard let table = transaction.catalog.tablesByName[name] else { continue }
            try put(CatalogCodec.schemaKey(name), [.binary(table.schema)], root: &root, transaction: transaction)
        }
        transaction.catalogRoot = root
    }

    private static func put(_ key: [UInt8], _ values: [Value], root: inout UInt32,
                            transaction: WriteTransaction) throws(StorageError) {
        let space = transaction.space
        let cellMax = PageLayout.leafCellByteCountMax(pageSizeBytes: space.pageSizeBytes)
        // Catalog entries are not objects: no incarnation.
        let value = try RowCodec.encode(values, incarnation: .keyIsIdentity, inlineByteCountMax: cellMax - 2 - key.count,
                                        space: space)
        var cell = ByteWriter(capacity: key.count + value.count + 2)
        encodeCellKeyLength(key.count, into: &cell)
        cell.append(contentsOf: key)
        cell.append(contentsOf: value)
        let writer = TreeWriter(space: space, byteKeys: true)
        _ = try withBytes(key) { keyBytes throws(StorageError) -> PutOutcome in
            try withBytes(cell.bytes) { cellBytes throws(StorageError) -> PutOutcome in
                try writer.put(root: &root, key: .bytes(keyBytes), cell: cellBytes, mode: .upsert) { old throws(StorageError) in
                    try freeCatalogValueOverflow(old, transaction: transaction)
                }
            }
        }
    }

    /// Frees the overflow pages of a catalog entry's value (a large schema).
    private static func freeCatalogValueOverflow(_ cell: UnsafeRawBufferPointer, transaction: WriteTransaction) throws(StorageError) {
        let (keyLength, header) = decodeCellKeyLength(cell)
        try transaction.freeOverflow(ofRowCell: UnsafeRawBufferPointer(rebasing: cell[(header + keyLength)...]))
    }

    /// Tags this commit's releases with the new version and writes the list into pages taken
    /// from its reusable part (or the file end), never from this commit's own releases.
    private static func rebuildFreeList(_ transaction: WriteTransaction) throws(StorageError)
        -> (FreeList, [(page: UInt32, buffer: UnsafeMutableRawPointer)]) {
        let space = transaction.space
        var (list, released) = space.finishFreeList()
        list.release(released + transaction.baseFreeListChain, by: space.newVersion)
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

    // MARK: deferred durability (Spec D10)

    /// A commit without a slot: its pages are written, not synced, and the version is published
    /// for readers. A growth is synced at once (the size is metadata a later `fdatasync` of
    /// another process's commit would not know to cover).
    private static func writeWithoutSlot(file: SharedFile, pages: [(key: UInt32, value: UnsafeMutableRawPointer)],
                                         pageCount: UInt32) throws(StorageError) {
        let grew = try growIfNeeded(file: file, pageCount: pageCount)
        try writePages(file: file, pages: pages)
        if grew { try syncPages(file: file, grew: true) }
    }

    /// Makes the transaction's base durable if no slot names it yet (commits made with
    /// `durable: false`): phase 1's sync covers their pages, then phase 2 writes and syncs the
    /// slot. Returns whether there was anything to do. The transaction changes nothing else.
    static func makeBaseDurable(_ transaction: WriteTransaction) throws(StorageError) -> Bool {
        guard transaction.durableVersion < transaction.base.version else { return false }
        let file = transaction.file
        do {
            try syncPages(file: file, grew: false)
            var record = transaction.base
            if file.hooks.has(.groupDurableInPart),  // seeded bug: Spec D10 broken
               let first = file.versions.record(of: transaction.durableVersion.next) {
                record = first
            }
            try writeSlot(file: file, transaction: transaction, record: record)
            try syncSlot(file: file)
        } catch {
            file.poison(error)
            throw error
        }
        return true
    }

    // MARK: the two phases

    private static func writeAndSync(file: SharedFile, transaction: WriteTransaction, record: VersionRecord,
                                     pages: [(key: UInt32, value: UnsafeMutableRawPointer)]) throws(StorageError) {
        let grew = try growIfNeeded(file: file, pageCount: record.pageCount)
        if file.hooks.has(.slotBeforeData) {
            try writeSlot(file: file, transaction: transaction, record: record)
            try syncSlot(file: file)
            try writePages(file: file, pages: pages)
            try syncPages(file: file, grew: grew)
            return
        }
        try writePages(file: file, pages: pages)
        try syncPages(file: file, grew: grew)
        try writeSlot(file: file, transaction: transaction, record: record)
        if file.hooks.has(.publishBeforeSlotSync) { file.versions.publish(record) }
        try syncSlot(file: file)
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
    private static func growIfNeeded(file: SharedFile, pageCount: UInt32) throws(StorageError) -> Bool {
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
        if !file.pins.isEmpty { file.hooks.mark(.growthWhileReaderActive) }
        return true
    }

    private static func writePages(file: SharedFile, pages: [(key: UInt32, value: UnsafeMutableRawPointer)]) throws(StorageError) {
        let pageSize = file.pageSizeBytes
        let pieces = pages.map {
            WritePiece(offset: Int($0.key) * pageSize, bytes: UnsafeRawPointer($0.value), byteCount: pageSize,
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

    private static func syncPages(file: SharedFile, grew: Bool) throws(StorageError) {
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

    private static func writeSlot(file: SharedFile, transaction: WriteTransaction, record: VersionRecord) throws(StorageError) {
        file.hooks.at(.slotWrite)
        let slot = CommitSlot(version: record.version, catalogRoot: PageNumber(record.catalogRoot),
                              freeListHead: PageNumber(record.freeListHead), pageCount: record.pageCount,
                              schemaVersion: record.schemaVersion, fileIdentity: file.header.fileIdentity,
                              freeListEntryCount: record.freeListEntryCount,
                              catalogRootExpectation: record.catalogRootExpectation,
                              freeListHeadChecksum: record.freeListHeadChecksum)
        let bytes = slot.encode()
        do {
            try withBytes(bytes) { raw throws(StorageError) in
                guard let base = raw.baseAddress else { return }
                try file.store.write([WritePiece(offset: FileHeader.slotOffsets[transaction.slotToWrite], bytes: base,
                                                 byteCount: raw.count, site: .slotWrite(slot: transaction.slotToWrite))])
            }
        } catch {
            file.hooks.mark(.slotWriteFailed)
            throw error
        }
    }

    private static func syncSlot(file: SharedFile) throws(StorageError) {
        file.hooks.at(.phaseTwoSync)
        do {
            try file.store.sync(.data, site: .phaseTwoSync)
        } catch {
            file.hooks.mark(.phaseTwoSyncFailed)
            throw error
        }
    }
}

/// Seals a commit's dirty tree pages bottom-up (Spec D19): a branch is sealed only after its
/// dirty children, and records each one's final checksum and version. Committed (clean)
/// children keep the expectation their parent already holds: the tree writer carries it with
/// the child through every split, merge and move. Iterative (Docs/style.md rule 9).
struct TreeSealer {
    let space: WriteSpace
    /// Pages sealed so far.
    var sealed = Set<UInt32>()

    init(space: WriteSpace) { self.space = space }

    /// Seals the dirty part of the tree at `root` and returns what a reference to the root
    /// must expect. A committed root is the page its reference was checked against (when the
    /// catalog was loaded, or by `TreeWriter` when a collapse promoted it), so its own header
    /// is its expectation.
    mutating func seal(root: UInt32) throws(StorageError) -> PageExpectation {
        guard root != 0 else { return .none }
        guard let rootBuffer = space.dirtyBuffer(root) else {
            return PageExpectation.of(try space.reader.verifiedPage(root))
        }
        let pageSizeBytes = space.pageSizeBytes
        var stack: [(page: UInt32, buffer: UnsafeMutableRawPointer, next: Int)] = [(root, rootBuffer, 0)]
        while let top = stack.last {
            let node = NodeView(base: UnsafeRawPointer(top.buffer), pageSizeBytes: pageSizeBytes)
            if !node.isLeaf && top.next <= node.count {
                stack[stack.count - 1].next += 1
                let child = node.child(top.next)
                if let childBuffer = space.dirtyBuffer(child), !sealed.contains(child) {
                    guard stack.count < TreeSearch.depthMax else {
                        throw StorageError.corruptPage(page: PageNumber(child), reason: "tree deeper than \(TreeSearch.depthMax)")
                    }
                    stack.append((child, childBuffer, 0))
                }
                continue
            }
            if !node.isLeaf {
                for index in 0...node.count {
                    if let childBuffer = space.dirtyBuffer(node.child(index)) {
                        NodeEdit.setChildExpectation(top.buffer, index: index, PageExpectation.of(UnsafeRawPointer(childBuffer)))
                    }
                }
            }
            sealPage(top.buffer, pageSizeBytes: pageSizeBytes, number: PageNumber(top.page), version: space.newVersion)
            sealed.insert(top.page)
            stack.removeLast()
        }
        return PageExpectation.of(UnsafeRawPointer(rootBuffer))
    }
}
