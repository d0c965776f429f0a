import CStrataSupport
import Dispatch
import Foundation
import StrataStorage

/// What a live realm, and everything obtained from it, is confined to (Spec C1 to C8).
///
/// Threads are named by `ThreadIdentity.current`, a number never reused within the process
/// (a pthread_t may be inherited by a new thread after the old one exits, which would let a
/// new thread pass another's check). Queues are named by a token stored in the queue's
/// specific data: code runs "on q" when `DispatchQueue.getSpecific` finds q's token.
enum Confinement: Hashable, Sendable {
    case thread(UInt64)
    case queue(QueueToken)
    /// Spec C15: a realm opened with `Realm(actor:)`.
    case actor(ActorToken)
    /// Frozen realms and values: usable from any context (Spec C10).
    case frozen

    /// The calling thread's confinement.
    static var currentThread: Confinement { .thread(ThreadIdentity.current) }

    /// Whether the caller runs in this context.
    @inline(__always)
    var isCurrent: Bool {
        switch self {
        case .thread(let identity): return identity == ThreadIdentity.current
        case .queue(let token): return DispatchQueue.getSpecific(key: QueueToken.key) === token
        case .actor(let token): return token.isCurrent
        case .frozen: return true
        }
    }

    /// Spec C5 to C8: the one check every confined entry point makes first.
    @inline(__always)
    func check() throws(Realm.Error) {
        guard isCurrent else { throw Realm.Error.wrongThread }
    }
}

/// The actor a realm is confined to (Spec C15). Holds the actor weakly (the actor usually
/// holds its realm); two tokens are equal while they name the same living actor, so a new
/// actor at a dead one's address never finds the dead one's cached realm.
final class ActorToken: Hashable, Sendable {
    weak let actor: (any Actor)?
    private let executor: UnownedSerialExecutor
    private let identity: ObjectIdentifier

    init(_ actor: any Actor) {
        self.actor = actor
        executor = actor.unownedExecutor
        identity = ObjectIdentifier(actor)
    }

    static func == (a: ActorToken, b: ActorToken) -> Bool {
        guard a.identity == b.identity, let actorA = a.actor, let actorB = b.actor else { return a === b }
        return actorA === actorB
    }

    func hash(into hasher: inout Hasher) { hasher.combine(identity) }

    /// Whether the calling task runs in the actor's isolation (on its executor).
    var isCurrent: Bool {
        guard actor != nil else { return false }
        let words = unsafeBitCast(executor, to: (UnsafeRawPointer?, UInt).self)
        return strata_is_current_executor(words.0, words.1)
    }
}

/// The identity of a serial queue that realms are confined to. Compared by identity.
final class QueueToken: Hashable, Sendable {
    static let key = DispatchSpecificKey<QueueToken>()
    /// Serialises token creation, so one queue never gets two tokens.
    private static let creation = Lock<Void>(())

    let label: String
    /// Whether the queue proved serial when first confined (see `Confinement.forQueue`).
    let isSerial: Bool

    private init(label: String, isSerial: Bool) {
        self.label = label
        self.isSerial = isSerial
    }

    static func == (a: QueueToken, b: QueueToken) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The token of `queue`, made on first use. Must be called while running on `queue`
    /// (then a serial queue cannot run another block, which is what the probe relies on).
    static func of(_ queue: DispatchQueue) -> QueueToken {
        if let token = queue.getSpecific(key: key) { return token }
        return creation.withLock { _ in
            if let token = queue.getSpecific(key: key) { return token }
            let token = QueueToken(label: queue.label, isSerial: probeIsSerial(queue))
            queue.setSpecific(key: key, value: token)
            return token
        }
    }

    /// Linux's Dispatch has no way to ask a queue's width, so Strata asks the queue itself:
    /// global queues are known by label, and for any other queue a probe block is submitted
    /// while the caller runs on it. A serial queue cannot start the probe until the caller's
    /// block returns; a concurrent queue starts it on another worker at once. The wait is paid
    /// once per queue (the answer is kept in the token). A concurrent queue so starved that it
    /// cannot start the probe within the wait is taken as serial: the check errs towards
    /// accepting, never towards rejecting a serial queue.
    /// How long a probe may take to start on a concurrent queue. Every serial queue pays it
    /// once, on its first `Realm(queue:)`.
    static let probeWaitMilliseconds = 250

    /// Records that `queue` is serial without the probe: for a caller that made the queue
    /// itself (the harness makes a queue for every queue context of its runs, and a run that
    /// leaves a thread inside one cannot give it back for reuse).
    /// The main queue's token, set on first use (the main queue is serial: no probe).
    static let mainQueue: QueueToken? = {
        declareSerial(DispatchQueue.main)
        return DispatchQueue.main.getSpecific(key: key)
    }()

    /// Whether the caller runs on this token's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: QueueToken.key) === self }

    static func declareSerial(_ queue: DispatchQueue) {
        creation.withLock { _ in
            if queue.getSpecific(key: key) == nil {
                queue.setSpecific(key: key, value: QueueToken(label: queue.label, isSerial: true))
            }
        }
    }

    private static func probeIsSerial(_ queue: DispatchQueue) -> Bool {
        if queue.label.hasPrefix("com.apple.root.") { return false }
        let started = DispatchSemaphore(value: 0)
        queue.async { started.signal() }
        return started.wait(timeout: .now() + .milliseconds(probeWaitMilliseconds)) == .timedOut
    }
}

extension Confinement {
    /// Spec C15: the confinement of a realm opened with `Realm(actor:)`. The main actor's realm
    /// is the one of the main thread (or, after `dispatchMain()`, the main queue), as without.
    static func forActor(_ actor: any Actor) throws(Realm.Error) -> Confinement {
        if actor === MainActor.shared { return try forQueue(nil) }
        return .actor(ActorToken(actor))
    }

    /// The confinement of a realm opened with `queue` (Spec C3, C4), from the calling context.
    static func forQueue(_ queue: DispatchQueue?) throws(Realm.Error) -> Confinement {
        guard let queue else {
            // After `dispatchMain()` (and so in a Swift-concurrency main actor on Linux) the
            // main queue is drained by worker threads, one block at a time, not by the main
            // thread: a realm opened there belongs to the main queue (the main actor's).
            if !Thread.isMainThread, let token = QueueToken.mainQueue, token.isCurrent { return .queue(token) }
            return .currentThread
        }
        if queue === DispatchQueue.main || queue.label == DispatchQueue.main.label {
            // Spec C3: `Realm(queue: .main)` on the main thread is the main thread's realm.
            guard Thread.isMainThread else { throw Realm.Error.incorrectQueue }
            return .currentThread
        }
        if queue.label.hasPrefix("com.apple.root.") {
            throw Realm.Error.notSerialQueue(label: queue.label)
        }
        // Spec C4: the caller must be running on the queue. A token the queue already has is
        // compared with the current one; a queue without one cannot be current (every queue
        // a realm was confined to has one), unless it is current and new, which `getSpecific`
        // on the queue itself cannot tell: so make its token and compare.
        let token = queue.getSpecific(key: QueueToken.key)
        if let token, DispatchQueue.getSpecific(key: QueueToken.key) !== token {
            throw Realm.Error.incorrectQueue
        }
        if token == nil && !isRunning(on: queue) { throw Realm.Error.incorrectQueue }
        let confirmed = token ?? QueueToken.of(queue)
        guard confirmed.isSerial else { throw Realm.Error.notSerialQueue(label: queue.label) }
        return .queue(confirmed)
    }

    /// Whether the caller runs on `queue`, for a queue with no token yet: a temporary marker
    /// set on the queue is visible through `DispatchQueue.getSpecific` only from blocks on it.
    private static func isRunning(on queue: DispatchQueue) -> Bool {
        let marker = DispatchSpecificKey<UInt8>()
        queue.setSpecific(key: marker, value: 1)
        defer { queue.setSpecific(key: marker, value: nil) }
        return DispatchQueue.getSpecific(key: marker) == 1
    }
}
