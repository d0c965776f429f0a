import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// Carries an observation from a controlled thread to the driver.
final class ObservationBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Observation?
    func set(_ observation: Observation) { lock.withLock { value = observation } }
    func get() -> Observation { lock.withLock { value } ?? .failure(code: "harness", message: "no observation") }
}
