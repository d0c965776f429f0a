import Foundation

// Swift concurrency (Spec A15, A16, C12, C15, V4): `asyncWrite` and `asyncRefresh` run in the
// caller's isolation, which must be the realm's actor, or the main actor for a realm of the
// main thread or main queue.
extension Realm {
    /// Spec A15, A16: runs `block` in a write transaction queued behind the realm's other async
    /// writes (A2), commits it, and returns the block's value once the commit is durable. If the
    /// block throws, the write is rolled back and the error rethrown. A task cancelled before
    /// the block starts throws `CancellationError` and the block never runs.
    @discardableResult
    public func asyncWrite<Result>(
        _ block: () throws -> Result,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Result {
        try core.checkConcurrencyContext(Realm.Error.asyncWriteContext, isolation: isolation)
        try core.checkAsyncWritable()  // Spec A12, L3, A20, after C12's check
        if Task.isCancelled { throw CancellationError() }  // Spec A16
        let cancellation = AsyncWriteCancellation()
        let listener = core.listener
        // 1. Wait for this write's turn in the realm's queue (A2, A7): the turn begins the
        //    write and leaves it open, marked running, for the block run below.
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(isolation: isolation) {
                (continuation: CheckedContinuation<Void, Swift.Error>) in
                let turn = AsyncWriteTurn(continuation)
                _ = core.enqueueAsync(
                    { turn.begin() }, autoCommit: false, onComplete: nil,
                    cancellation: cancellation, keepsWriteOpen: true,
                    onDrop: { error in turn.fail(error ?? CancellationError()) })
            }
        } onCancel: {
            cancellation.cancel()
            listener?.schedule(.asyncWrites)  // the realm's next turn drops the block (Spec A16)
        }
        // 2. The block, in the caller's isolation (the realm's context), inside the write.
        let value: Result
        do {
            value = try block()
        } catch {
            if core.write != nil { try? core.cancelWrite() }  // Spec A15: rolled back, rethrown
            core.endCallerAsyncWrite()
            throw error
        }
        guard core.write != nil else {
            core.endCallerAsyncWrite()
            return value
        }
        // 3. Commit; return once the commit is durable (Spec D11). The queue moves on (to the
        //    group's sync) as soon as the commit is made.
        try await withCheckedThrowingContinuation(isolation: isolation) {
            (continuation: CheckedContinuation<Void, Swift.Error>) in
            do throws(Realm.Error) {
                _ = try core.commitAsyncWrite(allowGrouping: false) { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            } catch {
                continuation.resume(throwing: error)
            }
            core.endCallerAsyncWrite()
        }
        return value
    }

    /// Spec V4, V17: moves the realm to the newest version that existed when called
    /// (delivering notifications, N12); true if it moved. A realm that is not reading is left
    /// so: false, and no read begins. A cancelled task's call returns false without moving.
    @discardableResult
    public func asyncRefresh(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        guard (try? core.checkConcurrencyContext(Realm.Error.asyncRefreshContext, isolation: isolation)) != nil else {
            return trapping { () throws(Realm.Error) -> Bool in
                try core.checkConcurrencyContext(Realm.Error.asyncRefreshContext, isolation: isolation)
                return false
            }
        }
        // Spec V17: a realm that is not reading has nothing to refresh: false at once, and no
        // read begins (unlike refresh(), V4).
        guard let start = core.read?.version, !Task.isCancelled else { return false }
        let target = core.file.store.newestVersion
        await Task.yield()  // a later turn: work queued before the call runs first
        // Spec V17: cancelled while it waited: false, and the realm stays where it is (Realm's
        // cancellation handler completes its refresh task with false).
        guard !Task.isCancelled else { return false }
        _ = (try? core.refresh()) ?? false
        return target > start && (core.read?.version ?? start) > start
    }
}

/// Resumes an `asyncWrite` caller exactly once: when its turn has begun the write, or with
/// the reason its queued turn was dropped.
final class AsyncWriteTurn {
    private var continuation: CheckedContinuation<Void, Swift.Error>?

    init(_ continuation: CheckedContinuation<Void, Swift.Error>) { self.continuation = continuation }

    func begin() {
        continuation?.resume()
        continuation = nil
    }

    func fail(_ error: Swift.Error) {
        continuation?.resume(throwing: error)
        continuation = nil
    }
}

extension RealmCore {
    /// Spec C12, C15: Swift-concurrency entry points need the isolation the realm is confined
    /// to: its actor's, or the main actor for a realm of the main thread or main queue.
    func checkConcurrencyContext(_ rejection: Realm.Error, isolation: isolated (any Actor)?) throws(Realm.Error) {
        let inContext: Bool
        switch confinement {
        case .thread: inContext = Thread.isMainThread && isolation === MainActor.shared
        case .queue(let token): inContext = token === QueueToken.mainQueue && isolation === MainActor.shared
        case .actor(let token): inContext = isolation != nil && token.actor === isolation
        case .frozen: inContext = false
        }
        guard inContext else { throw rejection }
        try checkThread()
        if isFrozen { throw Realm.Error.frozenTransaction }
        if configuration.readOnly, rejection == Realm.Error.asyncWriteContext { throw Realm.Error.readOnlyTransaction }
    }
}

extension Realm.Error {
    static let asyncWriteContext = misuse("asyncWrite() can only be called on main thread or actor-isolated Realms")
    static let asyncRefreshContext = misuse("asyncRefresh() can only be called on main thread or actor-isolated Realms")
}
