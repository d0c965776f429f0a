/// The one seam through which test-only behaviour enters the engine (Docs/style.md rule 17).
///
/// Production uses `.none`: every hook is nil and every bug switch is off, so a hook site costs
/// one predictable branch. Hooks sit at lock, commit and I/O granularity, never in per-key
/// loops. The harness issue drives `yield` (controlled scheduling), `fault` (injected I/O
/// errors), `probe` (coverage marks) and `bugs` (the seeded-bug catalog).
package struct EngineHooks: Sendable {
    /// Called at each `YieldPoint`; a controlled scheduler may block here to pass its token.
    package var yield: (@Sendable (YieldPoint) -> Void)?
    /// Asked before each I/O operation; a non-nil answer makes the operation fail that way.
    package var fault: (@Sendable (FaultSite) -> InjectedFault?)?
    /// Told when a rare path worth covering is reached.
    package var probe: (@Sendable (Probe) -> Void)?
    /// Deliberate bugs switched on for harness validation. Empty in production.
    package var bugs: SeededBugs

    /// Hooks with the given callbacks and seeded bugs; every callback left nil costs one branch
    /// at its point.
    /// - Parameters:
    ///   - yield: called at each `YieldPoint` (a controlled-thread scheduler parks here).
    ///   - fault: asked at each `FaultSite`; a non-nil answer makes that I/O fail.
    ///   - probe: told of each `Probe` event (coverage counting).
    ///   - bugs: the deliberate bugs switched on.
    package init(
        yield: (@Sendable (YieldPoint) -> Void)? = nil,
        fault: (@Sendable (FaultSite) -> InjectedFault?)? = nil,
        probe: (@Sendable (Probe) -> Void)? = nil,
        bugs: SeededBugs = []
    ) {
        self.yield = yield
        self.fault = fault
        self.probe = probe
        self.bugs = bugs
    }

    /// No hooks and no bugs: what production uses.
    package static let none = EngineHooks()

    @inline(__always)
    func at(_ point: YieldPoint) {
        if let yield { yield(point) }
    }

    @inline(__always)
    func mark(_ probe: Probe) {
        if let hook = self.probe { hook(probe) }
    }

    @inline(__always)
    package func injectedFault(_ site: FaultSite) -> InjectedFault? {
        guard let fault else { return nil }
        return fault(site)
    }

    @inline(__always)
    func has(_ bug: SeededBugs) -> Bool { !bugs.isDisjoint(with: bug) }
}

/// Points where the engine lets a controlled scheduler switch threads.
package enum YieldPoint: Sendable, Hashable, CustomStringConvertible {
    /// About to wait for the write lock.
    case writeLockWait
    /// Another writer of this process holds the lock: about to block until it lets go. A
    /// controlled scheduler learns here, not by a timeout, that the thread really waits.
    case writeLockBlocks
    /// Holds the write lock.
    case writeLockAcquired
    /// Just released the write lock (after a commit or rollback).
    case writeLockReleased
    /// Just pinned the newest version: a read's linearization point (what it reads is fixed).
    case pinNewest(Version)
    /// Just added a pin to a version this process already pins (a duplicate, e.g. a freeze).
    /// `callerHoldsLock`: the caller pinned inside a lock of its own (`ReadTransaction.duplicate`
    /// says so), so a controlled scheduler must not park the thread here: the threads it runs
    /// meanwhile could need that lock.
    case pin(Version, callerHoldsLock: Bool)
    /// Just dropped a pin; the version's pages may be reused from here on if nothing else pins
    /// it. `callerHoldsLock` as for `pin`.
    case unpin(Version, callerHoldsLock: Bool)
    /// Before writing one page of phase 1.
    case pageWrite(PageNumber)
    /// Before the phase-1 sync (pages and free list durable).
    case phaseOneSync
    /// Before writing the inactive commit slot.
    case slotWrite
    /// Before the phase-2 sync (slot durable).
    case phaseTwoSync
    /// Before making the new version visible to readers.
    case publish
    /// A background sync of ended async groups is about to begin (Spec D10), on its own thread,
    /// before it takes the write lock. A harness may hold it here until it chooses to let the
    /// group become durable.
    case groupSyncBegins
    /// The background group sync is over and its realm's turn is scheduled.
    case groupSyncEnds

    package var description: String {
        switch self {
        case .writeLockWait: return "write-lock-wait"
        case .writeLockBlocks: return "write-lock-blocks"
        case .writeLockAcquired: return "write-lock-acquired"
        case .writeLockReleased: return "write-lock-released"
        case .pinNewest(let v): return "pin-newest(\(v.rawValue))"
        case .pin(let v, _): return "pin(\(v.rawValue))"
        case .unpin(let v, _): return "unpin(\(v.rawValue))"
        case .pageWrite(let p): return "page-write(\(p.rawValue))"
        case .phaseOneSync: return "phase-1-sync"
        case .slotWrite: return "slot-write"
        case .phaseTwoSync: return "phase-2-sync"
        case .publish: return "publish"
        case .groupSyncBegins: return "group-sync-begins"
        case .groupSyncEnds: return "group-sync-ends"
        }
    }
}

/// An I/O operation that a fault can be injected into.
package enum FaultSite: Sendable, Hashable, CustomStringConvertible {
    /// Writing a data or free-list page in phase 1.
    case pageWrite(PageNumber)
    /// Writing a commit slot (0 or 1) in phase 2.
    case slotWrite(slot: Int)
    /// The sync that ends phase 1.
    case phaseOneSync
    /// The sync that ends phase 2.
    case phaseTwoSync
    /// Growing the file.
    case grow(toBytes: Int)
    /// Writing the newest slot again at a write's begin, its sync unconfirmed (Spec D7).
    case slotRewrite(slot: Int)
    /// The sync after that rewrite.
    case slotRewriteSync

    package var description: String {
        switch self {
        case .pageWrite(let p): return "page-write(\(p.rawValue))"
        case .slotWrite(let slot): return "slot-write(\(slot))"
        case .phaseOneSync: return "phase-1-sync"
        case .phaseTwoSync: return "phase-2-sync"
        case .grow(let bytes): return "grow(\(bytes))"
        case .slotRewrite(let slot): return "slot-rewrite(\(slot))"
        case .slotRewriteSync: return "slot-rewrite-sync"
        }
    }
}

/// The failure an injected fault produces.
package enum InjectedFault: Sendable, Hashable {
    /// The operation fails with EIO. For a sync this follows Linux "fsyncgate" semantics in
    /// the harness's simulated disk: the unsynced writes may or may not have reached the disk,
    /// and a retried sync would report success without them.
    case eio
    /// The operation fails with ENOSPC.
    case enospc
}
