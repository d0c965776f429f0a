// strata-fuzz: the harness's long-run driver. `run` checks the engine against the model run
// after run under a time or operation budget and leaves a replayable artifact for the first
// failure; `replay` and `shrink` take such an artifact (or its one-line token) back.
//
// Exit codes (shared by every subcommand):
//
// | code | meaning                                                                      |
// |-----:|------------------------------------------------------------------------------|
// |    0 | no failure: a clean campaign, or a replayed run that passes now              |
// |    1 | a failure: found by `run`, still failing on `replay`, reproduced by `shrink` |
// |    2 | usage error: bad arguments, unknown command, malformed token, no artifact    |
// |    3 | a run could not start, or an artifact could not be written or read           |
import StrataCommandLine

/// Every subcommand, in the order `strata-fuzz --help` lists them (`child-writer` and
/// `child-realm` are hidden: process mode and tests start them, nobody types them).
let fuzzCommands: [any FuzzCommand.Type] = [
    RunCommand.self,
    ReplayCommand.self,
    ShrinkCommand.self,
    ExploreCommand.self,
    BugsCommand.self,
    DamageCommand.self,
    ChildWriterCommand.self,
    ChildDamageCommand.self,
    ChildRealmCommand.self,
]

let fuzzSpec = CommandSpec(
    name: "strata-fuzz",
    summary: "Check the Strata engine against its reference model: campaigns, replay, shrink.",
    discussion: """
        Exit codes: 0 no failure (a clean campaign, or a replayed run that passes now); 1 a \
        failure was found, still fails, or reproduces; 2 usage error (including a malformed \
        replay token or a missing artifact directory); 3 a run could not start or an \
        artifact could not be written or read.
        """,
    subcommands: fuzzCommands.map { $0.spec },
    examples: [
        "strata-fuzz run --seconds 600",
        "strata-fuzz run --ops 300 --seed 5 --mode controlled --store sim",
        "strata-fuzz replay fuzz/artifacts/failure-1f2e3d4c5b6a7980",
        "strata-fuzz shrink fuzz/artifacts/failure-1f2e3d4c5b6a7980 --seconds 300",
        "strata-fuzz explore --seeds 20 --ops 8",
        "strata-fuzz bugs --check",
        "strata-fuzz damage --generate --variants 10000",
    ]
)

CommandLineTool.run(spec: fuzzSpec, subcommands: fuzzCommands, reporting: FuzzFailure.reporting)
