import StrataModel

// Generation 7: iteration over Results (Spec V15, V16). `iterate` begins an iteration over a
// Results accessor (live or frozen, mostly the context's own), after which the context mostly
// goes on with it (`iterationSequence`): one element at a time, with the context's ordinary
// mix in between (writes, refreshes, `invalidate()`, deletes), and now and then, inside a
// write, a delete of an element still to come, which must still be yielded, invalidated.
//
// An iteration either drops each element before the next or keeps them all (a draw when it
// begins, one in two). Dropping reads the element's accessor and releases it, so that nothing
// but the iterator refers to its object, which the engine's iterator then reuses for the next
// element (`ResultsIterator`); keeping leaves every element's accessor held, and each must stay
// its own element: later reads of it must still match the model.
extension Generator {
    /// An iteration a context is going through.
    struct Scan: Hashable, Sendable {
        var iterator: IteratorID
        /// Whether each element is read and released before the next.
        var drops: Bool
        /// The accessor of the element yielded last, while the scan still has to read it
        /// (`drops`) or may delete it.
        var yielded: HandleID?
        /// Whether the yielded element was read already (it is released next).
        var read = false
        /// The elements yielded before, still held (`drops` false), which later reads check.
        var kept: [HandleID] = []
    }

    /// Whether `iterator` may still yield: its realm was not invalidated since it began (Spec
    /// V16, F6).
    static func isValid(_ iterator: IteratorState, in model: ModelState) -> Bool {
        guard let realm = model.realms[iterator.realm] else { return false }
        return realm.epoch == iterator.epoch && !(realm.isFrozen && realm.frozenInvalidated)
    }

    /// The next step of the context's iteration, or nil for one of its ordinary mix (one step
    /// in four, and once the iteration is over).
    mutating func iterationSequence(
        _ context: ContextID, own: RealmID, model: ModelState,
        stream: inout ChoiceStream
    ) -> StrataModel.Operation? {
        guard var scan = scans[context] else { return nil }
        guard let iterator = model.iterators[scan.iterator] else {
            scans[context] = nil  // gone with a crash
            return nil
        }
        var ended = false
        defer { scans[context] = ended ? nil : scan }
        if let yielded = scan.yielded, model.handles[yielded] == nil { scan.yielded = nil }
        if scan.drops, let yielded = scan.yielded {
            if !scan.read {
                scan.read = true
                return .read(yielded)
            }
            scan.yielded = nil
            scan.read = false
            return .releaseHandle(yielded)
        }
        guard stream.draw(4) != 0 else { return nil }
        scan.kept.removeAll { model.handles[$0] == nil }
        if !scan.kept.isEmpty, stream.draw(4) == 0 {
            // An element yielded before the last must still read as itself (Spec V15).
            return .read(scan.kept[stream.draw(scan.kept.count)])
        }
        if iterator.realm == own, let write = model.realms[own]?.write, stream.draw(4) == 0 {
            // Spec V15: an element deleted before its turn is still yielded, invalidated; one
            // changed before its turn reads its new value (no row read ahead before the write).
            let upcoming = iterator.elements.dropFirst(iterator.position).compactMap { write.snapshot.objects[$0] }
            if !upcoming.isEmpty {
                let object = upcoming[stream.draw(upcoming.count)]
                if stream.draw(2) == 0 {
                    return .apply(own, [.delete(type: object.type, primaryKey: object.primaryKey)])
                }
                let value = drawValue(&stream)
                return .apply(own, [.setValue(type: object.type, primaryKey: object.primaryKey, value: value)])
            }
        }
        if iterator.realm == own, stream.draw(24) == 0 {
            return .invalidate(own)  // Spec V16: the next request is rejected
        }
        let handle = allocateHandle()
        if iterator.position >= iterator.elements.count || !Self.isValid(iterator, in: model) {
            ended = true  // this request ends the iteration (nil), or is rejected
            return .iteratorNext(scan.iterator, as: handle)
        }
        if let yielded = scan.yielded, !scan.drops { scan.kept.append(yielded) }
        scan.yielded = handle
        scan.read = false
        return .iteratorNext(scan.iterator, as: handle)
    }

    /// `iterate` of a Results accessor, which the context then goes through, dropping or
    /// keeping its elements (one time in two each); or `iteratorNext` of any iterator the run
    /// made (mostly one of the context's own realms or of a frozen realm; now and then another
    /// context's, which the engine must reject, Spec C5).
    mutating func iteration(
        _ kind: OperationKind, context: ContextID, own: RealmID, model: ModelState,
        stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        if kind == .iteratorNext {
            // Mostly iterations not at their end yet.
            let started = model.iterators.keys.sorted()
            let going = started.filter { id in
                model.iterators[id].map { $0.position < $0.elements.count && Self.isValid($0, in: model) } ?? false
            }
            let all = going.isEmpty || stream.draw(8) == 0 ? started : going
            let mine = all.filter { id in
                guard let realm = model.iterators[id].flatMap({ model.realms[$0.realm] }) else { return false }
                return realm.owner == context || realm.isFrozen
            }
            let pool = Array((mine.isEmpty || stream.draw(100) < swarm.crossContextPercent ? all : mine).suffix(4))
            // None going: mostly a new iteration instead.
            if !pool.isEmpty, !going.isEmpty || stream.draw(4) == 0 {
                return .iteratorNext(pool[stream.draw(pool.count)], as: allocateHandle())
            }
        }
        // Results of the caller's realms (not of one the model made for a thaw, negative
        // identifiers, which the engine side does not name), or now and then another context's.
        let all = model.handles.keys.sorted().filter { id in
            guard let handle = model.handles[id], case .results = handle.target, let realm = handle.realm else {
                return false
            }
            return realm.rawValue > 0
        }
        let mine = all.filter { id in
            guard let state = model.handles[id]?.realm.flatMap({ model.realms[$0] }) else { return false }
            return state.owner == context || state.isFrozen
        }
        var results = mine.isEmpty || stream.draw(100) < swarm.crossContextPercent ? all : mine
        // Mostly Results of a type the realm holds objects of (the query may still match none).
        let filled = results.filter { id in
            guard let handle = model.handles[id], case .results(let query) = handle.target,
                case .table(let type) = query.source, let realm = handle.realm
            else { return false }
            return model.view(of: realm).map { !$0.objectIDs(ofType: type).isEmpty } ?? false
        }
        if !filled.isEmpty, stream.draw(4) != 0 { results = filled }
        guard !results.isEmpty, !filled.isEmpty || stream.draw(2) == 0 else {
            // Results in the table's order: their rows are read ahead (`ResultsIterator`).
            let query = Query(source: .table(drawType(&stream)), minimumValue: nil, sort: .sourceOrder)
            return .objects(own, query, as: allocateHandle())
        }
        let recent = Array(results.suffix(6))
        let id = IteratorID(nextIterator)
        nextIterator += 1
        scans[context] = Scan(iterator: id, drops: stream.draw(2) == 1)
        return .iterate(recent[stream.draw(recent.count)], as: id)
    }
}
