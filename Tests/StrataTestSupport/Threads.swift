// Threads, run loops and results handed between them, for the tests of every target that
// runs realms on several threads (StrataTests, StrataToolTests).
import Foundation

/// Lets a non-Sendable value cross to another thread on purpose: the tests that use it check
/// that Strata rejects the use there (Spec C5 to C8), which Swift 6 would otherwise refuse to
/// compile.
public struct Unchecked<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}

/// How long a test waits for something that must happen before it calls it a hang (10
/// minutes). A wait on a condition ends as soon as the condition holds, so a passing test never
/// waits this out; it is far above any plausible time on a loaded 2-core machine, where other
/// tests and CPU burners run beside the one waiting (`.ci/run`'s loaded leg). A test's verdict
/// must not depend on the machine's speed (Docs/testing.md): a short deadline may only guard a
/// negative check ("nothing arrives in 0.3 s"), which a slow machine cannot turn into a failure.
public let hangGuardSeconds: Double = 600

/// Runs `body` on a new thread (no run loop turned) and waits for it.
public func onOtherThread<R>(_ body: @escaping @Sendable () throws -> R) throws -> R {
    guard let result = onOtherThreadWithin(seconds: nil, body) else { throw CancellationError() }
    return try result.get()
}

/// Runs `body` on a new thread and waits at most `seconds` (nil: for ever); nil when it did not
/// finish (so a write lock that is never released fails a test instead of hanging it).
public func onOtherThreadWithin<R>(
    seconds: Double?,
    _ body: @escaping @Sendable () throws -> R
) -> Result<R, any Error>? {
    let box = ResultBox<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.set(Result { try body() })
        done.signal()
    }
    thread.start()
    let deadline: DispatchTime = seconds.map { .now() + $0 } ?? .distantFuture
    guard done.wait(timeout: deadline) == .success else { return nil }
    return Result { try box.get() }
}

/// Runs `body` on a new thread inside a block its run loop runs (Spec C11), and keeps the
/// loop available to `spinRunLoop` inside `body`.
public func onLoopThread(_ body: @escaping @Sendable () throws -> Void) throws {
    try onOtherThread {
        let box = ResultBox<Void>()
        // A timer, not `RunLoop.perform`: swift-corelibs-foundation may never run a block
        // performed on a loop that has not run yet and has no source.
        let start = Timer(timeInterval: 0, repeats: false) { _ in box.set(Result { try body() }) }
        let keepAlive = Timer(timeInterval: 3600, repeats: true) { _ in }
        RunLoop.current.add(start, forMode: .default)
        RunLoop.current.add(keepAlive, forMode: .default)
        let deadline = Date().addingTimeInterval(hangGuardSeconds)
        while !box.isSet && Date() < deadline {
            _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.01))
        }
        keepAlive.invalidate()
        try box.get()
    }
}

/// Runs the current thread's run loop until `condition` holds or `seconds` pass. Without
/// `seconds` it waits for something that must come, bounded only by the hang guard, so the
/// verdict never depends on the machine's speed; a short `seconds` is for letting callbacks
/// that must not come have their chance (a negative wait, which a busy machine can only make
/// weaker, never fail).
public func spinRunLoop(seconds: Double = hangGuardSeconds, until condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() && Date() < deadline {
        _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
    return condition()
}

/// One result handed from a thread to the one waiting for it.
public final class ResultBox<R>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<R, any Error>?
    public init() {}

    public func set(_ value: Result<R, any Error>) {
        lock.lock()
        result = value
        lock.unlock()
    }
    public var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return result != nil
    }
    public func update(_ change: (inout R) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if case .success(var value)? = result {
            change(&value)
            result = .success(value)
        }
    }
    public func get() throws -> R {
        lock.lock()
        defer { lock.unlock() }
        guard let result else { throw CancellationError() }
        return try result.get()
    }
}
