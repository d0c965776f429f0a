import Synchronization

/// One write transaction of one realm, as the accessors and references made inside it see
/// it: whether it was rolled back.
///
/// Why it exists: a rolled-back write gives its keys and incarnations back (the table's
/// counter is restored with everything else), so the next write can create an object with
/// exactly the identity of one the rolled-back write created. Every accessor or reference to
/// an object created inside a write holds that write's scope, and is invalid for good once the
/// scope is rolled back (Spec W5, W12, T5: an identity is never reused). Accessors of objects
/// that existed before the write hold none: a rollback leaves them valid.
///
/// States: open ──commit──▶ committed (kept as is: nothing to check afterwards)
///              └─cancel, invalidate, a throwing block, a failed commit, release──▶ rolled back
///
/// Sendable: references carry it across threads; the flag is atomic.
final class WriteScope: Sendable {
    private let rolledBack = Atomic<Bool>(false)

    /// Whether the write ended without committing (Spec W5, W7, W17).
    var isRolledBack: Bool { rolledBack.load(ordering: .acquiring) }

    /// Marks the write as ended without committing; its objects never existed.
    func markRolledBack() { rolledBack.store(true, ordering: .releasing) }
}
