import Foundation
import StrataSimulation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// Spec D19: a page that passes its own checks (checksum, number, version) but is not the page
/// its reference expects (a lost write left an older copy of it, or a write of an older page
/// landed at its address) is detected on read and by `verify()`. Every test damages a real
/// file the way a disk would: it keeps the file's image after each commit, commits more, and
/// puts an older image of one page back.
@Suite struct LostWriteTests {
    /// A database file with a clustered table (`t`, rows spilling into overflow pages every
    /// seventh key), a string-keyed table (`s`), and the images of the file after each commit.
    struct History {
        let directory = TemporaryDirectory("lostwrites")
        var path: String { directory.file("db.strata") }
        var images: [[UInt8]] = []
        var pageSizeBytes = 0
    }

    /// `names`: the rows of table "s" (string keys) at the first commit; it grows by 5 a commit.
    static func makeHistory(commits: Int = 8, names: Int = 40) throws -> History {
        var history = History()
        let store = try Store.open(.file(history.path))
        history.pageSizeBytes = store.pageSizeBytes
        for commit in 0..<commits {
            try store.write { write in
                let t = try write.table(named: "t") ?? write.createTable("t", primaryKey: .int(column: 0))
                let s = try write.table(named: "s") ?? write.createTable("s", primaryKey: .string(column: 0))
                for key in 0..<600 where (key + commit) % 3 != 0 || commit == 0 {
                    let text =
                        key % 7 == 0 ? String(repeating: "o\(commit)", count: 2500) : "row \(key) of commit \(commit)"
                    try write.upsert(t.id, values: [.int(Int64(key)), .string(text)])
                }
                for key in 0..<(names + commit * 5) {
                    try write.upsert(s.id, values: [.string("name \(key)"), .int(Int64(commit))])
                }
            }
            history.images.append(try Self.fileBytes(history.path))
        }
        store.close()
        return history
    }

    static func fileBytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes `bytes` at `offset` in place (same inode, as the disk would).
    static func put(_ bytes: ArraySlice<UInt8>, at offset: Int, in path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }

    static func page(_ number: Int, of image: [UInt8], pageSizeBytes: Int) -> ArraySlice<UInt8> {
        let start = number * pageSizeBytes
        guard start + pageSizeBytes <= image.count else { return [] }
        return image[start..<(start + pageSizeBytes)]
    }

    static func loadUInt32(_ bytes: ArraySlice<UInt8>, _ offset: Int) -> UInt32 {
        let start = bytes.startIndex + offset
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + $1]) << (8 * UInt32($1)) }
    }

    /// A 32-bit field of the newest commit slot of `image` (16: catalog root, 24: free-list
    /// head, 32: page count; `CommitSlot`).
    static func newestSlotField(_ image: [UInt8], _ offset: Int) -> UInt32 {
        let slots = FileHeader.slotOffsets.map { (loadUInt64(image, $0 + 8), $0) }
        let newest = slots.max { $0.0 < $1.0 }?.1 ?? FileHeader.slotOffsets[0]
        return loadUInt32(image[...], newest + offset)
    }

    static func loadUInt64(_ image: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(image[offset + $1]) << (8 * UInt64($1)) }
    }

    /// An older image of page `number` from the history: a sealed page of the same type (and
    /// key kind) with that number, written there by an earlier commit, whose bytes differ from
    /// the newest image's: one that passes every check of the page itself.
    static func olderCopy(of number: Int, in history: History) -> ArraySlice<UInt8>? {
        guard let newest = history.images.last else { return nil }
        let current = page(number, of: newest, pageSizeBytes: history.pageSizeBytes)
        guard current.count == history.pageSizeBytes else { return nil }
        for image in history.images.dropLast().reversed() {
            let old = page(number, of: image, pageSizeBytes: history.pageSizeBytes)
            guard old.count == history.pageSizeBytes, old != current,
                old[old.startIndex + PageLayout.typeOffset] == current[current.startIndex + PageLayout.typeOffset],
                old[old.startIndex + PageLayout.flagsOffset] == current[current.startIndex + PageLayout.flagsOffset],
                loadUInt32(old, PageLayout.pageNumberOffset) == UInt32(number),
                loadUInt32(old, PageLayout.checksumOffset) != 0
            else { continue }
            return old
        }
        return nil
    }

    /// What a reader sees of the damaged file: the first error of opening, reading every row
    /// of every table, and beginning a write (which reads the free list); nil when all worked.
    static func readError(_ path: String) -> StorageError? {
        do {
            let store = try Store.open(.file(path), options: StoreOptions(create: false))
            defer { store.close() }
            let read = try store.beginRead()
            defer { read.end() }
            for table in read.tables() {
                try read.forEachRow(table) { _, row in
                    _ = try row.values()
                    return true
                }
            }
            let write = try store.beginWrite()
            write.rollback()
            return nil
        } catch let error as StorageError {
            return error
        } catch {
            return .corruptRecord(reason: "\(error)")
        }
    }

    /// What `verify()` says of the damaged file: its problems, or the typed error that stopped
    /// it from opening the file.
    static func verifyFindings(_ path: String) -> [String] {
        do {
            let store = try Store.open(.file(path), options: StoreOptions(create: false))
            defer { store.close() }
            return try store.verify().problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    /// Puts the older copy of the newest version's page `number` back and checks both
    /// detections name the page as not the one its reference expects.
    static func checkReverted(_ number: Int, in history: History, kind: String) throws {
        let older = try #require(olderCopy(of: number, in: history), "no older copy of \(kind) page \(number)")
        try put(older, at: number * history.pageSizeBytes, in: history.path)
        let error = readError(history.path)
        guard case .referenceMismatch(let page, _, _, let foundVersion, _)? = error else {
            Issue.record("\(kind) page \(number) reverted: the read gave \(String(describing: error))")
            return
        }
        #expect(page == PageNumber(UInt32(number)), "\(kind): \(String(describing: error))")
        #expect(foundVersion == loadUInt64(Array(older), PageLayout.versionOffset))
        let findings = verifyFindings(history.path)
        #expect(
            findings.contains { $0.contains("page \(number): not the page its reference expects") },
            "\(kind) page \(number) reverted: verify found \(findings)")
    }

    /// Pages of the newest image of `type` that have an older copy.
    static func candidates(_ history: History, type: PageType, byteKeys: Bool? = nil) -> [Int] {
        guard let newest = history.images.last else { return [] }
        let pageCount = Int(newestSlotField(newest, 32))
        return (1..<pageCount).filter { number in
            let page = page(number, of: newest, pageSizeBytes: history.pageSizeBytes)
            guard page.count == history.pageSizeBytes, page[page.startIndex + PageLayout.typeOffset] == type.rawValue
            else { return false }
            if let byteKeys, (page[page.startIndex + PageLayout.flagsOffset] & NodeFlags.byteKeys != 0) != byteKeys {
                return false
            }
            return olderCopy(of: number, in: history) != nil
        }
    }

    /// The reachable pages of the newest version (from a clean `verify()` of the undamaged
    /// file): a freed page with an older copy would not be damage.
    static func reachable(_ history: History) throws -> Set<Int> {
        let store = try Store.open(.file(history.path), options: StoreOptions(create: false))
        defer { store.close() }
        let read = try store.beginRead()
        defer { read.end() }
        var pages = Set<Int>()
        // Every page the free list does not hold and that is below the page count.
        let statistics = try store.verify()
        #expect(statistics.isClean, "\(statistics.problems)")
        let free = try freePages(read)
        for page in 1..<Int(read.pageCount) where !free.contains(page) { pages.insert(page) }
        return pages
    }

    static func freePages(_ read: ReadTransaction) throws -> Set<Int> {
        let (entries, _) = try FreeListCodec.read(
            head: read.record.freeListHeadRef, entryCount: read.record.freeListEntryCount,
            reader: read.reader)
        var free = Set<Int>()
        for (run, _) in entries { for page in run.start..<run.end { free.insert(Int(page)) } }
        return free
    }

    @Test("Spec D19: a table page reverted to an older copy of itself is detected on read and by verify")
    func revertedTreePage() throws {
        let history = try Self.makeHistory()
        let live = try Self.reachable(history)
        let leaves = Self.candidates(history, type: .leaf, byteKeys: false).filter(live.contains)
        let branches = Self.candidates(history, type: .branch).filter(live.contains)
        let target = try #require(leaves.first, "no reachable leaf with an older copy")
        try Self.checkReverted(target, in: history, kind: "leaf")
        if let branch = branches.first {
            let again = try Self.makeHistory()
            try Self.checkReverted(branch, in: again, kind: "branch")
        }
    }

    @Test("Spec D19: a stale index page is detected before dropping its table frees the pages it names")
    func staleIndexPageOnTheFreePath() throws {
        // Enough string keys for an index of several leaves under a branch: the stale page is a
        // child, met only by the walk that frees the index.
        let history = try Self.makeHistory(names: 3000)
        let live = try Self.reachable(history)
        // Byte-keyed leaves are the primary-key indexes' (row trees are keyed by row).
        let target = try #require(
            Self.candidates(history, type: .leaf, byteKeys: true).first(where: live.contains),
            "no reachable index page with an older copy")
        let older = try #require(Self.olderCopy(of: target, in: history))
        try Self.put(older, at: target * history.pageSizeBytes, in: history.path)
        let before = try Self.fileBytes(history.path)
        do {
            let store = try Store.open(.file(history.path), options: StoreOptions(create: false))
            defer { store.close() }
            // Both tables in one write: whichever owns the page, the drop must fail before its
            // commit, having freed nothing the stale page names.
            #expect {
                try store.write { write in
                    try write.dropTable("t")
                    try write.dropTable("s")
                }
            } throws: { error in
                guard case StorageError.referenceMismatch(let page, _, _, _, _) = error else { return false }
                return page == PageNumber(UInt32(target))
            }
        }
        #expect(try Self.fileBytes(history.path) == before, "the failed drop changed the file")
    }

    @Test("Spec D19: a write of an older page at another page's address is detected on read and by verify")
    func misdirectedOlderPage() throws {
        let history = try Self.makeHistory()
        let live = try Self.reachable(history)
        let leaves = Self.candidates(history, type: .leaf, byteKeys: false).filter(live.contains)
        let target = try #require(leaves.first, "no reachable leaf with an older copy")
        let newest = try #require(history.images.last)
        // The write meant for `target` landed at `other`: `target` keeps its older copy and
        // `other` holds a page that is not its own.
        let other = try #require(live.sorted().last { $0 != target })
        let older = try #require(Self.olderCopy(of: target, in: history))
        try Self.put(older, at: target * history.pageSizeBytes, in: history.path)
        try Self.put(
            Self.page(target, of: newest, pageSizeBytes: history.pageSizeBytes),
            at: other * history.pageSizeBytes, in: history.path)
        let error = Self.readError(history.path)
        switch error {
        case .referenceMismatch(let page, _, _, _, _)?:
            #expect(page == PageNumber(UInt32(target)))
        case .misdirectedPage(let page, let found)?:
            #expect(page == PageNumber(UInt32(other)) && found == UInt32(target))
        default:
            Issue.record("misdirected older page: the read gave \(String(describing: error))")
        }
        let findings = Self.verifyFindings(history.path)
        #expect(
            findings.contains { $0.contains("page \(target): not the page its reference expects") }
                || findings.contains { $0.contains("page \(other) holds the contents of page \(target)") },
            "verify found \(findings)")
    }

    @Test("Spec D19: a stale overflow page is detected on read and by verify")
    func staleOverflowPage() throws {
        let history = try Self.makeHistory()
        let live = try Self.reachable(history)
        let pages = Self.candidates(history, type: .overflow).filter(live.contains)
        let target = try #require(pages.first, "no reachable overflow page with an older copy")
        try Self.checkReverted(target, in: history, kind: "overflow")
    }

    @Test("Spec D19: a stale free-list page is detected on read and by verify")
    func staleFreeListPage() throws {
        let history = try Self.makeHistory()
        let newest = try #require(history.images.last)
        let head = Int(Self.newestSlotField(newest, 24))
        #expect(head != 0, "the free list is empty")
        // Any page of the chain with an older copy: the head first.
        let chain = Self.candidates(history, type: .freeList)
        let target = chain.contains(head) ? head : try #require(chain.first, "no free-list page with an older copy")
        try Self.checkReverted(target, in: history, kind: "free-list")
    }

    @Test("Spec D19: a stale catalog page is detected on read and by verify")
    func staleCatalogPage() throws {
        let history = try Self.makeHistory()
        let newest = try #require(history.images.last)
        let catalogRoot = Int(Self.newestSlotField(newest, 16))
        #expect(catalogRoot != 0)
        try Self.checkReverted(catalogRoot, in: history, kind: "catalog")
    }

    @Test("Spec D19: a file of the format before page expectations is refused with a typed error")
    func olderFormatIsRefused() throws {
        let history = try Self.makeHistory(commits: 1)
        var bytes = try #require(history.images.last)
        bytes[8] = 1
        let crc = bytes.withUnsafeBytes { raw in
            raw.baseAddress.map { CRC32C.checksum($0, count: FileHeader.checksumOffset) } ?? 0
        }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(508..<512, with: $0) }
        try Self.put(bytes[0..<512], at: 0, in: history.path)
        #expect(Self.readError(history.path) == .unsupportedFormatVersion(found: 1, supported: 2))
    }
}

/// The simulated disk's lost-write fault classes (Spec D19) themselves: an older durable copy
/// coming back in a crash, and a pending write landing at another address.
@Suite struct SimStoreLostWriteFaultTests {
    static let pageSize = 4096

    /// A disk with two pages, each written twice (filled with `first`, synced, then `second`,
    /// synced), so each holds an older copy.
    static func disk(first: UInt8, second: UInt8) throws -> SimStore {
        let sim = try SimStore(name: "lost-write-faults", reservationBytes: 1 << 20)
        try sim.setFileByteCount(3 * pageSize, site: .grow(toBytes: 3 * pageSize))
        for fill in [first, second] {
            for page in 1...2 {
                let bytes = [UInt8](repeating: fill &+ UInt8(page), count: pageSize)
                try bytes.withUnsafeBytes { raw in
                    let base = try #require(raw.baseAddress)
                    try sim.write([
                        WritePiece(
                            offset: page * pageSize, bytes: base, byteCount: pageSize,
                            site: .pageWrite(PageNumber(UInt32(page))))
                    ])
                }
            }
            try sim.sync(.full, site: .phaseOneSync)
        }
        return sim
    }

    @Test("Spec D19: a crash plan brings a region's older durable copy back")
    func revertedOffsetsBringTheOlderCopyBack() throws {
        let sim = try Self.disk(first: 10, second: 20)
        #expect(sim.olderCopyOffsets == [Self.pageSize, 2 * Self.pageSize])
        try sim.crash(SimStore.CrashPlan(fates: [], revertedOffsets: [Self.pageSize]))
        let bytes = sim.durableBytes
        #expect(bytes[Self.pageSize] == 11 && bytes[2 * Self.pageSize - 1] == 11, "page 1 holds its older copy")
        #expect(bytes[2 * Self.pageSize] == 22, "page 2 keeps its newest copy")
    }

    @Test("Spec D19: a misdirected pending write lands at another address and leaves its own stale")
    func misdirectedWriteLeavesItsOwnAddressStale() throws {
        let sim = try Self.disk(first: 10, second: 20)
        let bytes = [UInt8](repeating: 99, count: Self.pageSize)
        try bytes.withUnsafeBytes { raw in
            let base = try #require(raw.baseAddress)
            try sim.write([
                WritePiece(
                    offset: Self.pageSize, bytes: base, byteCount: Self.pageSize,
                    site: .pageWrite(PageNumber(1)))
            ])
        }
        try sim.crash(SimStore.CrashPlan(fates: [.misdirected(toOffset: 2 * Self.pageSize)]))
        let durable = sim.durableBytes
        #expect(durable[Self.pageSize] == 21, "page 1 keeps what it held before the write")
        #expect(durable[2 * Self.pageSize] == 99, "page 2 holds the write meant for page 1")
    }

    @Test("Spec D19: damage at rest brings an older copy back, or writes it at another page")
    func durableCorruptionsUseTheOlderCopies() throws {
        let sim = try Self.disk(first: 10, second: 20)
        sim.corruptDurableImage(.olderCopyMisdirected(sourceOffset: Self.pageSize, targetOffset: 2 * Self.pageSize))
        sim.corruptDurableImage(.revertToOlderCopy(offset: Self.pageSize))
        try sim.reboot()
        let durable = sim.durableBytes
        #expect(durable[Self.pageSize] == 11)
        #expect(durable[2 * Self.pageSize] == 11)
    }
}
