import StrataCommandLine
import StrataStorage

/// `strata-tool verify FILE [--json]`: `Store.verify()` as a command; exit 1 on any damage.
enum VerifyCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "verify",
        summary: "Check every page, checksum, tree and free-space rule of FILE.",
        discussion: """
            Walks every page reachable from the newest version and from every version a \
            reader pins: checksums, page numbers and types, key order, leaf depth, row \
            counts, primary-key indexes, and that no page is both reachable and free and \
            none leaks. Opens FILE read-only where possible.

            Exits 0 when the file is clean and 1 when anything is damaged, listing each \
            problem; a file that cannot even be opened because it is damaged or is not a \
            Strata file also exits 1, with the error as the only problem. A missing file \
            exits 3.

            A file whose newest commit slot is damaged opens at the version in the other \
            slot, and the commits after it are gone (acknowledged ones too, unless a crash \
            tore the slot while it was written). verify then prints a note naming the \
            damaged slot, the version recovered and the version lost, and exits 1 even \
            when every page is sound; with --allow-fallback such a file exits 0 (the note \
            is still printed). The next commit overwrites the damaged slot. With --json \
            such a file has "clean": false, "pagesClean": true and "slotFallback": \
            [damaged slot, version it names, version recovered].
            """,
        options: [
            .flag("json", help: "Print one JSON object instead of text."),
            .flag("allow-fallback", help: "Exit 0 for a file that fell back to its older commit slot."),
            StoreAccess.assumeImmutableOption,
        ],
        positionals: [.databaseFile],
        examples: [
            "strata-tool verify db.strata", "strata-tool verify db.strata --json",
            "strata-tool verify db.strata --allow-fallback",
        ]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let path = command.filePath
        let json = command.flag("json")
        let report: VerificationReport
        switch verifyFile(path, assumeImmutable: command.flag("assume-immutable")) {
        case .success(let verified):
            report = verified
        case .failure(let error) where error.isCorruption:
            // Damage found before the walk could start: report it like any other problem.
            let output =
                json ? [corruptJSON(error, path: path).render()] : corruptText(error, path: path)
            for line in output { StandardStreams.writeLine(line) }
            return ExitCode.failure
        case .failure(let error):
            throw error
        }
        let output = json ? [self.json(report, path: path).render()] : text(report, path: path)
        for line in output { StandardStreams.writeLine(line) }
        guard report.isClean else { return ExitCode.failure }
        // Spec D15: a fallback to the older slot fails unless the caller accepts it.
        return report.slotFallback == nil || command.flag("allow-fallback") ? ExitCode.ok : ExitCode.failure
    }

    /// Opens `path` read-only where possible and verifies it.
    private static func verifyFile(_ path: String, assumeImmutable: Bool) -> Result<VerificationReport, StorageError> {
        let store: Store
        do {
            store = try StoreAccess.openForReading(path, assumeImmutable: assumeImmutable)
        } catch {
            return .failure(error)
        }
        defer { store.close() }
        do {
            return .success(try store.verify())
        } catch {
            return .failure(error)
        }
    }

    /// Problems that are damage, and notes (versions the check could not reach).
    private static func split(_ report: VerificationReport) -> (damage: [String], notes: [String]) {
        let damage = report.problems.filter(\.isDamage).map(\.description)
        let notes = report.problems.filter { !$0.isDamage }.map(\.description)
        return (damage, notes)
    }

    static func text(_ report: VerificationReport, path: String) -> [String] {
        let (damage, notes) = split(report)
        let verdict =
            !damage.isEmpty
            ? TextFields.counted(damage.count, "problem")
            : report.slotFallback == nil ? "clean" : "pages clean, but the newest commit slot is damaged"
        var lines = ["\(path): \(verdict)"]
        // A count, then which versions (the newest and every pinned one).
        let versions =
            "\(report.versionsChecked.count) ("
            + report.versionsChecked.map { "v\($0.rawValue)" }.joined(separator: ", ") + ")"
        let tables = report.tables.map { "\($0.name) (\($0.rowCount) rows)" }
        lines += TextFields.fields([
            ("newest version", String(report.newestVersion.rawValue)),
            ("versions checked", versions),
            ("pages", String(report.pageCount)),
            ("pages reachable", String(report.reachablePageCount)),
            ("pages free", "\(report.freePageCount) (\(report.pendingFreePageCount) pending)"),
            ("tables", tables.isEmpty ? "none" : tables.joined(separator: ", ")),
        ])
        lines += damage.map { "problem: " + $0 }
        lines += notes.map { "note: " + $0 }
        if let fallback = report.slotFallback { lines.append("note: " + fallback.description) }
        return lines
    }

    static func json(_ report: VerificationReport, path: String) -> JSONLine {
        let (damage, notes) = split(report)
        var line = JSONLine()
        line.add("file", path)
        // Clean as the text says it: sound pages and no fallback (Spec D15); `pagesClean`
        // leaves the fallback out.
        line.add("clean", damage.isEmpty && report.slotFallback == nil)
        line.add("pagesClean", damage.isEmpty)
        line.add("problemCount", damage.count)
        line.add("problems", damage)
        line.add("notes", notes + (report.slotFallback.map { [$0.description] } ?? []))
        if let fallback = report.slotFallback { line.add("slotFallback", OutputFormat.slotFallbackJSON(fallback)) }
        line.add("versionCount", report.versionsChecked.count)
        line.add("newestVersion", report.newestVersion.rawValue)
        line.add("versionsChecked", report.versionsChecked.map(\.rawValue))
        line.add("pageCount", report.pageCount)
        line.add("reachablePageCount", report.reachablePageCount)
        line.add("freePageCount", report.freePageCount)
        line.add("pendingFreePageCount", report.pendingFreePageCount)
        line.add(
            "tables",
            OutputFormat.tablesJSON(report.tables))
        return line
    }

    static func corruptText(_ error: StorageError, path: String) -> [String] {
        ["\(path): 1 problem", "problem: cannot open: \(error)"]
    }

    static func corruptJSON(_ error: StorageError, path: String) -> JSONLine {
        JSONLine([
            "file": .string(path),
            "clean": false,
            "problemCount": 1,
            "problems": [.string("cannot open: \(error)")],
            "notes": [],
        ])
    }
}
