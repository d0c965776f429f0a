// Thread-safe references and `@ThreadSafe` cells (the T rules).

extension ModelState {
    mutating func dispatchReferenceOperation(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .makeReference(let id, let referenceID):
            guard references[referenceID] == nil else {
                throw .rejected(.invalidStep("reference \(referenceID) exists"))
            }
            let (location, target, version, writer) = try referenceSource(
                of: id, in: context, unmanagedError: .referenceToUnmanaged)
            let process = try contextState(context).process
            if writer == nil {  // Spec T8, L6: the reference pins its source version
                try checkReaderSlot(process: process, version: version, location: location)
            }
            references[referenceID] = ReferenceState(
                process: process, location: location, target: target, sourceVersion: version,
                madeInWriteOf: writer, isResolved: false, isReleased: false)
            return .done
        case .resolve(let referenceID, let realmID, let id):
            _ = try usableRealm(realmID, in: context)  // Spec T3: any context may resolve
            guard let reference = references[referenceID], !reference.isReleased else {
                throw .rejected(.invalidStep("unknown reference \(referenceID)"))
            }
            if reference.isResolved { throw .rejected(.resolveTwice) }  // Spec T2
            // Spec T4, T8: the reference's pin still holds its source version while the realm
            // is placed; it ends once the value is resolved.
            defer { references[referenceID]?.isResolved = true }
            return .handle(
                try resolve(
                    ThreadSafeValue(
                        process: reference.process, location: reference.location,
                        target: reference.target, sourceVersion: reference.sourceVersion),
                    in: realmID, as: id))
        case .releaseReference(let referenceID):
            guard references[referenceID] != nil else {
                throw .rejected(.invalidStep("unknown reference \(referenceID)"))
            }
            references[referenceID]?.isReleased = true  // Spec L5, T8: the pin ends
            return .done
        case .assignThreadSafe(let cell, let id):
            guard let id else {
                cells[cell] = nil  // Spec T9: nil is accepted
                return .done
            }
            // Spec T9; Spec T11: the last assignment wins; the model's steps are atomic.
            cells[cell] = try threadSafeValue(of: id, in: context, unmanagedError: .threadSafeUnmanaged)
            return .done
        case .readThreadSafe(let cell, let realmID, let id):
            _ = try usableRealm(realmID, in: context)
            // Spec T10: each read resolves the cell's reference in the reading context's realm,
            // then keeps a fresh one made there (nil once the value is gone).
            guard let value = cells[cell] else { return .handle(nil) }
            let resolved = try resolve(value, in: realmID, as: id)
            do {
                cells[cell] = try resolved.map { handle throws(Interruption) in
                    try threadSafeValue(of: handle, in: context, unmanagedError: .threadSafeUnmanaged)
                }
            } catch {
                // The fresh reference is made after the resolve, as RealmSwift's getter makes
                // it (a List whose owner is gone cannot have one): the resolve's placing or
                // refreshing of the realm stands; the value is not handed out.
                guard case .rejected(let refusal) = error else { throw error }
                if let resolved { handles[resolved] = nil }
                throw .failedAfterEffects(refusal)
            }
            return .handle(resolved)
        default:
            throw .rejected(.invalidStep("not a reference operation"))
        }
    }

    /// Spec T10, T8: the reference a `@ThreadSafe` cell keeps for the accessor `id`; it pins its
    /// source version (L6: a new reader slot if the process has none for it).
    private mutating func threadSafeValue(of id: HandleID, in context: ContextID, unmanagedError: ModelError)
        throws(Interruption) -> ThreadSafeValue
    {
        let (location, target, version, writer) = try referenceSource(
            of: id, in: context, unmanagedError: unmanagedError)
        let process = try contextState(context).process
        if writer == nil {
            try checkReaderSlot(process: process, version: version, location: location)
        }
        return ThreadSafeValue(
            process: process, location: location, target: target,
            sourceVersion: version, madeInWriteOf: writer)
    }

    /// Spec T1, T4: what a reference made from this accessor designates, and its source version.
    private mutating func referenceSource(
        of id: HandleID, in context: ContextID, unmanagedError: ModelError
    ) throws(Interruption) -> (FileLocation, ReferenceTarget, Version, RealmID?) {
        let handle = try handleState(id)
        guard let realmID = handle.realm else { throw .rejected(unmanagedError) }
        let realm = try usableRealm(realmID, in: context)
        do throws(Interruption) {
            _ = try readable(handle)
        } catch {
            throw .rejected(.referenceToInvalidated)  // Spec T1
        }
        let target: ReferenceTarget
        switch handle.target {
        case .object(let object):
            target = .object(object)
        case .list(let owner): target = .list(owner: owner)
        case .results(let query): target = .results(query)
        case .unmanaged: throw .rejected(unmanagedError)
        }
        // Spec T4: made inside a write, the source is the version that write commits.
        if let write = realm.write {
            return (realm.configuration.location, target, write.startVersion, realmID)
        }
        return (realm.configuration.location, target, try frozenVersion(of: realmID), nil)
    }

    /// Spec T4, T5, T6: resolving in a realm.
    private mutating func resolve(_ value: ThreadSafeValue, in realmID: RealmID, as id: HandleID)
        throws(Interruption) -> HandleID?
    {
        let realm = try realmState(realmID)
        // Spec T5: a reference into another file resolves to nothing.
        guard realm.configuration.location == value.location else { return nil }
        let file = try fileState(value.location)
        if realm.readVersion == nil, !realm.isFrozen, realm.epoch > 0 {
            // Spec V13: the first read after invalidate() starts at the newest version, also
            // when it is a resolve.
            try beginReadIfNeeded(realmID)
        } else if realm.readVersion == nil, !realm.isFrozen {
            // Spec T4: an unread realm begins at the source version, which the reference's pin
            // keeps (T8); should it be gone, at the newest. A version kept only as the durable
            // one (async commits published after it, Spec D10) is kept for recovery, not for
            // readers: without a pin it counts as reclaimed.
            let source = value.sourceVersion
            let keptForRecoveryOnly =
                source == file.durable && source != file.newest
                && !activeVersions(of: value.location).contains(source)
            let start = file.versions[source] != nil && !keptForRecoveryOnly ? source : file.newest
            try checkReaderSlot(process: realm.process, version: start, location: value.location)
            realms[realmID]?.readVersion = start
        } else if let current = realm.readVersion, current < value.sourceVersion,
            realm.write == nil, !realm.isFrozen
        {
            // Spec T4, V3, N3, N12: a resolve from a newer version refreshes the realm.
            moveToNewest(realmID)
            deliverCollectionPass(of: realmID)
        }
        let snapshot = try readableView(of: realmID)
        switch value.target {
        case .object(let object):
            // Spec T5: nil when the object does not exist at the target's version. Spec T7: the
            // result is an ordinary accessor of the target realm, so writes through it follow V1.
            guard snapshot.objects[object] != nil else { return nil }
            return try newHandle(id, realm: realmID, target: .object(object))
        case .list(let owner):
            // Spec T5: a List whose owner is missing resolves to an invalid List.
            return try newHandle(id, realm: realmID, target: .list(owner: owner))
        case .results(let query):
            // Spec T6: Results keep their query and sort.
            return try newHandle(id, realm: realmID, target: .results(query))
        }
    }
}
