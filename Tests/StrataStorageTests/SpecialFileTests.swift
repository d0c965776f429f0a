import Foundation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// Spec X31 in the engine: paths that are not regular files are refused without blocking,
/// a symlink loop is ELOOP. (The file size limit and permissions need a child process with its
/// own limits and user: `SpecialFileToolTests`.)
@Suite struct SpecialFileTests {
    static func expectRefused(_ path: String, kind: String, readOnly: Bool) {
        do {
            _ = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: readOnly))
            Issue.record("\(path) (\(kind)) opened")
        } catch {
            #expect(error == .notARegularFile(path: path, kind: kind), "\(error)")
            #expect(error.description == "not a regular file: \(path) is a \(kind)")
        }
    }

    @Test("Spec X31: a FIFO is refused as not a regular file, read-only or not, without blocking")
    func fifoIsRefusedWithoutBlocking() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fifo.strata")
        #expect(mkfifo(path, 0o644) == 0)
        // No process has the FIFO open: a blocking open for reading would wait forever.
        Self.expectRefused(path, kind: "FIFO", readOnly: true)
        Self.expectRefused(path, kind: "FIFO", readOnly: false)
        do {
            _ = try Store.open(.file(path), options: StoreOptions(create: true))
            Issue.record("a FIFO opened with create")
        } catch {
            #expect(error == .notARegularFile(path: path, kind: "FIFO"))
        }
        #expect(!Store.fileExists(path: path + ".lock"), "nothing was created beside the FIFO")
    }

    @Test("Spec X31: a character device (/dev/zero) is refused as not a regular file")
    func deviceIsRefused() {
        Self.expectRefused("/dev/zero", kind: "character device", readOnly: true)
    }

    @Test("Spec X31: a special file is refused before it is opened at all (opening a device can act)")
    func specialFileIsNeverOpened() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fifo.strata")
        #expect(mkfifo(path, 0o644) == 0)
        // inotify queues an IN_OPEN event for every open of the file, whoever makes it.
        let watcher = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(watcher >= 0)
        defer { close(watcher) }
        try #require(inotify_add_watch(watcher, path, UInt32(IN_OPEN)) >= 0)
        for readOnly in [true, false] { Self.expectRefused(path, kind: "FIFO", readOnly: readOnly) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let read = buffer.withUnsafeMutableBytes { Glibc.read(watcher, $0.baseAddress, $0.count) }
        #expect(read < 0 && errno == EAGAIN, "the FIFO was opened (\(read) bytes of inotify events)")
        // The check sees opens: one of our own is an event.
        let own = open(path, O_RDONLY | O_NONBLOCK)
        #expect(own >= 0)
        close(own)
        #expect(buffer.withUnsafeMutableBytes { Glibc.read(watcher, $0.baseAddress, $0.count) } > 0)
    }

    @Test("Spec X6, X31: a directory is EISDIR")
    func directoryIsEISDIR() {
        let directory = TemporaryDirectory()
        for readOnly in [true, false] {
            do {
                _ = try Store.open(.file(directory.path), options: StoreOptions(create: false, readOnly: readOnly))
                Issue.record("a directory opened")
            } catch {
                guard case .io(_, let code) = error else {
                    Issue.record("expected EISDIR, got \(error)")
                    continue
                }
                #expect(code == EISDIR)
                #expect(error.description.contains("EISDIR (is a directory)"))
            }
        }
    }

    @Test("Spec X31: a symlink loop is ELOOP, not 'no such file', with or without create")
    func symlinkLoopIsELOOP() {
        let directory = TemporaryDirectory()
        let a = directory.file("a.strata")
        let b = directory.file("b.strata")
        #expect(symlink(b, a) == 0)
        #expect(symlink(a, b) == 0)
        for create in [false, true] {
            do {
                _ = try Store.open(.file(a), options: StoreOptions(create: create))
                Issue.record("a symlink loop opened")
            } catch {
                guard case .io(_, let code) = error else {
                    Issue.record("expected ELOOP, got \(error)")
                    continue
                }
                #expect(code == ELOOP)
                #expect(error.description.contains("too many levels of symbolic links"), "\(error)")
            }
        }
    }

    @Test("Spec X31: a write beyond the file size limit is EFBIG before the call (no SIGXFSZ)")
    func fileSizeLimitIsCheckedBeforeTheCall() throws {
        // The limit of this test process is not lowered (other tests write beside it): the
        // check is exercised with the limit the process has, which must be unlimited or above
        // what this writes, and the child-process test lowers it for real.
        #expect(throws: Never.self) { try SystemCalls.checkFileSizeLimit(endOffset: 4096, operation: "pwrite") }
        let error = StorageError.io(
            operation: "pwrite to 8192 bytes (the file size limit, ulimit -f, is 4096 bytes)",
            errno: EFBIG)
        #expect(error.description.hasSuffix("failed: EFBIG (file size limit exceeded)"))
    }
}
