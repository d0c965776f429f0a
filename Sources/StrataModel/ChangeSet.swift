// Change sets of collection notifications (Spec N7, N13, N15), as pure functions the model
// uses and the harness reuses as an oracle.

public enum ChangeSet {
    /// The change from `old` to `new` (element identities). Elements kept in the same relative
    /// order (a longest common subsequence) are neither deleted nor inserted; every other old
    /// element is a deletion (old index) and every other new element an insertion (new index);
    /// kept elements for which `isModified` holds are modifications at their OLD index.
    /// Spec N13: each list is ascending and independent of the order of operations.
    /// - Complexity: O(old.count × new.count).
    public static func between<Element: Hashable>(
        old: [Element], new: [Element], isModified: (Element) -> Bool
    ) -> CollectionChange {
        let newSet = Set(new)
        let oldSet = Set(old)
        let oldKept = old.enumerated().filter { newSet.contains($0.element) }
        let newKept = new.enumerated().filter { oldSet.contains($0.element) }
        let common = longestCommonSubsequence(oldKept.map(\.element), newKept.map(\.element))
        var keptOldIndices: Set<Int> = []
        var keptNewIndices: Set<Int> = []
        for (oldPosition, newPosition) in common {
            keptOldIndices.insert(oldKept[oldPosition].offset)
            keptNewIndices.insert(newKept[newPosition].offset)
        }
        let deletions = old.indices.filter { !keptOldIndices.contains($0) }
        let insertions = new.indices.filter { !keptNewIndices.contains($0) }
        let modifications = old.indices.filter {
            keptOldIndices.contains($0) && isModified(old[$0])
        }
        return CollectionChange(
            deletions: deletions, insertions: insertions,
            modifications: modifications)
    }

    /// Spec N7: applying deletions (old indices, from the back), then insertions (new indices,
    /// from the front, taking the inserted elements from `new`) to `old`. A correct change set
    /// gives back `new`.
    public static func apply<Element>(
        _ change: CollectionChange, to old: [Element],
        new: [Element]
    ) -> [Element]? {
        var result = old
        for index in change.deletions.sorted(by: >) {
            guard index < result.count else { return nil }
            result.remove(at: index)
        }
        for index in change.insertions.sorted() {
            guard index <= result.count, index < new.count else { return nil }
            result.insert(new[index], at: index)
        }
        return result
    }

    /// Spec N15: the keys a Map notification reports. Replacing the whole Map reports every old
    /// key deleted and every new key inserted; otherwise a key set to nil or removed is
    /// deleted, a new key inserted, and a key whose value was set is modified.
    public static func mapChange<Value: Equatable>(
        old: [String: Value?], new: [String: Value?], replacedWhole: Bool,
        setKeys: Set<String>
    ) -> (deleted: [String], inserted: [String], modified: [String]) {
        if replacedWhole { return (old.keys.sorted(), new.keys.sorted(), []) }
        var deleted: [String] = []
        var inserted: [String] = []
        var modified: [String] = []
        for key in Set(old.keys).union(new.keys).sorted() {
            let before = old[key] ?? nil
            let after = new[key] ?? nil
            switch (before, after) {
            case (.some, .none): deleted.append(key)
            case (.none, .some): inserted.append(key)
            case (.some, .some): if setKeys.contains(key) { modified.append(key) }
            case (.none, .none): break
            }
        }
        return (deleted, inserted, modified)
    }

    /// Index pairs of a longest common subsequence, in order.
    static func longestCommonSubsequence<Element: Equatable>(_ a: [Element], _ b: [Element])
        -> [(Int, Int)]
    {
        guard !a.isEmpty, !b.isEmpty else { return [] }
        var lengths = Array(
            repeating: Array(repeating: 0, count: b.count + 1),
            count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i][j] =
                    a[i] == b[j]
                    ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                pairs.append((i, j))
                i += 1
                j += 1
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}
