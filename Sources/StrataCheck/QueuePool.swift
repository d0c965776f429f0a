import Dispatch
import StrataStorage

/// Serial dispatch queues for the runs' queue contexts, reused across runs in the process.
///
/// Why a pool: the first `Realm(queue:)` on a queue pays Strata's serial-queue probe (a wait of
/// `QueueToken.probeWaitMilliseconds`), which a fresh queue per run would pay again every run.
/// Why checked out rather than shared by label: runs in parallel (test suites) must not share
/// a queue, or a thread parked inside one run's block would hold up the other run's driver.
enum QueuePool {
    private static let idle = Lock<[DispatchQueue]>([])
    private static let created = Lock(0)

    /// A serial queue no other run holds.
    static func checkOut() -> DispatchQueue {
        if let queue = idle.withLock({ $0.popLast() }) { return queue }
        let number = created.withLock { count -> Int in
            count += 1
            return count
        }
        return DispatchQueue(label: "strata-check.queue-\(number)")
    }

    /// Gives `queues` back once their run has ended. Blocks the run left on them (autorefresh
    /// turns of realms that are gone) find nothing to do.
    static func checkIn(_ queues: [DispatchQueue]) {
        idle.withLock { $0.append(contentsOf: queues) }
    }
}
