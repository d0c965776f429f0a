import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataSimulation
import StrataStorage

/// The engine hooks of a run: crash capture and the controlled threads' parking.
final class RunHooks: @unchecked Sendable {
    private let lock = NSLock()
    private var armed: (point: CapturePoint, disk: SimStore)?
    private var pageWrites = 0
    private var captured: SimStore.State?
    var onYield: (@Sendable (YieldPoint) -> Void)?

    func arm(_ point: CapturePoint, disk: SimStore) {
        lock.withLock {
            armed = (point, disk)
            pageWrites = 0
            captured = nil
        }
    }

    func disarm() -> SimStore.State? {
        lock.withLock {
            armed = nil
            return captured
        }
    }

    private var armedFault: InjectedCommitFault?
    private var faultPageWrites = 0
    private var firedFault: FaultSite?

    func armFault(_ fault: InjectedCommitFault) {
        lock.withLock {
            armedFault = fault
            faultPageWrites = 0
            firedFault = nil
        }
    }

    /// The site where the armed fault struck, if it did; disarms it.
    func disarmFault() -> FaultSite? {
        lock.withLock {
            armedFault = nil
            return firedFault
        }
    }

    /// The engine's fault hook: the armed fault, once, at its site.
    func fault(_ site: FaultSite) -> InjectedFault? {
        lock.withLock {
            guard let armed = armedFault, firedFault == nil else { return nil }
            if armed.matches(site, pageWritesSoFar: faultPageWrites) {
                firedFault = site
                return armed.fault
            }
            if case .pageWrite = site { faultPageWrites += 1 }
            return nil
        }
    }

    /// Holds background group syncs (`EngineSide.groupSyncGate`).
    var groupSyncGate: GroupSyncGate?

    func yield(_ point: YieldPoint) {
        switch point {
        case .groupSyncBegins: lock.withLock { groupSyncGate }?.arrive()
        case .groupSyncEnds: lock.withLock { groupSyncGate }?.end()
        default: break
        }
        lock.withLock {
            guard let armed, captured == nil else { return }
            if armed.point.matches(point, pageWritesSoFar: pageWrites) {
                captured = armed.disk.captureState()
            }
            if case .pageWrite = point { pageWrites += 1 }
        }
        let park = lock.withLock { onYield }
        park?(point)
    }
}
