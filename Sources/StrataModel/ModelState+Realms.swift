// Opening, caching and closing realms; reads starting and moving (the V rules); freezing and
// thawing whole realms (F1, F7).

extension ModelState {
    mutating func dispatchRealmOperation(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .addContext(let id, let process, let kind):
            guard contexts[id] == nil else { throw .rejected(.invalidStep("context \(id) exists")) }
            contexts[id] = ContextState(process: process, kind: kind)
            return .done
        case .setPathCondition(let path, let condition):
            pathConditions[path, default: []].insert(condition)
            return .done
        case .open(let configuration, let confinement, let id):
            return .realm(try open(configuration, confinement: confinement, as: id, in: context))
        case .asyncOpen(let configuration, let id):
            // Spec X7: a read-only asyncOpen of a missing file fails with fileNotFound, creates
            // nothing and caches nothing (open's checks run before any effect); otherwise it
            // opens on the calling context.
            return .realm(
                try open(
                    configuration, confinement: .callingContext, as: id,
                    in: context))
        case .release(let id):
            try release(id, in: context)
            return .done
        case .close(let id):
            _ = try usableRealmEvenIfPoisoned(id, in: context)
            close(id)
            return .done
        case .setAutorefresh(let id, let value):
            let realm = try usableRealmEvenIfPoisoned(id, in: context)  // Spec D6: a setting
            if realm.isFrozen, value { throw .rejected(.frozenAutorefresh) }  // Spec F2
            realms[id]?.autorefresh = value  // Spec V6: reads back what was last set
            return .done
        case .getAutorefresh(let id):
            return .bool(try usableRealmEvenIfPoisoned(id, in: context).autorefresh)
        case .refresh(let id):
            // Spec X10: a read-only realm (also frozen) refuses first, before the context check.
            if try realmState(id).configuration.readOnly { throw .rejected(.readOnlyRefresh) }
            _ = try usableRealm(id, in: context)
            return .bool(try refresh(id))
        case .asyncRefresh(let id), .asyncRefreshInCancelledTask(let id):
            _ = try usableRealm(id, in: context)
            // Spec C12: only on the main thread or an actor.
            let kind = try contextState(context).kind
            guard kind == .mainThread || kind == .actor else {
                throw .rejected(.asyncRefreshContext)
            }
            // Spec V17: false without a move when at the newest version, or when the realm is
            // not reading (no read begins); otherwise true once moved to (at least) the newest
            // version that existed at the call. A cancelled task's call ends false, unmoved.
            guard try realmState(id).readVersion != nil else { return .bool(false) }
            if case .asyncRefreshInCancelledTask = operation { return .bool(false) }
            return .bool(try refresh(id))
        case .invalidate(let id):
            _ = try usableRealmEvenIfPoisoned(id, in: context)
            invalidate(id)
            return .done
        case .freezeRealm(let id, let frozenID):
            return .realm(try freezeRealm(id, as: frozenID, in: context))
        case .thawRealm(let id, let liveID):
            let realm = try usableRealm(id, in: context)
            // Spec F1: thaw of a live realm returns it.
            guard realm.isFrozen else { return .realm(id) }
            try checkThawContext(context)  // Spec F20
            // Spec F7: the context's cached live instance, or a new one; it reads its own
            // version, never the frozen one.
            return .realm(
                try open(
                    realm.configuration, confinement: .callingContext, as: liveID,
                    in: context))
        case .isEmpty(let id):
            _ = try usableRealm(id, in: context)
            let snapshot = try readableView(of: id)
            return .bool(snapshot.objects.isEmpty)  // Spec W4: includes the write's own changes
        case .isInWriteTransaction(let id):
            return .bool(try usableRealmEvenIfPoisoned(id, in: context).write != nil)
        case .readConfiguration(let id):
            // Spec C8: configuration is readable from any context.
            return .configuration(try realmState(id).configuration)
        case .crashMachine(let keepUnsyncedSlots):
            crashMachine(keepUnsyncedSlots: keepUnsyncedSlots)
            return .done
        case .killProcess(let process):
            killProcess(process)
            return .done
        case .fileExists, .deleteFiles, .writeCopy:
            return try dispatchFileOperation(operation, in: context)
        default:
            throw .rejected(.invalidStep("not a realm operation"))
        }
    }

    // MARK: Open

    mutating func open(
        _ configuration: Configuration, confinement: Confinement, as id: RealmID,
        in context: ContextID
    ) throws(Interruption) -> RealmID {
        let caller = try contextState(context)
        // Spec X17: a key of the wrong length is rejected; a valid one is unsupported.
        if let keyBytes = configuration.encryptionKeyByteCount {
            throw .rejected(keyBytes == 64 ? .encryptionUnsupported : .encryptionKeyLength)
        }
        var owner = context
        var viaQueue = false
        if case .queue(let queue) = confinement {
            let queueKind = try contextState(queue).kind
            switch queueKind {
            case .concurrentQueue(let label):
                // Spec C4: only serial queues and main.
                throw .rejected(.notSerialQueue(label: label))
            case .serialQueue, .mainThread:
                // Spec C3, C4: the call must run on the queue it names.
                guard queue == context else { throw .rejected(.incorrectQueue) }
                owner = queue
                // Spec C3: Realm(queue: .main) on main is main's thread realm.
                viaQueue = queueKind != .mainThread
            case .thread, .actor:
                throw .rejected(.invalidStep("\(queue) is not a queue"))
            }
        }
        // Spec C1: one cached instance per context and configuration.
        if let cached = realms.first(where: { entry in
            let realm = entry.value
            return !realm.isFrozen && !realm.isClosed && realm.owner == owner
                && realm.viaQueue == viaQueue && realm.configuration == configuration
        })?.key {
            realms[cached]?.holders += 1
            return cached
        }
        guard realms[id] == nil else { throw .rejected(.invalidStep("realm \(id) exists")) }
        let location = configuration.location
        // Spec X11: one access mode per path per process; Spec X13: read-only instances in any
        // number of contexts. Spec X18: files are shared by every process (one `files` table).
        if realms.values.contains(where: {
            $0.process == caller.process && !$0.isClosed && !$0.isFrozen
                && $0.configuration.location == location
                && $0.configuration.readOnly != configuration.readOnly
        }) {
            throw .rejected(.differentReadPermissions(path: "\(location)"))
        }
        // Spec X19: the process has each file open at one schema version.
        if realms.values.contains(where: {
            $0.process == caller.process && !$0.isClosed && $0.configuration.location == location
                && $0.configuration.schemaVersion != configuration.schemaVersion
        }) {
            throw .rejected(.differentSchemaVersion(path: "\(location)"))
        }
        try checkPathForOpen(configuration)
        let created = try createFileIfNeeded(configuration)
        try checkSchema(configuration, created: created)
        // Spec D6, D7: poisoning lasts while the process has a handle of the file; a reopen after
        // every handle was closed starts with a clean one.
        if !realms.values.contains(where: {
            !$0.isClosed && $0.process == caller.process && $0.configuration.location == location
        }) {
            files[location]?.poisoned.remove(caller.process)
        }
        if !realms.values.contains(where: { !$0.isClosed && $0.configuration.location == location }) {
            adoptIfNeeded(location)  // a fresh lock file reads the newest slot (Spec D7, W8)
        }
        realms[id] = RealmState(
            process: caller.process, owner: owner, viaQueue: viaQueue,
            configuration: configuration, isFrozen: false, readVersion: nil,
            frozenInvalidated: false, write: nil,
            autorefresh: true,  // Spec V6: a new instance autorefreshes
            holders: 1, isClosed: false, epoch: 0, refreshRequiredOwed: false, asyncQueue: [],
            asyncGroups: [], completionsOwed: [])
        return id
    }

    /// Spec X6, X12: what the file system says about the path.
    private func checkPathForOpen(_ configuration: Configuration) throws(Interruption) {
        guard case .path(let path) = configuration.location else { return }
        let conditions = pathConditions[path] ?? []
        let readOnly = configuration.readOnly
        if conditions.contains(.parentNotDirectory) { throw .rejected(.parentNotDirectory(path: path)) }
        if conditions.contains(.isDirectory) { throw .rejected(.isDirectory(path: path)) }
        if conditions.contains(.parentMissing), files[.path(path)] == nil {
            throw .rejected(.parentDirectoryMissing(path: path))
        }
        if conditions.contains(.notReadable) {
            throw .rejected(.permissionDenied(path: path, readOnly: readOnly))
        }
        if !readOnly, conditions.contains(.notWritable) {
            throw .rejected(.permissionDenied(path: path, readOnly: false))
        }
        // Spec X12: an immutable file refuses read-write opens; read-only opens read it.
        if !readOnly, conditions.contains(.immutable) {
            throw .rejected(.operationNotPermitted(path: path))
        }
        // Spec D4, D8: a file whose slots or pages fail their checks opens with an error and
        // never returns data.
        if conditions.contains(.corrupted) { throw .rejected(.corruptFile(path: path)) }
        for case .tooSmall(let byteCount) in conditions where files[.path(path)] == nil {
            throw .rejected(.tooSmall(path: path, byteCount: byteCount))
        }
    }

    /// Returns whether it made a new empty file (not an existing one, not a seed's copy).
    private mutating func createFileIfNeeded(_ configuration: Configuration) throws(Interruption) -> Bool {
        let location = configuration.location
        guard files[location] == nil else { return false }
        // Spec X5: a seed file is copied before the first open of a missing file.
        if let seed = configuration.seedFilePath, let seedFile = files[.path(seed)],
            let data = seedFile.versions[seedFile.durable]
        {
            files[location] = FileState(
                location: location, first: data,
                readerSlotCount: readerSlotCount)
            return false
        }
        // Spec X10, X7: a read-only open needs an existing file and creates nothing.
        if configuration.readOnly, !location.isInMemory {
            throw .rejected(.fileNotFound(path: "\(location)"))
        }
        // Spec X8: an in-memory realm starts empty whenever no instance of it is open.
        files[location] = FileState(
            location: location, first: Snapshot(schema: configuration.schema),
            readerSlotCount: readerSlotCount)
        return true
    }

    /// Spec X15: a read-only open of a file lacking a declared column is a schema mismatch; a
    /// missing table reads as empty (Spec X14).
    ///
    /// Spec X19: a read-write open compares the schema version the file records: a new file
    /// records the configuration's; a lower version fails; a higher one migrates (Spec X20:
    /// every declared type takes exactly its declared columns, every object stays); at the same
    /// version a type whose columns differ needs a migration, and a type the file lacks is added
    /// without one. Spec X26: with `deleteRealmIfMigrationNeeded`, what would migrate or fail
    /// for a migration resets the file to the declared schema with no objects instead.
    /// Spec X24: every check comes before any change, so a refused open leaves the file as it
    /// was; the crash windows of the migration's commit are not modelled.
    ///
    /// The model applies these changes to the newest version in place, as schema additions are
    /// applied: the engine commits a migration or reset as a version of its own, which no
    /// harness run reaches (its opens are at schema version 0 throughout). The migration block
    /// and what it does to objects, renames, primary keys during a migration, and
    /// `schemaVersionAtURL` / `performMigration` (Spec X21, X22, X23, X25) are not modelled: the
    /// model has no object schema beyond its fixed fields; the API tests check those rules.
    private mutating func checkSchema(_ configuration: Configuration, created: Bool) throws(Interruption) {
        let location = configuration.location
        guard var file = files[location], var newest = file.versions[file.newest] else { return }
        let declared = configuration.schema.types.sorted(by: { $0.key < $1.key })
        for (type, columns) in declared {
            guard let fileColumns = newest.schema.types[type] else { continue }
            if configuration.readOnly, let missing = columns.subtracting(fileColumns).sorted().first {
                throw .rejected(.schemaMismatch(type: type, column: missing))
            }
        }
        guard !configuration.readOnly else { return }  // Spec X19: no version is compared
        let requested = configuration.schemaVersion
        let recorded = newest.schemaVersion
        let changes = declared.compactMap { (type, columns) -> ModelError? in
            guard let fileColumns = newest.schema.types[type], fileColumns != columns else { return nil }
            if let added = columns.subtracting(fileColumns).sorted().first {
                return .migrationRequired(type: type, column: added, added: true)
            }
            let removed = fileColumns.subtracting(columns).sorted().first ?? ""
            return .migrationRequired(type: type, column: removed, added: false)
        }
        if created {
            newest.schemaVersion = requested
        } else if configuration.deleteRealmIfMigrationNeeded && (requested != recorded || !changes.isEmpty) {
            newest = Snapshot(schema: configuration.schema, schemaVersion: requested)  // Spec X26
        } else if requested < recorded {
            throw .rejected(.schemaVersionLower(requested: requested, recorded: recorded))
        } else if requested > recorded {
            for (type, columns) in declared { newest.schema.types[type] = columns }  // Spec X20
            newest.schemaVersion = requested
        } else if let change = changes.first {
            throw .rejected(change)
        }
        for (type, columns) in declared where newest.schema.types[type] == nil {
            newest.schema.types[type] = columns
        }
        file.versions[file.newest] = newest
        files[location] = file
    }

    // MARK: Reads and moves

    /// The view a read uses, starting the read when the realm has none (Spec V10).
    mutating func readableView(of id: RealmID) throws(Interruption) -> Snapshot {
        try beginReadIfNeeded(id)
        guard let snapshot = view(of: id) else {
            throw .rejected(.invalidStep("realm \(id) has no view"))
        }
        return snapshot
    }

    /// Spec V10: the first read of a new realm, or after invalidate, starts at the newest version.
    /// Spec V18: a read never waits for the writer (the write lock is not consulted).
    /// Spec F6: an invalidated frozen realm cannot be read.
    mutating func beginReadIfNeeded(_ id: RealmID) throws(Interruption) {
        let realm = try realmState(id)
        if realm.isFrozen, realm.frozenInvalidated { throw .rejected(.frozenRealmInvalidated) }
        guard realm.readVersion == nil else { return }
        let location = realm.configuration.location
        let newest = try fileState(location).newest
        try checkReaderSlot(process: realm.process, version: newest, location: location)
        realms[id]?.readVersion = newest
        realms[id]?.refreshRequiredOwed = false  // Spec V14: a fresh read at the newest owes nothing
    }

    /// Spec L6: each (process, version) pin takes a reader slot; with all slots taken a new
    /// pin fails.
    func checkReaderSlot(process: ProcessID, version: Version, location: FileLocation)
        throws(Interruption)
    {
        let slots = readerSlots(of: location)
        guard !slots.contains(ReaderSlot(process: process, version: version)) else { return }
        let capacity = files[location]?.readerSlotCount ?? readerSlotCount
        if slots.count >= capacity { throw .rejected(.tooManyReaders) }
    }

    /// Spec V3: a move goes to the newest version; Spec N3: every move runs `.didChange`.
    /// Spec N5: an observer whose callback is running is not called again.
    mutating func moveToNewest(_ id: RealmID) {
        guard let realm = realms[id], let newest = newest(of: realm.configuration.location),
            let current = realm.readVersion, current < newest
        else { return }
        realms[id]?.readVersion = newest
        realms[id]?.refreshRequiredOwed = false
        emit(.moved(id, to: newest))
        notifyRealmObservers(of: id, kind: .didChange, skipping: [])
    }

    /// Spec V4, V5, N12: refresh moves to the newest version and delivers pending callbacks.
    mutating func refresh(_ id: RealmID) throws(Interruption) -> Bool {
        let realm = try realmState(id)
        if realm.isFrozen { return false }  // Spec F2
        guard realm.write == nil else { return false }
        guard let current = realm.readVersion else {
            try beginReadIfNeeded(id)  // Spec V4, V10: a realm not reading begins a read
            return true
        }
        let newest = try fileState(realm.configuration.location).newest
        let moved = current < newest
        moveToNewest(id)
        deliverCollectionPass(of: id)  // Spec N12: pending callbacks run before refresh returns
        return moved
    }

    /// Spec V13, W7, A13, F6.
    mutating func invalidate(_ id: RealmID) {
        guard let realm = realms[id] else { return }
        if realm.isFrozen {
            // Spec F6: and it pins nothing any more. The frozen instance of a version is shared
            // in the process while it lives, so every frozen value of that version goes too.
            for other in livingFrozenRealms(sharing: realm) { realms[other]?.frozenInvalidated = true }
            realms[id]?.frozenInvalidated = true
            return
        }
        // Spec V19: a realm invalidated since it last read, not writing and owing no async work
        // has nothing to release: invalidate() again changes nothing. (Before the realm ever
        // read, the first invalidate() still counts, epoch 0 to 1: its next resolve begins at the
        // newest version, T4.)
        if realm.readVersion == nil, realm.epoch > 0, !realm.hasUnfinishedWork { return }
        flushAsync(id)  // Spec D13, A13: commits already made become durable, completions run
        realms[id]?.asyncQueue = []  // Spec A13: blocks not started are dropped
        if realm.write != nil { rollback(id) }  // Spec W7
        realms[id]?.readVersion = nil  // Spec V13: the pin is released
        realms[id]?.epoch += 1  // Spec V13: earlier accessors are invalid for good
        // Spec V14: observers stay registered.
    }

    /// Spec V6: the cached instance ends when its last holder lets go; Spec W7: a write still open
    /// then is rolled back. Spec C8: release works from any context.
    mutating func release(_ id: RealmID, in context: ContextID) throws(Interruption) {
        let realm = try realmState(id)
        guard realm.holders > 0 else { throw .rejected(.invalidStep("realm \(id) not held")) }
        realms[id]?.holders -= 1
        closeIfUnreachable(id)
    }

    /// Spec C1: a live instance ends when neither the caller nor an accessor made through it
    /// holds it any more; until then `Realm(configuration:)` in its context returns it again.
    /// Spec C1, A21: nor while it has unfinished work (its context holds it): an open write,
    /// or async blocks queued, groups not yet durable, completions owed. (Its thread exiting
    /// would release it; the model's contexts do not exit.)
    mutating func closeIfUnreachable(_ id: RealmID) {
        guard let realm = realms[id], realm.holders == 0, !realm.isFrozen else { return }
        guard !realm.hasUnfinishedWork else { return }
        guard !handles.values.contains(where: { $0.realm == id }),
            !iterators.values.contains(where: { $0.realm == id })
        else { return }
        close(id)
    }

    /// Spec C1, A21: a realm its callers let go of while it had unfinished work ends once the
    /// work ends (a commit, a cancel, its last completion).
    mutating func closeReleasedRealmsWhoseWorkEnded() {
        for (id, realm) in realms
        where realm.holders == 0 && !realm.isClosed && !realm.isFrozen
            && !realm.hasUnfinishedWork
        {
            closeIfUnreachable(id)
        }
    }

    /// Spec A13, W7, X8: closing flushes async commits, drops queued blocks, rolls back the
    /// write, removes the realm's observers and releases its pin.
    mutating func close(_ id: RealmID) {
        guard let realm = realms[id], !realm.isClosed else { return }
        flushAsync(id)
        realms[id]?.asyncQueue = []
        if realm.write != nil { rollback(id) }
        realms[id]?.isClosed = true
        realms[id]?.readVersion = nil
        for observer in observerIDs(where: { $0.realm == id }) {
            observers[observer]?.isActive = false
        }
        dropInMemoryFileIfUnused(realm.configuration.location)
    }

    /// Spec X8, D14: an in-memory realm's data lives while some instance of it is open.
    mutating func dropInMemoryFileIfUnused(_ location: FileLocation) {
        guard location.isInMemory else { return }
        let open = realms.values.contains {
            !$0.isClosed && $0.configuration.location == location
                && (!$0.isFrozen || $0.readVersion != nil)
        }
        if !open { files[location] = nil }
    }

    /// Spec F1, F5, F16: freezing a live realm gives a frozen realm at its read version (at the
    /// write's start version inside a write, Spec F11); freezing a frozen realm returns it.
    mutating func freezeRealm(_ id: RealmID, as frozenID: RealmID, in context: ContextID)
        throws(Interruption) -> RealmID
    {
        let realm = try usableRealm(id, in: context)
        if realm.isFrozen { return id }
        guard realms[frozenID] == nil else {
            throw .rejected(.invalidStep("realm \(frozenID) exists"))
        }
        try beginReadIfNeeded(id)
        let version = try frozenVersion(of: id)
        realms[frozenID] = frozenRealm(of: realm, at: version)
        return frozenID
    }

    /// Spec F6: the frozen realms that are the same instance as `frozen` in the engine: Realm
    /// keeps one frozen realm per process, file and version while something holds it (a freeze
    /// at that version returns it), so they share its invalidation.
    func livingFrozenRealms(sharing frozen: RealmState) -> [RealmID] {
        realmIDs(where: {
            $0.isFrozen && $0.process == frozen.process
                && $0.configuration.location == frozen.configuration.location
                && $0.readVersion == frozen.readVersion
        }).filter { frozenRealmIsAlive($0) }
    }

    /// The version a freeze captures: the read version, or the write's start (Spec F11).
    func frozenVersion(of id: RealmID) throws(Interruption) -> Version {
        let realm = try realmState(id)
        if let write = realm.write { return write.startVersion }
        guard let version = realm.readVersion else {
            throw .rejected(.invalidStep("realm \(id) has no read version"))
        }
        return version
    }

    /// Spec F17, F21: a frozen realm is a state of its own, with its own pin on its version: it
    /// reads on after the live realm that made it is released, closed or invalidated.
    func frozenRealm(of realm: RealmState, at version: Version) -> RealmState {
        var frozen = RealmState(
            process: realm.process, owner: nil, viaQueue: false,
            configuration: realm.configuration, isFrozen: true, readVersion: version,
            frozenInvalidated: false, write: nil, autorefresh: false, holders: 1,
            isClosed: false, epoch: 0, refreshRequiredOwed: false, asyncQueue: [],
            asyncGroups: [], completionsOwed: [])
        // Spec F6: a freeze while an invalidated frozen instance of the version lives returns
        // that instance, invalidated.
        frozen.frozenInvalidated = livingFrozenRealms(sharing: frozen).contains {
            realms[$0]?.frozenInvalidated == true
        }
        return frozen
    }

    /// A frozen realm made for a frozen accessor: it lives as long as the accessors derived from
    /// it (Spec F17).
    mutating func internalFrozenRealm(of id: RealmID, at version: Version) throws(Interruption)
        -> RealmID
    {
        let realm = try realmState(id)
        let frozenID = RealmID(nextInternalRealm)
        nextInternalRealm -= 1
        var frozen = frozenRealm(of: realm, at: version)
        frozen.holders = 0
        realms[frozenID] = frozen
        return frozenID
    }
}
