// Write transactions (the W rules) and what a commit does to versions and durability (D1 to
// D7): begin, mutate, commit with the engine's fate, cancel, roll back.

extension ModelState {
    mutating func dispatchWriteOperation(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .beginWrite(let id):
            _ = try usableRealm(id, in: context)
            try beginWrite(id, asyncBlock: nil, flushingAsync: true)
            return .done
        case .commitWrite(let id, let skipped, let fate):
            _ = try usableRealm(id, in: context)
            try checkSkippable(skipped, by: id)  // Spec N4: before anything commits
            try checkTransactable(id)  // Spec W18, in Realm's order
            // Spec W3: only with an open write on this realm.
            guard realms[id]?.write != nil else { throw .rejected(.noWriteToCommit) }
            flushAsync(id)  // Spec D13, A8: earlier async commits first
            try commit(id, skipping: skipped, fate: fate)
            return .done
        case .cancelWrite(let id):
            _ = try usableRealm(id, in: context)
            try checkTransactable(id)  // Spec W18, in Realm's order
            guard realms[id]?.write != nil else { throw .rejected(.noWriteToCancel) }  // Spec W3
            rollback(id)  // Spec W5
            return .done
        case .writeBlock(let id, let mutations, let ending, let skipped, let fate):
            _ = try usableRealm(id, in: context)
            try beginWrite(id, asyncBlock: nil, flushingAsync: true)
            do throws(Interruption) {
                for mutation in mutations { try apply(mutation, in: id) }
            } catch {
                // Spec W6: a failing block rolls back and the error reaches the caller.
                rollback(id)
                throw .failedAfterEffects(error.modelError)
            }
            switch ending {
            case .commit:
                do throws(Interruption) {
                    try checkSkippable(skipped, by: id)  // Spec N4: the write stays open
                } catch {
                    throw .failedAfterEffects(error.modelError)
                }
                try commit(id, skipping: skipped, fate: fate)
            case .cancelInBlock:
                rollback(id)  // Spec W5: write returns normally without committing
            case .throwError(let code):
                rollback(id)  // Spec W6: rethrows exactly the block's error
                throw .failedAfterEffects(.thrownByBlock(code: code))
            }
            return .done
        case .apply(let id, let mutations):
            _ = try usableRealm(id, in: context)
            for mutation in mutations { try apply(mutation, in: id) }
            return .done
        default:
            return try dispatchAccessorWrite(operation, in: context)
        }
    }

    // MARK: Begin

    /// Spec W18, F3: a read-only or frozen realm has no transactions, checked in Realm's order
    /// (realm-core's check_can_create_write_transaction: read-only first).
    func checkTransactable(_ id: RealmID) throws(Interruption) {
        let realm = try realmState(id)
        if realm.configuration.readOnly { throw .rejected(.readOnlyTransaction) }
        if realm.isFrozen { throw .rejected(.frozenTransaction) }
    }

    /// Spec W1, W2, W18, F3, L2, V11, D13.
    mutating func beginWrite(_ id: RealmID, asyncBlock: AsyncWriteID?, flushingAsync: Bool)
        throws(Interruption)
    {
        let realm = try realmState(id)
        try checkTransactable(id)  // Spec W18, F3
        if realm.write != nil { throw .rejected(.alreadyInWrite) }  // Spec W2
        let location = realm.configuration.location
        if try fileState(location).poisoned.contains(realm.process) {
            throw .rejected(.poisoned)  // Spec D6
        }
        if try fileState(location).writer != nil { throw .blocked }  // Spec W1: it waits
        if flushingAsync { flushAsync(id) }  // Spec D13, A8
        // Spec A7: queued async blocks start only on a loop turn, so a synchronous write takes
        // the lock before any of them, and cancelling it leaves them queued.
        adoptIfNeeded(location)
        confirmNewestSlot(location)  // Spec D7
        try checkActiveVersionLimit(of: id)  // Spec L2
        // Spec V11: move to the newest version first; observers see the new data before
        // beginWrite returns. A callback may itself commit, so repeat until nothing is newer
        // (bounded: Spec N5 keeps each observer from running again inside itself).
        if realms[id]?.readVersion == nil {
            try beginReadIfNeeded(id)
        }
        // Spec N17: pending collection callbacks (the realm's own earlier commits) run first.
        deliverCollectionPass(of: id)
        var rounds = 0
        while let current = realms[id]?.readVersion, let newest = newest(of: location),
            current < newest, rounds < 64
        {
            moveToNewest(id)
            deliverCollectionPass(of: id)
            rounds += 1
        }
        guard try fileState(location).writer == nil, realms[id]?.write == nil else {
            throw .blocked  // a callback left a write open: the caller waits
        }
        let file = try fileState(location)
        guard let snapshot = file.versions[file.newest] else {
            throw .rejected(.invalidStep("newest version missing"))
        }
        realms[id]?.readVersion = file.newest
        realms[id]?.write = WriteTransaction(
            startVersion: file.newest, snapshot: snapshot,
            createdObjects: [], asyncBlock: asyncBlock)
        files[location]?.writer = id  // Spec W1: one writer per file
    }

    /// Spec N4: a skipped token must be an observer of the committing realm: one registered
    /// on it, or one made with `observe(on:)` for its file whose callbacks run in its context
    /// (the token then stands for the observer on that context's realm).
    func checkSkippable(_ skipped: [ObserverID], by id: RealmID) throws(Interruption) {
        let realm = try realmState(id)
        for observerID in skipped {
            guard let observer = observers[observerID] else { throw .rejected(.incorrectRealmSkip) }
            let registeredHere = observer.realm == id && observer.deliveryContext == realm.owner
            let forwardedHere =
                observer.deliveryContext == realm.owner && observer.realm != id
                && realms[observer.realm]?.configuration == realm.configuration
            guard registeredHere || forwardedHere else { throw .rejected(.incorrectRealmSkip) }
        }
    }

    // MARK: Commit

    /// Spec D1: the engine's order (pages, sync, slot, sync, publish, unlock) is one step here;
    /// a crash between its parts is a `CommitWindow` of the fate.
    /// Spec W16: a successful commit creates exactly start + 1, publishes it, releases the lock
    /// and only then returns; the engine's fate decides failures and crashes (D2 to D7).
    mutating func commit(_ id: RealmID, skipping skipped: [ObserverID], fate: CommitFate)
        throws(Interruption)
    {
        let realm = try realmState(id)
        guard let write = realm.write else { throw .rejected(.noWriteToCommit) }
        let location = realm.configuration.location
        let version = write.startVersion.next
        let data = write.snapshot
        switch fate {
        case .success:
            publish(data, as: version, of: id)
            files[location]?.durable = version  // Spec D3: phase 2's sync returned
            files[location]?.adoptable = nil
            afterLocalCommit(id, version: version, skipping: skipped)
        case .failure(let failure):
            // Spec W17: the call throws, the realm stays at the start version, the lock is free.
            rollback(id)
            if failure != .mapCapacityExceeded {
                files[location]?.poisoned.insert(realm.process)  // Spec D6: never retried
            }
            if failure == .atSlot(slotOnDisk: true) {
                // Spec D7: the slot is on disk, so reopen may find the new version.
                files[location]?.versions[version] = data
                files[location]?.adoptable = version
                committers[location, default: [:]][version] = id
            }
            throw .failedAfterEffects(.commitFailed(failure))
        case .machineCrash(let window):
            // Spec D2, D3: the version reopen finds depends on the window only.
            files[location]?.versions[version] = data
            committers[location, default: [:]][version] = id
            if window.slotSynced { files[location]?.durable = version }
            files[location]?.adoptable = window.slotWritten ? version : nil
            crashMachine(keepUnsyncedSlots: window.slotWritten)
        case .processKilled(let window):
            // Spec W8: the lock dies with the process; a written slot is adopted later.
            if window.slotWritten {
                files[location]?.versions[version] = data
                files[location]?.adoptable = version
                committers[location, default: [:]][version] = id
            }
            if window.slotSynced { files[location]?.durable = version }
            killProcess(realm.process)
        }
    }

    /// Makes `data` the newest version, written by `id`'s open write, and ends that write.
    mutating func publish(_ data: Snapshot, as version: Version, of id: RealmID) {
        guard let realm = realms[id] else { return }
        let location = realm.configuration.location
        files[location]?.versions[version] = data
        files[location]?.newest = version
        files[location]?.writer = nil
        committers[location, default: [:]][version] = id
        realms[id]?.write = nil
        realms[id]?.readVersion = version  // Spec V12: the committer reads its own commit
        // Spec T4: references made inside the write now carry the committed version.
        for (ref, reference) in references where reference.madeInWriteOf == id {
            references[ref]?.sourceVersion = version
            references[ref]?.madeInWriteOf = nil
        }
        // Spec T10, T4: so do `@ThreadSafe` values assigned inside the write.
        for (cell, value) in cells where value.madeInWriteOf == id {
            cells[cell]?.sourceVersion = version
            cells[cell]?.madeInWriteOf = nil
        }
    }

    /// Spec N1, N4, N5: the committer's realm observers run before the commit returns, except
    /// skipped tokens and a callback already running; skipped collection observers leave the
    /// commit out of their change sets. Other realms learn of the commit (N3).
    mutating func afterLocalCommit(_ id: RealmID, version: Version, skipping skipped: [ObserverID]) {
        for observer in skipped {
            guard let state = observers[observer], state.realm == id, state.initialDelivered else {
                continue
            }
            rebase(observer, to: version)
        }
        notifyRealmObservers(of: id, kind: .didChange, skipping: Set(skipped))
        if let location = realms[id]?.configuration.location {
            announceCommit(on: location, by: id)
        }
    }

    /// Spec N3, N24: every other live realm of the file in any process learns of a new version:
    /// with autorefresh off it owes `.refreshRequired`; with it on it moves on its next turn (V7).
    /// Spec V14: an invalidated realm (no read version, epoch > 0) keeps its observers, so it
    /// owes them a notification too (`.didChange` with autorefresh on).
    mutating func announceCommit(on location: FileLocation, by committer: RealmID?) {
        for other in realmIDs(where: {
            $0.configuration.location == location && !$0.isFrozen && !$0.isClosed
                && ($0.readVersion != nil || $0.epoch > 0)
        }) where other != committer {
            if realms[other]?.autorefresh == false || realms[other]?.readVersion == nil {
                realms[other]?.refreshRequiredOwed = true
            }
        }
    }

    /// Spec W5, W7: discards the write; every read equals the start state again. Spec N26: it
    /// makes no version and announces nothing (no `announceCommit`, no observer callback), so
    /// no observer, of this realm or any other, hears of the cancelled write.
    mutating func rollback(_ id: RealmID) {
        guard let realm = realms[id], let write = realm.write else { return }
        realms[id]?.write = nil
        realms[id]?.readVersion = write.startVersion
        let location = realm.configuration.location
        if files[location]?.writer == id { files[location]?.writer = nil }
        for (ref, reference) in references where reference.madeInWriteOf == id {
            references[ref]?.madeInWriteOf = nil
        }
        for (cell, value) in cells where value.madeInWriteOf == id {
            cells[cell]?.madeInWriteOf = nil
        }
    }
}

extension Interruption {
    var modelError: ModelError {
        switch self {
        case .rejected(let error), .failedAfterEffects(let error): return error
        case .blocked: return .invalidStep("blocked")
        }
    }
}
