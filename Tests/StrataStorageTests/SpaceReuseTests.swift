import Dispatch
import Foundation
import StrataSimulation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// Version-aware free space (Docs/architecture.md §2 "Versions, pins and space"; Spec D): a page released
/// by commit R is reused only when R ≤ the oldest pinned version, a commit never reuses its
/// own releases, and growing the file never moves or invalidates what readers hold. Two seeded
/// bugs prove that the checks here can see a violation.
@Suite struct SpaceReuseTests {
    // MARK: helpers

    /// Counts the probes the engine reports.
    final class ProbeCounter: Sendable {
        private let counts = Lock<[Probe: Int]>([:])
        func record(_ probe: Probe) { counts.withLock { $0[probe, default: 0] += 1 } }
        func count(_ probe: Probe) -> Int { counts.withLock { $0[probe] ?? 0 } }
        func reset() { counts.withLock { $0 = [:] } }
        var hooks: EngineHooks { EngineHooks(probe: { [self] probe in record(probe) }) }
    }

    /// Captures the simulated disk when the commit reaches `point` (once armed).
    final class StateCapture: @unchecked Sendable {
        private let lock = NSLock()
        private var armed = false
        private var captured: SimStore.State?
        let sim: SimStore
        let point: YieldPoint

        init(sim: SimStore, at point: YieldPoint) {
            self.sim = sim
            self.point = point
        }

        func arm() {
            lock.withLock {
                armed = true
                captured = nil
            }
        }

        func take() -> SimStore.State? {
            lock.withLock {
                armed = false
                return captured
            }
        }

        func hooks(bugs: SeededBugs) -> EngineHooks {
            EngineHooks(
                yield: { [self] reached in
                    guard reached == point else { return }
                    lock.withLock { if armed && captured == nil { captured = sim.captureState() } }
                }, bugs: bugs)
        }
    }

    static func options(hooks: EngineHooks) -> StoreOptions {
        StoreOptions(
            maximumFileSizeBytes: 256 << 20, readerSlotCount: 64, growthChunkBytesMin: 16 << 10,
            hooks: hooks)
    }

    static func fileByteCount(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue
            ?? -1
    }

    static func itemValues(_ key: Int64, generation: Int, random: inout SplitMix64) -> [Value] {
        let text = String(repeating: "v", count: 40 + random.draw(below: 120)) + "\(key)/\(generation)"
        var values: [Value] = [.int(key), .string(text), .int(Int64(generation))]
        if key % 16 == 0 {
            values.append(.binary([UInt8](repeating: UInt8(generation & 0xFF), count: 5000)))
        }
        return values
    }

    /// Creates "items" with keys [0, count) in one commit.
    static func seed(_ store: Store, count: Int64, random: inout SplitMix64) throws -> ContentModel {
        var model = ContentModel()
        try store.write { write in
            let items = try write.createTable("items", primaryKey: .int(column: 0))
            var rows: [Int64: [Value]] = [:]
            for key in 0..<count {
                let values = Self.itemValues(key, generation: 0, random: &random)
                try write.insert(items.id, values: values)
                rows[key] = values
            }
            model.tables["items"] = rows
        }
        return model
    }

    /// One commit of updates, deletes and inserts over keys [0, keySpace), mirrored in `model`.
    static func churn(
        _ store: Store, _ model: inout ContentModel, generation: Int, keySpace: Int,
        random: inout SplitMix64
    ) throws {
        try store.write { write in
            let items = try #require(write.table(named: "items"))
            var rows = model.tables["items"] ?? [:]
            for _ in 0..<150 {
                let key = Int64(random.draw(below: keySpace))
                if random.chance(80) {
                    let values = Self.itemValues(key, generation: generation, random: &random)
                    try write.upsert(items.id, values: values)
                    rows[key] = values
                } else {
                    _ = try write.delete(items.id, key: ObjectKey(key))
                    rows[key] = nil
                }
            }
            model.tables["items"] = rows
        }
    }

    static func expectClean(
        _ store: Store, includes version: Version? = nil, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let report = try store.verify()
        #expect(
            report.isClean, "\(what): \(report.problems.prefix(3))", sourceLocation: sourceLocation)
        if let version {
            #expect(
                report.versionsChecked.contains(version), "\(what): verify skipped \(version)",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: pins hold freed pages

    /// Spec D: while a read pins V, pages released after V are not reused (the file grows,
    /// the pinned read stays correct, verify finds no page both free and reachable from V);
    /// once the pin drops the same churn reuses them and the file stops growing.
    @Test func pinnedVersionHoldsReleasedPagesUntilThePinDrops() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("reuse.strata")
        let probes = ProbeCounter()
        let store = try Store.open(.file(path), options: Self.options(hooks: probes.hooks))
        var random = SplitMix64(seed: 11)
        var model = try Self.seed(store, count: 1200, random: &random)
        for generation in 1...3 {
            try Self.churn(store, &model, generation: generation, keySpace: 1200, random: &random)
        }

        let pinned = try store.beginRead()
        let pinnedModel = model
        probes.reset()
        let pagesAtPin = try store.statistics().pageCount
        let bytesAtPin = Self.fileByteCount(path)
        for generation in 4...23 {
            try Self.churn(store, &model, generation: generation, keySpace: 1200, random: &random)
            // The first commit after the pin fires pageReuseAfterLastPinDropped although no pin
            // dropped (see pinDroppedProbeNeedsAPinThatDropped): count from the second.
            if generation == 4 { probes.reset() }
            if generation % 5 == 0 {
                #expect(
                    try pinnedModel.matches(pinned),
                    "the pinned version changed by commit \(generation)")
                try Self.expectClean(
                    store, includes: pinned.version, "while pinned, commit \(generation)")
            }
        }
        let whilePinned = try store.statistics()
        #expect(
            whilePinned.pageCount > pagesAtPin + 100,
            "the file did not grow while pinned: \(pagesAtPin) → \(whilePinned.pageCount)")
        #expect(Self.fileByteCount(path) > bytesAtPin)
        #expect(whilePinned.pinnedFreePageCount > 100, "released pages are not held for the pin")
        #expect(probes.count(.pageReuseWaitedForPin) > 0)
        #expect(probes.count(.pageReuseAfterLastPinDropped) == 0)
        #expect(try pinnedModel.matches(pinned))
        pinned.end()

        let pagesAtRelease = whilePinned.pageCount
        let bytesAtRelease = Self.fileByteCount(path)
        for generation in 24...43 {
            try Self.churn(store, &model, generation: generation, keySpace: 1200, random: &random)
        }
        #expect(probes.count(.pageReuseAfterLastPinDropped) > 0)
        let afterRelease = try store.statistics()
        let grownPageCount = "\(pagesAtRelease) → \(afterRelease.pageCount)"
        #expect(
            afterRelease.pageCount == pagesAtRelease,
            "the file kept growing after the pin dropped: \(grownPageCount)")
        #expect(Self.fileByteCount(path) == bytesAtRelease)
        #expect(afterRelease.pinnedFreePageCount < whilePinned.pinnedFreePageCount)
        try Self.expectClean(store, "after the pin dropped")
        let newest = try store.beginRead()
        #expect(try model.matches(newest))
        newest.end()
    }

    /// `.pageReuseAfterLastPinDropped` marks a rare path (pages became reusable because the
    /// last pin on their version dropped); it proves nothing if it also fires on commits that
    /// never had a reader. Here no transaction other than the writes ever runs.
    @Test func pinDroppedProbeNeedsAPinThatDropped() throws {
        let probes = ProbeCounter()
        let store = try Store.open(
            .memory(identifier: "probe-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"),
            options: Self.options(hooks: probes.hooks))
        var random = SplitMix64(seed: 13)
        var model = try Self.seed(store, count: 300, random: &random)
        for generation in 1...6 {
            try Self.churn(store, &model, generation: generation, keySpace: 300, random: &random)
        }
        #expect(store.pinnedVersionCount == 0)
        #expect(probes.count(.pageReuseWaitedForPin) == 0)
        #expect(
            probes.count(.pageReuseAfterLastPinDropped) == 0,
            "fired \(probes.count(.pageReuseAfterLastPinDropped)) times without any pin")
    }

    /// Releasing pins out of order: only the oldest pin holds pages back.
    @Test func onlyTheOldestPinHoldsPagesBack() throws {
        let sim = try SimStore(name: "two-pins", reservationBytes: 128 << 20)
        let probes = ProbeCounter()
        let store = try Store.open(.simulated(sim), options: Self.options(hooks: probes.hooks))
        var random = SplitMix64(seed: 12)
        var model = try Self.seed(store, count: 600, random: &random)
        let older = try store.beginRead()
        let olderModel = model
        probes.reset()
        for generation in 1...5 {
            try Self.churn(store, &model, generation: generation, keySpace: 600, random: &random)
        }
        let newer = try store.beginRead()
        let newerModel = model
        for generation in 6...10 {
            try Self.churn(store, &model, generation: generation, keySpace: 600, random: &random)
        }
        // Dropping the newer pin releases nothing: the older one still holds everything after it.
        newer.end()
        let heldBefore = try store.statistics().pinnedFreePageCount
        try Self.churn(store, &model, generation: 11, keySpace: 600, random: &random)
        #expect(try store.statistics().pinnedFreePageCount >= heldBefore)
        #expect(try olderModel.matches(older))
        try Self.expectClean(store, includes: older.version, "older pin only")
        #expect(probes.count(.pageReuseAfterLastPinDropped) == 0)
        older.end()
        try Self.churn(store, &model, generation: 12, keySpace: 600, random: &random)
        #expect(probes.count(.pageReuseAfterLastPinDropped) == 1)
        #expect(try store.statistics().pinnedFreePageCount < heldBefore)
        _ = newerModel
        try Self.expectClean(store, "no pins")
    }

    // MARK: a commit's own releases

    /// Deletes 400 rows and inserts 400 others in one commit while a read pins the base
    /// version; returns what went wrong: the pinned read damaged, verify unclean, the base
    /// version damaged in a crash just before the slot write, or the new version wrong after
    /// a clean reopen.
    static func ownFreesScenario(bugs: SeededBugs) throws -> [String] {
        let sim = try SimStore(name: "own-frees", reservationBytes: 128 << 20)
        let capture = StateCapture(sim: sim, at: .slotWrite)
        let store = try Store.open(
            .simulated(sim), options: Self.options(hooks: capture.hooks(bugs: bugs)))
        var random = SplitMix64(seed: 21)
        let before = try Self.seed(store, count: 600, random: &random)
        let baseVersion = store.newestVersion
        var after = before
        let pinned = try store.beginRead()
        capture.arm()
        try store.write { write in
            let items = try #require(write.table(named: "items"))
            var rows = after.tables["items"] ?? [:]
            for key in Int64(0)..<400 {
                #expect(try write.delete(items.id, key: ObjectKey(key)))
                rows[key] = nil
            }
            for key in Int64(1000)..<1400 {
                let values = Self.itemValues(key, generation: 1, random: &random)
                try write.insert(items.id, values: values)
                rows[key] = values
            }
            after.tables["items"] = rows
        }
        let slotWriteState = try #require(capture.take(), "no state captured at the slot write")
        var failures: [String] = []
        do {
            if try !before.matches(pinned) {
                failures.append("the read pinned at \(baseVersion) changed")
            }
        } catch {
            failures.append("the read pinned at \(baseVersion) failed: \(error)")
        }
        let report = try store.verify()
        if !report.isClean { failures.append("verify with the pin: \(report.problems.prefix(2))") }
        pinned.end()

        // A crash after phase 1 but before the slot write recovers the base version intact.
        let crashed = try SimStore(
            state: slotWriteState, name: "own-frees-crash", reservationBytes: 128 << 20)
        try crashed.crash(.allLost)
        // Open checks the tables' roots against the catalog (Spec D19): an overwritten root
        // is found there already.
        let recovered: Store
        do {
            recovered = try Store.open(.simulated(crashed), options: Self.options(hooks: .none))
        } catch {
            failures.append("open after the crash failed: \(error)")
            return failures
        }
        let recoveredRead: ReadTransaction
        do {
            recoveredRead = try recovered.beginRead()
        } catch {
            failures.append("reading after the crash failed: \(error)")
            return failures
        }
        if recoveredRead.version != baseVersion {
            failures.append("crash before the slot write recovered \(recoveredRead.version)")
        }
        do {
            if try !before.matches(recoveredRead) {
                failures.append("the base version recovered after the crash differs")
            }
        } catch {
            failures.append("the base version recovered after the crash is unreadable: \(error)")
        }
        recoveredRead.end()
        let recoveredReport = try recovered.verify()
        if !recoveredReport.isClean {
            failures.append("verify after the crash: \(recoveredReport.problems.prefix(2))")
        }

        // A clean reopen holds the new version.
        try sim.reboot()
        let reopened = try Store.open(.simulated(sim), options: Self.options(hooks: .none))
        let newest = try reopened.beginRead()
        if try !after.matches(newest) {
            failures.append("the committed version differs after a clean reopen")
        }
        newest.end()
        let reopenedReport = try reopened.verify()
        if !reopenedReport.isClean {
            failures.append("verify after a clean reopen: \(reopenedReport.problems.prefix(2))")
        }
        return failures
    }

    /// Spec D: a commit never reuses pages it released itself (they belong to the version on
    /// disk until its slot is durable).
    @Test func aCommitNeverReusesItsOwnReleases() throws {
        let failures = try Self.ownFreesScenario(bugs: [])
        #expect(failures.isEmpty, "\(failures)")
    }

    /// The same scenario with the `.reuseOwnFrees` seeded bug: the checks must see it.
    @Test func seededBugReuseOwnFreesIsDetected() throws {
        let failures = try Self.ownFreesScenario(bugs: .reuseOwnFrees)
        #expect(!failures.isEmpty, "the own-frees scenario cannot see the reuseOwnFrees bug")
        print("reuseOwnFrees detected: \(failures)")
    }

    // MARK: reuse of pinned pages

    /// Two full rewrites while a read pins V; returns what went wrong with the pinned read and
    /// with verify.
    static func pinnedPagesScenario(bugs: SeededBugs) throws -> [String] {
        let sim = try SimStore(name: "pinned-pages", reservationBytes: 128 << 20)
        let store = try Store.open(
            .simulated(sim), options: Self.options(hooks: EngineHooks(bugs: bugs)))
        var random = SplitMix64(seed: 31)
        var model = try Self.seed(store, count: 800, random: &random)
        let pinned = try store.beginRead()
        let pinnedModel = model
        var failures: [String] = []
        for generation in 1...3 {
            try store.write { write in
                let items = try #require(write.table(named: "items"))
                var rows = model.tables["items"] ?? [:]
                for key in Int64(0)..<800 {
                    let values = Self.itemValues(key, generation: generation, random: &random)
                    try write.update(items.id, key: ObjectKey(key), values: values)
                    rows[key] = values
                }
                model.tables["items"] = rows
            }
            do {
                if try !pinnedModel.matches(pinned) {
                    failures.append("after rewrite \(generation) the pinned read shows other data")
                }
            } catch {
                failures.append("after rewrite \(generation) the pinned read fails: \(error)")
            }
            let report = try store.verify()
            let reachableAndFree = report.problems.contains {
                if case .reachableAndFree = $0 { return true }
                return false
            }
            if !report.isClean {
                let kind = reachableAndFree ? " (reachableAndFree)" : ""
                failures.append(
                    "verify after rewrite \(generation)\(kind): \(report.problems.prefix(2))")
            }
        }
        pinned.end()
        return failures
    }

    @Test func pinnedPagesAreNotReused() throws {
        let failures = try Self.pinnedPagesScenario(bugs: [])
        #expect(failures.isEmpty, "\(failures)")
    }

    /// The `.reusePinnedPages` seeded bug must show as wrong pinned data or a verify failure.
    @Test func seededBugReusePinnedPagesIsDetected() throws {
        let failures = try Self.pinnedPagesScenario(bugs: .reusePinnedPages)
        #expect(!failures.isEmpty, "the pinned-pages scenario cannot see the reusePinnedPages bug")
        print("reusePinnedPages detected: \(failures.prefix(3))")
    }

    // MARK: growth

    /// Spec L8: growth never moves or invalidates the map: a read begun before the file grows
    /// keeps reading correctly after many growing commits, including a zero-copy row view held
    /// on another thread while the file grows under it.
    @Test(arguments: ["file", "memory"])
    func readerBegunBeforeGrowthKeepsReadingCorrectly(kind: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("growth.strata")
        let location: StoreLocation =
            kind == "file"
            ? .file(path)
            : .memory(identifier: "growth-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        let probes = ProbeCounter()
        let store = try Store.open(location, options: Self.options(hooks: probes.hooks))
        var random = SplitMix64(seed: 41)
        var model = try Self.seed(store, count: 200, random: &random)
        let pinned = try store.beginRead()
        let pinnedModel = model
        let items = try #require(pinned.table(named: "items"))
        let expectedText = try #require(pinnedModel.tables["items"]?[7]?[1])
        let baseAddress = store.file.store.base
        let bytesAtStart = try store.file.store.fileByteCount()

        // A reader thread holds a zero-copy view of one row's bytes across the growth.
        let holding = DispatchSemaphore(value: 0)
        let grown = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let outcomeBox = OutcomeBox()
        Thread {
            do {
                let result = try pinned.withRow(items, key: ObjectKey(7)) { row -> String in
                    let same = try row.withInlineBytes(at: 1) { bytes -> Bool in
                        let copy = Array(bytes)
                        holding.signal()
                        _ = grown.wait(timeout: .now() + .seconds(TransactionTests.hangGuardSeconds))
                        return Array(bytes) == copy
                            && .string(String(decoding: bytes, as: UTF8.self)) == expectedText
                    }
                    return same == true ? "ok" : "the row's bytes changed under the reader"
                }
                outcomeBox.set(result ?? "row 7 missing")
            } catch {
                outcomeBox.set("reader failed: \(error)")
            }
            done.signal()
        }.start()
        #expect(holding.wait(timeout: .now() + .seconds(TransactionTests.hangGuardSeconds)) == .success)

        for generation in 1...30 {
            try store.write { write in
                let table = try #require(write.table(named: "items"))
                var rows = model.tables["items"] ?? [:]
                for index in 0..<8 {
                    let key = Int64(10_000 + generation * 100 + index)
                    let values: [Value] = [
                        .int(key), .string(String(repeating: "G", count: 20_000 + index)),
                        .int(Int64(generation)),
                    ]
                    try write.insert(table.id, values: values)
                    rows[key] = values
                }
                model.tables["items"] = rows
            }
        }
        grown.signal()
        #expect(done.wait(timeout: .now() + .seconds(TransactionTests.hangGuardSeconds)) == .success)
        #expect(outcomeBox.value == "ok")

        let bytesAfter = try store.file.store.fileByteCount()
        #expect(
            bytesAfter > bytesAtStart * 4,
            "the file did not grow enough: \(bytesAtStart) → \(bytesAfter)")
        #expect(store.file.store.base == baseAddress, "the map moved")
        #expect(probes.count(.growthWhileReaderActive) > 0)
        #expect(
            try pinnedModel.matches(pinned), "the read begun before the growth reads wrong data")
        let newest = try store.beginRead()
        #expect(try model.matches(newest))
        newest.end()
        try Self.expectClean(store, includes: pinned.version, "after growth")
        pinned.end()
    }

    final class OutcomeBox: Sendable {
        private let text = Lock<String>("reader did not run")
        func set(_ value: String) { text.withLock { $0 = value } }
        var value: String { text.withLock { $0 } }
    }
}
