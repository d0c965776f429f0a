import StrataModel

// Generation 5: references released unresolved and resolved by realms that never read (Spec
// T4, T8, L1, L5), `@ThreadSafe` cells (T9, T10), `writeCopy` (X3), and realms let go of inside
// their writes or with async work (C1, W7, A21). The async parts (blocks left open, A19; async
// writes tried on a thread, A12) are in `Generator+AsyncWrites` and `Generator.next`.
extension Generator {
    /// The `@ThreadSafe` cells of a run: a few, so that assignments replace each other's values
    /// and reads find values other contexts assigned (Spec T10, T11).
    static let cellCount = 3

    /// A step a context takes whatever its weights say, or nil:
    /// - a context letting go of its realm drops the realm's accessors one a step, then the
    ///   realm (`letGo`);
    /// - a realm that has never read resolves, one time in two, a reference made elsewhere: an
    ///   unread realm begins at the reference's source version, which the reference's pin keeps
    ///   however far the source moved on (Spec T4, T8).
    mutating func generation5Sequence(
        _ context: ContextID, own: RealmID, model: ModelState,
        stream: inout ChoiceStream
    ) -> StrataModel.Operation? {
        if lettingGo.contains(context) {
            guard !Self.isObserved(own, in: model) else {
                lettingGo.remove(context)
                return nil
            }
            return letGo(own, context: context, model: model)
        }
        guard let realm = model.realms[own], realm.readVersion == nil, realm.epoch == 0, !realm.isFrozen else {
            return nil
        }
        let unresolved = model.references.keys.sorted().filter { id in
            model.references[id].map { !$0.isResolved && !$0.isReleased } ?? false
        }
        guard !unresolved.isEmpty, stream.chance(50) else { return nil }
        return .resolve(unresolved[stream.draw(unresolved.count)], in: own, as: allocateHandle())
    }

    /// The next step of letting go of `own`: release one of its accessors (the oldest), or once
    /// none is left the realm itself, which only its context then holds if it is in a write or
    /// has async work (Spec C1, W7, A21).
    mutating func letGo(_ own: RealmID, context: ContextID, model: ModelState) -> StrataModel.Operation {
        if let handle = model.handles.keys.sorted().first(where: { model.handles[$0]?.realm == own }) {
            return .releaseHandle(handle)
        }
        lettingGo.remove(context)
        return .release(own)
    }

    mutating func generation5(
        _ kind: OperationKind, context: ContextID, own: RealmID, realm: RealmID,
        model: ModelState, stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        switch kind {
        case .releaseReference:
            // Spec T8, L5: mostly an unresolved reference, whose pin ends; now and then one
            // resolved already (nothing happens).
            let held = model.references.keys.sorted().filter { model.references[$0]?.isReleased == false }
            let unresolved = held.filter { model.references[$0]?.isResolved == false }
            let pool = unresolved.isEmpty || stream.draw(4) == 3 ? held : unresolved
            guard !pool.isEmpty else { return .refresh(realm) }
            return .releaseReference(pool[stream.draw(pool.count)])
        case .assignThreadSafe:
            // Spec T9, T10: any accessor (another context's, an invalidated or frozen one: the
            // model decides), or nil one time in six.
            let cell = CellID(1 + stream.draw(Self.cellCount))
            guard stream.draw(6) != 5,
                let handle = pickHandle(context, model: model, stream: &stream)
            else {
                return .assignThreadSafe(cell, nil)
            }
            return .assignThreadSafe(cell, handle)
        case .readThreadSafe:
            // Spec T10: read in the context's own realm (the thread's `Realm()`), which it moves
            // when it is behind the value.
            let cells = model.cells.keys.sorted()
            guard !cells.isEmpty else { return .refresh(realm) }
            return .readThreadSafe(cells[stream.draw(cells.count)], in: own, as: allocateHandle())
        case .writeCopy:
            // Spec X3: a fresh destination each time (a taken one is refused with the path in
            // the message, which names the model's path and the engine's real one differently).
            defer { nextCopy += 1 }
            return .writeCopy(realm, toPath: Self.copyPath(nextCopy))
        default:
            return .refresh(realm)
        }
    }

    /// The model's path of the run's `number`th copy (`EngineSide` puts it in the run's scratch
    /// directory under the run's name).
    static func copyPath(_ number: Int) -> String { "copy-\(number).realm" }
}
