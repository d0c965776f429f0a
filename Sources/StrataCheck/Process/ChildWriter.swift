import Foundation
import Strata
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

// The writer child of a process campaign (`strata-fuzz child-writer`): it opens the campaign's
// file through the Realm API, as a user's process would, and commits batches until it is
// killed. Each commit it reports on stdout as `commit <child> <seq> <version>` once
// `commitWrite()` returned, flushed at once, so a line the parent reads is a commit the engine
// acknowledged (Spec D3). The protocol:
//
// | line                              | when                                          |
// |-----------------------------------|-----------------------------------------------|
// | `open <child> <pid> <version>`    | the realm is open (reading `version`)          |
// | `commit <child> <seq> <version>`  | `commitWrite()` returned and made `version`    |
// | `probe <child> <name>`            | the engine first took a rare path (`Probe`)    |
//
// A line cut by the kill is incomplete and the parent drops it: it was never acknowledged.

/// A harness-side defect that makes a child lie to its parent, so that a test can show the
/// parent's checks catch a broken acknowledgement (there is no engine bug that SIGKILL alone
/// can show except the dead-reader one, `SeededBugs.neverReclaimDeadReaders`).
public enum ProcessMutation: String, Sendable, CaseIterable {
    /// The child reports a batch as committed before it calls `commitWrite()`: a kill in
    /// between loses a commit the parent was told about.
    case acknowledgeBeforeCommit
}

/// What one writer child does.
public struct ProcessChildSettings: Sendable {
    public var path: String
    public var seed: UInt64
    public var child: Int
    public var plan: ProcessPlan
    public var engineBugs: SeededBugSet
    public var mutation: ProcessMutation?
    /// Stop after this many commits (nil: until killed); for tests of the child alone.
    public var commitsMax: Int?

    public init(
        path: String, seed: UInt64, child: Int, plan: ProcessPlan,
        engineBugs: SeededBugSet, mutation: ProcessMutation?, commitsMax: Int?
    ) {
        self.path = path
        self.seed = seed
        self.child = child
        self.plan = plan
        self.engineBugs = engineBugs
        self.mutation = mutation
        self.commitsMax = commitsMax
    }
}

/// The child's loop; see the file header.
public enum ChildWriter {
    /// The configuration every process of a campaign opens the file with (the parent too).
    /// `probe` hears the engine's probe marks (the parent counts its own, the children's
    /// reach it as `probe` lines).
    static func configuration(
        path: String, engineBugs: SeededBugSet,
        probe: (@Sendable (Probe) -> Void)? = nil
    ) -> Realm.Configuration {
        var configuration = Realm.Configuration(objectTypes: CheckTypes.classes)
        configuration.fileURL = URL(fileURLWithPath: path)
        configuration._engine = .init(hooks: EngineHooks(probe: probe, bugs: engineBugs.engine))
        configuration._api = engineBugs.apiHooks
        return configuration
    }

    /// Commits batches until killed (or `commitsMax`); throws what stopped it otherwise.
    /// `emit` writes one protocol line; it must have reached the pipe when it returns. A probe
    /// is reported once per child process, when first hit, from whatever thread hit it.
    public static func run(_ settings: ProcessChildSettings, emit: @escaping @Sendable (String) -> Void)
        throws(Realm.Error)
    {
        let reported = Lock<Set<Probe>>([])
        let child = settings.child
        let configuration = configuration(path: settings.path, engineBugs: settings.engineBugs) { probe in
            if reported.withLock({ $0.insert(probe).inserted }) { emit("probe \(child) \(probe.rawValue)") }
        }
        let realm = try Realm._open(configuration: configuration, queue: nil)
        let opened = realm._readVersion ?? 0
        emit("open \(settings.child) \(getpid()) \(opened)")
        var commits = 0
        while settings.commitsMax.map({ commits < $0 }) ?? true {
            let batch = try commitOne(realm, settings, emit: emit)
            if settings.mutation != .acknowledgeBeforeCommit {
                emit("commit \(settings.child) \(batch.seq) \(batch.version)")
            }
            commits += 1
        }
    }

    /// One write transaction: the next batch after the child's counter, its counter and its
    /// commit record; returns the batch once the commit returned.
    private static func commitOne(
        _ realm: Realm, _ settings: ProcessChildSettings, emit: (String) -> Void
    ) throws(Realm.Error) -> ProcessBatch {
        try realm._beginWrite()  // waits while another process holds the lock (Spec W1)
        guard let base = realm._readVersion else {
            throw Realm.Error(.fail, "strata-check: no read version inside a write")
        }
        let counterKey = ProcessPlan.counterKey(child: settings.child)
        let counter = try realm._object(ofType: Other.self, forPrimaryKey: counterKey)
        let lastSeq =
            try counter.map { object throws(Realm.Error) -> Int in
                guard let packed = try object._value(forKey: "value") as? Int,
                    let stamp = ProcessStamp(packed: packed), stamp.child == settings.child
                else {
                    throw Realm.Error(
                        .fail, "strata-check: child \(settings.child)'s counter is not a stamp")
                }
                return stamp.number
            } ?? 0
        // Spec W16: the commit makes base + 1, so the batch can carry its own version.
        let batch = ProcessBatch(
            plan: settings.plan, seed: settings.seed, child: settings.child, seq: lastSeq + 1,
            version: base + 1)
        for change in batch.changes { try apply(change, to: realm) }
        let stamp = batch.stamp.packed
        _ = try realm._create(
            Other.self, value: ["primaryKey": counterKey, "value": stamp], update: .modified)
        _ = try realm._create(
            Other.self,
            value: ["primaryKey": settings.plan.logKey(version: batch.version), "value": stamp],
            update: .modified)
        if settings.mutation == .acknowledgeBeforeCommit {
            emit("commit \(settings.child) \(batch.seq) \(batch.version)")
        }
        try realm._commitWrite()
        guard realm._readVersion == batch.version else {
            throw Realm.Error(
                .fail,
                "strata-check: the commit on v\(base) made v\(realm._readVersion ?? 0), "
                    + "not v\(batch.version) (Spec W16)")
        }
        return batch
    }

    private static func apply(_ change: ProcessChange, to realm: Realm) throws(Realm.Error) {
        switch change {
        case .put(let key, let value):
            _ = try realm._create(
                Item.self, value: ["primaryKey": key, "value": value], update: .modified)
        case .delete(let key):
            if let object = try realm._object(ofType: Item.self, forPrimaryKey: key) {
                try realm._delete(object)
            }
        }
    }

    /// Writes `line` and a newline to stdout with one `write(2)` (retried on EINTR and short
    /// writes): no buffer a kill could lose after the line was counted as sent.
    public static func writeLine(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { raw in
                write(1, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }  // the parent is gone: nobody to tell
            offset += written
        }
    }
}
