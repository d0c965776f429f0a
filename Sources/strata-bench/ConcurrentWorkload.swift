import Foundation
import StrataStorage
import Synchronization

/// `concurrent`: a writer thread making small durable commits and a reader thread making full
/// scans, each alone and then both at once; every phase lasts `--seconds`.
///
/// Peer row f. of notes/peer-baselines.md, same shape: the writer updates one random record
/// per transaction (only its age changes), the reader opens a read transaction, scans every
/// record summing ages, and ends it. The phases run in the peers' order (writer alone, reader
/// alone, both). The ratios `…_concurrent_over_alone` show what each side loses to the other;
/// on 2 cores, outside load shows up directly in them. Engine layer only, for now (with
/// `--layer object` it is skipped).
enum ConcurrentWorkload {
    /// What one worker thread did in one phase.
    struct WorkerOutcome: Sendable {
        var operationCount = 0
        var elapsedNanos = 0.0
        /// The error that stopped the worker early, described (errors are not all Sendable).
        var failure: String?

        var operationsPerSecond: Double {
            elapsedNanos > 0 ? Double(operationCount) / (elapsedNanos / 1e9) : 0
        }
    }

    /// The values the worker threads need; Sendable, unlike `BenchDatabase`.
    struct Target: Sendable {
        let store: Store
        let tableID: TableID
        let lastID: Int64
    }

    static func run(
        database: BenchDatabase, configuration: BenchConfiguration,
        report: Report
    ) throws {
        let seconds = configuration.concurrentPhaseSeconds
        report.progress("concurrent: three phases of \(NumberText.trimmed(seconds)) s")
        let target = Target(
            store: database.store, tableID: database.tableID, lastID: database.lastID)
        let writerAlone = try runPhase(target, writer: true, reader: false, seconds: seconds)
        let readerAlone = try runPhase(target, writer: false, reader: true, seconds: seconds)
        let both = try runPhase(target, writer: true, reader: true, seconds: seconds)
        guard let writerAlone = writerAlone.writer, let readerAlone = readerAlone.reader,
            let writerBoth = both.writer, let readerBoth = both.reader
        else { preconditionFailure("every phase reports the workers it started") }
        let rates = [
            ("writer_alone_commits_per_s", writerAlone, "commits/s"),
            ("reader_alone_scans_per_s", readerAlone, "scans/s"),
            ("writer_concurrent_commits_per_s", writerBoth, "commits/s"),
            ("reader_concurrent_scans_per_s", readerBoth, "scans/s"),
        ]
        for (metric, outcome, unit) in rates {
            try checkProgress(outcome, metric: metric)
            report.record(
                .concurrent, layer: .engine, metric, outcome.operationsPerSecond, unit: unit,
                kind: .rate)
        }
        report.record(
            .concurrent, layer: .engine, "writer_concurrent_over_alone",
            writerBoth.operationsPerSecond / writerAlone.operationsPerSecond, unit: "x",
            kind: .ratioHigherIsBetter)
        report.record(
            .concurrent, layer: .engine, "reader_concurrent_over_alone",
            readerBoth.operationsPerSecond / readerAlone.operationsPerSecond, unit: "x",
            kind: .ratioHigherIsBetter)
    }

    /// A worker that finished no operation in a whole phase gives no rate to divide by.
    private static func checkProgress(_ outcome: WorkerOutcome, metric: String) throws {
        guard outcome.operationCount > 0 else {
            throw BenchError.wrongResult(
                workload: .concurrent, detail: "\(metric): no operation finished in the phase")
        }
    }

    /// What the main thread shares with the workers of one phase.
    final class PhaseState: Sendable {
        /// Set by the main thread when the phase's time is up.
        let stop = Atomic<Bool>(false)
        let writerOutcome = Lock<WorkerOutcome?>(nil)
        let readerOutcome = Lock<WorkerOutcome?>(nil)
        /// Signalled once by each worker as it finishes.
        let finished = DispatchSemaphore(value: 0)

        var isStopped: Bool { stop.load(ordering: .acquiring) }
    }

    /// Starts the chosen workers, lets them run `seconds`, stops and joins them.
    static func runPhase(_ target: Target, writer: Bool, reader: Bool, seconds: Double)
        throws -> (writer: WorkerOutcome?, reader: WorkerOutcome?)
    {
        let state = PhaseState()
        let workerCount = (writer ? 1 : 0) + (reader ? 1 : 0)
        precondition(workerCount > 0, "a phase needs a worker")
        if writer {
            Thread {
                let outcome = writeUntilStopped(target, state: state)
                state.writerOutcome.withLock { $0 = outcome }
                state.finished.signal()
            }.start()
        }
        if reader {
            Thread {
                let outcome = scanUntilStopped(target, state: state)
                state.readerOutcome.withLock { $0 = outcome }
                state.finished.signal()
            }.start()
        }
        sleepNanos(UInt64(seconds * 1e9))
        state.stop.store(true, ordering: .releasing)
        for _ in 0..<workerCount { state.finished.wait() }
        let outcomes = (
            writer: state.writerOutcome.withLock { $0 }, reader: state.readerOutcome.withLock { $0 }
        )
        for outcome in [outcomes.writer, outcomes.reader] {
            if let failure = outcome?.failure {
                throw BenchError.wrongResult(workload: .concurrent, detail: failure)
            }
        }
        precondition(writer == (outcomes.writer != nil), "the writer reports once")
        precondition(reader == (outcomes.reader != nil), "the reader reports once")
        return outcomes
    }

    /// The writer: one durable update of a random record per transaction.
    static func writeUntilStopped(_ target: Target, state: PhaseState)
        -> WorkerOutcome
    {
        var outcome = WorkerOutcome()
        var random = XorShift64(seed: 0x5EED_0F_0005_17E5)
        var ageShift: Int64 = 1
        let start = MonotonicInstant.now()
        do {
            while !state.isStopped {
                let id = random.nextID(upTo: target.lastID)
                let write = try target.store.beginWrite()
                try write.update(
                    target.tableID, key: ObjectKey(id),
                    values: PersonRecord.values(id: id, ageShift: ageShift))
                try write.commit()
                outcome.operationCount += 1
                ageShift += 1
            }
        } catch {
            outcome.failure = "writer: \(error)"
        }
        outcome.elapsedNanos = MonotonicInstant.now().nanos(since: start)
        return outcome
    }

    /// The reader: full scans, each in its own read transaction, counting every record.
    static func scanUntilStopped(_ target: Target, state: PhaseState)
        -> WorkerOutcome
    {
        var outcome = WorkerOutcome()
        let start = MonotonicInstant.now()
        do {
            while !state.isStopped {
                let read = try target.store.beginRead()
                defer { read.end() }
                guard let table = read.table(id: target.tableID) else {
                    throw BenchError.wrongResult(workload: .concurrent, detail: "no table")
                }
                var recordCount: Int64 = 0
                var ageSum: Int64 = 0
                try read.forEachRow(table) { _, row in
                    ageSum &+= try row.int(at: PersonRecord.ageColumn) ?? 0
                    recordCount += 1
                    return true
                }
                guard recordCount == target.lastID, ageSum > 0 else {
                    throw BenchError.wrongResult(
                        workload: .concurrent,
                        detail: "reader saw \(recordCount) records, expected \(target.lastID)")
                }
                outcome.operationCount += 1
            }
        } catch {
            outcome.failure = "reader: \(error)"
        }
        outcome.elapsedNanos = MonotonicInstant.now().nanos(since: start)
        return outcome
    }

    private static func sleepNanos(_ nanos: UInt64) {
        var request = timespec(
            tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }
}
