import Foundation
import StrataSimulation
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataStorage

/// Every fault class of the storage seam, injected at least once, with the outcome the issue
/// asks for: a typed error (and a poisoned handle for failed writes and syncs) or detected
/// corruption, and never silent wrong data. Recovery always goes through a reopen.
@Suite struct FaultInjectionTests {
    /// A fault plan shared with the engine's hook: fails the first operation matching `site`
    /// once armed.
    final class FaultSwitch: @unchecked Sendable {
        private let lock = NSLock()
        private var pending: (matches: @Sendable (FaultSite) -> Bool, fault: InjectedFault)?
        private(set) var firedAt: [FaultSite] = []

        func arm(_ fault: InjectedFault, where matches: @escaping @Sendable (FaultSite) -> Bool) {
            lock.withLock { pending = (matches, fault) }
        }

        var hooks: EngineHooks {
            EngineHooks(fault: { [self] site in
                lock.withLock {
                    guard let plan = pending, plan.matches(site) else { return nil }
                    pending = nil
                    firedAt.append(site)
                    return plan.fault
                }
            })
        }

        var fired: Bool { lock.withLock { !firedAt.isEmpty } }
    }

    /// Small growth chunks, so that `bigCommit` grows the file.
    static let options = StoreOptions(
        maximumFileSizeBytes: 64 << 20, readerSlotCount: 16, growthChunkBytesMin: 64 << 10)

    static func options(hooks: EngineHooks) -> StoreOptions {
        var options = Self.options
        options.hooks = hooks
        return options
    }

    /// A store with one committed table of `rowCount` rows; returns the model of its contents.
    static func seeded(_ store: Store, rowCount: Int = 200) throws -> ContentModel {
        var model = ContentModel()
        try store.write { write in
            let items = try write.createTable("items", primaryKey: .int(column: 0))
            for key in 0..<Int64(rowCount) {
                let values: [Value] = [
                    .int(key), .string("row \(key)"), .binary([UInt8](repeating: UInt8(key & 0xFF), count: 40)),
                ]
                _ = try write.insert(items.id, values: values)
                model.tables["items", default: [:]][key] = values
            }
        }
        return model
    }

    /// A commit big enough to write many pages and to grow the file.
    static func bigCommit(_ store: Store, model: inout ContentModel, start: Int64 = 10_000) throws -> WriteTransaction {
        let write = try store.beginWrite()
        let items = try #require(write.table(named: "items"))
        for key in start..<(start + 3000) {
            let values: [Value] = [.int(key), .string(String(repeating: "x", count: 200))]
            _ = try write.insert(items.id, values: values)
            model.tables["items", default: [:]][key] = values
        }
        return write
    }

    /// Reopens `sim` after a crash built by `plan` and checks that it verifies and holds one
    /// of the `allowed` versions with exactly its contents. Returns the recovered version.
    @discardableResult
    static func recover(_ sim: SimStore, plan: SimStore.CrashPlan, allowed: [Version: ContentModel]) throws -> Version {
        try sim.crash(plan)
        let store = try Store.open(.simulated(sim), options: Self.options(hooks: .none))
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
        let read = try store.beginRead()
        defer { read.end() }
        let model = try #require(
            allowed[read.version], "recovered version \(read.version) is not one of \(allowed.keys.sorted())")
        #expect(try model.matches(read), "contents of version \(read.version) differ")
        // The recovered file accepts new commits.
        let next = try store.write { write in
            try write.upsert(
                try #require(write.table(named: "items")).id, values: [.int(-5), .string("after recovery")])
            return write.newVersion
        }
        #expect(store.newestVersion == next)
        #expect(try store.verify().isClean)
        return read.version
    }

    static func expectPoisoned(_ store: Store) {
        #expect(store.isPoisoned)
        #expect(throws: StorageError.self) { _ = try store.beginWrite() }
        do {
            _ = try store.beginWrite()
        } catch let error {
            guard case .poisoned = error else {
                Issue.record("expected .poisoned, got \(error)")
                return
            }
        }
    }

    // MARK: write and grow failures

    @Test(arguments: [InjectedFault.eio, .enospc])
    func failedPageWritePoisonsAndReopenRecovers(fault: InjectedFault) throws {
        let sim = try SimStore(name: "page-write-\(fault)", reservationBytes: 64 << 20)
        let faults = FaultSwitch()
        let store = try Store.open(.simulated(sim), options: Self.options(hooks: faults.hooks))
        let before = try Self.seeded(store)
        let beforeVersion = store.newestVersion
        var after = before
        let write = try Self.bigCommit(store, model: &after)
        // Fail the fifth page write of the commit.
        let seen = Atomic<Int>(0)
        faults.arm(fault) { site in
            guard case .pageWrite = site else { return false }
            return seen.add(1, ordering: .relaxed).newValue == 5
        }
        do {
            _ = try write.commit()
            Issue.record("the commit succeeded despite a failed write")
        } catch {
            switch (fault, error) {
            case (.eio, .io(_, let code)): #expect(code == EIO)
            case (.enospc, .noSpace): break
            default: Issue.record("unexpected error \(error) for \(fault)")
            }
        }
        #expect(faults.fired)
        Self.expectPoisoned(store)
        // A poisoned handle starts no transaction at all, reads included: reopen to recover.
        #expect(throws: StorageError.self) { _ = try store.beginRead() }
        store.close()
        // Whatever part of the failed commit reached the disk, the old version comes back.
        let pending = sim.pendingWrites.count
        try Self.recover(sim, plan: .allApplied(count: pending), allowed: [beforeVersion: before])
    }

    @Test func failedGrowthReportsNoSpaceAndPoisons() throws {
        let sim = try SimStore(name: "grow", reservationBytes: 64 << 20)
        let faults = FaultSwitch()
        let store = try Store.open(.simulated(sim), options: Self.options(hooks: faults.hooks))
        let before = try Self.seeded(store)
        let beforeVersion = store.newestVersion
        var after = before
        let write = try Self.bigCommit(store, model: &after)
        faults.arm(.enospc) { site in
            if case .grow = site { return true }
            return false
        }
        #expect(throws: StorageError.noSpace(operation: "grow")) { _ = try write.commit() }
        #expect(faults.fired)
        Self.expectPoisoned(store)
        store.close()
        try Self.recover(sim, plan: .allApplied(count: sim.pendingWrites.count), allowed: [beforeVersion: before])
    }

    // MARK: sync failures (fsyncgate: the writes may or may not have reached the disk)

    /// Sync-failure fates: none, all, or alternating writes reach the disk.
    static let syncFates: [String] = ["none", "all", "alternate"]

    static func fates(_ name: String) -> @Sendable ([SimStore.PendingWrite]) -> [SimStore.WriteFate] {
        { pending in
            pending.indices.map { index in
                switch name {
                case "all": return .applied
                case "alternate": return index % 2 == 0 ? .applied : .lost
                default: return .lost
                }
            }
        }
    }

    @Test(arguments: syncFates)
    func failedPhaseOneSyncPoisonsAndReopenRecovers(fates: String) throws {
        let sim = try SimStore(name: "sync1-\(fates)", reservationBytes: 64 << 20, syncFailureFates: Self.fates(fates))
        let faults = FaultSwitch()
        let store = try Store.open(.simulated(sim), options: Self.options(hooks: faults.hooks))
        let before = try Self.seeded(store)
        let beforeVersion = store.newestVersion
        var after = before
        let write = try Self.bigCommit(store, model: &after)
        faults.arm(.eio) { $0 == .phaseOneSync }
        #expect(throws: StorageError.self) { _ = try write.commit() }
        #expect(faults.fired)
        Self.expectPoisoned(store)
        store.close()
        // The slot was never written: only the old version can come back.
        try Self.recover(sim, plan: .allApplied(count: sim.pendingWrites.count), allowed: [beforeVersion: before])
    }

    @Test(arguments: syncFates)
    func failedPhaseTwoSyncPoisonsAndReopenRecoversEitherVersion(fates: String) throws {
        let sim = try SimStore(name: "sync2-\(fates)", reservationBytes: 64 << 20, syncFailureFates: Self.fates(fates))
        let faults = FaultSwitch()
        let store = try Store.open(.simulated(sim), options: Self.options(hooks: faults.hooks))
        let before = try Self.seeded(store)
        let beforeVersion = store.newestVersion
        var after = before
        let write = try Self.bigCommit(store, model: &after)
        let newVersion = write.newVersion
        faults.arm(.eio) { $0 == .phaseTwoSync }
        #expect(throws: StorageError.self) { _ = try write.commit() }
        Self.expectPoisoned(store)
        // Never published: readers of this process still see the old version.
        #expect(store.newestVersion == beforeVersion)
        store.close()
        // The commit was not acknowledged, so either version may come back, but whole.
        let recovered = try Self.recover(sim, plan: .allLost, allowed: [beforeVersion: before, newVersion: after])
        #expect(recovered == (fates == "none" ? beforeVersion : newVersion))
    }

    @Test func retryingAFailedSyncIsCaught() throws {
        // The seeded bug retries a failed phase-1 sync; the lost pages are then referenced by
        // a durable slot. The checks above must notice: the recovered file fails to verify.
        let sim = try SimStore(name: "retry", reservationBytes: 64 << 20, syncFailureFates: Self.fates("none"))
        let faults = FaultSwitch()
        var options = Self.options(hooks: faults.hooks)
        options.hooks.bugs = .retrySyncAfterEIO
        let store = try Store.open(.simulated(sim), options: options)
        _ = try Self.seeded(store)
        var after = ContentModel()
        let write = try Self.bigCommit(store, model: &after)
        faults.arm(.eio) { $0 == .phaseOneSync }
        _ = try write.commit()
        store.close()
        try sim.crash(.allLost)
        #expect(Self.damageDetected(sim))
    }

    /// True when reopening `sim` fails with a typed error or `verify()` reports a problem.
    static func damageDetected(_ sim: SimStore) -> Bool {
        do {
            let store = try Store.open(.simulated(sim), options: Self.options)
            return try !store.verify().isClean
        } catch {
            return true
        }
    }

    // MARK: the size change is made durable by fsync, not fdatasync

    @Test func growthSurvivesLosingUnsyncedSize() throws {
        let sim = try SimStore(name: "size", reservationBytes: 64 << 20)
        let store = try Store.open(.simulated(sim), options: Self.options)
        var model = try Self.seeded(store)
        let sizeBefore = sim.captureState().durableByteCount
        let write = try Self.bigCommit(store, model: &model)
        let version = try write.commit()
        #expect(sim.captureState().durableByteCount > sizeBefore, "the commit did not grow the file")
        store.close()
        // A later crash that drops unsynced size changes must keep the grown size.
        try Self.recover(sim, plan: .allLost, allowed: [version: model])
    }

    @Test func dataSyncAfterGrowthIsCaught() throws {
        let sim = try SimStore(name: "size-bug", reservationBytes: 64 << 20)
        var options = Self.options
        options.hooks.bugs = .dataSyncAfterGrowth
        let store = try Store.open(.simulated(sim), options: options)
        var model = try Self.seeded(store)
        let write = try Self.bigCommit(store, model: &model)
        _ = try write.commit()
        store.close()
        try sim.crash(.allLost)
        #expect(Self.damageDetected(sim))
    }

    // MARK: damage to the durable image

    /// A simulated disk holding a cleanly closed store of `rowCount` rows, and its page size.
    static func pristineDisk(rowCount: Int) throws -> (SimStore.State, pageSize: Int, pageCount: Int) {
        let sim = try SimStore(name: "pristine", reservationBytes: 64 << 20)
        let store = try Store.open(.simulated(sim), options: Self.options)
        _ = try Self.seeded(store, rowCount: rowCount)
        let read = try store.beginRead()
        let pageCount = Int(read.pageCount)
        read.end()
        let pageSize = store.pageSizeBytes
        store.close()
        try sim.reboot()
        return (sim.captureState(), pageSize, pageCount)
    }

    /// Damages a copy of `state`, reopens it and returns what the engine reported: the
    /// verification problems, or the typed error opening or reading failed with.
    static func reported(after damage: SimStore.DurableCorruption, to state: SimStore.State) throws -> [String] {
        let sim = try SimStore(state: state, reservationBytes: 64 << 20)
        sim.corruptDurableImage(damage)
        try sim.reboot()
        do {
            let store = try Store.open(.simulated(sim), options: Self.options)
            defer { store.close() }
            let problems = try store.verify().problems.filter(\.isDamage).map(\.description)
            // Reading every row either works (the damage hit a free page) or fails with a
            // typed error: never garbage. Damage reported by verify must also stop the read.
            let read = try store.beginRead()
            defer { read.end() }
            var readError: StorageError?
            do {
                for table in read.tables() {
                    try read.forEachRow(table) { _, row in
                        _ = try row.values()
                        return true
                    }
                }
            } catch let error as StorageError {
                readError = error
            }
            if let readError { return problems + ["\(readError)"] }
            #expect(problems.isEmpty, "verify reported \(problems) but every row read back")
            return problems
        } catch let error as StorageError {
            #expect(error.isCorruption, "\(error)")
            return ["\(error)"]
        }
    }

    /// Spec D8: a flipped bit in any page is a checksum error naming the page, never data.
    @Test func bitFlipIsReportedAsChecksumMismatch() throws {
        let (state, pageSize, pageCount) = try Self.pristineDisk(rowCount: 3000)
        var detected = 0
        var harmless = 0
        for page in 1..<pageCount {
            let problems = try Self.reported(
                after: .flipBit(byteOffset: page * pageSize + 100 + page % 3000, bit: page % 8),
                to: state)
            if problems.isEmpty {
                harmless += 1  // a free page
            } else {
                detected += 1
                #expect(problems.contains { $0.contains("checksum") }, "page \(page): \(problems)")
            }
        }
        #expect(detected > pageCount / 2, "only \(detected) of \(pageCount) flips were detected, \(harmless) harmless")
    }

    /// Spec D8: a page's contents written over another page are reported, never read as it.
    @Test func misdirectedWriteIsReported() throws {
        let (state, pageSize, pageCount) = try Self.pristineDisk(rowCount: 3000)
        var detected = 0
        for target in 2..<pageCount {
            // The write meant for page 1 landed on `target`: a valid page in the wrong place.
            let problems = try Self.reported(
                after: .misdirectedWrite(
                    intendedOffset: pageSize, actualOffset: target * pageSize,
                    byteCount: pageSize), to: state)
            if !problems.isEmpty {
                detected += 1
                #expect(
                    problems.contains { $0.lowercased().contains("misdirected") || $0.contains("holds page") },
                    "page \(target): \(problems)")
            }
        }
        #expect(detected > pageCount / 2, "only \(detected) of \(pageCount) misdirected writes were detected")
    }
}

/// Files that are not valid Strata databases open with a typed error naming what is wrong.
@Suite struct BadFileTests {
    static func open(_ path: String) -> StorageError? {
        do {
            let store = try Store.open(.file(path), options: StoreOptions(create: false))
            store.close()
            return nil
        } catch {
            return error
        }
    }

    static func makeDatabase(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("db.strata")
        let store = try Store.open(.file(path))
        try store.write { write in
            let table = try write.createTable("t", primaryKey: .int(column: 0))
            for key in 0..<500 { _ = try write.insert(table.id, values: [.int(Int64(key)), .string("value \(key)")]) }
        }
        store.close()
        return path
    }

    /// Changes the file's bytes in place (same inode, as a disk or a stray writer would).
    static func rewrite(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        change(&bytes)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: bytes)
    }

    @Test func notOurs() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("text.txt")
        try Data("hello, this is not a database at all, but it is long enough".utf8).write(
            to: URL(fileURLWithPath: path))
        #expect(Self.open(path) == .notAStrataFile(path: path))
    }

    @Test func emptyFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("empty")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        guard case .truncated = Self.open(path) else {
            Issue.record("an empty file did not open as truncated")
            return
        }
    }

    @Test func missingFileWithoutCreate() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("absent")
        #expect(Self.open(path) == .fileNotFound(path: path))
    }

    @Test func unsupportedFormatVersion() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory)
        try Self.rewrite(path) { bytes in
            bytes[8] = 9  // format version 9, with a valid header checksum
            let crc = bytes.withUnsafeBytes { CRC32C.checksum($0.baseAddress!, count: FileHeader.checksumOffset) }
            withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(508..<512, with: $0) }
        }
        #expect(Self.open(path) == .unsupportedFormatVersion(found: 9, supported: FileHeader.formatVersion))
    }

    @Test func corruptHeader() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory)
        try Self.rewrite(path) { $0[13] ^= 0x40 }  // page size field, checksum left stale
        guard case .corruptHeader = Self.open(path) else {
            Issue.record("a damaged header was not reported")
            return
        }
    }

    @Test func truncatedInsideTheHeader() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory)
        #expect(truncate(path, 1000) == 0)
        #expect(Self.open(path) == .truncated(expectedBytes: FileHeader.byteCountMin, foundBytes: 1000))
    }

    /// Spec D4: the newest slot points past the end of the file: `truncated`, no fallback.
    @Test func truncatedBeforeTheCommittedPages() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory)
        #expect(truncate(path, 4096 * 3) == 0)
        let error = Self.open(path)
        guard case .truncated(let expected, let found) = error else {
            Issue.record("a truncated file was not reported as truncated: \(String(describing: error))")
            return
        }
        #expect(found == 4096 * 3 && expected > found)
    }

    /// Spec D4: neither slot passes its checksum: `noValidCommitSlot`.
    @Test func noValidCommitSlot() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory)
        try Self.rewrite(path) { bytes in
            bytes[600] ^= 0xFF  // inside slot 0
            bytes[1100] ^= 0xFF  // inside slot 1
        }
        guard case .noValidCommitSlot = Self.open(path) else {
            Issue.record("two damaged slots were not reported")
            return
        }
    }

    /// Spec D4: a torn newest slot is never used; the other, valid one is.
    @Test func oneDamagedSlotFallsBackToTheOther() throws {
        let directory = TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory)
        let slots = try {
            let store = try Store.open(.file(path), options: StoreOptions(create: false))
            defer { store.close() }
            return try store.statistics().slotVersions
        }()
        // Damage the slot holding the newest version: the older one is used.
        let newestSlot = slots[0].map { v0 in slots[1].map { v1 in v0 > v1 ? 0 : 1 } ?? 0 } ?? 1
        try Self.rewrite(path) { $0[512 * (newestSlot + 1) + 40] ^= 0x01 }
        let reopened = try Store.open(.file(path), options: StoreOptions(create: false))
        let expected = slots.compactMap { $0 }.min()
        #expect(reopened.newestVersion == expected)
        #expect(try reopened.verify().isClean)
        reopened.close()
    }

    @Test func garbageAfterAValidHeaderIsNeverReadAsData() throws {
        // Random bytes in every data page: opening or verifying must report the damage.
        let directory = TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory)
        var random = SplitMix64(seed: 7)
        try Self.rewrite(path) { bytes in
            for index in 4096..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
        }
        do {
            let store = try Store.open(.file(path), options: StoreOptions(create: false))
            #expect(try !store.verify().isClean)
            store.close()
        } catch {
            #expect(error.isCorruption, "\(error)")
        }
    }
}
