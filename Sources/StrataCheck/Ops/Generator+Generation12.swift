import StrataModel

// Generation 12: a Linker's Map of Items (Spec V25). Runs that link (`Swarm.links`) set keys of
// their Linkers' Maps to Items or to null and remove keys, mostly through accessors of the
// context's own realm inside a write; now and then through any accessor (another context's, a
// frozen or an invalidated one), outside a write, with a key the Map lacks or a key realm-core
// refuses, where the model decides what is refused and what changes nothing.
extension Generator {
    /// The keys runs write: few, so that keys are set again, nulled and removed.
    static let mapKeys = ["a", "b", "c", "d", "e"]
    /// Keys realm-core's Dictionary::insert refuses (Spec V25).
    static let refusedMapKeys = ["$a", "a.b"]

    mutating func mapWrite(
        _ kind: OperationKind, context: ContextID, own: RealmID, model: ModelState,
        stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        // Three times in four a Map is written in a write: outside one, the context begins one.
        if model.realms[own]?.write == nil, stream.draw(4) != 0 { return .beginWrite(own) }
        guard let owner = linkerToWrite(context, own: own, model: model, stream: &stream) else {
            return linkerAtHand(own, model: model, stream: &stream)
        }
        var key = Self.mapKeys[stream.draw(Self.mapKeys.count)]
        if kind == .removeMapKey {
            // Three removes in four name a key the Map has.
            if stream.draw(4) != 0, case .object(let ownerObject) = model.handles[owner]?.target,
                let held = model.view(of: own)?.objects[ownerObject]?.map.keys.sorted(), !held.isEmpty
            {
                key = held[stream.draw(held.count)]
            }
            return .removeMapKey(owner, key: key)
        }
        if stream.draw(16) == 0 { key = Self.refusedMapKeys[stream.draw(Self.refusedMapKeys.count)] }
        // One value in six is null (`updateValue(nil, forKey:)`: the key stays).
        guard stream.draw(6) != 0 else { return .setMapValue(owner, key: key, element: nil) }
        let items = Self.liveObjects(of: "Item", in: own, model: model)
        guard let element = itemToHold(context, from: items, model: model, stream: &stream) else {
            return newItem(in: own, stream: &stream)
        }
        return .setMapValue(owner, key: key, element: element)
    }
}
