import StrataStorage

/// A property that holds a thread-confined value (an object, Results or List) across threads:
/// each read resolves it in the reading thread's realm (Spec T10).
///
/// ```swift
/// @ThreadSafe var person = realm.objects(Person.self).first
/// DispatchQueue(label: "bg").async { print(person?.name ?? "deleted") }
/// ```
///
/// Sendable; reads and writes from many threads at once are serialised by a lock (Spec T11).
/// Only managed values or nil may be stored (Spec T9).
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: Sendable {
    private struct Stored: Sendable {
        var handle: _ThreadSafeHandle
        var configuration: Realm.Configuration
    }

    /// The stored reference, and a count of assignments (a read replaces the reference it
    /// resolved only if no assignment came in between).
    private let stored: Lock<(value: Stored?, generation: UInt64)>

    /// Wraps a managed value (or nil), keeping a thread-safe reference to it so that any
    /// thread can read it back in its own realm (Spec T9, T10); traps for an unmanaged value.
    public init(wrappedValue: T?) {
        stored = Lock((trapping { () throws(Realm.Error) -> Stored? in try ThreadSafe.store(wrappedValue) }, 0))
    }

    /// The value in the calling thread's realm; nil when it was nil or no longer exists there.
    public var wrappedValue: T? {
        get { trapping { () throws(Realm.Error) -> T? in try _get() } }
        set { trapping { () throws(Realm.Error) in try _set(newValue) } }
    }

    package func _set(_ value: T?) throws(Realm.Error) {
        let new = try ThreadSafe.store(value)
        let old = stored.withLock { stored -> Stored? in
            let old = stored.value
            stored = (new, stored.generation &+ 1)
            return old
        }
        old?.handle.source.end()
    }

    /// Spec T10: resolves in the calling thread's realm, then keeps a fresh reference made
    /// there (so a later read elsewhere sees at least this version), or nil if the value is gone.
    package func _get() throws(Realm.Error) -> T? {
        let (current, generation) = stored.withLock { ($0.value, $0.generation) }
        guard let current else { return nil }
        let core = try RealmCore.open(current.configuration, queue: nil)
        let value: T? = try resolveHandle(current.handle, in: core)
        let fresh = try value.map { value throws(Realm.Error) in
            Stored(handle: try value._threadSafeHandle(), configuration: current.configuration)
        }
        let replaced = stored.withLock { stored -> Stored? in
            guard stored.generation == generation else { return fresh }  // assigned meanwhile: drop ours
            let old = stored.value
            stored = (fresh, generation &+ 1)
            return old
        }
        replaced?.handle.source.end()
        return value
    }

    private static func store(_ value: T?) throws(Realm.Error) -> Stored? {
        guard let value else { return nil }
        // Spec T9, T1: an unmanaged value is refused as RealmSwift's wrapper refuses it; a
        // managed one as a reference to it would be (an invalidated one: 'invalidated').
        let handle: _ThreadSafeHandle
        do {
            handle = try value._threadSafeHandle()
        } catch  where error == .referenceToUnmanaged {
            throw Realm.Error.threadSafeUnmanaged
        }
        return Stored(handle: handle, configuration: handle.configuration)
    }

    deinit {
        stored.withLock { $0.value?.handle.source.end(callerHoldsLock: true) }
    }
}
