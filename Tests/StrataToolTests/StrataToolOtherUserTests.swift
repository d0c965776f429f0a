import Foundation
import StrataStorage
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Spec X30: a reader that cannot write the lock file cannot pin what it reads, so it is
/// refused (naming the lock file and why) unless the file system is read-only or it asserts
/// that nobody writes the file. Run for real from a second user: this process is root (as CI
/// is) and the reader is `strata-tool` running as uid 65534, so the lock file's open really
/// fails with EACCES. `OtherUser.run` throws when no other user can be made: these tests fail
/// then, never pass without a second user.
@Suite struct StrataToolOtherUserTests {
    /// A database made by this user (file and lock file 0644, directory 0755), and a copy of
    /// strata-tool the other user can run wherever the build directory is.
    struct Setup {
        let directory = TemporaryDirectory()
        let sample: SampleDatabase
        let tool: String

        init() throws {
            #expect(chmod(directory.path, 0o755) == 0)
            sample = try SampleDatabase.make(at: directory.file("owner.strata"))
            for path in [sample.path, sample.path + ".lock"] { #expect(chmod(path, 0o644) == 0) }
            tool = try BuiltProducts.shareableCopy(of: "strata-tool")
        }

        func asOtherUser(_ arguments: String...) throws -> OtherUser.Output {
            try OtherUser.run(tool, arguments)
        }
    }

    @Test("Spec X30: another user's reader without write access to the lock file is refused, naming the lock file")
    func readerWithoutLockFileAccessIsRefused() throws {
        let setup = try Setup()
        let lock = setup.sample.path + ".lock"
        for command in ["verify", "digest", "stat", "dump"] {
            let output = try setup.asOtherUser(command, setup.sample.path)
            #expect(output.exitCode == 3, "\(command): \(output)")
            #expect(
                output.output.contains(
                    "the lock file '\(lock)' exists, but this process may not open it for writing (EACCES (permission denied))"
                ),
                "\(command): \(output)")
            #expect(
                output.output.contains("with assumeImmutable when no process writes the file"), "\(command): \(output)")
        }
    }

    @Test("Spec X30: with the lock file missing and its directory not writable, the refusal names the directory")
    func lockFileThatCannotBeCreatedNamesTheDirectory() throws {
        let setup = try Setup()
        #expect(unlink(setup.sample.path + ".lock") == 0)
        let output = try setup.asOtherUser("verify", setup.sample.path)
        #expect(output.exitCode == 3, "\(output)")
        #expect(
            output.output.contains(
                "the lock file '\(setup.sample.path).lock' cannot be created: this process may not write its directory "
                    + "'\(setup.directory.path)' (EACCES (permission denied))"),
            "\(output)")
        // A writer of the other user, whose data file is writable, is told the same: the lock
        // file and its directory are to blame, not the data file.
        #expect(chmod(setup.sample.path, 0o666) == 0)
        let writer = try setup.asOtherUser("writer", setup.sample.path, "--commits", "1", "--seed", "1")
        #expect(writer.exitCode == 3, "\(writer)")
        #expect(
            writer.output.contains(
                "cannot be created: this process may not write its directory '\(setup.directory.path)'"),
            "\(writer)")
        #expect(!FileManager.default.fileExists(atPath: setup.sample.path + ".lock"))
    }

    @Test("Spec X30: --assume-immutable reads another user's file without its lock file")
    func assumeImmutableReads() throws {
        let setup = try Setup()
        let verify = try setup.asOtherUser("verify", setup.sample.path, "--assume-immutable")
        #expect(verify.exitCode == 0, "\(verify)")
        #expect(verify.output.hasPrefix("\(setup.sample.path): clean"), "\(verify)")
        let digest = try setup.asOtherUser("digest", setup.sample.path, "--assume-immutable")
        #expect(digest.exitCode == 0, "\(digest)")
        #expect(digest.output == "\(setup.sample.version.rawValue) \(digestText(setup.sample.digest))\n", "\(digest)")
    }

    @Test("Spec X30: a lock file the other user may write is used as usual (no refusal, no assertion needed)")
    func writableLockFileIsUsed() throws {
        let setup = try Setup()
        #expect(chmod(setup.sample.path + ".lock", 0o666) == 0)
        let verify = try setup.asOtherUser("verify", setup.sample.path)
        #expect(verify.exitCode == 0, "\(verify)")
        #expect(verify.output.hasPrefix("\(setup.sample.path): clean"), "\(verify)")
    }
}
