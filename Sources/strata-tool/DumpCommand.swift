import StrataCommandLine
import StrataStorage

/// `strata-tool dump FILE [--table NAME] [--limit N]`: rows of the newest version, readable.
enum DumpCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "dump",
        summary: "Print the rows of FILE's newest version, table by table.",
        discussion: """
            Each table is introduced by 'table NAME (N rows)' and followed by one line per \
            object: '  KEY: [VALUES]', in key order. Strings longer than \
            \(OutputFormat.stringCharacterCountShown) characters are cut (their length is \
            shown); binary values show their size.
            """,
        options: [
            .value("table", valueName: "NAME", help: "Dump only this table."),
            .value("limit", valueName: "N", help: "Print at most N rows of each table."),
        ],
        positionals: [.databaseFile],
        examples: [
            "strata-tool dump db.strata",
            "strata-tool dump db.strata --table items --limit 20",
        ]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let limit = try command.int("limit", range: 0...)
        let store = try StoreAccess.openForReading(command.filePath)
        defer { store.close() }
        let read = try store.beginRead(.frozen)
        defer { read.end() }
        var tables = read.tables()
        if let name = command.value("table") {
            guard let table = read.table(named: name) else {
                let names = tables.map(\.name).joined(separator: ", ")
                throw command.usageError(
                    "no table named '\(name)' in \(command.filePath) (tables: "
                        + (names.isEmpty ? "none" : names) + ")")
            }
            tables = [table]
        }
        for table in tables {
            try dump(table, of: read, limit: limit)
        }
        return ExitCode.ok
    }

    /// Prints `table`'s header line and up to `limit` rows (all when nil).
    private static func dump(_ table: TableInfo, of read: ReadTransaction, limit: Int?) throws {
        StandardStreams.writeLine(
            "table \(table.name) (\(TextFields.counted(table.rowCount, "row")))")
        var printed = 0
        try read.forEachRow(table) { key, row in
            if let limit, printed >= limit { return false }
            StandardStreams.writeLine("  \(key.rawValue): \(OutputFormat.row(try row.values()))")
            printed += 1
            return true
        }
        if printed < table.rowCount {
            StandardStreams.writeLine(
                "  ... \(TextFields.counted(table.rowCount - printed, "more row"))")
        }
    }
}
