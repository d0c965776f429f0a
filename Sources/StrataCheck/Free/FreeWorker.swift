import Foundation
import Strata
import StrataStorage

/// A frozen realm held by a free thread, with its name in the log.
///
/// `@unchecked Sendable`: Spec C10, a frozen realm may be used from any thread; the harness
/// passes frozen realms between threads through `FreeExchange` to exercise exactly that.
struct HeldFrozen: @unchecked Sendable {
    let realm: Realm
    let tag: FreeFrozenTag
}

/// One frozen realm that every free thread of a run may read (the hand-over is the harness's
/// only lock between threads, and it is never held across an engine call).
final class FreeExchange: Sendable {
    private let slot = Lock<HeldFrozen?>(nil)

    func put(_ held: HeldFrozen) { slot.withLock { $0 = held } }
    func peek() -> HeldFrozen? { slot.withLock { $0 } }
    func clear() { slot.withLock { $0 = nil } }
}

/// The monotonic clock free mode stamps real-time order with. A clock rather than a shared
/// atomic ticket: an atomic read-modify-write would order the threads for ThreadSanitizer and
/// hide races the engine's own synchronisation should prevent.
enum FreeClock {
    static func nanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// One free thread: its own program (a SplitMix64 seeded from the run's choice stream), its
/// own live realm, its own log. It runs on the thread it was made for and is never shared.
///
/// The program does not depend on what the engine returns (a delete of a missing object is
/// still drawn), so the same seed gives the same program; only the interleaving, and hence
/// the observations, differ from run to run.
final class FreeWorker {
    /// Frozen realms a thread keeps at most (each pins a version).
    static let heldFrozenMax = 2

    private let thread: Int
    private let configuration: Realm.Configuration
    private let plan: FreePlan
    private let exchange: FreeExchange
    private var random: SplitMix64
    private var events: [FreeEvent] = []
    private var realm: Realm?
    private var frozen: [HeldFrozen] = []
    /// Values written so far: every put writes a value no other put of the run writes.
    private var puts = 0
    private var freezes = 0
    private(set) var operationsRun = 0

    init(
        thread: Int, seed: UInt64, configuration: Realm.Configuration, plan: FreePlan,
        exchange: FreeExchange
    ) {
        self.thread = thread
        random = SplitMix64(seed: seed)
        self.configuration = configuration
        self.plan = plan
        self.exchange = exchange
    }

    /// Runs `operations` operations and returns the log. An unexpected engine error is logged
    /// and ends the program (the realm's state is then unknown).
    func run(operations: Int) -> [FreeEvent] {
        let total = plan.weights.reduce(0, +)
        for _ in 0..<operations {
            var point = random.below(total)
            var chosen = FreePlan.Operation.readAll
            for (operation, weight) in zip(FreePlan.Operation.allCases, plan.weights) {
                if point < weight {
                    chosen = operation
                    break
                }
                point -= weight
            }
            operationsRun += 1
            do throws(Realm.Error) {
                try perform(chosen)
            } catch {
                record(.engineError(operation: chosen.rawValue, message: error.description))
                break
            }
        }
        // Released here, on the owning thread: a write left open rolls back (Spec W7).
        frozen = []
        realm = nil
        return events
    }

    private func perform(_ operation: FreePlan.Operation) throws(Realm.Error) {
        switch operation {
        case .readAll: try readAll(ownChanges: nil)
        case .readObject: try readObject(randomKey(), ownChanges: nil)
        case .write: try write()
        case .refresh: try refresh()
        case .freeze: try freeze()
        case .readFrozen: try readFrozen()
        case .dropFrozen: if !frozen.isEmpty { frozen.remove(at: random.below(frozen.count)) }
        case .invalidate: try realm?._invalidate()
        case .reopen: realm = nil  // the next operation opens a new instance (Spec C1)
        }
    }

    // MARK: reads

    private func readAll(ownChanges: [FreeChange]?) throws(Realm.Error) {
        let realm = try live()
        let startedAt = realm._readVersion == nil ? FreeClock.nanos() : nil
        let seen = try Self.wholeContents(of: realm)
        let version = try Self.version(of: realm, after: "objects()")
        record(
            .read(
                FreeRead(
                    version: version, scope: .all, seen: seen, ownChanges: ownChanges,
                    startedAtNanos: startedAt)))
    }

    /// Looks `key` up, logs what it saw, and returns the object.
    @discardableResult
    private func readObject(_ key: FreeKey, ownChanges: [FreeChange]?) throws(Realm.Error)
        -> Object?
    {
        let realm = try live()
        let startedAt = realm._readVersion == nil ? FreeClock.nanos() : nil
        let found = try Self.lookUp(key, in: realm)
        let seen =
            try found.map { object throws(Realm.Error) in [try Self.object(object, key.table)] }
            ?? []
        let version = try Self.version(of: realm, after: "object(ofType:forPrimaryKey:)")
        record(
            .read(
                FreeRead(
                    version: version, scope: .object(key), seen: seen, ownChanges: ownChanges,
                    startedAtNanos: startedAt)))
        return found
    }

    private func readFrozen() throws(Realm.Error) {
        let shared = random.below(3) == 0 ? exchange.peek() : nil
        guard let held = shared ?? (frozen.isEmpty ? nil : frozen[random.below(frozen.count)])
        else { return }
        let key = randomKey()
        let whole = random.below(2) == 0
        let seen: [FreeObject]
        if whole {
            seen = try Self.wholeContents(of: held.realm)
        } else {
            seen =
                try Self.lookUp(key, in: held.realm).map { object throws(Realm.Error) in
                    [try Self.object(object, key.table)]
                } ?? []
        }
        let version = try Self.version(of: held.realm, after: "a frozen read")
        record(
            .read(
                FreeRead(
                    version: version, frozen: held.tag, scope: whole ? .all : .object(key),
                    seen: seen)))
    }

    // MARK: moves

    private func refresh() throws(Realm.Error) {
        let realm = try live()
        // A realm that is not reading has nothing to move (Spec V4); the call is still made.
        let wasReading = realm._readVersion != nil
        let startedAt = FreeClock.nanos()
        _ = try realm._refresh()
        guard wasReading else { return }
        let version = try Self.version(of: realm, after: "refresh()")
        record(.move(FreeMove(cause: .refresh, version: version, startedAtNanos: startedAt)))
    }

    private func freeze() throws(Realm.Error) {
        let realm = try live()
        let startedAt = realm._readVersion == nil ? FreeClock.nanos() : nil
        let frozenRealm = try realm._freeze()
        let liveVersion = try Self.version(of: realm, after: "freeze()")
        let frozenVersion = try Self.version(of: frozenRealm, after: "freeze() (the frozen realm)")
        freezes += 1
        let held = HeldFrozen(
            realm: frozenRealm,
            tag: FreeFrozenTag(id: thread * 100_000 + freezes, version: frozenVersion))
        record(
            .freeze(
                FreeFreeze(frozen: held.tag, liveVersion: liveVersion, startedAtNanos: startedAt)))
        frozen.append(held)
        if frozen.count > Self.heldFrozenMax { frozen.removeFirst() }
        if random.below(2) == 0 { exchange.put(held) }
    }

    // MARK: writes

    private func write() throws(Realm.Error) {
        let realm = try live()
        let beganAt = FreeClock.nanos()
        try realm._beginWrite()
        let base = try Self.version(of: realm, after: "beginWrite()")
        record(.move(FreeMove(cause: .beginWrite, version: base, startedAtNanos: beganAt)))
        var changes: [FreeChange] = []
        // Wide plans write more per transaction, so that their tables grow within a run.
        let changesMax =
            plan.keyCount >= FreePlan.wideKeyCountMin ? plan.changesMax * 8 : plan.changesMax
        for _ in 0..<(1 + random.below(changesMax)) {
            try change(realm, &changes)
        }
        if random.below(100) < plan.cancelPercent {
            try realm._cancelWrite()
            record(.cancel(version: try Self.version(of: realm, after: "cancelWrite()")))
            return
        }
        try realm._commitWrite()
        let returnedAt = FreeClock.nanos()
        let version = try Self.version(of: realm, after: "commitWrite()")
        record(
            .commit(
                FreeCommit(
                    baseVersion: base, version: version, changes: changes, beganAtNanos: beganAt,
                    returnedAtNanos: returnedAt)))
    }

    /// One change (or a read) inside the write; reads log the changes made so far.
    private func change(_ realm: Realm, _ changes: inout [FreeChange]) throws(Realm.Error) {
        let key = randomKey()
        switch random.below(6) {
        case 0, 1:
            let value = nextValue()
            _ = try Self.create(key, value: value, policy: .modified, in: realm)
            changes.append(.put(key, value))
        case 2:
            try createNew(key, in: realm, &changes)
        case 3:
            let value = nextValue()
            if let object = try readObject(key, ownChanges: changes) {
                try object._setValue(value, forKey: "value")
                changes.append(.put(key, value))
            }
        case 4:
            if let object = try readObject(key, ownChanges: changes) {
                try realm._delete(object)
                changes.append(.delete(key))
            }
        default:
            try readAll(ownChanges: changes)
        }
    }

    /// A create that must fail exactly when the key exists: its outcome is a read of existence.
    private func createNew(_ key: FreeKey, in realm: Realm, _ changes: inout [FreeChange])
        throws(Realm.Error)
    {
        let value = nextValue()
        let version = try Self.version(of: realm, after: "beginWrite()")
        let existed: Bool
        do throws(Realm.Error) {
            _ = try Self.create(key, value: value, policy: .error, in: realm)
            existed = false
        } catch  where error.message.contains("existing primary key") {
            existed = true
        }
        record(
            .read(
                FreeRead(
                    version: version, scope: .exists(key),
                    seen: existed ? [FreeObject(key, nil)] : [],
                    ownChanges: changes)))
        if !existed { changes.append(.put(key, value)) }
    }

    // MARK: pieces

    private func live() throws(Realm.Error) -> Realm {
        if let realm { return realm }
        let opened = try Realm._open(configuration: configuration, queue: nil)
        realm = opened
        return opened
    }

    private func record(_ kind: FreeEvent.Kind) {
        events.append(FreeEvent(thread: thread, index: events.count, kind: kind))
    }

    private func randomKey() -> FreeKey {
        FreeKey(random.below(2) == 0 ? .item : .other, random.below(plan.keyCount))
    }

    private func nextValue() -> Int {
        puts += 1
        return thread * 10_000_000 + puts
    }

    /// The version `realm` reads; a realm that just read, moved or committed has one (Spec V10,
    /// V11, V12), so its absence is the engine's error.
    private static func version(of realm: Realm, after call: String) throws(Realm.Error) -> UInt64 {
        guard let version = realm._readVersion else {
            throw Realm.Error(
                .fail, "strata-check: the realm reports no read version after \(call)")
        }
        return version
    }

    /// Every object of both tables, as `realm` reads them.
    static func wholeContents(of realm: Realm) throws(Realm.Error) -> [FreeObject] {
        try objects(try realm._objects(Item.self), .item)
            + objects(try realm._objects(Other.self), .other)
    }

    private static func objects<T: CheckObject>(_ results: Results<T>, _ table: FreeTable)
        throws(Realm.Error) -> [FreeObject]
    {
        let count = try results._count()
        var seen: [FreeObject] = []
        seen.reserveCapacity(count)
        for index in 0..<count { seen.append(try object(try results._element(at: index), table)) }
        return seen
    }

    private static func object(_ object: Object, _ table: FreeTable) throws(Realm.Error)
        -> FreeObject
    {
        guard let primaryKey = try object._value(forKey: "primaryKey") as? Int else {
            throw Realm.Error(.fail, "strata-check: an object without an Int primary key")
        }
        return FreeObject(FreeKey(table, primaryKey), try object._value(forKey: "value") as? Int)
    }

    private static func lookUp(_ key: FreeKey, in realm: Realm) throws(Realm.Error) -> Object? {
        switch key.table {
        case .item: return try realm._object(ofType: Item.self, forPrimaryKey: key.primaryKey)
        case .other: return try realm._object(ofType: Other.self, forPrimaryKey: key.primaryKey)
        }
    }

    private static func create(
        _ key: FreeKey, value: Int, policy: Realm.UpdatePolicy,
        in realm: Realm
    ) throws(Realm.Error) -> Object {
        let fields: [String: Any] = ["primaryKey": key.primaryKey, "value": value]
        switch key.table {
        case .item: return try realm._create(Item.self, value: fields, update: policy)
        case .other: return try realm._create(Other.self, value: fields, update: policy)
        }
    }
}
