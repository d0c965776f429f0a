// Runs a program as another local user, for the tests of what one user can see of another's
// files (Spec X29, X30). The tests run as root (CI does); root can take any uid, so a test
// never needs an account to exist. Where the uid cannot be taken, `run` throws: a test of
// another user's access never passes without another user.
import CStrataSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

public enum OtherUser {
    /// The uid and gid taken: `nobody` on Debian-like systems.
    public static let uid: UInt32 = 65534

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// How the program ended and everything it wrote to stdout and stderr (interleaved).
    public struct Output: CustomStringConvertible, Sendable {
        public let exitCode: Int32
        public let output: String
        public var description: String { "exit \(exitCode): \(output)" }
    }

    /// The first of `names` found on the usual system paths ("cat" → "/usr/bin/cat").
    public static func systemProgram(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] where access("\(directory)/\(name)", X_OK) == 0 {
            return "\(directory)/\(name)"
        }
        throw Failure(description: "no program \(name) on this machine")
    }

    /// Runs `executable` with `arguments` as uid and gid `uid`, with no supplementary groups,
    /// and waits for it.
    /// - Throws: when this process cannot become that user (not root), or cannot start it.
    public static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        guard geteuid() == 0 else {
            throw Failure(description: "the test must run as root to become uid \(uid) (it runs as \(geteuid()))")
        }
        var pipeEnds: [Int32] = [0, 0]
        // Close-on-exec: children other threads fork meanwhile must not hold the write end.
        guard pipe(&pipeEnds) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // Fork and exec in C: between them the child may make async-signal-safe calls only,
        // which Swift code cannot promise (another thread may hold the allocator's lock).
        let child = argv.withUnsafeBufferPointer { pointers in
            strata_spawn_restricted(executable, pointers.baseAddress, pipeEnds[1], -1, Int32(uid))
        }
        close(pipeEnds[1])
        guard child > 0 else {
            close(pipeEnds[0])
            throw Failure(description: "fork: errno \(errno)")
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count > 0 {
                output.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        let code = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let text = String(decoding: output, as: UTF8.self)
        if exited && code == 125 { throw Failure(description: "the child could not become uid \(uid)") }
        if exited && code == 127 { throw Failure(description: "the child could not run \(executable)") }
        return Output(exitCode: code, output: text)
    }
}
