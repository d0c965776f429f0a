import Foundation
import StrataSimulation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// The kinds of store and what opening, closing, copying and deleting them means: in-memory
/// stores shared by identifier, read-only files, compacted copies, reopening, deleting the
/// files, the map capacity limit, and page sizes.
@Suite struct StoreKindsTests {
    // MARK: helpers

    static let options = StoreOptions(
        maximumFileSizeBytes: 256 << 20, readerSlotCount: 16, growthChunkBytesMin: 64 << 10)

    static func caseName(_ error: StorageError?) -> String {
        guard let error else { return "no error" }
        return Mirror(reflecting: error).children.first?.label ?? error.description
    }

    static func uniqueIdentifier(_ base: String) -> String {
        "\(base)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    static func fileByteCount(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue
            ?? -1
    }

    /// Several tables with every primary-key kind, overflow values, a schema and a schema
    /// version, after churn that leaves free pages behind. Returns the model.
    static func populate(_ store: Store, rounds: Int = 6) throws -> ContentModel {
        var model = ContentModel()
        var random = SplitMix64(seed: 77)
        try store.write { write in
            try write.createTable("items", primaryKey: .int(column: 0), schema: [9, 8, 7])
            try write.createTable("names", primaryKey: .string(column: 0))
            try write.createTable("log")
            write.storedSchemaVersion = 3
            model.tables = ["items": [:], "names": [:], "log": [:]]
        }
        for round in 0..<rounds {
            try store.write { write in
                let items = try #require(write.table(named: "items"))
                let names = try #require(write.table(named: "names"))
                let log = try #require(write.table(named: "log"))
                for _ in 0..<300 {
                    let key = Int64(random.draw(below: 600))
                    if random.chance(75) {
                        let text =
                            random.chance(5)
                            ? String(repeating: "big", count: 3000) : "item \(key) r\(round)"
                        let values: [Value] = [
                            .int(key), .string(text), .list([.int(key), .bool(round % 2 == 0)]),
                        ]
                        try write.upsert(items.id, values: values)
                        model.tables["items", default: [:]][key] = values
                    } else if try write.delete(items.id, key: ObjectKey(key)) {
                        model.tables["items", default: [:]][key] = nil
                    }
                }
                for index in 0..<40 {
                    let name = "n\(random.draw(below: 200))"
                    if let existing = try write.objectKey(names, primaryKey: .string(name)) {
                        try write.delete(names.id, key: existing)
                        model.tables["names", default: [:]][existing.rawValue] = nil
                    } else {
                        let values: [Value] = [.string(name), .double(Double(index) / 8)]
                        let key = try write.insert(names.id, values: values)
                        model.tables["names", default: [:]][key.rawValue] = values
                    }
                }
                let values: [Value] = [
                    .int(Int64(round)), .binary([UInt8](repeating: UInt8(round), count: 100)),
                ]
                let key = try write.insert(log.id, values: values)
                model.tables["log", default: [:]][key.rawValue] = values
            }
        }
        return model
    }

    // MARK: in-memory stores

    /// Handles of one identifier share contents; another identifier is another store; when
    /// the last handle and transaction are gone, the contents are gone.
    @Test func inMemoryStoresAreSharedByIdentifierAndVanishWithTheLastHandle() throws {
        let identifier = Self.uniqueIdentifier("x")
        var digest: UInt64 = 0
        do {
            let first = try Store.open(.memory(identifier: identifier), options: Self.options)
            #expect(!first.isDurable)
            try first.write { write in
                let table = try write.createTable("T")
                try write.insert(table.id, values: [.string("from first")])
            }
            let second = try Store.open(.memory(identifier: identifier), options: Self.options)
            let read = try second.beginRead()
            #expect(read.table(named: "T")?.rowCount == 1)
            read.end()
            try second.write { write in
                try write.insert(
                    try #require(write.table(named: "T")).id, values: [.string("from second")])
            }
            #expect(first.newestVersion == second.newestVersion)
            let firstRead = try first.beginRead()
            #expect(firstRead.table(named: "T")?.rowCount == 2)
            digest = try firstRead.contentDigest()
            firstRead.end()

            let other = try Store.open(
                .memory(identifier: identifier + "-other"), options: Self.options)
            #expect(other.newestVersion == Version(1))
            let otherRead = try other.beginRead()
            #expect(otherRead.tables().isEmpty)
            otherRead.end()

            // A transaction keeps the contents alive after every handle is closed.
            let survivor = try second.beginRead(.frozen)
            first.close()
            second.close()
            let third = try Store.open(.memory(identifier: identifier), options: Self.options)
            let thirdRead = try third.beginRead()
            #expect(
                try thirdRead.contentDigest() == digest,
                "contents vanished while a transaction still used them")
            thirdRead.end()
            third.close()
            survivor.end()
        }
        // Every handle and transaction is gone now.
        let reopened = try Store.open(.memory(identifier: identifier), options: Self.options)
        #expect(reopened.newestVersion == Version(1))
        let read = try reopened.beginRead()
        #expect(read.tables().isEmpty, "the contents of a released in-memory store survived")
        #expect(try read.contentDigest() != digest)
        read.end()
    }

    // MARK: read-only

    /// A read-only handle reads (also commits made meanwhile through a writable handle) and
    /// refuses to write; a missing file is not created.
    @Test func readOnlyOpenReadsAndRefusesWrites() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("read-only.strata")
        let missing = #expect(throws: StorageError.self) {
            _ = try Store.open(.file(path), options: StoreOptions(create: true, readOnly: true))
        }
        #expect(missing == .fileNotFound(path: path))
        #expect(!Store.fileExists(path: path))

        let writer = try Store.open(.file(path), options: Self.options)
        let model = try Self.populate(writer, rounds: 2)
        var readOnlyOptions = Self.options
        readOnlyOptions.readOnly = true
        let reader = try Store.open(.file(path), options: readOnlyOptions)
        #expect(reader.isReadOnly)
        #expect(!writer.isReadOnly)
        let read = try reader.beginRead()
        #expect(try model.matches(read))
        read.end()
        #expect(throws: StorageError.readOnly) { _ = try reader.beginWrite() }
        #expect(throws: StorageError.readOnly) { _ = try reader.tryBeginWrite() }
        // Refusing left the write lock free.
        let write = try #require(
            try writer.tryBeginWrite(), "the read-only handle kept the write lock")
        try write.insert(try #require(write.table(named: "log")).id, values: [.string("later")])
        let version = try write.commit()
        #expect(reader.newestVersion == version)
        let later = try reader.beginRead()
        #expect(later.version == version)
        #expect(later.table(named: "log")?.rowCount == (model.tables["log"]?.count ?? 0) + 1)
        later.end()
        #expect(try reader.verify().isClean)
    }

    // MARK: copies and reopening

    /// `writeCompactedCopy(toPath:)`: the copy verifies, has the same digest, keeps ids, keys,
    /// schemas and the schema version, and is smaller than a churned source.
    @Test func compactedCopyVerifiesHasTheSameDigestAndIsSmaller() throws {
        let directory = TemporaryDirectory()
        let source = directory.file("source.strata")
        let copyPath = directory.file("copy.strata")
        let store = try Store.open(.file(source), options: Self.options)
        let model = try Self.populate(store, rounds: 12)
        let read = try store.beginRead()
        let digest = try read.contentDigest()
        let sourceStatistics = try store.statistics()
        #expect(
            sourceStatistics.reusablePageCount + sourceStatistics.pinnedFreePageCount > 0,
            "the churn left no free pages")
        try store.writeCompactedCopy(toPath: copyPath)
        let existing = #expect(throws: StorageError.self) {
            try store.writeCompactedCopy(toPath: copyPath)
        }
        #expect(Self.caseName(existing) == "invalidArgument")

        let copy = try Store.open(.file(copyPath), options: Self.options)
        let report = try copy.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
        let copyRead = try copy.beginRead()
        #expect(try copyRead.contentDigest() == digest)
        #expect(try model.matches(copyRead))
        #expect(copyRead.schemaVersion == read.schemaVersion)
        #expect(copyRead.tables().map(\.id) == read.tables().map(\.id))
        #expect(copyRead.table(named: "items")?.schema == [9, 8, 7])
        let copyStatistics = try copy.statistics()
        #expect(
            copyStatistics.pageCount < sourceStatistics.pageCount,
            "\(copyStatistics.pageCount) vs \(sourceStatistics.pageCount)")
        #expect(
            copyStatistics.reusablePageCount + copyStatistics.pinnedFreePageCount == 0,
            "a compacted copy has free pages")
        #expect(
            copyStatistics.pageCount == report.reachablePageCount,
            "a compacted copy holds only reachable pages")
        let sizes = (copy: Self.fileByteCount(copyPath), source: Self.fileByteCount(source))
        let pages = copyStatistics.pageCount
        #expect(
            sizes.copy <= sizes.source,
            "copy: \(sizes.copy) bytes, \(pages) pages; source: \(sizes.source) bytes")

        copyRead.end()
        // Keys continue the same way in both: the next automatic key is kept.
        let nextInSource = try store.write { write in
            try write.insert(try #require(write.table(named: "log")).id, values: [])
        }
        let nextInCopy = try copy.write { write in
            try write.insert(try #require(write.table(named: "log")).id, values: [])
        }
        #expect(nextInSource == nextInCopy)

        // A copy of an older version, from a read kept open.
        let olderPath = directory.file("older.strata")
        try store.writeCompactedCopy(toPath: olderPath, from: read)
        let older = try Store.open(.file(olderPath), options: Self.options)
        let olderRead = try older.beginRead()
        #expect(try olderRead.contentDigest() == digest)
        olderRead.end()
        read.end()
        #expect(try older.verify().isClean)
    }

    /// Reopening after a clean close preserves everything.
    @Test func reopenAfterCleanClosePreservesEverything() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("reopen.strata")
        var digest: UInt64 = 0
        var version = Version.none
        var model = ContentModel()
        do {
            let store = try Store.open(.file(path), options: Self.options)
            model = try Self.populate(store, rounds: 4)
            let read = try store.beginRead()
            digest = try read.contentDigest()
            version = read.version
            read.end()
            store.close()
        }
        let store = try Store.open(.file(path), options: Self.options)
        #expect(store.newestVersion == version)
        #expect(store.pinnedVersionCount == 0)
        let read = try store.beginRead()
        #expect(try read.contentDigest() == digest)
        #expect(try model.matches(read))
        #expect(read.schemaVersion == 3)
        #expect(read.table(named: "items")?.schema == [9, 8, 7])
        read.end()
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
        // And it keeps working, continuing the automatic keys where they were.
        let key = try store.write { write in
            try write.insert(try #require(write.table(named: "log")).id, values: [.null])
        }
        #expect(key.rawValue == (model.tables["log"]?.keys.max() ?? -1) + 1)
        #expect(store.newestVersion == version.next)
    }

    /// A deletion in another process holds the lock file exclusively while it removes the
    /// files (as the API's `deleteFiles` does); an open that mapped the old data file and then
    /// waited for that lock opens the new file instead of the deleted one.
    @Test("Spec X28: an open that waited for a deletion's lock opens a new file, not the deleted one")
    func anOpenThatWaitedForADeletionOpensTheNewFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("raced.strata")
        do {
            let store = try Store.open(.file(path), options: Self.options)
            _ = try Self.populate(store, rounds: 1)
            #expect(store.newestVersion > Version(1))
            store.close()
        }
        let lock = open(path + ".lock", O_RDWR | O_CLOEXEC)
        #expect(lock >= 0)
        #expect(flock(lock, LOCK_EX | LOCK_NB) == 0)
        let opened = Lock<Result<Version, StorageError>?>(nil)
        let opener = Thread {
            let result = Result { () throws(StorageError) -> Version in
                let store = try Store.open(.file(path), options: Self.options)
                defer { store.close() }
                return store.newestVersion
            }
            opened.withLock { $0 = result }
        }
        opener.start()
        // Time for the opener to map the old file and reach the lock, which it cannot pass.
        Thread.sleep(forTimeInterval: 0.3)
        #expect(opened.withLock { $0 } == nil, "the open did not wait for the deletion's lock")
        #expect(try Store.deleteFiles(path: path, keepingLockFile: true))
        close(lock)
        var waited = 0
        while opened.withLock({ $0 }) == nil && waited < 60_000 {  // a hang guard only
            usleep(1_000)
            waited += 1
        }
        let version = try #require(opened.withLock { $0 }).get()
        #expect(version == Version(1), "the open read the deleted file")
        #expect(Store.fileExists(path: path))
    }

    /// `deleteFiles` removes the database file and its lock file, and says whether it existed.
    @Test func deleteFilesRemovesTheFileTheLockFileAndTheNote() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("doomed.strata")
        do {
            let store = try Store.open(.file(path), options: Self.options)
            _ = try Self.populate(store, rounds: 1)
            store.close()
        }
        #expect(Store.files(for: path) == [path, path + ".lock", path + ".note"])
        #expect(Store.fileExists(path: path))
        #expect(Store.fileExists(path: path + ".lock"))
        #expect(Store.fileExists(path: path + ".note"))
        #expect(try Store.deleteFiles(path: path))
        #expect(!Store.fileExists(path: path))
        #expect(!Store.fileExists(path: path + ".lock"))
        #expect(!Store.fileExists(path: path + ".note"))
        #expect(try Store.deleteFiles(path: path) == false)
        // A new database can be created in its place.
        let fresh = try Store.open(.file(path), options: Self.options)
        #expect(fresh.newestVersion == Version(1))
        let read = try fresh.beginRead()
        #expect(read.tables().isEmpty)
        read.end()
    }

    // MARK: limits

    /// Spec L8: a growing commit beyond `maximumFileSizeBytes` fails with a typed
    /// `.mapCapacityExceeded`; the code defines the handle as poisoned afterwards (a failed
    /// commit I/O step), and the committed data stays readable after a reopen.
    @Test func growingPastTheMapCapacityIsATypedError() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("capacity.strata")
        let capacity = 2 << 20
        let options = StoreOptions(
            maximumFileSizeBytes: capacity, readerSlotCount: 16, growthChunkBytesMin: 64 << 10)
        var committed = ContentModel()
        var failure: StorageError?
        do {
            let store = try Store.open(.file(path), options: options)
            try store.write { write in try write.createTable("blobs", primaryKey: .int(column: 0)) }
            committed.tables["blobs"] = [:]
            for key in Int64(0)..<40 {
                let write = try store.beginWrite()
                let values: [Value] = [
                    .int(key), .binary([UInt8](repeating: UInt8(key), count: 200_000)),
                ]
                try write.insert(try #require(write.table(named: "blobs")).id, values: values)
                do {
                    try write.commit()
                    committed.tables["blobs", default: [:]][key] = values
                } catch {
                    failure = error
                    break
                }
            }
            #expect(
                Self.caseName(failure) == "mapCapacityExceeded", "\(String(describing: failure))")
            if case .mapCapacityExceeded(let requested, let reserved)? = failure {
                #expect(requested > capacity)
                #expect(reserved == capacity)
            }
            #expect(store.isPoisoned)
            let next = #expect(throws: StorageError.self) { _ = try store.beginWrite() }
            #expect(Self.caseName(next) == "poisoned")
            store.close()
        }
        #expect(
            (committed.tables["blobs"]?.count ?? 0) >= 5,
            "too few commits fit: \(committed.tables["blobs"]?.count ?? 0)")
        // Reopening (with room to map what is on disk) recovers the last committed version.
        var roomy = options
        roomy.maximumFileSizeBytes = 64 << 20
        let reopened = try Store.open(.file(path), options: roomy)
        let read = try reopened.beginRead()
        #expect(try committed.matches(read))
        read.end()
        #expect(try reopened.verify().isClean)
    }

    /// A failed growing commit must leave a file that opens again with the same options:
    /// "reopen recovers" (Docs/architecture.md §2) should not need a larger map.
    @Test func reopenWithTheSameOptionsAfterAFailedGrowth() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("capacity-reopen.strata")
        let options = StoreOptions(
            maximumFileSizeBytes: 1 << 20, readerSlotCount: 16, growthChunkBytesMin: 64 << 10)
        do {
            let store = try Store.open(.file(path), options: options)
            try store.write { write in
                let table = try write.createTable("blobs")
                try write.insert(table.id, values: [.binary([UInt8](repeating: 1, count: 100_000))])
            }
            let write = try store.beginWrite()
            try write.insert(
                try #require(write.table(named: "blobs")).id,
                values: [.binary([UInt8](repeating: 2, count: 2_000_000))])
            let error = #expect(throws: StorageError.self) { _ = try write.commit() }
            #expect(Self.caseName(error) == "mapCapacityExceeded")
            store.close()
        }
        let sizeOnDisk = Self.fileByteCount(path)
        var reopenError: StorageError?
        do {
            let reopened = try Store.open(.file(path), options: options)
            let read = try reopened.beginRead()
            #expect(read.table(named: "blobs")?.rowCount == 1)
            read.end()
        } catch {
            reopenError = error
        }
        #expect(
            reopenError == nil,
            "reopen failed: \(String(describing: reopenError)); file is \(sizeOnDisk) bytes")
    }

    /// `maximumFileSizeBytes` is the largest the file may grow to: commits whose data fits
    /// must succeed even when the default growth chunk would overshoot the limit.
    @Test func smallMapCapacityStillAcceptsCommitsThatFit() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("small-map.strata")
        // Default growth chunk (1 MiB) with a 512 KiB map: a 3-page commit fits easily.
        let options = StoreOptions(maximumFileSizeBytes: 512 << 10, readerSlotCount: 16)
        let store = try Store.open(.file(path), options: options)
        var outcome: String = "committed"
        do {
            try store.write { write in
                let table = try write.createTable("T")
                try write.insert(table.id, values: [.string("tiny")])
            }
        } catch let error as StorageError {
            outcome = Self.caseName(error)
        }
        #expect(
            outcome == "committed", "a commit of three pages into a 512 KiB map: \(outcome)")
    }

    /// `maximumFileSizeBytes` bounds a simulated store too. The engine sizes its checksum
    /// cache (one 8-byte entry per page, unchecked index) from this option, so a simulated
    /// store growing past it would index beyond the cache. Kept below 512 pages, where the
    /// cache's page-rounded mapping still covers the index, so this test cannot crash.
    @Test func simulatedStoreHonoursTheMapCapacity() throws {
        let sim = try SimStore(name: "sim-capacity", reservationBytes: 64 << 20)
        let options = StoreOptions(
            maximumFileSizeBytes: 256 << 10, readerSlotCount: 16, growthChunkBytesMin: 16 << 10)
        let store = try Store.open(.simulated(sim), options: options)
        var outcome = "committed"
        do {
            try store.write { write in
                let table = try write.createTable("blobs")
                try write.insert(
                    table.id, values: [.binary([UInt8](repeating: 3, count: 600 << 10))])
            }
        } catch let error as StorageError {
            outcome = Self.caseName(error)
        }
        let pageCount = try store.file.store.fileByteCount() / store.pageSizeBytes
        #expect(pageCount < 512, "the test itself must stay inside the checksum cache's mapping")
        #expect(
            outcome == "mapCapacityExceeded",
            "a 600 KiB commit into a 256 KiB map: \(outcome), file of \(pageCount) pages")
    }

    /// Supported page sizes work end to end (overflow values, reopen with other options);
    /// unsupported ones are a typed error and create nothing.
    @Test(arguments: [8192, 16384, 32768])
    func supportedPageSizes(pageSizeBytes: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("pages-\(pageSizeBytes).strata")
        var options = Self.options
        options.pageSizeBytes = pageSizeBytes
        var digest: UInt64 = 0
        var model = ContentModel()
        do {
            let store = try Store.open(.file(path), options: options)
            #expect(store.pageSizeBytes == pageSizeBytes)
            model = try Self.populate(store, rounds: 3)
            try store.write { write in
                let names = try #require(write.table(named: "names"))
                // The longest string key of this page size.
                let longest = String(
                    repeating: "k",
                    count: PageLayout.keyByteCountMax(pageSizeBytes: pageSizeBytes) - 1)
                let values: [Value] = [.string(longest), .double(1)]
                let key = try write.insert(names.id, values: values)
                model.tables["names", default: [:]][key.rawValue] = values
                #expect(throws: StorageError.self) {
                    _ = try write.insert(names.id, values: [.string(longest + "k")])
                }
            }
            digest = try store.beginRead().contentDigest()
            #expect(try store.verify().isClean)
            store.close()
        }
        #expect(Self.fileByteCount(path) % pageSizeBytes == 0)
        // Reopened with the default (4 KiB) option: the file's own page size wins.
        let reopened = try Store.open(.file(path), options: Self.options)
        #expect(reopened.pageSizeBytes == pageSizeBytes)
        let read = try reopened.beginRead()
        #expect(try read.contentDigest() == digest)
        #expect(try model.matches(read))
        read.end()
        // A compacted copy keeps the page size and the contents.
        let copyPath = directory.file("pages-\(pageSizeBytes)-copy.strata")
        try reopened.writeCompactedCopy(toPath: copyPath)
        let copy = try Store.open(.file(copyPath), options: Self.options)
        #expect(copy.pageSizeBytes == pageSizeBytes)
        let copyRead = try copy.beginRead()
        #expect(try copyRead.contentDigest() == digest)
        copyRead.end()
        #expect(try copy.verify().isClean)
        let memory = try Store.open(
            .memory(identifier: Self.uniqueIdentifier("page-size")), options: options)
        #expect(memory.pageSizeBytes == pageSizeBytes)
        _ = try Self.populate(memory, rounds: 1)
        #expect(try memory.verify().isClean)
    }

    @Test(arguments: [3000, 65536, 2048, 0, -4096, 4097, 12288])
    func unsupportedPageSizeIsATypedError(pageSizeBytes: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("bad-\(pageSizeBytes).strata")
        var options = Self.options
        options.pageSizeBytes = pageSizeBytes
        #expect(throws: StorageError.unsupportedPageSize(pageSizeBytes)) {
            _ = try Store.open(.file(path), options: options)
        }
        #expect(!Store.fileExists(path: path))
        #expect(!Store.fileExists(path: path + ".lock"))
        #expect(throws: StorageError.unsupportedPageSize(pageSizeBytes)) {
            _ = try Store.open(
                .memory(identifier: Self.uniqueIdentifier("bad-page")), options: options)
        }
    }
}

/// The cross-process commit signal (`CommitNote`): every publish rings `<file>.note`, and an
/// inotify watch on it turns readable, so other processes' realms wake without polling.
@Suite struct CommitNoteTests {
    /// Whether `descriptor` is readable within `milliseconds`.
    private func readable(_ descriptor: Int32, within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1
    }

    @Test func aCommitRingsTheNoteAndTheWatchHearsIt() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("noted.strata")
        let store = try Store.open(.file(path), options: StoreKindsTests.options)
        defer { store.close() }
        let notePath = try #require(store.notePath)
        #expect(notePath == path + ".note")
        let watch = try #require(CommitNoteWatch(notePath: notePath))
        #expect(!readable(watch.descriptor, within: 0), "nothing was committed yet")
        try store.write { write in _ = try write.createTable("items") }
        #expect(
            readable(watch.descriptor, within: Int32(TransactionTests.hangGuardSeconds * 1000)),
            "the commit did not ring the note")
        watch.drain()
        #expect(!readable(watch.descriptor, within: 0), "drain leaves nothing pending")
        // A read-only opener hears commits but never rings.
        var readOnly = StoreKindsTests.options
        readOnly.readOnly = true
        let reader = try Store.open(.file(path), options: readOnly)
        defer { reader.close() }
        #expect(reader.notePath == notePath)
        try store.write { write in _ = try write.createTable("more") }
        #expect(readable(watch.descriptor, within: Int32(TransactionTests.hangGuardSeconds * 1000)))
    }

    @Test func memoryStoresHaveNoNote() throws {
        let store = try Store.open(.memory(identifier: "no-note-\(getpid())"), options: StoreKindsTests.options)
        defer { store.close() }
        #expect(store.notePath == nil)
    }
}
