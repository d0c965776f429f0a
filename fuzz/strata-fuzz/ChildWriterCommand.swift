import StrataCheck
import StrataCommandLine
import StrataStorage

/// `strata-fuzz child-writer`: the writer child of `run --mode process`, which the parent starts
/// from its own executable. Hidden from `strata-fuzz --help` (nobody types it), with its own
/// `--help` for whoever reads a process artifact.
enum ChildWriterCommand: FuzzCommand {
    static let spec = CommandSpec(
        name: "child-writer",
        summary: "A writer child of 'run --mode process' (started by the parent; not for users).",
        discussion: """
            Opens FILE through the Realm API and commits batches until it is killed. Each \
            batch is a pure function of --seed, --id and the child's sequence number, which it \
            reads from its counter object inside the write, so a respawned child goes on \
            where its predecessor's last commit left off. After each commit returns it prints \
            'commit <id> <seq> <version>' with one write(2), so every line the parent reads is \
            an acknowledged commit; it prints 'open <id> <pid> <version>' once the realm is \
            open. The plan options must be the parent's: it replays the same batches.
            """,
        options: options,
        examples: [
            "strata-fuzz child-writer --file /tmp/c.realm --seed 1 --id 0 --keys 40 "
                + "--changes-max 4 --commits 10"
        ],
        isHidden: true
    )

    private static let options: [OptionSpec] = [
        .value("file", valueName: "FILE", help: "The campaign's file (the parent made it)."),
        .value("seed", valueName: "S", help: "The campaign seed."),
        .value("id", valueName: "N", help: "This child's id (0 to 255)."),
        .value("keys", valueName: "N", help: "Item keys are 0..<N.", default: "64"),
        .value("changes-max", valueName: "N", help: "Changes per batch, at most.", default: "8"),
        .value(
            "delete-percent", valueName: "P", help: "Changes in a hundred that delete.",
            default: "10"),
        .value(
            "log", valueName: "N", help: "Commit records kept (a ring by version).",
            default: String(ProcessPlan.logCapacityDefault)),
        .value(
            "commits", valueName: "N", help: "Stop after N commits.", default: "until killed"),
        .value(
            "engine-bugs", valueName: "BITS", help: "Seeded bugs (SeededBugSet raw value).",
            default: "0"),
        .value(
            "mutation", valueName: "NAME",
            help: "A harness defect: acknowledgeBeforeCommit (reports before committing).",
            default: "none"),
    ]

    static func run(_ command: ParsedCommand) throws -> Int32 {
        guard let path = command.value("file") else {
            throw command.usageError("--file is required")
        }
        guard let seed = try command.uint64("seed") else {
            throw command.usageError("--seed is required")
        }
        guard let child = try command.int("id", range: 0...255) else {
            throw command.usageError("--id is required")
        }
        let plan = ProcessPlan(
            keyCount: try command.int("keys", default: 64, range: 1...1_000_000),
            changesMax: try command.int("changes-max", default: 8, range: 1...10_000),
            deletePercent: try command.int("delete-percent", default: 10, range: 0...100),
            logCapacity: try command.int(
                "log", default: ProcessPlan.logCapacityDefault, range: 16...1_000_000))
        var mutation: ProcessMutation?
        if let name = command.value("mutation") {
            guard let named = ProcessMutation(rawValue: name) else {
                throw command.usageError(
                    "--mutation expects acknowledgeBeforeCommit (got '\(name)')")
            }
            mutation = named
        }
        let settings = ProcessChildSettings(
            path: path, seed: seed, child: child, plan: plan,
            engineBugs: SeededBugSet(rawValue: try command.uint64("engine-bugs", default: 0)),
            mutation: mutation, commitsMax: try command.int("commits", range: 1...))
        do {
            try ChildWriter.run(settings, emit: ChildWriter.writeLine)
        } catch {
            StandardStreams.writeErrorLine("strata-fuzz child-writer \(child): \(error)")
            return ExitCode.failure
        }
        return ExitCode.ok
    }
}
