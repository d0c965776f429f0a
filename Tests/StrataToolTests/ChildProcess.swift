// Runs the package's built executables (strata-tool, strata-bench) as child processes, for
// tests that check a tool's output and exit status or drive it from another process.
//
// Generic on purpose: nothing here knows what the tools print. Children run with stdin from
// /dev/null and stdout and stderr each read by a thread of their own, so a parent can follow
// a child's stdout line by line while it runs, and kill it with any signal at any moment.
import Foundation
import StrataCheck
import StrataStorage
import StrataTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How a child process ended.
enum ChildTermination: Sendable, Equatable, CustomStringConvertible {
    /// It called exit (or returned from main) with this status.
    case exited(Int32)
    /// A signal ended it (SIGKILL is 9).
    case signaled(Int32)

    /// The exit status, or nil when a signal ended the process.
    var exitCode: Int32? {
        if case .exited(let code) = self { return code }
        return nil
    }

    var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signaled(let signal): return "signal \(signal)"
        }
    }

    /// Decodes a `waitpid` status (the WIFEXITED / WEXITSTATUS / WTERMSIG macros, which Swift
    /// does not import).
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}

/// One line a child wrote to stdout, stamped when the parent read it.
struct ChildLine: Sendable {
    /// The line without its newline.
    let text: String
    /// Read order across every child of this test process: a smaller number was read first,
    /// whichever child wrote it.
    let sequence: Int
    /// When the parent read it.
    let arrival: ContinuousClock.Instant
}

/// What a finished child wrote and how it ended.
struct ChildOutput: Sendable, CustomStringConvertible {
    let termination: ChildTermination
    /// Stdout, split into lines (a last line without a newline included).
    let lines: [String]
    /// Stderr, whole.
    let standardError: String

    /// Stdout, whole (lines joined by newlines).
    var standardOutput: String { lines.joined(separator: "\n") }
    /// The exit status, or nil when a signal ended the process.
    var exitCode: Int32? { termination.exitCode }

    var description: String {
        "\(termination)\n--- stdout\n\(standardOutput)\n--- stderr\n\(standardError)"
    }
}

/// Why a child could not be started or did not finish.
struct ChildProcessError: Error, CustomStringConvertible {
    let description: String
}

/// A built executable of this package, running as a child process.
///
/// Sendable: the pid is immutable and everything the reader threads collect sits behind one
/// mutex, so any thread may read lines, signal or wait. A child never waited for is killed
/// (SIGKILL) and reaped when the last reference goes.
final class ChildProcess: Sendable {
    /// The product name, e.g. `strata-tool`.
    let product: String
    let arguments: [String]
    let pid: pid_t
    private let state = Lock(State())

    /// Read order across all children (see `ChildLine.sequence`).
    private static let lineSequence = Atomic<Int>(0)
    /// Polling interval of the waits; short because tests measure the order of events.
    static let pollInterval = Duration.milliseconds(2)

    private struct State {
        var lines: [ChildLine] = []
        var partialLine: [UInt8] = []
        var standardError: [UInt8] = []
        var openStreamCount = 2
        var termination: ChildTermination?
    }

    private enum Stream {
        case output
        case error
    }

    /// Starts `product` (found by `BuiltProducts`) with `arguments`.
    /// - Throws: `ChildProcessError` when the product is missing or cannot be spawned.
    init(product: String, arguments: [String]) throws {
        self.product = product
        self.arguments = arguments
        let path = try BuiltProducts.path(of: product)
        let outputPipe = try Self.makePipe()
        let errorPipe = try Self.makePipe()
        defer {
            // The child has its own copies; the parent keeps only the read ends.
            close(outputPipe.write)
            close(errorPipe.write)
        }
        do {
            pid = try Self.spawn(
                path: path, arguments: arguments,
                outputDescriptor: outputPipe.write, errorDescriptor: errorPipe.write)
        } catch {
            close(outputPipe.read)
            close(errorPipe.read)
            throw error
        }
        startReader(outputPipe.read, .output)
        startReader(errorPipe.read, .error)
    }

    deinit {
        let termination = state.withLock { $0.termination }
        if termination == nil {
            _ = kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }

    /// Runs `product` to completion and returns what it wrote.
    /// - Throws: `ChildProcessError` when it cannot start or runs longer than `timeout` (it is
    ///   killed then).
    static func run(
        _ product: String,
        _ arguments: [String],
        timeout: Duration = .seconds(hangGuardSeconds)
    ) throws -> ChildOutput {
        let child = try ChildProcess(product: product, arguments: arguments)
        guard let output = child.output(timeout: timeout) else {
            child.signal(SIGKILL)
            _ = child.waitForExit(timeout: .seconds(10))
            throw ChildProcessError(
                description: "\(product) \(arguments.joined(separator: " ")) ran over \(timeout)")
        }
        return output
    }

    // MARK: following a running child

    /// Every complete stdout line read so far.
    var lines: [ChildLine] {
        state.withLock { $0.lines }
    }

    /// Stderr read so far.
    var standardError: String {
        state.withLock { String(decoding: $0.standardError, as: UTF8.self) }
    }

    /// Waits for the first stdout line (from the start) that satisfies `predicate`; nil if none
    /// arrives within `timeout` or the child closes stdout first.
    func waitForLine(
        timeout: Duration,
        where predicate: (String) -> Bool
    ) -> ChildLine? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (lines, isOpen) = state.withLock { ($0.lines, $0.openStreamCount > 0) }
            if let line = lines.first(where: { predicate($0.text) }) { return line }
            guard isOpen, ContinuousClock.now < deadline else { return nil }
            Self.pause()
        }
    }

    /// Sends `signal` (e.g. SIGKILL) unless the child has already been reaped.
    func signal(_ signal: Int32) {
        state.withLock { state in
            // Under the lock, so the pid cannot be reaped (and reused) in between.
            if state.termination == nil { _ = kill(pid, signal) }
        }
    }

    // MARK: waiting

    /// Waits until the child has ended and both of its streams are read to the end; nil when
    /// that takes longer than `timeout`.
    func waitForExit(timeout: Duration) -> ChildTermination? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (termination, isOpen) = poll()
            if let termination, !isOpen { return termination }
            guard ContinuousClock.now < deadline else { return nil }
            Self.pause()
        }
    }

    /// Waits as `waitForExit` does and returns everything the child wrote.
    func output(timeout: Duration) -> ChildOutput? {
        guard let termination = waitForExit(timeout: timeout) else { return nil }
        return state.withLock { state in
            var lines = state.lines.map(\.text)
            if !state.partialLine.isEmpty {
                lines.append(String(decoding: state.partialLine, as: UTF8.self))
            }
            return ChildOutput(
                termination: termination, lines: lines,
                standardError: String(decoding: state.standardError, as: UTF8.self))
        }
    }

    /// Reaps the child if it has ended; returns its termination and whether a stream is open.
    private func poll() -> (ChildTermination?, Bool) {
        state.withLock { state in
            if state.termination == nil {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    state.termination = ChildTermination(waitStatus: status)
                }
            }
            return (state.termination, state.openStreamCount > 0)
        }
    }

    private static func pause() {
        let nanoseconds = pollInterval.components.attoseconds / 1_000_000_000
        var request = timespec(tv_sec: 0, tv_nsec: Int(nanoseconds))
        _ = nanosleep(&request, nil)
    }

    // MARK: reading

    private func startReader(_ descriptor: Int32, _ stream: Stream) {
        let thread = Thread { [self] in
            self.drain(descriptor, stream)
        }
        thread.name = "\(product) \(stream)"
        thread.start()
    }

    /// Reads `descriptor` to end of file, then closes it.
    private func drain(_ descriptor: Int32, _ stream: Stream) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let byteCount = buffer.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress, raw.count)
            }
            if byteCount < 0 && errno == EINTR { continue }
            guard byteCount > 0 else { break }
            state.withLock { state in
                Self.append(buffer[0..<byteCount], stream, to: &state)
            }
        }
        close(descriptor)
        state.withLock { $0.openStreamCount -= 1 }
    }

    private static func append(_ bytes: ArraySlice<UInt8>, _ stream: Stream, to state: inout State) {
        guard stream == .output else {
            state.standardError += bytes
            return
        }
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                state.partialLine.append(byte)
                continue
            }
            let text = String(decoding: state.partialLine, as: UTF8.self)
            let sequence = lineSequence.wrappingAdd(1, ordering: .relaxed).newValue
            state.lines.append(ChildLine(text: text, sequence: sequence, arrival: .now))
            state.partialLine.removeAll(keepingCapacity: true)
        }
    }

    // MARK: spawning

    /// A one-way channel for a child's output: a socket pair used as a pipe, because Swift's
    /// Glibc module does not import `pipe2` and `socketpair` can set close-on-exec atomically.
    /// Close-on-exec matters: children spawned concurrently by other tests must never inherit
    /// (and hold open) this channel. The child's own end is dup2'ed onto 1 or 2, which clears
    /// the flag for it alone.
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else {
            throw ChildProcessError(description: "socketpair failed: errno \(errno)")
        }
        // Read-only at one end, write-only at the other, as a pipe would be.
        shutdown(descriptors[0], Int32(SHUT_WR))
        shutdown(descriptors[1], Int32(SHUT_RD))
        return (descriptors[0], descriptors[1])
    }

    private static func spawn(
        path: String,
        arguments: [String],
        outputDescriptor: Int32,
        errorDescriptor: Int32
    ) throws -> pid_t {
        do {
            return try ChildSpawn.spawn(
                executable: path, arguments: arguments, output: outputDescriptor,
                error: .descriptor(errorDescriptor))
        } catch {
            throw ChildProcessError(description: "posix_spawn \(path) failed: errno \(error.code)")
        }
    }
}

/// Finds the executables SwiftPM built next to the test bundle.
enum BuiltProducts {
    /// A class of this test bundle, so `Bundle(for:)` can find where the bundle was loaded from.
    private final class BundleMarker {}

    /// The path of the built executable `product`.
    /// - Throws: `ChildProcessError` listing the directories searched when it is not found.
    static func path(of product: String) throws -> String {
        let directories = candidateDirectories()
        for directory in directories {
            let path = directory + "/" + product
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw ChildProcessError(
            description: "no built '\(product)' in: " + directories.joined(separator: ", ")
                + " (build with --build-tests so test dependencies are built)")
    }

    /// Where products may be, most specific first: beside the test bundle (any scratch path),
    /// beside the running test executable, then the package's build directories.
    static func candidateDirectories() -> [String] {
        var directories: [String] = []
        let bundle = Bundle(for: BundleMarker.self).bundleURL
        // On Linux the .xctest "bundle" is an executable file, and Foundation may report
        // either it or its directory as the bundle URL.
        directories.append(bundle.deletingLastPathComponent().path)
        directories.append(bundle.path)
        if let executable = try? FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/self/exe")
        {
            directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent().path)
        }
        directories += packageBuildDirectories()
        var seen: Set<String> = []
        return directories.filter { seen.insert($0).inserted }
    }

    /// `.build*/debug` directories of the package that holds this source file.
    private static func packageBuildDirectories(sourceFile: String = #filePath) -> [String] {
        // Tests/StrataToolTests/ChildProcess.swift → the package root, three levels up.
        let root = URL(fileURLWithPath: sourceFile)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return entries.filter { $0.hasPrefix(".build") }.sorted().map { "\(root.path)/\($0)/debug" }
    }
}

extension BuiltProducts {
    private static let shareableCopies = Mutex<[String: String]>([:])

    /// A copy of the built executable `product` that every user may run (the build directory
    /// may not be reachable by the unprivileged users some tests become), made once per test
    /// process. Written through a close-on-exec descriptor and closed before anything runs it:
    /// a copy written while other tests fork would leak a writable descriptor into their
    /// children, and exec of a file open for writing fails (ETXTBSY).
    static func shareableCopy(of product: String) throws -> String {
        try shareableCopies.withLock { copies in
            if let path = copies[product] { return path }
            let source = try path(of: product)
            let directory = NSTemporaryDirectory() + "strata-shared-products-\(getpid())"
            mkdir(directory, 0o755)
            chmod(directory, 0o755)
            let destination = directory + "/" + product
            let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
            let descriptor = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
            guard descriptor >= 0 else {
                throw ChildProcessError(description: "cannot create \(destination): errno \(errno)")
            }
            let written = bytes.withUnsafeBytes { buffer -> Int in
                var offset = 0
                while offset < buffer.count {
                    let result = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                    if result <= 0 { break }
                    offset += result
                }
                return offset
            }
            close(descriptor)
            guard written == bytes.count else {
                throw ChildProcessError(description: "short copy of \(source) to \(destination)")
            }
            chmod(destination, 0o755)
            copies[product] = destination
            return destination
        }
    }
}
