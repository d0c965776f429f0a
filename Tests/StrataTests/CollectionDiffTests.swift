import StrataModel
import StrataStorage
import Testing

@testable import Strata

/// The change sets collection notifications will report (Spec N7, N13), on random
/// changes: applying them to the old contents gives the new ones, they keep as much as the
/// model's own longest common subsequence (`ChangeSet`, written separately), and they mark
/// exactly the kept elements that changed, at old indices.
@Suite struct CollectionDiffTests {
    /// Deletions from the back, then insertions from the front taking the new elements.
    private func apply(_ diff: CollectionDiff, to old: [Int], new: [Int]) -> [Int]? {
        var result = old
        for index in diff.deletions.reversed() {
            guard index < result.count else { return nil }
            result.remove(at: index)
        }
        for index in diff.insertions {
            guard index <= result.count, index < new.count else { return nil }
            result.insert(new[index], at: index)
        }
        return result
    }

    /// A random edit of `old`: deletions, insertions of fresh or (with duplicates) existing
    /// elements, and moves.
    private func edited(_ old: [Int], random: inout SplitMix64, duplicates: Bool, fresh: inout Int) -> [Int] {
        var new = old
        for _ in 0..<random.below(6) {
            switch random.below(3) {
            case 0 where !new.isEmpty:
                new.remove(at: random.below(new.count))
            case 1:
                let element: Int
                if duplicates, !old.isEmpty, random.below(2) == 0 {
                    element = old[random.below(old.count)]
                } else {
                    fresh += 1
                    element = fresh
                }
                new.insert(element, at: random.below(new.count + 1))
            default:
                guard !new.isEmpty else { continue }
                let element = new.remove(at: random.below(new.count))
                new.insert(element, at: random.below(new.count + 1))
            }
        }
        return new
    }

    @Test(arguments: [false, true]) func appliedChangesGiveTheNewContents(duplicates: Bool) throws {
        var random = SplitMix64(seed: duplicates ? 7 : 3)
        for _ in 0..<3000 {
            var fresh = 1000
            let count = random.below(24)
            var old = (0..<count).map { $0 }
            if duplicates { old = old.map { _ in random.below(max(1, count / 2)) } }
            let new = edited(old, random: &random, duplicates: duplicates, fresh: &fresh)
            let modifiedKeys = Set(old.filter { _ in random.below(4) == 0 })
            let diff = CollectionDiff.between(old: old, new: new) { modifiedKeys.contains($0) }
            let context = "old \(old) new \(new) diff \(diff)"
            #expect(apply(diff, to: old, new: new) == new, "\(context)")
            for list in [diff.deletions, diff.insertions, diff.modifications] {
                #expect(list == list.sorted() && Set(list).count == list.count, "\(context)")
            }
            let oracle = ChangeSet.between(old: old, new: new) { modifiedKeys.contains($0) }
            #expect(
                diff.deletions.count == oracle.deletions.count,
                "kept fewer than a longest common subsequence: \(context)")
            let deleted = Set(diff.deletions)
            let keptModified = old.indices.filter { !deleted.contains($0) && modifiedKeys.contains(old[$0]) }
            #expect(diff.modifications == keptModified, "\(context)")
        }
    }

    // Spec N13's example: over [1, 2, 3, 4], deleting 2 and changing 3 to 4 gives deletions
    // [1] and modifications [2] (old indices).
    @Test func theSpecExampleUsesOldIndices() {
        let diff = CollectionDiff.between(old: [1, 2, 3, 4], new: [1, 3, 4]) { $0 == 3 }
        #expect(diff == CollectionDiff(deletions: [1], insertions: [], modifications: [2]))
        let moved = CollectionDiff.between(old: [1, 2, 3], new: [3, 1, 2]) { _ in false }
        #expect(moved == CollectionDiff(deletions: [2], insertions: [0], modifications: []))
    }
}
