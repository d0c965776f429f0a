import Foundation
import Strata
import StrataSimulation
import StrataStorage
import Synchronization
import Testing

/// Spec D6 through the API: after a commit fails on an I/O error, every call through a live
/// realm of the file fails as poisoned, after the context check, except the few that must go
/// on (asking `isInWriteTransaction`, `autorefresh`, `invalidate()`); frozen values keep
/// reading. The harness compares the same rule with the model in its crash campaigns.
@Suite struct PoisonedFileTests {
    static let poisoned = "The file was poisoned by a failed write or sync; reopen it."

    /// Whether the next phase-1 sync fails.
    final class Switch: Sendable {
        let isOn = Atomic(false)
    }

    /// A realm on a simulated disk whose phase-1 syncs fail with EIO while `armed` is on.
    static func realmWithFailingSync(armed: Switch) throws -> Realm {
        let disk = try SimStore(name: "poisoned-\(UUID().uuidString)", reservationBytes: 64 << 20)
        var configuration = Realm.Configuration(objectTypes: [PKInt.self])
        configuration.fileURL = URL(fileURLWithPath: "/poisoned/\(UUID().uuidString).realm")
        configuration._engine = .init(
            simulatedStore: disk,
            hooks: EngineHooks(fault: { site in
                guard case .phaseOneSync = site, armed.isOn.load(ordering: .relaxed) else { return nil }
                return .eio
            }))
        return try Realm._open(configuration: configuration, queue: nil)
    }

    static func expectPoisoned(_ body: () throws(Realm.Error) -> Void, _ what: String) {
        do throws(Realm.Error) {
            try body()
            Issue.record("\(what) succeeded on a poisoned file")
        } catch {
            #expect(error.message.hasPrefix(poisoned), "\(what): \(error.message)")
        }
    }

    @Test("Spec D6, W17: after a failed commit every call through a live realm fails, but a few")
    func everyLaterCallFailsButAFew() throws {
        let armed = Switch()
        let realm = try Self.realmWithFailingSync(armed: armed)
        try realm.write { realm.create(PKInt.self, value: ["id": 1, "name": "one"]) }
        let live = try #require(realm.object(ofType: PKInt.self, forPrimaryKey: 1))
        let frozen = try realm._freeze()
        let frozenItems = try frozen._objects(PKInt.self)

        armed.isOn.store(true, ordering: .relaxed)
        try realm._beginWrite()
        realm.create(PKInt.self, value: ["id": 2, "name": "two"])
        do throws(Realm.Error) {
            try realm._commitWrite()
            Issue.record("the commit succeeded although its sync failed")
        } catch {
            #expect(error.message.hasPrefix("Commit failed: "), "\(error.message)")
        }
        armed.isOn.store(false, ordering: .relaxed)

        // Refused: reads, writes, refresh, new accessors, freezing, thawing.
        Self.expectPoisoned({ () throws(Realm.Error) in _ = try realm._refresh() }, "refresh")
        Self.expectPoisoned({ () throws(Realm.Error) in try realm._beginWrite() }, "beginWrite")
        Self.expectPoisoned({ () throws(Realm.Error) in _ = try realm._objects(PKInt.self) }, "objects")
        Self.expectPoisoned({ () throws(Realm.Error) in _ = try realm._freeze() }, "freeze")
        Self.expectPoisoned({ () throws(Realm.Error) in _ = try live._freeze() }, "freeze of an object")
        Self.expectPoisoned({ () throws(Realm.Error) in _ = try frozenItems._thaw() }, "thaw into the live realm")
        // Still answered: whether a write is open (the failed commit ended it), the autorefresh
        // setting, and invalidate.
        #expect(realm.isInWriteTransaction == false)
        realm.autorefresh = false
        #expect(realm.autorefresh == false)
        try realm._invalidate()
        // Frozen values keep reading the version they pinned.
        #expect(frozenItems.map(\.id) == [1])
    }
}
