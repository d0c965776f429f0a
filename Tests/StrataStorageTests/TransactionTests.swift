import Dispatch
import Foundation
import StrataSimulation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// Transactions at the engine level (Docs/architecture.md §2 "Commit", "Versions, pins and space"):
/// snapshot isolation, the single writer across threads and handles, rollback, pins and their
/// counts, and a free-running many-readers / one-writer run whose readers check an invariant
/// the writer keeps in every commit.
@Suite struct TransactionTests {
    // MARK: helpers

    /// A value shared between threads behind a lock.
    final class Shared<Value: Sendable>: Sendable {
        private let mutex: Lock<Value>
        init(_ value: Value) { mutex = Lock(value) }
        func update<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
        var value: Value { mutex.withLock { $0 } }
    }

    /// An ordered log of events from several threads.
    final class EventLog: Sendable {
        private let entries = Lock<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Runs `body` on a new thread; the returned semaphore is signalled when it returns.
    static func startThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        return done
    }

    /// How long a test waits for something that must happen before calling it a hang: far
    /// above any plausible time on a loaded machine, never waited out by a passing test (the
    /// waits end when their condition holds), so no verdict depends on speed (Docs/testing.md).
    static let hangGuardSeconds = 600

    /// Waits for a thread started by `startThread`; a hang becomes a test failure, not a hang.
    static func join(
        _ done: DispatchSemaphore, seconds: Int = hangGuardSeconds, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = done.wait(timeout: .now() + .seconds(seconds))
        #expect(
            result == .success, "\(what) did not finish within \(seconds) s",
            sourceLocation: sourceLocation)
    }

    static func uniqueName(_ base: String) -> String {
        "\(base)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    static let options = StoreOptions(
        maximumFileSizeBytes: 256 << 20, readerSlotCount: 64, growthChunkBytesMin: 64 << 10)

    static func options(hooks: EngineHooks) -> StoreOptions {
        var options = Self.options
        options.hooks = hooks
        return options
    }

    /// Values of row `key` in generation `generation`; every eighth row carries an overflow
    /// string so that overflow chains are freed and reused too.
    static func itemValues(_ key: Int64, generation: Int) -> [Value] {
        let text =
            key % 8 == 0
            ? String(repeating: "g\(generation)", count: 3000) : "item \(key) gen \(generation)"
        return [.int(key), .string(text), .int(Int64(generation))]
    }

    /// Creates "items" (integer primary key) with `count` rows and returns the model.
    static func seed(_ store: Store, count: Int64) throws -> ContentModel {
        var model = ContentModel()
        try store.write { write in
            let items = try write.createTable("items", primaryKey: .int(column: 0))
            var rows: [Int64: [Value]] = [:]
            for key in 0..<count {
                let values = Self.itemValues(key, generation: 0)
                try write.insert(items.id, values: values)
                rows[key] = values
            }
            model.tables["items"] = rows
        }
        return model
    }

    /// One commit of updates, deletes and inserts on "items", applied to `model` as well.
    static func churn(
        _ store: Store, _ model: inout ContentModel, generation: Int, random: inout SplitMix64
    ) throws {
        let write = try store.beginWrite()
        let items = try #require(write.table(named: "items"))
        var rows = model.tables["items"] ?? [:]
        for _ in 0..<120 {
            let key = Int64(random.draw(below: 500))
            switch random.draw(below: 10) {
            case 0..<6:
                let values = Self.itemValues(key, generation: generation)
                try write.upsert(items.id, values: values)
                rows[key] = values
            case 6..<8:
                let removed = try write.delete(items.id, key: ObjectKey(key))
                #expect(removed == (rows[key] != nil))
                rows[key] = nil
            default:
                if rows[key] == nil {
                    let values = Self.itemValues(key, generation: generation)
                    try write.insert(items.id, values: values)
                    rows[key] = values
                }
            }
        }
        let base = write.baseVersion
        let committed = try write.commit()
        #expect(committed == base.next)
        model.tables["items"] = rows
    }

    // MARK: snapshot isolation

    /// Spec D: a read pinned at V keeps reading exactly V while later commits update, delete
    /// and insert the same rows, reusing pages freed before V for their copies.
    @Test func pinnedReadKeepsItsVersionWhileLaterCommitsChangeAndReusePages() throws {
        let sim = try SimStore(name: "snapshot", reservationBytes: 128 << 20)
        let store = try Store.open(.simulated(sim), options: Self.options)
        var model = try Self.seed(store, count: 400)
        var random = SplitMix64(seed: 7)
        // Churn before pinning: pages released by these commits are reusable while V is pinned.
        for generation in 1...4 {
            try Self.churn(store, &model, generation: generation, random: &random)
        }
        let pinned = try store.beginRead()
        let pinnedModel = model
        let pinnedDigest = try pinned.contentDigest()
        let reusableAtPin = try store.statistics().reusablePageCount
        #expect(
            reusableAtPin > 0,
            "the churn before the pin left no reusable pages; the test would not reuse any")

        for generation in 5...16 {
            try Self.churn(store, &model, generation: generation, random: &random)
            #expect(
                try pinnedModel.matches(pinned),
                "the pinned version changed after commit \(generation)")
            let newest = try store.beginRead()
            #expect(try model.matches(newest), "the newest version lost commit \(generation)")
            newest.end()
        }
        let reusableAfter = try store.statistics().reusablePageCount
        #expect(
            reusableAfter < reusableAtPin,
            "later commits did not reuse the pages freed before the pin")
        #expect(try pinned.contentDigest() == pinnedDigest)
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
        #expect(report.versionsChecked.contains(pinned.version))
        // Rows deleted after the pin are still visible to it; rows inserted after it are not.
        let items = try #require(pinned.table(named: "items"))
        let newestModel = model.tables["items"] ?? [:]
        for (key, values) in pinnedModel.tables["items"] ?? [:] where newestModel[key] == nil {
            #expect(try pinned.row(items, key: ObjectKey(key)) == values)
        }
        for key in newestModel.keys where pinnedModel.tables["items"]?[key] == nil {
            #expect(try pinned.contains(items, key: ObjectKey(key)) == false)
        }
        pinned.end()
    }

    /// Spec W: a write starts at the newest version, whatever older versions are being read.
    @Test func writeStartsAtTheNewestVersion() throws {
        let store = try Store.open(
            .memory(identifier: Self.uniqueName("head")), options: Self.options)
        let old = try store.beginRead()
        try store.write { write in
            let table = try write.createTable("T", primaryKey: .int(column: 0))
            try write.insert(table.id, values: [.int(1), .string("first")])
        }
        // Another thread commits too, while `old` still pins the first version.
        let other = Self.startThread {
            _ = try? store.write { write in
                guard let table = write.table(named: "T") else {
                    throw StorageError.tableNotFound("T")
                }
                try write.update(table.id, key: ObjectKey(1), values: [.int(1), .string("second")])
            }
        }
        Self.join(other, "the other thread's commit")
        #expect(store.newestVersion == Version(old.version.rawValue + 2))
        let write = try store.beginWrite()
        #expect(write.baseVersion == store.newestVersion)
        #expect(write.newVersion == write.baseVersion.next)
        let table = try #require(
            write.table(named: "T"), "the write does not see the table created after the old read")
        #expect(try write.row(table, key: ObjectKey(1)) == [.int(1), .string("second")])
        #expect(old.table(named: "T") == nil)
        write.rollback()
        old.end()
    }

    /// Spec W: commit creates base + 1 and publishes it; an empty commit is a version too.
    @Test func commitReturnsTheNextVersionAndPublishesIt() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(.file(directory.file("versions.strata")), options: Self.options)
        #expect(store.newestVersion == Version(1))
        for round in 0..<6 {
            let write = try store.beginWrite()
            let base = write.baseVersion
            #expect(base == store.newestVersion)
            if round % 3 != 2 {  // every third commit is empty
                let table = try write.table(named: "T") ?? write.createTable("T")
                try write.insert(table.id, values: [.int(Int64(round))])
            }
            // Not visible before the commit.
            #expect(store.newestVersion == base)
            let committed = try write.commit()
            #expect(committed == base.next)
            #expect(store.newestVersion == committed)
            let read = try store.beginRead()
            #expect(read.version == committed)
            read.end()
        }
        #expect(store.newestVersion == Version(7))
    }

    /// Rollback: contents and version unchanged, and not a single write or sync reached the disk.
    @Test func rollbackLeavesContentsAndVersionAndWritesNothing() throws {
        let sim = try SimStore(name: "rollback", reservationBytes: 64 << 20)
        let store = try Store.open(.simulated(sim), options: Self.options)
        let model = try Self.seed(store, count: 300)
        let version = store.newestVersion
        let statistics = sim.statistics
        let image = sim.visibleBytes
        let digest = try store.beginRead().contentDigest()
        #expect(sim.pendingWrites.isEmpty)

        func expectUnchanged(
            _ what: String, sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            #expect(
                store.newestVersion == version, "\(what): version moved",
                sourceLocation: sourceLocation)
            #expect(
                sim.statistics.writes == statistics.writes, "\(what): wrote",
                sourceLocation: sourceLocation)
            #expect(
                sim.statistics.syncs == statistics.syncs, "\(what): synced",
                sourceLocation: sourceLocation)
            #expect(sim.pendingWrites.isEmpty, sourceLocation: sourceLocation)
            #expect(
                sim.visibleBytes == image, "\(what): the image changed",
                sourceLocation: sourceLocation)
            let read = try store.beginRead()
            #expect(try read.contentDigest() == digest, sourceLocation: sourceLocation)
            #expect(try model.matches(read), sourceLocation: sourceLocation)
            read.end()
            let next = try store.tryBeginWrite()
            #expect(
                next != nil, "\(what): the write lock was not released",
                sourceLocation: sourceLocation)
            next?.rollback()
        }

        // Big enough to allocate hundreds of pages (the file would grow on commit).
        let write = try store.beginWrite()
        let items = try #require(write.table(named: "items"))
        let extra = try write.createTable("extra", primaryKey: .string(column: 0))
        for key in Int64(1000)..<3000 {
            try write.insert(items.id, values: Self.itemValues(key, generation: 9))
        }
        for key in Int64(0)..<100 { try write.delete(items.id, key: ObjectKey(key)) }
        try write.update(items.id, key: ObjectKey(200), values: [.int(200), .string("changed")])
        try write.insert(extra.id, values: [.string("x")])
        try write.setSchema([1, 2, 3], forTable: "items")
        write.rollback()
        try expectUnchanged("rollback")
        write.rollback()  // idempotent
        #expect(throws: StorageError.closed) { _ = try write.commit() }
        #expect(throws: StorageError.closed) { _ = try write.insert(items.id, values: [.int(-1)]) }
        try expectUnchanged("second rollback")

        // A write transaction dropped while active rolls back.
        do {
            let dropped = try store.beginWrite()
            try dropped.deleteAll(items.id)
        }
        try expectUnchanged("dropped transaction")

        // `Store.write` rolls back when its body throws.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.write { write in
                try write.deleteAll(try #require(write.table(named: "items")).id)
                throw Abort()
            }
        }
        try expectUnchanged("throwing write body")
        #expect(try store.verify().isClean)
    }

    // MARK: one writer

    /// One writer at a time across threads: a second `beginWrite` blocks until the first
    /// commits, then starts from the first writer's version; `tryBeginWrite` returns nil.
    @Test func secondWriterOnAnotherThreadBlocksUntilTheFirstCommits() throws {
        let blocked = DispatchSemaphore(value: 0)
        let hooks = EngineHooks(probe: { probe in
            if probe == .writerBlockedByOtherThread { blocked.signal() }
        })
        let store = try Store.open(
            .memory(identifier: Self.uniqueName("writers")), options: Self.options(hooks: hooks))
        try Self.exerciseWriterExclusion(first: store, second: store, blocked: blocked)
    }

    /// Two handles opened on the same file in one process share the writer exclusion.
    @Test func twoHandlesOfOneFileShareTheWriterExclusion() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("two-handles.strata")
        let blocked = DispatchSemaphore(value: 0)
        let hooks = EngineHooks(probe: { probe in
            if probe == .writerBlockedByOtherThread || probe == .writerBlockedByOtherProcess {
                blocked.signal()
            }
        })
        let first = try Store.open(.file(path), options: Self.options(hooks: hooks))
        let second = try Store.open(.file(path), options: Self.options(hooks: hooks))
        #expect(first !== second)
        #expect(
            first.file === second.file,
            "two handles of one file in a process share one map, version table and write lock")
        try Self.exerciseWriterExclusion(first: first, second: second, blocked: blocked)
        // Each handle sees the other's commits, and closing one leaves the other working.
        try first.write { write in
            try write.insert(
                try #require(write.table(named: "T")).id, values: [.string("from first")])
        }
        #expect(second.newestVersion == first.newestVersion)
        first.close()
        #expect(throws: StorageError.closed) { _ = try first.beginWrite() }
        try second.write { write in
            try write.insert(
                try #require(write.table(named: "T")).id, values: [.string("from second")])
        }
        let read = try second.beginRead()
        #expect(read.table(named: "T")?.rowCount == 4)
        read.end()
    }

    /// `first` writes; a thread writing through `second` must wait for it (see the callers).
    static func exerciseWriterExclusion(
        first: Store, second: Store, blocked: DispatchSemaphore
    ) throws {
        let log = EventLog()
        let failures = EventLog()
        let write = try first.beginWrite()
        log.append("first acquired")
        let table = try write.createTable("T")
        try write.insert(table.id, values: [.string("first")])
        let waiter = Self.startThread {
            log.append("second waiting")
            do {
                let secondWrite = try second.beginWrite()
                log.append("second acquired at \(secondWrite.baseVersion.rawValue)")
                guard let table = secondWrite.table(named: "T") else {
                    failures.append("the second writer does not see the first writer's table")
                    return
                }
                try secondWrite.insert(table.id, values: [.string("second")])
                let version = try secondWrite.commit()
                log.append("second committed \(version.rawValue)")
            } catch {
                failures.append("second writer: \(error)")
            }
        }
        // The probe fires just before the second writer blocks on the lock.
        #expect(
            blocked.wait(timeout: .now() + .seconds(Self.hangGuardSeconds)) == .success,
            "the second writer never waited for the lock")
        let attempt = try second.tryBeginWrite()
        #expect(attempt == nil, "tryBeginWrite succeeded while another writer holds the lock")
        attempt?.rollback()
        let attemptSameHandle = try first.tryBeginWrite()
        #expect(attemptSameHandle == nil)
        attemptSameHandle?.rollback()
        #expect(
            !log.all.contains { $0.hasPrefix("second acquired") },
            "the second writer did not wait: \(log.all)")
        log.append("first committing")
        let committed = try write.commit()
        Self.join(waiter, "the second writer")
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(
            log.all == [
                "first acquired", "second waiting", "first committing",
                "second acquired at \(committed.rawValue)",
                "second committed \(committed.rawValue + 1)",
            ])
        #expect(first.newestVersion == committed.next)
    }

    // MARK: pins

    /// A frozen pin made on one thread is usable from others after that thread is done; it pins
    /// its version (as a frozen pin) until ended, and `duplicate(kind:)` pins it again.
    @Test func frozenPinOutlivesItsThreadAndDuplicates() throws {
        let store = try Store.open(
            .memory(identifier: Self.uniqueName("frozen")), options: Self.options)
        var model = try Self.seed(store, count: 200)
        let frozenModel = model
        let box = Shared<ReadTransaction?>(nil)
        let maker = Self.startThread {
            let read = try? store.beginRead(.frozen)
            box.update { $0 = read }
        }
        Self.join(maker, "the thread creating the frozen pin")
        let frozen = try #require(box.value)
        box.update { $0 = nil }
        let version = frozen.version
        #expect(frozen.kind == .frozen)
        #expect(
            store.pinnedVersions() == [
                .init(version: version, livePins: 0, frozenPins: 1, processCount: 1)
            ])

        var random = SplitMix64(seed: 99)
        for generation in 1...5 {
            try Self.churn(store, &model, generation: generation, random: &random)
        }
        #expect(store.newestVersion == Version(version.rawValue + 5))

        // Two other threads read the frozen version at the same time.
        let results = Shared<[Bool]>([])
        let readers = (0..<2).map { _ in
            Self.startThread {
                let matches = (try? frozenModel.matches(frozen)) ?? false
                results.update { $0.append(matches) }
            }
        }
        for reader in readers { Self.join(reader, "a reader of the frozen pin") }
        #expect(results.value == [true, true])

        let live = try frozen.duplicate(kind: .live)
        #expect(live.version == version)
        #expect(live.kind == .live)
        #expect(
            store.pinnedVersions() == [
                .init(version: version, livePins: 1, frozenPins: 1, processCount: 1)
            ])
        frozen.end()
        #expect(
            store.pinnedVersions() == [
                .init(version: version, livePins: 1, frozenPins: 0, processCount: 1)
            ])
        #expect(throws: StorageError.closed) { _ = try frozen.duplicate(kind: .live) }
        #expect(
            try frozenModel.matches(live), "the duplicate lost the version when the original ended")
        let frozenAgain = try live.duplicate(kind: .frozen)
        live.end()
        #expect(
            store.pinnedVersions() == [
                .init(version: version, livePins: 0, frozenPins: 1, processCount: 1)
            ])
        #expect(try frozenModel.matches(frozenAgain))
        #expect(try store.verify().isClean)
        frozenAgain.end()
        #expect(store.pinnedVersions().isEmpty)
        #expect(store.pinnedVersionCount == 0)
    }

    /// `pinnedVersionCount` counts distinct versions, not pins.
    @Test func pinnedVersionCountCountsDistinctVersions() throws {
        let store = try Store.open(
            .memory(identifier: Self.uniqueName("count")), options: Self.options)
        func commit() throws {
            try store.write { write in
                let table = try write.table(named: "T") ?? write.createTable("T")
                try write.insert(table.id, values: [.int(1)])
            }
        }
        #expect(store.pinnedVersionCount == 0)
        let a1 = try store.beginRead()
        #expect(store.pinnedVersionCount == 1)
        let a2 = try store.beginRead(.frozen)
        #expect(a2.version == a1.version)
        #expect(store.pinnedVersionCount == 1)
        try commit()
        #expect(store.pinnedVersionCount == 1, "a commit pinned something")
        let b1 = try store.beginRead()
        #expect(store.pinnedVersionCount == 2)
        try commit()
        let c1 = try store.beginRead()
        let c2 = try b1.duplicate(kind: .frozen)
        #expect(store.pinnedVersionCount == 3)
        #expect(store.pinnedVersions().map(\.version) == [a1.version, b1.version, c1.version])
        #expect(store.pinnedVersions().map(\.livePins) == [1, 1, 1])
        #expect(store.pinnedVersions().map(\.frozenPins) == [1, 1, 0])
        a1.end()
        #expect(store.pinnedVersionCount == 3)
        a2.end()
        #expect(store.pinnedVersionCount == 2)
        b1.end()
        #expect(store.pinnedVersionCount == 2, "the frozen duplicate still pins b")
        c2.end()
        #expect(store.pinnedVersionCount == 1)
        c1.end()
        #expect(store.pinnedVersionCount == 0)
        #expect(store.pinnedVersions().isEmpty)
    }

    /// Pins of one version share one reader slot; a new version beyond the slot count is a
    /// typed `.tooManyReaders` that leaves nothing pinned, and ending a pin frees its slot.
    @Test func readerSlotsRunOutWithATypedError() throws {
        var options = Self.options
        options.readerSlotCount = 2
        let store = try Store.open(.memory(identifier: Self.uniqueName("slots")), options: options)
        func commit() throws {
            try store.write { write in
                let table = try write.table(named: "T") ?? write.createTable("T")
                try write.insert(table.id, values: [.int(1)])
            }
        }
        let first = try store.beginRead()
        let firstAgain = try store.beginRead(.frozen)  // same version: same slot
        try commit()
        let second = try store.beginRead()
        try commit()
        let refused = #expect(throws: StorageError.self) { _ = try store.beginRead() }
        #expect(refused == .tooManyReaders(slotCount: 2))
        #expect(store.pinnedVersions().map(\.version) == [first.version, second.version])
        // Pinning a version already pinned needs no slot.
        let duplicate = try second.duplicate(kind: .frozen)
        #expect(duplicate.version == second.version)
        first.end()
        // firstAgain still holds the slot.
        #expect(throws: StorageError.self) { _ = try store.beginRead() }
        firstAgain.end()
        let third = try store.beginRead()
        #expect(third.version == store.newestVersion)
        #expect(store.pinnedVersionCount == 2)
        for read in [second, duplicate, third] { read.end() }
        #expect(store.pinnedVersionCount == 0)
        #expect(try store.verify().isClean)
    }

    /// Ending a transaction twice is harmless: it releases its own pin once, never another's.
    @Test func endingATransactionTwiceIsHarmless() throws {
        let store = try Store.open(
            .memory(identifier: Self.uniqueName("twice")), options: Self.options)
        let first = try store.beginRead()
        let second = try store.beginRead()
        first.end()
        first.end()
        #expect(first.isEnded)
        #expect(
            store.pinnedVersions() == [
                .init(version: second.version, livePins: 1, frozenPins: 0, processCount: 1)
            ])
        let third = try store.beginRead()
        // The second read still works.
        let digests = (try second.contentDigest(), try third.contentDigest())
        #expect(digests.0 == digests.1)
        third.end()
        second.end()
        second.end()
        #expect(store.pinnedVersionCount == 0)

        let write = try store.beginWrite()
        try write.createTable("T")
        let version = try write.commit()
        write.rollback()  // after commit: no effect
        #expect(throws: StorageError.closed) { _ = try write.commit() }
        #expect(store.newestVersion == version)
        let read = try store.beginRead()
        #expect(read.table(named: "T") != nil, "rollback after commit undid the commit")
        read.end()
    }

    /// Every entry point of an ended read, and of a closed store, throws `.closed`.
    @Test func endedReadAndClosedStoreThrowClosed() throws {
        let store = try Store.open(
            .memory(identifier: Self.uniqueName("closed")), options: Self.options)
        try store.write { write in
            let table = try write.createTable("T", primaryKey: .int(column: 0))
            try write.insert(table.id, values: [.int(1), .string("one")])
        }
        let read = try store.beginRead()
        let table = try #require(read.table(named: "T"))
        read.end()
        #expect(throws: StorageError.closed) { _ = try read.row(table, key: ObjectKey(1)) }
        #expect(throws: StorageError.closed) {
            _ = try read.withRow(table, key: ObjectKey(1)) { _ in 0 }
        }
        #expect(throws: StorageError.closed) { _ = try read.contains(table, key: ObjectKey(1)) }
        #expect(throws: StorageError.closed) { _ = try read.objectKey(table, primaryKey: .int(1)) }
        #expect(throws: StorageError.closed) { try read.forEachRow(table) { _, _ in true } }
        #expect(throws: StorageError.closed) { _ = try read.duplicate(kind: .frozen) }
        #expect(throws: StorageError.closed) { _ = try read.contentDigest() }

        // Closing a handle: new transactions fail, transactions begun before keep working.
        let before = try store.beginRead()
        store.close()
        #expect(throws: StorageError.closed) { _ = try store.beginRead() }
        #expect(throws: StorageError.closed) { _ = try store.beginRead(.frozen) }
        #expect(throws: StorageError.closed) { _ = try store.beginWrite() }
        #expect(throws: StorageError.closed) { _ = try store.tryBeginWrite() }
        #expect(try before.row(table, key: ObjectKey(1)) == [.int(1), .string("one")])
        before.end()
    }

    // MARK: free-running threads

    /// Many readers and one writer at full speed for about two seconds. Every commit keeps
    /// three invariants that readers check on each snapshot: the balances sum to zero, the
    /// log holds exactly the count recorded in "meta", and the version is the setup version
    /// plus the commit number recorded in "meta". Also run under ThreadSanitizer.
    @Test(arguments: ["memory", "file"])
    func readersSeeConsistentSnapshotsWhileOneWriterCommits(kind: String) throws {
        let directory = TemporaryDirectory()
        let location: StoreLocation =
            kind == "file"
            ? .file(directory.file("free.strata"))
            : .memory(identifier: Self.uniqueName("free"))
        let store = try Store.open(location, options: Self.options)
        let accountCount: Int64 = 64
        let setupVersion = try store.write { write -> Version in
            let accounts = try write.createTable("accounts", primaryKey: .int(column: 0))
            try write.createTable("log")
            let meta = try write.createTable("meta", primaryKey: .int(column: 0))
            for key in 0..<accountCount {
                try write.insert(
                    accounts.id,
                    values: [.int(key), .int(0), .string(String(repeating: "a", count: 150))])
            }
            try write.insert(meta.id, values: [.int(0), .int(0), .int(0)])
            return write.newVersion
        }
        // A fixed number of commits, not a duration: the checks must not depend on how fast
        // this machine (or ThreadSanitizer) runs.
        let commitTarget: Int64 = kind == "file" ? 150 : 400
        let writerDone = Shared<Bool>(false)
        let failures = EventLog()
        let readCounts = Shared<[Int]>([])
        let commitCount = Shared<Int>(0)

        let writer = Self.startThread {
            var random = SplitMix64(seed: 4242)
            var commit: Int64 = 0
            var logCount: Int64 = 0
            var oldestLog: Int64 = 0
            do {
                while commit < commitTarget {
                    commit += 1
                    try store.write { write in
                        guard let accounts = write.table(named: "accounts"),
                            let log = write.table(named: "log"),
                            let meta = write.table(named: "meta")
                        else { throw StorageError.tableNotFound("setup") }
                        for _ in 0..<(1 + random.draw(below: 4)) {
                            let from = Int64(random.draw(below: Int(accountCount)))
                            let to = Int64(random.draw(below: Int(accountCount)))
                            let amount = Int64(random.draw(below: 1000))
                            for (key, delta) in [(from, -amount), (to, amount)] {
                                let balance =
                                    try write.withRow(accounts, key: ObjectKey(key)) {
                                        try $0.int(at: 1)
                                    } ?? nil
                                guard let balance else {
                                    throw StorageError.objectNotFound(
                                        table: "accounts", key: ObjectKey(key))
                                }
                                let padding = String(repeating: "p", count: 100 + random.draw(below: 200))
                                try write.update(
                                    accounts.id, key: ObjectKey(key),
                                    values: [.int(key), .int(balance + delta), .string(padding)])
                            }
                        }
                        let key = try write.insert(
                            log.id,
                            values: [
                                .int(commit),
                                .string(String(repeating: "l", count: random.draw(below: 600))),
                            ])
                        if key.rawValue != commit - 1 {
                            throw StorageError.invalidArgument(
                                "log key \(key.rawValue) at commit \(commit)")
                        }
                        logCount += 1
                        // Keep the log bounded: deletes free pages that later commits reuse.
                        if logCount > 60 {
                            for _ in 0..<20 {
                                guard try write.delete(log.id, key: ObjectKey(oldestLog)) else {
                                    throw StorageError.objectNotFound(
                                        table: "log", key: ObjectKey(oldestLog))
                                }
                                oldestLog += 1
                                logCount -= 1
                            }
                        }
                        try write.update(
                            meta.id, key: ObjectKey(0),
                            values: [.int(0), .int(commit), .int(logCount)])
                    }
                }
            } catch {
                failures.append("writer at commit \(commit): \(error)")
            }
            commitCount.update { $0 = Int(commit) }
            writerDone.update { $0 = true }
        }

        let readers = (0..<3).map { index in
            Self.startThread {
                var reads = 0
                var previous = Version.none
                var random = SplitMix64(seed: UInt64(index) + 1)
                repeat {
                    do {
                        let read = try store.beginRead(index == 2 ? .frozen : .live)
                        if read.version < previous {
                            failures.append(
                                "reader \(index): version went back \(previous) → \(read.version)"
                            )
                        }
                        previous = read.version
                        if let problem = try Self.checkSnapshot(
                            read, setupVersion: setupVersion, accountCount: accountCount)
                        {
                            failures.append("reader \(index) at \(read.version): \(problem)")
                        }
                        if random.chance(20) {
                            // Hold the snapshot across several commits, then check it again.
                            usleep(2000)
                            if let problem = try Self.checkSnapshot(
                                read, setupVersion: setupVersion, accountCount: accountCount)
                            {
                                failures.append(
                                    "reader \(index) at \(read.version), later: \(problem)")
                            }
                        }
                        read.end()
                        reads += 1
                    } catch {
                        failures.append("reader \(index): \(error)")
                    }
                } while !writerDone.value && failures.all.count < 20
                readCounts.update { $0.append(reads) }
            }
        }
        Self.join(writer, "the writer")
        for reader in readers { Self.join(reader, "a reader") }
        for failure in failures.all.prefix(10) { Issue.record(Comment(rawValue: failure)) }
        #expect(commitCount.value == Int(commitTarget), "the writer stopped at commit \(commitCount.value)")
        #expect(readCounts.value.count == 3)
        #expect(readCounts.value.allSatisfy { $0 >= 1 }, "reads per reader: \(readCounts.value)")
        #expect(store.newestVersion == Version(setupVersion.rawValue + UInt64(commitCount.value)))
        #expect(store.pinnedVersionCount == 0)
        let final = try store.beginRead()
        #expect(
            try Self.checkSnapshot(final, setupVersion: setupVersion, accountCount: accountCount)
                == nil)
        final.end()
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
        print(
            "free mode (\(kind)): \(commitCount.value) commits,",
            "reads per reader \(readCounts.value)")
    }

    /// What is wrong with one snapshot of the free-running test, or nil.
    static func checkSnapshot(
        _ read: ReadTransaction, setupVersion: Version, accountCount: Int64
    ) throws -> String? {
        guard let accounts = read.table(named: "accounts"), let log = read.table(named: "log"),
            let meta = read.table(named: "meta")
        else { return "tables missing" }
        guard let counters = try read.row(meta, key: ObjectKey(0)), counters.count == 3,
            case .int(let commit) = counters[1], case .int(let logCount) = counters[2]
        else { return "meta row unreadable" }
        if read.version.rawValue != setupVersion.rawValue + UInt64(commit) {
            return "version \(read.version) but meta says commit \(commit) after \(setupVersion)"
        }
        var sum: Int64 = 0
        var accountRows = 0
        try read.forEachRow(accounts) { _, row in
            sum += try row.int(at: 1) ?? 1_000_000
            accountRows += 1
            return true
        }
        if sum != 0 || accountRows != Int(accountCount) {
            return "balances sum to \(sum) over \(accountRows) accounts"
        }
        var logRows: Int64 = 0
        var previousCommit: Int64?
        var logOrderBroken = false
        try read.forEachRow(log) { key, row in
            logRows += 1
            let logged = try row.int(at: 0)
            if logged != key.rawValue + 1 { logOrderBroken = true }
            if let previousCommit, logged != previousCommit + 1 { logOrderBroken = true }
            previousCommit = logged
            return true
        }
        if logRows != logCount || log.rowCount != Int(logCount) {
            return "log has \(logRows) rows (descriptor \(log.rowCount)), meta says \(logCount)"
        }
        if logOrderBroken { return "log rows are not consecutive commits" }
        if logCount > 0 && previousCommit != commit {
            return "newest log row \(String(describing: previousCommit)), meta says \(commit)"
        }
        return nil
    }
}
