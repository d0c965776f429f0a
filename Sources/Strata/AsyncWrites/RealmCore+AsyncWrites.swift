import Dispatch
import Foundation
import StrataStorage

// Async writes (Spec A1 to A17, D10 to D13): blocks queued on the realm run one at a time on
// turns of its scheduler, never inside another write; their commits publish at once without a
// slot (`commit(durable: false)`), a background sync makes each ended group durable together,
// and the group's completions then run on a later turn, in commit order.
extension RealmCore {
    /// Spec A1: queues `block`, to run in a write that is then committed; `onComplete` runs
    /// after the commit.
    func writeAsync(
        _ block: @escaping () -> Void,
        onComplete: ((Swift.Error?) -> Void)?
    ) throws(Realm.Error) -> AsyncTransactionId {
        try checkAsyncWritable()
        return enqueueAsync(block, autoCommit: true, onComplete: onComplete)
    }

    /// Spec A2: queues `block`, to run in a write it commits (`commitAsyncWrite`) or cancels.
    func beginAsyncWrite(_ block: @escaping () -> Void) throws(Realm.Error) -> AsyncTransactionId {
        try checkAsyncWritable()
        return enqueueAsync(block, autoCommit: false, onComplete: nil)
    }

    /// Spec A5, A6, A9: commits the open write now (published at once, durable with its group)
    /// and owes its completion to a later turn.
    func commitAsyncWrite(
        allowGrouping: Bool,
        onComplete: ((Swift.Error?) -> Void)?
    ) throws(Realm.Error) -> AsyncTransactionId {
        try checkThread()
        try checkTransactable()  // Spec W18, in Realm's order
        if asyncWrites.isRunningCompletions { throw Realm.Error.commitInCompletion }  // Spec A20
        guard write != nil else { throw Realm.Error.noWriteToCommit }  // Spec A5
        let id = asyncWrites.nextID()
        var commit = AsyncWriteQueue.Commit(id: id, onComplete: onComplete, error: nil)
        do {
            file.madeDeferredCommits.store(true, ordering: .releasing)
            try commitWriteTransaction(durable: false)
        } catch {
            commit.error = error  // Spec A14: the write is rolled back (W17); the completion hears
        }
        if file.bugs.contains(.completionBeforeDurable), commit.error == nil {  // seeded bug: Spec D11 broken
            asyncWrites.settled.append(commit)
            scheduleAsyncTurn()
            return id
        }
        asyncWrites.openGroup.append(commit)
        // Spec A9, L7: the group ends without grouping, at its 20th commit, or with no block
        // queued (decided now: a block queued later starts a new group).
        if !allowGrouping || commit.error != nil || asyncWrites.openGroup.count >= AsyncWriteQueue.groupCommitsMax
            || asyncWrites.queued.isEmpty
        {
            asyncWrites.endGroup()
        }
        scheduleAsyncTurn()
        return id
    }

    /// Spec A4: a queued block is removed; a commit's completion is dropped; the running block
    /// is left alone.
    func cancelAsyncWrite(_ id: AsyncTransactionId) throws(Realm.Error) {
        try checkThread()
        guard asyncWrites.running != id else { return }
        if file.bugs.contains(.cancelledBlockStillRuns),  // seeded bug: Spec A4 broken
            asyncWrites.queued.contains(where: { $0.id == id })
        {
            return
        }
        _ = asyncWrites.cancel(id)
    }

    /// Spec A17: a block queued or running, or commits whose group is not yet durable.
    var isPerformingAsynchronousWriteOperations: Bool { asyncWrites.isBusy }

    /// Spec A12, L3, A20: refused where a synchronous write would be (in Realm's order), inside
    /// a commit completion, and where no turn would run the block.
    func checkAsyncWritable() throws(Realm.Error) {
        try checkThread()
        try checkTransactable()
        try checkActiveVersionLimit()  // Spec L3: also when the block is queued
        if asyncWrites.isRunningCompletions { throw Realm.Error.beginInCompletion }  // Spec A20
        if !canScheduleTurns { throw Realm.Error.asyncWriteWithoutRunLoop }  // Spec A12
    }

    /// Whether a turn of this realm's context will come (Spec A12, C11): a queue, an actor or
    /// the main thread; any other thread only while its run loop is running the caller.
    private var canScheduleTurns: Bool {
        guard listener != nil else { return false }
        if case .thread = confinement, !Thread.isMainThread { return RunLoop.current.currentMode != nil }
        return true
    }

    func enqueueAsync(
        _ block: @escaping () -> Void, autoCommit: Bool, onComplete: ((Swift.Error?) -> Void)?,
        cancellation: AsyncWriteCancellation? = nil, keepsWriteOpen: Bool = false,
        onDrop: ((Realm.Error?) -> Void)? = nil
    ) -> AsyncTransactionId {
        let id = asyncWrites.nextID()
        asyncWrites.queued.append(
            .init(
                id: id, body: block, autoCommit: autoCommit, onComplete: onComplete,
                cancellation: cancellation, onDrop: onDrop, keepsWriteOpen: keepsWriteOpen))
        scheduleAsyncTurn()
        return id
    }

    /// An `asyncWrite` caller finished with the write its turn opened (Spec A15).
    func endCallerAsyncWrite() {
        asyncWrites.running = nil
        scheduleAsyncTurn()
    }

    /// Spec A16: queued blocks whose task was cancelled never run.
    private func dropCancelledBlocks() {
        let cancelled = asyncWrites.queued.filter { $0.cancellation?.isCancelled == true }
        guard !cancelled.isEmpty else { return }
        asyncWrites.queued.removeAll { $0.cancellation?.isCancelled == true }
        for block in cancelled { block.onDrop?(nil) }
    }

    func scheduleAsyncTurn() {
        guard asyncWrites.isBusy else { return }
        listener?.schedule(.asyncWrites)
    }

    /// One turn: settled completions first (A9: before any block queued later); then, with no
    /// write open (A7), a sync for ended groups or the next block.
    func asyncTurn() {
        guard !isFrozen, confinement.isCurrent else { return }
        dropCancelledBlocks()
        collectFinishedSync()
        runSettledCompletions()
        guard write == nil, asyncWrites.running == nil, asyncWrites.syncing == nil else { return }
        if !asyncWrites.awaitingSync.isEmpty {
            startGroupSync()  // Spec A9: later blocks wait for it and its completions
            return
        }
        guard !asyncWrites.queued.isEmpty else {
            asyncWrites.lockWaiter?.abandon()  // every block was cancelled meanwhile (A16)
            asyncWrites.lockWaiter = nil
            return
        }
        let lock: Result<WriteTransaction, Realm.Error>?
        if case .actor = confinement {
            lock = takeWriteLockWithoutBlocking()
            guard lock != nil else { return }  // taken in the background: a turn comes with it
        } else {
            lock = nil  // taken on this turn, waiting for it here
        }
        // Spec A2: FIFO (the seeded bug takes the newest).
        let block =
            file.bugs.contains(.asyncBlocksOutOfOrder)
            ? asyncWrites.queued.removeLast()
            : asyncWrites.queued.removeFirst()
        asyncWrites.running = block.id
        do {
            switch lock {
            case .success(let transaction): try beginWriteTransaction(holding: transaction)
            case .failure(let error): throw error
            case nil: try beginWriteTransaction()
            }
        } catch {
            asyncWrites.running = nil
            block.onComplete?(error)  // Spec A14: the block never ran
            scheduleAsyncTurn()
            return
        }
        block.body()
        if block.keepsWriteOpen { return }  // its caller commits, then `endCallerAsyncWrite`
        if block.autoCommit {
            if write != nil {
                _ = try? commitAsyncWrite(allowGrouping: false, onComplete: block.onComplete)
            } else {
                completeAfterItsOwnCommits(block)  // Spec A1, A3: the block ended its write itself
            }
        } else if write != nil, !file.bugs.contains(.unfinishedAsyncBlockCommits) {
            _ = try? cancelWrite()  // Spec A19: a block that neither committed nor cancelled
        } else if write != nil {
            // Seeded bug (Spec A19 broken): the block's write is committed as if it had asked.
            _ = try? commitAsyncWrite(allowGrouping: false, onComplete: nil)
        }
        asyncWrites.running = nil
        scheduleAsyncTurn()
    }

    /// Spec A16, A18: an actor realm's block never waits for the write lock on the actor (it
    /// would stop the actor, and with it the cancellation of an `asyncWrite` waiting there): the
    /// lock is taken at once if free, else by a background wait whose transaction a later turn
    /// takes. nil while that wait goes on.
    private func takeWriteLockWithoutBlocking() -> Result<WriteTransaction, Realm.Error>? {
        if let waiter = asyncWrites.lockWaiter {
            guard let outcome = waiter.outcome() else { return nil }
            asyncWrites.lockWaiter = nil
            return outcome
        }
        do throws(Realm.Error) {
            if let transaction = try engine(path, { try file.store.tryBeginWrite() }) { return .success(transaction) }
        } catch {
            return .failure(error)
        }
        let waiter = WriteLockWaiter()
        asyncWrites.lockWaiter = waiter
        let (store, path, listener) = (file.store, self.path, self.listener)
        DispatchQueue.global().async {
            waiter.deliver(
                Result { () throws(Realm.Error) -> WriteTransaction in
                    try engine(path) { try store.beginWrite() }
                })
            listener?.schedule(.asyncWrites)
        }
        return nil
    }

    /// Spec A1, D11: a `writeAsync` block that ended its write itself has nothing left to
    /// commit; its completion runs once the async commits the block made are durable (with
    /// their group), or now if it made none (it cancelled, or committed synchronously).
    private func completeAfterItsOwnCommits(_ block: AsyncWriteQueue.Block) {
        let completion = AsyncWriteQueue.Commit(id: asyncWrites.nextID(), onComplete: block.onComplete, error: nil)
        if asyncWrites.openGroup.contains(where: { $0.id > block.id }) {
            asyncWrites.openGroup.append(completion)
        } else if asyncWrites.awaitingSync.contains(where: { $0.id > block.id }) {
            asyncWrites.awaitingSync.append(completion)
        } else {
            block.onComplete?(nil)
        }
    }

    /// Spec D10: one sync, on a background thread, makes every version published so far
    /// durable; the realm's next turn settles the commits it covers.
    private func startGroupSync() {
        let commits = asyncWrites.awaitingSync
        asyncWrites.awaitingSync = []
        let sync = GroupSync()
        asyncWrites.syncing = (sync, commits)
        let store = file.store
        let path = self.path
        let listener = self.listener
        file.groupSyncQueue.async {
            do throws(StorageError) {
                _ = try store.makeDeferredCommitsDurableInBackground()
                sync.finish(.success(()))
            } catch {
                sync.finish(.failure(Realm.Error.commitFailed(error, path: path)))  // Spec D12
            }
            listener?.schedule(.asyncWrites)
            store.groupSyncEnded()
        }
    }

    /// Moves the commits of a finished sync to `settled`, with its error (Spec D12).
    private func collectFinishedSync() {
        guard let (sync, commits) = asyncWrites.syncing, let result = sync.result else { return }
        asyncWrites.syncing = nil
        settle(commits, result)
    }

    private func settle(_ commits: [AsyncWriteQueue.Commit], _ result: Result<Void, Realm.Error>) {
        for var commit in commits {
            if commit.error == nil, case .failure(let error) = result { commit.error = error }
            asyncWrites.settled.append(commit)
        }
    }

    /// Runs the completions of settled commits, in commit order (Spec A9, A10, D11); inside
    /// them async writes cannot begin or commit, nor writes be cancelled (Spec A20).
    func runSettledCompletions() {
        guard !asyncWrites.isRunningCompletions else { return }  // a completion's own turn
        asyncWrites.isRunningCompletions = true
        defer { asyncWrites.isRunningCompletions = false }
        while !asyncWrites.settled.isEmpty {
            let commit = asyncWrites.settled.removeFirst()
            commit.onComplete?(commit.error)
        }
    }

    /// Spec A8, D13: before a synchronous write begins (and on invalidate), every earlier
    /// async commit is made durable (waiting for the background sync, or syncing here) and,
    /// unless `deferCompletions`, their completions run before this returns.
    func flushAsyncCommits(deferCompletions: Bool = false) {
        asyncWrites.endGroup()
        if let (sync, commits) = asyncWrites.syncing {
            asyncWrites.syncing = nil
            settle(commits, sync.wait())
        }
        if !asyncWrites.awaitingSync.isEmpty {
            let commits = asyncWrites.awaitingSync
            asyncWrites.awaitingSync = []
            do throws(StorageError) {
                try file.store.makeDeferredCommitsDurable()
                settle(commits, .success(()))
            } catch {
                settle(commits, .failure(Realm.Error.commitFailed(error, path: path)))
            }
        }
        if deferCompletions { scheduleAsyncTurn() } else { runSettledCompletions() }
    }

    /// Spec D13: a synchronous commit made every version before it durable (its phase 1 sync
    /// covers their pages): commits waiting for a sync are settled; completions run in commit
    /// order, after those of a background sync still running.
    func didCommitDurably() {
        asyncWrites.endGroup()
        guard asyncWrites.syncing == nil else {
            scheduleAsyncTurn()  // its turn settles the earlier commits first
            return
        }
        settle(asyncWrites.awaitingSync, .success(()))
        asyncWrites.awaitingSync = []
        runSettledCompletions()
    }

    /// Spec A13: `invalidate()` drops the blocks not started; commits already made are made
    /// durable now and their completions run before it returns (realm-core's `do_invalidate`).
    func dropQueuedAsyncWrites() {
        // Nothing queued, waiting or unsettled: nothing to drop or flush (every `invalidate()`
        // comes here, and most realms never write asynchronously).
        guard asyncWrites.isBusy || asyncWrites.lockWaiter != nil else { return }
        let dropped = asyncWrites.queued
        asyncWrites.queued = []
        asyncWrites.lockWaiter?.abandon()  // the lock its background wait takes goes free
        asyncWrites.lockWaiter = nil
        for block in dropped { block.onDrop?(Realm.Error.asyncWriteDropped) }
        flushAsyncCommits(deferCompletions: file.bugs.contains(.invalidateDefersCompletions))
    }
}

extension Realm.Error {
    static let asyncWriteDropped = Realm.Error(.fail, "The Realm was invalidated before the async write began.")
    static let asyncWriteWithoutRunLoop = misuse(
        "Cannot schedule async transaction. Make sure you are running from inside a run loop.")
    static let beginInCompletion = misuse("Can't begin a write transaction from inside a commit completion callback.")
    static let commitInCompletion = misuse("Can't commit a write transaction from inside a commit completion callback.")
    static let cancelInCompletion = misuse("Can't cancel a write transaction from inside a commit completion callback.")
}
