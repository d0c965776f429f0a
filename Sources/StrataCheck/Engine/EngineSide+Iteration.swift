import Strata
import StrataModel

// The engine side of generation 7's operations: iteration over Results (Spec V15, V16). An
// iterator lives in the accessor table by the model's `IteratorID`, in a box of its own: its
// `_next()` (the throwing twin of `next()`) runs on the box's only copy, so the object it
// returned last is held by the iterator and by nothing of the harness's but the handle the
// step stored. Once the caller released that handle, nothing else refers to the object and the
// iterator reuses it for the next element (`ResultsIterator`); a handle still held must keep
// reading its own element, which the reads of older handles check.

/// One iteration over Results; a class so that `_next()` mutates the only copy of the
/// iterator (a copy in a table would hold its previous object a second time and make every
/// object look shared).
final class IteratorBox<Element: Object> {
    var iterator: ResultsIterator<Element>
    /// The identity of the object `_next()` returned last: the same identity for the next
    /// element means the object was reused (a live iterator keeps its previous object alive
    /// while it makes a new one, so a new object never has the old one's address).
    var lastYielded: ObjectIdentifier?
    /// Whether the iterator can reuse objects (Results of a live realm).
    let reuses: Bool
    /// Elements the caller let go of while keeping a weak reference to them (`watch`): as long
    /// as one lives, the iterator must not reuse its object (Spec V15).
    private var watched: [Watched] = []

    struct Watched {
        weak var object: Element?
    }

    init(_ iterator: ResultsIterator<Element>, reuses: Bool) {
        self.iterator = iterator
        self.reuses = reuses
    }

    /// The next element, whether it is the previous element's object reused, and whether that
    /// object is one a weak reference still names.
    func next() throws(Realm.Error) -> (object: Element?, reused: Bool, watched: Bool) {
        let object = try iterator._next()
        let identity = object.map(ObjectIdentifier.init)
        defer { lastYielded = identity }
        watched.removeAll { $0.object == nil }
        let named = object.map { object in watched.contains { $0.object === object } } ?? false
        return (object, reuses && identity != nil && identity == lastYielded, named)
    }

    /// Keeps a weak reference to `object`, which the caller lets go of.
    func watch(_ object: Object) {
        guard let element = object as? Element else { return }
        watched.append(Watched(object: element))
    }
}

/// An iteration the engine side (or a generated script's world) holds for a model `IteratorID`.
enum EngineIterator {
    /// What a step reports when the iterator reused an object a weak reference still names.
    static let reusedWatchedObject = Observation.failure(
        code: "harness", message: "the iterator reused an object a weak reference still names (Spec V15)")

    case item(IteratorBox<Item>)
    case other(IteratorBox<Other>)
    case linker(IteratorBox<Linker>)

    /// Begins iterating the Results `handle` names, with the number of elements it will yield;
    /// nil when the handle is not Results.
    static func begin(_ handle: EngineHandle) throws(Realm.Error) -> (iterator: EngineIterator, count: Int)? {
        switch handle {
        case .itemResults(let results):
            let iterator = try results._makeIterator()
            return (.item(IteratorBox(iterator, reuses: !results.isFrozen)), try results._count())
        case .otherResults(let results):
            let iterator = try results._makeIterator()
            return (.other(IteratorBox(iterator, reuses: !results.isFrozen)), try results._count())
        case .linkerResults(let results):
            let iterator = try results._makeIterator()
            return (.linker(IteratorBox(iterator, reuses: !results.isFrozen)), try results._count())
        case .object, .list:
            return nil
        }
    }

    /// The next element as an accessor to hold, whether its object was reused, and whether a
    /// weak reference names it still.
    func next() throws(Realm.Error) -> (handle: EngineHandle?, reused: Bool, watched: Bool) {
        switch self {
        case .item(let box):
            let (object, reused, watched) = try box.next()
            return (object.map { .object($0) }, reused, watched)
        case .other(let box):
            let (object, reused, watched) = try box.next()
            return (object.map { .object($0) }, reused, watched)
        case .linker(let box):
            let (object, reused, watched) = try box.next()
            return (object.map { .object($0) }, reused, watched)
        }
    }

    /// Keeps a weak reference to `object`, an element the caller lets go of.
    func watch(_ object: Object) {
        switch self {
        case .item(let box): box.watch(object)
        case .other(let box): box.watch(object)
        case .linker(let box): box.watch(object)
        }
    }
}

extension EngineSide {
    /// Performs a generation 7 operation; nil for any other operation.
    func dispatchIteration(_ operation: StrataModel.Operation) throws(Realm.Error) -> Observation? {
        switch operation {
        case .iterate(let id, let iteratorID):
            guard let handle = handle(id), let (iterator, count) = try EngineIterator.begin(handle) else {
                return unsupported(operation)
            }
            lock.withLock { _ in accessors.iterators[iteratorID] = iterator }
            return .count(count)
        case .iteratorNext(let iteratorID, let id):
            guard let iterator = lock.withLock({ _ in accessors.iterators[iteratorID] }) else {
                return unsupported(operation)
            }
            let (next, reused, watched) = try iterator.next()
            guard let next else { return .handle(nil) }
            if reused { probes.mark(ProbeCoverage.iteratorReusedObject) }
            if watched { return EngineIterator.reusedWatchedObject }
            return .handle(lock.withLock { _ in accessors.holdYielded(next, as: id, from: iteratorID) })
        case .read(let id) where id.rawValue % 4 < 3:
            // Three elements in four are read without reading their List through them: a List read
            // through an object stays in it and keeps the iterator from reusing the object.
            guard lock.withLock({ _ in accessors.yielded[id] }) != nil, case .object(let object) = handle(id) else {
                return nil
            }
            return .object(try Self.readingListThroughTwin(object))
        case .releaseHandle(let id) where id.rawValue % 4 == 0:
            // One element in four of those released keeps a weak reference behind, which must
            // keep the iterator from reusing its object.
            let (dropped, iterator) = lock.withLock { _ in accessors.dropYielded(id) }
            guard let iterator, case .object(let object) = dropped else { return nil }
            iterator.watch(object)
            return .done
        default:
            return nil
        }
    }

    /// `reading(object)`, with the List and the link read through another object of the same
    /// row (looked up by primary key in the object's realm), so that nothing stays in `object`;
    /// an object with no realm is read through itself.
    static func readingListThroughTwin(_ object: Object) throws(Realm.Error) -> Reading? {
        guard let primaryKey = try object._value(forKey: "primaryKey") as? Int else { return nil }
        let value = try object._value(forKey: "value") as? Int
        // An object deleted through this accessor in a write that was then cancelled is
        // readable again but has no `realm` (Realm's RLMDeleteObjectFromRealm clears it; Spec
        // W12): there is no realm to look its twin up in, so it is read through itself.
        guard let realm = object.realm else { return try reading(object) }
        guard let twin = try realm._object(ofType: type(of: object), forPrimaryKey: primaryKey),
            var reading = try reading(twin)
        else {
            throw Realm.Error(.programmerError, "strata-check: no twin of a readable object")
        }
        reading.primaryKey = primaryKey
        reading.value = value
        return reading
    }
}

extension AccessorTable {
    /// Holds the element an iterator yielded as `id`, and notes which iterator yielded it. An
    /// object the caller holds already keeps its identifier: a reuse of a held object answers
    /// with the older handle, which the model never gives.
    mutating func holdYielded(_ element: EngineHandle, as id: HandleID, from iterator: IteratorID) -> HandleID {
        let held = identify(element, as: id)
        if held == id { yielded[id] = iterator }
        return held
    }

    /// Releases `id` if an iterator yielded it: its handle, and the iterator to keep a weak
    /// reference to it; nothing (and nothing released) otherwise.
    mutating func dropYielded(_ id: HandleID) -> (dropped: EngineHandle?, iterator: EngineIterator?) {
        let iterator = yielded.removeValue(forKey: id).flatMap { iterators[$0] }
        return (iterator == nil ? nil : handles.removeValue(forKey: id), iterator)
    }
}
