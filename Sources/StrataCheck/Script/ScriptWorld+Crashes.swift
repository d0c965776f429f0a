import Foundation
import Strata
import StrataModel
import StrataSimulation
import StrataStorage

// Crashes and injected faults in a generated test, through the same seam the runner uses: the
// `RunHooks` of the world's engine hooks capture the disk at a point of the next commit or
// fail one of its I/O calls, and a crash reboots the file on a `SimStore` built from the
// captured disk (`Runner.commitWithCrash`, `crashBetweenCommits`, `commitWithFault`).
extension ScriptWorld {
    /// Captures the disk at `point` of the next commit.
    func armCapture(_ point: CapturePoint) {
        guard let disk else { return }
        hooks.arm(point, disk: disk)
    }

    /// The machine crashed at the armed point: the file reboots from the captured disk with
    /// the recorded crash image. `.done`, or what kept the crash from happening as recorded.
    func crash(_ image: RecordedCrash) -> Observation {
        guard let state = hooks.disarm() else {
            return .failure(code: "harness", message: "the commit never reached its capture point")
        }
        return reboot { name throws(StorageError) in
            try SimStore(
                crashing: state, plan: image.plan(for: state.pendingWrites), name: name,
                reservationBytes: 64 << 20)
        }
    }

    /// Power loss between commits: whatever was not synced is lost.
    func powerLoss() -> Observation {
        guard let disk else { return .failure(code: "harness", message: "crash needs the simulated disk") }
        return reboot { name throws(StorageError) in
            let next = try SimStore(state: disk.captureState(), name: name, reservationBytes: 256 << 20)
            try next.crash(.allLost)
            return next
        }
    }

    private func reboot(_ build: (String) throws(StorageError) -> SimStore) -> Observation {
        boot += 1
        let next: SimStore
        do {
            next = try build("\(name)-boot\(boot)")
        } catch {
            return .failure(code: "harness", message: "cannot build the crash image: \(error)")
        }
        reset()
        disk = next
        var configuration = self.configuration
        configuration._engine = .init(
            simulatedStore: next, hooks: engineHooks,
            indexedProperties: configuration._engine?.indexedProperties ?? [:])
        moveTo(configuration)
        return .done
    }

    /// Fails the next commit at the fault's site.
    func armFault(_ fault: InjectedCommitFault) { hooks.armFault(fault) }

    /// Ends the armed fault: `.done` when it struck, as it did in the run.
    func disarmFault() -> Observation {
        hooks.disarmFault() == nil ? .failure(code: "harness", message: "the injected fault never struck") : .done
    }

    /// Everything the file holds after recovery, read through a fresh realm (as
    /// `Runner.checkRecoveredContents` reads it).
    func recoveredContents() -> Observation {
        do throws(Realm.Error) {
            let realm = try Realm._open(configuration: configuration, queue: nil)
            return .elements(try EngineSide.allReadings(in: realm))
        } catch {
            return .failure(code: error.modelCode, message: error.message)
        }
    }

    /// What `Store.verify()` finds wrong with the recovered disk (`CrashCampaign.check`).
    func verifyProblems() -> [String] {
        guard let disk else { return [] }
        do {
            let store = try Store.open(.simulated(disk), options: StoreOptions(create: false, hooks: engineHooks))
            defer { store.close() }
            return try store.verify().problems.map(\.description)
        } catch {
            return ["recovery failed: \(error)"]
        }
    }
}
