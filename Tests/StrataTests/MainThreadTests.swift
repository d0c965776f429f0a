import Foundation
import Strata
import XCTest

/// The main thread's realm, tested on the main thread: XCTest runs its tests there (Swift
/// Testing does not), with the main run loop turning while a test waits.
final class MainThreadTests: XCTestCase {
    /// RealmTests.testAsyncTransactionCancel (Spec A1, A4, A18, A19): async writes begun in a
    /// main-queue block run while that block waits in a run loop it spins itself. The main queue
    /// cannot start another block then, so the realm's turns must reach the run loop.
    func testAsyncTransactionsRunInARunLoopSpunInsideAMainQueueBlock() throws {
        XCTAssertTrue(Thread.isMainThread)
        let configuration = testConfiguration()
        let finished = expectation(description: "the main-queue block finished")
        let outcome = ResultBox<[String]>()
        DispatchQueue.main.async {
            outcome.set(
                Result {
                    let realm = try Realm(configuration: configuration)
                    var ran: [String] = []
                    realm.beginAsyncWrite {
                        realm.create(StrObj.self, value: ["stringCol": "left open"])
                        ran.append("rolled back")
                    }
                    realm.beginAsyncWrite {
                        realm.create(StrObj.self, value: ["stringCol": "committed"])
                        realm.commitAsyncWrite()
                        ran.append("committed")
                    }
                    let cancelled = realm.beginAsyncWrite { ran.append("cancelled block ran") }
                    try realm.cancelAsyncWrite(cancelled)
                    let deadline = Date().addingTimeInterval(hangGuardSeconds)
                    while (ran.count < 2 || realm.isPerformingAsynchronousWriteOperations) && Date() < deadline {
                        _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
                    }
                    ran.append("count \(realm.objects(StrObj.self).count)")
                    return ran
                })
            finished.fulfill()
        }
        wait(for: [finished], timeout: hangGuardSeconds + 60)
        XCTAssertEqual(try outcome.get(), ["rolled back", "committed", "count 1"])
    }

    /// Spec C1, W7 on the main thread: `Realm()` again while an instance nobody holds is in a
    /// write gives that instance and its write (ObjectCreationTests' pattern).
    func testRealmAgainReturnsTheInstanceInAWrite() throws {
        let configuration = testConfiguration()
        try Realm(configuration: configuration)._beginWrite()
        try Realm(configuration: configuration).create(StrObj.self, value: ["stringCol": "one"])
        try Realm(configuration: configuration)._commitWrite()
        XCTAssertFalse(try Realm(configuration: configuration).isInWriteTransaction)
        XCTAssertEqual(try Realm(configuration: configuration).objects(StrObj.self).count, 1)
    }
}
