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

    private let stored: Lock<Stored?>

    public init(wrappedValue: T?) {
        stored = Lock(trapping { () throws(Realm.Error) -> Stored? in try ThreadSafe.store(wrappedValue) })
    }

    /// The value in the calling thread's realm; nil when it was nil or no longer exists there.
    public var wrappedValue: T? {
        get { trapping { () throws(Realm.Error) -> T? in try _get() } }
        set { trapping { () throws(Realm.Error) in try _set(newValue) } }
    }

    @_spi(StrataCheck)
    public func _set(_ value: T?) throws(Realm.Error) {
        let new = try ThreadSafe.store(value)
        let old = stored.withLock { stored -> Stored? in
            let old = stored
            stored = new
            return old
        }
        old?.handle.pin?.end()
    }

    @_spi(StrataCheck)
    public func _get() throws(Realm.Error) -> T? {
        guard let current = stored.withLock({ $0 }) else { return nil }
        let core = try RealmCore.open(current.configuration, queue: nil)
        guard let value: T = try resolveHandle(current.handle, in: core) else { return nil }
        return value
    }

    private static func store(_ value: T?) throws(Realm.Error) -> Stored? {
        guard let value else { return nil }
        guard let realm = value.realm else { throw Realm.Error.threadSafeUnmanaged }  // Spec T9
        let handle = try value._threadSafeHandle()
        return Stored(handle: handle, configuration: realm.configuration)
    }

    deinit {
        stored.withLock { $0?.handle.pin?.end() }
    }
}
