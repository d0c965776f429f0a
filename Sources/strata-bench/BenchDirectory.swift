#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The directory holding a run's database files and fsync probe file.
///
/// By default a fresh directory under `$TMPDIR` (or `/tmp`) that `removeIfTemporary()` deletes
/// with everything in it. A directory given with `--dir` is created if missing and left in
/// place, with the last database in it, so it can be inspected with `strata-tool`.
struct BenchDirectory: Sendable {
    let path: String
    let isTemporary: Bool

    /// Uses `given`, or makes a fresh temporary directory when it is nil.
    static func prepare(given: String?) throws(BenchError) -> BenchDirectory {
        if let given {
            if mkdir(given, 0o755) != 0 && errno != EEXIST {
                throw BenchError.system(operation: "mkdir \(given)", errno: errno)
            }
            return BenchDirectory(path: given, isTemporary: false)
        }
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/strata-bench-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!) != nil
        }
        guard made else {
            throw BenchError.system(operation: "mkdtemp in \(base)", errno: errno)
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return BenchDirectory(path: path, isTemporary: true)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Deletes the directory and its files if this run created it; does nothing otherwise.
    ///
    /// The directory is flat (the bench makes no subdirectories), so unlinking each entry and
    /// then the directory is enough; an entry that is itself a directory makes rmdir fail.
    func removeIfTemporary() throws(BenchError) {
        guard isTemporary else { return }
        guard let stream = opendir(path) else {
            throw BenchError.system(operation: "opendir \(path)", errno: errno)
        }
        var names: [String] = []
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
        while let entry = readdir(stream) {
            // In place, up to the NUL: the last record of readdir's buffer may be shorter than
            // `d_name`'s 256 bytes, so copying the whole field can read past the buffer.
            let name = String(
                cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(stream)
        for name in names where unlink(file(name)) != 0 && errno != ENOENT {
            throw BenchError.system(operation: "unlink \(file(name))", errno: errno)
        }
        if rmdir(path) != 0 {
            throw BenchError.system(operation: "rmdir \(path)", errno: errno)
        }
    }
}

/// Why a run failed, other than a usage mistake or an engine error.
enum BenchError: Error, Sendable, CustomStringConvertible {
    /// A system call of the bench itself (not the engine) failed.
    case system(operation: String, errno: Int32)
    /// A workload read back something other than what was written: the figures would be void.
    case wrongResult(workload: Workload, detail: String)

    var description: String {
        switch self {
        case .system(let operation, let code):
            return "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .wrongResult(let workload, let detail):
            return "\(workload.name) read back wrong data: \(detail)"
        }
    }
}
