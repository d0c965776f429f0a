import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a program as a child process the way every harness parent needs it (a process
/// campaign's writers, a test's tool runs): stdin from /dev/null, stdout to a pipe, stderr to
/// a pipe or a file, and the default signal mask and dispositions whatever the parent's
/// runner blocked or ignored (a child whose parent died must end on SIGPIPE).
public enum ChildSpawn {
    public enum ErrorOutput: Sendable {
        case descriptor(Int32)
        /// Created or truncated.
        case file(String)
    }

    /// `posix_spawn` failed with `code` (an errno).
    public struct Failure: Error, Sendable {
        public var code: Int32
    }

    /// The child's pid. The parent's environment is passed on.
    public static func spawn(executable: String, arguments: [String], output: Int32, error: ErrorOutput)
        throws(Failure) -> pid_t
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        switch error {
        case .descriptor(let descriptor):
            posix_spawn_file_actions_adddup2(&actions, descriptor, 2)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard code == 0 else { throw Failure(code: code) }
        return pid
    }
}
