import StrataModel
import StrataSimulation
import StrataStorage

/// An I/O error injected into one commit (Docs/architecture.md §5's fourth fault class: a write or sync
/// returns EIO, or the disk is full). The commit must fail (Spec W17) and poison the file
/// (Spec D6); the run then loses power, and recovery must find the version before the commit.
struct InjectedCommitFault: Hashable, Sendable, CustomStringConvertible {
    enum Site: Hashable, Sendable {
        case grow
        /// The `index`-th page write of phase 1 (a commit with fewer writes never fails).
        case pageWrite(index: Int)
        case phaseOneSync
        case slotWrite
        case phaseTwoSync
    }

    var site: Site
    var fault: InjectedFault

    static func draw(_ stream: inout ChoiceStream) -> InjectedCommitFault {
        let site: Site
        switch stream.draw(5) {
        case 0: site = .pageWrite(index: stream.draw(8))
        case 1: site = .phaseOneSync
        case 2: site = .slotWrite
        case 3: site = .phaseTwoSync
        default: site = .grow
        }
        return InjectedCommitFault(site: site, fault: stream.chance(50) ? .enospc : .eio)
    }

    func matches(_ candidate: FaultSite, pageWritesSoFar: Int) -> Bool {
        switch (site, candidate) {
        case (.grow, .grow), (.phaseOneSync, .phaseOneSync), (.slotWrite, .slotWrite), (.phaseTwoSync, .phaseTwoSync):
            return true
        case (.pageWrite(let index), .pageWrite):
            return index == pageWritesSoFar
        default:
            return false
        }
    }

    /// The model's failure (Spec D7). When the phase-2 sync fails, the slot's write has
    /// returned: a reopen in the same process (after every handle closed) reads it from the
    /// cache and adopts the new version, and the power loss that ends the poisoned steps loses
    /// it (`SimStore` lets no write of a failed sync reach the disk; the harness's power loss
    /// keeps no unsynced slot). A failed slot write leaves nothing to find.
    var failure: CommitFailure {
        switch site {
        case .grow, .pageWrite, .phaseOneSync: return .beforeSlot
        case .slotWrite: return .atSlot(slotOnDisk: false)
        case .phaseTwoSync: return .atSlot(slotOnDisk: true)
        }
    }

    var description: String {
        let name = fault == .eio ? "EIO" : "ENOSPC"
        switch site {
        case .grow: return "\(name) growing the file"
        case .pageWrite(let index): return "\(name) at page write \(index)"
        case .phaseOneSync: return "\(name) at the phase-1 sync"
        case .slotWrite: return "\(name) at the slot write"
        case .phaseTwoSync: return "\(name) at the phase-2 sync"
        }
    }
}
