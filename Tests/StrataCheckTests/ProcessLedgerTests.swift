import Testing

@testable import StrataCheck

/// The process campaign's oracle on snapshots made by hand: a history written whole passes, and
/// each way a kill could corrupt it (half a batch, a lost acknowledged commit, a commit without
/// its record, a dead child that went on committing, a dead reader's slot) is named with its rule.
@Suite struct ProcessLedgerTests {
    let plan = ProcessPlan(keyCount: 16, changesMax: 6, deletePercent: 20, logCapacity: 64)
    let seed: UInt64 = 9

    /// What the file holds after `commits` ((child, seq) in version order from v2).
    func snapshot(_ commits: [(child: Int, seq: Int)]) -> (ProcessSnapshot, [ProcessBatch]) {
        var snapshot = ProcessSnapshot(version: 1, items: [:], others: [:])
        var batches: [ProcessBatch] = []
        for (child, seq) in commits {
            snapshot.version += 1
            let batch = ProcessBatch(
                plan: plan, seed: seed, child: child, seq: seq, version: snapshot.version)
            for change in batch.changes {
                switch change {
                case .put(let key, let value): snapshot.items[key] = value
                case .delete(let key): snapshot.items[key] = nil
                }
            }
            snapshot.others[ProcessPlan.counterKey(child: child)] = batch.stamp.packed
            snapshot.others[plan.logKey(version: batch.version)] = batch.stamp.packed
            batches.append(batch)
        }
        return (snapshot, batches)
    }

    func ledger() -> ProcessLedger {
        ProcessLedger(plan: plan, seed: seed, childCount: 3, initialVersion: 1)
    }

    func ack(_ child: Int, _ seq: Int, _ version: UInt64) -> ProcessAcknowledgement {
        ProcessAcknowledgement(child: child, seq: seq, version: version)
    }

    @Test func aWholeHistoryPasses() {
        var ledger = ledger()
        let (snapshot, _) = snapshot([(0, 1), (1, 1), (0, 2), (2, 1), (1, 2)])
        #expect(ledger.acknowledge(ack(0, 1, 2)) == nil)
        #expect(ledger.acknowledge(ack(1, 1, 3)) == nil)
        #expect(ledger.check(snapshot, deadChild: nil) == nil)
        // Late acknowledgements are checked against the versions already replayed.
        #expect(ledger.acknowledge(ack(0, 2, 4)) == nil)
        #expect(ledger.replayedCount == 5)
    }

    @Test("Spec D2") func halfABatchIsCaught() throws {
        var ledger = ledger()
        var (snapshot, batches) = snapshot([(0, 1), (1, 1), (0, 2)])
        // The last batch's record and counter are there, one of its Items is not.
        let last = try #require(batches.last)
        guard
            case .put(let key, _) = try #require(
                last.changes.last(where: {
                    if case .put = $0 { return true } else { return false }
                }))
        else { return }
        snapshot.items[key] = nil
        let failure = ledger.check(snapshot, deadChild: nil)
        #expect(failure?.kind == .contents, "\(String(describing: failure))")
    }

    @Test("Spec D3") func aLostAcknowledgedCommitIsCaught() {
        var ledger = ledger()
        let (snapshot, _) = snapshot([(0, 1), (1, 1)])
        #expect(ledger.acknowledge(ack(2, 1, 3)) == nil)  // v3 was child 1's
        let failure = ledger.check(snapshot, deadChild: nil)
        #expect(failure?.kind == .acknowledged, "\(String(describing: failure))")
        var other = self.ledger()
        #expect(other.acknowledge(ack(0, 1, 4)) == nil)  // beyond the newest version
        #expect(other.check(snapshot, deadChild: nil)?.kind == .acknowledged)
    }

    @Test("Spec W1") func aCommitWithoutItsRecordOrOutOfOrderIsCaught() {
        var ledger = ledger()
        var (snapshot, _) = snapshot([(0, 1), (1, 1)])
        snapshot.others[plan.logKey(version: 2)] = nil
        #expect(ledger.check(snapshot, deadChild: nil)?.kind == .chain)
        var skipping = self.ledger()
        let (gap, _) = self.snapshot([(0, 1), (0, 3)])
        #expect(skipping.check(gap, deadChild: nil)?.kind == .chain)
    }

    @Test("Spec D2") func aDeadChildCommitsAtMostTheBatchItWasIn() {
        var ledger = ledger()
        #expect(ledger.acknowledge(ack(0, 1, 2)) == nil)
        ledger.incarnationEnded(child: 0)
        let (oneMore, _) = snapshot([(0, 1), (0, 2)])
        #expect(ledger.check(oneMore, deadChild: 0) == nil)
        var strict = self.ledger()
        #expect(strict.acknowledge(ack(0, 1, 2)) == nil)
        strict.incarnationEnded(child: 0)
        let (twoMore, _) = snapshot([(0, 1), (0, 2), (0, 3)])
        #expect(strict.check(twoMore, deadChild: 0)?.kind == .afterDeath)
    }

    @Test("Spec L6") func aDeadReadersSlotMustGo() {
        var ledger = ledger()
        let (snapshot, _) = snapshot([(0, 1), (1, 1), (0, 2)])
        #expect(ledger.check(snapshot, deadChild: nil) == nil)
        ledger.childDied(pid: 4242)
        let (later, _) = self.snapshot([(0, 1), (1, 1), (0, 2), (1, 2), (0, 3)])
        #expect(ledger.check(later, deadChild: nil) == nil)
        let failure = ledger.checkDeadReaders(pinning: [4242: 3], livePIDs: [])
        #expect(failure?.kind == .deadReader, "\(String(describing: failure))")
        var gone = self.ledger()
        _ = gone.check(snapshot, deadChild: nil)
        gone.childDied(pid: 4242)
        _ = gone.check(later, deadChild: nil)
        #expect(gone.checkDeadReaders(pinning: [:], livePIDs: []) == nil)
        #expect(gone.deadReadersReclaimed == 1)
    }
}
