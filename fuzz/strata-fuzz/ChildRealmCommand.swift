import StrataCheck
import StrataCommandLine

/// `strata-fuzz child-realm`: the other process of the interprocess tests (Realm's InterprocessTests.m).
/// Hidden from `strata-fuzz --help`; tests start it.
enum ChildRealmCommand: FuzzCommand {
    static let spec = CommandSpec(
        name: "child-realm",
        summary: "The other process of an interprocess test (started by tests; not for users).",
        discussion: """
            Opens FILE through the Realm API with the harness's classes and does one ACTION: \
            'create' adds --count Items in one write and prints 'count N'; 'count' only opens \
            and reads, printing 'count N'; 'abandon-write' begins a write, adds an Item, prints \
            'in-write' and exits at once without committing or closing; 'alternate-in-memory' \
            opens the in-memory realm whose identifier is FILE and adds 1 to Item 0's even values \
            below --count (the parent adds 1 to odd ones), printing 'done N' at --count.
            """,
        options: [
            .value("file", valueName: "FILE", help: "The realm file."),
            .value("action", valueName: "ACTION", help: "create, count, abandon-write or alternate-in-memory."),
            .value("count", valueName: "N", help: "Items that 'create' adds.", default: "1"),
        ],
        examples: ["strata-fuzz child-realm --file /tmp/ipc.realm --action create --count 1"],
        isHidden: true
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        guard let path = command.value("file") else { throw command.usageError("--file is required") }
        guard let name = command.value("action") else { throw command.usageError("--action is required") }
        guard let action = InterprocessAction(rawValue: name) else {
            let names = InterprocessAction.allCases.map(\.rawValue).joined(separator: ", ")
            throw command.usageError("--action expects one of \(names) (got '\(name)')")
        }
        let count = try command.int("count", default: 1, range: 0...1_000_000)
        do {
            try ChildRealm.run(action, path: path, count: count, emit: ChildWriter.writeLine)
        } catch {
            StandardStreams.writeErrorLine("strata-fuzz child-realm: \(error)")
            return ExitCode.failure
        }
        return ExitCode.ok
    }
}
