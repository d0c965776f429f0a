import Foundation
import StrataCheck
import StrataCommandLine
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `strata-fuzz damage FILE | --generate`: damaged variants of a database, each run through the
/// tools' code paths and the Realm API in supervised children; crashes, hangs and undetected
/// damage fail the campaign (Docs/testing.md "Damage campaign").
enum DamageCommand: FuzzCommand {
    static let variantsDefault = 1000
    static let batchDefault = 400
    static let stallPollsDefault = 600
    static let outDefault = "fuzz/artifacts"

    static let spec = CommandSpec(
        name: "damage",
        summary: "Damage a database in many ways; every variant must be detected or harmless.",
        discussion: """
            The original is FILE, or with --generate a file written through the Realm API \
            (the harness's classes, several commits, whose older images give stale pages). \
            Variant I of seed S is the same on every machine: classes take turns (bit-flip, \
            byte-run, truncation, extension, swapped-pages, duplicated-page, stale-page, slot, \
            header, special: a FIFO, a directory, a symlink loop, an empty file, a link to \
            /dev/zero, a file of zeros). Each variant goes through what 'strata-tool verify', \
            'stat', 'digest' and 'dump' call (read-only open, verify, statistics, the content \
            digest, every row) and through the Realm API (open, read every object, write one).

            Outcomes: detected (a typed error or a verify finding), harmless (every path read \
            the original's data), fallback (the newest commit slot was damaged and every path \
            read the older slot's version, intact), trapped (the API stopped at a trap whose \
            message says the file is corrupt), and the failures: undetected (a path read data \
            that differs from the original without an error), crash, hang. Variants run in \
            child processes, --batch at a time; a child that dies loses only its variant, and \
            one that writes nothing for --stall-polls polls of 100 ms is killed as hung. Each \
            failing variant is written under --out with the command that reproduces it. Exit \
            1 when any variant failed.
            """,
        options: [
            .flag("generate", help: "Generate the original through the Realm API instead of reading FILE."),
            .value(
                "prepared", valueName: "DIR", help: "Reuse a prepared original (an artifact's 'prepared' directory)."),
            .value("variants", valueName: "N", help: "How many variants.", default: String(variantsDefault)),
            .value("seed", valueName: "S", help: "The campaign seed.", default: "random"),
            .value("first", valueName: "I", help: "Start at variant I.", default: "0"),
            .value(
                "classes", valueName: "LIST",
                help: "Damage classes, comma-separated: "
                    + DamageClass.allCases.map(\.rawValue).joined(separator: ", ") + ".",
                default: "all"),
            .flag("no-stale", help: "Leave out stale-page variants (lost writes)."),
            .flag("no-api", help: "Check the tools' code paths only, not the Realm API."),
            .value("batch", valueName: "N", help: "Variants per child process.", default: String(batchDefault)),
            .value("jobs", valueName: "N", help: "Child processes at once.", default: "2"),
            .value(
                "stall-polls", valueName: "K", help: "Polls of 100 ms without output before a child is hung.",
                default: String(stallPollsDefault)),
            .value("out", valueName: "DIR", help: "Where failing variants go.", default: outDefault),
            .value(
                "plant", valueName: "KIND:I",
                help: "To test the campaign itself: the child checking variant I crashes (crash:I, SIGSEGV) "
                    + "or hangs (hang:I); it must be counted and the campaign go on."),
        ],
        positionals: [.optional("FILE", help: "The database to damage (a copy is damaged, never FILE).")],
        examples: [
            "strata-fuzz damage --generate --variants 10000",
            "strata-fuzz damage db.strata --variants 2000 --seed 7 --no-api",
            "strata-fuzz damage --generate --classes stale-page --variants 500",
        ]
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        let file = command.positional("FILE")
        let prepared = command.value("prepared")
        let sources = [file != nil, command.flag("generate"), prepared != nil].filter { $0 }.count
        guard sources == 1 else { throw command.usageError("give exactly one of FILE, --generate and --prepared") }
        let variants = try command.int("variants", default: variantsDefault, range: 1...100_000_000)
        let first = try command.int("first", default: 0, range: 0...Int(Int32.max))
        let batch = try command.int("batch", default: batchDefault, range: 1...1_000_000)
        let jobs = try command.int("jobs", default: 2, range: 1...64)
        let stallPolls = try command.int("stall-polls", default: stallPollsDefault, range: 1...1_000_000)
        let seed = try command.uint64("seed") ?? UInt64.random(in: 0...UInt64(UInt32.max))
        var classes = DamageClass.allCases
        if let list = command.value("classes"), list != "all" {
            guard let parsed = DamageClass.parse(list) else {
                throw command.usageError(
                    "--classes expects names among "
                        + DamageClass.allCases.map(\.rawValue).joined(separator: ", ") + " (got '\(list)')")
            }
            classes = parsed
        }
        if command.flag("no-stale") { classes.removeAll { $0 == .stalePage } }
        guard !classes.isEmpty else { throw command.usageError("no damage class is left") }
        let api = !command.flag("no-api")
        var plant: DamagePlant?
        if let text = command.value("plant") {
            guard let parsed = DamagePlant(text) else {
                throw command.usageError("--plant expects crash:I or hang:I (got '\(text)')")
            }
            plant = parsed
        }
        let out = command.value("out") ?? outDefault
        guard let executable = ProcessSettings.currentExecutable() else {
            throw command.usageError("damage needs /proc/self/exe to start its children")
        }

        let directory: String
        var temporary: String?
        if let prepared {
            directory = prepared
        } else {
            var template = Array((NSTemporaryDirectory() + "strata-damage-XXXXXX").utf8CString)
            let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
                guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
                return String(cString: base)
            }
            guard let made else { throw FuzzFailure.runDidNotStart(reason: "mkdtemp failed: errno \(errno)") }
            directory = made
            temporary = directory
        }
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        do {
            if let file {
                try DamageCampaign.adopt(file, into: directory)
            } else if command.flag("generate") {
                _ = try DamageCampaign.generate(into: directory)
            }
            if prepared == nil {
                let (_, note) = try DamageCampaign.expect(in: directory, api: api)
                if let note { StandardStreams.writeLine("note: \(note)") }
            }
        } catch {
            throw FuzzFailure.runDidNotStart(reason: "preparing the original: \(error)")
        }
        let older = (try? DamageCampaign.load(directory, seed: seed, classes: classes).0.olderImages.count) ?? 0
        if classes.contains(.stalePage) && older == 0 {
            StandardStreams.writeLine("note: no older images of the original: no stale-page variants")
            classes.removeAll { $0 == .stalePage }
        }
        StandardStreams.writeLine(
            "damage: seed \(seed), variants \(first)..<\(first + variants), classes "
                + classes.map(\.rawValue).joined(separator: ",") + (api ? ", with the Realm API" : ""))
        var settings = DamageSupervisor(
            executable: executable, directory: directory, seed: seed, classes: classes,
            api: api, batch: batch, stallPolls: stallPolls)
        settings.plant = plant
        let supervisor = settings
        let started = ContinuousClock.now
        let progressEvery = max(1000, variants / 10)
        let state = Lock((tally: DamageTally(), failedToKeep: [String](), error: String?.none))
        // --jobs supervisors side by side, each over its share of the range (variant I goes to
        // job I mod jobs' share of consecutive blocks), so the counts do not depend on jobs.
        let shares = (0..<jobs).map { job -> Range<Int> in
            let size = (variants + jobs - 1) / jobs
            let lower = first + min(variants, job * size)
            return lower..<(first + min(variants, (job + 1) * size))
        }
        DispatchQueue.concurrentPerform(iterations: jobs) { job in
            do {
                try supervisor.run(shares[job]) { record in
                    state.withLock { state in
                        state.tally.add(record)
                        let tally = state.tally
                        if record.outcome.isFailure {
                            do {
                                let artifact = try supervisor.keep(record, under: out)
                                StandardStreams.writeLine(
                                    "FAILURE variant \(record.index) \(record.outcome.rawValue) "
                                        + "\(record.kind): \(record.detail)\n  artifact: \(artifact)")
                            } catch {
                                state.failedToKeep.append("variant \(record.index): \(error)")
                            }
                        }
                        if tally.total % progressEvery == 0 {
                            StandardStreams.writeLine(
                                "progress: \(tally.total)/\(variants) variants, "
                                    + "\(tally.failureCount) failing, \(seconds(since: started)) s")
                        }
                    }
                }
            } catch {
                state.withLock { $0.error = "\(error)" }
            }
        }
        let (tally, failedToKeep, error) = state.withLock { ($0.tally, $0.failedToKeep, $0.error) }
        if let error { throw FuzzFailure.runDidNotStart(reason: error) }
        StandardStreams.writeLine(
            "damage: \(tally.total) variants in \(seconds(since: started)) s: "
                + DamageOutcome.allCases.map { "\($0.rawValue) \(tally.byOutcome[$0, default: 0])" }
                .joined(separator: ", "))
        var table = TextTable(
            header: ["class"] + DamageOutcome.allCases.map(\.rawValue),
            numericColumns: Set(1...DamageOutcome.allCases.count))
        for kind in tally.byClass.keys.sorted() {
            let counts = tally.byClass[kind, default: [:]]
            table.addRow([kind] + DamageOutcome.allCases.map { String(counts[$0, default: 0]) })
        }
        table.lines.forEach(StandardStreams.writeLine)
        for problem in failedToKeep { StandardStreams.writeErrorLine("strata-fuzz damage: cannot keep \(problem)") }
        if tally.failureCount > 0 {
            StandardStreams.writeLine(
                "FAILED: \(tally.failureCount) variants crashed, hung or read wrong data "
                    + "(seed \(seed); artifacts under \(out))")
            return ExitCode.failure
        }
        return ExitCode.ok
    }

    static func seconds(since start: ContinuousClock.Instant) -> String {
        String(Int((ContinuousClock.now - start).inSeconds.rounded()))
    }
}

/// `strata-fuzz child-damage`: checks a range of variants of a prepared original for
/// `damage`, printing 'begin I' and 'result I OUTCOME CLASS DETAIL' (hidden; the parent starts it).
enum ChildDamageCommand: FuzzCommand {
    static let spec = CommandSpec(
        name: "child-damage",
        summary: "Checks variants for 'damage' (started by the parent; not for users).",
        discussion: """
            Makes variants --first ..< --first + --variants of the prepared original in --dir \
            (seed --seed, --classes), checks each, and prints 'begin I' before and 'result I \
            OUTCOME CLASS DETAIL' after it, each with one write.
            """,
        options: [
            .value("dir", valueName: "DIR", help: "The prepared original."),
            .value("seed", valueName: "S", help: "The campaign seed."),
            .value("first", valueName: "I", help: "The first variant."),
            .value("variants", valueName: "N", help: "How many variants."),
            .value("classes", valueName: "LIST", help: "Damage classes, comma-separated."),
            .flag("no-api", help: "Skip the Realm API."),
            .value("plant", valueName: "KIND:I", help: "Crash or hang at variant I (see 'damage --help')."),
        ],
        examples: ["strata-fuzz child-damage --dir /tmp/d --seed 1 --first 0 --variants 10 --classes bit-flip"],
        isHidden: true
    )

    static func run(_ command: ParsedCommand) throws -> Int32 {
        guard let directory = command.value("dir") else { throw command.usageError("--dir is required") }
        guard let seed = try command.uint64("seed") else { throw command.usageError("--seed is required") }
        let first = try command.int("first", default: 0, range: 0...Int(Int32.max))
        let variants = try command.int("variants", default: 1, range: 0...100_000_000)
        guard let classes = DamageClass.parse(command.value("classes") ?? "") else {
            throw command.usageError("--classes is required")
        }
        do {
            try DamageCampaign.runChild(
                directory: directory, seed: seed, classes: classes, range: first..<(first + variants),
                api: !command.flag("no-api"), plant: command.value("plant").flatMap(DamagePlant.init),
                emit: ChildWriter.writeLine)
        } catch {
            StandardStreams.writeErrorLine("strata-fuzz child-damage: \(error)")
            return ExitCode.ioError
        }
        return ExitCode.ok
    }
}
