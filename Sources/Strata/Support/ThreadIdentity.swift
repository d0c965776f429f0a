import CStrataSupport

/// The number the API confines live realms to (Spec C1 to C8): the calling thread's
/// `strata_thread_identity`, never reused within the process.
///
/// Impersonation is the harness's seam (StrataCheck's `ControlledThreads`): an operation nothing
/// can interleave with runs on the driver thread, which takes the controlled thread's identity
/// for the call. It lives in the same C thread-local as the identity, so production pays one
/// thread-local read and a predicted branch for it, and no lazy global.
package enum ThreadIdentity {
    /// The calling thread's identity, or the one it impersonates.
    @inline(__always)
    package static var current: UInt64 { strata_thread_identity() }

    /// Whether the calling thread runs as another thread now.
    package static var isImpersonating: Bool { strata_impersonated_identity() != 0 }

    /// Runs `body` on the calling thread as the thread named `identity` (a value `current` gave
    /// on that thread): every confinement check in it sees that thread.
    package static func impersonating<T>(_ identity: UInt64, _ body: () -> T) -> T {
        let previous = strata_impersonated_identity()
        strata_set_impersonated_identity(identity)
        defer { strata_set_impersonated_identity(previous) }
        return body()
    }
}
