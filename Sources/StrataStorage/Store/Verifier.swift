/// `Store.verify()`: walks every page reachable from every pinned version, re-checking each
/// page's checksum (the cache is bypassed), number, type and structure, that each page is the
/// one its reference expects (version and checksum, Spec D19: lost and misdirected writes), key order and
/// bounds, leaf depth, row counts, primary keys and their index, incarnations (only tables
/// with an integer primary key store them, none beyond the table's counter), and the free
/// space rules:
/// no page reachable from a version is free for that version, and every page of the newest
/// version is reachable or free (nothing leaks).
struct Verifier {
    let file: SharedFile
    var report = VerificationReport()

    init(file: SharedFile) { self.file = file }

    mutating func run(slotFallback: SlotFallback?) throws(StorageError) -> VerificationReport {
        report.slotFallback = slotFallback
        let newest = try ReadTransaction(file: file, kind: .frozen)
        defer { newest.end() }
        report.newestVersion = newest.version
        report.pageCount = Int(newest.record.pageCount)
        var records = [newest.record]
        for record in file.pins.pinnedRecords() where record.version != newest.version { records.append(record) }
        let known = Set(records.map(\.version))
        for slot in file.versions.pinningSlots() where !known.contains(slot.version) {
            if let record = file.versions.record(of: slot.version) {
                records.append(record)
            } else {
                report.report(
                    .notChecked(version: slot.version, reason: "pinned by process \(slot.pid), record no longer shared")
                )
            }
        }
        // Free pages of the newest version, with the version that released each.
        let newestReader = reader(newest.record)
        var free: [UInt32: Version] = [:]
        var freeChain: [UInt32] = []
        do {
            let (entries, chain) = try FreeListCodec.read(
                head: newest.record.freeListHeadRef,
                entryCount: newest.record.freeListEntryCount, reader: newestReader)
            freeChain = chain
            for (run, releasedBy) in entries {
                for page in run.start..<run.end { free[page] = releasedBy }
            }
        } catch {
            report.report(.unreadable(version: newest.version, error: error))
        }
        report.freePageCount = free.count
        report.pendingFreePageCount =
            free.values.filter { $0 > (file.versions.oldestPinnedVersion() ?? newest.version) }.count
        for record in records.sorted(by: { $0.version > $1.version }) {
            var reachable = try walkVersion(record, isNewest: record.version == newest.version)
            if record.version == newest.version {
                for page in freeChain { markReachable(page, in: &reachable, version: record.version) }
                report.reachablePageCount = reachable.count + 1
                checkNewestSpace(reachable: reachable, free: free, pageCount: record.pageCount)
            }
            for page in reachable {
                if let releasedBy = free[page], releasedBy <= record.version {
                    report.report(
                        .reachableAndFree(version: record.version, page: PageNumber(page), releasedBy: releasedBy))
                }
            }
            report.versionsChecked.append(record.version)
        }
        return report
    }

    private func reader(_ record: VersionRecord) -> PageReader {
        PageReader(
            base: file.store.base, pageSizeBytes: file.pageSizeBytes, pageCount: record.pageCount,
            readVersion: record.version, cache: file.checksumCache, trustCache: false,
            checkReferences: !file.hooks.has(.skipReferenceCheck))
    }

    private mutating func markReachable(_ page: UInt32, in reachable: inout Set<UInt32>, version: Version) {
        if !reachable.insert(page).inserted {
            report.report(.pageReachedTwice(version: version, page: PageNumber(page)))
        }
    }

    private mutating func checkNewestSpace(reachable: Set<UInt32>, free: [UInt32: Version], pageCount: UInt32) {
        guard pageCount > 1 else { return }
        for page in 1..<pageCount where !reachable.contains(page) && free[page] == nil {
            report.report(.pageLeaked(page: PageNumber(page)))
        }
    }

    // MARK: one version

    private mutating func walkVersion(_ record: VersionRecord, isNewest: Bool) throws(StorageError) -> Set<UInt32> {
        let reader = reader(record)
        var reachable = Set<UInt32>()
        let catalog: Catalog
        do {
            catalog = try TableReads(source: reader, reader: reader, space: nil).loadCatalog(
                root: record.catalogRootRef)
        } catch {
            report.report(.unreadable(version: record.version, error: error))
            return reachable
        }
        _ = walkTree(
            record.catalogRootRef, byteKeys: true, reader: reader, version: record.version, reachable: &reachable
        ) {
            verifier, leaf, index, reachable in
            // Catalog values may hold large schemas in overflow pages.
            let cell = leaf.value(index)
            verifier.markOverflow(ofRow: cell, reader: reader, version: record.version, reachable: &reachable)
        }
        for table in catalog.tablesByName.values.sorted(by: { $0.name < $1.name }) {
            try walkTable(table, reader: reader, version: record.version, reachable: &reachable)
            if isNewest { report.tables.append(.init(name: table.name, rowCount: table.rowCount)) }
        }
        return reachable
    }

    private mutating func walkTable(
        _ table: TableInfo, reader: PageReader, version: Version,
        reachable: inout Set<UInt32>
    ) throws(StorageError) {
        var primaryKeys: [[UInt8]: ObjectKey] = [:]
        var secondaryEntries = Set<[UInt8]>()
        let counted = walkTree(
            PageRef(page: table.rowRoot, expectation: table.rowRootExpectation), byteKeys: false, reader: reader,
            version: version, reachable: &reachable
        ) {
            verifier, leaf, index, reachable in
            let key = ObjectKey(intKeyFromImage(leaf.keyImage(index)))
            let cell = leaf.cell(index)
            verifier.markOverflow(ofRow: cell, reader: reader, version: version, reachable: &reachable)
            verifier.checkPrimaryKey(table, key: key, cell: cell, reader: reader, version: version, into: &primaryKeys)
            verifier.expectSecondaryEntries(
                table, key: key, cell: cell, reader: reader, version: version, into: &secondaryEntries)
        }
        if counted != table.rowCount {
            report.report(
                .rowCountMismatch(version: version, table: table.name, recorded: table.rowCount, counted: counted))
        }
        let hasStringPrimaryKey: Bool
        if case .string = table.primaryKey { hasStringPrimaryKey = true } else { hasStringPrimaryKey = false }
        guard hasStringPrimaryKey || table.indexedColumns != 0 else {
            if table.indexRoot != 0 {
                report.report(
                    .indexMismatch(
                        version: version, table: table.name, detail: "index tree without a string primary key or index")
                )
            }
            return
        }
        var indexed: [[UInt8]: ObjectKey] = [:]
        var secondaryFound = Set<[UInt8]>()
        _ = walkTree(
            PageRef(page: table.indexRoot, expectation: table.indexRootExpectation), byteKeys: true, reader: reader,
            version: version, reachable: &reachable
        ) {
            verifier, leaf, index, _ in
            let key = leaf.fullKey(index)
            if SecondaryIndex.isEntry(key) {
                // Spec W26: a secondary entry holds its object key in its key; its value is empty.
                if leaf.value(index).count != 0 {
                    verifier.report.report(
                        .indexMismatch(version: version, table: table.name, detail: "a secondary entry with a value"))
                }
                secondaryFound.insert(Array(key))
                return
            }
            guard hasStringPrimaryKey else {
                verifier.report.report(
                    .indexMismatch(
                        version: version, table: table.name, detail: "a primary key entry without a string primary key")
                )
                return
            }
            let value = leaf.value(index)
            guard value.count == 8, let base = value.baseAddress else {
                verifier.report.report(
                    .indexMismatch(version: version, table: table.name, detail: "entry of \(value.count) bytes"))
                return
            }
            indexed[Array(leaf.fullKey(index))] = ObjectKey(Int64(bitPattern: loadUInt64(base, 0)))
        }
        if indexed != primaryKeys {
            let missing = primaryKeys.filter { indexed[$0.key] != $0.value }.count
            let extra = indexed.filter { primaryKeys[$0.key] != $0.value }.count
            report.report(
                .indexMismatch(
                    version: version, table: table.name,
                    detail: "\(missing) objects missing or wrong in the index, \(extra) stale entries"))
        }
        if secondaryFound != secondaryEntries {
            let missing = secondaryEntries.subtracting(secondaryFound).count
            let extra = secondaryFound.subtracting(secondaryEntries).count
            report.report(
                .indexMismatch(
                    version: version, table: table.name,
                    detail: "\(missing) entries missing from the secondary indexes, \(extra) stale entries"))
        }
    }

    /// The secondary index entries the row `key` must have (Spec W26).
    private mutating func expectSecondaryEntries(
        _ table: TableInfo, key: ObjectKey, cell: UnsafeRawBufferPointer, reader: PageReader,
        version: Version, into entries: inout Set<[UInt8]>
    ) {
        guard table.indexedColumns != 0 else { return }
        let columns = SecondaryIndex.columns(of: table.indexedColumns)
        let values: [Value]
        do {
            values = try RowView.with(cell: cell, reader: reader, dirtyPages: nil) { row in
                try columns.map { column throws(StorageError) in try row.value(at: column) }
            }
        } catch let error as StorageError {
            report.report(.unreadable(version: version, error: error))
            return
        } catch {
            return
        }
        for (column, value) in zip(columns, values) {
            guard let prefix = SecondaryIndex.prefix(column: column, value: value, pageSizeBytes: reader.pageSizeBytes)
            else { continue }
            entries.insert(SecondaryIndex.entryKey(prefix: prefix, key: key))
        }
    }

    private mutating func checkPrimaryKey(
        _ table: TableInfo, key: ObjectKey, cell: UnsafeRawBufferPointer, reader: PageReader,
        version: Version, into primaryKeys: inout [[UInt8]: ObjectKey]
    ) {
        guard let column = table.primaryKey.column else {
            if cell.first == RowCodec.identifiedFormat {
                report.report(
                    .incarnationMismatch(
                        version: version, table: table.name, key: key,
                        detail: "an incarnation in a table that gives out none"))
            }
            return
        }
        let value: Value
        let incarnation: Incarnation
        do {
            (value, incarnation) = try RowView.with(cell: cell, reader: reader, dirtyPages: nil) { row in
                (try row.value(at: column), row.incarnation)
            }
        } catch let error as StorageError {
            report.report(.unreadable(version: version, error: error))
            return
        } catch {
            return
        }
        switch table.primaryKey {
        case .int:
            if (try? IndexKeys.clusteredKey(for: value, table: table)) != key {
                report.report(.primaryKeyMismatch(version: version, table: table.name, key: key))
            }
            // The counter names the newest incarnation given out: a row beyond it would let a
            // later insert give its identity out again.
            if incarnation.rawValue > UInt64(max(table.nextKey, 0)) {
                report.report(
                    .incarnationMismatch(
                        version: version, table: table.name, key: key,
                        detail: "\(incarnation) beyond the counter \(table.nextKey)"))
            }
        case .string:
            if incarnation != .keyIsIdentity {
                report.report(
                    .incarnationMismatch(
                        version: version, table: table.name, key: key,
                        detail: "an incarnation in a table that gives out none"))
            }
            guard
                let indexKey = try? IndexKeys.stringIndexKey(
                    for: value, table: table, pageSizeBytes: file.pageSizeBytes)
            else {
                report.report(.primaryKeyMismatch(version: version, table: table.name, key: key))
                return
            }
            if primaryKeys.updateValue(key, forKey: indexKey) != nil {
                report.report(
                    .indexMismatch(version: version, table: table.name, detail: "primary key \(value) used twice"))
            }
        case .none:
            break
        }
    }

    /// Decodes a row fully (reading its overflow values) and marks its overflow pages.
    private mutating func markOverflow(
        ofRow cell: UnsafeRawBufferPointer, reader: PageReader, version: Version,
        reachable: inout Set<UInt32>
    ) {
        do {
            if let whole = try wholeRowOverflow(cell) {
                for page in try OverflowChain.pages(first: whole.first, byteCount: whole.byteCount, source: reader) {
                    markReachable(page, in: &reachable, version: version)
                }
            }
            let chains = try RowView.with(cell: cell, reader: reader, dirtyPages: nil) { row in
                _ = try row.values()
                return try row.overflowReferences()
            }
            for (first, byteCount) in chains {
                for page in try OverflowChain.pages(first: first, byteCount: byteCount, source: reader) {
                    markReachable(page, in: &reachable, version: version)
                }
            }
        } catch let error as StorageError {
            report.report(.unreadable(version: version, error: error))
        } catch {
            report.report(.unreadable(version: version, error: .corruptRecord(reason: "\(error)")))
        }
    }

    // MARK: trees

    private struct Pending {
        let page: UInt32
        /// What the page's reference (its parent, the catalog or the slot) expects of it.
        let expectation: PageExpectation
        let depth: Int
        /// Inclusive lower and exclusive upper bound, as memcmp-ordered bytes.
        let low: [UInt8]?
        let high: [UInt8]?
    }

    /// Walks a tree, checking structure and bounds; calls `visit` for each leaf entry.
    /// Returns the number of leaf entries.
    private mutating func walkTree(
        _ rootRef: PageRef, byteKeys: Bool, reader: PageReader, version: Version,
        reachable: inout Set<UInt32>,
        visit: (inout Verifier, NodeView, Int, inout Set<UInt32>) -> Void
    ) -> Int {
        let root = rootRef.page
        guard root != 0 else { return 0 }
        var stack = [Pending(page: root, expectation: rootRef.expectation, depth: 0, low: nil, high: nil)]
        var leafDepth: Int?
        var entries = 0
        while let pending = stack.popLast() {
            if pending.depth >= TreeSearch.depthMax {
                report.report(.keyOrder(version: version, page: PageNumber(pending.page), detail: "tree too deep"))
                continue
            }
            let node: NodeView
            do {
                node = try reader.node(pending.page)
                if reader.checkReferences { try pending.expectation.check(node.base, number: pending.page) }
            } catch {
                report.report(.unreadable(version: version, error: error))
                continue
            }
            markReachable(pending.page, in: &reachable, version: version)
            guard node.hasByteKeys == byteKeys else {
                report.report(.keyOrder(version: version, page: PageNumber(pending.page), detail: "wrong key kind"))
                continue
            }
            checkKeys(node, page: pending.page, low: pending.low, high: pending.high, version: version)
            if node.isLeaf {
                if pending.page != root && node.count == 0 {
                    report.report(.keyOrder(version: version, page: PageNumber(pending.page), detail: "empty leaf"))
                }
                if let depth = leafDepth, depth != pending.depth {
                    report.report(.unevenLeafDepth(version: version, page: PageNumber(pending.page)))
                }
                leafDepth = pending.depth
                for index in 0..<node.count { visit(&self, node, index, &reachable) }
                entries += node.count
                continue
            }
            // Children pushed right to left so that leaves are visited in key order.
            for child in stride(from: node.count, through: 0, by: -1) {
                let low = child == 0 ? pending.low : sortableKey(node, child - 1)
                let high = child == node.count ? pending.high : sortableKey(node, child)
                stack.append(
                    Pending(
                        page: node.child(child), expectation: node.childExpectation(child),
                        depth: pending.depth + 1, low: low, high: high))
            }
        }
        return entries
    }

    /// A key as bytes whose memcmp order is the tree's order.
    private func sortableKey(_ node: NodeView, _ index: Int) -> [UInt8] {
        if node.hasByteKeys { return Array(node.fullKey(index)) }
        let image = node.keyImage(index)
        return (0..<8).map { UInt8(truncatingIfNeeded: image >> (56 - 8 * $0)) }
    }

    private mutating func checkKeys(_ node: NodeView, page: UInt32, low: [UInt8]?, high: [UInt8]?, version: Version) {
        var previous: [UInt8]?
        for index in 0..<node.count {
            let key = sortableKey(node, index)
            if node.hasByteKeys && bytesKeyImage(node.fullKey(index)) != node.keyImage(index) {
                report.report(
                    .keyOrder(
                        version: version, page: PageNumber(page), detail: "entry \(index) image does not match its key")
                )
            }
            if let previous, !(previous.lexicographicallyPrecedes(key)) {
                report.report(
                    .keyOrder(
                        version: version, page: PageNumber(page), detail: "entry \(index) not above entry \(index - 1)")
                )
            }
            if let low, key.lexicographicallyPrecedes(low) {
                report.report(
                    .keyOrder(
                        version: version, page: PageNumber(page), detail: "entry \(index) below the parent's bound"))
            }
            if let high, !key.lexicographicallyPrecedes(high) {
                report.report(
                    .keyOrder(
                        version: version, page: PageNumber(page), detail: "entry \(index) not below the parent's bound")
                )
            }
            previous = key
        }
    }
}

extension Store {
    /// Checks the whole file (every pinned version) and reports what is wrong, and whether the
    /// file fell back to its older commit slot (Spec D15).
    /// - Complexity: O(pages reachable from all pinned versions).
    public func verify() throws(StorageError) -> VerificationReport {
        let fallback = try slotFallback()
        var verifier = Verifier(file: file)
        return try verifier.run(slotFallback: fallback)
    }
}
