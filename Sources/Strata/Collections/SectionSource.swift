import Dispatch
import StrataStorage

/// The sorted collection a `SectionedResults` divides (Spec V27): the objects of sorted
/// Results, or the sorted values of a managed List or set. Each member makes the checks of a
/// read of its collection (Spec C6, V13).
protocol SectionSource<Element> {
    associatedtype Element
    /// After the checks of a read, the stamp the collection's contents are current for.
    func stamp() throws(Realm.Error) -> ViewStamp
    /// Every element, in order.
    func elements() throws(Realm.Error) -> [Element]
    /// The element at `index`.
    func element(at index: Int) throws(Realm.Error) -> Element
    var realm: Realm? { get }
    /// The seeded bugs of the collection's file (the harness's).
    var bugs: APISeededBugs { get }
    var isInvalidated: Bool { get }
    var isFrozen: Bool { get }
    /// The collection frozen at its realm's current version (Spec F).
    func frozen() throws(Realm.Error) -> any SectionSource<Element>
    /// The live collection of a frozen one, in this context's realm (Spec F8); nil if it is gone.
    func thawed() throws(Realm.Error) -> (any SectionSource<Element>)?
    /// A reference to the collection (Spec T1) and how to resolve it in a realm (Spec T5).
    func reference() throws(Realm.Error) -> (handle: _ThreadSafeHandle, resolve: SectionSourceResolver<Element>)
    /// Observes the collection in its realm's context (Spec N6 to N13, N21); `skipped` is told
    /// when a commit skips the observer (Spec N4).
    func observe(
        keyPaths: [String]?, _ block: @escaping (SectionSourceChange<Element>) -> Void,
        skipped: @escaping () -> Void
    ) throws(Realm.Error) -> NotificationToken
    /// Observes the collection on `queue`, resolved in the realm confined to it (Spec N18);
    /// `skipped` is told, with that collection, when a commit skips the observer (Spec N4).
    func observe(
        keyPaths: [String]?, on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionSourceChange<Element>) -> Void,
        skipped: @escaping @Sendable (any SectionSource<Element>) -> Void
    ) throws(Realm.Error) -> NotificationToken
}

/// Resolves a section source's reference in a realm (Spec T5): nil when it names nothing there.
typealias SectionSourceResolver<Element> =
    @Sendable (_ThreadSafeHandle, Realm) throws(Realm.Error) -> (
        any SectionSource<Element>
    )?

/// A change of a section source: a collection change carrying the source it was read from.
enum SectionSourceChange<Element> {
    case initial(any SectionSource<Element>)
    case update(any SectionSource<Element>, deletions: [Int], insertions: [Int], modifications: [Int])
    case error(any Error)

    init<C>(_ change: RealmCollectionChange<C>, _ source: (C) -> any SectionSource<Element>) {
        switch change {
        case .initial(let collection): self = .initial(source(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            self = .update(
                source(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): self = .error(error)
        }
    }
}

/// Objects: the sorted Results the sectioning asked for, so their change sets are the
/// Results' (Spec N7 to N13, key paths N21).
struct ObjectSectionSource<Element: Object>: SectionSource {
    let results: Results<Element>

    func stamp() throws(Realm.Error) -> ViewStamp {
        _ = try results.evaluate()
        return results.storage.core.stamp
    }

    func elements() throws(Realm.Error) -> [Element] {
        let count = try results._count()
        var objects: [Element] = []
        objects.reserveCapacity(count)
        for index in 0..<count { objects.append(try results.element(at: index)) }
        return objects
    }

    func element(at index: Int) throws(Realm.Error) -> Element { try results.element(at: index) }
    var realm: Realm? { results.realm }
    var bugs: APISeededBugs { results.storage.core.file.bugs }
    var isInvalidated: Bool { results.isInvalidated }
    var isFrozen: Bool { results.isFrozen }

    func frozen() throws(Realm.Error) -> any SectionSource<Element> {
        ObjectSectionSource(results: try results._freeze())
    }

    func thawed() throws(Realm.Error) -> (any SectionSource<Element>)? {
        try results._thaw().map { ObjectSectionSource(results: $0) }
    }

    func reference() throws(Realm.Error) -> (handle: _ThreadSafeHandle, resolve: SectionSourceResolver<Element>) {
        (
            try results._threadSafeHandle(),
            { handle, realm throws(Realm.Error) in
                try Results<Element>._resolve(handle, in: realm).map { ObjectSectionSource(results: $0) }
            }
        )
    }

    func observe(
        keyPaths: [String]?, _ block: @escaping (SectionSourceChange<Element>) -> Void,
        skipped: @escaping () -> Void
    ) throws(Realm.Error) -> NotificationToken {
        try results._observe(
            keyPaths: keyPaths, { change in block(SectionSourceChange(change) { ObjectSectionSource(results: $0) }) },
            skipped: skipped)
    }

    func observe(
        keyPaths: [String]?, on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionSourceChange<Element>) -> Void,
        skipped: @escaping @Sendable (any SectionSource<Element>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        try Strata.observe(
            results, on: queue, core: results.storage.core, onError: { block(.error($0)) },
            register: { resolved throws(Realm.Error) in
                let source = ObjectSectionSource(results: resolved)
                return try source.observe(keyPaths: keyPaths, block, skipped: { skipped(source) })
            })
    }
}

/// Values: the elements of a managed List (a set's are its storage List's), sorted as Realm
/// sorts a collection of values by `self` (StoredOrder: null first; descending reverses it,
/// equal values keeping their order). The sorted values are kept per stamp.
struct ValueSectionSource<Element: RealmCollectionValue>: SectionSource {
    let list: List<Element>
    let ascending: Bool
    let sorted = SortedValues<Element>()

    final class SortedValues<Value>: @unchecked Sendable {
        // A lock: a frozen source may be read by many threads at once (Spec C10).
        let cache = Lock<(stamp: ViewStamp, values: [Value])?>(nil)
    }

    func stamp() throws(Realm.Error) -> ViewStamp {
        guard let binding = list.binding else { throw Realm.Error.unmanagedListOnly }
        try binding.core.checkAccess()
        if try binding.isInvalidated() { throw Realm.Error.collectionInvalidated }
        _ = try binding.core.view()
        return binding.core.stamp
    }

    func elements() throws(Realm.Error) -> [Element] {
        let stamp = try stamp()
        if let cached = sorted.cache.withLock({ $0 }), cached.stamp == stamp { return cached.values }
        let values = try list.elements()
        var encoded: [Value] = []
        encoded.reserveCapacity(values.count)
        for value in values { encoded.append(try value._strataEncode(realm: nil)) }
        let ascending = self.ascending
        let order = encoded.indices.sorted { p, q in
            if StoredOrder.sortsBefore(encoded[p], encoded[q]) { return ascending }
            if StoredOrder.sortsBefore(encoded[q], encoded[p]) { return !ascending }
            return p < q
        }
        let result = order.map { values[$0] }
        sorted.cache.withLock { $0 = (stamp, result) }
        return result
    }

    func element(at index: Int) throws(Realm.Error) -> Element {
        let values = try elements()
        guard values.indices.contains(index) else { throw Realm.Error.outOfBounds(index: index, count: values.count) }
        return values[index]
    }

    var realm: Realm? { list.realm }
    var bugs: APISeededBugs { list.binding?.core.file.bugs ?? [] }
    var isInvalidated: Bool { list.isInvalidated }
    var isFrozen: Bool { list.isFrozen }

    func frozen() throws(Realm.Error) -> any SectionSource<Element> {
        ValueSectionSource(list: try list._freeze(), ascending: ascending)
    }

    func thawed() throws(Realm.Error) -> (any SectionSource<Element>)? {
        try list._thaw().map { ValueSectionSource(list: $0, ascending: ascending) }
    }

    func reference() throws(Realm.Error) -> (handle: _ThreadSafeHandle, resolve: SectionSourceResolver<Element>) {
        let ascending = self.ascending
        return (
            try list._threadSafeHandle(),
            { handle, realm throws(Realm.Error) in
                try List<Element>._resolve(handle, in: realm).map { ValueSectionSource(list: $0, ascending: ascending) }
            }
        )
    }

    func observe(
        keyPaths: [String]?, _ block: @escaping (SectionSourceChange<Element>) -> Void,
        skipped: @escaping () -> Void
    ) throws(Realm.Error) -> NotificationToken {
        let ascending = self.ascending
        let tracker = SortedValueTracker<Element>()
        let source = self
        return try list._observe(
            keyPaths: keyPaths,
            { change in
                let sorted = tracker.sorted(
                    SectionSourceChange(change) { ValueSectionSource(list: $0, ascending: ascending) })
                if let sorted { block(sorted) }
            },
            skipped: {
                tracker.rebaseline(source)
                skipped()
            })
    }

    func observe(
        keyPaths: [String]?, on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionSourceChange<Element>) -> Void,
        skipped: @escaping @Sendable (any SectionSource<Element>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        guard let core = list.binding?.core else { throw Realm.Error.unmanagedObservation }
        let ascending = self.ascending
        // Registered on the queue: the List resolved there, observed as in its own context.
        return try Strata.observe(
            list, on: queue, core: core, onError: { block(.error($0)) },
            register: { resolved throws(Realm.Error) in
                let source = ValueSectionSource(list: resolved, ascending: ascending)
                return try source.observe(keyPaths: keyPaths, block, skipped: { skipped(source) })
            })
    }
}

/// A List's change sets are in list order; sorted values change in their own order. This
/// turns each change of the List into the change of its sorted values: an element is a value
/// and its occurrence among equal values, and the kept ones are the common subsequence of the
/// two sorted contents (`CollectionDiff`), so a value that moved in the List but not in the
/// sort order is no change. Touched only by the observer's callbacks (one context, or one
/// serial queue), hence `@unchecked Sendable`.
final class SortedValueTracker<Element: _RealmValue>: @unchecked Sendable {
    private var previous: [SortedValueIdentity] = []

    struct SortedValueIdentity: Hashable {
        let value: Value
        let occurrence: Int
    }

    /// The change of the sorted values; nil when they did not change (the List's order did
    /// alone), which a sorted collection's observer does not hear (Spec N11).
    func sorted(_ change: SectionSourceChange<Element>) -> SectionSourceChange<Element>? {
        switch change {
        case .error: return change
        case .initial(let source):
            previous = (try? identities(source)) ?? []
            return change
        case .update(let source, _, _, _):
            do throws(Realm.Error) {
                let current = try identities(source)
                defer { previous = current }
                let diff = CollectionDiff.between(old: previous, new: current) { _ in false }
                if diff.isEmpty { return nil }
                return .update(
                    source, deletions: diff.deletions, insertions: diff.insertions,
                    modifications: diff.modifications)
            } catch {
                return .error(error)
            }
        }
    }

    /// A commit skipped the observer (Spec N4): the next change is from `source`'s contents now.
    func rebaseline(_ source: any SectionSource<Element>) {
        if let current = try? identities(source) { previous = current }
    }

    private func identities(_ source: any SectionSource<Element>) throws(Realm.Error) -> [SortedValueIdentity] {
        var seen: [Value: Int] = [:]
        var result: [SortedValueIdentity] = []
        for element in try source.elements() {
            let stored = try element._strataEncode(realm: nil)
            let occurrence = seen[stored, default: 0]
            seen[stored] = occurrence + 1
            result.append(SortedValueIdentity(value: stored, occurrence: occurrence))
        }
        return result
    }
}
