// The parent's oracle in a process campaign: a ledger of what the children acknowledged and of
// the version chain the file itself records, checked against every snapshot the parent reads.
//
// Why not StrataModel: the model has processes and kills (`killProcess`, `.processKilled`),
// but it needs the interleaving of every call, and here the OS chooses it and the parent sees
// only commit lines and snapshots. What the model would say about this workload is exact
// anyway and simple: the contents of version v are the batches of versions ≤ v applied in
// version order (Spec W1: one chain), every acknowledged commit is in it (D3), and no batch is
// in it in part (D2). The ledger checks exactly that, rebuilding each batch from its commit
// record (ProcessPlan.swift), so nothing in the file is trusted except what it is checked
// against.
//
// Checks per snapshot at version V (the previous one was at P):
// - V ≥ P (V2: what the parent reads never goes back);
// - every version in P+1...V has its commit record; the record's child's seqs run on without a
//   gap or repeat, across that child's incarnations (W1, D3: nothing lost, nothing twice);
// - the Items, counters and commit records equal the replay of those batches, exactly (D2);
// - every acknowledged commit received before the snapshot is in it, at the version the child
//   reported, with the child and seq it reported (D3, W16);
// - a killed child not yet respawned committed at most one batch past its last acknowledged
//   one: the one it was inside when it died (D2);
// - a killed child's reader slot is gone once two versions were made after its death (L6).

/// What a process campaign found wrong.
public struct ProcessFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// `Store.verify()` found damage, or the file would not open.
        case verify
        /// A commit lost, applied twice, out of its child's order, or without its record.
        case chain
        /// The contents differ from the replay of the batches.
        case contents
        /// An acknowledged commit is missing or holds something else.
        case acknowledged
        /// A dead child committed more than the batch it was inside.
        case afterDeath
        /// A dead child's reader slot outlived it.
        case deadReader
        /// No commit for too long: the write lock outlived its holder, or a deadlock.
        case hung
        /// A child ended by itself, or reported something malformed.
        case child
        /// The harness itself could not go on (it fell behind the commit log, spawn failed).
        case harness
    }

    public var kind: Kind
    public var message: String

    public var description: String { "\(kind.rawValue): \(message)" }
}

/// A commit line the parent read.
struct ProcessAcknowledgement: Sendable, Hashable {
    var child: Int
    var seq: Int
    var version: UInt64

    init(child: Int, seq: Int, version: UInt64) {
        self.child = child
        self.seq = seq
        self.version = version
    }

    /// Parses `commit <child> <seq> <version>`; nil for any other line.
    init?(line: String) {
        let words = line.split(separator: " ")
        guard words.count == 4, words[0] == "commit", let child = Int(words[1]),
            let seq = Int(words[2]), let version = UInt64(words[3])
        else { return nil }
        self.init(child: child, seq: seq, version: version)
    }
}

/// What the parent read: the version and every object.
struct ProcessSnapshot: Sendable {
    var version: UInt64
    var items: [Int: Int?]
    var others: [Int: Int?]
}

/// The ledger; see the file header. Confined to the campaign's thread (a value it mutates).
struct ProcessLedger {
    let plan: ProcessPlan
    let seed: UInt64
    let childCount: Int
    /// The version of the last snapshot checked, and what it held.
    private(set) var checkedVersion: UInt64
    private var items: [Int: Int] = [:]
    private var counters: [Int: ProcessStamp] = [:]
    private var records: [Int: Int] = [:]
    /// Who made each recent version (child, seq): acknowledgements arriving late are checked
    /// against it. Kept for two log capacities of versions.
    private var chain: [UInt64: (child: Int, seq: Int)] = [:]
    /// Acknowledgements not yet covered by a snapshot.
    private var pending: [ProcessAcknowledgement] = []
    /// The last seq each child id acknowledged (across incarnations).
    private(set) var acknowledgedSeq: [Int: Int] = [:]
    /// Per child id, the incarnations killed since its last acknowledged commit: each may have
    /// made one commit it never reported (the one it was inside when it died).
    private var unreported: [Int: Int] = [:]
    /// Killed children's pids and the newest version when they were found dead.
    private var deadReaders: [(pid: Int32, version: UInt64)] = []

    private(set) var acknowledgedCount = 0
    private(set) var replayedCount = 0
    private(set) var deadReadersReclaimed = 0

    init(plan: ProcessPlan, seed: UInt64, childCount: Int, initialVersion: UInt64) {
        self.plan = plan
        self.seed = seed
        self.childCount = childCount
        checkedVersion = initialVersion
    }

    /// Commits replayed that no child acknowledged: batches a kill cut after they were durable.
    var unacknowledgedCount: Int { replayedCount - matchedCount }
    private var matchedCount = 0

    // MARK: acknowledgements

    /// Records a commit line; checks it at once when a snapshot already covered its version.
    mutating func acknowledge(_ ack: ProcessAcknowledgement) -> ProcessFailure? {
        guard (0..<childCount).contains(ack.child) else {
            return ProcessFailure(
                kind: .child, message: "a commit line of unknown child \(ack.child)")
        }
        if let last = acknowledgedSeq[ack.child], ack.seq <= last {
            return ProcessFailure(
                kind: .chain,
                message: "child \(ack.child) acknowledged seq \(ack.seq) as v\(ack.version) after "
                    + "seq \(last): a commit applied twice or a counter that went back (W1, D3)")
        }
        acknowledgedSeq[ack.child] = ack.seq
        unreported[ack.child] = 0
        acknowledgedCount += 1
        guard ack.version <= checkedVersion else {
            pending.append(ack)
            return nil
        }
        return match(ack)
    }

    private mutating func match(_ ack: ProcessAcknowledgement) -> ProcessFailure? {
        guard let made = chain[ack.version] else {
            return ProcessFailure(
                kind: .harness,
                message: "child \(ack.child)'s acknowledgement of v\(ack.version) came after the "
                    + "ledger forgot that version")
        }
        guard made.child == ack.child && made.seq == ack.seq else {
            return ProcessFailure(
                kind: .acknowledged,
                message: "child \(ack.child) acknowledged seq \(ack.seq) as v\(ack.version), but "
                    + "v\(ack.version) holds child \(made.child)'s seq \(made.seq): an "
                    + "acknowledged commit was lost (Spec D3)")
        }
        matchedCount += 1
        return nil
    }

    // MARK: snapshots

    /// Checks a snapshot; `deadChild`: a child killed and reaped, not yet respawned.
    mutating func check(_ snapshot: ProcessSnapshot, deadChild: Int?) -> ProcessFailure? {
        if snapshot.version < checkedVersion {
            return ProcessFailure(
                kind: .chain,
                message: "the newest version went back from v\(checkedVersion) to "
                    + "v\(snapshot.version) (Spec V2, D3)")
        }
        if snapshot.version - checkedVersion > UInt64(plan.logCapacity) {
            return ProcessFailure(
                kind: .harness,
                message: "v\(checkedVersion) to v\(snapshot.version) is more than the commit log "
                    + "holds (\(plan.logCapacity)); the parent checked too rarely")
        }
        if let failure = replay(through: snapshot) { return failure }
        if let failure = compare(snapshot) { return failure }
        let covered = pending.filter { $0.version <= snapshot.version }
        if let late = pending.first(where: { $0.version > snapshot.version }) {
            return ProcessFailure(
                kind: .acknowledged,
                message: "child \(late.child) acknowledged seq \(late.seq) as v\(late.version) "
                    + "before this snapshot, but the newest version is v\(snapshot.version): an "
                    + "acknowledged commit is not there (Spec D3, V10)")
        }
        pending = []
        for ack in covered {
            if let failure = match(ack) { return failure }
        }
        if let deadChild { return checkDead(deadChild) }
        return nil
    }

    /// Applies the batches of every version after the last snapshot, from their records.
    private mutating func replay(through snapshot: ProcessSnapshot) -> ProcessFailure? {
        var version = checkedVersion
        while version < snapshot.version {
            version += 1
            let key = plan.logKey(version: version)
            guard let packed = snapshot.others[key] ?? nil,
                let stamp = ProcessStamp(packed: packed),
                stamp.version == version
            else {
                let found = (snapshot.others[key] ?? nil).map(Self.describe) ?? "nothing"
                return ProcessFailure(
                    kind: .chain,
                    message: "v\(version) has no commit record (Other \(key) holds \(found)): a "
                        + "version no child made, or one whose record was lost (Spec W1, D2)")
            }
            guard (0..<childCount).contains(stamp.child) else {
                return ProcessFailure(
                    kind: .chain, message: "v\(version)'s record names child \(stamp.child)")
            }
            let expectedSeq = (counters[stamp.child]?.number ?? 0) + 1
            guard stamp.number == expectedSeq else {
                return ProcessFailure(
                    kind: .chain,
                    message: "v\(version) is child \(stamp.child)'s seq \(stamp.number), but its "
                        + "previous commit was seq \(expectedSeq - 1): a commit lost or applied "
                        + "twice (Spec W1, D3)")
            }
            apply(
                ProcessBatch(
                    plan: plan, seed: seed, child: stamp.child, seq: stamp.number,
                    version: version))
        }
        return nil
    }

    private mutating func apply(_ batch: ProcessBatch) {
        for change in batch.changes {
            switch change {
            case .put(let key, let value): items[key] = value
            case .delete(let key): items[key] = nil
            }
        }
        counters[batch.child] = batch.stamp
        records[plan.logKey(version: batch.version)] = batch.stamp.packed
        chain[batch.version] = (batch.child, batch.seq)
        let forgetBelow = batch.version - min(batch.version, UInt64(2 * plan.logCapacity))
        chain[forgetBelow] = nil
        replayedCount += 1
    }

    /// The snapshot must hold exactly the replayed contents.
    private mutating func compare(_ snapshot: ProcessSnapshot) -> ProcessFailure? {
        var expectedOthers = records
        for (child, stamp) in counters {
            expectedOthers[ProcessPlan.counterKey(child: child)] = stamp.packed
        }
        if let difference = Self.difference(expected: items, found: snapshot.items) {
            return ProcessFailure(
                kind: .contents,
                message: "v\(snapshot.version): Item \(difference): not what the batches of "
                    + "v\(checkedVersion + 1)...v\(snapshot.version) make (a batch half applied, "
                    + "lost or reordered: Spec D2, W1)")
        }
        if let difference = Self.difference(expected: expectedOthers, found: snapshot.others) {
            return ProcessFailure(
                kind: .contents,
                message: "v\(snapshot.version): Other \(difference): a counter or commit record "
                    + "that is not the replay's (Spec D2)")
        }
        checkedVersion = snapshot.version
        return nil
    }

    private static func difference(expected: [Int: Int], found: [Int: Int?]) -> String? {
        for key in Set(expected.keys).union(found.keys).sorted() {
            let want = expected[key]
            let got = found[key] ?? nil
            let present = found[key] != nil
            if want != got || (want != nil) != present {
                let wanted = want.map(describe) ?? "absent"
                let saw = present ? (got.map(describe) ?? "nil") : "absent"
                return "\(key) should be \(wanted), is \(saw)"
            }
        }
        return nil
    }

    static func describe(_ packed: Int) -> String {
        ProcessStamp(packed: packed)?.description ?? String(packed)
    }

    // MARK: dead children

    /// An incarnation of `child` was killed and reaped (before the snapshot that checks it).
    mutating func incarnationEnded(child: Int) {
        unreported[child, default: 0] += 1
    }

    /// Spec D2: past its last acknowledged commit, a child id has at most one commit per
    /// incarnation killed since: the one each was inside when it died.
    private func checkDead(_ child: Int) -> ProcessFailure? {
        let committed = counters[child]?.number ?? 0
        let acknowledged = acknowledgedSeq[child] ?? 0
        let slack = unreported[child] ?? 0
        guard committed <= acknowledged + slack else {
            return ProcessFailure(
                kind: .afterDeath,
                message: "child \(child) acknowledged seq \(acknowledged) and \(slack) of its "
                    + "incarnations died since, yet the file holds its seq \(committed) "
                    + "(Spec D2: one commit in flight per death at most)")
        }
        return nil
    }

    /// Remembers a killed child's pid: its reader slot must go (Spec L6). Called once a
    /// snapshot taken after the death was checked, so that `checkedVersion` is at least the
    /// version the child may still pin.
    mutating func childDied(pid: Int32) {
        deadReaders.append((pid, checkedVersion))
    }

    /// Spec L6: once a write began on a version newer than a dead child could have pinned (two
    /// versions after it was found dead), that write reclaimed the dead child's slot.
    mutating func checkDeadReaders(pinning: [Int32: UInt64], livePIDs: Set<Int32>)
        -> ProcessFailure?
    {
        var kept: [(pid: Int32, version: UInt64)] = []
        for dead in deadReaders {
            guard checkedVersion >= dead.version + 2, !livePIDs.contains(dead.pid) else {
                kept.append(dead)
                continue
            }
            if let pinned = pinning[dead.pid] {
                return ProcessFailure(
                    kind: .deadReader,
                    message: "pid \(dead.pid), killed at v\(dead.version), still pins "
                        + "v\(pinned) at v\(checkedVersion): a dead process's reader slot is "
                        + "never reclaimed (Spec L6)")
            }
            deadReadersReclaimed += 1
        }
        deadReaders = kept
        return nil
    }
}
