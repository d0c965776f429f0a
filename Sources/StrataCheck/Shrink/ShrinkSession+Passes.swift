// The shrinker's passes (`ShrinkPass`), each proposing candidates through `attempt` and
// returning whether one of them was kept. `Shrinker.shrink` orders them.

extension ShrinkSession {
    /// `ShrinkPass.dropThread`: the same draws, one thread fewer.
    func dropThread() -> Bool {
        bestSettings.threads > 1 && attempt(best.choices, threads: bestSettings.threads - 1)
    }

    /// `ShrinkPass.dropContext` and `.dropContextWithWindow`: deletes every step of one
    /// context, for each context but the failing step's: the other contexts' picks keep their
    /// meaning (the context is still there, only never chosen), which deleting its steps one
    /// at a time cannot keep when each alone changes what the others' draws generate. With
    /// `windows`, together with each run of up to four consecutive steps of the others (a
    /// failure often needs one context gone and another's write too: two deletions no single
    /// one makes). Stops at the first success.
    func dropContext(windows: Bool) -> Bool {
        guard let failing = best.trace.last?.thread else { return false }
        let threads = Set(best.trace.map(\.thread)).subtracting([failing]).sorted()
        for thread in threads {
            let own = Set(best.trace.indices.filter { best.trace[$0].thread == thread })
            guard windows else {
                if let candidate = deleting(own), attempt(candidate) { return true }
                continue
            }
            let count = best.trace.count
            for width in 1...4 where width < count {
                for first in stride(from: count - 1 - width, through: 0, by: -1) {
                    let window = Set(first..<(first + width)).subtracting(own)
                    guard !window.isEmpty, let candidate = deleting(own.union(window)) else { continue }
                    if attempt(candidate) { return true }
                }
            }
        }
        return false
    }

    /// `ShrinkPass.dropSteps`: whole operations first, from the last: the draws that chose
    /// and generated one, then runs of 2, 4, 8... consecutive operations (a write and what it
    /// needed go together), repeated until none goes: cheap passes that remove the most.
    func dropSteps() -> Bool {
        var any = false
        var progress = true
        while progress {
            progress = false
            var width = 1
            while width <= max(1, best.trace.count / 2) {
                var last = best.trace.count - 1
                while last - width + 1 >= 0 {
                    let first = last - width + 1
                    let ranges = best.trace[first...last].compactMap(\.draws).filter { !$0.isEmpty }
                    if let lower = ranges.map(\.lowerBound).min(), let upper = ranges.map(\.upperBound).max(),
                        upper <= best.choices.count
                    {
                        // The whole steps first: the schedule's draws that picked them too,
                        // so the steps after keep their contexts (deleting only an
                        // operation's own draws hands its schedule draw to the next one).
                        // (Tried when it deletes more than the operations' own draws.)
                        if let steps = deleting(Set(first...last)),
                            steps.count < best.choices.count - ranges.map(\.count).reduce(0, +)
                        {
                            if attempt(steps) {
                                progress = true
                                any = true
                                last = min(last, best.trace.count) - 1
                                continue
                            }
                        }
                        var candidate = best.choices
                        if width == 1 {
                            candidate.removeSubrange(lower..<upper)
                        } else {
                            // Only the operations' own draws: the schedule's between them stay.
                            let descending = ranges.sorted { $0.lowerBound > $1.lowerBound }
                            guard zip(descending.dropFirst(), descending).allSatisfy({ $0.upperBound <= $1.lowerBound })
                            else {
                                last -= 1
                                continue
                            }
                            for range in descending { candidate.removeSubrange(range) }
                        }
                        if attempt(candidate) {
                            progress = true
                            any = true
                        }
                    }
                    last = min(last, best.trace.count) - 1
                }
                width *= 2
            }
        }
        return any
    }

    /// `ShrinkPass.dropChunks`: halves first (ddmin's order): a failure late in a long run
    /// often survives losing whole stretches before it, and one success there saves thousands
    /// of small tries. After the first size that made progress (or, when `improvedBefore`,
    /// after the first size), it stops: back to whole operations, since a deleted stretch
    /// often frees others.
    func dropChunks(improvedBefore: Bool) -> Bool {
        var improved = false
        var sizes: [Int] = []
        var size = 1
        while size <= best.choices.count / 2 {
            sizes.insert(size, at: 0)
            size *= 2
        }
        for size in sizes {
            var position = best.choices.count - size
            while position >= 0 {
                var candidate = best.choices
                candidate.removeSubrange(position..<min(candidate.count, position + size))
                if attempt(candidate) { improved = true }
                position = min(position, best.choices.count) - size
            }
            if improved || improvedBefore { break }
        }
        return improved
    }

    /// `ShrinkPass.lowerDraws`: each draw, from the last, set to zero, else halved, else
    /// lowered by one.
    func lowerDraws() -> Bool {
        var improved = false
        for position in best.choices.indices.reversed() where position < best.choices.count {
            guard best.choices[position] != 0 else { continue }
            var candidate = best.choices
            candidate[position] = 0
            if attempt(candidate) {
                improved = true
                continue
            }
            candidate[position] = best.choices[position] / 2
            if candidate[position] != best.choices[position], attempt(candidate) {
                improved = true
                continue
            }
            // One lower: a pick among a few options (the swarm's active-version limits,
            // a kind) whose simpler neighbour neither zero nor half reaches.
            candidate[position] = best.choices[position] - 1
            if candidate[position] > best.choices[position] / 2, attempt(candidate) { improved = true }
        }
        return improved
    }
}
