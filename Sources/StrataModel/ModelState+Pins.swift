// Pins, active versions and reclaiming (Spec D5, L1, L5, L6, F17, T8): which versions must stay
// readable, and dropping every other one after each step.

/// One reader slot of the lock file: a process pinning a version (Spec L6).
struct ReaderSlot: Hashable {
    var process: ProcessID
    var version: Version
}

extension ModelState {
    /// Whether a frozen realm is still reachable: held by a caller, or by an accessor or
    /// iterator derived from it (Spec F17).
    func frozenRealmIsAlive(_ id: RealmID) -> Bool {
        guard let realm = realms[id], realm.isFrozen, !realm.isClosed else { return false }
        if realm.holders > 0 { return true }
        return handles.values.contains { $0.realm == id }
            || iterators.values.contains { $0.realm == id }
    }

    /// Every pin on the file's versions, per process (Spec L1: live read versions, frozen
    /// realms and what derives from them, unresolved references).
    func readerSlots(of location: FileLocation) -> Set<ReaderSlot> {
        var slots: Set<ReaderSlot> = []
        for (id, realm) in realms where realm.configuration.location == location && !realm.isClosed {
            guard let version = realm.readVersion else { continue }
            if realm.isFrozen {
                // Spec F6, F17: an invalidated or unreachable frozen realm pins nothing.
                guard !realm.frozenInvalidated, frozenRealmIsAlive(id) else { continue }
            }
            slots.insert(ReaderSlot(process: realm.process, version: version))
        }
        for reference in references.values
        where reference.location == location && reference.pinsSourceVersion {
            // Spec T8: an unresolved reference pins its source version.
            slots.insert(ReaderSlot(process: reference.process, version: reference.sourceVersion))
        }
        for value in cells.values where value.location == location {
            // Spec T8, T10: so does the reference a `@ThreadSafe` cell keeps.
            slots.insert(ReaderSlot(process: value.process, version: value.sourceVersion))
        }
        return slots
    }

    /// Spec L1: the distinct versions that are the newest or pinned.
    public func activeVersions(of location: FileLocation) -> Set<Version> {
        guard let file = files[location] else { return [] }
        var versions = Set(readerSlots(of: location).map(\.version))
        versions.insert(file.newest)
        return versions
    }

    /// Spec D5, L5: a version is reclaimed as soon as nothing pins it and it is neither the
    /// newest, the durable (a crash recovers it) nor an adoptable one. Frozen realms nobody can
    /// reach are dropped.
    mutating func collectGarbage() {
        // Every step runs this: find the accessors' realms once, not once per frozen realm
        // (`frozenRealmIsAlive` is the same rule for one realm).
        let unheldFrozen = realms.compactMap { $0.value.isFrozen && $0.value.holders == 0 ? $0.key : nil }
        if !unheldFrozen.isEmpty {
            var reachable = Set(handles.values.compactMap(\.realm))
            reachable.formUnion(iterators.values.map(\.realm))
            for id in unheldFrozen where realms[id]?.isClosed != false || !reachable.contains(id) {
                realms[id] = nil
            }
        }
        for location in files.keys.sorted() {
            guard var file = files[location] else { continue }
            var keep = activeVersions(of: location)
            keep.insert(file.durable)
            if let adoptable = file.adoptable { keep.insert(adoptable) }
            // Most steps reclaim nothing: leave the file (and its storage) alone then.
            guard file.versions.keys.contains(where: { !keep.contains($0) }) else { continue }
            file.versions = file.versions.filter { keep.contains($0.key) }
            files[location] = file
        }
    }

    /// Spec L2, L3, L4: a write may begin only while the active versions are within the limit.
    func checkActiveVersionLimit(of id: RealmID) throws(Interruption) {
        let realm = try realmState(id)
        guard let limit = realm.configuration.activeVersionLimit else { return }
        let count = activeVersions(of: realm.configuration.location).count
        if count > limit { throw .rejected(.tooManyActiveVersions(count: count, limit: limit)) }
    }

    /// Spec D2, D7, W8: a version whose slot is in the file but was never published becomes the
    /// newest when the next write begins or the lock file is created afresh.
    mutating func adoptIfNeeded(_ location: FileLocation) {
        guard var file = files[location], let adoptable = file.adoptable else { return }
        file.adoptable = nil
        if adoptable > file.durable { file.unconfirmedSlot = max(file.unconfirmedSlot ?? adoptable, adoptable) }
        if adoptable > file.newest {
            file.newest = adoptable
            files[location] = file
            announceCommit(on: location, by: nil)
        } else {
            files[location] = file
        }
    }

    /// Spec D7: a write begin finds the newest slot unconfirmed and writes it again and syncs
    /// it, so that version is durable from then on (the engine does so as it takes the lock,
    /// before anything can reject the write).
    mutating func confirmNewestSlot(_ location: FileLocation) {
        guard var file = files[location], let slot = file.unconfirmedSlot else { return }
        file.unconfirmedSlot = nil
        file.durable = max(file.durable, slot)
        files[location] = file
    }

    // MARK: Crashes

    /// Spec D4: recovery takes the newest slot that reached the disk. Spec D9: the recovered
    /// file is an ordinary file that takes further writes and crashes.
    /// Power loss: every process ends; each file reopens at its durable version, or at a slot
    /// written but not synced when `keepUnsyncedSlots` (Spec D2, D3, D10); in-memory realms are
    /// gone (Spec D14).
    mutating func crashMachine(keepUnsyncedSlots: Bool) {
        var recovered: [FileLocation: FileState] = [:]
        for (location, file) in files where !location.isInMemory {
            var version = file.durable
            if keepUnsyncedSlots, let adoptable = file.adoptable, adoptable > version {
                version = adoptable
            }
            guard let data = file.versions[version] else { continue }
            var next = file
            next.versions = [version: data]
            next.newest = version
            next.durable = version
            next.adoptable = nil
            next.unconfirmedSlot = nil
            next.writer = nil
            next.poisoned = []
            recovered[location] = next
            committers[location] = committers[location]?.filter { $0.key <= version }
        }
        files = recovered
        realms = [:]
        handles = [:]
        references = [:]
        cells = [:]
        observers = [:]
        iterators = [:]
    }

    /// A process is killed (SIGKILL): its realms, accessors, references and observers end; the
    /// write lock it held is released and its open write discarded (Spec W8); its pins are
    /// reclaimed (Spec L6). Published versions stay (the page cache survives); what is durable
    /// does not change.
    mutating func killProcess(_ process: ProcessID) {
        let dead = Set(realms.filter { $0.value.process == process }.map(\.key))
        for location in files.keys.sorted() {
            if let writer = files[location]?.writer, dead.contains(writer) {
                files[location]?.writer = nil
            }
            files[location]?.poisoned.remove(process)
        }
        for id in dead { realms[id] = nil }
        handles = handles.filter { $0.value.realm.map { !dead.contains($0) } ?? true }
        references = references.filter { $0.value.process != process }
        cells = cells.filter { $0.value.process != process }
        observers = observers.filter { !dead.contains($0.value.realm) }
        iterators = iterators.filter { !dead.contains($0.value.realm) }
        for location in files.keys.sorted() { dropInMemoryFileIfUnused(location) }
    }
}
