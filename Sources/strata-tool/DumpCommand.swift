import StrataCommandLine
import StrataStorage

/// `strata-tool dump FILE [--table NAME] [--limit N]`: rows of the newest version, readable.
enum DumpCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "dump",
        summary: "Print the rows of FILE's newest version, table by table.",
        discussion: """
            Each table is introduced by 'table NAME (N rows)' and an indented \
            'columns: NAME, ...' line, then one indented line per object, in key order: \
            'KEY: NAME=VALUE, ...'. Column names come from the schema the Realm API \
            stores with a table; a table without one names its columns by position \
            (#0, #1, ...). Strings longer than \(OutputFormat.stringCharacterCountShown) \
            characters are cut (their length is shown); binary values show their size; \
            timestamps are @SECONDS.NANOSECONDS. A link shows its target's table and \
            primary key ('-> Person[id=5]'), or its object key when that table has no \
            primary key ('-> Dog[2]'); '(missing)' marks a link whose target is not there.
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

    /// Prints `table`'s header lines and up to `limit` rows (all when nil).
    private static func dump(_ table: TableInfo, of read: ReadTransaction, limit: Int?) throws {
        StandardStreams.writeLine(
            "table \(table.name) (\(TextFields.counted(table.rowCount, "row")))")
        let names = ColumnNames(table)
        if !names.names.isEmpty {
            StandardStreams.writeLine("  columns: " + names.names.indices.map { names[$0] }.joined(separator: ", "))
        }
        var printed = 0
        try read.forEachRow(table) { key, row in
            if let limit, printed >= limit { return false }
            let values = try row.values()
            let text = try OutputFormat.row(values, names: names) { link in try Self.link(link, in: read) }
            StandardStreams.writeLine("  \(key.rawValue): \(text)")
            printed += 1
            return true
        }
        if printed < table.rowCount {
            StandardStreams.writeLine(
                "  ... \(TextFields.counted(table.rowCount - printed, "more row"))")
        }
    }

    /// A link as `dump` prints it: `-> Dog[2]` (object key), `-> Person[id=5]` (the target
    /// table's primary key), `(missing)` after it when the target is not there, `-> table 7[2]`
    /// for a table id the catalog does not know.
    static func link(_ link: Link, in read: ReadTransaction) throws -> String {
        guard let target = read.table(id: link.table) else {
            return "-> table \(link.table.rawValue)[\(link.key.rawValue)] (missing)"
        }
        guard let row = try read.row(target, key: link.key) else {
            return "-> \(target.name)[\(link.key.rawValue)] (missing)"
        }
        switch target.primaryKey {
        case .none:
            return "-> \(target.name)[\(link.key.rawValue)]"
        case .int(let column), .string(let column):
            let key = column < row.count ? try OutputFormat.value(row[column]) : "null"
            return "-> \(target.name)[\(ColumnNames(target)[column])=\(key)]"
        }
    }
}
