#if canImport(Glibc)
    import Glibc
#endif

/// Thin wrappers over the system calls the engine uses, each checking its return code and
/// retrying only EINTR (never a failed sync: Spec D, fsyncgate).
enum SystemCalls {
    /// Opens `path`. `regularFileOnly`: anything but a regular file is refused (Spec X31): a
    /// directory with EISDIR, a FIFO, device or socket with `.notARegularFile`. A special file
    /// found by `stat` is refused before any `open`, since opening a device can itself act (a
    /// tape rewinds, a watchdog starts); one put there after the `stat` is opened with
    /// O_NONBLOCK (a FIFO cannot hang the open) and refused by `fstat`. A symlink loop is
    /// ELOOP, not "no such file".
    static func open(
        _ path: String, flags: Int32, mode: mode_t = 0o644,
        regularFileOnly: Bool = true
    ) throws(StorageError) -> Int32 {
        if regularFileOnly {
            var info = stat()
            if stat(path, &info) == 0 {
                let type = info.st_mode & S_IFMT
                if type != S_IFREG && type != S_IFDIR {
                    throw StorageError.notARegularFile(path: path, kind: fileTypeName(type))
                }
            }
        }
        while true {
            let descriptor = Glibc.open(path, flags | O_CLOEXEC | (regularFileOnly ? O_NONBLOCK : 0), mode)
            if descriptor >= 0 {
                if regularFileOnly {
                    var info = stat()
                    guard fstat(descriptor, &info) == 0 else {
                        let code = errno
                        Glibc.close(descriptor)
                        throw StorageError.io(operation: "fstat \(path)", errno: code)
                    }
                    let type = info.st_mode & S_IFMT
                    if type != S_IFREG {
                        Glibc.close(descriptor)
                        if type == S_IFDIR { throw StorageError.io(operation: "open \(path)", errno: EISDIR) }
                        throw StorageError.notARegularFile(path: path, kind: fileTypeName(type))
                    }
                    // Regular files ignore O_NONBLOCK; cleared anyway so the descriptor is plain.
                    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                }
                SystemCallFaults.opened(descriptor, path: path)
                return descriptor
            }
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT { throw StorageError.fileNotFound(path: path) }
            throw StorageError.io(operation: "open \(path)", errno: code)
        }
    }

    /// Closes a descriptor `open` returned.
    static func close(_ descriptor: Int32) {
        SystemCallFaults.closed(descriptor)
        _ = Glibc.close(descriptor)
    }

    /// "a FIFO", "a directory" ... for messages.
    static func fileTypeName(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: return "FIFO"
        case S_IFDIR: return "directory"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFSOCK: return "socket"
        case S_IFLNK: return "symbolic link"
        default: return "special file"
        }
    }

    /// Spec X31: a write or growth that would cross the soft file size limit (RLIMIT_FSIZE,
    /// `ulimit -f`) fails with EFBIG before the call is made, so the kernel never raises
    /// SIGXFSZ (whose default action kills the process) and the engine changes no signal state.
    static func checkFileSizeLimit(endOffset: Int, operation: String) throws(StorageError) {
        guard let limit = fileSizeLimitBytes(), endOffset > limit else { return }
        throw StorageError.io(
            operation: "\(operation) to \(endOffset) bytes (the file size limit, ulimit -f, is "
                + "\(limit) bytes)", errno: EFBIG)
    }

    /// The soft RLIMIT_FSIZE in bytes; nil when unlimited.
    static func fileSizeLimitBytes() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return nil
        }
        return Int(clamping: UInt64(limit.rlim_cur))
    }

    /// Whether the file system holding `descriptor` is mounted read-only (`ST_RDONLY`): then no
    /// process can write the file (Spec X30).
    static func isOnReadOnlyFileSystem(_ descriptor: Int32) -> Bool {
        var info = statvfs()
        guard fstatvfs(descriptor, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    static func fileSize(_ descriptor: Int32) throws(StorageError) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw StorageError.io(operation: "fstat", errno: errno)
        }
        return Int(info.st_size)
    }

    /// Writes all of `count` bytes at `offset`, continuing after short writes.
    static func writeAll(
        _ descriptor: Int32, _ bytes: UnsafeRawPointer, count: Int,
        offset: Int
    ) throws(StorageError) {
        try checkFileSizeLimit(endOffset: offset &+ count, operation: "pwrite")
        var done = 0
        while done < count {
            var result: Int
            switch SystemCallFaults.fault(.pwrite, descriptor: descriptor) {
            case nil: result = pwrite(descriptor, bytes + done, count - done, off_t(offset + done))
            case .fail(let code)?:
                result = -1
                errno = code
            case .shortWrite?:
                result = pwrite(descriptor, bytes + done, max(1, (count - done) / 2), off_t(offset + done))
            }
            if result < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == ENOSPC { throw StorageError.noSpace(operation: "pwrite") }
                throw StorageError.io(operation: "pwrite", errno: code)
            }
            if result == 0 { throw StorageError.io(operation: "pwrite (no progress)", errno: EIO) }
            done += result
        }
    }

    /// Writes consecutive buffers that land back to back at `offset` with one `pwritev` each
    /// round (at most `IOV_MAX` buffers per call), continuing after short writes.
    static func writeVector(
        _ descriptor: Int32, _ buffers: [(UnsafeRawPointer, Int)],
        offset: Int
    ) throws(StorageError) {
        var index = 0
        var offsetInBuffer = 0
        var fileOffset = offset
        let batchMax = 1024
        try checkFileSizeLimit(endOffset: offset &+ buffers.reduce(0) { $0 &+ $1.1 }, operation: "pwritev")
        while index < buffers.count {
            var vectors: [iovec] = []
            vectors.reserveCapacity(min(batchMax, buffers.count - index))
            var i = index
            var first = true
            while i < buffers.count && vectors.count < batchMax {
                let (pointer, count) = buffers[i]
                let skip = first ? offsetInBuffer : 0
                vectors.append(
                    iovec(
                        iov_base: UnsafeMutableRawPointer(mutating: pointer + skip),
                        iov_len: count - skip))
                first = false
                i += 1
            }
            let fault = SystemCallFaults.fault(.pwritev, descriptor: descriptor)
            if fault == .shortWrite {
                // Half of the bytes: drop the second half of the vectors, halving the last kept one.
                let total = vectors.reduce(0) { $0 + $1.iov_len }
                var keep = max(1, total / 2)
                var kept: [iovec] = []
                for vector in vectors where keep > 0 {
                    let length = min(vector.iov_len, keep)
                    kept.append(iovec(iov_base: vector.iov_base, iov_len: length))
                    keep -= length
                }
                vectors = kept
            }
            var result: Int
            if case .fail(let code)? = fault {
                result = -1
                errno = code
            } else {
                result = vectors.withUnsafeBufferPointer { vectorBuffer in
                    pwritev(descriptor, vectorBuffer.baseAddress, Int32(vectorBuffer.count), off_t(fileOffset))
                }
            }
            if result < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == ENOSPC { throw StorageError.noSpace(operation: "pwritev") }
                throw StorageError.io(operation: "pwritev", errno: code)
            }
            if result == 0 { throw StorageError.io(operation: "pwritev (no progress)", errno: EIO) }
            // Advance through the buffers by the number of bytes written.
            var remaining = result
            fileOffset += result
            while remaining > 0 && index < buffers.count {
                let available = buffers[index].1 - offsetInBuffer
                if remaining >= available {
                    remaining -= available
                    index += 1
                    offsetInBuffer = 0
                } else {
                    offsetInBuffer += remaining
                    remaining = 0
                }
            }
        }
    }

    static func readAll(
        _ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int,
        offset: Int
    ) throws(StorageError) -> Int {
        var done = 0
        while done < count {
            let result = pread(descriptor, buffer + done, count - done, off_t(offset + done))
            if result < 0 {
                if errno == EINTR { continue }
                throw StorageError.io(operation: "pread", errno: errno)
            }
            if result == 0 { break }
            done += result
        }
        return done
    }

    static func dataSync(_ descriptor: Int32) throws(StorageError) {
        // No retry on failure: after a failed fdatasync the kernel may have dropped the dirty
        // pages and a second call would report success (fsyncgate).
        if case .fail(let code)? = SystemCallFaults.fault(.fdatasync, descriptor: descriptor) {
            throw syncError("fdatasync", code)
        }
        guard fdatasync(descriptor) == 0 else { throw syncError("fdatasync", errno) }
    }

    static func fullSync(_ descriptor: Int32) throws(StorageError) {
        if case .fail(let code)? = SystemCallFaults.fault(.fsync, descriptor: descriptor) {
            throw syncError("fsync", code)
        }
        guard fsync(descriptor) == 0 else { throw syncError("fsync", errno) }
    }

    /// A sync that failed: ENOSPC is reported as such, as for writes.
    private static func syncError(_ operation: String, _ code: Int32) -> StorageError {
        code == ENOSPC ? .noSpace(operation: operation) : .io(operation: operation, errno: code)
    }

    /// Makes a directory entry change (create, rename) durable.
    static func syncDirectory(containing path: String) throws(StorageError) {
        let directory = parentDirectory(of: path)
        let descriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StorageError.io(operation: "open directory \(directory)", errno: errno)
        }
        defer { Glibc.close(descriptor) }
        if case .fail(let code)? = SystemCallFaults.fault(.fsync, descriptor: descriptor, path: directory) {
            throw StorageError.io(operation: "fsync directory \(directory)", errno: code)
        }
        guard fsync(descriptor) == 0 else {
            throw StorageError.io(operation: "fsync directory \(directory)", errno: errno)
        }
    }

    /// The directory holding `path`: "." for a bare name, "/" for a name in the root.
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[path.startIndex..<slash])
    }

    /// Whether `descriptor` is still the file named `path`: not deleted, nor replaced by
    /// another file, since it was opened.
    static func isFile(_ descriptor: Int32, named path: String) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(descriptor, &opened) == 0, stat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    /// Reserves disk blocks for `[0, byteCount)` so a later write cannot fail with ENOSPC.
    static func allocate(_ descriptor: Int32, byteCount: Int) throws(StorageError) {
        try checkFileSizeLimit(endOffset: byteCount, operation: "fallocate")
        var result: Int32
        if case .fail(let code)? = SystemCallFaults.fault(.fallocate, descriptor: descriptor) {
            result = code
        } else {
            result = posix_fallocate(descriptor, 0, off_t(byteCount))
        }
        if result == 0 { return }
        if result == ENOSPC { throw StorageError.noSpace(operation: "fallocate") }
        if result == EOPNOTSUPP || result == EINVAL {
            // Filesystems without fallocate: fall back to a sparse extension.
            try truncate(descriptor, byteCount: byteCount, operation: "ftruncate")
            return
        }
        throw StorageError.io(operation: "fallocate", errno: result)
    }

    /// Sets the file's size (`ftruncate`).
    static func truncate(_ descriptor: Int32, byteCount: Int, operation: String) throws(StorageError) {
        try checkFileSizeLimit(endOffset: byteCount, operation: operation)
        if case .fail(let code)? = SystemCallFaults.fault(.ftruncate, descriptor: descriptor) {
            throw syncError(operation, code)
        }
        guard ftruncate(descriptor, off_t(byteCount)) == 0 else { throw syncError(operation, errno) }
    }

    /// The process identifier and its kernel start time (clock ticks since boot), which
    /// together identify a process even after its pid is reused.
    static func processIdentity(pid: Int32) -> UInt64? {
        let path = "/proc/\(pid)/stat"
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { raw in
            read(descriptor, raw.baseAddress, raw.count)
        }
        guard count > 0 else { return nil }
        // The command name (field 2) may contain spaces and parentheses; fields after the last
        // ')' are space separated. Field 22 (starttime) is the 20th field after it.
        guard let close = buffer[0..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = buffer[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 19 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// Whether a process with this pid and start time is still running.
    static func processIsAlive(pid: Int32, startTime: UInt64) -> Bool {
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        guard let current = processIdentity(pid: pid) else {
            // /proc unavailable: trust kill(2).
            return kill(pid, 0) == 0 || errno == EPERM
        }
        return current == startTime
    }
}
