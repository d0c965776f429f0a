import Strata
import StrataModel
import StrataStorage

// The values a generated test names, looked up and kept by the rules of `EngineSide`: a value
// the world does not hold is the script's own error (`CheckUsageError`), reported as the
// harness's "harness" code, never as an engine observation.
extension ScriptWorld {
    // MARK: realms

    /// The realm the run names `id`; a missing one is refused as `EngineSide.required` does.
    func realm(_ id: RealmID) throws -> Realm {
        guard let realm = withTables({ realms, _ in realms[id] }) else {
            throw Realm.Error(.programmerError, "strata-check: no engine realm \(id)")
        }
        return realm
    }

    /// Holds a realm an `open` returned: `.realm` of the identifier the run knows it by.
    func hold(_ opened: Realm, openedAs id: RealmID) -> Observation {
        .realm(withTables { realms, _ in realms.hold(opened, openedAs: id) })
    }

    /// Holds the realm a freeze of `source` returned. Spec F5: a frozen realm freezes to
    /// itself; whether two freezes of a live realm share an instance the Spec leaves open, so
    /// each is named on its own.
    func hold(frozen: Realm, of source: Realm, sourceID: RealmID, as id: RealmID) -> Observation {
        if source.isFrozen { return .realm(frozen == source ? sourceID : id) }
        withTables { realms, _ in realms.hold(frozen: frozen, as: id) }
        return .realm(id)
    }

    func release(_ id: RealmID) -> Observation {
        withTables { realms, _ in realms.release(id) }
        return .done
    }

    // MARK: accessors

    func object(_ id: HandleID) throws -> Object {
        guard case .object(let object) = handle(id) else { throw missing(id, "an object") }
        return object
    }

    /// An object the run appends to a List, which holds Items only.
    func item(_ id: HandleID) throws -> Item {
        guard let item = try object(id) as? Item else { throw missing(id, "an Item") }
        return item
    }

    /// A Linker whose set the run writes (generation 11).
    func linker(_ id: HandleID) throws -> Linker {
        guard let linker = try object(id) as? Linker else { throw missing(id, "a Linker") }
        return linker
    }

    func results<T: Object>(_ id: HandleID, of type: T.Type) throws -> Results<T> {
        switch handle(id) {
        case .itemResults(let results as Results<T>): return results
        case .otherResults(let results as Results<T>): return results
        case .linkerResults(let results as Results<T>): return results
        default: throw missing(id, "a Results of \(type)")
        }
    }

    func list(_ id: HandleID) throws -> List<Item> {
        guard case .list(let list) = handle(id) else { throw missing(id, "a List") }
        return list
    }

    /// The List column of an object the run holds.
    func list(of owner: Object) throws -> List<Item> {
        guard let checked = owner as? any CheckObject else { throw CheckUsageError("\(owner) has no List column") }
        return checked.list
    }

    /// Keeps an accessor as `id` (nil: the operation found nothing).
    func keep(_ object: Object?, as id: HandleID) -> Observation {
        keep(object.map { EngineHandle.object($0) }, as: id)
    }

    func keep<T: Object>(_ results: Results<T>?, as id: HandleID) -> Observation {
        keep(results.flatMap(Self.handle(of:)), as: id)
    }

    func keep(_ list: List<Item>?, as id: HandleID) -> Observation {
        keep(list.map { EngineHandle.list($0) }, as: id)
    }

    private func keep(_ handle: EngineHandle?, as id: HandleID) -> Observation {
        guard let handle else { return .handle(nil) }
        withTables { _, accessors in accessors.handles[id] = handle }
        return .handle(id)
    }

    /// Keeps the object a freeze or thaw returned, unless the world holds it already (F5).
    func identify(_ object: Object?, as id: HandleID) -> Observation {
        guard let object else { return .handle(nil) }
        return .handle(withTables { _, accessors in accessors.identify(.object(object), as: id) })
    }

    /// Keeps the collection a freeze or thaw of `source` returned: the source itself when it
    /// was frozen (freeze) or live (thaw) already (F5).
    func keep<T: Object>(
        _ results: Results<T>?, from source: HandleID, sourceWasTarget: Bool,
        as id: HandleID
    ) -> Observation {
        keep(results.flatMap(Self.handle(of:)), from: source, sourceWasTarget: sourceWasTarget, as: id)
    }

    func keep(_ list: List<Item>?, from source: HandleID, sourceWasTarget: Bool, as id: HandleID) -> Observation {
        keep(list.map { EngineHandle.list($0) }, from: source, sourceWasTarget: sourceWasTarget, as: id)
    }

    private func keep(
        _ handle: EngineHandle?, from source: HandleID, sourceWasTarget: Bool,
        as id: HandleID
    ) -> Observation {
        guard let handle else { return .handle(nil) }
        return .handle(
            withTables { _, accessors in
                accessors.collection(handle, from: source, sourceWasTarget: sourceWasTarget, as: id)
            })
    }

    /// Drops the world's accessor `id` (on the calling context: the release may unpin).
    func drop(_ id: HandleID) -> Observation {
        let dropped = withTables { _, accessors in accessors.handles.removeValue(forKey: id) }
        _ = dropped
        return .done
    }

    // MARK: references

    func keep<Confined>(_ reference: ThreadSafeReference<Confined>, as id: ReferenceID) -> Observation {
        let kept: EngineReference
        switch reference {
        case let object as ThreadSafeReference<Object>: kept = .object(object)
        case let results as ThreadSafeReference<Results<Item>>: kept = .itemResults(results)
        case let results as ThreadSafeReference<Results<Other>>: kept = .otherResults(results)
        case let results as ThreadSafeReference<Results<Linker>>: kept = .linkerResults(results)
        case let list as ThreadSafeReference<List<Item>>: kept = .list(list)
        default: return .failure(code: "harness", message: "no reference of \(Confined.self)")
        }
        withTables { _, accessors in accessors.references[id] = kept }
        return .done
    }

    func reference<Confined>(_ id: ReferenceID, to type: Confined.Type) throws -> ThreadSafeReference<Confined> {
        let held = withTables { _, accessors in accessors.references[id] }
        let reference: Any?
        switch held {
        case .object(let object): reference = object
        case .itemResults(let results): reference = results
        case .otherResults(let results): reference = results
        case .linkerResults(let results): reference = results
        case .list(let list): reference = list
        case nil: reference = nil
        }
        guard let typed = reference as? ThreadSafeReference<Confined> else {
            throw CheckUsageError("the script holds no reference \(id) to \(type)")
        }
        return typed
    }

    // MARK: reads, as the engine side reports them

    func reading(_ object: Object) throws -> Reading? { try EngineSide.reading(object) }
    func readings<T: Object>(_ results: Results<T>) throws -> [Reading] { try EngineSide.readings(results) }
    func readings(_ list: List<Item>) throws -> [Reading] { try EngineSide.readings(list) }
    /// Spec V21: `min(ofProperty: "value") as Int?` and its siblings (`EngineSide.aggregate`).
    func aggregate<T: Object>(_ function: Aggregate, of results: Results<T>) throws -> AggregateAnswer? {
        try EngineSide.aggregate(function, of: results)
    }
    func aggregate(_ function: Aggregate, of list: List<Item>) throws -> AggregateAnswer? {
        try EngineSide.aggregate(function, of: list)
    }
    /// Spec V27: the sections of a sectioned read (`EngineSide.sections`).
    func sections<T: CheckObject>(of results: Results<T>, by key: SectionKey, ascending: Bool) throws
        -> [SectionReading]
    {
        try EngineSide.sections(of: results, by: key, ascending: ascending)
    }
    func sections(of list: List<Item>, by key: SectionKey, ascending: Bool) throws -> [SectionReading] {
        try EngineSide.sections(of: list, by: key, ascending: ascending)
    }

    // MARK: the tables

    private func handle(_ id: HandleID) -> EngineHandle? {
        withTables { _, accessors in accessors.handles[id] }
    }

    private func missing(_ id: HandleID, _ kind: String) -> CheckUsageError {
        CheckUsageError("the script holds no \(kind) as \(id)")
    }

    private static func handle<T: Object>(of results: Results<T>) -> EngineHandle? {
        if let items = results as? Results<Item> { return .itemResults(items) }
        if let others = results as? Results<Other> { return .otherResults(others) }
        if let linkers = results as? Results<Linker> { return .linkerResults(linkers) }
        return nil
    }
}
