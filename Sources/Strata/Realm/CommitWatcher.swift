import Dispatch
import Foundation
import StrataStorage
import Synchronization

/// Spec V7: tells the realms of one file, each on its own scheduler, that a newer version
/// exists. In-process commits call `didCommit` at once; commits of other processes are found
/// by polling the newest version every `pollInterval` while any realm listens.
final class CommitWatcher: Sendable {
    static let pollInterval = DispatchTimeInterval.milliseconds(20)

    private struct State {
        var listeners: [ObjectIdentifier: CommitListener] = [:]
        var newestSeen: Version
        var timer: (any DispatchSourceTimer)?
        var stopped = false
    }

    private let store: Store
    private let state: Lock<State>
    private let queue = DispatchQueue(label: "strata.commit-watcher")

    init(store: Store) {
        self.store = store
        state = Lock(State(newestSeen: store.newestVersion))
    }

    func add(_ listener: CommitListener) {
        state.withLock { state in
            guard !state.stopped else { return }
            state.listeners[ObjectIdentifier(listener)] = listener
            if state.timer == nil {
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + Self.pollInterval, repeating: Self.pollInterval)
                timer.setEventHandler { [weak self] in self?.check() }
                timer.resume()
                state.timer = timer
            }
        }
    }

    func remove(_ listener: CommitListener) {
        state.withLock { state in
            state.listeners[ObjectIdentifier(listener)] = nil
            if state.listeners.isEmpty, let timer = state.timer {
                timer.cancel()
                state.timer = nil
            }
        }
    }

    /// A commit of this process published a version: wake the other realms now.
    func didCommit() { check() }

    func stop() {
        state.withLock { state in
            state.stopped = true
            state.listeners = [:]
            state.timer?.cancel()
            state.timer = nil
        }
    }

    private func check() {
        let newest = store.newestVersion
        let toWake: [CommitListener] = state.withLock { state in
            guard newest > state.newestSeen else { return [] }
            state.newestSeen = newest
            return Array(state.listeners.values)
        }
        for listener in toWake { listener.schedule() }
    }
}

/// Where a realm's autorefresh runs: its thread's run loop, or its queue.
enum RealmScheduler: Sendable {
    case runLoop(RunLoopReference)
    case queue(DispatchQueue)

    /// The scheduler of the calling context for a realm with `confinement`.
    static func current(for confinement: Confinement, queue: DispatchQueue?) -> RealmScheduler? {
        switch confinement {
        case .frozen: return nil
        case .queue: return queue.map { .queue($0) }
        case .thread:
            if Thread.isMainThread { return .queue(DispatchQueue.main) }
            return .runLoop(RunLoopReference(loop: RunLoop.current))
        }
    }

    func perform(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .runLoop(let reference): reference.loop.perform(work)
        case .queue(let queue): queue.async(execute: work)
        }
    }
}

/// A thread's run loop, to schedule work on it from other threads. `perform` is thread-safe
/// (it hands the block to the loop under the loop's own lock); nothing else is called off
/// the owning thread.
struct RunLoopReference: @unchecked Sendable {
    let loop: RunLoop
}

/// One realm's subscription to the watcher: at most one autorefresh turn is pending at a time.
final class CommitListener: Sendable {
    private let scheduler: RealmScheduler
    private let target: WeakRealmCore
    private let pending = Atomic<Bool>(false)

    init(scheduler: RealmScheduler, core: RealmCore) {
        self.scheduler = scheduler
        target = WeakRealmCore(core: core)
    }

    func schedule() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let target = self.target
        scheduler.perform { [self] in
            pending.store(false, ordering: .releasing)
            target.core?.autorefreshTurn()
        }
    }
}

/// A weak reference to a live realm, dereferenced only by work running in the realm's own
/// context (its scheduler, or the cache lookup for that context): `@unchecked` because the
/// compiler cannot see that confinement.
struct WeakRealmCore: @unchecked Sendable {
    weak var core: RealmCore?
}
