#if canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over the system calls the engine uses, each checking its return code and
/// retrying only EINTR (never a failed sync: Spec D, fsyncgate).
enum SystemCalls {
    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(StorageError) -> Int32 {
        while true {
            let descriptor = Glibc.open(path, flags | O_CLOEXEC, mode)
            if descriptor >= 0 { return descriptor }
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT { throw StorageError.fileNotFound(path: path) }
            throw StorageError.io(operation: "open \(path)", errno: code)
        }
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
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawPointer, count: Int,
                         offset: Int) throws(StorageError) {
        var done = 0
        while done < count {
            let result = pwrite(descriptor, bytes + done, count - done, off_t(offset + done))
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
    static func writeVector(_ descriptor: Int32, _ buffers: [(UnsafeRawPointer, Int)],
                            offset: Int) throws(StorageError) {
        var index = 0
        var offsetInBuffer = 0
        var fileOffset = offset
        let batchMax = 1024
        while index < buffers.count {
            var vectors: [iovec] = []
            vectors.reserveCapacity(min(batchMax, buffers.count - index))
            var i = index
            var first = true
            while i < buffers.count && vectors.count < batchMax {
                let (pointer, count) = buffers[i]
                let skip = first ? offsetInBuffer : 0
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: pointer + skip),
                                     iov_len: count - skip))
                first = false
                i += 1
            }
            let result = vectors.withUnsafeBufferPointer { vectorBuffer in
                pwritev(descriptor, vectorBuffer.baseAddress, Int32(vectorBuffer.count), off_t(fileOffset))
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

    static func readAll(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int,
                        offset: Int) throws(StorageError) -> Int {
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
        guard fdatasync(descriptor) == 0 else {
            throw StorageError.io(operation: "fdatasync", errno: errno)
        }
    }

    static func fullSync(_ descriptor: Int32) throws(StorageError) {
        guard fsync(descriptor) == 0 else {
            throw StorageError.io(operation: "fsync", errno: errno)
        }
    }

    /// Makes a directory entry change (create, rename) durable.
    static func syncDirectory(containing path: String) throws(StorageError) {
        let directory = parentDirectory(of: path)
        let descriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StorageError.io(operation: "open directory \(directory)", errno: errno)
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StorageError.io(operation: "fsync directory \(directory)", errno: errno)
        }
    }

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
        let result = posix_fallocate(descriptor, 0, off_t(byteCount))
        if result == 0 { return }
        if result == ENOSPC { throw StorageError.noSpace(operation: "fallocate") }
        if result == EOPNOTSUPP || result == EINVAL {
            // Filesystems without fallocate: fall back to a sparse extension.
            guard ftruncate(descriptor, off_t(byteCount)) == 0 else {
                throw StorageError.io(operation: "ftruncate", errno: errno)
            }
            return
        }
        throw StorageError.io(operation: "fallocate", errno: result)
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
