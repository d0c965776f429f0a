import Foundation
import Strata
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

// Process mode (Docs/architecture.md §5 "Real processes"): K writer children (ChildWriter.swift)
// commit to one real file at once, and the parent SIGKILLs one of them at random moments, as
// often inside a commit as not. After each kill it reaps the child, verifies the file, checks a
// snapshot against its ledger (ProcessLedger.swift), respawns the child and goes on; the other
// children keep writing throughout, so a writer that dies holding the lock must not stop them
// (Spec W8).
//
// The choice stream fixes the plan (batch shape) and the kill plan (which child, after how
// long), not the interleaving: the OS schedules the children and decides where in its work
// each kill lands. A process campaign therefore replays its plan, not its run (like free mode);
// its evidence is its artifact (the parent's timeline, every child's output and stderr, the
// file).
//
// Parent loop (one thread; `step` is one turn):
//
//   spawn K ──▶ poll stdout ──▶ kill due? ──yes──▶ SIGKILL, reap, drain ──▶ verify ──▶ respawn
//                  ▲   │ no                                                               │
//                  │   └──▶ log behind? ──yes──▶ verify ──┐                               │
//                  └───────────────────────────────────────┴───────────────────────────────┘

/// One process campaign; see the file header.
public final class ProcessCampaign {
    public struct Progress: Sendable {
        public var seconds: Double
        public var statistics: ProcessStatistics
    }

    /// A kill waits 0 to this many milliseconds, drawn from one of these scales: many kills
    /// land within a commit, some during a child's start, some after longer runs.
    static let killDelayScalesMilliseconds = [2, 20, 200]
    static let timelineMax = 4000

    let settings: ProcessSettings
    private var stream: ChoiceStream
    public let plan: ProcessPlan
    let directory: String
    let path: String
    private var ledger: ProcessLedger
    private var children: [SpawnedChild?]
    private var incarnations: [Int]
    private var finished: [SpawnedChild] = []
    private var statistics = ProcessStatistics()
    private var timeline: [String] = []
    private let start = ContinuousClock.now
    private var lastCommitAt = ContinuousClock.now
    private var reader: Realm?
    private var sinceVerify = 0
    /// The parent's own engine probe marks (its reader reclaims dead readers' slots too).
    private var parentProbes = ProbeCounter()

    /// - Throws: `ProcessCampaignError` when the scratch directory or the file cannot be made.
    public init(settings: ProcessSettings) throws(ProcessCampaignError) {
        self.settings = settings
        stream = ChoiceStream(seed: settings.seed)
        plan = ProcessPlan.draw(&stream)
        directory = (settings.scratchDirectory as NSString).appendingPathComponent(
            "strata-process-\(getpid())-\(settings.seed)")
        path = (directory as NSString).appendingPathComponent("campaign.realm")
        children = Array(repeating: nil, count: settings.children)
        incarnations = Array(repeating: 0, count: settings.children)
        do {
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true)
            // The parent makes the file (and its schema) first, so that no child is ever
            // killed inside the schema's first write, and reads it with this realm afterwards.
            let marks = ProbeCounter()
            parentProbes = marks
            let configuration = ChildWriter.configuration(path: path, engineBugs: []) { marks.mark($0.rawValue) }
            let realm = try Realm._open(configuration: configuration, queue: nil)
            _ = try realm._isEmpty()  // a read, so that the realm has a version
            reader = realm
            ledger = ProcessLedger(
                plan: plan, seed: settings.seed, childCount: settings.children,
                initialVersion: realm._readVersion ?? 0)
            try realm._invalidate()
        } catch {
            throw .setUp("cannot make \(path): \(error)")
        }
    }

    /// Runs to the budget or the first failure.
    public func run(progressEvery: Double = 10, progress: (Progress) -> Void = { _ in })
        -> ProcessReport
    {
        var failure: ProcessFailure?
        var lastProgress = ContinuousClock.now
        do {
            for child in 0..<settings.children { try spawn(child) }
            var killAt = nextKill()
            while failure == nil && !budgetSpent() {
                failure = step(killAt: &killAt)
                if seconds(since: lastProgress) >= progressEvery {
                    lastProgress = .now
                    progress(Progress(seconds: seconds(since: start), statistics: statistics))
                }
            }
            if failure == nil { failure = finish() }
        } catch {
            failure = ProcessFailure(kind: .harness, message: error.description)
        }
        return report(failure)
    }

    /// One turn of the parent: read lines, then kill or verify when due.
    private func step(killAt: inout PlannedKill) -> ProcessFailure? {
        let wait = max(0, min(0.05, killAt.due.map { seconds(until: $0) } ?? 0.05))
        if let failure = pollChildren(waitSeconds: wait) { return failure }
        if killAt.armedAt == nil, children[killAt.victim]?.hasOpened == true {
            killAt.armedAt = .now
        }
        if let due = killAt.due, ContinuousClock.now >= due {
            let victim = killAt.victim
            let failure = killAndCheck(victim)
            killAt = nextKill()
            return failure
        }
        if sinceVerify >= plan.logCapacity / 4 { return verify(deadChild: nil) }
        if seconds(since: lastCommitAt) > settings.patienceSeconds {
            return ProcessFailure(
                kind: .hung,
                message: "no commit for \(Int(settings.patienceSeconds)) s with "
                    + "\(settings.children) writers running: the write lock outlived its holder "
                    + "or the writers deadlocked (Spec W8, W1)")
        }
        return nil
    }

    private func budgetSpent() -> Bool {
        if let seconds = settings.seconds, self.seconds(since: start) >= seconds { return true }
        if let commits = settings.commits, statistics.acknowledgedCommits >= commits { return true }
        if let kills = settings.kills, statistics.kills >= kills { return true }
        return false
    }

    /// The next kill of the plan: whom, and how long after what.
    struct PlannedKill {
        var victim: Int
        var delay: Duration
        /// Counted from the draw, so that the kill may land while the child starts (exec,
        /// open); else counted from the child's `open` line, so that it lands among commits.
        var duringStart: Bool
        /// When the delay began counting (nil: the victim has not opened yet).
        var armedAt: ContinuousClock.Instant?

        var due: ContinuousClock.Instant? { armedAt.map { $0 + delay } }
    }

    /// Which child dies next and when, from the choice stream. One kill in eight may land
    /// while the child starts; the rest wait for it to open the file.
    private func nextKill() -> PlannedKill {
        let victim = stream.draw(settings.children)
        let scale = Self.killDelayScalesMilliseconds[stream.draw(3)]
        let delay = Duration.microseconds(stream.draw(scale * 1000 + 1))
        let duringStart = stream.draw(8) == 0
        var kill = PlannedKill(victim: victim, delay: delay, duringStart: duringStart)
        if duringStart || children[victim]?.hasOpened == true { kill.armedAt = .now }
        return kill
    }

    // MARK: children

    private func spawn(_ child: Int) throws(ProcessCampaignError) {
        let incarnation = incarnations[child]
        incarnations[child] += 1
        var arguments =
            Array(settings.childCommand.dropFirst()) + [
                "--file", path, "--seed", String(settings.seed), "--id", String(child),
                "--keys", String(plan.keyCount), "--changes-max", String(plan.changesMax),
                "--delete-percent", String(plan.deletePercent), "--log", String(plan.logCapacity),
            ]
        if !settings.engineBugs.isEmpty {
            arguments += ["--engine-bugs", String(settings.engineBugs.rawValue)]
        }
        if let mutation = settings.mutation { arguments += ["--mutation", mutation.rawValue] }
        let errorPath = (directory as NSString).appendingPathComponent(
            "c\(child)-\(incarnation).err")
        let spawned = try SpawnedChild(
            child: child, incarnation: incarnation, executable: settings.childCommand[0],
            arguments: arguments, errorPath: errorPath)
        children[child] = spawned
        if incarnation > 0 { statistics.respawns += 1 }
        note("spawn c\(child)-\(incarnation) pid \(spawned.pid)")
    }

    /// Reads whatever the children wrote, waiting up to `waitSeconds` for something.
    private func pollChildren(waitSeconds: Double) -> ProcessFailure? {
        let live = children.compactMap { $0 }.filter(\.isReadable)
        var descriptors = live.map {
            pollfd(fd: $0.pollDescriptor, events: Int16(POLLIN), revents: 0)
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(waitSeconds * 1000))
        guard ready > 0 else { return nil }
        for (child, descriptor) in zip(live, descriptors) where descriptor.revents != 0 {
            if let failure = take(child.readAvailable(), from: child) { return failure }
            if !child.isReadable {
                // Nobody killed it: a child only ends by SIGKILL.
                let status = child.reap(blocking: true) ?? 0
                return ProcessFailure(
                    kind: .child,
                    message: "child \(child.child) (pid \(child.pid)) ended by itself "
                        + "(\(SpawnedChild.describe(status: status))): \(child.errorTail())")
            }
        }
        return nil
    }

    /// Feeds a child's lines to the ledger.
    private func take(_ lines: [String], from child: SpawnedChild) -> ProcessFailure? {
        for line in lines {
            if line.hasPrefix("open ") { continue }
            if line.hasPrefix("probe ") {
                let words = line.split(separator: " ")
                if words.count == 3, Int(words[1]) == child.child, Probe(rawValue: String(words[2])) != nil {
                    statistics.probes[String(words[2]), default: 0] += 1
                    continue
                }
            }
            guard let ack = ProcessAcknowledgement(line: line), ack.child == child.child else {
                return ProcessFailure(
                    kind: .child, message: "child \(child.child) wrote '\(line)'")
            }
            lastCommitAt = .now
            statistics.acknowledgedCommits += 1
            sinceVerify += 1
            if let failure = ledger.acknowledge(ack) { return failure }
        }
        return nil
    }

    /// SIGKILL, reap, read what it wrote before it died, verify, respawn.
    private func killAndCheck(_ victim: Int) -> ProcessFailure? {
        guard let child = children[victim] else { return nil }
        _ = kill(child.pid, SIGKILL)
        let status = child.reap(blocking: true) ?? 0
        let last = child.drain()
        children[victim] = nil
        finished.append(child)
        note(
            "kill c\(victim)-\(child.incarnation) pid \(child.pid) after "
                + "\(child.lines.count) lines: \(SpawnedChild.describe(status: status))")
        if !SpawnedChild.killedBySIGKILL(status) {
            return ProcessFailure(
                kind: .child,
                message: "child \(victim) ended before the kill "
                    + "(\(SpawnedChild.describe(status: status))): \(child.errorTail())")
        }
        if let failure = take(last, from: child) { return failure }
        statistics.kills += 1
        if !child.hasOpened { statistics.killsBeforeOpen += 1 }
        ledger.incarnationEnded(child: victim)
        if let failure = verify(deadChild: victim) { return failure }
        // After the verification: its version is at least any the child could have pinned.
        ledger.childDied(pid: child.pid)
        do {
            try spawn(victim)
        } catch {
            return ProcessFailure(kind: .harness, message: error.description)
        }
        return nil
    }

    // MARK: verification

    /// `Store.verify()`, then a snapshot through the Realm API checked by the ledger.
    private func verify(deadChild: Int?) -> ProcessFailure? {
        statistics.verifies += 1
        sinceVerify = 0
        // Store.verify() walks the versions other processes pin without pinning them itself:
        // a writer that reuses their pages once such a pin goes (a child's refresh, a dead
        // child's slot reclaimed) would show as damage. Stopped children change nothing, and
        // one stopped inside a commit has written only pages no published version reaches
        // (Spec D5), so the walk and the snapshot see one quiet file. The parent takes no
        // lock a stopped child could hold: its realm keeps the file open, so Store.open reuses
        // it (no init lock), and reads take none.
        let paused = children.compactMap { $0 }.filter { $0.stop() }
        defer { for child in paused { child.resume() } }
        if let failure = walk() { return failure }
        let snapshot: ProcessSnapshot
        do {
            snapshot = try read()
        } catch {
            return ProcessFailure(kind: .verify, message: "the snapshot read threw: \(error)")
        }
        let failure = ledger.check(snapshot, deadChild: deadChild)
        statistics.commitsChecked = ledger.replayedCount
        statistics.unacknowledgedCommits = ledger.unacknowledgedCount
        note(
            "verify v\(snapshot.version)" + (deadChild.map { " after killing c\($0)" } ?? "")
                + (failure.map { ": \($0)" } ?? ": ok"))
        return failure
    }

    /// Spec D2, L6: the file verifies; dead children's reader slots go.
    private func walk() -> ProcessFailure? {
        do {
            let store = try Store.open(.file(path), options: StoreOptions(create: false))
            defer { store.close() }
            let report = try store.verify()
            let damage = report.problems.filter(\.isDamage)
            guard damage.isEmpty else {
                return ProcessFailure(
                    kind: .verify,
                    message: "Store.verify() at v\(report.newestVersion.rawValue): "
                        + damage.map(\.description).joined(separator: "; "))
            }
            let pinning = store.pinningProcesses().mapValues(\.rawValue)
            let live = Set(children.compactMap { $0?.pid })
            let failure = ledger.checkDeadReaders(pinning: pinning, livePIDs: live)
            statistics.deadReadersChecked = ledger.deadReadersReclaimed
            return failure
        } catch {
            return ProcessFailure(
                kind: .verify, message: "Store.verify() could not open or walk the file: \(error)")
        }
    }

    /// The newest version and every object, read by the parent's realm (then let go, so that
    /// it pins nothing between checks).
    private func read() throws -> ProcessSnapshot {
        guard let reader else { throw ProcessCampaignError.setUp("no reader realm") }
        _ = try reader._refresh()
        let objects = try FreeWorker.wholeContents(of: reader)
        guard let version = reader._readVersion else {
            throw ProcessCampaignError.setUp("the reader has no version after refresh")
        }
        try reader._invalidate()
        var snapshot = ProcessSnapshot(version: version, items: [:], others: [:])
        for object in objects {
            switch object.key.table {
            case .item: snapshot.items[object.key.primaryKey] = object.value
            case .other: snapshot.others[object.key.primaryKey] = object.value
            }
        }
        return snapshot
    }

    /// The end of the budget: every child killed and reaped, one last verification.
    private func finish() -> ProcessFailure? {
        for (index, child) in children.enumerated() {
            guard let child else { continue }
            _ = kill(child.pid, SIGKILL)
            child.reap(blocking: true)
            if let failure = take(child.drain(), from: child) { return failure }
            ledger.incarnationEnded(child: index)
            ledger.childDied(pid: child.pid)
            finished.append(child)
            children[index] = nil
        }
        note("end: every child killed")
        return verify(deadChild: nil)
    }

    // MARK: report

    private func report(_ failure: ProcessFailure?) -> ProcessReport {
        statistics.failures = failure == nil ? 0 : 1
        for (index, child) in children.enumerated() {
            guard let child else { continue }
            _ = kill(child.pid, SIGKILL)
            child.reap(blocking: true)
            _ = child.drain()
            finished.append(child)
            children[index] = nil
        }
        let logs = finished.sorted { ($0.child, $0.incarnation) < ($1.child, $1.incarnation) }
            .map { child in
                (
                    name: "c\(child.child)-\(child.incarnation)", output: child.lines,
                    error: child.errorTail(byteCountMax: 64 * 1024)
                )
            }
        reader = nil
        for (name, count) in parentProbes.snapshot { statistics.probes[name, default: 0] += count }
        if failure == nil { try? FileManager.default.removeItem(atPath: directory) }
        return ProcessReport(
            settings: settings, plan: plan, statistics: statistics,
            seconds: seconds(since: start), failure: failure, timeline: timeline,
            childLogs: logs, path: path)
    }

    private func note(_ event: String) {
        let milliseconds = Int(seconds(since: start) * 1000)
        timeline.append("\(milliseconds) ms: \(event)")
        if timeline.count > Self.timelineMax { timeline.removeFirst(timeline.count / 2) }
    }

    private func seconds(since instant: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - instant).inSeconds
    }

    private func seconds(until instant: ContinuousClock.Instant) -> Double {
        (instant - ContinuousClock.now).inSeconds
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
