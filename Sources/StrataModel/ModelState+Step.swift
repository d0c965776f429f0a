// The model's one entry point, `step`, and the plumbing every operation shares: lookup of the
// entities an operation names, the confinement check, and rejection without effect.

/// Why an operation stopped early.
enum Interruption: Error {
    /// Rejected before it changed anything: the state is restored (the "rejected with" of the
    /// Spec preamble: no effect).
    case rejected(ModelError)
    /// The call failed after effects that stand (a rolled-back write rethrowing, a failed commit
    /// that poisoned the file).
    case failedAfterEffects(ModelError)
    /// The call waits for the write lock (Spec W1).
    case blocked
}

extension ModelState {
    /// Runs one operation. Pure: the receiver is unchanged; returns the next state and what the
    /// call returned. Deterministic: the same state and step give the same result.
    public func step(_ step: Step) -> (ModelState, Outcome) {
        var next = self
        let outcome = next.perform(step)
        return (next, outcome)
    }

    /// Runs one operation in place.
    public mutating func perform(_ step: Step) -> Outcome {
        let saved = self
        eventLog = []
        callbackStack = []
        let result: StepResult
        do throws(Interruption) {
            guard contexts[step.context] != nil || isSetup(step.operation) else {
                throw Interruption.rejected(.invalidStep("unknown context \(step.context)"))
            }
            result = .success(try dispatch(step.operation, in: step.context))
        } catch {
            switch error {
            case .rejected(let error):
                self = saved
                return Outcome(result: .failure(error), events: [])
            case .blocked:
                self = saved
                return Outcome(result: .blocked, events: [])
            case .failedAfterEffects(let error):
                result = .failure(error)
            }
        }
        // Spec N9: a delivery pass never outlives its step, so an observer added during one
        // (in a loop turn or in a commit's callback) is served by the next turn or refresh().
        for id in observers.keys where observers[id]?.waitsForNextPass == true {
            observers[id]?.waitsForNextPass = false
        }
        closeReleasedRealmsWhoseWorkEnded()
        collectGarbage()
        #if STRATA_CHECKS
            if let violation = invariantViolations().first {
                preconditionFailure("model invariant violated after \(step): \(violation)")
            }
        #endif
        let events = eventLog
        eventLog = []
        callbackStack = []
        return Outcome(result: result, events: events)
    }

    private func isSetup(_ operation: Operation) -> Bool {
        if case .addContext = operation { return true }
        return false
    }

    private mutating func dispatch(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .addContext, .setPathCondition, .open, .asyncOpen, .release, .close, .setAutorefresh,
            .getAutorefresh, .refresh, .asyncRefresh, .asyncRefreshInCancelledTask, .invalidate, .freezeRealm,
            .thawRealm,
            .isEmpty, .isInWriteTransaction, .readConfiguration, .crashMachine, .killProcess,
            .fileExists, .deleteFiles, .writeCopy:
            return try dispatchRealmOperation(operation, in: context)
        case .objects, .objectForPrimaryKey, .listOf, .linkingObjectsOf, .read, .element, .isInvalidated,
            .realmOf, .releaseHandle, .iterate, .iteratorNext, .aggregate, .sectioned, .freezeHandle, .thawHandle,
            .frozenEqual:
            return try dispatchReadOperation(operation, in: context)
        case .beginWrite, .commitWrite, .cancelWrite, .writeBlock, .apply, .makeUnmanaged, .add,
            .create, .createCopy, .setValue, .setLink, .append, .removeFromList, .setMapValue, .delete, .deleteAll,
            .insertIntoSet, .removeFromSet, .removeMapKey:
            return try dispatchWriteOperation(operation, in: context)
        case .makeReference, .resolve, .releaseReference, .assignThreadSafe, .readThreadSafe:
            return try dispatchReferenceOperation(operation, in: context)
        case .observeRealm, .observeCollection, .observeObject, .invalidateToken, .turnLoop:
            return try dispatchNotificationOperation(operation, in: context)
        case .writeAsync, .beginAsyncWrite, .asyncWrite, .commitAsyncWrite, .cancelAsyncWrite,
            .isPerformingAsynchronousWriteOperations, .syncAsyncGroup:
            return try dispatchAsyncOperation(operation, in: context)
        }
    }

    // MARK: Lookup

    func contextState(_ id: ContextID) throws(Interruption) -> ContextState {
        guard let state = contexts[id] else {
            throw .rejected(.invalidStep("unknown context \(id)"))
        }
        return state
    }

    func realmState(_ id: RealmID) throws(Interruption) -> RealmState {
        guard let state = realms[id] else { throw .rejected(.invalidStep("unknown realm \(id)")) }
        return state
    }

    func handleState(_ id: HandleID) throws(Interruption) -> HandleState {
        guard let state = handles[id] else {
            throw .rejected(.invalidStep("unknown handle \(id)"))
        }
        return state
    }

    func fileState(_ location: FileLocation) throws(Interruption) -> FileState {
        guard let state = files[location] else {
            throw .rejected(.invalidStep("no file \(location)"))
        }
        return state
    }

    /// A realm the calling context may use. Spec C8: every method of a live realm from another
    /// context is rejected (`configuration` and release are handled by their callers);
    /// Spec C10, F15: a frozen realm is usable anywhere, by any number of contexts;
    /// Spec A12: a closed realm is rejected.
    /// Spec D6: a live realm of a file poisoned in its process refuses every use.
    func usableRealm(_ id: RealmID, in context: ContextID) throws(Interruption) -> RealmState {
        let realm = try usableRealmEvenIfPoisoned(id, in: context)
        if !realm.isFrozen,
            files[realm.configuration.location]?.poisoned.contains(realm.process) == true
        {
            throw .rejected(.poisoned)
        }
        return realm
    }

    /// `usableRealm` for the calls a poisoned file still allows (Spec D6): asking whether a
    /// write is open (W17), invalidate and close.
    func usableRealmEvenIfPoisoned(_ id: RealmID, in context: ContextID) throws(Interruption)
        -> RealmState
    {
        let realm = try realmState(id)
        if realm.isClosed { throw .rejected(.realmClosed) }
        if !realm.isFrozen, realm.owner != context { throw .rejected(.wrongThread) }
        return realm
    }

    /// Whether two realm identifiers name the same `Realm` instance. Spec C1 gives live
    /// instances one identifier per context; Spec F6: frozen realms of one process, file and
    /// version are one shared instance while they live (Realm caches frozen realms by version),
    /// so an object of one is managed by the other (W11's "the Realm it belongs to").
    func isSameInstance(_ a: RealmID, _ b: RealmID) -> Bool {
        if a == b { return true }
        guard let first = realms[a], first.isFrozen, let second = realms[b] else { return false }
        return livingFrozenRealms(sharing: first).contains(b) && frozenRealmIsAlive(a)
            && second.isFrozen
    }

    /// Spec C15: an actor-confined realm is used from its actor only; contexts are compared by
    /// identity, so the same check covers threads, queues and actors.
    func checkOwner(of handle: HandleState, in context: ContextID) throws(Interruption) {
        guard let realmID = handle.realm else { return }  // Spec C5: unmanaged objects are free
        _ = try usableRealm(realmID, in: context)
    }

    /// The data a realm reads: its write transaction's working copy, or its read version.
    public func view(of id: RealmID) -> Snapshot? {
        guard let realm = realms[id] else { return nil }
        if let write = realm.write { return write.snapshot }
        guard let version = realm.readVersion else { return nil }
        return files[realm.configuration.location]?.versions[version]
    }

    func newest(of location: FileLocation) -> Version? { files[location]?.newest }

    /// Observers, handles and realms are visited in identifier order, so every step is
    /// deterministic.
    func realmIDs(where predicate: (RealmState) -> Bool) -> [RealmID] {
        realms.filter { predicate($0.value) }.map(\.key).sorted()
    }

    func observerIDs(where predicate: (ObserverState) -> Bool) -> [ObserverID] {
        observers.filter { predicate($0.value) }.map(\.key).sorted()
    }

    mutating func emit(_ event: Event) { eventLog.append(event) }
}
