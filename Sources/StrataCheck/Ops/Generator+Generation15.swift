import StrataModel

// Generation 15: sectioned reads (Spec V27). A collection the context may name (Results, a
// List, LinkingObjects; the caller's or, crossing contexts, another's, where the model decides
// what is refused) sorted by `value` one way or the other and sectioned by a key of `value`:
// its quotient by 1 to 3 (keys in sort order) or, one time in two, its remainder by 2 or 3 (keys
// that come back after others, each joining its first section).
extension Generator {
    mutating func sectioned(
        _ context: ContextID, realm: RealmID, model: ModelState, stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        let list = stream.draw(3) == 0 ? pickHandle(context, model: model, stream: &stream, listsOnly: true) : nil
        guard let handle = list ?? pickHandle(context, model: model, stream: &stream, collectionsOnly: true) else {
            return .refresh(realm)
        }
        let key: SectionKey = stream.draw(2) == 0 ? .quotient(1 + stream.draw(3)) : .remainder(2 + stream.draw(2))
        return .sectioned(handle, by: key, ascending: stream.draw(2) == 0)
    }
}
