import StrataStorage

// What the writer children of a process campaign write, shared by the child (which writes it)
// and the parent (which replays it to know what the file must hold).
//
// A batch is a pure function of (campaign seed, child id, sequence number, version): the child
// draws nothing else, so the parent can rebuild any batch from the commit record the child
// left in the file. The file describes itself:
//
// | table | primary key                    | value                                   |
// |-------|--------------------------------|-----------------------------------------|
// | Item  | 0..<keyCount                   | stamp(version, child, index in batch)   |
// | Other | -1 - child (a child's counter) | stamp(version, child, seq) of its last  |
// | Other | version % logCapacity (log)    | stamp(version, child, seq) of that commit |
//
// The counter is read inside the write transaction, so a respawned child resumes after the last
// batch its predecessor committed, and seqs are consecutive per child across incarnations: a
// lost commit or a commit applied twice breaks the run of seqs (Spec W1, D3).

/// A `(version, child, number)` packed into one Int64 value.
public struct ProcessStamp: Sendable, Hashable, CustomStringConvertible {
    /// Versions must fit 31 bits, children 8, numbers 24: ample for any campaign.
    static let versionMax: UInt64 = 1 << 31 - 1
    static let childMax = 255
    static let numberMax = 1 << 24 - 1

    public var version: UInt64
    public var child: Int
    /// The seq for counters and log records, the index in its batch for Items.
    public var number: Int

    public init(version: UInt64, child: Int, number: Int) {
        precondition(version <= Self.versionMax, "version past what a stamp holds")
        precondition((0...Self.childMax).contains(child), "child id past what a stamp holds")
        precondition((0...Self.numberMax).contains(number), "number past what a stamp holds")
        self.version = version
        self.child = child
        self.number = number
    }

    /// Decodes a stored value; nil when it cannot be a stamp (the file holds something else).
    public init?(packed: Int) {
        guard packed >= 0 else { return nil }
        version = UInt64(packed >> 32)
        child = (packed >> 24) & 0xFF
        number = packed & Self.numberMax
    }

    public var packed: Int { Int(version) << 32 | child << 24 | number }

    public var description: String { "v\(version)/c\(child)/#\(number)" }
}

/// The shape of a campaign's batches, drawn once from its choice stream.
public struct ProcessPlan: Sendable, Hashable, CustomStringConvertible {
    /// Item keys are drawn from `0..<keyCount`, shared by every child, so children overwrite
    /// each other's objects and the order of commits shows in the contents.
    public var keyCount: Int
    /// Changes per batch, at most (a batch has 1...changesMax).
    public var changesMax: Int
    /// How many changes in a hundred delete their key instead of writing it.
    public var deletePercent: Int
    /// Commit records kept (a ring keyed by version); the parent checks often enough never to
    /// fall this far behind.
    public var logCapacity: Int

    public static let logCapacityDefault = 4096

    public init(
        keyCount: Int, changesMax: Int, deletePercent: Int,
        logCapacity: Int = ProcessPlan.logCapacityDefault
    ) {
        precondition(keyCount >= 1 && changesMax >= 1, "a plan needs keys and changes")
        precondition((0...100).contains(deletePercent), "a percentage")
        precondition(logCapacity >= 16, "a log too small to check anything")
        self.keyCount = keyCount
        self.changesMax = changesMax
        self.deletePercent = deletePercent
        self.logCapacity = logCapacity
    }

    /// Mostly small batches on few keys (many conflicts between children); one plan in three
    /// writes big batches on many keys, so that a commit dirties many pages and a kill lands
    /// inside its page writes more often.
    static func draw(_ stream: inout ChoiceStream) -> ProcessPlan {
        let wide = stream.chance(33)
        let keyCount = wide ? 256 + stream.draw(2048) : 4 + stream.draw(60)
        let changesMax = wide ? 16 + stream.draw(112) : 1 + stream.draw(8)
        return ProcessPlan(
            keyCount: keyCount, changesMax: changesMax, deletePercent: [0, 10, 25][stream.draw(3)])
    }

    public var description: String {
        "keys \(keyCount), changes ≤ \(changesMax), delete \(deletePercent)%, "
            + "log \(logCapacity)"
    }

    /// The primary key of a child's counter object in Other.
    public static func counterKey(child: Int) -> Int { -1 - child }

    /// The primary key of the commit record of `version` in Other.
    public func logKey(version: UInt64) -> Int { Int(version % UInt64(logCapacity)) }
}

/// One change of a batch.
public enum ProcessChange: Sendable, Hashable {
    case put(key: Int, value: Int)
    case delete(key: Int)
}

/// The batch a child writes as its `seq`-th commit, which becomes `version`.
public struct ProcessBatch: Sendable, Hashable {
    public var child: Int
    public var seq: Int
    public var version: UInt64
    /// The Item changes in the order the child makes them (a later change of a key wins).
    public var changes: [ProcessChange]

    public init(plan: ProcessPlan, seed: UInt64, child: Int, seq: Int, version: UInt64) {
        self.child = child
        self.seq = seq
        self.version = version
        // The version is not in the seed: a batch's keys depend only on who wrote it and when in
        // its own sequence, so a batch retried after a kill writes the same keys.
        var random = SplitMix64(
            seed: seed ^ (UInt64(child) &* 0xD6E8_FEB8_6659_FD93)
                ^ (UInt64(seq) &* 0x9E37_79B9_7F4A_7C15))
        let count = 1 + random.below(plan.changesMax)
        changes = (0..<count).map { index in
            let key = random.below(plan.keyCount)
            if random.below(100) < plan.deletePercent { return .delete(key: key) }
            let stamp = ProcessStamp(version: version, child: child, number: index)
            return .put(key: key, value: stamp.packed)
        }
    }

    /// The stamp of the counter and of the commit record.
    public var stamp: ProcessStamp { ProcessStamp(version: version, child: child, number: seq) }
}
