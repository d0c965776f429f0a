import Foundation
import Strata
import StrataStorage

// The settings, statistics, report and errors of a process campaign (ProcessCampaign.swift).

/// Why a process campaign could not run at all (not a finding about the engine).
public enum ProcessCampaignError: Error, Sendable, CustomStringConvertible {
    case setUp(String)

    public var description: String {
        switch self {
        case .setUp(let reason): return reason
        }
    }
}

/// The settings of a process campaign.
public struct ProcessSettings: Sendable {
    /// Writer children running at once.
    public var children: Int
    /// Stop after this many seconds, or
    public var seconds: Double?
    /// after this many acknowledged commits (whichever comes first).
    public var commits: Int?
    /// Stop after this many kills (tests); nil: no limit.
    public var kills: Int?
    public var seed: UInt64
    /// The executable and leading arguments that start a child (`strata-fuzz child-writer`).
    public var childCommand: [String]
    public var scratchDirectory: String
    public var engineBugs: SeededBugSet
    public var mutation: ProcessMutation?
    /// How long without a commit counts as hung.
    public var patienceSeconds: Double

    public init(
        children: Int, seconds: Double?, commits: Int?, kills: Int? = nil, seed: UInt64,
        childCommand: [String], scratchDirectory: String, engineBugs: SeededBugSet = [],
        mutation: ProcessMutation? = nil, patienceSeconds: Double = 30
    ) {
        precondition(children >= 1 && children <= 16, "1 to 16 children")
        precondition(!childCommand.isEmpty, "a command to start children")
        self.children = children
        self.seconds = seconds
        self.commits = commits
        self.kills = kills
        self.seed = seed
        self.childCommand = childCommand
        self.scratchDirectory = scratchDirectory
        self.engineBugs = engineBugs
        self.mutation = mutation
        self.patienceSeconds = patienceSeconds
    }

    /// This executable, for a parent that is also the child (`/proc/self/exe`).
    public static func currentExecutable() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}

/// Counts of a process campaign.
public struct ProcessStatistics: Sendable, Hashable {
    /// Children killed by the kill plan, each followed by a verification (the children killed
    /// when the campaign ends are not counted).
    public var kills = 0
    public var acknowledgedCommits = 0
    /// Versions whose batch the parent replayed and found in the file.
    public var commitsChecked = 0
    /// Commits found in the file that no child acknowledged (a kill came after they were
    /// durable, before the child reported them).
    public var unacknowledgedCommits = 0
    public var verifies = 0
    public var respawns = 0
    /// Killed children found to pin nothing two versions after their death.
    public var deadReadersChecked = 0
    public var failures = 0
    /// Kills that came before the child opened its realm, before its first commit line.
    public var killsBeforeOpen = 0
    /// Engine probes by name: the parent's marks, and one per child process that hit it.
    public var probes: [String: Int] = [:]
}

/// What a process campaign did and found.
public struct ProcessReport: Sendable {
    public var settings: ProcessSettings
    public var plan: ProcessPlan
    public var statistics: ProcessStatistics
    public var seconds: Double
    public var failure: ProcessFailure?
    /// The parent's timeline (spawns, kills, verifications), newest last, bounded.
    public var timeline: [String]
    /// Each child incarnation's stdout lines and stderr, by `c<child>-<incarnation>`.
    public var childLogs: [(name: String, output: [String], error: String)]
    /// The campaign's file, left in place on a failure.
    public var path: String
}
