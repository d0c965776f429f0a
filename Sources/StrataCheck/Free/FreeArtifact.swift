import Foundation
import StrataStorage

// How a free run's outcome leaves the run: as a `RunResult` for campaigns and `replay`, and as
// an artifact directory for a failure. A free failure cannot be replayed bit for bit (the
// interleaving was the OS's), so its artifact carries the evidence itself: the failure, the
// events at fault with the commits around them, and every thread's whole log.

extension FreeResult {
    /// The failure in the terms campaigns report: version-stamp rules as `.versions`, wrong
    /// contents and engine errors as `.divergence`, hung threads as `.deadlock`.
    public var checkFailure: CheckFailure? {
        guard let failure else { return nil }
        let kind: CheckFailure.Kind
        switch failure.kind {
        case .lostUpdate, .commitVersion, .unknownVersion, .frozen, .realTime, .wentBack:
            kind = .versions
        case .engineError, .isolation, .finalState, .verify: kind = .divergence
        case .hung: kind = .deadlock
        }
        return CheckFailure(
            kind: kind, message: "free \(failure.kind.rawValue): \(failure.message)",
            operationIndex: 0)
    }

    /// The run as a campaign counts runs. It has no trace (no operation ran under the model)
    /// and no scheduler (the OS scheduled it); its digest is of the choices, so that equal
    /// campaigns still print equal digests.
    public var runResult: RunResult {
        var counts = CheckStatistics()
        counts.operations = statistics.operations
        counts.commits = statistics.commits
        counts.versions = statistics.versions
        var hash = StableHash()
        for choice in choices { hash.combine(UInt64(choice)) }
        return RunResult(
            failure: checkFailure, statistics: counts, trace: [], choices: choices,
            digest: hash.finalize(),
            swarm: "free: \(plan)", scheduler: .random(switchPercent: 0))
    }
}

/// The artifact of a failed free run.
public enum FreeArtifact {
    /// What every free artifact says about replaying it.
    public static let replayNote =
        "free mode cannot replay an interleaving: the token re-runs the same plan and "
        + "thread programs, which may pass; the evidence is in failure.txt and events.txt"

    /// Writes the artifact of `result` under `directory` and returns its path: `token.txt`
    /// (re-runs the programs), `failure.txt` (the failure and the events around it) and
    /// `events.txt` (every thread's log).
    @discardableResult
    public static func write(_ result: FreeResult, seed: UInt64?, into directory: String) throws
        -> String
    {
        let token = ReplayToken.encode(
            settings: result.settings.checkSettings, choices: result.choices)
        var hash = StableHash()
        hash.combine(Array((token + (result.failure?.description ?? "")).utf8))
        let folder = try ArtifactDirectory(
            "failure-free-\(String(hash.finalize(), radix: 16))", under: directory)
        try folder.put(Artifact.tokenFile, token + "\n")
        try folder.put("failure.txt", failureText(result, seed: seed))
        try folder.put("events.txt", eventsText(result.log))
        return folder.path
    }

    /// The failure, the settings, the seed, and the excerpt of the log that shows it.
    public static func failureText(_ result: FreeResult, seed: UInt64?) -> String {
        let settings = result.settings
        var lines = ["failure: \(result.failure?.description ?? "none")"]
        lines.append(
            "settings: mode free, store \(settings.store.rawValue), threads \(settings.threads), "
                + "\(settings.operationsPerThread) operations per thread")
        if let seed { lines.append("seed: \(seed)") }
        lines.append("plan: \(result.plan)")
        lines.append("note: \(replayNote)")
        lines.append("excerpt:")
        lines += (result.failure?.excerpt ?? []).map { "  " + $0 }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every event, thread by thread in program order, between the initial and final reads.
    public static func eventsText(_ log: FreeLog) -> String {
        func text(_ objects: [FreeObject]) -> String {
            objects.map(\.description).joined(separator: " ")
        }
        var lines = ["initial: v\(log.initialVersion) {\(text(log.initialObjects))}"]
        let ordered = log.events.sorted { ($0.thread, $0.index) < ($1.thread, $1.index) }
        lines += ordered.map(\.description)
        if let version = log.finalVersion {
            lines.append("final: v\(version) {\(text(log.finalObjects ?? []))}")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
