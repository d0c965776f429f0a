import Dispatch
import Strata
import StrataStorage

/// Serial dispatch queues for the runs' queue contexts, reused across runs in the process.
///
/// Why a pool: fewer queues and threads over a long campaign (the queues are declared serial,
/// so Strata's serial-queue probe is not paid for them).
/// Why checked out rather than shared by label: runs in parallel (test suites) must not share
/// a queue, or a thread parked inside one run's block would hold up the other run's driver.
enum QueuePool {
    private static let idle = Lock<[DispatchQueue]>([])
    private static let created = Lock(0)
    /// Each pool queue's number, for a callback to tell the queue it runs on (Spec N6).
    static let numberKey = DispatchSpecificKey<Int>()

    /// A serial queue no other run holds.
    static func checkOut() -> DispatchQueue {
        if let queue = idle.withLock({ $0.popLast() }) { return queue }
        let number = created.withLock { count -> Int in
            count += 1
            return count
        }
        let queue = DispatchQueue(label: "strata-check.queue-\(number)")
        queue.setSpecific(key: numberKey, value: number)
        // Serial by construction: no probe, so a run that could not give its queues back (a
        // thread left inside) costs the next run nothing.
        Realm._declareSerial(queue)
        return queue
    }

    /// Gives `queues` back once their run has ended. Blocks the run left on them (autorefresh
    /// turns of realms that are gone) find nothing to do.
    static func checkIn(_ queues: [DispatchQueue]) {
        idle.withLock { $0.append(contentsOf: queues) }
    }
}
