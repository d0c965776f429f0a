import StrataModel

// Generation 14: Items' LinkingObjects (Spec V26). A context holding LinkingObjects of its own
// realm uses them one time in two (as an iteration goes on, generation 7): observes them now
// and then in a run with observers, else reads them, mostly whole, else aggregated. Otherwise it takes an Item's: three times in four one of its own accessors
// whose Item some List of the owner type holds (at the context's view), so that reads find
// backlinks (when none is, one time in two it appends to a List first); else any Item accessor, another context's, a frozen, a deleted or an invalidated
// one, where the model decides what is refused.
extension Generator {
    mutating func linkingObjects(
        _ context: ContextID, own: RealmID, model: ModelState, stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        let held = Self.liveLinkingObjects(in: own, model: model)
        // A run with observers observes them one time in three (Spec N16), outside a write as
        // `observeCollection` does.
        if swarm.observes, !held.isEmpty, model.realms[own]?.write == nil, stream.draw(3) == 0 {
            return observing(held[stream.draw(held.count)])
        }
        if !held.isEmpty, stream.draw(2) == 0 {
            let handle = held[stream.draw(held.count)]
            guard stream.draw(4) == 0 else { return .read(handle) }
            return .aggregate(handle, Aggregate.allCases[stream.draw(Aggregate.allCases.count)])
        }
        let ownerType = stream.draw(2) == 0 ? "Item" : "Other"
        var listed: [HandleID] = []
        if let view = model.view(of: own) {
            let held = Set(view.objectIDs(ofType: ownerType).flatMap { view.objects[$0]?.list ?? [] })
            listed = Self.liveObjects(of: "Item", in: own, model: model).filter { id in
                guard case .object(let object) = model.handles[id]?.target else { return false }
                return held.contains(object)
            }
        }
        // No Item of the context is listed yet: one time in two, fill a List first.
        if listed.isEmpty, stream.draw(2) == 0 { return appendToList(context, own: own, model: model, stream: &stream) }
        let item =
            stream.draw(4) != 0 && !listed.isEmpty
            ? listed[stream.draw(listed.count)]
            : pickHandle(context, model: model, stream: &stream, objectsOnly: true, type: "Item")
        guard let item else { return .refresh(own) }
        return .linkingObjectsOf(item, ownerType: ownerType, as: allocateHandle())
    }
}

extension Generator {
    /// Generation 14's `append`: three times in four inside a write (outside one, the context
    /// begins one), seven times in eight to a live List of the context's own realm (taking an
    /// own object's List when there is none) with an own Item, so that Lists fill, repeat Items
    /// and give LinkingObjects something to find. Older generations pick any List and Item.
    mutating func appendToList(
        _ context: ContextID, own: RealmID, model: ModelState, stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        if model.realms[own]?.write == nil, stream.draw(4) != 0 { return .beginWrite(own) }
        let lists = Self.liveLists(in: own, model: model)
        let list: HandleID?
        if stream.draw(8) != 0, !lists.isEmpty {
            list = lists[stream.draw(lists.count)]
        } else {
            let owners =
                Self.liveObjects(of: "Item", in: own, model: model)
                + Self.liveObjects(of: "Other", in: own, model: model)
            if stream.draw(2) == 0, !owners.isEmpty {
                return .listOf(owners[stream.draw(owners.count)], as: allocateHandle())
            }
            list = pickHandle(context, model: model, stream: &stream, listsOnly: true)
        }
        guard let list else { return .refresh(own) }
        let items = Self.liveObjects(of: "Item", in: own, model: model)
        guard let element = itemToHold(context, from: items, model: model, stream: &stream) else {
            return newItem(in: own, stream: &stream)
        }
        return .append(list: list, element: element)
    }

    /// The LinkingObjects (Results handles over backlinks) of `realm` at its current epoch.
    static func liveLinkingObjects(in realm: RealmID, model: ModelState) -> [HandleID] {
        guard let state = model.realms[realm] else { return [] }
        return model.handles.keys.sorted().filter { id in
            guard let handle = model.handles[id], handle.realm == realm, handle.epoch == state.epoch,
                case .results(let query) = handle.target, case .linkingObjects = query.source
            else { return false }
            return true
        }
    }

    /// The List accessors of `realm` at its current epoch whose owner its view holds.
    static func liveLists(in realm: RealmID, model: ModelState) -> [HandleID] {
        guard let state = model.realms[realm], let view = model.view(of: realm) else { return [] }
        return model.handles.keys.sorted().filter { id in
            guard let handle = model.handles[id], handle.realm == realm, handle.epoch == state.epoch,
                case .list(let owner) = handle.target
            else { return false }
            return view.objects[owner] != nil
        }
    }
}
