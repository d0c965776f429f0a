/// The commit of a write transaction, above the pager (Pager/Pager.swift has the states):
/// this layer seals the tables' trees and flushes the catalog (Tables), the pager seals the
/// rest, writes, syncs and publishes through the shared file (`PagerClient`).
extension WriteTransaction {
    /// Commits this transaction's changes as `newVersion`: durable (both phases) or, with
    /// `durable: false`, written and published without a slot (Spec D10). Poisons the file
    /// on a failed write or sync (the pager does).
    func commitChanges(durable: Bool) throws(StorageError) -> Version {
        var sealer = Pager.beginCommit(space)
        // Spec D19: pages are sealed bottom-up, so that every reference records the final
        // checksum and version of the page it names: the tables' trees, then the catalog (whose
        // leaves hold the tables' roots), then the free list (the pager, in `commit`).
        for id in dirtyTables.sorted() {
            guard var table = catalog.table(id) else { continue }
            table.rowRootExpectation = try sealer.seal(root: table.rowRoot)
            table.indexRootExpectation = try sealer.seal(root: table.indexRoot)
            catalog.set(table)
        }
        var root = catalogRoot
        try CatalogFlush.flush(
            catalog, root: &root, removedKeys: removedCatalogKeys,
            metadataChanged: catalogMetadataChanged, dirtyTables: dirtyTables,
            schemaChanged: schemaChanged, space: space
        ) { cell throws(StorageError) in
            try self.freeOverflow(ofRowCell: cell)
        }
        catalogRoot = root
        let request = CommitRequest(
            catalogRoot: catalogRoot, schemaVersion: schemaVersion,
            basePageCount: base.pageCount, baseFreeListChain: baseFreeListChain,
            slotToWrite: slotToWrite, durable: durable)
        let outcome = try Pager.commit(space, sealer: &sealer, request: request, file: file.pagerFile, client: file)
        let newVersion = outcome.slot.version
        file.note?.ring()  // other processes' realms hear of it (after the publish they will read)
        file.withState { state in state.freeListCache = (newVersion, outcome.freeList, outcome.freeListChain) }
        file.remember(catalog, for: newVersion)
        return newVersion
    }

    /// Makes this transaction's base durable if no slot names it yet (commits made with
    /// `durable: false`; `Store.makeDeferredCommitsDurable`). Returns whether there was
    /// anything to do. The transaction changes nothing else.
    func makeBaseDurable() throws(StorageError) -> Bool {
        let identity = file.header.fileIdentity
        // Only for the seeded bug `groupDurableInPart`: the first commit of the group.
        let groupPart =
            file.hooks.has(.groupDurableInPart)
            ? file.versions.record(of: durableVersion.next).map { CommitSlot(record: $0, fileIdentity: identity) } : nil
        return try Pager.makeBaseDurable(
            base: CommitSlot(record: base, fileIdentity: identity),
            durableVersion: durableVersion, groupPart: groupPart, slotIndex: slotToWrite,
            file: file.pagerFile, client: file)
    }
}
