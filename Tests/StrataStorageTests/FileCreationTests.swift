import Foundation
import StrataTestSupport
import Testing

@testable import StrataStorage

/// Creating a database is atomic, and what a creator killed mid-way leaves behind is cleaned up.
@Suite struct FileCreationTests {
    /// The pid of a process that has exited (and been reaped), so no process has it now.
    static func deadPid() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test func temporariesOfDeadCreatorsAreRemovedAndLiveOnesKept() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("db.strata")
        let dead = "\(path).creating-\(try Self.deadPid())-17"
        let live = "\(path).creating-\(getpid())-18"
        let unrelated = directory.file("other.strata.creating-1-1")
        for file in [dead, live, unrelated] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
        }
        let store = try Store.open(.file(path))
        store.close()
        #expect(!FileManager.default.fileExists(atPath: dead), "a dead creator's temporary was left behind")
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: unrelated))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aNewFileHoldsVersionOneAndVerifies() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(.file(directory.file("new.strata")))
        #expect(store.newestVersion == FileCreation.initialVersion)
        #expect(try store.verify().isClean)
        store.close()
    }
}
