import Dispatch
import Foundation
import StrataStorage
import Synchronization

/// Spec V7: tells the realms of one file, each on its own scheduler, that a newer version
/// exists. In-process commits call `didCommit` at once. Commits of other processes ring the
/// file's `<file>.note`, which an inotify watch hears while any realm listens (no polling);
/// only where the note cannot be watched (it could not be created) is the newest version
/// polled every `pollInterval`. Memory and simulated stores have no other process to hear.
final class CommitWatcher: Sendable {
    static let pollInterval = DispatchTimeInterval.milliseconds(20)

    private struct State {
        var listeners: [ObjectIdentifier: CommitListener] = [:]
        var newestSeen: Version
        /// The note's read source, or the polling timer where there is no note to watch.
        var source: (any DispatchSourceProtocol)?
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
            // Only a file has other processes to hear (`notePath`).
            if state.source == nil && store.notePath != nil { state.source = makeSource() }
        }
    }

    /// The read source of an inotify watch on the note, or else a polling timer.
    private func makeSource() -> any DispatchSourceProtocol {
        if let notePath = store.notePath, let watch = CommitNoteWatch(notePath: notePath) {
            let source = DispatchSource.makeReadSource(fileDescriptor: watch.descriptor, queue: queue)
            // The handler keeps the watch (and its descriptor) until the source is cancelled.
            source.setEventHandler { [weak self] in
                watch.drain()
                self?.check()
            }
            source.resume()
            return source
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.pollInterval, repeating: Self.pollInterval)
        timer.setEventHandler { [weak self] in self?.check() }
        timer.resume()
        return timer
    }

    /// Called from `RealmCore.deinit`, which may run on an exiting thread: the source is
    /// cancelled on the teardown thread (`TeardownThread`).
    func remove(_ listener: CommitListener) {
        let idle = state.withLock { state -> (any DispatchSourceProtocol)? in
            state.listeners[ObjectIdentifier(listener)] = nil
            guard state.listeners.isEmpty else { return nil }
            defer { state.source = nil }
            return state.source
        }
        if let idle { Self.cancelElsewhere(idle) }
    }

    private static func cancelElsewhere(_ source: any DispatchSourceProtocol) {
        let source = UncheckedSource(source: source)
        TeardownThread.shared.run { source.source.cancel() }
    }

    /// A commit of this process published a version: wake the other realms now.
    func didCommit() { check() }

    /// Called from `RealmFile.deinit` (see `remove`).
    func stop() {
        let source = state.withLock { state -> (any DispatchSourceProtocol)? in
            state.stopped = true
            state.listeners = [:]
            defer { state.source = nil }
            return state.source
        }
        if let source { Self.cancelElsewhere(source) }
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

/// Where a realm's autorefresh runs: its thread's run loop, its queue, or its actor.
enum RealmScheduler: Sendable {
    case runLoop(RunLoopReference)
    case queue(DispatchQueue)
    case actor(ActorScheduler)
    /// The main thread's realm: its run loop, also when it spins inside a main-queue block.
    case mainThread

    /// The scheduler of the calling context for a realm with `confinement`.
    static func current(for confinement: Confinement, queue: DispatchQueue?) -> RealmScheduler? {
        switch confinement {
        case .frozen: return nil
        case .queue(let token):
            if let queue { return .queue(queue) }
            return token === QueueToken.mainQueue ? .queue(DispatchQueue.main) : nil
        case .actor(let token):
            guard let actor = token.actor else { return nil }
            return .actor(ActorScheduler(actor))
        case .thread:
            if Thread.isMainThread { return .mainThread }
            return .runLoop(RunLoopReference(loop: RunLoop.current))
        }
    }

    func perform(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .runLoop(let reference): reference.loop?.perform(work)
        case .queue(let queue): queue.async(execute: work)
        case .actor(let scheduler): scheduler.perform(work)
        case .mainThread:
            // Realm's main-thread scheduler is a run-loop source, which also fires in a run loop
            // spun inside a main-queue block (waiting there for the realm's work is common);
            // the main queue cannot run a second block then. A block performed on the main run
            // loop does run there, but nothing wakes a sleeping loop for it; the main queue does.
            // So the work goes both ways, and runs once, whichever comes first. Each way keeps
            // its order, so turns still run in the order they were asked for.
            let once = RunOnce(work)
            RunLoop.main.perform { once.run() }
            DispatchQueue.main.async { once.run() }
        }
    }
}

/// Work that runs at most once, whichever of its schedulings comes first.
private final class RunOnce: Sendable {
    private let ran = Atomic<Bool>(false)
    private let work: @Sendable () -> Void

    init(_ work: @escaping @Sendable () -> Void) { self.work = work }

    func run() {
        guard !ran.exchange(true, ordering: .acquiringAndReleasing) else { return }
        work()
    }
}

/// Runs work on an actor in the order it was given (Spec C15, N7: commit order). One task per
/// realm takes the work from a stream and hops to the actor for each item; separate tasks
/// would reach the actor in any order. The task holds the actor only while running an item, so
/// an actor that holds its realm (and so this scheduler) is not kept alive by it; the stream
/// ends, and the task with it, when the scheduler goes.
final class ActorScheduler: Sendable {
    private let continuation: AsyncStream<@Sendable () -> Void>.Continuation

    init(_ actor: any Actor) {
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () -> Void).self)
        self.continuation = continuation
        Task { [weak actor] in
            for await work in stream {
                guard let actor else { return }
                await runIsolated(to: actor, work)
            }
        }
    }

    /// Finishing resumes the task, which uses Dispatch: not on a releasing thread that may be
    /// exiting (`TeardownThread`).
    deinit {
        let continuation = self.continuation
        TeardownThread.shared.run { continuation.finish() }
    }

    func perform(_ work: @escaping @Sendable () -> Void) { continuation.yield(work) }
}

/// Runs `work` in `actor`'s isolation.
private func runIsolated(to actor: isolated any Actor, _ work: @Sendable () -> Void) { work() }

/// A thread's run loop, to schedule work on it from other threads. `perform` is thread-safe
/// (it hands the block to the loop under the loop's own lock); nothing else is called off
/// the owning thread.
///
/// Weak: a block performed on a loop whose thread never runs it again (a thread that does not
/// spin its run loop, then exits) stays in the loop and holds its listener, which holds this
/// reference; a strong one would keep the loop, and its three descriptors (epoll, eventfd,
/// timerfd), alive for ever after its thread ended. Weak, the thread's exit frees the loop, its
/// pending blocks with it, and work for a thread that is gone is dropped.
struct RunLoopReference: @unchecked Sendable {
    weak var loop: RunLoop?
}

/// One realm's subscription to the watcher, and the turns it asks of the realm's scheduler: at
/// most one turn of each kind is pending at a time.
final class CommitListener: Sendable {
    /// What a turn does; each kind is one bit of `pending`.
    enum Turn: UInt8 {
        /// Spec V7, V9: autorefresh (or `.refreshRequired`) after a commit.
        case autorefresh = 1
        /// Spec N7, N8: deliver collection and object notifications.
        case delivery = 2
        /// Spec A1: run the next async write block or owed completions.
        case asyncWrites = 4
    }

    private let scheduler: RealmScheduler
    private let target: RealmCoreLink
    private let pending = Atomic<UInt8>(0)

    init(scheduler: RealmScheduler, core: RealmCore) {
        self.scheduler = scheduler
        target = core.link
    }

    /// Asks for a turn of `kind`, unless one is pending.
    func schedule(_ kind: Turn = .autorefresh) {
        let before = pending.bitwiseOr(kind.rawValue, ordering: .acquiringAndReleasing).oldValue
        guard before & kind.rawValue == 0 else { return }
        let target = self.target
        scheduler.perform { [self] in
            pending.bitwiseAnd(~kind.rawValue, ordering: .acquiringAndReleasing)
            guard let core = target.core else { return }
            switch kind {
            case .autorefresh: core.autorefreshTurn()
            case .delivery: core.deliveryTurn()
            case .asyncWrites: core.asyncTurn()
            }
        }
    }

    /// Drops the realm's invalidated observers on its own scheduler (a token is invalidated
    /// from any thread; the observer list is confined). An `invalidate()` schedules the prune
    /// at once, so it comes before anything the realm's scheduler is asked to run later (the
    /// observer holds its realm until the prune: a realm released after the invalidation then
    /// ends at its release, not at a moment nothing orders). A token's `deinit`, and the end of
    /// an AsyncSequence of changes, may run on a thread that is exiting, where Dispatch is unsafe:
    /// those prunes are scheduled from the teardown thread (`TeardownThread`). An `invalidate()`
    /// that user code calls while its thread exits takes the risk any Dispatch call there takes.
    func schedulePrune(now: Bool) {
        let target = self.target
        let scheduler = self.scheduler
        if now {
            scheduler.perform { target.core?.pruneNotifiers() }
        } else {
            TeardownThread.shared.run { scheduler.perform { target.core?.pruneNotifiers() } }
        }
    }
}

/// A Dispatch source handed to the teardown thread to cancel (Dispatch sources are
/// thread-safe; the protocol existential is not marked `Sendable`).
private struct UncheckedSource: @unchecked Sendable {
    let source: any DispatchSourceProtocol
}
