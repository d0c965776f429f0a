import Foundation
import StrataCheck
import StrataCommandLine

/// `strata-fuzz bugs`: the seeded-bug catalog (`--list`) and the measure of the harness
/// against it (`--check`): each bug alone under the whole mix, caught or missed, how fast,
/// and how small its shrunk run is.
enum BugsCommand: FuzzCommand {
    static let spec = CommandSpec(
        name: "bugs",
        summary: "List the seeded-bug catalog, or check that the harness catches every bug.",
        discussion: """
            --list prints every deliberate bug the engine and the Realm API can switch on: its \
            name, layer and the Spec rules it breaks. --check runs, for each bug alone (or the \
            ones --only names), the 'run --mode mixed' campaign with that bug switched on, from \
            --seed, until the first failure or --seconds-per-bug, shrinks the failure, and prints \
            bug, caught or missed, seconds to catch (shrinking excluded), runs and the shrunk \
            size in operations. Exit 0 when every bug was caught, 1 when one was missed, 2 on a \
            usage error. Each bug is checked in a child process, which records the run in \
            flight (--flight-recorder), so a bug that makes the engine trap is not fatal to the \
            check: the trap counts as caught only when the recorded run's token replays it (and \
            replays clean without the bug); a child dead by a signal outside any run, or whose \
            run does not trap again, is a miss. Bugs only dead \
            processes show (marked in --list) run 'run --mode process' instead: caught when the ledger fails; such runs are not shrunk, and the \
            size column is empty. A release build is much faster: swift run -c release \
            strata-fuzz bugs --check.
            """,
        options: [
            .flag("list", help: "Print the catalog."),
            .flag("check", help: "Run the harness against each bug."),
            .value("seconds-per-bug", valueName: "N", help: "Give up on a bug after N seconds.", default: "30"),
            .value(
                "runs-per-bug", valueName: "N",
                help: "Give up on a bug after N runs instead (a count: the same on any machine).",
                default: "none"),
            .value("seed", valueName: "S", help: "The campaign seed of every bug's check.", default: "1"),
            .value("only", valueName: "NAMES", help: "Check only these bugs, comma-separated.", default: "all"),
            .value("shrink-seconds", valueName: "N", help: "Shrink each failure for at most N seconds.", default: "20"),
            .flag("json", help: "Print JSON objects, one a line, instead of text."),
            .flag(
                "in-process",
                help:
                    "Check in this process (by default each bug is checked in a child, so a bug that crashes the engine is caught, not fatal)."
            ),
            .value(
                "flight-recorder", valueName: "FILE",
                help: "Record each run in flight in FILE, so that a parent can replay a run that killed this process.",
                default: "none"),
        ],
        examples: [
            "strata-fuzz bugs --list",
            "strata-fuzz bugs --check",
            "strata-fuzz bugs --check --only skipThreadCheck,resolveTwice --seconds-per-bug 60 --json",
        ]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let list = command.flag("list")
        let check = command.flag("check")
        guard list != check else { throw command.usageError("give exactly one of --list and --check") }
        let json = command.flag("json")
        var bugs = SeededBugCatalog.all
        if let only = command.value("only"), only != "all" {
            let names = only.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            for name in names where SeededBugCatalog.named(name) == nil {
                throw command.usageError("no seeded bug named '\(name)' (see strata-fuzz bugs --list)")
            }
            bugs = bugs.filter { names.contains($0.name) }
        }
        if list {
            printCatalog(bugs, json: json)
            return ExitCode.ok
        }
        let seconds = try command.double("seconds-per-bug", default: 30)
        let shrinkSeconds = try command.double("shrink-seconds", default: 20)
        guard seconds > 0, shrinkSeconds > 0 else {
            throw command.usageError("--seconds-per-bug and --shrink-seconds must be more than 0")
        }
        let seed = try command.uint64("seed") ?? 1
        let runs = try command.int("runs-per-bug")
        if let runs, runs < 1 { throw command.usageError("--runs-per-bug must be at least 1 (got \(runs))") }
        if let path = command.value("flight-recorder") {
            do {
                FlightRecorder.install(try FlightRecorder(path: path))
            } catch {
                throw command.usageError("cannot make the flight recorder '\(path)': \(error)")
            }
        }
        var results: [SeededBugResult] = []
        for bug in bugs {
            let executable = ProcessSettings.currentExecutable()
            let result: SeededBugResult
            if let executable, !command.flag("in-process"), !bug.needsProcesses {
                result = SeededBugCatalog.checkInChild(
                    bug,
                    command: [
                        executable, "bugs", "--check", "--in-process", "--json", "--only", bug.name,
                        "--seconds-per-bug", String(seconds), "--shrink-seconds", String(shrinkSeconds), "--seed",
                        String(seed),
                    ] + (runs.map { ["--runs-per-bug", String($0)] } ?? []),
                    scratchDirectory: CheckSettings.defaultScratchDirectory)
            } else {
                result = SeededBugCatalog.check(
                    bug, seconds: seconds, runs: runs, seed: seed, shrinkSeconds: shrinkSeconds,
                    childCommand: executable.map { [$0, ChildWriterCommand.spec.name] })
            }
            results.append(result)
            printResult(result, json: json)
        }
        printSummary(results, json: json)
        return results.allSatisfy(\.caught) ? ExitCode.ok : ExitCode.failure
    }

    private static func printCatalog(_ bugs: [SeededBug], json: Bool) {
        if json {
            for bug in bugs {
                var line = JSONLine()
                line.add("event", "bug")
                line.add("name", bug.name)
                line.add("layer", bug.layer)
                line.add("rules", bug.rules.joined(separator: ","))
                line.add("summary", bug.summary)
                StandardStreams.writeLine(line.render())
            }
            return
        }
        var table = TextTable(header: ["bug", "layer", "rules", "what it does"])
        for bug in bugs {
            table.addRow([
                bug.name, bug.layer + (bug.needsProcesses ? " (processes)" : ""),
                bug.rules.joined(separator: ", "), bug.summary,
            ])
        }
        FuzzFormat.write(table.lines + ["\(bugs.count) seeded bugs"])
    }

    private static func printResult(_ result: SeededBugResult, json: Bool) {
        if json {
            var line = JSONLine()
            line.add("event", "bug")
            line.add("name", result.bug.name)
            line.add("caught", result.caught)
            line.add("secondsToCatch", result.secondsToCatch)
            line.add("runs", result.runs)
            line.add("shrinkableAfterSeconds", result.shrinkableAfterSeconds)
            line.add("shrunkOperations", result.shrunkOperations)
            line.add("foundOperations", result.foundOperations)
            line.add("shrinkRuns", result.shrinkRuns)
            line.add("shrinkSeconds", result.shrinkSeconds)
            line.add("failure", result.failure)
            line.add("token", result.token)
            StandardStreams.writeLine(line.render())
            return
        }
        let verdict =
            result.caught && result.shrunkOperations == nil
            ? "caught in \(String(format: "%.1f", result.secondsToCatch ?? 0)) s, not shrunk: \(result.failure ?? "")"
                + (result.token.map { "; replay: strata-fuzz replay \($0)" } ?? "")
            : result.caught
                ? "caught in \(String(format: "%.1f", result.secondsToCatch ?? 0)) s (\(TextFields.counted(result.runs, "run"))), "
                    + (result.shrinkableAfterSeconds.map { at in
                        at > (result.secondsToCatch ?? 0)
                            ? "first by a free run; in lockstep at \(String(format: "%.1f", at)) s, " : ""
                    } ?? "only by free runs (not shrinkable), ")
                    + "shrunk \(result.foundOperations ?? 0) -> \(result.shrunkOperations ?? 0) ops in \(result.shrinkRuns ?? 0) runs, "
                    + "\(String(format: "%.1f", result.shrinkSeconds ?? 0)) s: \(result.failure ?? "")"
                : "MISSED after \(TextFields.counted(result.runs, result.bug.needsProcesses ? "kill" : "run"))"
                    + (result.failure.map { ": \($0)" } ?? "")
                    + (result.token.map { "; replay: strata-fuzz replay \($0)" } ?? "")
        FuzzFormat.write(["\(result.bug.name): \(verdict)"])
    }

    private static func printSummary(_ results: [SeededBugResult], json: Bool) {
        let caught = results.filter(\.caught)
        let times = caught.compactMap(\.secondsToCatch).sorted()
        let median = times.isEmpty ? nil : times[times.count / 2]
        let sizes = caught.compactMap(\.shrunkOperations).sorted()
        let medianSize = sizes.isEmpty ? nil : sizes[sizes.count / 2]
        if json {
            var line = JSONLine()
            line.add("event", "summary")
            line.add("bugs", results.count)
            line.add("caught", caught.count)
            line.add("missed", results.filter { !$0.caught }.map(\.bug.name).joined(separator: ","))
            line.add("medianSecondsToCatch", median)
            line.add("slowestSecondsToCatch", times.last)
            line.add("medianShrunkOperations", medianSize)
            line.add("largestShrunkOperations", sizes.last)
            StandardStreams.writeLine(line.render())
            return
        }
        // "lockstep s": when the first shrinkable (lockstep) counterexample came, if a free run
        // caught the bug first; its size is the shrunk one.
        var table = TextTable(
            header: ["bug", "caught", "seconds", "lockstep s", "shrunk ops"], numericColumns: [2, 3, 4])
        for result in results {
            let lockstep =
                result.shrinkableAfterSeconds.map { at in
                    at > (result.secondsToCatch ?? 0) ? String(format: "%.1f", at) : "-"
                } ?? (result.shrunkOperations == nil || !result.caught ? "-" : "none")
            table.addRow([
                result.bug.name, result.caught ? "yes" : "MISSED",
                result.secondsToCatch.map { String(format: "%.1f", $0) } ?? "-", lockstep,
                result.shrunkOperations.map(String.init) ?? "-",
            ])
        }
        FuzzFormat.write(
            table.lines + [
                "caught \(caught.count) of \(results.count); median \(median.map { String(format: "%.1f", $0) } ?? "-") s to catch, "
                    + "slowest \(times.last.map { String(format: "%.1f", $0) } ?? "-") s; median shrunk size \(medianSize.map(String.init) ?? "-") ops, "
                    + "largest \(sizes.last.map(String.init) ?? "-")"
            ])
    }
}
