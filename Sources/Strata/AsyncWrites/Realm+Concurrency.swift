import Foundation
// Swift concurrency (Spec A15, A16, C12, V4): `asyncWrite` and `asyncRefresh` run in the
// caller's isolation, which must be the main actor for a realm of the main thread (actor-
// confined realms are not built).
extension Realm {
    /// Spec A15, A16: runs `block` in a write transaction queued behind the realm's other async
    /// writes (A2), commits it, and returns the block's value once the commit is durable. If the
    /// block throws, the write is rolled back and the error rethrown. A task cancelled before
    /// the block starts throws `CancellationError` and the block never runs.
    public func asyncWrite<Result>(_ block: () throws -> Result,
                                   isolation: isolated (any Actor)? = #isolation) async throws -> Result {
        try core.checkConcurrencyContext(Realm.Error.asyncWriteContext, isolation: isolation)
        if Task.isCancelled { throw CancellationError() }  // Spec A16
        let cancellation = AsyncWriteCancellation()
        let listener = core.listener
        return try await withTaskCancellationHandler {
            try await withoutActuallyEscaping(block) { block in
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, Swift.Error>) in
                    let outcome = AsyncWriteOutcome(continuation)
                    _ = core.enqueueAsync({ [core] in
                        outcome.run(block, in: core, cancellation: cancellation)
                    }, autoCommit: false, onComplete: nil, cancellation: cancellation, onDrop: { error in
                        outcome.finish(.failure(error ?? CancellationError()))
                    })
                }
            }
        } onCancel: {
            cancellation.cancel()
            listener?.schedule(.asyncWrites)  // the realm's next turn drops the block (Spec A16)
        }
    }

    /// Spec V4, VER-22, VER-23: moves the realm to the newest version that existed when called
    /// (delivering notifications, N12); true if it moved.
    public func asyncRefresh(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        guard (try? core.checkConcurrencyContext(Realm.Error.asyncRefreshContext, isolation: isolation)) != nil else {
            return trapping { () throws(Realm.Error) -> Bool in
                try core.checkConcurrencyContext(Realm.Error.asyncRefreshContext, isolation: isolation)
                return false
            }
        }
        let start = core.read?.version
        let target = core.file.store.newestVersion
        await Task.yield()  // a later turn: work queued before the call runs first
        _ = (try? core.refresh()) ?? false
        guard let start else { return core.read != nil }
        return target > start && (core.read?.version ?? start) > start
    }
}

/// Hands an `asyncWrite` block's outcome to its waiting task exactly once.
final class AsyncWriteOutcome<Result> {
    private var continuation: CheckedContinuation<Result, Swift.Error>?

    init(_ continuation: CheckedContinuation<Result, Swift.Error>) { self.continuation = continuation }

    func finish(_ result: Swift.Result<Result, Swift.Error>) {
        guard let continuation else { return }
        self.continuation = nil
        switch result {
        case .success(let value):
            // The block ran on the realm's thread, the main actor's, which the caller awaits on.
            let handoff = SameContextHandoff(value: value)
            continuation.resume(returning: handoff.value)
        case .failure(let error): continuation.resume(throwing: error)
        }
    }

    /// The queued block: runs `block` in the open write, then commits (durable before the
    /// task resumes, Spec D11) or rolls back (A15).
    func run(_ block: () throws -> Result, in core: RealmCore, cancellation: AsyncWriteCancellation) {
        if cancellation.isCancelled {
            try? core.cancelWrite()
            finish(.failure(CancellationError()))
            return
        }
        do {
            let value = try block()
            guard core.write != nil else {
                finish(.success(value))
                return
            }
            _ = try core.commitAsyncWrite(allowGrouping: false) { [self] error in
                if let error { finish(.failure(error)) } else { finish(.success(value)) }
            }
        } catch {
            if core.write != nil { try? core.cancelWrite() }  // Spec A15: rolled back, rethrown
            finish(.failure(error))
        }
    }
}

extension RealmCore {
    /// Spec C12: Swift-concurrency entry points need the main actor for a realm of the main
    /// thread (actor-confined realms are not built).
    func checkConcurrencyContext(_ rejection: Realm.Error, isolation: isolated (any Actor)?) throws(Realm.Error) {
        let onMain: Bool
        switch confinement {
        case .thread: onMain = Thread.isMainThread
        case .queue(let token): onMain = token === QueueToken.mainQueue
        case .frozen: onMain = false
        }
        guard onMain, isolation === MainActor.shared else { throw rejection }
        try checkThread()
        if isFrozen { throw Realm.Error.frozenTransaction }
        if configuration.readOnly, rejection == Realm.Error.asyncWriteContext { throw Realm.Error.readOnlyTransaction }
    }
}

extension Realm.Error {
    static let asyncWriteContext = misuse("asyncWrite() can only be called on main thread or actor-isolated Realms")
    static let asyncRefreshContext = misuse("asyncRefresh() can only be called on main thread or actor-isolated Realms")
}

/// A value handed back to the isolation it was made in (the realm's, which is the waiting
/// caller's): sound, but the compiler cannot see that the two are one.
struct SameContextHandoff<T>: @unchecked Sendable {
    let value: T
}
