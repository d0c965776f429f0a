/// The free pages of one version, each tagged with the version of the commit that released it
/// (Docs/architecture.md §2 "Versions, pins and space").
///
/// Invariants (Spec D, the space rules):
/// - a page released by commit R is reusable only when R ≤ the oldest pinned version, because
///   every pinned version v ≥ R no longer reaches it;
/// - the oldest pinned version never decreases (a new pin is on the newest version or
///   duplicates an existing pin), so once reusable a run stays reusable: reusable runs drop
///   their tag and merge with their neighbours;
/// - no page is listed twice, and page 0 (the header) is never listed.
struct FreeList: Sendable, Equatable {
    struct Run: Sendable, Equatable {
        var start: UInt32
        var count: UInt32
        var end: UInt32 { start + count }
    }

    /// Reusable runs sorted by start, *descending*: the lowest page is taken from the end in
    /// O(1), keeping files compact by filling low pages first.
    private(set) var reusable: [Run] = []
    /// Not yet reusable: runs grouped by releasing version, ascending.
    private(set) var pending: [(releasedBy: Version, runs: [Run])] = []

    static func == (a: FreeList, b: FreeList) -> Bool {
        a.reusable == b.reusable && a.pending.count == b.pending.count
            && zip(a.pending, b.pending).allSatisfy { $0.releasedBy == $1.releasedBy && $0.runs == $1.runs }
    }

    var reusablePageCount: Int { reusable.reduce(0) { $0 + Int($1.count) } }
    var pendingPageCount: Int { pending.reduce(0) { $0 + $1.runs.reduce(0) { $0 + Int($1.count) } } }
    var totalPageCount: Int { reusablePageCount + pendingPageCount }
    /// The oldest releasing version still waiting for pins to drop.
    var oldestPendingRelease: Version? { pending.first?.releasedBy }

    /// Moves every run released by a version ≤ `oldestPinned` to the reusable set.
    /// Returns the number of pages that became reusable.
    @discardableResult
    mutating func promote(oldestPinned: Version) -> Int {
        var promoted: [Run] = []
        while let first = pending.first, first.releasedBy <= oldestPinned {
            promoted.append(contentsOf: first.runs)
            pending.removeFirst()
        }
        guard !promoted.isEmpty else { return 0 }
        addReusable(promoted)
        return promoted.reduce(0) { $0 + Int($1.count) }
    }

    /// Takes the lowest reusable page.
    mutating func takeLowest() -> UInt32? {
        guard let last = reusable.indices.last else { return nil }
        let page = reusable[last].start
        if reusable[last].count == 1 {
            reusable.removeLast()
        } else {
            reusable[last].start += 1
            reusable[last].count -= 1
        }
        invariant(page != 0, "the header page is never free")
        return page
    }

    /// Records `pages` as released by the commit that creates `version`.
    mutating func release(_ pages: [UInt32], by version: Version) {
        guard !pages.isEmpty else { return }
        let runs = Self.runs(of: pages)
        if let last = pending.indices.last, pending[last].releasedBy == version {
            pending[last].runs = Self.merge(pending[last].runs, runs)
        } else {
            invariant(pending.last.map { $0.releasedBy < version } ?? true, "releases arrive in version order")
            pending.append((version, runs))
        }
    }

    /// Adds pages that are free in every pinned version right now.
    mutating func addReusable(pages: [UInt32]) {
        guard !pages.isEmpty else { return }
        addReusable(Self.runs(of: pages))
    }

    private mutating func addReusable(_ runs: [Run]) {
        // `reusable` is descending; merge ascending then reverse.
        let ascending = Self.merge(Array(reusable.reversed()), runs.sorted { $0.start < $1.start })
        reusable = ascending.reversed()
    }

    /// Every entry as stored on disk: reusable runs are tagged with version 0.
    func entries() -> [(run: Run, releasedBy: Version)] {
        var result: [(Run, Version)] = reusable.reversed().map { ($0, Version.none) }
        for group in pending {
            for run in group.runs { result.append((run, group.releasedBy)) }
        }
        return result
    }

    /// Rebuilds a free list from stored entries, making reusable what `oldestPinned` allows.
    static func fromEntries(_ entries: [(run: Run, releasedBy: Version)], oldestPinned: Version) -> FreeList {
        var list = FreeList()
        var byVersion: [Version: [Run]] = [:]
        var reusableRuns: [Run] = []
        for (run, version) in entries {
            if version <= oldestPinned { reusableRuns.append(run) } else { byVersion[version, default: []].append(run) }
        }
        list.addReusable(reusableRuns)
        for version in byVersion.keys.sorted() {
            let sorted = byVersion[version, default: []].sorted { $0.start < $1.start }
            list.pending.append((version, merge([], sorted)))
        }
        return list
    }

    /// Every free page (for verification).
    func allPages() -> [UInt32] {
        var pages: [UInt32] = []
        for (run, _) in entries() { pages.append(contentsOf: run.start..<run.end) }
        return pages
    }

    // MARK: runs

    static func runs(of pages: [UInt32]) -> [Run] {
        var runs: [Run] = []
        for page in pages.sorted() {
            if let last = runs.indices.last, runs[last].end == page {
                runs[last].count += 1
            } else {
                runs.append(Run(start: page, count: 1))
            }
        }
        return runs
    }

    /// Merges two ascending run lists, coalescing neighbours.
    static func merge(_ a: [Run], _ b: [Run]) -> [Run] {
        var result: [Run] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            let next: Run
            if j >= b.count || (i < a.count && a[i].start < b[j].start) {
                next = a[i]
                i += 1
            } else {
                next = b[j]
                j += 1
            }
            if let last = result.indices.last, result[last].end == next.start {
                result[last].count += next.count
            } else {
                invariant(result.last.map { $0.end <= next.start } ?? true, "free runs never overlap")
                result.append(next)
            }
        }
        return result
    }
}
