import Foundation
import StrataStorage

/// A `Lock` of the harness that marks the calling thread while it holds it: values released
/// inside it may unpin a version, and `ControlledThreads` must not park a thread at such a pin
/// or unpin, since the threads it runs meanwhile could need the lock. (The API layer's own
/// locks say so through the yield point instead: `YieldPoint.unpin(_:callerHoldsLock:)`.)
final class HarnessLock<State>: @unchecked Sendable {
    private let lock: Lock<State>

    init(_ initial: State) { lock = Lock(initial) }

    func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        HarnessLockDepth.adjust(1)
        defer { HarnessLockDepth.adjust(-1) }
        return try lock.withLock(body)
    }
}

/// The calling thread's count of `HarnessLock`s held.
enum HarnessLockDepth {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// Whether the calling thread holds a `HarnessLock`.
    static var isHolding: Bool { pthread_getspecific(key) != nil }

    fileprivate static func adjust(_ delta: Int) {
        let depth = Int(bitPattern: pthread_getspecific(key)) + delta
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth))
    }
}
