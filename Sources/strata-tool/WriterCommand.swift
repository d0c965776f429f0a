import StrataCommandLine
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `strata-tool writer FILE --commits N --seed S ...`: the deterministic writer the process
/// tests run as a child, and kill.
///
/// Output protocol (stdout, one line each, flushed at once because the reader is a parent on
/// the other end of a pipe that may SIGKILL this process at any moment):
///
///     prepared <newVersion> <digest>    changes made, commit not yet called (lock held)
///     committed <version> <digest>      commit returned: durable and published
///
/// `<digest>` is `WriteTransaction.contentDigest()` in 16 hex digits, so a later reader of
/// that version must compute the same value. A `prepared` line without its `committed` line
/// means the outcome is unknown: the version may or may not be durable.
enum WriterCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "writer",
        summary: "Make N deterministic commits to FILE, printing each version and digest.",
        discussion: """
            Each commit is a random mix of inserts, updates and deletes (one operation to \
            hundreds) on table 'items' (integer primary key; strings and binaries of varied \
            size, some over a page) and table 'blobs' (no primary key; binaries up to three \
            pages), creating the tables when missing. The random stream of a commit is \
            seeded by SEED xor the version the commit starts from, so a run restarted after \
            a crash continues deterministically from whatever version is durable, and two \
            runs with one seed on fresh files make identical commits.

            Before each commit it prints 'prepared <version> <digest>', then, once commit \
            returns, 'committed <version> <digest>' (digest: 16 hex digits, as 'strata-tool \
            digest' prints). Both lines are flushed at once.
            """,
        options: [
            .value("commits", valueName: "N", help: "How many commits to make (required)."),
            .value(
                "seed", valueName: "S",
                help: "Seed of the workload, decimal or 0x-hex (required)."),
            .value(
                "rows-max", valueName: "R", help: "Keep at most R rows in 'items'.",
                default: "2000"),
            .value(
                "pause-before-commit-ms", valueName: "MS",
                help: "Sleep MS milliseconds after printing 'prepared', holding the write lock."),
            .flag(
                "hold-read-pin",
                help: "Pin the base version with a read transaction during each write "
                    + "(leaves a reader slot behind when the process is killed)."),
        ],
        positionals: [.databaseFile],
        examples: [
            "strata-tool writer db.strata --commits 100 --seed 7",
            "strata-tool writer db.strata --commits 1 --seed 7 --pause-before-commit-ms 1500",
        ]
    )

    /// The validated options.
    struct Settings {
        let commitCount: Int
        let seed: UInt64
        let itemCountMax: Int
        let pauseBeforeCommit: Duration?
        let holdsReadPin: Bool

        init(_ command: ParsedCommand) throws(UsageError) {
            guard let commitCount = try command.int("commits", range: 0...) else {
                throw command.usageError("missing required option --commits N")
            }
            guard let seed = try command.uint64("seed") else {
                throw command.usageError("missing required option --seed S")
            }
            self.commitCount = commitCount
            self.seed = seed
            itemCountMax = try command.int("rows-max", default: 2000, range: 1...10_000_000)
            pauseBeforeCommit = try command.int("pause-before-commit-ms", range: 0...3_600_000)
                .map { Duration.milliseconds($0) }
            holdsReadPin = command.flag("hold-read-pin")
        }
    }

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let settings = try Settings(command)
        let store = try StoreAccess.openForWriting(command.filePath)
        defer { store.close() }
        let workload = WriterWorkload(
            itemCountMax: settings.itemCountMax, pageSizeBytes: store.pageSizeBytes)
        for _ in 0..<settings.commitCount {
            try commitOnce(store, workload: workload, settings: settings)
        }
        return ExitCode.ok
    }

    /// One write transaction: apply the workload, print `prepared`, pause, commit, print
    /// `committed`.
    private static func commitOnce(
        _ store: Store,
        workload: WriterWorkload,
        settings: Settings
    ) throws {
        let write = try store.beginWrite()
        defer { write.rollback() }  // no-op after commit
        // Taken under the write lock, so it pins exactly the base version.
        let pin = settings.holdsReadPin ? try store.beginRead(.frozen) : nil
        defer { pin?.end() }
        if let pin {
            precondition(pin.version == write.baseVersion, "a write starts at the newest version")
        }
        try workload.apply(to: write, seed: settings.seed)
        let digest = OutputFormat.digest(try write.contentDigest())
        StandardStreams.writeLine("prepared \(write.newVersion.rawValue) \(digest)")
        if let pause = settings.pauseBeforeCommit {
            sleep(for: pause)
        }
        let version = try write.commit()
        StandardStreams.writeLine("committed \(version.rawValue) \(digest)")
    }

    /// Sleeps for `duration`, resuming after signals (the tool runs no event loop to yield to).
    static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        // Each interrupted call resumes with what remains, so the loop ends.
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }
}
