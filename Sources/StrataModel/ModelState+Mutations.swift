// Mutations of managed data inside a write (W4, W9 to W14), through accessors or as
// `Mutation` values. Every change lands in the write's working copy and records the version it
// will commit as (the `written` markers change sets read, Spec N13, N22).

extension ModelState {
    mutating func dispatchAccessorWrite(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .makeUnmanaged(let type, let primaryKey, let value, let id):
            guard handles[id] == nil else { throw .rejected(.invalidStep("handle \(id) exists")) }
            handles[id] = HandleState(
                realm: nil,
                target: .unmanaged(
                    type: type, primaryKey: primaryKey, value: value), epoch: 0)
            return .handle(id)
        case .add(let realmID, let id, let policy):
            _ = try usableRealm(realmID, in: context)
            return .handle(try add(id, to: realmID, policy: policy))
        case .create(let realmID, let type, let primaryKey, let value, let policy, let id):
            _ = try usableRealm(realmID, in: context)
            guard handles[id] == nil else { throw .rejected(.invalidStep("handle \(id) exists")) }
            let object = try createObject(
                type: type, primaryKey: primaryKey, value: value,
                policy: policy, in: realmID)
            handles[id] = HandleState(
                realm: realmID, target: .object(object),
                epoch: try realmState(realmID).epoch)
            return .handle(id)
        case .createCopy(let realmID, let sourceID, let id):
            _ = try usableRealm(realmID, in: context)
            guard handles[id] == nil else { throw .rejected(.invalidStep("handle \(id) exists")) }
            let source = try handleState(sourceID)
            guard case .object(let sourceObject) = source.target, let sourceRealm = source.realm
            else { throw .rejected(.invalidStep("\(sourceID) is not a managed object")) }
            let sourceData = try readable(source)
            let object = try createCopy(
                sourceObject, from: sourceData, into: realmID,
                sameRealm: sourceRealm == realmID)
            handles[id] = HandleState(
                realm: realmID, target: .object(object),
                epoch: try realmState(realmID).epoch)
            return .handle(id)
        case .setValue(let id, let value):
            let handle = try handleState(id)
            if case .unmanaged(let type, let primaryKey, _) = handle.target {
                // Spec C5: an unmanaged object is a plain value, settable anywhere.
                handles[id]?.target = .unmanaged(type: type, primaryKey: primaryKey, value: value)
                return .done
            }
            let (realmID, object) = try writableObject(id, in: context)
            try mutateWrite(realmID) { write, version throws(Interruption) in
                write.snapshot.objects[object]?.value = value
                write.snapshot.objects[object]?.written[.value] = version
            }
            return .done
        case .setLink(let ownerID, let targetID):
            try setLink(ownerID, to: targetID, in: context)
            return .done
        case .append(let listID, let elementID):
            let (realmID, owner) = try writableList(listID, in: context)
            let element = try linkableObject(elementID, into: realmID)
            try mutateWrite(realmID) { write, version throws(Interruption) in
                write.snapshot.objects[owner]?.list.append(element)
                write.snapshot.objects[owner]?.written[.list] = version
            }
            return .done
        case .removeFromList(let listID, let index):
            let (realmID, owner) = try writableList(listID, in: context)
            try mutateWrite(realmID) { write, version throws(Interruption) in
                let count = write.snapshot.objects[owner]?.list.count ?? 0
                guard index >= 0, index < count else {
                    throw .rejected(.outOfBounds(index: index, count: count))
                }
                write.snapshot.objects[owner]?.list.remove(at: index)
                write.snapshot.objects[owner]?.written[.list] = version
            }
            return .done
        case .insertIntoSet(let ownerID, let elementID):
            try insertIntoSet(ownerID, elementID, in: context)
            return .done
        case .removeFromSet(let ownerID, let elementID):
            try removeFromSet(ownerID, elementID, in: context)
            return .done
        case .setMapValue(let ownerID, let key, let elementID):
            try setMapValue(ownerID, key: key, elementID, in: context)
            return .done
        case .removeMapKey(let ownerID, let key):
            try removeMapKey(ownerID, key: key, in: context)
            return .done
        case .delete(let realmID, let id):
            _ = try usableRealm(realmID, in: context)
            try delete(id, from: realmID)
            return .done
        case .deleteAll(let realmID):
            _ = try usableRealm(realmID, in: context)
            try mutateWrite(realmID) { write, _ throws(Interruption) in
                write.snapshot.objects = [:]  // Spec W12: every accessor is invalid at once
            }
            return .done
        default:
            throw .rejected(.invalidStep("not a write operation"))
        }
    }

    /// `owner.link = target`. In the engine's order: a type without a `link` column is refused
    /// before anything else (the property name is checked first); then the owner as any
    /// property set checks it (Spec C5, F12, W12, W9); then the target as a List element is
    /// checked (another realm instance's object, a deleted or invalidated one: W12, W14).
    mutating func setLink(_ ownerID: HandleID, to targetID: HandleID?, in context: ContextID)
        throws(Interruption)
    {
        let handle = try handleState(ownerID)
        guard case .object(let object) = handle.target else {
            throw .rejected(.invalidStep("handle \(ownerID) is not a managed object"))
        }
        if let type = storedType(of: object, through: handle), !(try schema(of: handle)).hasLink(type) {
            throw .rejected(.invalidPropertyName(name: "link", type: type))
        }
        let (realmID, owner) = try writableObject(ownerID, in: context)
        var target: ObjectID?
        if let targetID {
            target = try linkableObject(targetID, into: realmID)
            // Links go to Items (the generators give nothing else; Realm would refuse the value).
            guard let reached = target, view(of: realmID)?.objects[reached]?.type == "Item" else {
                throw .rejected(.invalidStep("a link reaches an Item"))
            }
        }
        try mutateWrite(realmID) { write, version throws(Interruption) in
            write.snapshot.objects[owner]?.link = target
            write.snapshot.objects[owner]?.written[.link] = version
        }
    }

    /// The type of `object`, from any version of the file the accessor reads (nil once no
    /// retained version has it).
    public func storedType(of object: ObjectID, through handle: HandleState) -> String? {
        guard let realmID = handle.realm, let realm = realms[realmID] else { return nil }
        if let stored = view(of: realmID)?.objects[object] { return stored.type }
        return files[realm.configuration.location]?.versions.values
            .first { $0.objects[object] != nil }?.objects[object]?.type
    }

    /// The declared schema of the realm an accessor reads through.
    func schema(of handle: HandleState) throws(Interruption) -> Schema {
        guard let realmID = handle.realm else { return .standard }
        return try realmState(realmID).configuration.schema
    }

    /// Runs `body` on the realm's open write. Spec W9: mutations need a write transaction.
    mutating func mutateWrite(
        _ id: RealmID, _ body: (inout WriteTransaction, Version) throws(Interruption) -> Void
    ) throws(Interruption) {
        guard var write = try realmState(id).write else { throw .rejected(.notInWrite) }
        // Taken out while the body runs, so that its snapshot is not shared and a change does
        // not copy every object (a bulk write would be quadratic). Every body throws before it
        // changes anything, so putting it back on a throw keeps the write as it was.
        realms[id]?.write = nil
        defer { realms[id]?.write = write }
        try body(&write, write.startVersion.next)
        write.hasChanges = true  // Spec N25
    }

    /// A managed, live, existing object accessor the calling context may write through.
    /// Spec C5, F12, W12.
    func writableObject(_ id: HandleID, in context: ContextID) throws(Interruption)
        -> (RealmID, ObjectID)
    {
        let handle = try handleState(id)
        guard let realmID = handle.realm, case .object(let object) = handle.target else {
            throw .rejected(.invalidStep("handle \(id) is not a managed object"))
        }
        let realm = try usableRealm(realmID, in: context)
        if realm.isFrozen {
            // Spec F12, F6: an object of an invalidated frozen realm is refused as invalid (Realm
            // asks whether the object is attached before whether it is frozen).
            if realm.frozenInvalidated { throw .rejected(.objectInvalidated) }
            throw .rejected(.frozenModify)
        }
        // Spec W9, W12, V13: an invalid accessor is refused as such, before a missing write.
        guard handle.epoch == realm.epoch, view(of: realmID)?.objects[object] != nil else {
            throw .rejected(.objectInvalidated)
        }
        guard realm.write != nil else { throw .rejected(.notInWrite) }  // Spec W9
        return (realmID, object)
    }

    /// Spec W12, W14: the object a List of `realmID` may link to. The element is only linked,
    /// not written, so neither its context nor its frozenness is checked as such: an object of
    /// any other realm instance (another context's, or a frozen one) is refused as Realm
    /// refuses it ('already managed by another Realm'; W14's `create` copies instead), and a
    /// deleted or invalidated object of this realm with 'deleted or invalidated'.
    func linkableObject(_ id: HandleID, into realmID: RealmID) throws(Interruption) -> ObjectID {
        let handle = try handleState(id)
        guard let elementRealm = handle.realm, case .object(let object) = handle.target else {
            throw .rejected(.invalidStep("handle \(id) is not a managed object"))
        }
        guard isSameInstance(elementRealm, realmID) else { throw .rejected(.addToOtherRealm) }
        if isInvalidated(handle) { throw .rejected(.addInvalidated) }
        return object
    }

    /// A List accessor the calling context may mutate (Spec W9, C5).
    func writableList(_ id: HandleID, in context: ContextID) throws(Interruption)
        -> (RealmID, ObjectID)
    {
        let handle = try handleState(id)
        guard let realmID = handle.realm, case .list(let owner) = handle.target else {
            throw .rejected(.invalidStep("handle \(id) is not a List"))
        }
        let realm = try usableRealm(realmID, in: context)
        // Spec W9, V13: invalid first (realm-core's Collection::verify_in_transaction); a frozen
        // List (F12) is then refused as outside a write, since a frozen realm is never in one.
        guard handle.epoch == realm.epoch, !(realm.isFrozen && realm.frozenInvalidated),
            view(of: realmID)?.objects[owner] != nil
        else {
            throw .rejected(.listInvalidated)
        }
        guard realm.write != nil else { throw .rejected(.notInWrite) }
        return (realmID, owner)
    }

    /// Creates or updates the object with this primary key (Spec W10, W20, N22). Spec W12: a new
    /// object gets an identity no object of the file ever had. (Every type of the model has a
    /// primary key; W20's refusal of an update policy without one is the API's.)
    mutating func createObject(
        type: String, primaryKey: Int, value: Int?, policy: UpdatePolicy,
        in id: RealmID
    ) throws(Interruption) -> ObjectID {
        var result: ObjectID?
        let location = try realmState(id).configuration.location
        var nextObjectID = try fileState(location).nextObjectID
        try mutateWrite(id) { write, version throws(Interruption) in
            if let existing = write.snapshot.objectID(type: type, primaryKey: primaryKey) {
                // Spec W20: an existing key is refused under `.error` (nothing changes); under
                // `.modified` and `.all` the existing object is updated in place, keeping its
                // identity, and is the result; nothing is inserted.
                switch policy {
                case .error:
                    throw .rejected(.primaryKeyExists(type: type, primaryKey: primaryKey))
                case .modified:
                    // Spec N22: only changed properties count as modified.
                    if write.snapshot.objects[existing]?.value != value {
                        write.snapshot.objects[existing]?.value = value
                        write.snapshot.objects[existing]?.written[.value] = version
                    }
                case .all:
                    write.snapshot.objects[existing]?.value = value
                    write.snapshot.objects[existing]?.written[.value] = version
                }
                result = existing
                return
            }
            let object = ObjectID(nextObjectID)
            nextObjectID += 1
            var written: [PropertyName: Version] = [.value: version, .list: version, .map: version]
            if write.snapshot.schema.hasLink(type) { written[.link] = version }
            if write.snapshot.schema.hasSet(type) { written[.set] = version }
            write.snapshot.objects[object] = StoredObject(
                type: type, primaryKey: primaryKey, value: value, written: written)
            write.createdObjects.insert(object)
            result = object
        }
        files[location]?.nextObjectID = nextObjectID
        guard let result else { throw .rejected(.invalidStep("create produced nothing")) }
        return result
    }

    /// Spec W14: `create` from an object of another realm copies it deeply: the object, its List
    /// elements and link target and theirs become new objects in this realm; the source is
    /// unchanged.
    mutating func createCopy(
        _ object: ObjectID, from source: Snapshot, into realmID: RealmID,
        sameRealm: Bool
    ) throws(Interruption) -> ObjectID {
        guard let stored = source.objects[object] else { throw .rejected(.objectInvalidated) }
        if sameRealm { return object }
        var copies: [ObjectID: ObjectID] = [:]
        return try copyObject(stored, id: object, from: source, into: realmID, copies: &copies)
    }

    private mutating func copyObject(
        _ stored: StoredObject, id: ObjectID, from source: Snapshot, into realmID: RealmID,
        copies: inout [ObjectID: ObjectID]
    ) throws(Interruption) -> ObjectID {
        if let done = copies[id] { return done }
        let copy = try createObject(
            type: stored.type, primaryKey: stored.primaryKey,
            value: stored.value, policy: .all, in: realmID)
        copies[id] = copy
        var elements: [ObjectID] = []
        for element in stored.list {
            guard let elementData = source.objects[element] else { continue }
            elements.append(
                try copyObject(
                    elementData, id: element, from: source, into: realmID,
                    copies: &copies))
        }
        let list = elements
        try mutateWrite(realmID) { write, version throws(Interruption) in
            write.snapshot.objects[copy]?.list = list
            write.snapshot.objects[copy]?.written[.list] = version
        }
        guard try realmState(realmID).configuration.schema.hasLink(stored.type) else { return copy }
        var linked: ObjectID?
        if let link = stored.link, let linkData = source.objects[link] {
            linked = try copyObject(linkData, id: link, from: source, into: realmID, copies: &copies)
        }
        let link = linked
        // Spec V24: the set's Items are copied too; the copies keep their primary keys, so the
        // set keeps its order.
        var setCopies: [ObjectID] = []
        for element in stored.set {
            guard let elementData = source.objects[element] else { continue }
            setCopies.append(try copyObject(elementData, id: element, from: source, into: realmID, copies: &copies))
        }
        let set = setCopies
        // Spec V25: so are the Map's, under the same keys (a null value stays null).
        var mapCopies: [String: ObjectID?] = [:]
        for (key, value) in stored.map.sorted(by: { $0.key < $1.key }) {
            guard let value, let elementData = source.objects[value] else {
                mapCopies[key] = .some(nil)
                continue
            }
            mapCopies[key] = .some(try copyObject(elementData, id: value, from: source, into: realmID, copies: &copies))
        }
        let map = mapCopies
        try mutateWrite(realmID) { write, version throws(Interruption) in
            if write.snapshot.schema.hasMap(stored.type), !map.isEmpty {
                write.snapshot.objects[copy]?.map = map
                write.snapshot.objects[copy]?.written[.map] = version
            }
            write.snapshot.objects[copy]?.link = link
            write.snapshot.objects[copy]?.written[.link] = version
            if write.snapshot.schema.hasSet(stored.type) {
                write.snapshot.objects[copy]?.set = set
                write.snapshot.objects[copy]?.written[.set] = version
            }
        }
        return copy
    }

    /// Spec W10: adding an unmanaged object makes that accessor managed; adding it again (now
    /// managed by this realm) changes nothing. Spec W12: a deleted object cannot be added.
    mutating func add(_ id: HandleID, to realmID: RealmID, policy: UpdatePolicy)
        throws(Interruption) -> HandleID
    {
        let handle = try handleState(id)
        switch handle.target {
        case .unmanaged(let type, let primaryKey, let value):
            let object = try createObject(
                type: type, primaryKey: primaryKey, value: value,
                policy: policy, in: realmID)
            handles[id] = HandleState(
                realm: realmID, target: .object(object),
                epoch: try realmState(realmID).epoch)
            return id
        case .object(let object):
            // Spec W23, in Realm's order (RLMAddObjectToRealm): the write, then an invalid
            // object, then one managed by another realm instance, refused whatever the policy
            // and with nothing added (W14's create copies instead).
            let target = try realmState(realmID)
            guard target.write != nil else { throw .rejected(.notInWrite) }
            guard let ownerID = handle.realm, ownerID != realmID, let owner = realms[ownerID] else {
                guard handle.epoch == target.epoch, view(of: realmID)?.objects[object] != nil else {
                    throw .rejected(.addInvalidated)  // Spec W12: 'deleted or invalidated'
                }
                return id
            }
            let invalid: Bool
            if owner.isFrozen {
                invalid = owner.frozenInvalidated
            } else if owner.owner == target.owner {
                invalid = handle.epoch != owner.epoch || view(of: ownerID)?.objects[object] == nil
            } else {
                invalid = false  // another context's object: not read there
            }
            throw .rejected(invalid ? .addInvalidated : .addToOtherRealm)
        case .results, .list:
            throw .rejected(.invalidStep("only objects can be added"))
        }
    }

    /// Spec W11, W12, W13.
    mutating func delete(_ id: HandleID, from realmID: RealmID) throws(Interruption) {
        let handle = try handleState(id)
        // Spec W11: unmanaged values and values of another realm instance are refused (Results
        // and Lists in Realm's plural words).
        guard let owner = handle.realm, isSameInstance(owner, realmID) else {
            switch handle.target {
            case .results, .list: throw .rejected(.deleteCollectionFromOtherRealm)
            case .object, .unmanaged: throw .rejected(.deleteFromOtherRealm)
            }
        }
        guard try realmState(realmID).write != nil else {
            if case .results = handle.target { throw .rejected(.resultsOutsideWrite) }  // W9
            throw .rejected(.notInWrite)
        }
        let snapshot = try readableView(of: realmID)
        // Spec W24: the objects are taken when the call begins (Results evaluated, a List read),
        // then deleted, so a collection the deletions shrink is deleted whole.
        let targets: [ObjectID]
        switch handle.target {
        case .object(let object):
            guard handle.epoch == (try realmState(realmID).epoch),
                snapshot.objects[object] != nil
            else { throw .rejected(.objectInvalidated) }  // Spec W11: already deleted
            targets = [object]
        case .results(let query):
            targets = query.evaluate(in: snapshot)
        case .list(let listOwner):
            // Spec W13: deleting a List deletes its targets and leaves it empty.
            targets = snapshot.objects[listOwner]?.list ?? []
        case .unmanaged:
            throw .rejected(.deleteFromOtherRealm)
        }
        try mutateWrite(realmID) { write, version throws(Interruption) in
            for object in targets { write.deleteObject(object, version: version) }
        }
        if case .object = handle.target { handles[id]?.detachedByDelete = true }  // Spec N19
    }

    /// Applies a `Mutation` (objects named by type and primary key) in the realm's open write.
    mutating func apply(_ mutation: Mutation, in id: RealmID) throws(Interruption) {
        switch mutation {
        case .create(let type, let primaryKey, let value):
            _ = try createObject(
                type: type, primaryKey: primaryKey, value: value, policy: .error,
                in: id)
        case .setValue(let type, let primaryKey, let value):
            try mutateWrite(id) { write, version throws(Interruption) in
                let object = try write.existing(type: type, primaryKey: primaryKey)
                write.snapshot.objects[object]?.value = value
                write.snapshot.objects[object]?.written[.value] = version
            }
        case .delete(let type, let primaryKey):
            try mutateWrite(id) { write, version throws(Interruption) in
                let object = try write.existing(type: type, primaryKey: primaryKey)
                write.deleteObject(object, version: version)
            }
        case .append(let ownerType, let ownerKey, let elementType, let elementKey):
            try mutateWrite(id) { write, version throws(Interruption) in
                let owner = try write.existing(type: ownerType, primaryKey: ownerKey)
                let element = try write.existing(type: elementType, primaryKey: elementKey)
                write.snapshot.objects[owner]?.list.append(element)
                write.snapshot.objects[owner]?.written[.list] = version
            }
        case .setMapValue(let ownerType, let ownerKey, let key, let elementType, let elementKey):
            try mutateWrite(id) { write, version throws(Interruption) in
                let owner = try write.existing(type: ownerType, primaryKey: ownerKey)
                var element: ObjectID?
                if let elementKey {
                    element = try write.existing(type: elementType, primaryKey: elementKey)
                }
                write.snapshot.objects[owner]?.map[key] = .some(element)
                write.snapshot.objects[owner]?.written[.map] = version
            }
        }
    }
}

extension WriteTransaction {
    func existing(type: String, primaryKey: Int) throws(Interruption) -> ObjectID {
        guard let object = snapshot.objectID(type: type, primaryKey: primaryKey) else {
            throw .rejected(.objectInvalidated)
        }
        return object
    }

    /// Spec W13, V25: Lists referring to a deleted object shrink; Map values and to-one links
    /// referring to it become nil (a Map keeps its keys).
    mutating func deleteObject(_ object: ObjectID, version: Version) {
        guard snapshot.objects.removeValue(forKey: object) != nil else { return }
        for (id, stored) in snapshot.objects {
            if stored.link == object {
                snapshot.objects[id]?.link = nil
                snapshot.objects[id]?.written[.link] = version
            }
            if stored.list.contains(object) {
                snapshot.objects[id]?.list.removeAll { $0 == object }
                snapshot.objects[id]?.written[.list] = version
            }
            if stored.set.contains(object) {  // Spec V24: a set loses the deleted object too
                snapshot.objects[id]?.set.removeAll { $0 == object }
                snapshot.objects[id]?.written[.set] = version
            }
            if stored.map.values.contains(where: { $0 == object }) {
                for (key, value) in stored.map where value == object {
                    snapshot.objects[id]?.map[key] = .some(nil)
                }
                snapshot.objects[id]?.written[.map] = version
            }
        }
        createdObjects.remove(object)
    }
}
