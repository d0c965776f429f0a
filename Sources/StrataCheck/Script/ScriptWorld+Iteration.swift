import Strata
import StrataModel

// Generation 7's operations in a generated test, by the rules of `EngineSide+Iteration`: the
// same iterator boxes in the same accessor table, elements read three in four through a twin
// and released one in four behind a weak reference, so a script performs what the run did.
extension ScriptWorld {
    /// `iterate`: begins iterating the Results `id`; the number of elements it will yield.
    func iterate(_ id: HandleID, as iteratorID: IteratorID) throws -> Observation {
        guard let handle = withTables({ _, accessors in accessors.handles[id] }),
            let (iterator, count) = try EngineIterator.begin(handle)
        else { throw CheckUsageError("the script holds no Results as \(id)") }
        withTables { _, accessors in accessors.iterators[iteratorID] = iterator }
        return .count(count)
    }

    /// `iteratorNext`: the next element, held as `id`.
    func next(_ iteratorID: IteratorID, as id: HandleID) throws -> Observation {
        guard let iterator = withTables({ _, accessors in accessors.iterators[iteratorID] }) else {
            throw CheckUsageError("the script holds no iterator \(iteratorID)")
        }
        let (next, _, watched) = try iterator.next()
        guard let next else { return .handle(nil) }
        if watched { return EngineIterator.reusedWatchedObject }
        return .handle(withTables { _, accessors in accessors.holdYielded(next, as: id, from: iteratorID) })
    }

    /// `read` of a handle an `iteratorNext` made: as `EngineSide` reads it.
    func readElement(_ id: HandleID) throws -> Observation {
        let object = try self.object(id)
        let yielded = withTables { _, accessors in accessors.yielded[id] } != nil
        if yielded && id.rawValue % 4 < 3 { return .object(try EngineSide.readingListThroughTwin(object)) }
        return .object(try reading(object))
    }

    /// `releaseHandle` of a handle an `iteratorNext` made: as `EngineSide` releases it.
    func dropElement(_ id: HandleID) -> Observation {
        guard id.rawValue % 4 == 0 else { return drop(id) }
        let (dropped, iterator) = withTables { _, accessors in accessors.dropYielded(id) }
        guard let iterator, case .object(let object) = dropped else { return drop(id) }
        iterator.watch(object)
        return .done
    }
}
