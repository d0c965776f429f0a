#if canImport(Glibc)
    // The C library's `stdout`/`stderr` are mutable globals to Swift 6, but they are set up
    // before main and never reassigned; the FILE lock below serialises all use of them.
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    @preconcurrency import Darwin
#endif

/// Line-at-a-time writes to standard output and standard error, safe from any thread.
///
/// Each line is flushed at once because another process (the harness, a benchmark driver)
/// reads the tools' progress lines while they run, and a pipe would otherwise hold them in a
/// 4 KiB buffer. Writes go through the C `FILE` streams that `print` also uses, so lines from
/// both stay in order, and the `FILE` lock keeps concurrent lines from interleaving.
public enum StandardStreams {
    /// Writes `line` and a newline to standard output, then flushes.
    public static func writeLine(_ line: String) {
        write(line + "\n", to: stdout)
    }

    /// Writes `line` and a newline to standard error, then flushes.
    public static func writeErrorLine(_ line: String) {
        write(line + "\n", to: stderr)
    }

    /// Writes `text` as is (no newline added) to standard output, then flushes.
    public static func write(_ text: String) {
        write(text, to: stdout)
    }

    /// Flushes standard output and standard error, e.g. before `exit`.
    public static func flush() {
        fflush(stdout)
        fflush(stderr)
    }

    /// Writes `text` to `stream` under its lock, then flushes; internal so tests can use a file.
    static func write(_ text: String, to stream: UnsafeMutablePointer<FILE>?) {
        guard let stream else { return }
        var text = text
        flockfile(stream)
        // fwrite rather than fputs: a NUL inside the text must not silently cut the line short.
        text.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                _ = fwrite(base, 1, bytes.count, stream)
            }
        }
        fflush(stream)
        funlockfile(stream)
    }
}
