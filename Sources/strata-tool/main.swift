// strata-tool: inspect, check and exercise Strata database files, in the manner of `mdb_stat`
// and the `sqlite3` dot-commands.
//
// Exit codes (shared by every subcommand, see `ToolFailure`):
//
// | code | meaning                                                                 |
// |-----:|-------------------------------------------------------------------------|
// |    0 | done; for `verify`, the file is clean                                   |
// |    1 | the file is damaged or not a Strata file (`StorageError.isCorruption`)  |
// |    2 | usage error: bad arguments, unknown subcommand, unknown table           |
// |    3 | I/O error: missing file, permission, no space, lock file problems       |
import StrataCommandLine

/// Every subcommand, in the order `strata-tool --help` lists them.
let toolCommands: [any ToolCommand.Type] = [
    StatCommand.self,
    VerifyCommand.self,
    DumpCommand.self,
    DigestCommand.self,
    WriterCommand.self,
]

let toolSpec = CommandSpec(
    name: "strata-tool",
    summary: "Inspect, check and exercise Strata database files.",
    discussion: """
        Exit codes: 0 success (for verify: the file is clean); 1 the file is damaged or is not \
        a Strata file; 2 usage error; 3 I/O error (missing file, permission, no space).
        """,
    subcommands: toolCommands.map { $0.spec },
    examples: [
        "strata-tool stat db.strata",
        "strata-tool verify db.strata --json",
        "strata-tool dump db.strata --table items --limit 10",
        "strata-tool writer db.strata --commits 100 --seed 7",
    ]
)

CommandLineTool.run(spec: toolSpec, subcommands: toolCommands, reporting: ToolFailure.reporting)
