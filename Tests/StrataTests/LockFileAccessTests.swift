import Foundation
import Strata
import StrataStorage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Spec X30 through the API, in this process: a lock file that cannot be made is blamed, not the
/// realm file; `assumeImmutable` is off unless set. (The refusal of another user's reader is
/// run from a second uid in `Tests/StrataToolTests/StrataToolOtherUserTests.swift`.)
@Suite struct LockFileAccessTests {
    @Test("Spec X30: a read-write open whose lock file cannot be created names the lock file and its directory")
    func readWriteOpenBlamesTheLockFile() throws {
        let directory = temporaryDirectory()
        let configuration = Realm.Configuration(
            fileURL: directory.appendingPathComponent("locked.realm"),
            objectTypes: [IntObj.self])
        let path = try #require(configuration.fileURL).path
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        }
        for helper in [path + ".lock", path + ".note"] { unlink(helper) }
        let folder = try #require(
            FilesConfigurationTests.Unwritable(path: directory.path, isDirectory: true),
            "cannot make the directory unwritable")
        defer { folder.restore() }
        let refused = rejection { _ = try Realm._open(configuration: configuration, queue: nil) }
        #expect(refused?.code == .filePermissionDenied, "\(String(describing: refused))")
        let expected =
            "Failed to open file at path '\(path).lock': \(folder.refusal): the lock file '\(path).lock' "
            + "cannot be created: this process may not write its directory '\(directory.path)'"
        #expect(refused?.message.hasPrefix(expected) == true, "\(String(describing: refused))")
        #expect(refused?.message.hasSuffix("Please use a path where your app has read-write permissions.") == true)
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
    }

    @Test("Spec X30: assumeImmutable is false unless set, and a set one opens read-only as usual")
    func assumeImmutableDefaultsToFalse() throws {
        var configuration = Realm.Configuration(
            fileURL: temporaryDirectory().appendingPathComponent("plain.realm"),
            objectTypes: [IntObj.self])
        #expect(configuration.assumeImmutable == false)
        try onOtherThread { [configuration] in
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self, value: ["intCol": 7]) }
        }
        configuration.readOnly = true
        configuration.assumeImmutable = true
        let readOnly = configuration
        #expect(try onOtherThread { try Realm(configuration: readOnly).objects(IntObj.self).map(\.intCol) } == [7])
    }
}
