import Foundation
import Strata
import StrataStorage

/// The seeded bugs a harness run switches on, of both layers: the engine's (`SeededBugs`, for
/// its `EngineHooks`) and the Realm API's (`APISeededBugs`, for the configuration's `APIHooks`).
/// One raw value, as replay tokens and generated scripts write it: the layers' bits never
/// overlap, so a value written before the API's bugs left `SeededBugs` switches the same bugs.
public struct SeededBugSet: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    package static func engine(_ bugs: SeededBugs) -> SeededBugSet { SeededBugSet(rawValue: bugs.rawValue) }
    package static func api(_ bugs: APISeededBugs) -> SeededBugSet { SeededBugSet(rawValue: bugs.rawValue) }

    /// The engine's bugs of the set (every bit the API layer does not claim).
    package var engine: SeededBugs { SeededBugs(rawValue: rawValue & ~APISeededBugs.all.rawValue) }
    /// The API layer's bugs of the set.
    package var api: APISeededBugs { APISeededBugs(rawValue: rawValue & APISeededBugs.all.rawValue) }
    /// The configuration's hooks for the API layer's bugs.
    package var apiHooks: APIHooks { APIHooks(bugs: api) }
}

/// The seeded-bug catalog (Docs/architecture.md §5 "Probes and seeded bugs"): every deliberate bug the
/// engine and the Realm API can switch on, with the layer it lives in and the Spec rules it
/// breaks. `strata-fuzz bugs --check` runs the harness's ordinary mix against each one alone:
/// a bug it misses is a harness defect (improve generators, schedulers or oracles), never a
/// reason to make the bug louder.
public struct SeededBug: Sendable {
    public var name: String
    public var bug: SeededBugSet
    public var layer: String
    public var rules: [String]
    public var summary: String
    /// Where the harness can see it: most bugs in one process (`run --mode mixed`); a dead
    /// process's leftovers only when processes die (`run --mode process`).
    public var needsProcesses = false
}

public enum SeededBugCatalog {
    public static let all: [SeededBug] = [
        // Commit protocol (storage).
        SeededBug(
            name: "skipPhaseOneSync", bug: .engine(.skipPhaseOneSync), layer: "commit", rules: ["D1", "D2"],
            summary: "phase 1 writes the pages but skips their sync"),
        SeededBug(
            name: "slotBeforeData", bug: .engine(.slotBeforeData), layer: "commit", rules: ["D1", "D2"],
            summary: "the slot is written and synced before the data pages"),
        SeededBug(
            name: "singleCommitSlot", bug: .engine(.singleCommitSlot), layer: "commit", rules: ["D2", "D4"],
            summary: "every commit overwrites slot 0, never the inactive slot"),
        SeededBug(
            name: "skipSlotChecksum", bug: .engine(.skipSlotChecksum), layer: "recovery", rules: ["D4", "D8"],
            summary: "open trusts a slot without checking its checksum"),
        SeededBug(
            name: "publishBeforeSlotSync", bug: .engine(.publishBeforeSlotSync), layer: "commit", rules: ["D1", "D3"],
            summary: "readers see the new version before its slot is durable"),
        SeededBug(
            name: "retrySyncAfterEIO", bug: .engine(.retrySyncAfterEIO), layer: "commit", rules: ["D6", "W17"],
            summary: "a failed sync is retried and the commit goes on"),
        SeededBug(
            name: "dataSyncAfterGrowth", bug: .engine(.dataSyncAfterGrowth), layer: "commit", rules: ["D1", "D9"],
            summary: "phase 1 uses fdatasync although the file grew"),
        // Free space and pins (storage).
        SeededBug(
            name: "reusePinnedPages", bug: .engine(.reusePinnedPages), layer: "free space", rules: ["D5", "V1"],
            summary: "free pages are reused while a reader still pins their version"),
        SeededBug(
            name: "reuseOwnFrees", bug: .engine(.reuseOwnFrees), layer: "free space", rules: ["D5", "D2"],
            summary: "a commit reuses pages it freed itself, still part of the durable version"),
        SeededBug(
            name: "neverReclaimDeadReaders", bug: .engine(.neverReclaimDeadReaders), layer: "versions", rules: ["L6"],
            summary: "reader slots of dead processes are never reclaimed", needsProcesses: true),
        // B+tree (storage).
        SeededBug(
            name: "treeSplitOffByOne", bug: .engine(.treeSplitOffByOne), layer: "B+tree", rules: ["W4", "V1"],
            summary: "a leaf split drops one entry"),
        SeededBug(
            name: "skipReferenceCheck", bug: .engine(.skipReferenceCheck), layer: "file format", rules: ["D19", "D8"],
            summary: "page references are followed without checking the version and checksum they expect"),
        // Transactions (storage).
        SeededBug(
            name: "writersDoNotExclude", bug: .engine(.writersDoNotExclude), layer: "transactions",
            rules: ["W1", "W16"],
            summary: "a second writer in the process goes ahead on the same base: a lost update"),
        // Realm API.
        SeededBug(
            name: "refreshStaysStale", bug: .api(.refreshStaysStale), layer: "API: versions", rules: ["V3", "V4"],
            summary: "refresh() says it moved but the realm reads its old version"),
        SeededBug(
            name: "beginWriteWithoutAdvancing", bug: .api(.beginWriteWithoutAdvancing), layer: "API: writes",
            rules: ["V11", "W5"], summary: "beginWrite leaves the realm's read at its old version"),
        SeededBug(
            name: "skipThreadCheck", bug: .api(.skipThreadCheck), layer: "API: confinement", rules: ["C5"],
            summary: "live realms and accessors answer any thread"),
        SeededBug(
            name: "resolveTwice", bug: .api(.resolveTwice), layer: "API: references", rules: ["T2"],
            summary: "a thread-safe reference resolves more than once"),
        SeededBug(
            name: "thawRefreshes", bug: .api(.thawRefreshes), layer: "API: freeze", rules: ["F8"],
            summary: "thaw() refreshes the live realm first"),
        SeededBug(
            name: "frozenFollowsCommits", bug: .api(.frozenFollowsCommits), layer: "API: freeze", rules: ["F1", "F2"],
            summary: "a frozen realm reads the newest version"),
        SeededBug(
            name: "resultsReferenceDoesNotPin", bug: .api(.resultsReferenceDoesNotPin), layer: "API: references",
            rules: ["T4", "T8"], summary: "a reference to Results pins nothing"),
        SeededBug(
            name: "objectReferenceDoesNotPin", bug: .api(.objectReferenceDoesNotPin), layer: "API: references",
            rules: ["T4", "T8"], summary: "a reference to an object or a List pins nothing"),
        SeededBug(
            name: "activeVersionLimitIgnored", bug: .api(.activeVersionLimitIgnored), layer: "API: limits",
            rules: ["L2"], summary: "beginWrite ignores the active-version limit"),
        SeededBug(
            name: "invalidateKeepsPin", bug: .api(.invalidateKeepsPin), layer: "API: versions",
            rules: ["V13", "L1", "L5"], summary: "invalidate() forgets its read without ending its pin"),
        // Realm API: collection notifications (generation 3 runs observe; `DeliveryOracle`).
        SeededBug(
            name: "modificationsAtNewIndices", bug: .api(.modificationsAtNewIndices), layer: "API: notifications",
            rules: ["N13"], summary: "collection updates report modifications at new indices"),
        SeededBug(
            name: "skippedTokenStillNotified", bug: .api(.skippedTokenStillNotified), layer: "API: notifications",
            rules: ["N4"], summary: "commitWrite(withoutNotifying:) still notifies the skipped observers"),
        SeededBug(
            name: "refreshSkipsCallbacks", bug: .api(.refreshSkipsCallbacks), layer: "API: notifications",
            rules: ["N12"], summary: "refresh() moves without running the pending collection callbacks"),
        SeededBug(
            name: "callbackInsideObserve", bug: .api(.callbackInsideObserve), layer: "API: notifications",
            rules: ["N8"], summary: "observe calls the initial callback re-entrantly, before it returns"),
        // Async writes and group durability (generation 4 runs write async; `Runner+AsyncWrites`).
        SeededBug(
            name: "groupDurableInPart", bug: .engine(.groupDurableInPart), layer: "commit: async groups",
            rules: ["D10", "D11"], summary: "the group sync writes the slot of the group's first commit"),
        SeededBug(
            name: "reuseDurablePages", bug: .engine(.reuseDurablePages), layer: "free space: async groups",
            rules: ["D10", "D5"], summary: "an async group's commits overwrite pages of the durable version"),
        SeededBug(
            name: "completionBeforeDurable", bug: .api(.completionBeforeDurable), layer: "API: async writes",
            rules: ["D11", "A9"], summary: "an async commit's completion runs before its group's sync"),
        SeededBug(
            name: "asyncBlocksOutOfOrder", bug: .api(.asyncBlocksOutOfOrder), layer: "API: async writes",
            rules: ["A2"], summary: "queued async blocks run newest first"),
        SeededBug(
            name: "cancelledBlockStillRuns", bug: .api(.cancelledBlockStillRuns), layer: "API: async writes",
            rules: ["A4"], summary: "cancelAsyncWrite leaves a queued block queued"),
        // Generation 5: blocks left open, realms let go of in their writes, completions inside
        // invalidate(), copies made inside a write.
        SeededBug(
            name: "unfinishedAsyncBlockCommits", bug: .api(.unfinishedAsyncBlockCommits), layer: "API: async writes",
            rules: ["A19"], summary: "a beginAsyncWrite block that returns with its write open is committed"),
        SeededBug(
            name: "releasedWriterNotHeld", bug: .api(.releasedWriterNotHeld), layer: "API: realm lifetime",
            rules: ["C1", "W7"],
            summary: "a realm in a write or with async work is not held by its context: let go, it rolls back and ends"),
        SeededBug(
            name: "invalidateDefersCompletions", bug: .api(.invalidateDefersCompletions), layer: "API: async writes",
            rules: ["A13"], summary: "invalidate() returns before the completions of the commits it made durable ran"),
        SeededBug(
            name: "writeCopyIgnoresOpenWrite", bug: .api(.writeCopyIgnoresOpenWrite), layer: "API: files",
            rules: ["X3"], summary: "writeCopy inside a write copies the version the write began at"),
        // Generation 6: sorts through a to-one link.
        SeededBug(
            name: "nullLinksSortFirst", bug: .api(.nullLinksSortFirst), layer: "API: queries",
            rules: ["V20"], summary: "a sort through a to-one link puts null links first ascending, last descending"),
        // Generation 7: iteration over Results, whose objects are reused.
        SeededBug(
            name: "iteratorReusesHeldObject", bug: .api(.iteratorReusesHeldObject), layer: "API: iteration",
            rules: ["V15"], summary: "iteration reuses the previous element's object while the caller still holds it"),
        // Generation 8: equality queries through secondary indexes.
        SeededBug(
            name: "indexEntryLostOnUpdate", bug: .engine(.indexEntryLostOnUpdate), layer: "tables: indexes",
            rules: ["W26"],
            summary: "an update of an indexed column removes the old index entry and never writes the new one"),
        // Every generation: Results' first element, read through `isEmpty` and `first`.
        SeededBug(
            name: "firstSkipsFirstMatch", bug: .api(.firstSkipsFirstMatch), layer: "API: queries", rules: ["V1"],
            summary: "first and isEmpty of unevaluated Results step over the first match"),
        // Generation 9: aggregates over Results and Lists.
        SeededBug(
            name: "averageCountsNulls", bug: .api(.averageCountsNulls), layer: "API: aggregates", rules: ["V21"],
            summary: "an average divides by every element, nulls included"),
        SeededBug(
            name: "distinctKeepsLast", bug: .api(.distinctKeepsLast), layer: "API: distinct", rules: ["V22"],
            summary: "a distinct keeps the last object of each group, not the first"),
        // Generation 10: filters spelled as predicate formats.
        SeededBug(
            name: "predicateMirrorsWrongly", bug: .api(.predicateMirrorsWrongly), layer: "API: predicate formats",
            rules: ["V23"],
            summary: "a format's constant on the left keeps its operator: '3 <= value' is read as 'value <= 3'"),
        // Generation 11: Linkers' sets of Items.
        SeededBug(
            name: "setKeepsDuplicates", bug: .api(.setKeepsDuplicates), layer: "API: sets", rules: ["V24"],
            summary: "a set's insert of an element it holds stores it again"),
        SeededBug(
            name: "setKeepsDeletedObject", bug: .api(.setKeepsDeletedObject), layer: "API: sets",
            rules: ["V24", "W13"],
            summary: "deleting an object leaves it in the sets that hold it (Lists lose it)"),
        // Generation 12: Linkers' Maps of Items.
        SeededBug(
            name: "mapKeepsDeletedObject", bug: .api(.mapKeepsDeletedObject), layer: "API: maps",
            rules: ["V25", "W13"],
            summary: "deleting an object leaves Map values linking to it instead of making them null"),
        SeededBug(
            name: "mapRemoveKeepsKey", bug: .api(.mapRemoveKeepsKey), layer: "API: maps", rules: ["V25"],
            summary: "a Map's removeObject(for:) stores null under the key instead of removing it"),
        // Generation 13: filters through collections.
        SeededBug(
            name: "collectionQuerySkipsLast", bug: .api(.collectionQuerySkipsLast), layer: "API: predicate formats",
            rules: ["V23"], summary: "a query through a collection never reads the collection's last element"),
        // Generation 14: Items' LinkingObjects.
        SeededBug(
            name: "backlinksOncePerOwner", bug: .api(.backlinksOncePerOwner), layer: "API: LinkingObjects",
            rules: ["V26"], summary: "LinkingObjects name an owner once however many links it holds to the target"),
        // Generation 15: sectioned reads.
        SeededBug(
            name: "sectionPerKeyRun", bug: .api(.sectionPerKeyRun), layer: "API: sectioned results",
            rules: ["V27"], summary: "a key that comes back after another key starts a second section"),
    ]

    public static func named(_ name: String) -> SeededBug? { all.first { $0.name == name } }
}

/// What `strata-fuzz bugs --check` measures for one bug.
public struct SeededBugResult: Sendable {
    public var bug: SeededBug
    public var caught: Bool
    /// Seconds from the start of its campaign to the first failing run's end (shrinking excluded).
    public var secondsToCatch: Double?
    /// Seconds to the first failing lockstep run, whose counterexample is shrunk; nil when
    /// only free runs failed (their whole program is the counterexample).
    public var shrinkableAfterSeconds: Double?
    public var runs: Int
    /// Operations in the shrunk failing run (free runs are not shrunk: their whole program).
    public var shrunkOperations: Int?
    /// Operations in the failing run as found.
    public var foundOperations: Int?
    public var shrinkRuns: Int?
    public var shrinkSeconds: Double?
    public var failure: String?
    public var token: String?

    init(
        bug: SeededBug, caught: Bool, secondsToCatch: Double?, runs: Int, shrinkableAfterSeconds: Double? = nil,
        shrunkOperations: Int?, foundOperations: Int? = nil, shrinkRuns: Int? = nil, shrinkSeconds: Double? = nil,
        failure: String?, token: String?
    ) {
        self.bug = bug
        self.caught = caught
        self.secondsToCatch = secondsToCatch
        self.shrinkableAfterSeconds = shrinkableAfterSeconds
        self.runs = runs
        self.shrunkOperations = shrunkOperations
        self.foundOperations = foundOperations
        self.shrinkRuns = shrinkRuns
        self.shrinkSeconds = shrinkSeconds
        self.failure = failure
        self.token = token
    }
}

extension SeededBugCatalog {
    /// Runs the harness's whole mix (`Campaign.Mix.mixed`) with `bug` alone switched on until
    /// the first failure or `seconds` (or `runs` runs, when given: a count, for tests, whose
    /// verdict must not depend on the machine's speed); a bug that needs processes runs a
    /// SIGKILL campaign (`ProcessCampaign`, children started with `childCommand`) instead.
    public static func check(
        _ bug: SeededBug, seconds: Double, runs: Int? = nil, seed: UInt64, shrinkSeconds: Double,
        childCommand: [String]? = nil,
        scratchDirectory: String = CheckSettings.defaultScratchDirectory
    ) -> SeededBugResult {
        if bug.needsProcesses {
            return checkInProcesses(
                bug, seconds: seconds, seed: seed, childCommand: childCommand,
                scratchDirectory: scratchDirectory)
        }
        let campaign = Campaign(
            mix: .mixed, seconds: runs == nil ? seconds : nil, runs: runs, seed: seed, engineBugs: bug.bug,
            scratchDirectory: scratchDirectory, shrinks: true, shrinkSeconds: shrinkSeconds)
        let report = campaign.run(untilShrinkable: true)
        guard let first = report.failures.first else {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: report.runs,
                shrunkOperations: nil, failure: nil, token: nil)
        }
        // Caught when the first run failed; the counterexample is the first shrinkable one
        // (a lockstep run's), or the free run's whole program when no lockstep run failed.
        let found = report.failures.first { $0.free == nil } ?? first
        return SeededBugResult(
            bug: bug, caught: true, secondsToCatch: first.foundAfterSeconds, runs: report.runs,
            shrinkableAfterSeconds: found.free == nil ? found.foundAfterSeconds : nil,
            shrunkOperations: found.free == nil ? found.shrunk.trace.count : found.shrunk.statistics.operations,
            foundOperations: found.free == nil ? found.original.trace.count : found.original.statistics.operations,
            shrinkRuns: found.shrinkRuns, shrinkSeconds: found.shrinkSeconds,
            failure: found.shrunk.failure?.description, token: found.token)
    }

    /// A process campaign with the bug in every child: caught when the ledger fails. Process
    /// runs are not shrunk (the OS picks the interleaving): the size is the kills it took.
    static func checkInProcesses(
        _ bug: SeededBug, seconds: Double, seed: UInt64, childCommand: [String]?,
        scratchDirectory: String
    ) -> SeededBugResult {
        guard let childCommand else {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
                failure: "needs processes: no child command to start them", token: nil)
        }
        let settings = ProcessSettings(
            children: 3, seconds: seconds, commits: nil, seed: seed,
            childCommand: childCommand, scratchDirectory: scratchDirectory,
            engineBugs: bug.bug)
        let report: ProcessReport
        do {
            report = try ProcessCampaign(settings: settings).run()
        } catch {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
                failure: "the process campaign did not start: \(error)", token: nil)
        }
        guard let failure = report.failure else {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: report.statistics.kills,
                shrunkOperations: nil, failure: nil, token: nil)
        }
        return SeededBugResult(
            bug: bug, caught: true, secondsToCatch: report.seconds, runs: report.statistics.kills,
            shrunkOperations: nil, failure: "after \(report.statistics.kills) kills: \(failure)",
            token: nil)
    }

    /// Runs `command` (this `strata-fuzz bugs --check` for `bug` alone, in JSON, in process) as
    /// a child and reads its verdict. A seeded bug may make the engine trap (an invariant of a
    /// debug build, memory a free run's reader was reading reused under it), which kills the
    /// child before it can report: the child records the run in flight (`FlightRecorder`), and
    /// such a death counts as caught only when that run's token traps again (or fails) when
    /// replayed, and passes when replayed without the bug. A death outside any run, or one its
    /// run does not reproduce, is not a catch.
    public static func checkInChild(_ bug: SeededBug, command: [String], scratchDirectory: String) -> SeededBugResult {
        let started = Date()
        let stem = (scratchDirectory as NSString).appendingPathComponent("bugs-check-\(getpid())-\(bug.name)")
        let errorPath = stem + ".err"
        let recorderPath = stem + ".flight"
        defer {
            try? FileManager.default.removeItem(atPath: errorPath)
            try? FileManager.default.removeItem(atPath: recorderPath)
        }
        let child: SpawnedChild
        do {
            child = try SpawnedChild(
                child: 0, incarnation: 0, executable: command[0],
                arguments: Array(command.dropFirst()) + ["--flight-recorder", recorderPath],
                errorPath: errorPath)
        } catch {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
                failure: "the check did not start: \(error)", token: nil)
        }
        let lines = child.drain()
        let status = child.reap(blocking: true) ?? 0
        let seconds = Date().timeIntervalSince(started)
        if status & 0x7f != 0 {
            let stderr = FileManager.default.contents(atPath: errorPath).map {
                String(decoding: $0.prefix(1 << 20), as: UTF8.self)
            }
            return explainDeath(
                bug, status: status, stderr: stderr ?? "",
                inFlight: FlightRecorder.inFlight(path: recorderPath), executable: command[0],
                scratchDirectory: scratchDirectory, seconds: seconds)
        }
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["event"] as? String == "bug", object["name"] as? String == bug.name
            else { continue }
            return SeededBugResult(
                bug: bug, caught: object["caught"] as? Bool ?? false,
                secondsToCatch: (object["secondsToCatch"] as? NSNumber)?.doubleValue,
                runs: (object["runs"] as? NSNumber)?.intValue ?? 0,
                shrinkableAfterSeconds: (object["shrinkableAfterSeconds"] as? NSNumber)?.doubleValue,
                shrunkOperations: (object["shrunkOperations"] as? NSNumber)?.intValue,
                foundOperations: (object["foundOperations"] as? NSNumber)?.intValue,
                shrinkRuns: (object["shrinkRuns"] as? NSNumber)?.intValue,
                shrinkSeconds: (object["shrinkSeconds"] as? NSNumber)?.doubleValue,
                failure: object["failure"] as? String, token: object["token"] as? String)
        }
        return SeededBugResult(
            bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
            failure:
                "the check printed no verdict (\(SpawnedChild.describe(status: status))): \(child.errorTail(byteCountMax: 300))",
            token: nil)
    }

    /// The verdict on a check child that died by a signal (see `checkInChild`).
    static func explainDeath(
        _ bug: SeededBug, status: Int32, stderr: String, inFlight: FlightRecorder.InFlight?,
        executable: String, scratchDirectory: String, seconds: Double
    ) -> SeededBugResult {
        let death = "the check died (\(SpawnedChild.describe(status: status)))"
        let said = trapMessage(stderr)
        guard let inFlight else {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
                failure: "\(death) outside any run, so nothing explains it: \(said)", token: nil)
        }
        // A free run replays its programs under a new interleaving: give it a few tries.
        let tries = inFlight.mode == .free ? 3 : 1
        var reproduced: String?
        do {
            for _ in 0..<tries where reproduced == nil {
                reproduced = try replayFails(inFlight.token, executable: executable, scratchDirectory: scratchDirectory)
            }
        } catch {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
                failure: "\(death) in a \(inFlight.mode.rawValue) run, and \(error)", token: inFlight.token)
        }
        let run = "a \(inFlight.mode.rawValue) run (\(inFlight.draws) draws)"
        guard let again = reproduced else {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
                failure: "\(death) in \(run) that its token does not make fail again: \(said)",
                token: inFlight.token)
        }
        let cleanToken = ReplayToken.decode(inFlight.token).map { decoded -> String in
            var settings = decoded.settings
            settings.engineBugs = []
            return ReplayToken.encode(settings: settings, choices: decoded.choices)
        }
        let withoutBug: String?
        do {
            withoutBug = try cleanToken.flatMap { token throws(ReplayNotRun) in
                try replayFails(token, executable: executable, scratchDirectory: scratchDirectory)
            }
        } catch {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
                failure: "\(death) in \(run), and without the bug \(error)", token: inFlight.token)
        }
        if let withoutBug {
            return SeededBugResult(
                bug: bug, caught: false, secondsToCatch: nil, runs: 0, shrunkOperations: nil,
                failure: "\(death) in \(run) that fails without the bug too (\(withoutBug)): \(said)",
                token: inFlight.token)
        }
        return SeededBugResult(
            bug: bug, caught: true, secondsToCatch: seconds, runs: 0, shrunkOperations: nil,
            failure: "the engine trapped (\(SpawnedChild.describe(status: status))) in \(run); "
                + "its token \(again), and passes without the bug: \(said)",
            token: inFlight.token)
    }

    /// A replay child that could not be started: neither a pass nor a failure.
    struct ReplayNotRun: Error, CustomStringConvertible {
        let reason: String
        var description: String { "the replay could not be run: \(reason)" }
    }

    /// How replaying `token` in a child (`strata-fuzz replay`) fails: "traps again (signal N)"
    /// or "still fails"; nil when it passes. Throws when the child cannot be started, so a
    /// replay that never ran is never taken for one that passed.
    static func replayFails(_ token: String, executable: String, scratchDirectory: String) throws(ReplayNotRun)
        -> String?
    {
        let errorPath = (scratchDirectory as NSString).appendingPathComponent(
            "bugs-replay-\(getpid())-\(UUID().uuidString).err")
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let child: SpawnedChild
        do {
            child = try SpawnedChild(
                child: 0, incarnation: 0, executable: executable,
                arguments: ["replay", token, "--in-process"], errorPath: errorPath)
        } catch {
            throw ReplayNotRun(reason: "\(executable): \(error)")
        }
        _ = child.drain()
        let status = child.reap(blocking: true) ?? 0
        if status & 0x7f != 0 { return "traps again (\(SpawnedChild.describe(status: status)))" }
        return (status >> 8) & 0xff == 1 ? "still fails" : nil
    }

    /// The line of a dead child's stderr that says why it trapped (Swift's "Fatal error"), or
    /// the start of what it said.
    static func trapMessage(_ stderr: String) -> String {
        let lines = stderr.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        if let fatal = lines.first(where: { $0.contains("Fatal error") }) { return fatal }
        return lines.first(where: { !$0.isEmpty }).map { String($0.prefix(300)) } ?? "(nothing on stderr)"
    }
}
