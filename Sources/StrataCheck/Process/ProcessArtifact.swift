import Foundation
import StrataStorage

/// The artifact of a failed process campaign. The OS chose the interleaving, so there is no
/// token to replay it: the artifact is the evidence. `failure.txt` (the failure, the seed, the
/// plan and the command that re-runs the same plan), `timeline.txt` (the parent's spawns, kills
/// and verifications), `children/c<id>-<n>.out` and `.err` (what each child incarnation wrote),
/// and the file itself (`campaign.realm`) as it was when the check failed.
public enum ProcessArtifact {
    public static let replayNote =
        "a process campaign cannot replay its interleaving: the same --seed re-runs the same "
        + "plan and kill plan, whose kills land elsewhere; the evidence is in this directory"

    /// The label of `failure.txt`'s line with the command that re-runs the plan (`replay`
    /// reads it back).
    public static let rerunLabel = "rerun the plan"

    /// The command that re-runs the campaign of `settings`: every option that shapes it (seed,
    /// writer processes, budget, kill limit, defect), so the same plan and kill plan run again.
    public static func rerunCommand(_ settings: ProcessSettings) -> [String] {
        var words = [
            "strata-fuzz", "run", "--mode", "process", "--seed", String(settings.seed),
            "--threads", String(settings.children),
        ]
        if let commits = settings.commits {
            words += ["--ops", String(commits)]
        } else if let seconds = settings.seconds {
            words += [
                "--seconds",
                seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds),
            ]
        }
        if let kills = settings.kills { words += ["--kills", String(kills)] }
        if let bug = SeededBugCatalog.all.first(where: { !$0.bug.isEmpty && settings.engineBugs.isSuperset(of: $0.bug) }
        ) {
            words += ["--defect", bug.name]
        }
        if let mutation = settings.mutation { words += ["--defect", mutation.rawValue] }
        return words
    }

    /// Writes the artifact of `report` under `directory`; returns its path.
    @discardableResult
    public static func write(_ report: ProcessReport, into directory: String) throws -> String {
        var hash = StableHash()
        hash.combine(Array("\(report.settings.seed) \(report.failure?.description ?? "")".utf8))
        let folder = try ArtifactDirectory(
            "failure-process-\(String(hash.finalize(), radix: 16))", under: directory)
        let children = try folder.subdirectory("children")
        try folder.put("failure.txt", failureText(report))
        try folder.put("timeline.txt", report.timeline.joined(separator: "\n") + "\n")
        for log in report.childLogs {
            let output = log.output.joined(separator: "\n") + "\n"
            try children.put("\(log.name).out", output)
            try children.put("\(log.name).err", log.error)
        }
        let copy = (folder.path as NSString).appendingPathComponent("campaign.realm")
        try? FileManager.default.removeItem(atPath: copy)
        try? FileManager.default.copyItem(atPath: report.path, toPath: copy)
        return folder.path
    }

    /// The failure, settings, seed, plan, counts and the command that re-runs the plan.
    public static func failureText(_ report: ProcessReport) -> String {
        let settings = report.settings
        let counts = report.statistics
        var lines = ["failure: \(report.failure?.description ?? "none")"]
        lines.append("seed: \(settings.seed)")
        lines.append("children: \(settings.children)")
        lines.append("plan: \(report.plan)")
        if !settings.engineBugs.isEmpty {
            lines.append("engine bugs: SeededBugSet(rawValue: \(settings.engineBugs.rawValue))")
        }
        if let mutation = settings.mutation { lines.append("mutation: \(mutation.rawValue)") }
        lines.append(
            "after: \(counts.kills) kills, \(counts.acknowledgedCommits) acknowledged commits, "
                + "\(counts.verifies) verifications, \(String(format: "%.1f", report.seconds)) s")
        lines.append("\(rerunLabel): \(rerunCommand(settings).joined(separator: " "))")
        lines.append("note: \(replayNote)")
        lines.append("file: \(report.path) (copied here as campaign.realm)")
        return lines.joined(separator: "\n") + "\n"
    }
}
