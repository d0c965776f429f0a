import CStrataSupport
import StrataStorage

/// A reference to a realm that does not keep it alive and answers nil once the realm is being
/// deinitialized: what the cache of realms (Spec C1), the commit listener and the frozen
/// realms of a file (Spec F5) hold.
///
/// Why not a `weak` reference: the first weak reference to an object moves its reference
/// counts to a side table, and from then on every retain and release of it takes the runtime's
/// slow path. A realm is retained and released once per object made and freed (each object
/// keeps its realm alive), so a weak reference to it made every object several times dearer
/// to make and to free.
///
/// How it stays safe: the realm holds its link and clears it first thing in its `deinit`,
/// under the link's lock, so while the link holds the address the memory is the realm's. A
/// realm whose last reference went away but whose `deinit` has not yet taken the lock is
/// refused by the runtime's try-retain (the same test a weak reference makes).
///
/// Thread safety: the address is only read or cleared under the lock; the realm it names is
/// used only as its confinement allows (by its own context, or any thread for a frozen realm).
final class RealmCoreLink: Sendable {
    /// The realm's address, nil once its `deinit` began. An address rather than a reference,
    /// so that it neither retains the realm nor counts as a weak reference to it.
    private let target = Lock<UInt>(0)

    /// A link to nothing yet: the realm attaches itself once it is initialized.
    init() {}

    /// Names `core`, which holds this link (`RealmCore.link`).
    func attach(_ core: RealmCore) {
        let address = UInt(bitPattern: Unmanaged.passUnretained(core).toOpaque())
        target.withLock { $0 = address }
    }

    /// The realm, retained for the caller; nil once it is being deinitialized.
    var core: RealmCore? {
        target.withLock { address -> RealmCore? in
            guard let pointer = UnsafeRawPointer(bitPattern: address), strata_try_retain(pointer) else { return nil }
            return Unmanaged<RealmCore>.fromOpaque(pointer).takeRetainedValue()
        }
    }

    /// Whether the realm is still alive, without retaining it (no reference may be released
    /// under a lock a `deinit` could take).
    var isLive: Bool { target.withLock { $0 != 0 } }

    /// Forgets the realm: its `deinit` calls this before anything else.
    func clear() { target.withLock { $0 = 0 } }
}
