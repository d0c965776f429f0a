// A Linker's Map of Items (generation 12, Spec V25): `owner.map[key] = item`,
// `owner.map.updateValue(nil, forKey: key)` and `owner.map.removeObject(for: key)` as an app
// writes them, reading the map through its owner.

extension ModelState {
    /// Spec V25, W9: the owner is read (C5, V13, W12, F6: its checks), then the map is written
    /// only in a write (a frozen owner's realm never is, F12); then the key is checked (realm-core
    /// refuses a key starting with '$' or containing '.'), then the Item, as a List element is
    /// (W12, W14). A value the key already has changes nothing (N25).
    mutating func setMapValue(_ ownerID: HandleID, key: String, _ elementID: HandleID?, in context: ContextID)
        throws(Interruption)
    {
        let (realmID, owner) = try collectionOwner(ownerID, column: "map", in: context)
        if key.hasPrefix("$") || key.contains(".") { throw .rejected(.invalidMapKey(key)) }
        let element = try elementID.map { id throws(Interruption) in try linkableObject(id, into: realmID) }
        guard realms[realmID]?.write?.snapshot.objects[owner]?.map[key] != .some(element) else { return }
        try mutateWrite(realmID) { write, version throws(Interruption) in
            write.snapshot.objects[owner]?.map[key] = .some(element)
            write.snapshot.objects[owner]?.written[.map] = version
        }
    }

    /// Spec V25: as `setMapValue` without a key or value check; a key the map lacks changes
    /// nothing.
    mutating func removeMapKey(_ ownerID: HandleID, key: String, in context: ContextID) throws(Interruption) {
        let (realmID, owner) = try collectionOwner(ownerID, column: "map", in: context)
        guard realms[realmID]?.write?.snapshot.objects[owner]?.map[key] != nil else { return }
        try mutateWrite(realmID) { write, version throws(Interruption) in
            write.snapshot.objects[owner]?.map.removeValue(forKey: key)
            write.snapshot.objects[owner]?.written[.map] = version
        }
    }
}
