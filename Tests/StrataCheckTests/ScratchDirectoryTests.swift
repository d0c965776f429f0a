import CStrataSupport
import Foundation
import Testing

@testable import StrataCheck

#if canImport(Glibc)
    import Glibc
#endif

/// Where runs keep their files: private directories of this user, and a memory-backed one for
/// the copies of runs on the simulated store (`CheckSettings.defaultCopyDirectory`).
@Suite struct ScratchDirectoryTests {
    private static func isPrivateDirectory(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR && status.st_uid == getuid()
            && status.st_mode & 0o077 == 0
    }

    /// Copies go to this user's private directory on /dev/shm when that is a tmpfs with room,
    /// else to the scratch directory; both are private.
    @Test func copiesOfSimulatedRunsGoToAPrivateMemoryBackedDirectoryWhenThereIsOne() {
        let copies = CheckSettings.defaultCopyDirectory
        #expect(Self.isPrivateDirectory(copies), "\(copies)")
        #expect(Self.isPrivateDirectory(CheckSettings.defaultScratchDirectory))
        if strata_is_tmpfs_with_room("/dev/shm", 256 << 20) == 1 {
            #expect(copies.hasPrefix("/dev/shm/"), "\(copies)")
            #expect(strata_is_tmpfs_with_room(copies, 0) == 1)
            // No tmpfs has 2^64 - 1 bytes free: the room is checked, not assumed.
            #expect(strata_is_tmpfs_with_room(copies, UInt64.max) == 0)
        } else {
            #expect(copies == CheckSettings.defaultScratchDirectory)
        }
        #expect(strata_is_tmpfs_with_room("/nonexistent-\(getpid())/x", 0) == -1)
    }

    /// A name planted as a symbolic link (or made open to others) is never used: a fresh
    /// private directory is made beside it instead.
    @Test func aPlantedNameIsNeverUsed() throws {
        let base = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "strata-plant-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let elsewhere = base + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let name = base + "/strata-check-\(getuid())"
        #expect(symlink(elsewhere, name) == 0)

        let chosen = try #require(CheckSettings.privateDirectory(in: base))
        #expect(chosen != name)
        #expect(chosen.hasPrefix(base + "/strata-check-"))
        #expect(Self.isPrivateDirectory(chosen))

        #expect(unlink(name) == 0)
        #expect(mkdir(name, 0o755) == 0)
        #expect(chmod(name, 0o755) == 0)
        let second = try #require(CheckSettings.privateDirectory(in: base))
        #expect(second != name, "a directory open to others is not private")

        #expect(chmod(name, 0o700) == 0)
        #expect(CheckSettings.privateDirectory(in: base) == name)
    }
}
