import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// Counts of one run.
public struct CheckStatistics: Sendable, Hashable {
    public var operations = 0
    public var commits = 0
    public var versions = 0
    public var crashes = 0
    public var crashImages = 0
    public var schedulingSteps = 0
    public var switches = 0
    public var modelRejections = 0
    /// Operations the driver ran as their thread, without a hand-off.
    public var inlineOperations = 0
    /// Crash images also damaged at rest (a flipped bit, a misdirected sector) and checked.
    public var damagedImages = 0
    /// Commits failed by an injected EIO or ENOSPC.
    public var injectedFaults = 0
    /// Switches away from a thread just after it pinned or unpinned a version.
    public var pinSwitches = 0
    /// Steps the model took before their operation returned (a switch after the operation's
    /// linearization point, `Runner.linearizeEarly`).
    public var earlySteps = 0
    /// Operations refused because an injected fault poisoned the file (Spec D6).
    public var poisonedRejections = 0
    /// Probe marks by name (`ProbeCoverage`): how often each rare path was reached.
    public var probes: [String: Int] = [:]
    /// Collection and object observers registered (`observe` succeeded in both).
    public var observers = 0
    /// Observer callbacks checked by `DeliveryOracle`.
    public var checkedCallbacks = 0
    /// Of them, object observers' (`.change`, `.deleted`).
    public var checkedObjectCallbacks = 0
    /// Observers found caught up where the Spec says nothing may be owed (after `refresh()`,
    /// `beginWrite`, a queue realm's commit or `observe`).
    public var checkedDeliveryPoints = 0
    /// Async writes (generation 4): completions found durable as they ran (Spec D11), crash
    /// images taken inside a group's sync (D10), and power losses while a group was published
    /// and not yet durable.
    public var checkedCompletions = 0
    public var asyncBlocks = 0
    public var groupCrashImages = 0
    public var pendingGroupPowerLosses = 0
    /// Durable versions verified before a held group sync was let go (Spec D10).
    public var durableImageChecks = 0
    /// Waits of a run (its crashes, settles and end) that ran a let-go group sync out (`GroupSyncGate.idleTimeoutCount`):
    /// a run must end at once, so this stays 0.
    public var groupSyncWaitsTimedOut = 0
    /// Settles (`Runner.settleAllThreads`) whose ending of the write lock's holder came back
    /// hung, after the hang watch's patience: a settle must end at once, so this stays 0.
    public var settleWaitsTimedOut = 0

    public init() {}

    public mutating func add(_ other: CheckStatistics) {
        operations += other.operations
        commits += other.commits
        versions += other.versions
        crashes += other.crashes
        crashImages += other.crashImages
        schedulingSteps += other.schedulingSteps
        switches += other.switches
        modelRejections += other.modelRejections
        inlineOperations += other.inlineOperations
        damagedImages += other.damagedImages
        injectedFaults += other.injectedFaults
        pinSwitches += other.pinSwitches
        earlySteps += other.earlySteps
        poisonedRejections += other.poisonedRejections
        probes.merge(other.probes, uniquingKeysWith: +)
        observers += other.observers
        checkedCallbacks += other.checkedCallbacks
        checkedObjectCallbacks += other.checkedObjectCallbacks
        checkedDeliveryPoints += other.checkedDeliveryPoints
        checkedCompletions += other.checkedCompletions
        asyncBlocks += other.asyncBlocks
        groupCrashImages += other.groupCrashImages
        pendingGroupPowerLosses += other.pendingGroupPowerLosses
        durableImageChecks += other.durableImageChecks
        groupSyncWaitsTimedOut += other.groupSyncWaitsTimedOut
        settleWaitsTimedOut += other.settleWaitsTimedOut
    }
}
