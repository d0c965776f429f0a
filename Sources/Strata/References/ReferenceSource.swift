import StrataStorage

/// Where a thread-safe reference's value was read (Spec T4): its source version, and the pin
/// that keeps that version readable until the reference is resolved or released (Spec T8).
///
/// A reference made inside a write names a version that does not exist yet. Until the write
/// ends the source is the version the write began at; the realm then settles it (Spec T4): a
/// commit makes the committed version the source (and moves the pin there), a rollback keeps
/// the version the write began at. Shared by every copy of the handle, hence a class.
///
/// Sendable: references cross threads (Spec T3); the state is behind a lock.
final class ReferenceSource: Sendable {
    private let state: Lock<(version: Version, pin: ReadTransaction?, isEnded: Bool)>

    init(version: Version, pin: ReadTransaction?) {
        state = Lock((version, pin, false))
    }

    /// The source version now.
    var version: Version { state.withLock { $0.version } }

    /// A new pin of the source version, for a realm that begins reading there (Spec T4); nil
    /// when the reference no longer pins (resolved or released, Spec T8).
    func duplicatePin() throws(StorageError) -> ReadTransaction? {
        // Under the lock: an `end()` on another thread (the reference released, a `@ThreadSafe`
        // value replaced) must not end the pin between reading it and duplicating it.
        try state.withLock { state throws(StorageError) -> ReadTransaction? in
            guard !state.isEnded, let pin = state.pin else { return nil }
            return try pin.duplicate(kind: .live, callerHoldsLock: true)
        }
    }

    /// Spec T4: the write the reference was made in committed `committed`; the source is that
    /// version, pinned by `read` (the committer's pin of it) when the reference pins.
    func settle(committed: Version, pinning read: ReadTransaction?) {
        let replacement = read.flatMap { try? $0.duplicate(kind: .frozen) }
        let old = state.withLock { state -> ReadTransaction? in
            guard !state.isEnded else { return replacement }  // resolved or released meanwhile
            let old = state.pin
            state.version = committed
            if old != nil {
                state.pin = replacement
                return old
            }
            return replacement  // pins nothing: drop the duplicate
        }
        old?.end()
    }

    /// Spec T8: resolved or released, the reference pins nothing any more. `callerHoldsLock`:
    /// the caller ends it inside a lock of its own (the engine's unpin yield point says so).
    func end(callerHoldsLock: Bool = false) {
        let pin = state.withLock { state -> ReadTransaction? in
            state.isEnded = true
            defer { state.pin = nil }
            return state.pin
        }
        pin?.end(callerHoldsLock: callerHoldsLock)
    }
}

/// A reference source a realm settles when its open write ends (`ReferenceSource`); weak, so
/// that a dropped reference does not stay alive for it.
struct PendingReferenceSource {
    weak var source: ReferenceSource?
}
