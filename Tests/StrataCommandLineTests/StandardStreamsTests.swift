import Foundation
import Testing

@testable import StrataCommandLine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Exercises the stream writer on a private temporary file rather than the real stdout, which
/// other tests (and the child processes they spawn) share.
@Suite("StandardStreams")
struct StandardStreamsTests {
    /// Runs `body` with a fully buffered temporary `FILE` and returns the bytes that reached the
    /// file descriptor while the `FILE` was still open.
    ///
    /// Reading through the descriptor bypasses the stdio buffer, so anything `body` wrote but did
    /// not flush is missing from the result: that is what proves each line is flushed.
    private func writtenWithoutClosing(
        _ body: (UnsafeMutablePointer<FILE>) -> Void
    ) throws -> String {
        let file = try #require(tmpfile())
        defer { fclose(file) }
        // A large buffer, so nothing reaches the descriptor unless the writer flushes.
        try #require(setvbuf(file, nil, _IOFBF, 1 << 20) == 0)
        body(file)
        let descriptor = fileno(file)
        var status = stat()
        try #require(fstat(descriptor, &status) == 0)
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let count = bytes.withUnsafeMutableBytes { buffer in
            pread(descriptor, buffer.baseAddress, buffer.count, 0)
        }
        try #require(count == bytes.count)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func eachWriteIsFlushedImmediately() throws {
        let text = try writtenWithoutClosing { file in
            StandardStreams.write("progress 1/2\n", to: file)
            StandardStreams.write(#"{"done":false}"# + "\n", to: file)
            StandardStreams.write("partial", to: file)
        }
        #expect(text == "progress 1/2\n{\"done\":false}\npartial")
    }

    @Test func embeddedNULDoesNotTruncate() throws {
        let text = try writtenWithoutClosing { file in
            StandardStreams.write("a\u{0}b\n", to: file)
        }
        #expect(Array(text.utf8) == [0x61, 0x00, 0x62, 0x0A])
    }

    @Test func concurrentLinesNeverInterleave() throws {
        let letters = Array("abcdefgh")
        let linesPerThread = 500
        let text = try writtenWithoutClosing { file in
            let shared = SharedFile(pointer: file)
            DispatchQueue.concurrentPerform(iterations: letters.count) { thread in
                let payload = String(repeating: letters[thread], count: 40)
                for line in 0..<linesPerThread {
                    StandardStreams.write("t\(thread) l\(line) \(payload)\n", to: shared.pointer)
                }
            }
        }
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n")
        #expect(lines.count == letters.count * linesPerThread)
        var seen = Set<Substring>()
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let thread = Int(parts[0].dropFirst()),
                letters.indices.contains(thread)
            else {
                Issue.record("mangled line: \(line)")
                continue
            }
            #expect(String(parts[2]) == String(repeating: letters[thread], count: 40))
            seen.insert(line)
        }
        #expect(seen.count == letters.count * linesPerThread)
    }
}

/// Hands one `FILE` to several threads; sound because the writer takes the `FILE` lock, which
/// is the very property the concurrency test checks.
private struct SharedFile: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<FILE>
}
