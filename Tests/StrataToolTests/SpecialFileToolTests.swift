import CStrataSupport
import Foundation
import StrataStorage
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Spec X31 through strata-tool, in child processes: a FIFO and a symlink loop for every
/// inspection command, the file size limit (`ulimit -f`) crossed by a writer, and a mode-000
/// file opened by an unprivileged user.
@Suite struct SpecialFileToolTests {
    static let commands = ["verify", "digest", "stat", "dump"]

    @Test("Spec X31: every inspection command refuses a FIFO at once (exit 3, 'not a regular file')")
    func everyCommandRefusesAFIFO() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fifo.strata")
        #expect(mkfifo(path, 0o644) == 0)
        for command in Self.commands {
            // A hang would end in ChildProcess.run's generous timeout, reported as a failure.
            let output = try ChildProcess.run("strata-tool", [command, path])
            #expect(output.exitCode == 3, "\(command): \(output)")
            #expect(output.standardError.contains("not a regular file: \(path) is a FIFO"), "\(command): \(output)")
        }
    }

    @Test("Spec X31: every inspection command reports a symlink loop as ELOOP, not 'no such file'")
    func everyCommandReportsASymlinkLoop() throws {
        let directory = TemporaryDirectory()
        let a = directory.file("a.strata")
        let b = directory.file("b.strata")
        #expect(symlink(b, a) == 0 && symlink(a, b) == 0)
        for command in Self.commands {
            let output = try ChildProcess.run("strata-tool", [command, a])
            #expect(output.exitCode == 3, "\(command): \(output)")
            #expect(output.standardError.contains("ELOOP (too many levels of symbolic links)"), "\(command): \(output)")
            #expect(!output.standardError.lowercased().contains("no such file"), "\(command): \(output)")
        }
    }

    /// Runs a copy of `strata-tool` every user may run in a child with
    /// `fileSizeLimit` bytes of RLIMIT_FSIZE and as `uid`; returns how it ended and its output.
    static func runRestricted(
        _ arguments: [String], in directory: String, fileSizeLimit: Int64 = -1,
        uid: Int32 = -1
    ) throws -> (termination: ChildTermination, output: String) {
        let tool = try BuiltProducts.shareableCopy(of: "strata-tool")
        let outputPath = directory + "/output-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(outputPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        #expect(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(outputPath)
        }
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let pid = argv.withUnsafeBufferPointer { buffer in
            strata_spawn_restricted(tool, buffer.baseAddress, descriptor, fileSizeLimit, uid)
        }
        #expect(pid > 0, "fork failed: errno \(errno)")
        // Count-bounded wait (generous: 12,000 polls of 10 ms): a hang is a failure.
        var status: Int32 = 0
        var reaped = false
        for _ in 0..<12_000 {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                reaped = true
                break
            }
            usleep(10_000)
        }
        if !reaped {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            Issue.record("strata-tool \(arguments.joined(separator: " ")) did not finish")
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (ChildTermination(waitStatus: status), output)
    }

    @Test(
        "Spec X31: a writer crossing ulimit -f gets 'file size limit exceeded' and exits, no SIGXFSZ; the file keeps every commit"
    )
    func writerBeyondTheFileSizeLimitGetsATypedError() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("limited.strata")
        let limit: Int64 = 320 << 10
        let run = try Self.runRestricted(
            ["writer", path, "--commits", "400", "--seed", "7"], in: directory.path,
            fileSizeLimit: limit)
        #expect(
            run.termination == .exited(3),
            "the writer must exit with an I/O error, not die of SIGXFSZ: \(run.termination)\n\(run.output)")
        #expect(run.output.contains("EFBIG (file size limit exceeded)"), "\(run.output)")
        let committed = run.output.split(separator: "\n").compactMap { WriterLine(String($0)) }.filter {
            $0.kind == .committed
        }
        let last = try #require(committed.last, "no commit fitted under the limit: \(run.output)")
        #expect(committed.count < 400, "the workload must reach the limit")
        var info = stat()
        #expect(stat(path, &info) == 0 && Int64(info.st_size) <= limit)
        // Reopened without the limit: every acknowledged commit is there and the file is clean.
        let verify = try strataTool("verify", path)
        #expect(verify.exitCode == 0, "\(verify)")
        let digest = try strataTool("digest", path)
        #expect(digest.standardOutput.contains(last.digest), "last acknowledged \(last); digest: \(digest)")
        let more = try strataTool("writer", path, "--commits", "2", "--seed", "8")
        #expect(more.exitCode == 0, "\(more)")
    }

    @Test("Spec X6, X31: a mode-000 file opened by an unprivileged user is EACCES naming the data file")
    func modeZeroFileAsAnUnprivilegedUser() throws {
        let directory = TemporaryDirectory()
        // The directory and the tool's copy must be reachable by the unprivileged user.
        #expect(chmod(directory.path, 0o755) == 0)
        let path = directory.file("private.strata")
        _ = try SampleDatabase.make(at: path)
        unlink(path + ".lock")
        unlink(path + ".note")
        #expect(chmod(path, 0o000) == 0)
        // CI runs as root, whom file modes do not stop: the child drops to nobody (65534).
        let uid: Int32 = getuid() == 0 ? 65534 : -1
        for command in Self.commands + ["writer"] {
            let arguments = command == "writer" ? ["writer", path, "--commits", "1", "--seed", "1"] : [command, path]
            let run = try Self.runRestricted(arguments, in: directory.path, uid: uid)
            #expect(run.termination != .exited(125), "the child could not drop root privileges to uid 65534")
            #expect(run.termination == .exited(3), "\(command): \(run.termination)\n\(run.output)")
            #expect(run.output.contains(path), "\(command) names the data file: \(run.output)")
            #expect(run.output.contains("EACCES (permission denied)"), "\(command): \(run.output)")
            #expect(!run.output.contains(".lock"), "\(command) blames the data file, not the lock file: \(run.output)")
        }
        // A 0644 file of another user: readable, not writable, so the writer is refused.
        #expect(chmod(path, 0o644) == 0)
        let writer = try Self.runRestricted(
            ["writer", path, "--commits", "1", "--seed", "1"], in: directory.path, uid: uid)
        #expect(writer.termination == .exited(3), "\(writer.termination)\n\(writer.output)")
        #expect(writer.output.contains("open \(path) failed: EACCES (permission denied)"), "\(writer.output)")
    }
}
