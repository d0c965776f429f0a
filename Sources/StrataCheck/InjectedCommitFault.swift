import StrataModel
import StrataStorage

/// An I/O error injected into one commit (DESIGN §5's fourth fault class: a write or sync
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

    /// The model's failure (Spec D7) for a machine that loses power right after it: the slot
    /// never reaches the disk, even when its write returned before the phase-2 sync failed
    /// (`SimStore` lets no write of a failed sync reach the disk).
    var failure: CommitFailure {
        switch site {
        case .grow, .pageWrite, .phaseOneSync: return .beforeSlot
        case .slotWrite, .phaseTwoSync: return .atSlot(slotOnDisk: false)
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
