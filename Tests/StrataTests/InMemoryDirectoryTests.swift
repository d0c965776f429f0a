import Foundation
import StrataTestSupport
import Testing

@testable import Strata

#if canImport(Glibc)
    import Glibc
#endif

/// Spec X29: the directory of in-memory realms is this user's private directory, whatever
/// another user planted at its predictable name. The planting tests run under a base
/// directory of their own (never the real `/dev/shm` name, which other tests use at the same
/// time); the last test checks the real directory from another uid.
@Suite struct InMemoryDirectoryTests {
    /// A base directory like `/dev/shm` (sticky, writable by all), removed at the end.
    final class Base {
        let path: String
        init() {
            path =
                FileManager.default.temporaryDirectory.path
                + "/strata-memory-base-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            try? FileManager.default.removeItem(atPath: path)
            mkdir(path, 0o777)
            chmod(path, 0o1777)
        }
        var stem: String { path + "/strata-memory-\(geteuid())" }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func info(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    static func entries(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    /// The directory `directory(base:)` picks, checked private: a directory owned by this
    /// user, mode 0700, no symlink.
    static func expectPrivate(_ directory: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let found = info(directory)
        #expect(found.map { $0.st_mode & S_IFMT } == S_IFDIR, sourceLocation: sourceLocation)
        #expect(found?.st_uid == geteuid(), sourceLocation: sourceLocation)
        #expect(found.map { $0.st_mode & 0o777 } == 0o700, sourceLocation: sourceLocation)
    }

    @Test("Spec X29: the directory is made 0700 and owned by this user")
    func freshDirectoryIsPrivate() throws {
        let base = Base()
        let directory = try InMemoryMembership.directory(base: base.path)
        #expect(directory == base.stem)
        Self.expectPrivate(directory)
        // Found again by the next open.
        #expect(try InMemoryMembership.directory(base: base.path) == base.stem)
    }

    @Test("Spec X29: the user's runtime directory is used where the system made one, and only if it is private")
    func theUserRuntimeDirectoryIsPreferred() throws {
        let base = Base()
        let root = base.path + "/run-user"
        #expect(mkdir(root, 0o755) == 0)
        let runtime = root + "/\(geteuid())"
        // No runtime directory: the base's names.
        #expect(try InMemoryMembership.directory(base: base.path, runtimeRoot: root) == base.stem)
        #expect(mkdir(runtime, 0o700) == 0)
        let chosen = try InMemoryMembership.directory(base: base.path, runtimeRoot: root)
        #expect(chosen == runtime + "/strata-memory")
        Self.expectPrivate(chosen)
        // One open to others, or under a parent others may write, is not the user's own.
        #expect(chmod(runtime, 0o755) == 0)
        #expect(try InMemoryMembership.directory(base: base.path, runtimeRoot: root) == base.stem)
        #expect(chmod(runtime, 0o700) == 0)
        #expect(chmod(root, 0o777) == 0)
        #expect(try InMemoryMembership.directory(base: base.path, runtimeRoot: root) == base.stem)
        #expect(chmod(root, 0o755) == 0)
        // A symbolic link at the runtime name is not followed.
        let elsewhere = base.path + "/elsewhere"
        #expect(mkdir(elsewhere, 0o700) == 0)
        #expect(rename(runtime, runtime + ".moved") == 0)
        #expect(symlink(elsewhere, runtime) == 0)
        #expect(try InMemoryMembership.directory(base: base.path, runtimeRoot: root) == base.stem)
        #expect(Self.entries(elsewhere).isEmpty)
    }

    /// Plants `plant` at the name, then checks the directory chosen is the next name, private,
    /// and that the planted thing was left as it was (nothing written into it).
    func expectSkipped(_ plant: (String) throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let base = Base()
        try plant(base.stem)
        let before = Self.info(base.stem)
        let directory = try InMemoryMembership.directory(base: base.path)
        #expect(directory == base.stem + "-1", sourceLocation: sourceLocation)
        Self.expectPrivate(directory)
        let after = Self.info(base.stem)
        #expect(after?.st_mode == before?.st_mode && after?.st_uid == before?.st_uid, sourceLocation: sourceLocation)
        if before.map({ $0.st_mode & S_IFMT }) == S_IFDIR {
            #expect(
                Self.entries(base.stem).isEmpty, "something was written into the planted directory",
                sourceLocation: sourceLocation)
        }
    }

    @Test("Spec X29: a directory another user made at the name is never used")
    func directoryOwnedByAnotherUser() throws {
        try expectSkipped { path in
            #expect(mkdir(path, 0o700) == 0)
            #expect(chown(path, OtherUser.uid, OtherUser.uid) == 0)
        }
    }

    @Test("Spec X29: a directory open to other users (0777) is never used, whoever owns it")
    func directoryOpenToOthers() throws {
        try expectSkipped { path in
            #expect(mkdir(path, 0o777) == 0)
            #expect(chmod(path, 0o777) == 0)
        }
        try expectSkipped { path in
            #expect(mkdir(path, 0o777) == 0)
            #expect(chmod(path, 0o777) == 0)
            #expect(chown(path, OtherUser.uid, OtherUser.uid) == 0)
        }
    }

    @Test("Spec X29: a regular file at the name denies nothing")
    func regularFileAtTheName() throws {
        try expectSkipped { path in
            #expect(FileManager.default.createFile(atPath: path, contents: Data("planted".utf8)))
        }
    }

    @Test("Spec X29: a symbolic link at the name is never followed, even to a private directory")
    func symbolicLinkAtTheName() throws {
        let elsewhere = Base()
        let target = elsewhere.path + "/target"
        #expect(mkdir(target, 0o700) == 0)
        try expectSkipped { path in
            #expect(symlink(target, path) == 0)
        }
        #expect(Self.entries(target).isEmpty)
    }

    @Test("Spec X29: with every name taken the open fails, naming the path and what is wrong")
    func everyNameTaken() throws {
        let base = Base()
        for attempt in 0..<InMemoryMembership.directoryAttempts {
            let path = attempt == 0 ? base.stem : "\(base.stem)-\(attempt)"
            #expect(symlink("/tmp", path) == 0)
        }
        #expect {
            _ = try InMemoryMembership.directory(base: base.path)
        } throws: { error in
            guard let error = error as? Realm.Error else { return false }
            return error.code == .filePermissionDenied
                && error.message.contains("'\(base.stem)'")
                && error.message.contains("is a symbolic link")
        }
    }

    @Test("Spec X29: another user can read neither the files of an in-memory realm nor their names")
    func anotherUserCannotReadTheStore() throws {
        let identifier = "private-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let configuration = Realm.Configuration(inMemoryIdentifier: identifier, objectTypes: [IntObj.self])
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self, value: ["intCol": 42]) }
            let directory = try InMemoryMembership.directory()
            let path = directory + "/" + InMemoryMembership.fileName(for: identifier)
            #expect(FileManager.default.fileExists(atPath: path))
            Self.expectPrivate(directory)
            let cat = try OtherUser.run(try OtherUser.systemProgram("cat"), [path])
            #expect(cat.exitCode != 0 && cat.output.contains("Permission denied"), "\(cat)")
            let list = try OtherUser.run(try OtherUser.systemProgram("ls"), [directory])
            #expect(list.exitCode != 0 && list.output.contains("Permission denied"), "\(list)")
            // The same commands as this user succeed: the refusals come from the permissions.
            #expect(access(path, R_OK) == 0)
            withExtendedLifetime(realm) {}
        }
    }
}
