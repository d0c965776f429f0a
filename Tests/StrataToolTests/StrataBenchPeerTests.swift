import Testing

/// `strata-bench --peers`: what does not need LMDB or SQLite installed (the argument checks,
/// the failure when a library cannot be loaded, the help). The measuring runs are the
/// strata-bench leg of `.ci/run`, which installs both libraries.
@Suite("strata-bench --peers")
struct StrataBenchPeerTests {
    @Test func aLibraryThatCannotBeLoadedFailsTheRunNamingItAndThePackages() throws {
        let missing = "/nonexistent/liblmdb.so.0"
        let outcome = try StrataBenchProcess.run([
            "--peers", "--lmdb-library", missing, "--records", "10", "--commits", "1",
        ])
        #expect(outcome.exitCode == 1)
        #expect(outcome.standardOutput.isEmpty)
        #expect(outcome.standardError.contains("cannot load \(missing)"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("apt-get install liblmdb0 libsqlite3-0"))
        // It fails before measuring anything.
        #expect(!outcome.standardError.contains("bulk_insert:"), "\(outcome.standardError)")
    }

    @Test func peersWithOnlyEngineOnlyWorkloadsExitsTwo() throws {
        let outcome = try StrataBenchProcess.run(["--peers", "--only", "concurrent,file_size"])
        #expect(outcome.exitCode == 2)
        #expect(outcome.standardOutput.isEmpty)
        #expect(outcome.standardError.contains("--only selects none of them"), "\(outcome.standardError)")
    }

    @Test func libraryOptionsWithoutPeersExitTwo() throws {
        for option in ["--lmdb-library", "--sqlite-library"] {
            let outcome = try StrataBenchProcess.run([option, "/tmp/library.so", "--records", "10"])
            #expect(outcome.exitCode == 2, "\(option)")
            #expect(outcome.standardError.contains("need --peers"), "\(option): \(outcome.standardError)")
        }
    }

    @Test func helpDescribesWhatPeersMeasureAndWhatToInstall() throws {
        let help = try StrataBenchProcess.run(["--help"])
        #expect(help.exitCode == 0)
        for text in [
            "--peers", "--lmdb-library", "--sqlite-library", "dlopen", "MDB_INTEGERKEY", "mdb_txn_renew",
            "synchronous=FULL", "apt-get install liblmdb0 libsqlite3-0", "engine/lmdb",
        ] {
            #expect(help.standardOutput.contains(text), "help does not mention \(text)")
        }
    }
}
