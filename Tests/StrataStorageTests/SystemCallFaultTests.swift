import Foundation
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataStorage

/// Spec D18 on real files: a scripted workload (file creation, commits of different sizes, a
/// growth, overflow values, deletes that feed the free list, a compacted copy, reuse of freed
/// pages) is run once cleanly to count its system calls of each kind, then once for every N,
/// every call kind and every fault (EIO, ENOSPC, a short write) with the Nth call failing. Each
/// run must end in a typed error (or complete, for a short write), lose no acknowledged commit,
/// leave a file that verifies, and accept writes after a reopen (in the same process too, where
/// D18 says writes go on: after a failed copy). Count-bounded: the number of runs is the number
/// of calls the clean run made times the faults, whatever the machine's speed.
@Suite(.serialized) struct SystemCallFaultTests {
    static let options = StoreOptions(
        maximumFileSizeBytes: 64 << 20, readerSlotCount: 16, growthChunkBytesMin: 64 << 10)

    /// What the workload reached: the contents of every acknowledged commit, the commit in
    /// flight, and the first error.
    struct Ledger {
        var acknowledged = ContentModel()
        var acknowledgedVersion = Version.none
        /// Contents of the commit in flight when the error came (nil outside a commit).
        var attempted: ContentModel?
        var failedStep: String?
        var error: (any Error)?
        var copyModel: ContentModel?
        /// After a failed commit: whether the handle was poisoned and refused a new write with
        /// `.poisoned` (Spec D6).
        var poisonedAfterFailedCommit: Bool?
    }

    enum Step: String { case open, commit, copy }

    /// Records which commit phase failed (the pager's probes): a failure at phase 2 may
    /// recover the failed commit (Spec D7).
    final class PhaseProbe: @unchecked Sendable {
        let phaseTwo = Atomic<Bool>(false)
        var hooks: EngineHooks {
            EngineHooks(probe: { [self] probe in
                if probe == .slotWriteFailed || probe == .phaseTwoSyncFailed {
                    phaseTwo.store(true, ordering: .relaxed)
                }
            })
        }
    }

    static func row(_ key: Int64, _ size: Int) -> [Value] {
        [.int(key), .string("row \(key)"), .binary([UInt8](repeating: UInt8(truncatingIfNeeded: key), count: size))]
    }

    /// The scripted workload; stops at the first error, recording it in `ledger`.
    static func workload(directory: String, hooks: EngineHooks, ledger: inout Ledger) {
        let path = directory + "/db.strata"
        var options = Self.options
        options.hooks = hooks
        var step = Step.open
        var opened: Store?
        do {
            let store = try Store.open(.file(path), options: options)
            opened = store
            var model = ledger.acknowledged
            func commit(_ body: (WriteTransaction, inout ContentModel) throws -> Void) throws {
                step = .commit
                var next = model
                let write = try store.beginWrite()
                do {
                    try body(write, &next)
                    ledger.attempted = next
                    let version = try write.commit()
                    model = next
                    ledger.acknowledged = next
                    ledger.acknowledgedVersion = version
                    ledger.attempted = nil
                } catch {
                    write.rollback()
                    throw error
                }
            }
            // 1: two small tables.
            try commit { write, next in
                let items = try write.createTable("items", primaryKey: .int(column: 0))
                _ = try write.createTable("log")
                next.tables = ["items": [:], "log": [:]]
                for key in Int64(0)..<20 {
                    _ = try write.insert(items.id, values: row(key, 16))
                    next.tables["items", default: [:]][key] = row(key, 16)
                }
            }
            // 2: big enough to grow the file past its first chunk (fallocate, then fsync).
            try commit { write, next in
                let items = try #require(write.table(named: "items"))
                for key in Int64(100)..<700 {
                    _ = try write.insert(items.id, values: row(key, 180))
                    next.tables["items", default: [:]][key] = row(key, 180)
                }
            }
            // 3: values that overflow into page chains.
            try commit { write, next in
                let log = try #require(write.table(named: "log"))
                for index in 0..<3 {
                    let values: [Value] = [.binary([UInt8](repeating: UInt8(index), count: 9000 + index * 4000))]
                    let key = try write.insert(log.id, values: values)
                    next.tables["log", default: [:]][key.rawValue] = values
                }
            }
            // 4: deletes that free pages (the free list grows).
            try commit { write, next in
                let items = try #require(write.table(named: "items"))
                for key in stride(from: Int64(100), to: 700, by: 2) {
                    _ = try write.delete(items.id, key: ObjectKey(key))
                    next.tables["items", default: [:]][key] = nil
                }
            }
            // 5: a compacted copy beside the file.
            step = .copy
            ledger.copyModel = model
            try store.writeCompactedCopy(toPath: directory + "/copy.strata")
            ledger.copyModel = nil
            // 6: inserts that reuse the freed pages.
            try commit { write, next in
                let items = try #require(write.table(named: "items"))
                for key in Int64(1000)..<1150 {
                    _ = try write.insert(items.id, values: row(key, 100))
                    next.tables["items", default: [:]][key] = row(key, 100)
                }
            }
            store.close()
        } catch {
            ledger.failedStep = step.rawValue
            ledger.error = error
            // Spec D6: a failed commit poisons the file (D18: a failed copy does not, checked by
            // the caller).
            if step == .commit, let store = opened {
                var refused = false
                do {
                    _ = try store.beginWrite()
                } catch {
                    if case .poisoned = error { refused = true }
                }
                ledger.poisonedAfterFailedCommit = store.isPoisoned && refused
            }
            opened?.close()
        }
    }

    /// One outcome line per run, counted per call site and fault for the report.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: [String: Int]] = [:]
        func add(_ site: String, _ outcome: String) {
            lock.withLock { counts[site, default: [:]][outcome, default: 0] += 1 }
        }
        var report: String {
            lock.withLock {
                counts.keys.sorted().map { site in
                    let outcomes = counts[site, default: [:]]
                    let total = outcomes.values.reduce(0, +)
                    let parts = outcomes.keys.sorted().map { "\($0): \(outcomes[$0, default: 0])" }
                    return "  \(site): \(total) runs; " + parts.joined(separator: "; ")
                }.joined(separator: "\n")
            }
        }
    }

    /// Checks the file after a faulted run: reopen recovers the acknowledged contents (or the
    /// failed commit's, if it failed at phase 2), verifies, and takes a commit.
    static func checkRecovered(directory: String, ledger: Ledger, phaseTwoFailed: Bool) throws -> String {
        let path = directory + "/db.strata"
        guard Store.fileExists(path: path) else {
            // Only a failed creation leaves no file, and then nothing was acknowledged.
            #expect(
                ledger.failedStep == Step.open.rawValue && ledger.acknowledgedVersion == .none,
                "the database file is gone after \(ledger.failedStep ?? "a clean run")")
            return "no file (creation failed)"
        }
        let store = try Store.open(.file(path), options: Self.options)
        let report = try store.verify()
        #expect(report.isClean, "verify after reopen: \(report.problems.prefix(3))")
        var recovered = "acknowledged"
        do {
            let read = try store.beginRead()
            defer { read.end() }
            if try ledger.acknowledged.matches(read) {
                recovered = "acknowledged"
            } else if phaseTwoFailed, let attempted = ledger.attempted, try attempted.matches(read) {
                recovered = "the failed commit (phase 2)"
            } else {
                let message =
                    "reopen read other contents than the acknowledged commit (version \(read.version.rawValue), "
                    + "acknowledged \(ledger.acknowledgedVersion.rawValue), step \(ledger.failedStep ?? "none"))"
                Issue.record(Comment(rawValue: message))
                recovered = "WRONG"
            }
        }
        // Writes go on after the reopen (Spec D9).
        try store.write { write in
            let table = try write.table(named: "after") ?? write.createTable("after")
            _ = try write.insert(table.id, values: [.string("after the fault")])
        }
        #expect(try store.verify().isClean)
        store.close()
        return recovered
    }

    /// A copy left at the destination is complete: it verifies and holds the source's contents.
    static func checkCopy(directory: String, ledger: Ledger) throws {
        let path = directory + "/copy.strata"
        guard Store.fileExists(path: path), let model = ledger.copyModel else { return }
        let copy = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true))
        #expect(try copy.verify().isClean, "a copy left at the destination verifies")
        let read = try copy.beginRead()
        defer { read.end() }
        #expect(try model.matches(read), "a copy left at the destination holds the source's contents")
    }

    @Test("Spec D6, D7, D9, D18: every system call of a scripted workload on a real file fails once, with each fault")
    func everyCallOfEveryKindFailsOnce() throws {
        // The clean run: how many calls of each kind there are to fail.
        let clean = TemporaryDirectory()
        let counting = SystemCallFaultPlan(directory: clean.path)
        var cleanLedger = Ledger()
        SystemCallFaults.run(counting) { Self.workload(directory: clean.path, hooks: .none, ledger: &cleanLedger) }
        #expect(cleanLedger.error == nil, "the clean run failed: \(String(describing: cleanLedger.error))")
        let counts = counting.counts
        for call in [SystemCall.pwrite, .fdatasync, .fsync, .fallocate, .ftruncate] {
            #expect(counts[call, default: 0] > 0, "the workload makes no \(call) call")
        }
        let tally = Tally()
        var injections = 0
        for call in SystemCall.allCases {
            let faults: [SystemCallFault] =
                [.fail(errno: EIO), .fail(errno: ENOSPC)] + (call.writes ? [.shortWrite] : [])
            for fault in faults {
                for ordinal in 1...max(1, counts[call, default: 0]) where counts[call, default: 0] > 0 {
                    injections += 1
                    let outcome = try Self.runFaulted(call: call, ordinal: ordinal, fault: fault)
                    tally.add("\(call) \(fault)", outcome)
                }
            }
        }
        let total = counts.values.reduce(0, +)
        let perCall = SystemCall.allCases.map { "\($0) \(counts[$0, default: 0])" }.joined(separator: ", ")
        print(
            "SystemCallFaultTests: clean run calls \(perCall) (\(total) in all); \(injections) faulted runs; "
                + "outcomes per call site and fault:\n" + tally.report)
        #expect(injections >= total * 2)
    }

    /// One faulted run; returns its outcome for the tally.
    static func runFaulted(call: SystemCall, ordinal: Int, fault: SystemCallFault) throws -> String {
        let directory = TemporaryDirectory()
        let plan = SystemCallFaultPlan(directory: directory.path, failing: [(call, ordinal, fault)])
        let probe = PhaseProbe()
        var ledger = Ledger()
        let label = "\(call) #\(ordinal) \(fault)"
        SystemCallFaults.run(plan) { Self.workload(directory: directory.path, hooks: probe.hooks, ledger: &ledger) }
        let fired = plan.fired
        #expect(fired.count == 1, "\(label): the fault fired \(fired.count) times")
        var outcome: String
        if let error = ledger.error {
            // A typed error naming the fault's errno, never a trap.
            guard let storage = error as? StorageError else {
                Issue.record("\(label): \(error) is not a StorageError")
                return "untyped error"
            }
            switch (fault, storage) {
            case (.fail(let code), .io(_, let found)) where found == code: break
            case (.fail(ENOSPC), .noSpace): break
            default: Issue.record("\(label): unexpected error \(storage)")
            }
            #expect(fault != .shortWrite, "\(label): a short write is continued, not an error: \(storage)")
            outcome = "\(ledger.failedStep ?? "?") failed"
            if ledger.failedStep == Step.commit.rawValue {
                #expect(
                    ledger.poisonedAfterFailedCommit == true, "\(label): the failed commit did not poison the handle")
                outcome += ", poisoned"
            }
        } else {
            outcome = "completed"
            #expect(fault == .shortWrite, "\(label): the run did not fail")
        }
        if ledger.failedStep == Step.copy.rawValue {
            // Spec D18: a failed copy does not poison the source; writes on it go on in this
            // process.
            let store = try Store.open(.file(directory.file("db.strata")), options: Self.options)
            #expect(!store.isPoisoned)
            try store.write { write in
                _ = try write.insert(try #require(write.table(named: "items")).id, values: Self.row(5000, 8))
            }
            var model = ledger.acknowledged
            model.tables["items", default: [:]][5000] = Self.row(5000, 8)
            var updated = ledger
            updated.acknowledged = model
            store.close()
            try Self.checkCopy(directory: directory.path, ledger: ledger)
            outcome += ", source writable"
            outcome +=
                "; reopen recovered "
                + (try Self.checkRecovered(
                    directory: directory.path, ledger: updated,
                    phaseTwoFailed: false))
            return outcome
        }
        outcome +=
            "; reopen recovered "
            + (try Self.checkRecovered(
                directory: directory.path, ledger: ledger,
                phaseTwoFailed: probe.phaseTwo.load(ordering: .relaxed)))
        return outcome
    }
}
