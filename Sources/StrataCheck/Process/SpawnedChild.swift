import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A writer child of a process campaign as its parent sees it: a pid, the read end of its
/// stdout, the complete lines read so far, and its stderr going to a file.
///
/// Confined to the campaign's thread (the parent is single-threaded: it polls every child's
/// stdout itself), so not Sendable.
final class SpawnedChild {
    let child: Int
    /// Which start of this child id it is (0 first; a respawn after a kill adds one).
    let incarnation: Int
    let pid: pid_t
    let errorPath: String
    /// Every complete stdout line, in order.
    private(set) var lines: [String] = []
    private var partialLine: [UInt8] = []
    private var descriptor: Int32
    private(set) var termination: Int32?

    var isReadable: Bool { descriptor >= 0 }
    /// Whether it said it opened the file (its first line).
    var hasOpened: Bool { !lines.isEmpty }
    var pollDescriptor: Int32 { descriptor }

    init(child: Int, incarnation: Int, executable: String, arguments: [String], errorPath: String)
        throws(ProcessCampaignError)
    {
        self.child = child
        self.incarnation = incarnation
        self.errorPath = errorPath
        let pipe = try Self.makePipe()
        defer { close(pipe.write) }  // the child has its own copy
        do {
            pid = try Self.spawn(
                executable: executable, arguments: arguments, output: pipe.write,
                errorPath: errorPath)
        } catch {
            close(pipe.read)
            throw error
        }
        descriptor = pipe.read
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if termination == nil {
            _ = kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
    }

    /// Reads what is there (call when poll says the descriptor is readable); returns the new
    /// complete lines. End of file closes the descriptor.
    func readAvailable() -> [String] {
        guard descriptor >= 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return [] }
        guard count > 0 else {
            close(descriptor)
            descriptor = -1
            return []
        }
        var fresh: [String] = []
        for byte in buffer[0..<count] {
            guard byte == UInt8(ascii: "\n") else {
                partialLine.append(byte)
                continue
            }
            fresh.append(String(decoding: partialLine, as: UTF8.self))
            partialLine.removeAll(keepingCapacity: true)
        }
        lines += fresh
        return fresh
    }

    /// Reads to end of file (after the child died: whatever it wrote is in the pipe already).
    /// A last line without its newline was cut by the kill and is dropped.
    func drain() -> [String] {
        var fresh: [String] = []
        while descriptor >= 0 { fresh += readAvailable() }
        partialLine.removeAll()
        return fresh
    }

    /// Reaps the child if it has ended (or waits for it when `blocking`); its wait status.
    @discardableResult
    func reap(blocking: Bool) -> Int32? {
        if let termination { return termination }
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if result == pid {
                termination = status
                return status
            }
            if result < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// Stops the child (SIGSTOP) and waits until it is stopped; false when it ended instead
    /// (its termination is kept for `reap`).
    func stop() -> Bool {
        guard termination == nil else { return false }
        _ = kill(pid, SIGSTOP)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WUNTRACED)
            if result < 0 && errno == EINTR { continue }
            guard result == pid else { return false }
            if status & 0xff == 0x7f { return true }  // WIFSTOPPED
            termination = status
            return false
        }
    }

    /// Lets a stopped child go on.
    func resume() {
        if termination == nil { _ = kill(pid, SIGCONT) }
    }

    /// `waitpid`'s status in words (Swift does not import the WIFEXITED macros).
    static func describe(status: Int32) -> String {
        let signal = status & 0x7f
        return signal == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(signal)"
    }

    static func killedBySIGKILL(_ status: Int32) -> Bool { status & 0x7f == SIGKILL }

    /// The end of the child's stderr (what it said before it died), at most `byteCountMax`.
    func errorTail(byteCountMax: Int = 2000) -> String {
        guard let data = FileManager.default.contents(atPath: errorPath) else { return "" }
        return String(decoding: data.suffix(byteCountMax), as: UTF8.self)
    }

    // MARK: spawning

    /// A socket pair used as a pipe: `socketpair` sets close-on-exec atomically (Swift's Glibc
    /// does not import `pipe2`), so no other child inherits and holds open this channel.
    private static func makePipe() throws(ProcessCampaignError) -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else {
            throw .setUp("socketpair failed: errno \(errno)")
        }
        shutdown(descriptors[0], Int32(SHUT_WR))
        shutdown(descriptors[1], Int32(SHUT_RD))
        return (descriptors[0], descriptors[1])
    }

    private static func spawn(
        executable: String, arguments: [String], output: Int32, errorPath: String
    ) throws(ProcessCampaignError) -> pid_t {
        do {
            return try ChildSpawn.spawn(
                executable: executable, arguments: arguments, output: output,
                error: .file(errorPath))
        } catch {
            throw .setUp("posix_spawn \(executable) failed: errno \(error.code)")
        }
    }
}
