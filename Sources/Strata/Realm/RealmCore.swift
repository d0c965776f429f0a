import Dispatch
import StrataStorage
import Synchronization

/// The instance behind `Realm`: one per configuration and context (Spec C1), or one per
/// frozen version (Spec F5).
///
/// States of a live realm, and what moves between them:
///
///     not reading ──first read (V10)──▶ reading v ──beginWrite (V11)──▶ writing at newest
///          ▲                              │  ▲  refresh / autorefresh (V2, V3)   │
///          └────────invalidate (V13)──────┘  └──commitWrite (V12) / cancelWrite (W5)
///
/// `read` is trustworthy in every state but "not reading" (nil); `write` only while writing,
/// and then `read` pins the same version as the write's base (taken under the write lock).
/// Frozen realms hold `frozenRead` from birth and never change (Spec F2); they are shared
/// across threads, so everything a frozen realm touches after init is immutable or atomic.
///
/// Confinement: live cores are used only from their context (`confinement.check()` first in
/// every entry point); `deinit` may run anywhere (Spec C8).
final class RealmCore {
    let configuration: Realm.Configuration
    let file: RealmFile
    /// What the cache of realms, the commit listener and the frozen realms hold: a reference
    /// that does not keep the realm alive (not `weak`: `RealmCoreLink` says why).
    let link = RealmCoreLink()
    let confinement: Confinement
    /// The thread of a thread-confined live realm whose checks run (0 otherwise): the one
    /// comparison `checkAccess` makes on its fast path.
    private let fastCheckThread: UInt64
    /// The file's poison flag (Spec D6), read inline by every call's check.
    private let poisonFlag: FailureFlag
    /// A frozen realm's read, pinned for the core's life (Spec F17).
    let frozenRead: ReadTransaction?
    /// `frozenRead`'s version (0 for a live realm), for `stamp`.
    private let frozenVersion: UInt64
    private let frozenInvalidated = Atomic<Bool>(false)

    // Live state (confined).
    // The fields every object read consults (`stamp`, `view`, the checks) skip the dynamic
    // exclusivity check: they are read or assigned whole, never passed inout.
    @exclusivity(unchecked) var read: ReadTransaction? {
        didSet { readVersion = read?.version.rawValue ?? 0 }
    }
    /// `read`'s version (0 without one), kept with it: `stamp` is asked on every property
    /// read, and reading it here costs no call into the engine and no retain of the read.
    @exclusivity(unchecked) private var readVersion: UInt64 = 0 {
        didSet { stampToken &+= 1 }
    }
    var write: WriteTransaction? {
        didSet {
            updateLifetimeHold()  // Spec C1, W7: a realm in a write is held by its context
            writableTableCache = nil
        }
    }
    /// The table `writableTable` found last in the open write, kept while the write creates or
    /// drops no table (`WriteTransaction.tableSetGeneration`): a bulk `add` looks its table up
    /// by name once. Cleared whenever `write` changes, so the identifier names this write.
    @exclusivity(unchecked) var writableTableCache:
        (write: ObjectIdentifier, generation: Int, info: ObjectIdentifier, table: TableHandle)?
    /// The class `classInfo` answered last and the table `table(for:in:)` found for it at a
    /// version: a live realm's lookups of one class ask the file's lock and the catalog once.
    /// Frozen realms, shared by threads, keep neither.
    @exclusivity(unchecked) var lastClassInfo: ClassInfo?
    @exclusivity(unchecked) var lastReadTable: (version: Version, info: ObjectIdentifier, table: TableHandle?)?
    /// The open write's scope (`WriteScope`): set with `write`, rolled back or dropped with it.
    var writeScope: WriteScope?
    /// The sources of references made inside the open write, settled when it ends.
    var referencesInWrite: [PendingReferenceSource] = []
    var autorefresh = true
    /// Bumped by invalidate: accessors made before it are invalid for good (Spec V13).
    @exclusivity(unchecked) var epoch = 0 {
        didSet { stampToken &+= 1 }
    }
    /// Bumped by every mutation, begin, commit and cancel: Results and Lists re-evaluate.
    @exclusivity(unchecked) var mutationCount: UInt64 = 0 {
        didSet { stampToken &+= 1 }
    }
    /// Changes whenever `stamp` may have (any assignment to its parts), never back: equal
    /// tokens mean the stamp is the same, in one comparison. What an accessor's kept row is
    /// checked against on every property read. Starts at 1: 0 stands for "no row kept".
    @exclusivity(unchecked) private(set) var stampToken: UInt64 = 1
    /// `mutationCount` when the open write began: a write has changes once it moved on.
    var writeMutationBase: UInt64 = 0

    /// Whether the open write made a change (Spec N25).
    var writeHasChanges: Bool { write != nil && mutationCount != writeMutationBase }
    var listener: CommitListener?
    /// The realm observers (Spec N1 to N5).
    var observers: [RealmObserver] = []
    /// The collection and object observers (Spec N6 to N22), in the order they were added.
    var notifiers: [Notifier] = []
    /// What the open write set, for observers (`ChangeJournal`).
    var writeChanges = WriteChanges()
    /// The async writes queued, running and owed completions (Spec A1 to A17).
    var asyncWrites = AsyncWriteQueue() {
        didSet { updateLifetimeHold() }  // Spec A21: held until its async work is done
    }
    /// How many `.didChange` callbacks are running: `refresh()` inside one does nothing (V5).
    var didChangeDepth = 0
    /// Set while a `refresh()` that passed its entry checks runs its delivery pass (Spec D6,
    /// N12): the refresh took effect when it pinned the newest version, so a failure another
    /// thread's commit poisons the file with after that point does not reach the callbacks
    /// the refresh owes; they read the versions already pinned.
    @exclusivity(unchecked) private var poisonCheckedAtEntry = false
    /// The row array `addUnmanaged` fills, kept empty between adds so its storage is reused.
    var addRowScratch: [StrataStorage.Value] = []
    /// The update policy of the `add` in progress (objects it links to are added with it).
    var addPolicy: Realm.UpdatePolicy?
    let scheduler: RealmScheduler?

    private init(
        configuration: Realm.Configuration, file: RealmFile, confinement: Confinement,
        frozenRead: ReadTransaction?, scheduler: RealmScheduler?
    ) {
        self.configuration = configuration
        self.file = file
        self.confinement = confinement
        self.frozenRead = frozenRead
        frozenVersion = frozenRead?.version.rawValue ?? 0
        self.scheduler = scheduler
        poisonFlag = file.store.poisonFlag
        if case .thread(let identity) = confinement, frozenRead == nil, !file.bugs.contains(.skipThreadCheck) {
            fastCheckThread = identity
        } else {
            fastCheckThread = 0
        }
        link.attach(self)
    }

    deinit {
        link.clear()  // first: from here on, nothing that holds the link may retain this realm
        // Spec W7, C8: releasing the last holder rolls back an open write and ends the pin,
        // from whatever thread releases it; a lock taken for its async blocks is let go.
        asyncWrites.lockWaiter?.abandon()
        write?.rollback()
        writeScope?.markRolledBack()
        read?.end()
        frozenRead?.end()
        if let listener { file.watcher.remove(listener) }
        if confinement != .frozen {
            let key = cacheKey
            // Only this realm's entry: a new instance for this context may already have replaced it.
            let link = self.link
            RealmCore.cache.withLock { cache in
                if cache[key] === link { cache.removeValue(forKey: key) }
            }
        }
    }

    var isFrozen: Bool { frozenRead != nil }
    var path: String { file.path }
    private var cacheKey: CacheKey { CacheKey(file: configuration.fileKey, confinement: confinement) }

    // MARK: opening and the cache (Spec C1, C3)

    struct CacheKey: Hashable, Sendable {
        let file: String
        let confinement: Confinement
    }

    private static let cache = Lock<[CacheKey: RealmCoreLink]>([:])

    /// The realm of `configuration` for the calling context: the cached instance if one is
    /// alive (Spec C1), else a new one.
    static func open(_ configuration: Realm.Configuration, queue: DispatchQueue?) throws(Realm.Error) -> RealmCore {
        try open(configuration, confinement: try Confinement.forQueue(queue), queue: queue)
    }

    /// Spec C15: the realm of `configuration` confined to `actor`; the caller runs on it.
    static func open(_ configuration: Realm.Configuration, actor: any Actor) throws(Realm.Error) -> RealmCore {
        let confinement = try Confinement.forActor(actor)
        guard confinement.isCurrent else { throw Realm.Error.wrongThread }
        return try open(configuration, confinement: confinement, queue: nil)
    }

    private static func open(
        _ configuration: Realm.Configuration, confinement: Confinement,
        queue: DispatchQueue?
    ) throws(Realm.Error) -> RealmCore {
        try configuration.validate()
        let key = CacheKey(file: configuration.fileKey, confinement: confinement)
        if let cached = cache.withLock({ $0[key]?.core }) {
            try cached.checkCompatible(configuration)
            return cached
        }
        // Spec X32: the context's own instance of the same path with the other in-memory setting
        // (RLMRealm's cache is by path alone).
        if let otherKey = configuration.otherInMemorySettingFileKey,
            cache.withLock({ $0[CacheKey(file: otherKey, confinement: confinement)]?.core }) != nil
        {
            throw Realm.Error.differentInMemorySettings(path: configuration.path)
        }
        let file = try RealmFile.open(configuration)
        let scheduler = RealmScheduler.current(for: confinement, queue: queue)
        let core = RealmCore(
            configuration: configuration, file: file, confinement: confinement, frozenRead: nil,
            scheduler: scheduler)
        try core.prepareSchema()
        cache.withLock { $0[key] = core.link }
        if let scheduler {
            let listener = CommitListener(scheduler: scheduler, core: core)
            core.listener = listener
            file.watcher.add(listener)
        }
        return core
    }

    /// The live realm of this file for the calling thread, opened if needed (thaw, resolve).
    func liveRealmForCurrentThread() throws(Realm.Error) -> RealmCore {
        let live = try RealmCore.open(configuration, queue: nil)
        if file.bugs.contains(.thawRefreshes), live.write == nil, live.read != nil {
            _ = try live.moveToNewest()
        }
        return live
    }

    /// A cached instance answers only a configuration it can honour.
    private func checkCompatible(_ requested: Realm.Configuration) throws(Realm.Error) {
        if requested.readOnly != configuration.readOnly {
            throw Realm.Error.differentReadPermissions(path: path)  // Spec X11
        }
        if requested.schemaVersion != configuration.schemaVersion {
            throw Realm.Error.differentSchemaVersion(
                path: path, open: configuration.schemaVersion,
                requested: requested.schemaVersion)
        }
    }

    /// A frozen realm of `read`'s version (Spec F1, F5): one per version per process.
    func frozenCore(of read: ReadTransaction) throws(Realm.Error) -> RealmCore {
        try file.frozenRealm(version: read.version) { () throws(Realm.Error) -> RealmCore in
            let pin = try engine(path) { try read.duplicate(kind: .frozen) }
            return RealmCore(
                configuration: configuration, file: file, confinement: .frozen, frozenRead: pin,
                scheduler: nil)
        }
    }

    // MARK: access checks (Spec C5 to C8)

    /// The context check alone (Spec C5 to C8), for calls that read nothing: a frozen realm
    /// is usable from any context (C10), also once invalidated (F6 rejects reads only; V4:
    /// its `refresh()` still returns false, and writes are refused as W9, W18 say).
    @inline(__always)
    func checkThread() throws(Realm.Error) {
        if frozenRead != nil { return }
        if !file.bugs.contains(.skipThreadCheck) { try confinement.check() }
        try checkNotPoisoned()
    }

    /// Spec D6: after a failed write or sync every call through a live realm of the file
    /// fails, after the context check (C5) and before anything else; only
    /// `isInWriteTransaction`, `invalidate()`, closing and releasing go on.
    @inline(__always)
    func checkNotPoisoned() throws(Realm.Error) {
        if poisonCheckedAtEntry || !poisonFlag.isRaised { return }
        do {
            try file.store.checkNotPoisoned()
        } catch {
            throw Realm.Error.from(error, path: path)
        }
    }

    /// Whether `checkAccess` passes by its common case: a live thread-confined realm on its
    /// thread, not poisoned. The readers' fast path asks this, without building an error;
    /// every other case goes the general way, whose checks report what is wrong.
    @inline(__always)
    var passesAccessCheckInline: Bool {
        fastCheckThread != 0 && fastCheckThread == ThreadIdentity.current
            && (poisonCheckedAtEntry || !poisonFlag.isRaised)
    }

    /// Whether this is a frozen realm that was invalidated (Spec F6): it reads nothing.
    var isFrozenInvalidated: Bool {
        guard let frozenRead else { return false }
        return frozenInvalidated.load(ordering: .acquiring) || frozenRead.isEnded
    }

    /// The check every confined entry point that reads makes first: the context, and a frozen
    /// realm's invalidation (Spec F6).
    @inline(__always)
    func checkAccess() throws(Realm.Error) {
        // The common case, a live thread-confined realm on its thread, not poisoned; anything
        // else (a poisoned file included, which the context check reports after the context)
        // goes the general way.
        if passesAccessCheckInline { return }
        try checkAccessInContext()
    }

    /// `checkAccess` for frozen, queue- and actor-confined realms, a wrong thread, and a poisoned
    /// file.
    private func checkAccessInContext() throws(Realm.Error) {
        if let frozenRead {
            if frozenInvalidated.load(ordering: .acquiring) || frozenRead.isEnded {
                throw Realm.Error.frozenRealmInvalidated  // Spec F6
            }
            return
        }
        if !file.bugs.contains(.skipThreadCheck) { try confinement.check() }
        try checkNotPoisoned()
    }

    /// What reads see now; begins a read at the newest version if there is none (Spec V10).
    func view() throws(Realm.Error) -> VersionView {
        try checkAccess()
        if let frozenRead {
            if file.bugs.contains(.frozenFollowsCommits), let newest = try? file.store.beginRead(.frozen) {
                return .read(newest)
            }
            return .read(frozenRead)
        }
        if let write { return .write(write) }
        if let read { return .read(read) }
        let started = try engine(path) { try file.store.beginRead(.live) }
        read = started
        return .read(started)
    }

    /// Identifies the current view for caches.
    var stamp: ViewStamp {
        if isFrozen { return ViewStamp(version: frozenVersion, mutation: 0, epoch: 0) }
        return ViewStamp(version: readVersion, mutation: mutationCount, epoch: epoch)
    }

    var isInWriteTransaction: Bool { write != nil }

    // MARK: versions (Spec V)

    /// Moves to the newest version (Spec V3). Returns whether the version changed.
    @discardableResult
    func moveToNewest() throws(Realm.Error) -> Bool {
        precondition(write == nil && frozenRead == nil, "only a live realm outside a write moves")
        let old = read?.version
        guard old != file.store.newestVersion else { return false }
        let newer = try engine(path) { try file.store.beginRead(.live) }
        read?.end()
        read = newer
        mutationCount &+= 1
        return old != newer.version
    }

    /// Spec V4: true exactly when the realm moved to a newer version, or began a read.
    func refresh() throws(Realm.Error) -> Bool {
        try checkThread()
        if isFrozen { return false }  // Spec F2, V4: also once invalidated (it reads nothing)
        if didChangeDepth > 0 { return false }  // Spec V5: delivering notifications
        guard write == nil else { return false }
        guard read != nil else {
            // Spec V4, V10: a realm that is not reading begins a read at the newest version,
            // as Realm's refresh creates a read transaction; no `.didChange` is called.
            _ = try view()
            return true
        }
        if file.bugs.contains(.refreshStaysStale) {
            let newer = read.map { $0.version < file.store.newestVersion } ?? false
            if newer { notify(.didChange) }
            return newer
        }
        let moved = try moveToNewest()
        poisonCheckedAtEntry = true
        defer { poisonCheckedAtEntry = false }
        if moved { notify(.didChange) }  // Spec N3
        if file.bugs.contains(.refreshSkipsCallbacks) { return moved }  // seeded bug: Spec N12 broken
        deliverPending()  // Spec N12: pending collection and object callbacks run now
        return moved
    }

    /// Spec V7, V9, N3, V14: the turn the watcher scheduled on this realm's context after a
    /// commit: autorefresh moves and notifies; with autorefresh off, observers are told a
    /// refresh is required. A realm that is not reading has nothing to move, but its observers
    /// still hear of the commit.
    func autorefreshTurn() {
        guard !isFrozen, write == nil, confinement.isCurrent else { return }
        guard let read else {
            if autorefresh { notify(.didChange) } else { notify(.refreshRequired) }
            return
        }
        guard read.version < file.store.newestVersion else { return }
        if autorefresh {
            if (try? moveToNewest()) == true { notify(.didChange) }
            deliverPending()  // Spec N6: observers hear of the move on this turn
        } else {
            notify(.refreshRequired)  // Spec N12: observers wait for refresh()
        }
    }

    /// Spec V13, W7, F6.
    func invalidate() throws(Realm.Error) {
        if let frozenRead {
            frozenInvalidated.store(true, ordering: .releasing)
            frozenRead.end()  // Spec F6: it pins nothing any more
            return
        }
        try confinement.check()
        if let write {
            write.rollback()
            self.write = nil
            endWriteScope(committed: nil)  // Spec W7: invalidate rolls the write back
        }
        dropQueuedAsyncWrites()  // Spec A13: queued blocks never run; made commits complete
        if file.bugs.contains(.invalidateKeepsPin), let read {
            RealmCore.leakedPins.withLock { $0.append(read) }
        } else {
            read?.end()
        }
        read = nil
        for notifier in notifiers { notifier.dropPin() }  // Spec V13: the realm pins nothing
        epoch &+= 1
        mutationCount &+= 1
    }

    /// Reads `invalidateKeepsPin` forgot without ending (a seeded bug: their pins stay).
    static let leakedPins = Lock<[ReadTransaction]>([])

    /// Spec L1: the newest version and every pinned version, in any process.
    func activeVersionCount() -> Int {
        var versions = Set(file.store.pinnedVersions().map(\.version))
        versions.insert(file.store.newestVersion)
        return versions.count
    }
}
