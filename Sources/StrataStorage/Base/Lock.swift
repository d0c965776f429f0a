#if canImport(Glibc)
    import Glibc
#endif

/// A mutex around a value, built on `pthread_mutex_t`.
///
/// Why not the toolchain's `Synchronization.Mutex`: on Linux it waits on a futex directly,
/// which ThreadSanitizer cannot see, so every access to state it guards is reported as a race
/// (reproduced with a four-thread program doing nothing but `withLock`). The engine's lock
/// order and shared state are exactly what TSan runs must check, so the engine uses a lock
/// TSan understands. Uncontended cost is the same order (one atomic on lock and unlock).
///
/// Thread safety: the value is only reachable inside `withLock`. Public so that the API layer
/// (Sources/Strata) locks the same TSan-visible way.
public final class Lock<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Behind a pointer rather than a stored `var`: the mutex already gives exclusive access,
    /// and a class `var` passed `inout` would add a dynamic exclusivity check (a thread-local
    /// access-set insert) to every acquisition.
    private let state: UnsafeMutablePointer<State>

    /// A lock around `initial`.
    public init(_ initial: State) {
        state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: initial)
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. A caller that pins or unpins a version
    /// inside `body` says so to the engine (`ReadTransaction.end(callerHoldsLock:)`), so that a
    /// controlled scheduler does not park the thread while it holds the lock.
    @inline(__always)
    public func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}
