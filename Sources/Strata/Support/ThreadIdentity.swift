import CStrataSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The number the API confines live realms to (Spec C1 to C8): the calling thread's
/// `strata_thread_identity`, never reused within the process.
///
/// Impersonation is the harness's seam (StrataCheck's `ControlledThreads`): an operation nothing
/// can interleave with runs on the driver thread, which takes the controlled thread's identity
/// for the call. Production never impersonates, so `current` adds one relaxed load of a counter
/// that stays 0, and a predicted branch, to the identity read.
package enum ThreadIdentity {
    /// How many threads impersonate another now. Nonzero only inside the harness.
    private static let impersonators = Atomic<Int>(0)
    /// The identity the calling thread impersonates, as a pointer's bits (nil: its own).
    private static let impersonated: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// The calling thread's identity, or the one it impersonates.
    @inline(__always)
    package static var current: UInt64 {
        if impersonators.load(ordering: .relaxed) != 0, let identity = impersonatedByCaller { return identity }
        return strata_thread_identity()
    }

    /// Whether the calling thread runs as another thread now.
    package static var isImpersonating: Bool {
        impersonators.load(ordering: .relaxed) != 0 && impersonatedByCaller != nil
    }

    /// Runs `body` on the calling thread as the thread named `identity` (a value `current` gave
    /// on that thread): every confinement check in it sees that thread.
    package static func impersonating<T>(_ identity: UInt64, _ body: () -> T) -> T {
        impersonators.add(1, ordering: .relaxed)
        pthread_setspecific(impersonated, UnsafeRawPointer(bitPattern: UInt(identity)))
        defer {
            pthread_setspecific(impersonated, nil)
            impersonators.subtract(1, ordering: .relaxed)
        }
        return body()
    }

    private static var impersonatedByCaller: UInt64? {
        pthread_getspecific(impersonated).map { UInt64(UInt(bitPattern: $0)) }
    }
}
