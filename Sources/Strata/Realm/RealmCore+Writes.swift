import StrataStorage

// Write transactions (Spec W1 to W8, V11, V12, L2).
extension RealmCore {
    /// Spec W1, W2, W18, L2, V11: takes the file's write lock (waiting for other writers in any
    /// thread or process) and moves the realm to the newest version first.
    func beginWrite() throws(Realm.Error) {
        try checkThread()  // a write reads nothing before W18's checks
        if isFrozen { throw Realm.Error.frozenTransaction }  // Spec F3, W18
        if configuration.readOnly { throw Realm.Error.readOnlyTransaction }  // Spec W18
        if write != nil { throw Realm.Error.alreadyInWrite }  // Spec W2
        let transaction = try engine(path) { try file.store.beginWrite() }
        if let limit = configuration.activeVersionLimit, !file.bugs.contains(.activeVersionLimitIgnored) {
            // Spec L2: "count > limit fails", checked once the write holds the lock, so a
            // write that waited counts the versions the holder's commit added.
            let count = activeVersionCount()
            if count > limit {
                transaction.rollback()
                throw Realm.Error.tooManyActiveVersions(count: count, limit: limit)
            }
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
        mutationCount &+= 1
        if moved { notify(.didChange) }  // Spec V11: after the move, before beginWrite returns
    }

    /// Spec W3, W16, W17, V12: commits, and reads exactly the new version afterwards.
    func commitWrite(skipping tokens: [NotificationToken] = []) throws(Realm.Error) {
        try checkThread()
        guard let transaction = write else { throw Realm.Error.noWriteToCommit }  // Spec W3
        write = nil
        mutationCount &+= 1
        let committed: (version: Version, read: ReadTransaction?)
        do {
            committed = try transaction.commitAndPin(.live)
        } catch {
            endWriteScope(committed: nil)  // Spec W17: nothing of the write exists
            throw Realm.Error.commitFailed(error, path: path)  // Spec W17, D6
        }
        endWriteScope(committed: committed)
        read?.end()
        read = committed.read
        file.watcher.didCommit()  // Spec V7: other realms move on their next turn
        notify(.didChange, skipping: tokens)  // Spec N1: before the commit call returns
    }

    /// Spec W3, W5: discards the write; the realm reads the version the write began at.
    func cancelWrite() throws(Realm.Error) {
        try checkThread()
        guard let transaction = write else { throw Realm.Error.noWriteToCancel }  // Spec W3
        transaction.rollback()
        write = nil
        endWriteScope(committed: nil)  // Spec W5: the write's objects never existed
        mutationCount &+= 1
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
