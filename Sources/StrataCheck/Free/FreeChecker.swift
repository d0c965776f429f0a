// The free-mode oracle (Docs/architecture.md §5 "Oracles"): an exact isolation check from version stamps.
//
// Free threads run unsynchronised, so nobody knows the interleaving; but every read recorded
// the version it read and every commit the version it made, and the Spec fixes what each
// version holds. So, after the run:
//
//  1. Commits, sorted by version, form one chain from the initial version: versions distinct
//     (Spec W1, one writer), each write based on the version before it (Spec V11, a write
//     starts at the newest version: a second writer on the same base is a lost update), and
//     each commit makes its base + 1 (Spec W16).
//  2. Every observed version is one that chain made; a frozen realm reads only the version
//     it was frozen at (Spec F1, F2).
//  3. Replaying the commits in version order over a dictionary gives the state of each
//     version; every read at version v equals that state exactly, plus the write's own
//     changes inside a write (Spec V1, W4). Reads are sorted by version, so one sweep does it.
//  4. Real time: a read that began a read transaction, a refresh, a freeze of a realm that was
//     not reading and a beginWrite all go to the newest version (Spec V3, V10, V11), so each
//     reads at least the version of every commit that returned before it began; a write that
//     began after a commit returned makes a larger version. One sweep over commits sorted by
//     return time and observations sorted by start time.
//  5. A thread's live realm never goes back (Spec V2, V3: moves only go to the newest).
//  6. After the run, a fresh realm reads the newest version of the chain and its contents.
//
// Cost: O(n log n) for the sorts, then linear in the events and the objects they saw.

import Foundation

/// What a free run found wrong, with the events that show it.
public struct FreeFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The engine threw where nothing should fail.
        case engineError
        /// Two commits made one version, or a write did not begin at the newest version.
        case lostUpdate
        /// A commit did not make its base version + 1.
        case commitVersion
        /// An observation at a version no commit made.
        case unknownVersion
        /// A frozen realm read another version than its own.
        case frozen
        /// A read differs from the state of its version.
        case isolation
        /// An observation older than a commit that returned before it began.
        case realTime
        /// A thread's live realm went back to an older version.
        case wentBack
        /// After the run the file does not hold the newest version's state.
        case finalState
        /// `Store.verify()` found damage after the run.
        case verify
        /// A thread did not finish in time (a deadlock or a lost wake-up).
        case hung
    }

    public var kind: Kind
    public var message: String
    /// Lines around the finding: the event at fault and the commits about its version.
    public var excerpt: [String]

    public init(kind: Kind, message: String, excerpt: [String] = []) {
        self.kind = kind
        self.message = message
        self.excerpt = excerpt
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

/// Judges a `FreeLog`; see the file header for the rules.
public struct FreeChecker {
    /// How many commits on each side of a version an excerpt shows.
    static let excerptCommitsAround = 3

    let log: FreeLog
    /// Commits in version order (ties kept: they are what rule 1 reports).
    private let commits: [(event: FreeEvent, commit: FreeCommit)]
    /// The earliest clock reading, so messages show times relative to the run.
    private let originNanos: UInt64

    public init(_ log: FreeLog) {
        self.log = log
        var commits: [(event: FreeEvent, commit: FreeCommit)] = []
        var origin = UInt64.max
        for event in log.events {
            switch event.kind {
            case .commit(let commit):
                commits.append((event, commit))
                origin = min(origin, commit.beganAtNanos)
            case .read(let read): origin = min(origin, read.startedAtNanos ?? .max)
            case .move(let move): origin = min(origin, move.startedAtNanos)
            case .freeze(let freeze): origin = min(origin, freeze.startedAtNanos ?? .max)
            case .cancel, .engineError: break
            }
        }
        self.commits = commits.sorted {
            ($0.commit.version, $0.event.thread, $0.event.index)
                < ($1.commit.version, $1.event.thread, $1.event.index)
        }
        originNanos = origin == .max ? 0 : origin
    }

    /// The first rule the log breaks, in the order of the file header; nil when it holds.
    public static func check(_ log: FreeLog) -> FreeFailure? { FreeChecker(log).check() }

    public func check() -> FreeFailure? {
        if let failure = checkEngineErrors() { return failure }
        if let failure = checkCommitChain() { return failure }
        if let failure = checkKnownVersions() { return failure }
        if let failure = checkFrozenVersions() { return failure }
        if let failure = checkContents() { return failure }
        if let failure = checkRealTime() { return failure }
        if let failure = checkNeverBack() { return failure }
        return checkFinalState()
    }

    /// The version the chain ends at.
    var newestVersion: UInt64 { commits.last?.commit.version ?? log.initialVersion }

    // MARK: rules 1 and 2

    private func checkEngineErrors() -> FreeFailure? {
        for event in log.events {
            guard case .engineError = event.kind else { continue }
            // The excerpt shows the commits about the version the thread last read.
            let before = log.events.filter {
                $0.thread == event.thread && $0.index < event.index && $0.liveVersion != nil
            }
            let version = before.max { $0.index < $1.index }?.liveVersion ?? log.initialVersion
            return FreeFailure(
                kind: .engineError, message: event.description,
                excerpt: excerpt([event], around: version))
        }
        return nil
    }

    private func checkCommitChain() -> FreeFailure? {
        var previous = log.initialVersion
        var previousCommit: FreeEvent?
        for (event, commit) in commits {
            if let earlier = previousCommit, commit.version == previous {
                return FreeFailure(
                    kind: .lostUpdate,
                    message: "Spec W1: two commits made v\(commit.version): "
                        + "\(earlier.name) and \(event.name)",
                    excerpt: excerpt([earlier, event], around: commit.version))
            }
            if commit.baseVersion != previous {
                let maker =
                    previousCommit.map { " (made by \($0.name))" } ?? " (the initial version)"
                return FreeFailure(
                    kind: .lostUpdate,
                    message: "Spec V11: \(event.name)'s write began at v\(commit.baseVersion), "
                        + "but the version before its commit is v\(previous)\(maker): "
                        + "it did not start at the newest version",
                    excerpt: excerpt([event], around: commit.version))
            }
            if commit.version != commit.baseVersion + 1 {
                return FreeFailure(
                    kind: .commitVersion,
                    message:
                        "Spec W16: \(event.name)'s write began at v\(commit.baseVersion) and made "
                        + "v\(commit.version), not v\(commit.baseVersion + 1)",
                    excerpt: excerpt([event], around: commit.version))
            }
            previous = commit.version
            previousCommit = event
        }
        return nil
    }

    private func checkKnownVersions() -> FreeFailure? {
        let newest = newestVersion
        for event in log.events {
            guard let version = Self.observedVersion(event) else { continue }
            // The chain is gapless (rule 1), so the versions it made are one range.
            if version < log.initialVersion || version > newest {
                return FreeFailure(
                    kind: .unknownVersion,
                    message: "Spec W16: \(event.name) observed v\(version), which no commit made "
                        + "(the run's versions are v\(log.initialVersion)...v\(newest))",
                    excerpt: excerpt([event], around: version))
            }
        }
        return nil
    }

    private func checkFrozenVersions() -> FreeFailure? {
        for event in log.events {
            switch event.kind {
            case .freeze(let freeze) where freeze.frozen.version != freeze.liveVersion:
                return FreeFailure(
                    kind: .frozen,
                    message: "Spec F1: \(event.name) froze a realm reading "
                        + "v\(freeze.liveVersion) into \(freeze.frozen)",
                    excerpt: excerpt([event], around: freeze.liveVersion))
            case .read(let read):
                if let tag = read.frozen, tag.version != read.version {
                    return FreeFailure(
                        kind: .frozen,
                        message: "Spec F2: \(event.name) read \(tag) at v\(read.version)",
                        excerpt: excerpt([event], around: tag.version))
                }
            default:
                break
            }
        }
        return nil
    }

    // MARK: rule 3

    private func checkContents() -> FreeFailure? {
        var reads: [(event: FreeEvent, read: FreeRead)] = []
        for event in log.events {
            if case .read(let read) = event.kind { reads.append((event, read)) }
        }
        reads.sort {
            ($0.read.version, $0.event.thread, $0.event.index) < (
                $1.read.version, $1.event.thread, $1.event.index
            )
        }
        var state = FreeState(log.initialObjects)
        var next = 0
        for (event, read) in reads {
            while next < commits.count && commits[next].commit.version <= read.version {
                state.apply(commits[next].commit.changes)
                next += 1
            }
            if let difference = state.difference(from: read) {
                var message = "Spec V1: \(event.name) read \(difference)"
                if let matches = matchingVersions(read) {
                    message += "; what it saw is the state of \(matches)"
                }
                return FreeFailure(
                    kind: .isolation, message: message,
                    excerpt: excerpt([event], around: read.version))
            }
        }
        return nil
    }

    /// The versions whose state equals what `read` saw (only computed for a report).
    private func matchingVersions(_ read: FreeRead) -> String? {
        var state = FreeState(log.initialObjects)
        var matches: [UInt64] = []
        var probe = read
        probe.version = log.initialVersion
        if state.difference(from: probe) == nil { matches.append(log.initialVersion) }
        for (_, commit) in commits {
            state.apply(commit.changes)
            probe.version = commit.version
            if state.difference(from: probe) == nil { matches.append(commit.version) }
        }
        guard !matches.isEmpty else { return nil }
        return matches.prefix(4).map { "v\($0)" }.joined(separator: ", ")
            + (matches.count > 4 ? ", ..." : "")
    }

    // MARK: rules 4 and 5

    private func checkRealTime() -> FreeFailure? {
        let returned = commits.sorted { $0.commit.returnedAtNanos < $1.commit.returnedAtNanos }
        var starts: [(nanos: UInt64, version: UInt64, isCommit: Bool, event: FreeEvent)] = []
        for event in log.events {
            switch event.kind {
            case .read(let read):
                if let nanos = read.startedAtNanos, read.frozen == nil {
                    starts.append((nanos, read.version, false, event))
                }
            case .move(let move): starts.append((move.startedAtNanos, move.version, false, event))
            case .freeze(let freeze):
                if let nanos = freeze.startedAtNanos {
                    starts.append((nanos, freeze.liveVersion, false, event))
                }
            case .commit(let commit):
                starts.append((commit.beganAtNanos, commit.version, true, event))
            case .cancel, .engineError: break
            }
        }
        starts.sort { $0.nanos < $1.nanos }
        var next = 0
        var latest: (version: UInt64, returnedAtNanos: UInt64, event: FreeEvent)?
        for start in starts {
            // Strictly before: equal readings do not order the two in real time.
            while next < returned.count && returned[next].commit.returnedAtNanos < start.nanos {
                let candidate = returned[next]
                if candidate.commit.version > (latest?.version ?? 0) {
                    latest = (
                        candidate.commit.version, candidate.commit.returnedAtNanos, candidate.event
                    )
                }
                next += 1
            }
            guard let latest else { continue }
            let late =
                start.isCommit ? start.version <= latest.version : start.version < latest.version
            if late {
                let what =
                    start.isCommit
                    ? "committed v\(start.version), not above it" : "read v\(start.version)"
                return FreeFailure(
                    kind: .realTime,
                    message: "Spec \(start.isCommit ? "W1, W16" : "V3, V10, V11"): "
                        + "\(start.event.name) began at \(time(start.nanos)), after "
                        + "\(latest.event.name)'s commit of v\(latest.version) returned at "
                        + "\(time(latest.returnedAtNanos)), yet \(what)",
                    excerpt: excerpt([start.event, latest.event], around: latest.version))
            }
        }
        return nil
    }

    private func checkNeverBack() -> FreeFailure? {
        let ordered = log.events.sorted { ($0.thread, $0.index) < ($1.thread, $1.index) }
        var last: (thread: Int, version: UInt64, event: FreeEvent)?
        for event in ordered {
            guard let version = event.liveVersion else { continue }
            if let last, last.thread == event.thread, version < last.version {
                return FreeFailure(
                    kind: .wentBack,
                    message: "Spec V2, V3: \(event.name) reads v\(version) "
                        + "after \(last.event.name) read v\(last.version)",
                    excerpt: excerpt([last.event, event], around: version))
            }
            last = (event.thread, version, event)
        }
        return nil
    }

    // MARK: rule 6

    private func checkFinalState() -> FreeFailure? {
        guard let finalVersion = log.finalVersion, let finalObjects = log.finalObjects else {
            return nil
        }
        let newest = newestVersion
        if finalVersion != newest {
            return FreeFailure(
                kind: .finalState,
                message: "after the run a fresh realm reads v\(finalVersion), "
                    + "but the last commit made v\(newest)",
                excerpt: excerpt([], around: newest))
        }
        var state = FreeState(log.initialObjects)
        for (_, commit) in commits { state.apply(commit.changes) }
        let read = FreeRead(version: newest, scope: .all, seen: finalObjects)
        if let difference = state.difference(from: read) {
            return FreeFailure(
                kind: .finalState, message: "after the run the file \(difference)",
                excerpt: excerpt([], around: newest))
        }
        return nil
    }

    // MARK: pieces

    /// The version an event claims to have observed, for rule 2.
    private static func observedVersion(_ event: FreeEvent) -> UInt64? {
        switch event.kind {
        case .read(let read): return read.version
        case .move(let move): return move.version
        case .cancel(let version): return version
        case .freeze(let freeze): return freeze.liveVersion
        case .commit, .engineError: return nil
        }
    }

    /// Microseconds since the run's first clock reading.
    private func time(_ nanos: UInt64) -> String {
        let micros = Double(nanos &- originNanos) / 1000
        return "+" + String(format: "%.1f", micros) + " µs"
    }

    /// The events at fault, then the commits about `version` (who made each, from what).
    func excerpt(_ events: [FreeEvent], around version: UInt64) -> [String] {
        var lines = events.map { "at fault: \($0)" }
        let low =
            version > UInt64(Self.excerptCommitsAround)
            ? version - UInt64(Self.excerptCommitsAround) : 0
        let high = version + UInt64(Self.excerptCommitsAround)
        let around = commits.filter { (low...high).contains($0.commit.version) }
        if around.isEmpty {
            lines.append(
                "no commit made v\(low)...v\(high) (initial version v\(log.initialVersion))")
        }
        for (event, _) in around { lines.append("commit: \(event)") }
        return lines
    }
}

/// The state of one version: every object's value, built by replaying commits in order.
struct FreeState {
    private var values: [FreeKey: Int?] = [:]

    init(_ objects: [FreeObject]) {
        for object in objects { values[object.key] = .some(object.value) }
    }

    mutating func apply(_ changes: [FreeChange]) {
        for change in changes {
            switch change {
            case .put(let key, let value): values[key] = .some(value)
            case .delete(let key): values[key] = nil
            }
        }
    }

    /// nil when `read` saw exactly this state (with its own changes on top), else what differs.
    func difference(from read: FreeRead) -> String? {
        var expected = self
        if let own = read.ownChanges { expected.apply(own) }
        let seen = read.seen.sorted { $0.key < $1.key }
        switch read.scope {
        case .all:
            let whole = expected.objects
            if seen == whole { return nil }
            return "at v\(read.version) \(seen.count) objects where it holds \(whole.count): "
                + Self.differences(seen: seen, expected: whole)
        case .object(let key):
            let one = expected.values[key].map { [FreeObject(key, $0)] } ?? []
            if seen == one { return nil }
            return "\(key) at v\(read.version) as {\(Self.text(seen))} "
                + "where it holds {\(Self.text(one))}"
        case .exists(let key):
            let exists = expected.values[key] != nil
            if seen.isEmpty != exists { return nil }
            return
                "\(key) at v\(read.version) as \(seen.isEmpty ? "absent" : "present") where it is "
                + (exists ? "present" : "absent")
        }
    }

    /// Every object, in key order.
    var objects: [FreeObject] {
        values.map { FreeObject($0.key, $0.value) }.sorted { $0.key < $1.key }
    }

    /// What differs between two key-ordered lists, first few only: `I4 missing (holds 207)`,
    /// `I8 saw 3 (holds 5)`, `O3=5 extra`.
    static let differencesShownMax = 6

    private static func differences(seen: [FreeObject], expected: [FreeObject]) -> String {
        var found: [String] = []
        var (left, right) = (0, 0)
        while (left < seen.count || right < expected.count) && found.count < differencesShownMax {
            let saw = left < seen.count ? seen[left] : nil
            let holds = right < expected.count ? expected[right] : nil
            if let saw, let holds, saw.key == holds.key {
                if saw.value != holds.value {
                    found.append("\(saw.key) saw \(text(saw.value)) (holds \(text(holds.value)))")
                }
                left += 1
                right += 1
            } else if let saw, holds.map({ saw.key < $0.key }) ?? true {
                found.append("\(saw) extra (or seen twice)")
                left += 1
            } else if let holds {
                found.append("\(holds.key) missing (holds \(text(holds.value)))")
                right += 1
            }
        }
        return found.joined(separator: ", ")
    }

    private static func text(_ value: Int?) -> String { value.map(String.init) ?? "nil" }

    private static func text(_ objects: [FreeObject]) -> String {
        objects.map(\.description).joined(separator: " ")
    }
}
