import Foundation

/// What a failure leaves behind (Docs/architecture.md §5 "Reports"): a directory with the token, the
/// failure, the per-thread timeline and a ready-to-paste Swift test (`ScriptRenderer`).
public enum Artifact {
    public static let tokenFile = "token.txt"

    /// Writes the artifact of `result` (a failing, usually shrunk run) under `directory`.
    /// Returns the artifact's directory.
    @discardableResult
    public static func write(_ result: RunResult, settings: CheckSettings, seed: UInt64?, into directory: String) throws
        -> String
    {
        let token = ReplayToken.encode(settings: settings, choices: result.choices)
        let name = "failure-\(String(result.digest, radix: 16))"
        let folder = try ArtifactDirectory(name, under: directory)
        try folder.put(tokenFile, token + "\n")
        var summary = "failure: \(result.failure?.description ?? "none")\n"
        summary +=
            "settings: mode \(settings.mode.rawValue), store \(settings.store.rawValue), threads \(settings.threads), operations \(settings.operations)\n"
        if let seed { summary += "seed: \(seed)\n" }
        summary += "scheduler: \(result.scheduler)\nswarm: \(result.swarm)\n"
        summary += "operations run: \(result.trace.count), choices: \(result.choices.count)\n"
        try folder.put("failure.txt", summary)
        try folder.put("choices.txt", result.choices.map(String.init).joined(separator: " ") + "\n")
        try folder.put("timeline.txt", timeline(result, threads: settings.threads))
        try folder.put("ReplayTest.swift", swiftTest(result, settings: settings, token: token))
        return folder.path
    }

    /// One column per thread, one row per operation: what the model expected, what the engine
    /// did, the engine version the realm read; the first divergence is marked.
    public static func timeline(_ result: RunResult, threads: Int) -> String {
        var lines: [String] = []
        lines.append(
            "#    " + (0..<threads).map { "c\($0 + 1)".padding(toLength: 44, withPad: " ", startingAt: 0) }.joined())
        for entry in result.trace {
            var cell = StepText.describe(entry.step.operation)
            if let version = entry.engineVersion { cell += " @v\(version)" }
            let row = (0..<threads).map { thread in
                (thread == entry.thread ? cell : "").padding(toLength: 44, withPad: " ", startingAt: 0)
            }.joined()
            lines.append(String(entry.index).padding(toLength: 5, withPad: " ", startingAt: 0) + row)
            if entry.expected.accepts(entry.observed) == false {
                lines.append("     ^ FIRST DIVERGENCE: model \(entry.expected) | engine \(entry.observed)")
            } else {
                lines.append("       = \(entry.observed)")
            }
            if let note = entry.note { lines.append("       note: \(note)") }
        }
        if let failure = result.failure { lines.append("failure: \(failure)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The Swift Testing suite of the run (`ScriptRenderer`): the shrunk script as Realm API
    /// calls, and the replay of its token.
    public static func swiftTest(_ result: RunResult, settings: CheckSettings, token: String) -> String {
        ScriptRenderer.render(result, settings: settings, token: token)
    }
}
