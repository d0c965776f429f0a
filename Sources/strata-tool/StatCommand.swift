import StrataCommandLine
import StrataStorage

/// `strata-tool stat FILE [--json]`: versions, pages, free space, pins and tables.
enum StatCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "stat",
        summary: "Print versions, page usage, free space, pins and tables of FILE.",
        discussion: """
            Shows the newest version and the version in each commit slot, the page size, \
            pages in use, free pages reusable by the next commit and free pages still held \
            for pinned versions, the file size, every pinned version with its live and \
            frozen pin counts, the number of reader processes (processes pinning a \
            version), and the row count of every table.

            stat's own short read of the newest version is not counted: neither among the \
            pins nor among the reader processes.
            """,
        options: [.flag("json", help: "Print one JSON object instead of text.")],
        positionals: [.databaseFile],
        examples: ["strata-tool stat db.strata", "strata-tool stat db.strata --json"]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let store = try StoreAccess.openForReading(command.filePath)
        defer { store.close() }
        let statistics = try store.statistics()
        if command.flag("json") {
            StandardStreams.writeLine(json(statistics, path: command.filePath).render())
        } else {
            for line in text(statistics, path: command.filePath) {
                StandardStreams.writeLine(line)
            }
        }
        return ExitCode.ok
    }

    /// A commit slot's version, or "-" for an empty or invalid slot.
    private static func slotText(_ version: Version?) -> String {
        version.map { String($0.rawValue) } ?? "-"
    }

    static func text(_ statistics: StoreStatistics, path: String) -> [String] {
        let pages = statistics.pageCount
        var lines = TextFields.fields([
            ("file", path),
            ("page size", "\(statistics.pageSizeBytes) bytes"),
            ("newest version", String(statistics.newestVersion.rawValue)),
            ("commit slots", statistics.slotVersions.map(slotText).joined(separator: ", ")),
            ("file size", "\(statistics.fileByteCount) bytes"),
            ("pages", "\(pages) (header included)"),
            ("pages used", String(statistics.usedPageCount)),
            ("pages free", "\(statistics.reusablePageCount) reusable"),
            ("pages pinned-free", "\(statistics.pinnedFreePageCount) held for pinned versions"),
            ("reader processes", "\(statistics.readerProcessCount) (stat itself not counted)"),
        ])
        if let fallback = statistics.slotFallback { lines.append("note: " + fallback.description) }
        lines.append("pinned versions:")
        var pins = TextTable(
            header: ["version", "live pins", "frozen pins", "processes"],
            numericColumns: [0, 1, 2, 3])
        for pinned in statistics.pinnedVersions {
            pins.addRow([
                String(pinned.version.rawValue), String(pinned.livePins),
                String(pinned.frozenPins), String(pinned.processCount),
            ])
        }
        lines += pins.lines.map { "  " + $0 }
        lines.append("tables:")
        var tables = TextTable(header: ["name", "rows"], numericColumns: [1])
        for table in statistics.tables {
            tables.addRow([table.name, String(table.rowCount)])
        }
        lines += tables.lines.map { "  " + $0 }
        return lines
    }

    static func json(_ statistics: StoreStatistics, path: String) -> JSONLine {
        var line = JSONLine()
        line.add("file", path)
        line.add("pageSizeBytes", statistics.pageSizeBytes)
        line.add("newestVersion", statistics.newestVersion.rawValue)
        line.add("slotVersions", statistics.slotVersions.map { $0?.rawValue })
        line.add("fileByteCount", statistics.fileByteCount)
        line.add("pageCount", statistics.pageCount)
        line.add("usedPageCount", statistics.usedPageCount)
        line.add("reusablePageCount", statistics.reusablePageCount)
        line.add("pinnedFreePageCount", statistics.pinnedFreePageCount)
        line.add("readerProcessCount", statistics.readerProcessCount)
        if let fallback = statistics.slotFallback { line.add("slotFallback", OutputFormat.slotFallbackJSON(fallback)) }
        // Arrays of [version, live, frozen, processes]: JSONLine has no nested objects.
        line.add(
            "pinnedVersions",
            JSONValue.array(
                statistics.pinnedVersions.map { pinned -> JSONValue in
                    [
                        .uint64(pinned.version.rawValue), .int(pinned.livePins),
                        .int(pinned.frozenPins), .int(pinned.processCount),
                    ]
                }))
        line.add(
            "tables",
            OutputFormat.tablesJSON(statistics.tables))
        return line
    }
}
