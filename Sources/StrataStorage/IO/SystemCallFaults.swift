import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A system call of the real file store that a test can make fail (Spec D18).
package enum SystemCall: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case pwrite, pwritev, fdatasync, fsync, fallocate, ftruncate
    public var description: String { rawValue }
    /// Whether a short write can be injected into this call.
    public var writes: Bool { self == .pwrite || self == .pwritev }
}

/// What an injected fault does to the call it hits.
package enum SystemCallFault: Sendable, Hashable, CustomStringConvertible {
    /// The call is not made and returns -1 with this errno (EIO, ENOSPC, EFBIG ...).
    case fail(errno: Int32)
    /// A `pwrite` / `pwritev` writes only the first half of its bytes (at least one) and
    /// returns that count, as a write interrupted by a signal or a full quota may.
    case shortWrite

    public var description: String {
        switch self {
        case .fail(let code):
            switch code {
            case EIO: return "EIO"
            case ENOSPC: return "ENOSPC"
            case EFBIG: return "EFBIG"
            default: return "errno \(code)"
            }
        case .shortWrite: return "short write"
        }
    }
}

/// A script of system-call faults for the files under one directory: "the Nth call of
/// `pwrite` fails with EIO". Counts every call of each kind on the files it watches, so a
/// clean run tells a test how many calls there are to fail.
package final class SystemCallFaultPlan: @unchecked Sendable {
    public struct Fired: Sendable, Hashable {
        public let call: SystemCall
        /// 1-based: the Nth call of its kind on the watched files.
        public let ordinal: Int
        public let fault: SystemCallFault
        public let path: String
    }

    /// Files under this directory (and the directory itself, for its `fsync`) are watched.
    public let directory: String
    private struct State {
        var failures: [SystemCall: [Int: SystemCallFault]] = [:]
        var counts: [SystemCall: Int] = [:]
        var descriptors: [Int32: String] = [:]
        var fired: [Fired] = []
    }
    private let state = Lock(State())

    /// `failing`: each entry makes the `ordinal`th (1-based) call of `call` fail with `fault`.
    public init(directory: String, failing: [(call: SystemCall, ordinal: Int, fault: SystemCallFault)] = []) {
        var trimmed = directory
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.directory = trimmed
        state.withLock { state in
            for entry in failing { state.failures[entry.call, default: [:]][entry.ordinal] = entry.fault }
        }
    }

    /// Calls of each kind seen so far on the watched files.
    public var counts: [SystemCall: Int] { state.withLock { $0.counts } }
    /// The faults that were injected, in order.
    public var fired: [Fired] { state.withLock { $0.fired } }

    func watches(_ path: String) -> Bool {
        path == directory || path.hasPrefix(directory + "/")
    }

    func opened(_ descriptor: Int32, path: String) {
        guard watches(path) else { return }
        state.withLock { $0.descriptors[descriptor] = path }
    }

    func closed(_ descriptor: Int32) {
        state.withLock { _ = $0.descriptors.removeValue(forKey: descriptor) }
    }

    /// Counts a call on `descriptor` (or on `path`, for a descriptor the plan never saw
    /// opened) and returns the fault to inject, if any.
    func call(_ call: SystemCall, descriptor: Int32, path: String?) -> SystemCallFault? {
        state.withLock { state in
            guard let watched = state.descriptors[descriptor] ?? path.flatMap({ watches($0) ? $0 : nil }) else {
                return nil
            }
            let ordinal = (state.counts[call] ?? 0) + 1
            state.counts[call] = ordinal
            guard let fault = state.failures[call]?[ordinal] else { return nil }
            if case .shortWrite = fault, !call.writes { return nil }
            state.fired.append(Fired(call: call, ordinal: ordinal, fault: fault, path: watched))
            return fault
        }
    }
}

/// The system-call fault hook (Spec D18): the one seam where a test makes the real file
/// store's `pwrite`, `pwritev`, `fdatasync`, `fsync`, `fallocate` and `ftruncate` fail, on a
/// real file, without LD_PRELOAD. `EngineHooks.fault` works a level up, per store and per
/// commit step; this one sees every call, including those on files no store's hooks reach (a
/// file being created, the lock file, a compaction's target), Docs/style.md rule 17.
///
/// How it is armed, and why production cannot reach it by accident: the only entry point is
/// `SystemCallFaults.run(_:_:)`, declared `package`, so code outside this package cannot
/// see it; nothing else sets the flag. While
/// it is off, each hooked call costs one relaxed atomic load of `armed` (Docs/testing.md
/// "System-call faults"). While it is on, only descriptors opened under the plan's directory
/// (and that directory's own `fsync`) are counted, so other tests of the same process running
/// beside it are not disturbed. One plan at a time per process: `run` waits for the previous
/// one to end.
package enum SystemCallFaults {
    private static let armed = Atomic<Bool>(false)
    private static let current = Lock<SystemCallFaultPlan?>(nil)
    private static let turn = DispatchSemaphore(value: 1)

    /// Runs `body` with `plan` armed, then disarms it.
    public static func run<R>(_ plan: SystemCallFaultPlan, _ body: () throws -> R) rethrows -> R {
        turn.wait()
        current.withLock { $0 = plan }
        armed.store(true, ordering: .releasing)
        defer {
            armed.store(false, ordering: .releasing)
            current.withLock { $0 = nil }
            turn.signal()
        }
        return try body()
    }

    @inline(__always)
    static func opened(_ descriptor: Int32, path: String) {
        guard armed.load(ordering: .relaxed) else { return }
        current.withLock { $0 }?.opened(descriptor, path: path)
    }

    @inline(__always)
    static func closed(_ descriptor: Int32) {
        guard armed.load(ordering: .relaxed) else { return }
        current.withLock { $0 }?.closed(descriptor)
    }

    /// The fault to inject into this call, if a plan is armed and scripts one.
    @inline(__always)
    static func fault(_ call: SystemCall, descriptor: Int32, path: String? = nil) -> SystemCallFault? {
        guard armed.load(ordering: .relaxed) else { return nil }
        return current.withLock { $0 }?.call(call, descriptor: descriptor, path: path)
    }
}
