import Foundation
import Strata
import StrataStorage
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Spec D18 through the Realm API on a real file: every write-side system call of a small
/// workload (writes of different sizes, a growth, `writeCopy(toFile:)`) fails once with EIO;
/// the failing call surfaces as a `Realm.Error` (never a trap), and the file, reopened, holds
/// the last acknowledged commit (or the failed one, when it failed at phase 2), verifies and
/// takes a commit. `SystemCallFaultTests` does the same for the engine with every fault.
@Suite(.serialized) struct SystemCallFaultRealmTests {
    final class PhaseProbe: Sendable {
        let phaseTwo = Atomic<Bool>(false)
        var hooks: EngineHooks {
            EngineHooks(probe: { [self] probe in
                if probe == .slotWriteFailed || probe == .phaseTwoSyncFailed {
                    phaseTwo.store(true, ordering: .relaxed)
                }
            })
        }
    }

    /// The newest version and content digest of `path`, read through the engine.
    static func state(_ path: String) throws -> (version: UInt64, digest: UInt64) {
        let store = try Store.open(.file(path), options: StoreOptions(create: false))
        defer { store.close() }
        let read = try store.beginRead()
        defer { read.end() }
        return (read.version.rawValue, try read.contentDigest())
    }

    struct Ledger {
        var acknowledged: (version: UInt64, digest: UInt64)?
        var error: (any Error)?
    }

    static func workload(_ directory: URL, hooks: EngineHooks) -> Ledger {
        var ledger = Ledger()
        let url = directory.appendingPathComponent("api.realm")
        var configuration = Realm.Configuration(fileURL: url, objectTypes: [PKInt.self])
        configuration._engine = .init(hooks: hooks)
        do {
            let realm = try Realm(configuration: configuration)
            func commit(_ range: Range<Int>, _ name: String) throws {
                try realm.write {
                    for id in range { realm.create(PKInt.self, value: ["id": id, "name": name], update: .modified) }
                }
                ledger.acknowledged = try state(url.path)
            }
            try commit(0..<10, "small")
            try commit(10..<1500, String(repeating: "grown ", count: 8))
            try realm.writeCopy(toFile: directory.appendingPathComponent("copy.realm"))
            try commit(0..<300, "updated")
        } catch {
            ledger.error = error
        }
        return ledger
    }

    @Test(
        "Spec D18: every pwrite, pwritev, fdatasync, fsync and fallocate of a Realm workload fails once: Realm.Error, nothing acknowledged lost"
    )
    func everyCallFailsOnceThroughTheAPI() throws {
        let clean = temporaryDirectory()
        let counting = SystemCallFaultPlan(directory: clean.path)
        let cleanLedger = SystemCallFaults.run(counting) { Self.workload(clean, hooks: .none) }
        #expect(cleanLedger.error == nil, "\(String(describing: cleanLedger.error))")
        let counts = counting.counts
        var runs = 0
        for call in [SystemCall.pwrite, .pwritev, .fdatasync, .fsync, .fallocate] {
            for ordinal in 1...max(1, counts[call, default: 0]) where counts[call, default: 0] > 0 {
                runs += 1
                let directory = temporaryDirectory()
                let plan = SystemCallFaultPlan(directory: directory.path, failing: [(call, ordinal, .fail(errno: EIO))])
                let probe = PhaseProbe()
                let ledger = SystemCallFaults.run(plan) { Self.workload(directory, hooks: probe.hooks) }
                let label = "\(call) #\(ordinal)"
                #expect(plan.fired.count == 1, "\(label)")
                guard let error = ledger.error else {
                    Issue.record("\(label): the workload did not fail")
                    continue
                }
                #expect(error is Realm.Error, "\(label): \(error) is not a Realm.Error")
                let path = directory.appendingPathComponent("api.realm").path
                guard Store.fileExists(path: path) else {
                    #expect(ledger.acknowledged == nil, "\(label): the file is gone")
                    continue
                }
                let store = try Store.open(.file(path), options: StoreOptions(create: false))
                #expect(try store.verify().isClean, "\(label)")
                let read = try store.beginRead()
                let found = (read.version.rawValue, try read.contentDigest())
                read.end()
                if let acknowledged = ledger.acknowledged, found != acknowledged {
                    // Only a commit that failed at phase 2 may come back (Spec D7), one version on.
                    #expect(
                        probe.phaseTwo.load(ordering: .relaxed) && found.0 == acknowledged.version + 1,
                        "\(label): reopen read version \(found.0), acknowledged \(acknowledged.version)")
                }
                try store.write { write in
                    let table = try write.table(named: "after") ?? write.createTable("after")
                    _ = try write.insert(table.id, values: [.int(1)])
                }
                #expect(try store.verify().isClean, "\(label)")
                store.close()
            }
        }
        let perCall = SystemCall.allCases.map { "\($0) \(counts[$0, default: 0])" }.joined(separator: ", ")
        print("SystemCallFaultRealmTests: clean run calls \(perCall); \(runs) runs with one EIO each")
        #expect(runs >= 10, "the workload made \(counts)")
    }
}
