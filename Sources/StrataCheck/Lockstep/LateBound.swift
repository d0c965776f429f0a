import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// A closure the runner binds to itself after `init` and hands, before that, to the controlled
/// threads and the engine hooks: the switch decision (called while the caller holds the
/// token) and the hang report (read by the watchdog once the driver is stuck for good), so
/// calls never race with the driver.
final class LateBound<Argument, Result>: @unchecked Sendable {
    var call: (Argument) -> Result
    init(_ initial: @escaping (Argument) -> Result) { call = initial }
}
