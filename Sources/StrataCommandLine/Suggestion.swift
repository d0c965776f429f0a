/// Finds the declared name a user most likely meant, for "did you mean" hints.
enum Suggestion {
    /// The candidate closest to `typed`, or `nil` when none is close enough to be a typo.
    static func closest(to typed: String, among candidates: [String]) -> String? {
        let lowered = typed.lowercased()
        // Short names tolerate one edit, longer ones two: beyond that the hint is noise.
        let threshold = min(2, max(1, lowered.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance <= threshold, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        if let best { return best.candidate }
        // An abbreviation ("--comm" for "--commits") is far by edits but obviously meant.
        if lowered.count >= 3 {
            return candidates.first { $0.lowercased().hasPrefix(lowered) }
        }
        return nil
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    /// adjacent characters each cost one, because a swap is the commonest typing slip.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs)
        let b = Array(rhs)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                current[j] = value
            }
            beforePrevious = previous
            previous = current
        }
        return previous[b.count]
    }
}
