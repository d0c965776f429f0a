import StrataModel

// Generation 6: a to-one link (Spec V20). Runs that link (`Swarm.links`) have a third type,
// "Linker", whose objects link to an Item: they create Linkers, set and clear their links, and
// sort Results of Linkers through the link ("link.value", both ways), where a null link sorts
// last ascending and first descending. Deleting an Item makes the links to it null (W13).
extension Generator {
    /// The type of a create, a lookup or a query: as older generations draw it ("Other" one time
    /// in four), and in a linking run "Linker" one time in two instead of an "Item".
    func drawType(_ stream: inout ChoiceStream) -> String {
        let drawn = stream.draw(4)
        if drawn == 3 { return "Other" }
        return swarm.links && drawn >= 1 ? "Linker" : "Item"
    }

    /// `owner.link = target`: mostly a Linker's link, through an accessor of the context's own
    /// realm, to an Item of that realm (one time in four nil, which clears it); now and then
    /// any accessor of a Linker (another context's, a frozen or invalidated one) or an Item
    /// owner, whose type has no link (Realm refuses the property name). The model decides what
    /// is refused. Without an accessor of a Linker of its own, the context looks one up.
    mutating func setLink(
        _ context: ContextID, own: RealmID, realm: RealmID, model: ModelState,
        stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        // Three times in four a link is set in a write: outside one, the context begins one.
        if model.realms[own]?.write == nil, stream.draw(4) != 0 { return .beginWrite(own) }
        let owners = Self.liveObjects(of: "Linker", in: own, model: model)
        let owner: HandleID?
        switch stream.draw(8) {
        case 0: owner = pickHandle(context, model: model, stream: &stream, objectsOnly: true, type: "Item")
        case 1: owner = pickHandle(context, model: model, stream: &stream, objectsOnly: true, type: "Linker")
        default: owner = owners.isEmpty ? nil : owners[stream.draw(owners.count)]
        }
        guard let owner else { return linkerAtHand(own, model: model, stream: &stream) }
        guard stream.draw(4) != 0 else { return .setLink(owner, target: nil) }
        let targets = Self.liveObjects(of: "Item", in: own, model: model)
        let target =
            stream.draw(8) == 0 || targets.isEmpty
            ? pickHandle(context, model: model, stream: &stream, objectsOnly: true, type: "Item")
            : targets[stream.draw(targets.count)]
        return .setLink(owner, target: target)
    }

    /// With no accessor of a Linker at hand: look up a Linker the realm reads, or make one.
    mutating func linkerAtHand(_ own: RealmID, model: ModelState, stream: inout ChoiceStream)
        -> StrataModel.Operation
    {
        let keys =
            model.view(of: own).map { view in
                view.objectIDs(ofType: "Linker").compactMap { view.objects[$0]?.primaryKey }
            } ?? []
        guard keys.isEmpty else {
            return .objectForPrimaryKey(
                own, type: "Linker", primaryKey: keys[stream.draw(keys.count)], as: allocateHandle())
        }
        return .create(
            own, type: "Linker", primaryKey: stream.draw(swarm.keySpace), value: drawValue(&stream),
            update: .modified, as: allocateHandle())
    }

    /// One read in two of a linking run reads Results of the context's own realm sorted through
    /// the link, when it holds any: the reads that see where null links go (Spec V20).
    func linkSortedResults(_ own: RealmID, model: ModelState, stream: inout ChoiceStream) -> HandleID? {
        guard stream.draw(2) == 0 else { return nil }
        let sorted = model.handles.keys.sorted().filter { id in
            guard let handle = model.handles[id], handle.realm == own,
                case .results(let query) = handle.target
            else { return false }
            return query.sort.linkKeyPath != nil
        }
        return sorted.isEmpty ? nil : sorted[stream.draw(sorted.count)]
    }

    /// An Item accessor to put into a List, set or Map: one of `items` (the context's own),
    /// or one time in eight (and when it has none) any Item accessor, another context's, a
    /// frozen or a deleted one; nil when there is none at all.
    mutating func itemToHold(
        _ context: ContextID, from items: [HandleID], model: ModelState, stream: inout ChoiceStream
    ) -> HandleID? {
        stream.draw(8) == 0 || items.isEmpty
            ? pickHandle(context, model: model, stream: &stream, objectsOnly: true, type: "Item")
            : items[stream.draw(items.count)]
    }

    /// A new Item in `own`, for a collection write that finds no Item at hand.
    mutating func newItem(in own: RealmID, stream: inout ChoiceStream) -> StrataModel.Operation {
        .create(
            own, type: "Item", primaryKey: stream.draw(swarm.keySpace), value: drawValue(&stream), update: .modified,
            as: allocateHandle())
    }

    /// The accessors of `realm`'s current epoch that reach an object of `type` its read
    /// version (or write) holds.
    static func liveObjects(of type: String, in realm: RealmID, model: ModelState) -> [HandleID] {
        guard let state = model.realms[realm] else { return [] }
        return model.handles.keys.sorted().filter { id in
            guard let handle = model.handles[id], handle.realm == realm, handle.epoch == state.epoch,
                case .object(let object) = handle.target
            else { return false }
            return model.storedType(of: object, through: handle) == type
        }
    }
}
