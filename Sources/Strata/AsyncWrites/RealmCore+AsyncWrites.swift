import StrataStorage

// Async writes (Spec A1 to A17): blocks queued on the realm run one at a time on turns of its
// scheduler, never inside another write; their commits publish at once and complete on later
// turns, group by group, in commit order.
//
// Strata makes each async commit durable when it is made (the same two-phase commit as a
// synchronous one), so a completion never waits for a background sync; groups still decide
// when completions run (A9). D10's single sync per group is not built: README, "Limits".
extension RealmCore {
    /// Spec A1: queues `block`, to run in a write that is then committed; `onComplete` runs
    /// after the commit.
    func writeAsync(_ block: @escaping () -> Void,
                    onComplete: ((Swift.Error?) -> Void)?) throws(Realm.Error) -> AsyncTransactionId {
        try checkAsyncWritable()
        return enqueueAsync(block, autoCommit: true, onComplete: onComplete)
    }

    /// Spec A2: queues `block`, to run in a write it commits (`commitAsyncWrite`) or cancels.
    func beginAsyncWrite(_ block: @escaping () -> Void) throws(Realm.Error) -> AsyncTransactionId {
        try checkAsyncWritable()
        return enqueueAsync(block, autoCommit: false, onComplete: nil)
    }

    /// Spec A5, A6, A9: commits the open write now (published at once) and owes its completion
    /// to a later turn, after its group ends.
    func commitAsyncWrite(allowGrouping: Bool,
                          onComplete: ((Swift.Error?) -> Void)?) throws(Realm.Error) -> AsyncTransactionId {
        try checkThread()
        guard write != nil else { throw Realm.Error.noWriteToCommit }  // Spec A5
        let id = asyncWrites.nextID()
        var commit = AsyncWriteQueue.Commit(id: id, onComplete: onComplete, error: nil)
        do {
            try commitWriteTransaction()
        } catch {
            commit.error = error  // Spec A14: the write is rolled back (W17); the completion hears
        }
        asyncWrites.openGroup.append(commit)
        if !allowGrouping || commit.error != nil || asyncWrites.openGroup.count >= AsyncWriteQueue.groupCommitsMax {
            asyncWrites.endGroup()  // Spec A9
        }
        scheduleAsyncTurn()
        return id
    }

    /// Spec A4: a queued block is removed; a commit's completion is dropped; the running block
    /// is left alone.
    func cancelAsyncWrite(_ id: AsyncTransactionId) throws(Realm.Error) {
        try checkThread()
        guard asyncWrites.running != id else { return }
        _ = asyncWrites.cancel(id)
    }

    /// Spec A17.
    var isPerformingAsynchronousWriteOperations: Bool {
        asyncWrites.isBusy || (write != nil && asyncWrites.running != nil)
    }

    /// Spec A12: refused where a synchronous write would be, and where no turn would run them.
    private func checkAsyncWritable() throws(Realm.Error) {
        try checkThread()
        if isFrozen { throw Realm.Error.frozenTransaction }
        if configuration.readOnly { throw Realm.Error.readOnlyTransaction }
        if listener == nil { throw Realm.Error.noRunLoop }
    }

    private func enqueueAsync(_ block: @escaping () -> Void, autoCommit: Bool,
                              onComplete: ((Swift.Error?) -> Void)?) -> AsyncTransactionId {
        let id = asyncWrites.nextID()
        asyncWrites.queued.append(.init(id: id, body: block, autoCommit: autoCommit, onComplete: onComplete))
        scheduleAsyncTurn()
        return id
    }

    func scheduleAsyncTurn() {
        guard asyncWrites.isBusy else { return }
        listener?.schedule(.asyncWrites)
    }

    /// One turn: owed completions first (A9: before any block queued later), then the next
    /// block if no write is open (A7: a synchronous write, or a block's write, goes first).
    func asyncTurn() {
        guard !isFrozen, confinement.isCurrent else { return }
        runEndedCompletions()
        guard write == nil, asyncWrites.running == nil else { return }
        guard !asyncWrites.queued.isEmpty else {
            // Spec A9: a group ends when no block is queued.
            if !asyncWrites.openGroup.isEmpty {
                asyncWrites.endGroup()
                runEndedCompletions()
            }
            return
        }
        let block = asyncWrites.queued.removeFirst()
        asyncWrites.running = block.id
        do {
            try beginWriteTransaction()
        } catch {
            asyncWrites.running = nil
            block.onComplete?(error)  // Spec A14: the block never ran
            scheduleAsyncTurn()
            return
        }
        block.body()
        if block.autoCommit, write != nil {
            _ = try? commitAsyncWrite(allowGrouping: false, onComplete: block.onComplete)
        }
        asyncWrites.running = nil
        if asyncWrites.queued.isEmpty, write == nil { asyncWrites.endGroup() }
        scheduleAsyncTurn()
    }

    /// Runs the completions of ended groups, in commit order (Spec A9, A10, D11).
    func runEndedCompletions() {
        while !asyncWrites.ended.isEmpty {
            let commit = asyncWrites.ended.removeFirst()
            commit.onComplete?(commit.error)
        }
    }

    /// Spec A8, D13: a synchronous write first ends the open group and runs every owed
    /// completion (each commit is durable already).
    func flushAsyncCommits() {
        asyncWrites.endGroup()
        runEndedCompletions()
    }

    /// Spec A13: `invalidate()` drops the blocks not started; completions of commits made still
    /// run, on a later turn.
    func dropQueuedAsyncWrites() {
        asyncWrites.queued = []
        asyncWrites.endGroup()
        scheduleAsyncTurn()
    }
}
