import StrataCommandLine
import StrataStorage

/// `strata-tool digest FILE`: `<version> <digest>` of the newest version, as `writer` prints.
enum DigestCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "digest",
        summary: "Print the newest version of FILE and the digest of its contents.",
        discussion: """
            Prints one line, '<version> <digest>': the version in decimal and the content \
            digest as 16 hex digits, the same form 'strata-tool writer' prints for each \
            commit. The digest depends only on the tables and rows, not on page layout.

            The version is the newest one published to readers. If a writer process died \
            after its commit became durable but before publishing it, a commit slot holds a \
            newer version than readers see until the next writer adopts it; digest then \
            says so on stderr.
            """,
        options: [StoreAccess.assumeImmutableOption],
        positionals: [.databaseFile],
        examples: ["strata-tool digest db.strata"]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let store = try StoreAccess.openForReading(command.filePath, assumeImmutable: command.flag("assume-immutable"))
        defer { store.close() }
        let read = try store.beginRead(.frozen)
        defer { read.end() }
        let digest = try read.contentDigest()
        StandardStreams.writeLine("\(read.version.rawValue) \(OutputFormat.digest(digest))")
        let durable = try store.statistics().slotVersions.compactMap { $0 }.max()
        if let durable, durable > read.version {
            StandardStreams.writeErrorLine(
                "strata-tool digest: note: a commit slot holds version \(durable.rawValue), "
                    + "durable but not yet published; printed version \(read.version.rawValue)")
        }
        return ExitCode.ok
    }
}
