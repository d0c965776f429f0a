/// The indices a collection notification reports between two contents of one collection
/// (Spec N7, N13): deletions at old indices, insertions at new indices, modifications at old
/// indices. The elements kept are a longest common subsequence of the two, so an element that
/// only moved relative to the others is one deletion and one insertion, and applying the
/// deletions (from the back), then the insertions (from the front) to the old contents gives
/// the new. Each list is ascending.
///
/// Written apart from the model's `ChangeSet` (the harness's oracle), and faster: Results hold
/// each object once, so their common subsequence is a longest increasing run of old positions
/// (patience sorting, O(n log n)); only a List, which may hold an object twice, takes the
/// quadratic table, and only over what is left after the common ends are trimmed.
struct CollectionDiff: Equatable {
    var deletions: [Int]
    var insertions: [Int]
    var modifications: [Int]

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// The change from `old` to `new` (element identities, in order); `isModified` says which
    /// kept elements changed.
    static func between<Key: Hashable>(old: [Key], new: [Key], isModified: (Key) -> Bool) -> CollectionDiff {
        let kept = keptPairs(old: old, new: new)
        var keptOld = [Bool](repeating: false, count: old.count)
        var keptNew = [Bool](repeating: false, count: new.count)
        for (oldIndex, newIndex) in kept {
            keptOld[oldIndex] = true
            keptNew[newIndex] = true
        }
        var diff = CollectionDiff(deletions: [], insertions: [], modifications: [])
        for index in old.indices {
            if !keptOld[index] {
                diff.deletions.append(index)
            } else if isModified(old[index]) {
                diff.modifications.append(index)
            }
        }
        for index in new.indices where !keptNew[index] { diff.insertions.append(index) }
        return diff
    }

    /// Index pairs (old, new) of a longest common subsequence, ascending in both.
    static func keptPairs<Key: Hashable>(old: [Key], new: [Key]) -> [(Int, Int)] {
        // Common ends first: most commits touch a few elements of a long collection.
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        { suffix += 1 }
        var pairs = (0..<prefix).map { ($0, $0) }
        let oldMiddle = Array(old[prefix..<(old.count - suffix)])
        let newMiddle = Array(new[prefix..<(new.count - suffix)])
        let middle =
            Set(oldMiddle).count == oldMiddle.count && Set(newMiddle).count == newMiddle.count
            ? increasingRun(old: oldMiddle, new: newMiddle)
            : commonSubsequenceTable(oldMiddle, newMiddle)
        pairs += middle.map { ($0.0 + prefix, $0.1 + prefix) }
        pairs += (0..<suffix).map { (old.count - suffix + $0, new.count - suffix + $0) }
        return pairs
    }

    /// Unique elements: the new elements that were in old, in new order, with their old
    /// positions; the longest strictly increasing run of those positions is the longest common
    /// subsequence. Ties keep the run that ends earliest in `new` at each length.
    private static func increasingRun<Key: Hashable>(old: [Key], new: [Key]) -> [(Int, Int)] {
        var oldPosition: [Key: Int] = [:]
        oldPosition.reserveCapacity(old.count)
        for (index, key) in old.enumerated() { oldPosition[key] = index }
        let candidates: [(old: Int, new: Int)] = new.enumerated().compactMap { newIndex, key in
            oldPosition[key].map { ($0, newIndex) }
        }
        // tails[k]: index into `candidates` of the smallest old position ending a run of k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: candidates.count)
        for (index, candidate) in candidates.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if candidates[tails[mid]].old < candidate.old { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [(Int, Int)] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            run.append((candidates[cursor].old, candidates[cursor].new))
            cursor = previous[cursor]
        }
        return run.reversed()
    }

    /// Any elements (a List may hold an object twice): the classic table, O(old × new).
    private static func commonSubsequenceTable<Key: Hashable>(_ old: [Key], _ new: [Key]) -> [(Int, Int)] {
        guard !old.isEmpty, !new.isEmpty else { return [] }
        let width = new.count + 1
        var lengths = [Int](repeating: 0, count: (old.count + 1) * width)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                lengths[i * width + j] =
                    old[i] == new[j]
                    ? lengths[(i + 1) * width + j + 1] + 1
                    : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var i = 0
        var j = 0
        while i < old.count, j < new.count {
            if old[i] == new[j] {
                pairs.append((i, j))
                i += 1
                j += 1
            } else if lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}
