import Synchronization

/// A flag raised once, never lowered, read without a lock: whether a shared file is poisoned
/// (Spec D6). The Realm API asks it at the start of every call, so reading it is inlinable:
/// one acquiring load, no call.
///
/// Thread safety: `Sendable`; raising it releases what was written before (the cause), and a
/// reader that sees it raised sees that.
public final class FailureFlag: Sendable {
    @usableFromInline let raised = Atomic<Bool>(false)

    init() {}

    /// Whether the flag was raised.
    @inlinable
    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    /// Raises the flag, for good.
    func raise() { raised.store(true, ordering: .releasing) }
}
