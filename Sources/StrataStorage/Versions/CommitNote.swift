#if canImport(Glibc)
    import Glibc
#endif

/// The cross-process commit signal of a file: `<file>.note`. A committer reads its one byte
/// after it publishes a version (`ring`), and every process that wants to hear of commits
/// watches it with inotify (`CommitNoteWatch`, IN_ACCESS): the kernel wakes each watcher, so no
/// process polls. The byte means nothing; the newest version is read from the lock file's
/// table. A read, not a write: a write would dirty the note's inode (its times), which the
/// next commit's sync would then carry through the file system's journal. (strata-bench
/// durable_commit shows no difference either way beyond its run-to-run noise, 297-338 µs.)
///
/// A read-only open never rings (it cannot commit); a note that cannot be opened for writing
/// (read-only media) does not ring either: the commit is unaffected, and only the wake-up of
/// other processes is lost (they fall back to polling when the note is missing).
final class CommitNote: Sendable {
    let path: String
    /// -1 when this opener cannot write the note.
    private let descriptor: Int32

    init(databasePath: String, readOnly: Bool) {
        path = databasePath + ".note"
        descriptor = readOnly ? -1 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // The byte a ring reads (a read at the end of the file would not count as an access).
        var status = stat()
        if descriptor >= 0, fstat(descriptor, &status) == 0, status.st_size == 0 {
            var byte: UInt8 = 1
            _ = pwrite(descriptor, &byte, 1, 0)
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Tells every watcher that a version was published.
    func ring() {
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 0
        _ = pread(descriptor, &byte, 1, 0)
    }
}

/// A process's ear on a `<file>.note`: an inotify descriptor that turns readable when any
/// process rings the note. The caller waits for that (a dispatch read source) and then
/// `drain`s it.
public final class CommitNoteWatch: Sendable {
    /// The inotify descriptor, readable when the note was written.
    public let descriptor: Int32

    /// Nil when the note does not exist or inotify is not available.
    public init?(notePath: String) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        guard inotify_add_watch(descriptor, notePath, UInt32(IN_ACCESS | IN_MODIFY)) >= 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Reads every pending event (many rings between two reads are one wake-up).
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0 && errno == EINTR { continue }
            return
        }
    }
}
