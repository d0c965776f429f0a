import StrataStorage

// Write transactions (Spec W1 to W8, V11, V12, L2).
extension RealmCore {
    /// Spec W1, W2, W18, L2, V11: takes the file's write lock (waiting for other writers in any
    /// thread or process) and moves the realm to the newest version first. A synchronous write
    /// first settles the realm's earlier async commits (Spec A8, D13).
    func beginWrite() throws(Realm.Error) {
        try checkThread()  // a write reads nothing before W18's checks
        try checkTransactable()
        if write != nil { throw Realm.Error.alreadyInWrite }  // Spec W2
        flushAsyncCommits()  // Spec A8, D13
        try beginWriteTransaction()
    }

    /// The write itself, for synchronous and async writes.
    func beginWriteTransaction() throws(Realm.Error) {
        if let waiter = asyncWrites.lockWaiter {
            // Spec A7: the lock a background wait takes for this realm's blocks goes to this
            // synchronous write first (waiting here for it, as for the lock).
            asyncWrites.lockWaiter = nil
            try beginWriteTransaction(holding: waiter.wait().get())
            return
        }
        try beginWriteTransaction(holding: try engine(path) { try file.store.beginWrite() })
    }

    /// Begins the write on `transaction`, whose lock this realm holds.
    func beginWriteTransaction(holding transaction: WriteTransaction) throws(Realm.Error) {
        do {
            // Spec L2: "count > limit fails", checked once the write holds the lock, so a
            // write that waited counts the versions the holder's commit added.
            try checkActiveVersionLimit()
        } catch {
            transaction.rollback()
            throw error
        }
        let moved = read != nil && read?.version != transaction.baseVersion
        if read?.version != transaction.baseVersion, !file.bugs.contains(.beginWriteWithoutAdvancing) {
            // Spec V11: the pin is taken under the write lock, so it is the write's base.
            do throws(Realm.Error) {
                let newest = try engine(path) { try file.store.beginRead(.live) }
                read?.end()
                read = newest
            } catch {
                transaction.rollback()
                throw error
            }
        }
        write = transaction
        writeScope = WriteScope()
        writeChanges = WriteChanges()
        mutationCount &+= 1
        writeMutationBase = mutationCount
        if moved { notify(.didChange) }  // Spec V11: after the move, before beginWrite returns
        deliverPending()  // Spec N17: observers hear of earlier commits before the write goes on
    }

    /// Spec W3, W16, W17, V12: commits, and reads exactly the new version afterwards. A
    /// synchronous commit outside an async block first settles earlier async commits (A8, D13).
    func commitWrite(skipping tokens: [NotificationToken] = []) throws(Realm.Error) {
        try checkThread()
        let skipped = try subscriptions(skipping: tokens)  // Spec N4: before anything commits
        try checkTransactable()
        guard write != nil else { throw Realm.Error.noWriteToCommit }  // Spec W3
        try commitWriteTransaction(skipping: skipped)
        didCommitDurably()  // Spec A8, D13: earlier async commits are durable with this one
    }

    /// Spec N4: the observers of `tokens`, each registered in this realm (an `observe(on:)`
    /// token stands for its observer on that queue's realm); a token of another realm, or one
    /// not registered yet, is refused with Realm's message.
    private func subscriptions(skipping tokens: [NotificationToken]) throws(Realm.Error) -> [Subscription] {
        try tokens.map { token throws(Realm.Error) -> Subscription in
            guard let registration = token.subscription.registration,
                registration.realm == ObjectIdentifier(self) || file.bugs.contains(.skipAcceptsForeignTokens)
            else { throw Realm.Error.incorrectRealmSkip }
            return registration.subscription
        }
    }

    /// The commit itself, for synchronous and (`durable: false`, Spec D10) async commits.
    func commitWriteTransaction(skipping tokens: [Subscription] = [], durable: Bool = true) throws(Realm.Error) {
        guard let transaction = write else { throw Realm.Error.noWriteToCommit }  // Spec W3
        write = nil
        mutationCount &+= 1
        let committed: (version: Version, read: ReadTransaction?)
        // Before the version publishes, so no realm of this process sees it unrecorded.
        file.journal.record(writeChanges, version: transaction.newVersion, committer: ObjectIdentifier(self))
        writeChanges = WriteChanges()
        do {
            committed = try transaction.commitAndPin(.live, durable: durable)
        } catch {
            endWriteScope(committed: nil)  // Spec W17: nothing of the write exists
            throw Realm.Error.commitFailed(error, path: path)  // Spec W17, D6
        }
        endWriteScope(committed: committed)
        read?.end()
        read = committed.read
        file.watcher.didCommit()  // Spec V7: other realms move on their next turn
        rebaseNotifiers(skipping: tokens)  // Spec N4: skipped tokens never hear of this commit
        notify(.didChange, skipping: tokens)  // Spec N1: before the commit call returns
        scheduleDelivery()  // Spec N7: collection observers hear on a later turn
        scheduleAsyncTurn()  // Spec A7: queued async blocks waited for this write
    }

    /// Spec W18, F3: a read-only or frozen realm has no transactions, checked in Realm's order
    /// (realm-core's check_can_create_write_transaction: read-only first).
    func checkTransactable() throws(Realm.Error) {
        if configuration.readOnly { throw Realm.Error.readOnlyTransaction }
        if isFrozen { throw Realm.Error.frozenTransaction }
    }

    /// Spec L2: the active versions are within the configured limit.
    func checkActiveVersionLimit() throws(Realm.Error) {
        guard let limit = configuration.activeVersionLimit, !file.bugs.contains(.activeVersionLimitIgnored) else {
            return
        }
        let count = activeVersionCount()
        if count > limit { throw Realm.Error.tooManyActiveVersions(count: count, limit: limit) }
    }

    /// Spec W3, W5: discards the write; the realm reads the version the write began at.
    func cancelWrite() throws(Realm.Error) {
        try checkThread()
        try checkTransactable()
        if asyncWrites.isRunningCompletions { throw Realm.Error.cancelInCompletion }  // Spec A20
        guard let transaction = write else { throw Realm.Error.noWriteToCancel }  // Spec W3
        transaction.rollback()
        write = nil
        writeChanges = WriteChanges()
        endWriteScope(committed: nil)  // Spec W5: the write's objects never existed
        mutationCount &+= 1
        scheduleDelivery()  // Spec N8: a delivery turn that met the write waited for its end
        scheduleAsyncTurn()  // Spec A7: queued async blocks waited for this write
    }

    /// Ends the open write's scope: a rollback invalidates for good every accessor and
    /// reference to an object the write created (Spec W5, W12, T5); a commit settles the
    /// source of every reference made inside the write (Spec T4: the committed version, pinned
    /// by `committed.read` where the reference pins, T8).
    func endWriteScope(committed: (version: Version, read: ReadTransaction?)?) {
        if let committed {
            for pending in referencesInWrite {
                pending.source?.settle(committed: committed.version, pinning: committed.read)
            }
        } else {
            writeScope?.markRolledBack()  // references keep the version the write began at
        }
        referencesInWrite = []
        writeScope = nil
    }
}
