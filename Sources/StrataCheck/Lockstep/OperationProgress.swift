import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// What a running operation passed, for `Runner.switchesAway`.
struct OperationProgress {
    /// Past its linearization point: its model step may be taken now.
    var linearized = false
    /// A commit that published its version.
    var published = false
}
