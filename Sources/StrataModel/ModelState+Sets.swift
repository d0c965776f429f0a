// A Linker's set of Items (generation 11, Spec V24): `owner.set.insert(element)` and
// `owner.set.remove(element)` as an app writes them, reading the set through its owner.

extension ModelState {
    /// Spec V24, W9: the owner is read (C5, V13, W12, F6: its checks), then the set is written
    /// only in a write (a frozen owner's realm never is, F12); the element must be an object of
    /// the same realm instance, as for a List (W12, W14). An Item the set holds changes nothing.
    mutating func insertIntoSet(_ ownerID: HandleID, _ elementID: HandleID, in context: ContextID)
        throws(Interruption)
    {
        let (realmID, owner) = try collectionOwner(ownerID, column: "set", in: context)
        let element = try linkableObject(elementID, into: realmID)
        // An Item the set holds is not written at all (the write has no change from it, N25).
        guard realms[realmID]?.write?.snapshot.objects[owner]?.set.contains(element) == false else { return }
        try mutateWrite(realmID) { write, version throws(Interruption) in
            guard let stored = write.snapshot.objects[owner], let key = write.snapshot.objects[element]?.primaryKey
            else { return }
            // Realm-core orders a set of links by object key; an Item's key is its primary key.
            let position =
                stored.set.firstIndex { (write.snapshot.objects[$0]?.primaryKey ?? .min) > key } ?? stored.set.count
            write.snapshot.objects[owner]?.set.insert(element, at: position)
            write.snapshot.objects[owner]?.written[.set] = version
        }
    }

    /// Spec V24: as `insertIntoSet`, except that an element that cannot be in the set (an
    /// unmanaged object, one of another realm instance) or that it does not hold changes
    /// nothing and is no error; a deleted or invalidated object of the set's realm is refused.
    mutating func removeFromSet(_ ownerID: HandleID, _ elementID: HandleID, in context: ContextID)
        throws(Interruption)
    {
        let (realmID, owner) = try collectionOwner(ownerID, column: "set", in: context)
        let handle = try handleState(elementID)
        guard let elementRealm = handle.realm, case .object(let element) = handle.target,
            isSameInstance(elementRealm, realmID)
        else { return }
        if isInvalidated(handle) { throw .rejected(.objectInvalidated) }
        guard realms[realmID]?.write?.snapshot.objects[owner]?.set.contains(element) == true else { return }
        try mutateWrite(realmID) { write, version throws(Interruption) in
            write.snapshot.objects[owner]?.set.removeAll { $0 == element }
            write.snapshot.objects[owner]?.written[.set] = version
        }
    }

    /// The owner of a set or Map written to: read as any object property read is (its realm's
    /// context, its validity), then the write the collection's mutation needs (Spec W9).
    mutating func collectionOwner(_ ownerID: HandleID, column: String, in context: ContextID)
        throws(Interruption) -> (RealmID, ObjectID)
    {
        let handle = try handleState(ownerID)
        try checkOwner(of: handle, in: context)
        guard let realmID = handle.realm, case .object(let owner) = handle.target else {
            throw .rejected(.invalidStep("\(ownerID) is not a managed object"))
        }
        let snapshot = try readable(handle)
        guard let type = snapshot.objects[owner]?.type, snapshot.schema.types[type]?.contains(column) == true else {
            throw .rejected(.invalidStep("\(ownerID) has no \(column)"))
        }
        guard try realmState(realmID).write != nil else { throw .rejected(.notInWrite) }
        return (realmID, owner)
    }
}
