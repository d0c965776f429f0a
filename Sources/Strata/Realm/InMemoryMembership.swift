import Foundation
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Spec X8, N24: an in-memory realm is one database every process that opens its identifier
/// shares, alive while any of them has it open. It lives as an ordinary store in a directory
/// on tmpfs (`/dev/shm`, whose syncs cost nothing and whose pages are never written to a
/// disk), so the engine, its cross-process locking and the commit note are those of files.
///
/// Who has it open is kept by `flock` on `<database>.users`: every process holds a shared
/// lock while it has the realm open. The last to close gets the exclusive lock and deletes the
/// database; an opener that gets it finds no other user and deletes what a crashed process left
/// (Spec X8: once every instance is closed the next open is empty). The last user deletes the
/// users file too; an opener that locked a users file meanwhile deleted opens the new one.
final class InMemoryMembership: Sendable {
    /// The database's path.
    let path: String
    private let usersDescriptor: Int32

    private init(path: String, usersDescriptor: Int32) {
        self.path = path
        self.usersDescriptor = usersDescriptor
    }

    /// Joins the users of `identifier`'s database, emptying it first if nobody else has it open.
    static func join(identifier: String) throws(Realm.Error) -> InMemoryMembership {
        let path = try directory() + "/" + fileName(for: identifier)  // Spec X29
        let usersPath = path + ".users"
        while true {
            let users = open(usersPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard users >= 0 else { throw Realm.Error.fromErrno(errno, path: usersPath, operation: "open") }
            if lock(users, LOCK_EX | LOCK_NB) {
                _ = try? Store.deleteFiles(path: path)  // no user: a crashed process's leftovers
            }
            // Shared from here until `leave()` (from exclusive, the lock is converted).
            guard lock(users, LOCK_SH) else {
                let code = errno
                close(users)
                throw Realm.Error.fromErrno(code, path: usersPath, operation: "flock")
            }
            // The last user may have deleted the users file while this one waited for its lock:
            // then lock the file now at the path instead.
            if isStill(users, at: usersPath) { return InMemoryMembership(path: path, usersDescriptor: users) }
            close(users)
        }
    }

    /// Leaves the users, after this process closed its store: the last one deletes the data
    /// and the users file.
    func leave() {
        if Self.lock(usersDescriptor, LOCK_EX | LOCK_NB) {
            _ = try? Store.deleteFiles(path: path)
            unlink(path + ".users")
        }
        close(usersDescriptor)  // releases the lock
    }

    /// Whether `descriptor` is the file now at `path`.
    private static func isStill(_ descriptor: Int32, at path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    private static func lock(_ descriptor: Int32, _ operation: Int32) -> Bool {
        while flock(descriptor, operation) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// This user's directory of in-memory databases: `strata-memory` in the user's runtime
    /// directory (`/run/user/<euid>`) where the system made one, else on `/dev/shm` where it is
    /// writable, else under the temporary directory (where commits pay for their syncs).
    ///
    /// Spec X29: the directory is private. The runtime directory is made by the system, under a
    /// root-owned directory, for this user alone (it must be a directory of this uid with no group
    /// or other permission bits, under a parent no other user may write), so nobody else can
    /// plant anything at its name. Elsewhere the name is predictable (every process of the user
    /// must find it) and another user may plant something there first; `mkdir` with mode 0700
    /// is followed by an `open` with `O_NOFOLLOW | O_DIRECTORY` and an `fstat` of what was
    /// opened, which must be a directory owned by this process's effective uid with no group or
    /// other permission bits. A name that fails is never used (nothing is written under it, no
    /// mode is changed); the next name of a fixed sequence is tried instead (`-1`, `-2`, ...), so
    /// a few planted names deny nothing and every process of the user, walking the same sequence,
    /// agrees on the first sound one (a name once made by the user cannot be taken over: the
    /// sticky base directory keeps others from removing or renaming it). When every name is
    /// taken, the open fails naming the first one and what is wrong with it (Spec X29's known
    /// gaps, where there is no runtime directory: eight plants deny, and a plant removed between
    /// two opens splits processes).
    static func directory(base: String? = nil, runtimeRoot: String? = nil) throws(Realm.Error) -> String {
        if let runtime = userRuntimeDirectory(root: runtimeRoot ?? (base == nil ? "/run/user" : nil)) {
            let directory = runtime + "/strata-memory"
            if try privateDirectoryProblem(directory) == nil { return directory }
        }
        let base = base ?? (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : FileManager.default.temporaryDirectory.path)
        let stem = base + "/strata-memory-\(geteuid())"
        var firstProblem: (path: String, problem: String)?
        for attempt in 0..<directoryAttempts {
            let directory = attempt == 0 ? stem : "\(stem)-\(attempt)"
            guard let problem = try privateDirectoryProblem(directory) else { return directory }
            if firstProblem == nil { firstProblem = (directory, problem) }
        }
        let (path, problem) = firstProblem ?? (stem, "unusable")
        throw Realm.Error(
            .filePermissionDenied,
            "\(Realm.Error.openPrefix(path, realmFile: false)): the directory for in-memory realms is not "
                + "this user's private directory: \(problem); neither is any other name up to "
                + "'\(stem)-\(directoryAttempts - 1)'. Remove what another user left there.",
            path: path)
    }

    /// `<root>/<euid>` when it is this user's runtime directory: a directory (not a link) of
    /// this uid with no group or other permission bits, in a `root` that only its owner (root
    /// or this user) may write. Nil otherwise, or with no `root`.
    static func userRuntimeDirectory(root: String?) -> String? {
        guard let root else { return nil }
        var parent = stat()
        var own = stat()
        let path = root + "/\(geteuid())"
        guard lstat(root, &parent) == 0, parent.st_mode & S_IFMT == S_IFDIR,
            parent.st_uid == 0 || parent.st_uid == geteuid(), parent.st_mode & 0o022 == 0,
            lstat(path, &own) == 0, own.st_mode & S_IFMT == S_IFDIR,
            own.st_uid == geteuid(), own.st_mode & 0o077 == 0
        else { return nil }
        return path
    }

    /// How many names `directory` tries.
    static let directoryAttempts = 8

    /// Makes `directory` (mode 0700) if missing and checks it is this user's private directory:
    /// nil when it is, else what is wrong, for the error message.
    /// - Throws: a system call failing for another reason than what was planted there.
    private static func privateDirectoryProblem(_ directory: String) throws(Realm.Error) -> String? {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw Realm.Error.fromErrno(errno, path: directory, operation: "mkdir")
        }
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            var link = stat()
            if lstat(directory, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK { return "it is a symbolic link" }
            switch code {
            case ELOOP, ENOTDIR: return "it is not a directory"
            case EACCES: return "this user may not open it (another user's directory)"
            default: throw Realm.Error.fromErrno(code, path: directory, operation: "open")
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw Realm.Error.fromErrno(errno, path: directory, operation: "fstat")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "it is not a directory" }
        guard info.st_uid == geteuid() else {
            return "it is owned by uid \(info.st_uid), not by this user (uid \(geteuid()))"
        }
        guard info.st_mode & 0o077 == 0 else {
            return "its mode \(String(info.st_mode & 0o7777, radix: 8)) lets other users in (0700 expected)"
        }
        return nil
    }

    /// A file name naming `identifier` alone: its bytes in hex (any identifier is a safe name),
    /// or for a long one a prefix of them and a 64-bit FNV-1a hash of all.
    static func fileName(for identifier: String) -> String {
        let bytes = Array(identifier.utf8)
        func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
            bytes.map { String(format: "%02x", $0) }.joined()
        }
        guard bytes.count > 96 else { return "m-" + hex(bytes) + ".strata" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return "m-" + hex(bytes.prefix(64)) + "-" + String(hash, radix: 16) + ".strata"
    }
}
