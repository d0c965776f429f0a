import Foundation
import Strata
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Spec X31 through the Realm API: special files and symlink loops get Realm-style errors, and
/// opening a FIFO never blocks.
@Suite struct SpecialFileRealmTests {
    private func open(_ url: URL, readOnly: Bool) -> Realm.Error? {
        var configuration = Realm.Configuration(fileURL: url, objectTypes: allFixtureTypes)
        configuration.readOnly = readOnly
        return rejection { _ = try Realm._open(configuration: configuration, queue: nil) }
    }

    @Test("Spec X31: a FIFO is .fileAccess 'not a regular file (it is a FIFO)', read-only or not, without blocking")
    func fifo() {
        let url = temporaryDirectory().appendingPathComponent("fifo.realm")
        #expect(mkfifo(url.path, 0o644) == 0)
        for readOnly in [false, true] {
            let error = open(url, readOnly: readOnly)
            #expect(error?.code == .fileAccess, "\(String(describing: error))")
            #expect(
                error?.message == "Failed to open Realm file at path '\(url.path)': not a regular file (it is a FIFO)")
        }
    }

    @Test("Spec X31: a link to /dev/zero is .fileAccess 'not a regular file (it is a character device)'")
    func device() {
        let url = temporaryDirectory().appendingPathComponent("zero.realm")
        #expect(symlink("/dev/zero", url.path) == 0)
        let error = open(url, readOnly: false)
        #expect(error?.code == .fileAccess, "\(String(describing: error))")
        #expect(error?.message.hasSuffix("not a regular file (it is a character device)") == true)
    }

    @Test("Spec X31: a symlink loop is 'Too many levels of symbolic links', never 'No such file'")
    func symlinkLoop() {
        let directory = temporaryDirectory()
        let a = directory.appendingPathComponent("a.realm")
        let b = directory.appendingPathComponent("b.realm")
        #expect(symlink(b.path, a.path) == 0 && symlink(a.path, b.path) == 0)
        for readOnly in [false, true] {
            let error = open(a, readOnly: readOnly)
            #expect(error?.code == .fileAccess, "\(String(describing: error))")
            #expect(
                error?.message == "Failed to open Realm file at path '\(a.path)': Too many levels of symbolic links")
        }
    }
}
