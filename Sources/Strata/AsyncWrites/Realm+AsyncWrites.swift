extension Realm {
    /// Spec A1: runs `block` later on this realm's thread or queue, in a write transaction that
    /// is then committed; `onComplete` runs afterwards on the same scheduler (nil error: the
    /// commit is durable, Spec D11). Returns an id for `cancelAsyncWrite`.
    @discardableResult
    public func writeAsync(
        _ block: @escaping () -> Void,
        onComplete: ((Swift.Error?) -> Void)? = nil
    ) -> AsyncTransactionId {
        trapping { () throws(Realm.Error) -> AsyncTransactionId in try core.writeAsync(block, onComplete: onComplete) }
    }

    package func _writeAsync(
        _ block: @escaping () -> Void,
        onComplete: ((Swift.Error?) -> Void)? = nil
    ) throws(Realm.Error) -> AsyncTransactionId {
        try core.writeAsync(block, onComplete: onComplete)
    }

    /// Spec A2: runs `block` later in a write transaction that the block commits
    /// (`commitAsyncWrite`) or cancels. Blocks run in the order they were queued.
    @discardableResult
    public func beginAsyncWrite(_ block: @escaping () -> Void) -> AsyncTransactionId {
        trapping { () throws(Realm.Error) -> AsyncTransactionId in try core.beginAsyncWrite(block) }
    }

    package func _beginAsyncWrite(_ block: @escaping () -> Void) throws(Realm.Error) -> AsyncTransactionId {
        try core.beginAsyncWrite(block)
    }

    /// Spec A5, A6, A9: commits the open write at once (the realm reads the new version when
    /// this returns); `onComplete` runs on a later turn once the commit is durable. With
    /// `allowGrouping`, the next queued block joins this commit's group.
    @discardableResult
    public func commitAsyncWrite(
        allowGrouping: Bool = false,
        _ onComplete: ((Swift.Error?) -> Void)? = nil
    ) -> AsyncTransactionId {
        trapping { () throws(Realm.Error) -> AsyncTransactionId in
            try core.commitAsyncWrite(allowGrouping: allowGrouping, onComplete: onComplete)
        }
    }

    package func _commitAsyncWrite(
        allowGrouping: Bool = false,
        _ onComplete: ((Swift.Error?) -> Void)? = nil
    ) throws(Realm.Error) -> AsyncTransactionId {
        try core.commitAsyncWrite(allowGrouping: allowGrouping, onComplete: onComplete)
    }

    /// Spec A4: removes a queued block (it never runs), or drops a commit's completion (the
    /// commit stands); does nothing for the block running now.
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        try core.cancelAsyncWrite(asyncTransactionId)
    }

    /// Spec A17: whether async blocks are queued or running, or completions are owed.
    public var isPerformingAsynchronousWriteOperations: Bool {
        trapping { () throws(Realm.Error) -> Bool in try _isPerformingAsynchronousWriteOperations }
    }

    /// `isPerformingAsynchronousWriteOperations` for the harness: a wrong context or a poisoned
    /// file (Spec C5, D6) is an error it compares, not a trap.
    /// - Throws: `.wrongThread` or `.incorrectQueue` off its context; the poisoned-file error.
    package var _isPerformingAsynchronousWriteOperations: Bool {
        get throws(Realm.Error) {
            try core.checkThread()
            return core.isPerformingAsynchronousWriteOperations
        }
    }
}

extension Realm {
    /// The version a crash would recover now (the newest commit slot's), for tests and the
    /// harness; nil when it cannot be read.
    package var _durableVersion: UInt64? { try? core.file.store.durableVersion().rawValue }
}

/// A realm's async work as the harness sees it between steps (`_asyncWriteState`).
package struct AsyncWriteState: Sendable, Hashable {
    public let queuedBlocks: Int
    public let isBlockRunning: Bool
    public let isInWrite: Bool
    /// Commits of the open group, of ended groups waiting for a sync, and settled ones whose
    /// completions have not run.
    public let openGroupCommits: Int
    public let awaitingSyncCommits: Int
    public let settledCommits: Int
    /// A background group sync was started and its outcome not yet collected by a turn.
    public let isSyncing: Bool

    /// Whether a turn the realm scheduled has work to do (settled completions, a sync to
    /// start, or a block to run): the harness lets the queue run until this is false.
    public var wantsTurn: Bool {
        if settledCommits > 0 { return true }
        guard !isInWrite, !isBlockRunning, !isSyncing else { return false }
        return awaitingSyncCommits > 0 || queuedBlocks > 0
    }
}

extension Realm {
    /// The realm's async queue, for the harness (confined like every realm call).
    package var _asyncWriteState: AsyncWriteState {
        get throws(Realm.Error) {
            try core.checkThread()
            let queue = core.asyncWrites
            return AsyncWriteState(
                queuedBlocks: queue.queued.count, isBlockRunning: queue.running != nil,
                isInWrite: core.write != nil, openGroupCommits: queue.openGroup.count,
                awaitingSyncCommits: queue.awaitingSync.count,
                settledCommits: queue.settled.count, isSyncing: queue.syncing != nil)
        }
    }
}
