// Async writes (the A rules) and the durability of async groups (D10 to D13).
//
// A queued block runs on a loop turn of its realm's context when the write lock is free and no
// ended group is still waiting for its durable commit (A9: a group's completions run before any
// block queued later). Its commit is published at once (A6) and joins the realm's open group;
// the group ends at a commit with allowGrouping false, at its 20th commit, or when no block is
// queued. `syncAsyncGroup` is the background thread finishing a group's durable commit; the
// completions then run on the next turn, in commit order.

extension ModelState {
    static let asyncGroupCommitsMax = 20  // Spec L7, A9

    mutating func dispatchAsyncOperation(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .writeAsync(let realmID, let mutations, let id):
            try checkAsyncAllowed(realmID, in: context)
            // Spec A1: returns before the block runs; commits without grouping; completes.
            // Spec A4: the id names the block; its commit's completion cannot be cancelled.
            enqueue(
                AsyncBlock(
                    id: id, mutations: mutations,
                    ending: .commit(allowGrouping: false), hasCompletion: true,
                    commitTakesBlockID: false),
                on: realmID)
            return .done
        case .beginAsyncWrite(let realmID, let mutations, let ending, let id):
            try checkAsyncAllowed(realmID, in: context)
            // Spec A2, A3, A19: a block that cancels its write, or leaves it open, has no
            // completion (only `commitAsyncWrite` takes one); its commit's completion has the
            // block's id here.
            var hasCompletion = true
            if ending == .cancel || ending == .leaveOpen { hasCompletion = false }
            enqueue(
                AsyncBlock(id: id, mutations: mutations, ending: ending, hasCompletion: hasCompletion),
                on: realmID)
            return .done
        case .asyncWrite(let realmID, let mutations, let ending, let cancelled, let id):
            _ = try usableRealm(realmID, in: context)
            let kind = try contextState(context).kind
            guard kind == .mainThread || kind == .actor else {
                throw .rejected(.asyncWriteContext)  // Spec C12, before the checks of A12
            }
            try checkAsyncAllowed(realmID, in: context)
            if cancelled { throw .rejected(.cancelled) }  // Spec A16: the block never runs
            enqueue(
                AsyncBlock(id: id, mutations: mutations, ending: ending, hasCompletion: true),
                on: realmID)
            return .done
        case .commitAsyncWrite(let realmID, let allowGrouping, let id):
            _ = try usableRealm(realmID, in: context)
            try checkTransactable(realmID)  // Spec W18, in Realm's order
            // Spec A5: needs an open write on this realm.
            guard realms[realmID]?.write != nil else { throw .rejected(.noWriteToCommit) }
            asyncCommit(realmID, id: id, allowGrouping: allowGrouping, hasCompletion: true)
            return .done
        case .cancelAsyncWrite(let realmID, let id):
            _ = try usableRealm(realmID, in: context)
            cancelAsyncWrite(id, on: realmID)
            return .done
        case .isPerformingAsynchronousWriteOperations(let realmID):
            let realm = try usableRealm(realmID, in: context)
            // Spec A17: from queueing until nothing is queued, running or owed a completion.
            return .bool(
                !realm.asyncQueue.isEmpty || !realm.asyncGroups.isEmpty
                    || !realm.completionsOwed.isEmpty || realm.write?.asyncBlock != nil)
        case .syncAsyncGroup(let realmID, let fails):
            let realm = try realmState(realmID)
            guard realm.asyncGroups.first?.isEnded == true else {
                throw .rejected(.invalidStep("no ended async group on \(realmID)"))
            }
            finishOldestGroup(realmID, fails: fails, runCompletionsNow: false)
            return .done
        default:
            throw .rejected(.invalidStep("not an async operation"))
        }
    }

    /// Spec A12: async writes are refused on read-only, frozen and closed realms.
    /// Spec A12, L3, in Realm's order. (A20's check, inside a commit completion, never arises
    /// here: the model's completions run no caller code. The messages are `ModelError`'s.)
    private func checkAsyncAllowed(_ realmID: RealmID, in context: ContextID) throws(Interruption) {
        _ = try usableRealm(realmID, in: context)
        try checkTransactable(realmID)
        try checkActiveVersionLimit(of: realmID)  // Spec L3: when the block is queued too
        // Spec A12: a turn must come to run the block.
        if try !contextState(context).kind.hasScheduler { throw .rejected(.asyncWriteWithoutRunLoop) }
    }

    private mutating func enqueue(_ block: AsyncBlock, on realmID: RealmID) {
        realms[realmID]?.asyncQueue.append(block)  // Spec A2: FIFO
    }

    /// Spec A4: a queued block is removed; a commit's completion is dropped; the running block
    /// is left alone.
    private mutating func cancelAsyncWrite(_ id: AsyncWriteID, on realmID: RealmID) {
        guard var realm = realms[realmID] else { return }
        realm.asyncQueue.removeAll { $0.id == id }
        for g in realm.asyncGroups.indices {
            for c in realm.asyncGroups[g].commits.indices
            where realm.asyncGroups[g].commits[c].id == id && realm.asyncGroups[g].commits[c].isCancellable {
                realm.asyncGroups[g].commits[c].completionCancelled = true
            }
        }
        realm.completionsOwed.removeAll { $0.id == id && $0.isCancellable }  // Spec A10: runs zero times
        realms[realmID] = realm
    }

    /// Spec A6, V12, D10, A9: publishes the realm's open write without a sync and adds it to the
    /// realm's open group.
    mutating func asyncCommit(
        _ realmID: RealmID, id: AsyncWriteID, allowGrouping: Bool,
        hasCompletion: Bool, isCancellable: Bool = true
    ) {
        guard let realm = realms[realmID], let write = realm.write else { return }
        let version = write.startVersion.next
        publish(write.snapshot, as: version, of: realmID)
        emit(.asyncCommitted(id, version))
        var groups = realms[realmID]?.asyncGroups ?? []
        if groups.last?.isEnded != false { groups.append(AsyncGroup(commits: [], isEnded: false)) }
        groups[groups.count - 1].commits.append(
            AsyncCommit(
                id: id, version: version, completionCancelled: false, hasCompletion: hasCompletion,
                isCancellable: isCancellable))
        let queueEmpty = realms[realmID]?.asyncQueue.isEmpty ?? true
        // Spec A9, L7: the group ends without grouping, at its 20th commit, or with no block
        // queued.
        if !allowGrouping || groups[groups.count - 1].commits.count >= Self.asyncGroupCommitsMax
            || queueEmpty
        {
            groups[groups.count - 1].isEnded = true
        }
        realms[realmID]?.asyncGroups = groups
        afterLocalCommit(realmID, version: version, skipping: [])  // Spec N1
    }

    /// Spec D10, D11, D12: the oldest ended group's durable commit finished. On success its
    /// last version is durable and its completions are owed (nil error); on failure every
    /// completion of the group gets the error and the file is poisoned.
    mutating func finishOldestGroup(_ realmID: RealmID, fails: Bool, runCompletionsNow: Bool) {
        guard var realm = realms[realmID], !realm.asyncGroups.isEmpty else { return }
        let group = realm.asyncGroups.removeFirst()
        let location = realm.configuration.location
        var error: ModelError?
        if fails || files[location]?.poisoned.contains(realm.process) == true {
            error = .commitFailed(.beforeSlot)
            files[location]?.poisoned.insert(realm.process)  // Spec D6, D12
        } else if let last = group.commits.last?.version,
            let durable = files[location]?.durable, durable < last
        {
            files[location]?.durable = last  // Spec D10: one sync makes the group's last durable
        }
        let completions = group.commits.filter { $0.hasCompletion && !$0.completionCancelled }
            .map { AsyncCompletion(id: $0.id, error: error, isCancellable: $0.isCancellable) }
        realm.completionsOwed.append(contentsOf: completions)  // Spec A9: in commit order
        realms[realmID] = realm
        if runCompletionsNow { runOwedCompletions(realmID) }
    }

    /// Spec D13, A8, A13: make every async commit of the realm durable now and run the
    /// completions, before the synchronous call returns.
    mutating func flushAsync(_ realmID: RealmID) {
        guard let realm = realms[realmID] else { return }
        if !realm.asyncGroups.isEmpty {
            realms[realmID]?.asyncGroups[realm.asyncGroups.count - 1].isEnded = true
        }
        while realms[realmID]?.asyncGroups.isEmpty == false {
            finishOldestGroup(realmID, fails: false, runCompletionsNow: false)
        }
        runOwedCompletions(realmID)
    }

    private mutating func runOwedCompletions(_ realmID: RealmID) {
        let owed = realms[realmID]?.completionsOwed ?? []
        realms[realmID]?.completionsOwed = []
        for completion in owed { emit(.asyncCompleted(completion.id, completion.error)) }  // A10
    }

    /// The async part of a loop turn (Spec A1, A2, A9, A18).
    mutating func runAsyncTurn(_ realmID: RealmID) {
        guard let realm = realms[realmID] else { return }
        if !realm.completionsOwed.isEmpty {
            runOwedCompletions(realmID)  // Spec A9: before any block queued later runs
            return
        }
        // Spec A9: blocks wait while an ended group is not yet durable.
        guard realm.write == nil, let block = realm.asyncQueue.first,
            !realm.asyncGroups.contains(where: \.isEnded)
        else { return }
        let location = realm.configuration.location
        guard files[location]?.writer == nil else { return }  // Spec W1: waits for the lock
        realms[realmID]?.asyncQueue.removeFirst()
        do throws(Interruption) {
            // Spec L3: the limit is checked when the block would begin.
            try beginWrite(realmID, asyncBlock: block.id, flushingAsync: false)
        } catch {
            if block.hasCompletion { emit(.asyncCompleted(block.id, error.modelError)) }
            return
        }
        emit(.asyncBlockStarted(block.id))
        // Spec A11: a block's writes are ordinary writes of the realm, whatever they capture.
        do throws(Interruption) {
            for mutation in block.mutations { try apply(mutation, in: realmID) }
        } catch {
            rollback(realmID)  // Spec A14: a failing block rolls back
            if block.hasCompletion { emit(.asyncCompleted(block.id, error.modelError)) }
            return
        }
        switch block.ending {
        case .commit(let allowGrouping):
            asyncCommit(
                realmID, id: block.id, allowGrouping: allowGrouping,
                hasCompletion: block.hasCompletion, isCancellable: block.commitTakesBlockID)
        case .cancel:
            rollback(realmID)  // Spec A3
            if block.hasCompletion { emit(.asyncCompleted(block.id, nil)) }
        case .throwError(let code):
            rollback(realmID)  // Spec A14, A15: the block's own error, after rollback
            if block.hasCompletion {
                emit(.asyncCompleted(block.id, .thrownByBlock(code: code)))
            }
        case .leaveOpen:
            rollback(realmID)  // Spec A19: neither committed nor cancelled
        }
    }
}
