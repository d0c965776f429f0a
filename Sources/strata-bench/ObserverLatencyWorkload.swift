import Dispatch
import Strata
import Synchronization

/// `observer_latency`: how long a collection observer on a queue takes to hear of a commit,
/// in µs (median and p99); object layer only (the engine has no notifications).
///
/// `realm.objects(BenchPerson.self).observe(on: queue)` registers the observer through the
/// realm of the same file confined to a serial DispatchQueue (Spec N18). After its `.initial`
/// callback, the bench's main thread makes C one-object durable writes (C = --commits, 200 by
/// default), each adding 1 to one record's age, and waits for that commit's callback before
/// the next. The latency is the callback's first instruction minus the return of `write`
/// (0 when the callback came first, which a note counts); `from_write_start_*` measures from
/// the beginning of `write` instead (commit included), which is never negative. Every
/// callback is checked: an `.update` with no deletion or insertion and exactly the written
/// record's index modified; afterwards the age sum must have grown by C. A callback that
/// does not come within `callbackTimeoutSeconds` fails the run; no verdict depends on the
/// latencies.
enum ObserverLatencyWorkload {
    static let callbackTimeoutSeconds = 60

    static func run(database: BenchRealm, configuration: BenchConfiguration, report: Report) throws {
        let commitCount = configuration.observerCommitCount
        report.progress(
            "observer_latency: \(commitCount) one-object commits, each waiting for its queue"
                + " callback (object layer)")
        let ageSumBefore = try database.ageSum()
        let realm = database.realm
        let lastID = database.lastID
        let log = CallbackLog()
        let delivered = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "strata-bench.observer-latency")
        let token = realm.objects(BenchPerson.self).observe(on: queue) { change in
            let arrival = MonotonicInstant.now()
            switch change {
            case .initial:
                log.append(Callback(arrival: arrival, outcome: .initial))
            case .update(_, let deletions, let insertions, let modifications):
                let outcome = Callback.Outcome.update(
                    deletions: deletions, insertions: insertions, modifications: modifications)
                log.append(Callback(arrival: arrival, outcome: outcome))
            case .error(let error):
                log.append(Callback(arrival: arrival, outcome: .error("\(error)")))
            }
            delivered.signal()
        }
        defer { token.invalidate() }
        let initial = try nextCallback(delivered, log, what: "the .initial callback")
        guard case .initial = initial.outcome else {
            throw failure("the first callback was \(initial.outcome), not .initial")
        }
        var latencies = Samples()
        var fromWriteStart = Samples()
        var earlyCount = 0
        for commit in 0..<commitCount {
            let id = Int64(commit) % lastID + 1
            guard let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int(id)) else {
                throw failure("record \(id) is missing")
            }
            let writeStart = MonotonicInstant.now()
            try realm.write { person.age += 1 }
            let returned = MonotonicInstant.now()
            let callback = try nextCallback(delivered, log, what: "the callback of commit \(commit + 1)")
            let expected = Callback.Outcome.update(
                deletions: [], insertions: [], modifications: [Int(id) - 1])
            guard callback.outcome == expected else {
                throw failure(
                    "commit \(commit + 1) (record \(id)): callback \(callback.outcome), expected"
                        + " \(expected)")
            }
            if callback.arrival > returned {
                latencies.append(callback.arrival.nanos(since: returned) / 1e3)
            } else {
                latencies.append(0)
                earlyCount += 1
            }
            fromWriteStart.append(callback.arrival.nanos(since: writeStart) / 1e3)
        }
        let ageSumAfter = try database.ageSum()
        guard ageSumAfter == ageSumBefore + Int64(commitCount) else {
            throw failure(
                "age sum \(ageSumBefore) → \(ageSumAfter) over \(commitCount) commits of +1")
        }
        report.record(
            .observerLatency, layer: .object, "latency_median_us", latencies.median, unit: "us",
            kind: .duration)
        report.record(
            .observerLatency, layer: .object, "latency_p99_us", latencies.percentile(99),
            unit: "us", kind: .duration)
        report.record(
            .observerLatency, layer: .object, "from_write_start_median_us", fromWriteStart.median,
            unit: "us", kind: .duration)
        report.record(
            .observerLatency, layer: .object, "from_write_start_p99_us",
            fromWriteStart.percentile(99), unit: "us", kind: .duration)
        if earlyCount > 0 {
            report.note(
                "observer_latency: \(earlyCount) of \(commitCount) callbacks began before write"
                    + " returned (counted as 0 us in latency_*; from_write_start_* includes the"
                    + " write)")
        }
    }

    /// Waits for the next callback and returns it.
    private static func nextCallback(_ delivered: DispatchSemaphore, _ log: CallbackLog, what: String)
        throws(BenchError) -> Callback
    {
        guard delivered.wait(timeout: .now() + .seconds(callbackTimeoutSeconds)) == .success,
            let callback = log.takeFirst()
        else {
            throw failure("\(what) did not come within \(callbackTimeoutSeconds) s")
        }
        return callback
    }

    private static func failure(_ detail: String) -> BenchError {
        BenchError.wrongResult(workload: .observerLatency, detail: "object layer: " + detail)
    }
}

/// One observer callback: when it began and what it said.
struct Callback: Sendable {
    enum Outcome: Sendable, Equatable, CustomStringConvertible {
        case initial
        case update(deletions: [Int], insertions: [Int], modifications: [Int])
        case error(String)

        var description: String {
            switch self {
            case .initial: return ".initial"
            case .update(let deletions, let insertions, let modifications):
                return ".update(deletions: \(deletions), insertions: \(insertions),"
                    + " modifications: \(modifications))"
            case .error(let text): return ".error(\(text))"
            }
        }
    }

    let arrival: MonotonicInstant
    let outcome: Outcome
}

/// The callbacks the observer's queue delivered and the main thread has not taken yet.
final class CallbackLog: Sendable {
    private let pending = Mutex<[Callback]>([])

    func append(_ callback: Callback) {
        pending.withLock { $0.append(callback) }
    }

    func takeFirst() -> Callback? {
        pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
