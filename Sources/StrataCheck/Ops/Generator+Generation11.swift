import StrataModel

// Generation 11: a Linker's set of Items (Spec V24). Runs that link (`Swarm.links`) insert
// Items into their Linkers' sets and remove them, mostly through accessors of the context's own
// realm inside a write; now and then through any accessor (another context's, a frozen or an
// invalidated one), outside a write, or with an Item the set does not hold, where the model
// decides what is refused and what changes nothing.
extension Generator {
    mutating func setWrite(
        _ kind: OperationKind, context: ContextID, own: RealmID, model: ModelState,
        stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        // Three times in four a set is written in a write: outside one, the context begins one.
        if model.realms[own]?.write == nil, stream.draw(4) != 0 { return .beginWrite(own) }
        guard let owner = linkerToWrite(context, own: own, model: model, stream: &stream) else {
            return linkerAtHand(own, model: model, stream: &stream)
        }
        var items = Self.liveObjects(of: "Item", in: own, model: model)
        if stream.draw(4) != 0, case .object(let ownerObject) = model.handles[owner]?.target,
            let held = model.view(of: own)?.objects[ownerObject]?.set
        {
            // Three inserts in four name an Item the set does not hold (so sets grow past one
            // Item and their order matters), three removes in four one it holds.
            let wanted = items.filter { id in
                guard case .object(let item) = model.handles[id]?.target else { return false }
                return held.contains(item) == (kind == .removeFromSet)
            }
            if !wanted.isEmpty { items = wanted }
        }
        guard let element = itemToHold(context, from: items, model: model, stream: &stream) else {
            return newItem(in: own, stream: &stream)
        }
        return kind == .insertIntoSet
            ? .insertIntoSet(owner, element: element) : .removeFromSet(owner, element: element)
    }

    /// The Linker a set or Map write goes through: mostly a live Linker of the context's own
    /// realm; one time in eight (or when it has none) any accessor of a Linker: another
    /// context's, a frozen or an invalidated one. Nil when the run has none.
    mutating func linkerToWrite(_ context: ContextID, own: RealmID, model: ModelState, stream: inout ChoiceStream)
        -> HandleID?
    {
        let owners = Self.liveObjects(of: "Linker", in: own, model: model)
        return stream.draw(8) == 0 || owners.isEmpty
            ? pickHandle(context, model: model, stream: &stream, objectsOnly: true, type: "Linker")
            : owners[stream.draw(owners.count)]
    }
}
