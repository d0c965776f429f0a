import Dispatch
import Foundation
import StrataStorage
import Synchronization

/// Identifies a queued async write block or an async commit's completion (Spec A4).
public typealias AsyncTransactionId = UInt

/// A realm's async writes (Spec A1 to A17, D10 to D13), confined to the realm: the blocks
/// queued, the one running, and the commits whose completions are owed, group by group.
///
///     queued ──a turn with no write open (A7)──▶ running ──commitAsyncWrite──▶ committed
///       │                                          │ cancelWrite, invalidate (A3, A13)
///       └──cancelAsyncWrite, invalidate (A4, A13)──┴──────────────▶ gone
///
/// Commits are published at once and made durable together: a commit joins the open group;
/// the group ends at a commit without grouping, at its 20th commit, when no block is queued,
/// or at a synchronous write (A9, D13). Ended groups wait for one background sync (D10), which
/// covers every version published before it starts; then their completions run, in commit
/// order, before any later block starts (A9).
struct AsyncWriteQueue {
    /// A block waiting for its turn.
    struct Block {
        let id: AsyncTransactionId
        let body: () -> Void
        /// Set for `writeAsync`: the commit after the block, and its completion.
        let autoCommit: Bool
        let onComplete: ((Swift.Error?) -> Void)?
        /// For `asyncWrite`: its task's cancellation (the block is then dropped, A16) and what a
        /// dropped block tells its waiter (A13, A16).
        var cancellation: AsyncWriteCancellation?
        var onDrop: ((Realm.Error?) -> Void)?
        /// For `asyncWrite`: the block only hands the open write to its caller, which runs the
        /// user's block and commits later; the write stays marked running until then.
        var keepsWriteOpen = false
    }

    /// A commit whose completion is owed (nil once cancelled, Spec A4).
    struct Commit {
        let id: AsyncTransactionId
        var onComplete: ((Swift.Error?) -> Void)?
        /// The commit's error, or its group's sync error (Spec D12); nil once durable.
        var error: Realm.Error?
    }

    static let groupCommitsMax = 20  // Spec A9, L7

    var queued: [Block] = []
    /// The block running now (its id), if any.
    var running: AsyncTransactionId?
    /// The commits of the open group, in commit order.
    var openGroup: [Commit] = []
    /// Commits of ended groups not yet covered by a sync, in commit order.
    var awaitingSync: [Commit] = []
    /// The background sync running, and the commits it covers.
    var syncing: (sync: GroupSync, commits: [Commit])?
    /// Commits whose sync finished (or that failed): their completions run next, in order.
    var settled: [Commit] = []
    /// Set while completions run (Spec A20).
    var isRunningCompletions = false
    /// An actor realm's wait for the write lock in the background (Spec A16).
    var lockWaiter: WriteLockWaiter?
    private var lastID: AsyncTransactionId = 0

    mutating func nextID() -> AsyncTransactionId {
        lastID += 1
        return lastID
    }

    /// Spec A17.
    var isBusy: Bool {
        !queued.isEmpty || running != nil || !openGroup.isEmpty || !awaitingSync.isEmpty || syncing != nil
            || !settled.isEmpty
    }

    /// Ends the open group: its commits wait for a sync.
    mutating func endGroup() {
        awaitingSync.append(contentsOf: openGroup)
        openGroup = []
    }

    /// Spec A4: removes a queued block, or drops a commit's completion; true if it found one.
    mutating func cancel(_ id: AsyncTransactionId) -> Bool {
        if let index = queued.firstIndex(where: { $0.id == id }) {
            queued.remove(at: index)
            return true
        }
        for path in [\AsyncWriteQueue.openGroup, \.awaitingSync, \.settled] {
            if let index = self[keyPath: path].firstIndex(where: { $0.id == id }) {
                self[keyPath: path][index].onComplete = nil
                return true
            }
        }
        if let index = syncing?.commits.firstIndex(where: { $0.id == id }) {
            syncing?.commits[index].onComplete = nil
            return true
        }
        return false
    }
}

/// One background sync of ended async groups (Spec D10): its outcome, handed from the syncing
/// thread to the realm's. Sendable: the outcome is set once, before `done` is signalled.
final class GroupSync: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var outcome: Result<Void, Realm.Error>?

    func finish(_ result: Result<Void, Realm.Error>) {
        lock.withLock { outcome = result }
        done.signal()
    }

    /// The outcome, once finished.
    var result: Result<Void, Realm.Error>? { lock.withLock { outcome } }

    /// Waits for the sync to finish (a synchronous write must not pass it, Spec D13).
    func wait() -> Result<Void, Realm.Error> {
        done.wait()
        done.signal()  // later waiters pass too
        return result ?? .success(())
    }
}

/// The cancellation of an `asyncWrite` task, set from any thread (Spec A16). Sendable: atomic.
final class AsyncWriteCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    func cancel() { flag.store(true, ordering: .releasing) }

    var isCancelled: Bool { flag.load(ordering: .acquiring) }
}

/// The write lock taken in the background for an actor realm's next async block (Spec A16):
/// the waiting thread delivers the transaction (or the error), the realm's turn takes it. A
/// realm that no longer wants it (its blocks were cancelled, it was invalidated or released)
/// abandons it, and a transaction delivered after that is rolled back at once, freeing the
/// lock. `@unchecked Sendable`: the state is guarded by `condition`; the transaction is used by
/// one thread at a time (handed over under the lock).
final class WriteLockWaiter: @unchecked Sendable {
    private let condition = NSCondition()
    private var delivered: Result<WriteTransaction, Realm.Error>?
    private var isAbandoned = false

    func deliver(_ result: Result<WriteTransaction, Realm.Error>) {
        condition.lock()
        defer { condition.unlock() }
        if isAbandoned {
            if case .success(let transaction) = result { transaction.rollback() }
            return
        }
        delivered = result
        condition.broadcast()
    }

    /// The outcome, if delivered (taken once).
    func outcome() -> Result<WriteTransaction, Realm.Error>? {
        condition.lock()
        defer { condition.unlock() }
        defer { delivered = nil }
        return delivered
    }

    /// Waits for the outcome (a synchronous write of the realm takes the lock this way, A7).
    func wait() -> Result<WriteTransaction, Realm.Error> {
        condition.lock()
        defer { condition.unlock() }
        while delivered == nil { condition.wait() }
        defer { delivered = nil }
        return delivered ?? .failure(Realm.Error(.fail, "the write lock wait ended without an outcome"))
    }

    func abandon() {
        condition.lock()
        defer { condition.unlock() }
        isAbandoned = true
        if case .success(let transaction) = delivered { transaction.rollback() }
        delivered = nil
    }
}
