#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The disk's floor for a durable commit: one 4 KiB `pwrite` at a fixed offset plus
/// `fdatasync`, on a file beside the database (same filesystem, same device queue).
///
/// This is what `fsync_limit.c` of notes/peer-baselines.md measured. The warm-up probes
/// (`warmUp`) write the file to its full 4 KiB, so no timed probe changes the file size (a size
/// change would make `fdatasync` flush metadata too). Dividing commit latency by this floor,
/// measured in the same minute, cancels most of the disk's phase-to-phase swings.
final class FsyncProbe {
    static let writeByteCount = 4_096
    private let path: String
    private let descriptor: Int32
    private var buffer: [UInt8]
    private var round: UInt8 = 0

    init(path: String) throws(BenchError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw BenchError.system(operation: "open \(path)", errno: errno)
        }
        self.path = path
        self.descriptor = descriptor
        buffer = [UInt8](repeating: 0xA5, count: Self.writeByteCount)
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Makes `count` untimed probes: the first sets the file's size, the rest settle the disk.
    func warmUp(count: Int) throws(BenchError) {
        precondition(count >= 1, "the first probe sets the file size")
        for _ in 0..<count { _ = try measureOnce() }
    }

    /// One pwrite + fdatasync; returns the nanoseconds they took together.
    func measureOnce() throws(BenchError) -> Double {
        round &+= 1
        buffer[0] = round  // new bytes each time, so the page really is dirty
        let start = MonotonicInstant.now()
        let written = buffer.withUnsafeBytes { bytes in
            pwrite(descriptor, bytes.baseAddress, bytes.count, 0)
        }
        guard written == Self.writeByteCount else {
            throw BenchError.system(operation: "pwrite \(path)", errno: written < 0 ? errno : EIO)
        }
        guard fdatasync(descriptor) == 0 else {
            throw BenchError.system(operation: "fdatasync \(path)", errno: errno)
        }
        return MonotonicInstant.now().nanos(since: start)
    }
}
