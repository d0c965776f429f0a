import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataCheck

/// Realm's interprocess behaviours (IPC): this test process and a `strata-fuzz child-realm`
/// process share one file (Spec V7, V9, W1, N11, N24, X3).
@Suite(.serialized) struct InterprocessTests {
    /// Each test's own directory (a new suite value per test), removed when the test ends.
    private let directory = TemporaryDirectory()

    private func file() -> (path: String, configuration: Realm.Configuration) {
        let path = directory.file("ipc.realm")
        return (path, ChildWriter.configuration(path: path, engineBugs: []))
    }

    /// Runs the child to its end and returns what it printed.
    @discardableResult
    private static func child(_ path: String, _ action: String, count: Int = 1) throws -> [String] {
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "child-realm", "--file", path, "--action", action, "--count", String(count),
            ])
        #expect(output.exitCode == 0, "\(output)")
        return output.lines
    }

    private static func count(_ realm: Realm) throws -> Int { try realm._objects(Item.self)._count() }

    // Spec X3, V10, X18: a child creates the file and commits; the parent opens it
    // later and sees the object.
    @Test func childCreatesTheFileParentReadsIt() throws {
        let (path, configuration) = file()
        #expect(try Self.child(path, "create") == ["count 1"])
        let realm = try Realm._open(configuration: configuration, queue: nil)
        #expect(try Self.count(realm) == 1)
    }

    // Spec D1, V10, X18: the parent commits; a child started afterwards sees it.
    @Test func parentCommitsChildReadsIt() throws {
        let (path, configuration) = file()
        let realm = try Realm._open(configuration: configuration, queue: nil)
        try realm._beginWrite()
        _ = try realm._create(Item.self, value: ["primaryKey": 0], update: .error)
        try realm._commitWrite()
        #expect(try Self.child(path, "count") == ["count 1"])
    }

    // Spec V9, V7, V4: a realm that does not refresh (autorefresh off, or a
    // thread whose loop never turns) keeps its version while the child commits; refresh()
    // moves it to the child's commit.
    @Test(arguments: [false, true])
    func anotherProcessCommitWaitsForRefresh(autorefresh: Bool) throws {
        let (path, configuration) = file()
        try onLoopThread {
            let realm = try Realm._open(configuration: configuration, queue: nil)
            realm.autorefresh = autorefresh
            #expect(try Self.count(realm) == 0)
            // Spec V8: waiting for the child on another thread, this thread's loop never turns.
            _ = try onOtherThread { try Self.child(path, "create") }
            #expect(try Self.count(realm) == 0)
            if !autorefresh {
                // Spec V9: the loop turns, and the realm still does not move.
                _ = spinRunLoop(seconds: 0.3) { false }
                #expect(try Self.count(realm) == 0)
            }
            #expect(realm.refresh())
            #expect(try Self.count(realm) == 1)
        }
    }

    // Spec N11, N24: a child that only opens and reads notifies nobody here; one that
    // commits does.
    @Test func aReadingProcessNotifiesNobody() throws {
        let (path, configuration) = file()
        try onLoopThread {
            let realm = try Realm._open(configuration: configuration, queue: nil)
            var realmCalls = 0
            var collectionCalls = 0
            let realmToken = try realm._observe { _, _ in realmCalls += 1 }
            let collectionToken = try realm._objects(Item.self)._observe { _ in collectionCalls += 1 }
            #expect(spinRunLoop { collectionCalls == 1 })  // the initial callback
            _ = try onOtherThread { try Self.child(path, "count") }
            #expect(
                spinRunLoop(seconds: 0.5) { realmCalls > 0 || collectionCalls > 1 } == false,
                "a reading process notified: realm \(realmCalls), collection \(collectionCalls)")
            _ = try onOtherThread { try Self.child(path, "create") }
            #expect(spinRunLoop { realmCalls == 1 && collectionCalls == 2 })
            realmToken.invalidate()
            collectionToken.invalidate()
        }
    }

    // Spec W1, D7, L6: a process that dies inside its write does not wedge the file,
    // whether this process opened it before or after; the dead write left nothing.
    @Test(arguments: [false, true])
    func aWriterDyingInsideItsWriteDoesNotWedgeTheFile(openedBefore: Bool) throws {
        let (path, configuration) = file()
        let early = openedBefore ? try Realm._open(configuration: configuration, queue: nil) : nil
        if !openedBefore { try Self.child(path, "count") }  // the file exists, nobody here has it open
        #expect(try Self.child(path, "abandon-write") == ["in-write"])
        let realm = try early ?? Realm._open(configuration: configuration, queue: nil)
        #expect(try Self.count(realm) == 0)
        try realm._beginWrite()
        _ = try realm._create(Item.self, value: ["primaryKey": 7], update: .error)
        try realm._commitWrite()
        #expect(try Self.count(realm) == 1)
    }

    // Spec W1, V1, V18: while this process holds the write lock, a child opens the
    // file and reads without blocking.
    @Test func readersDoNotWaitForAnotherProcessWriter() throws {
        let (path, configuration) = file()
        let realm = try Realm._open(configuration: configuration, queue: nil)
        _ = try Self.count(realm)
        try realm._beginWrite()
        _ = try realm._create(Item.self, value: ["primaryKey": 0], update: .error)
        // This process holds the write until the child has ended: a child that waited for the
        // writer would never end, and its hang guard (ChildProcess.run) fails the test. Nothing
        // is timed, so a busy machine cannot fail it.
        #expect(try Self.child(path, "count") == ["count 0"])
        try realm._cancelWrite()
    }
    // Spec X8, N24, D14: both processes keep the in-memory realm open and share it; each
    // side's observer takes its turn (the child adds 1 to even values, this process to odd
    // ones) until the value reaches 100, so every commit of one side woke the other. Once both
    // closed it, the next open is empty.
    @Test(.hangGuard) func twoProcessesShareAnInMemoryRealm() throws {
        let identifier = "ipc08-\(UUID().uuidString)"
        let configuration = ChildRealm.inMemoryConfiguration(identifier: identifier)
        let keeper = try Realm._open(configuration: configuration, queue: nil)  // keeps it alive
        try keeper._beginWrite()
        _ = try keeper._create(Item.self, value: ["primaryKey": 0, "value": 0], update: .error)
        try keeper._commitWrite()
        let childLines = ResultBox<[String]>()
        Thread.detachNewThread {
            childLines.set(Result { try Self.child(identifier, "alternate-in-memory", count: 100) })
        }
        let seen = Result { try ChildRealm.alternate(identifier: identifier, until: 100, parity: 1) }
        while !childLines.isSet { Thread.sleep(forTimeInterval: 0.01) }
        #expect(try childLines.get() == ["done 100"])
        #expect(try seen.get() == 100)
        #expect(keeper.refresh())
        #expect(try keeper._object(ofType: Item.self, forPrimaryKey: 0)?.value == 100)
        try keeper._invalidate()
        _ = consume keeper
        let reopened = try Realm._open(configuration: configuration, queue: nil)
        #expect(try Self.count(reopened) == 0)
    }
}
