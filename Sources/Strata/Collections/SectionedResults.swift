import Foundation
import StrataStorage

/// What `SectionedResults` and each of their `ResultsSection`s offer, as RealmSwift's
/// `RealmSectionedResult` (Spec V27).
public protocol RealmSectionedResult: RandomAccessCollection, Equatable, ThreadConfined, SendableMetatype
where Index == Int {
    /// The number of sections, or of a section's elements.
    var count: Int { get }
    /// The same, frozen at its realm's current version (Spec F).
    func freeze() -> Self
    /// The same, live in the calling context's realm (Spec F8); nil if the collection is gone.
    func thaw() -> Self?
    /// Calls `block` in the realm's context: `.initial`, then `.update` after each commit
    /// that changes the sections (Spec V27, N7 to N13); `keyPaths` limit which properties
    /// count as modifications (Spec N21).
    func observe(keyPaths: [String]?, _ block: @escaping (SectionedResultsChange<Self>) -> Void)
        -> NotificationToken
    /// As `observe(keyPaths:_:)`, with each callback on `queue` (a serial queue) carrying the
    /// collection resolved in the realm confined to it (Spec N18).
    func observe(
        keyPaths: [String]?, on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionedResultsChange<Self>) -> Void
    ) -> NotificationToken
}

extension RealmSectionedResult {
    /// Observes every change (`observe(keyPaths: nil, block)`).
    public func observe(_ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: nil, block)
    }

    /// As `observe(keyPaths:_:)`, with each callback in `actor`'s isolation carrying the
    /// collection resolved in the realm confined to the actor (Spec N18, C15). Returns once
    /// registered; in a cancelled task nothing is registered (Spec N23).
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A,
        _isolation: isolated (any Actor)? = #isolation,
        _ block: @escaping @Sendable (isolated A, SectionedResultsChange<Self>) -> Void
    ) async -> NotificationToken {
        await trapping { () async throws(Realm.Error) -> NotificationToken in
            guard let core = realm?.core else { throw Realm.Error.unmanagedObservation }
            return try await Strata.observe(
                self, on: actor, core: core, isolation: _isolation,
                // SectionedResultsChange has no error case: an observer that cannot be
                // registered on the actor hears nothing (Spec V27).
                onError: { _, _ in },
                register: { resolved, actor throws(Realm.Error) in
                    resolved.observe(keyPaths: keyPaths) { change in actor.deliverIsolated(change, to: block) }
                })
        }
    }
}

extension RealmSectionedResult where Element: Object {
    /// `observe(keyPaths:_:)` with the names of the properties `keyPaths` read.
    public func observe(
        keyPaths: [PartialKeyPath<Element>], _ block: @escaping (SectionedResultsChange<Self>) -> Void
    ) -> NotificationToken {
        observe(keyPaths: Element.propertyNames(keyPaths), block)
    }

    /// `observe(keyPaths:on:_:)` with the names of the properties `keyPaths` read.
    public func observe(
        keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionedResultsChange<Self>) -> Void
    ) -> NotificationToken {
        observe(keyPaths: Element.propertyNames(keyPaths), on: queue, block)
    }
}

extension RealmSectionedResult where Element: RealmSectionedResult, Element.Element: Object {
    /// `observe(keyPaths:_:)` with the names of the properties `keyPaths` read.
    public func observe(
        keyPaths: [PartialKeyPath<Element.Element>], _ block: @escaping (SectionedResultsChange<Self>) -> Void
    ) -> NotificationToken {
        observe(keyPaths: Element.Element.propertyNames(keyPaths), block)
    }

    /// `observe(keyPaths:on:_:)` with the names of the properties `keyPaths` read.
    public func observe(
        keyPaths: [PartialKeyPath<Element.Element>], on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionedResultsChange<Self>) -> Void
    ) -> NotificationToken {
        observe(keyPaths: Element.Element.propertyNames(keyPaths), on: queue, block)
    }
}

/// A sorted collection divided into sections by a key computed from each element, as
/// RealmSwift's `SectionedResults` (Spec V27): made by `sectioned(by:…)` on any Realm
/// collection.
///
/// ```swift
/// let byLetter = realm.objects(Person.self).sectioned(by: \.firstLetter, ascending: true)
/// for section in byLetter { print(section.key, section.count) }
/// ```
///
/// Live and lazy like the collection it sections (Spec V1): the sections are worked out again
/// (the key block run on every element) when the realm's version or write has changed since
/// they were last read. A section holds the elements of one key, in collection order; sections
/// come in the order of their first element, so a key block that follows the primary sort
/// gives sections in key order.
///
/// Confinement: as the collection's (Spec C6, C10). The key block is called on the context
/// that reads or observes the sections (for `observe(keyPaths:on:_:)`, on the queue).
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>:
    RealmSectionedResult
{
    public typealias Element = ResultsSection<Key, SectionElement>

    final class Storage: @unchecked Sendable {
        let source: any SectionSource<SectionElement>
        let keyOf: (SectionElement) -> Key
        /// The layout for one stamp. A lock: frozen sections may be read by many threads at
        /// once (Spec C10); `@unchecked Sendable` names it.
        let cache = Lock<(stamp: ViewStamp, layout: SectionLayout<Key>)?>(nil)

        init(source: any SectionSource<SectionElement>, keyOf: @escaping (SectionElement) -> Key) {
            self.source = source
            self.keyOf = keyOf
        }

        /// The sections of the collection's current contents. Worked out under the lock, so
        /// that the key block (which need not be thread-safe) runs on one thread at a time,
        /// also for frozen sections read by many (Spec C10).
        func layout() throws(Realm.Error) -> SectionLayout<Key> {
            let stamp = try source.stamp()
            return try cache.withLock { cached throws(Realm.Error) -> SectionLayout<Key> in
                if let cached, cached.stamp == stamp { return cached.layout }
                let layout = try Self.layout(of: source, keyOf)
                cached = (stamp, layout)
                return layout
            }
        }

        /// The sections of `source`'s contents now.
        static func layout(of source: any SectionSource<SectionElement>, _ keyOf: (SectionElement) -> Key)
            throws(Realm.Error) -> SectionLayout<Key>
        {
            // realm-core refuses links as section keys: the object the key names may go.
            if Key._strataKind.type == .object { throw Realm.Error.linkSectionKey }
            let keys = try source.elements().map(keyOf)
            return SectionLayout(elementKeys: keys, sectionPerRun: source.bugs.contains(.sectionPerKeyRun))
        }

        /// The same sectioning over another source (frozen, thawed, resolved on a queue).
        func over(_ other: any SectionSource<SectionElement>) -> Storage { Storage(source: other, keyOf: keyOf) }

        /// The same sections frozen: the frozen collection with these sections, so the key
        /// block never runs on the frozen elements (as realm-core copies them). Inside a write
        /// the frozen collection is the version the write began at (Spec F), not the live
        /// contents: its sections are worked out from its own elements then.
        func frozen() throws(Realm.Error) -> Storage {
            let inWrite = source.realm?.isInWriteTransaction ?? false
            let layout = inWrite ? nil : try layout()
            let frozen = over(try source.frozen())
            if let layout {
                let stamp = try frozen.source.stamp()
                frozen.cache.withLock { $0 = (stamp, layout) }
            }
            return frozen
        }

        /// Observes the sections (of `onlyKey` alone, when given) in the collection's context:
        /// `send` gets each change with these sections.
        func observe(
            keyPaths: [String]?, onlyKey: Key?, _ send: @escaping (SectionedResultsChange<Void>) -> Void
        ) throws(Realm.Error) -> NotificationToken {
            let tracker = SectionChangeTracker<Key>(onlyKey: onlyKey)
            // The change's collection is this source's: its layout is this storage's, cached
            // for the reads the callback makes.
            return try source.observe(
                keyPaths: keyPaths,
                { change in tracker.deliver(change, layout: { _ throws(Realm.Error) in try self.layout() }, send) },
                skipped: { if let layout = try? self.layout() { tracker.rebaseline(layout) } })
        }

        /// Observes the sections (of `onlyKey` alone, when given) on `queue`: `send` gets each
        /// change with the sections of the collection resolved on the queue.
        func observe(
            keyPaths: [String]?, onlyKey: Key?, on queue: DispatchQueue,
            _ send: @escaping @Sendable (SectionedResultsChange<Void>, Storage) -> Void
        ) throws(Realm.Error) -> NotificationToken {
            let tracker = SectionChangeTracker<Key>(onlyKey: onlyKey)
            let keyOf = QueueCarried(value: self.keyOf)
            return try source.observe(
                keyPaths: keyPaths, on: queue,
                { change in
                    guard let source = change.source else { return }
                    let resolved = Storage(source: source, keyOf: keyOf.value)
                    tracker.deliver(change, layout: { _ throws(Realm.Error) in try resolved.layout() }) {
                        send($0, resolved)
                    }
                },
                skipped: { source in
                    let resolved = Storage(source: source, keyOf: keyOf.value)
                    if let layout = try? resolved.layout() { tracker.rebaseline(layout) }
                })
        }
    }

    let storage: Storage

    init(source: any SectionSource<SectionElement>, keyOf: @escaping (SectionElement) -> Key) {
        storage = Storage(source: source, keyOf: keyOf)
    }

    init(storage: Storage) { self.storage = storage }

    // MARK: sections

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of sections.
    public var count: Int { trapping { () throws(Realm.Error) -> Int in try _count() } }

    package func _count() throws(Realm.Error) -> Int { try storage.layout().keys.count }

    /// The keys of the sections, in section order.
    public var allKeys: [Key] { trapping { () throws(Realm.Error) -> [Key] in try storage.layout().keys } }

    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Key, SectionElement> {
        trapping { () throws(Realm.Error) -> ResultsSection<Key, SectionElement> in
            let keys = try storage.layout().keys
            guard keys.indices.contains(position) else {
                throw Realm.Error.outOfBounds(index: position, count: keys.count)
            }
            return ResultsSection(parent: storage, key: keys[position])
        }
    }

    /// Each section's key and elements, in order; throws what a read of the collection throws.
    package func _sections() throws(Realm.Error) -> [(key: Key, elements: [SectionElement])] {
        let layout = try storage.layout()
        var sections: [(key: Key, elements: [SectionElement])] = []
        for (section, key) in layout.keys.enumerated() {
            var elements: [SectionElement] = []
            for position in layout.positions[section] { elements.append(try storage.source.element(at: position)) }
            sections.append((key, elements))
        }
        return sections
    }

    /// The element at `indexPath.item` of section `indexPath.section`.
    public subscript(indexPath: IndexPath) -> SectionElement { self[indexPath.section][indexPath.item] }

    /// Iterates over the sections there are when iteration begins.
    public func makeIterator() -> SectionedResultsIterator<Key, SectionElement> {
        SectionedResultsIterator(sections: trapping { () throws(Realm.Error) -> [Key] in try storage.layout().keys }) {
            ResultsSection(parent: storage, key: $0)
        }
    }

    /// Whether the two are the same sectioning (one `sectioned` call, or its copies).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.storage === rhs.storage }

    // MARK: state

    public var realm: Realm? { storage.source.realm }
    public var isInvalidated: Bool { storage.source.isInvalidated }
    public var isFrozen: Bool { storage.source.isFrozen }

    public func freeze() -> SectionedResults {
        trapping { () throws(Realm.Error) -> SectionedResults in try _freeze() }
    }

    package func _freeze() throws(Realm.Error) -> SectionedResults {
        if isFrozen { return self }  // Spec F5
        return SectionedResults(storage: try storage.frozen())
    }

    public func thaw() -> SectionedResults? {
        trapping { () throws(Realm.Error) -> SectionedResults? in try _thaw() }
    }

    package func _thaw() throws(Realm.Error) -> SectionedResults? {
        guard isFrozen else { return self }
        return try storage.source.thawed().map { SectionedResults(storage: storage.over($0)) }
    }

    // MARK: observation

    public func observe(
        keyPaths: [String]? = nil, _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        let sectioned = self
        return try storage.observe(keyPaths: keyPaths, onlyKey: nil) { block($0.carrying(sectioned)) }
    }

    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionedResultsChange<SectionedResults>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, on: queue, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionedResultsChange<SectionedResults>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        try storage.observe(keyPaths: keyPaths, onlyKey: nil, on: queue) { change, resolved in
            block(change.carrying(SectionedResults(storage: resolved)))
        }
    }
}

/// The key block (or a section's key), carried to the queue an observer is on: RealmSwift
/// calls the block there too, and it reads only the elements it is given, which are the
/// queue's; keys are values.
struct QueueCarried<Value>: @unchecked Sendable {
    let value: Value
}

extension SectionSourceChange {
    /// The source the change was read from.
    var source: (any SectionSource<Element>)? {
        switch self {
        case .initial(let source), .update(let source, _, _, _): return source
        case .error: return nil
        }
    }
}

/// The elements of one key of a `SectionedResults`, as RealmSwift's `ResultsSection` (Spec
/// V27). A section is its key: it reads the parent's current sections, so it is live and
/// follows its key to wherever its section now is; once no element has the key it is
/// invalidated.
public struct ResultsSection<Key: _Persistable & Hashable, T: RealmCollectionValue>: RealmSectionedResult,
    Identifiable
{
    public typealias Element = T
    typealias Parent = SectionedResults<Key, T>.Storage

    let parent: Parent
    /// The key of every element in the section.
    public let key: Key
    /// The key: a section is identified by it.
    public var id: Key { key }

    init(parent: Parent, key: Key) {
        self.parent = parent
        self.key = key
    }

    /// The positions of the section's elements in the sorted collection, now.
    private func positions() throws(Realm.Error) -> [Int] {
        let layout = try parent.layout()
        guard let section = layout.section(of: key) else { throw Realm.Error.resultsInvalidated }
        return layout.positions[section]
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of elements with the key.
    public var count: Int { trapping { () throws(Realm.Error) -> Int in try _count() } }

    package func _count() throws(Realm.Error) -> Int { try positions().count }

    /// The element at `position` in the section.
    public subscript(position: Int) -> T {
        trapping { () throws(Realm.Error) -> T in
            let positions = try positions()
            guard positions.indices.contains(position) else {
                throw Realm.Error.outOfBounds(index: position, count: positions.count)
            }
            return try parent.source.element(at: positions[position])
        }
    }

    /// Iterates over the elements the section holds when iteration begins.
    public func makeIterator() -> SectionIterator<T> {
        SectionIterator(
            elements: trapping { () throws(Realm.Error) -> [T] in
                var elements: [T] = []
                for position in try positions() { elements.append(try parent.source.element(at: position)) }
                return elements
            })
    }

    /// Whether the two are the same key of the same sectioning.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.parent === rhs.parent && lhs.key == rhs.key }

    public var realm: Realm? { parent.source.realm }

    public var isInvalidated: Bool {
        guard !parent.source.isInvalidated else { return true }
        return ((try? parent.layout())?.section(of: key)) == nil
    }

    public var isFrozen: Bool { parent.source.isFrozen }

    public func freeze() -> ResultsSection {
        trapping { () throws(Realm.Error) -> ResultsSection in
            ResultsSection(parent: try SectionedResults(storage: parent)._freeze().storage, key: key)
        }
    }

    public func thaw() -> ResultsSection? {
        trapping { () throws(Realm.Error) -> ResultsSection? in
            try SectionedResults(storage: parent)._thaw().map { ResultsSection(parent: $0.storage, key: key) }
        }
    }

    /// Calls `block` with the changes of this section only: `.initial`, then `.update` after
    /// each commit that inserts, deletes or modifies its elements or the section itself
    /// (realm-core's section filter); index paths are in the whole sectioned collection.
    public func observe(
        keyPaths: [String]? = nil, _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in
            let section = self
            return try parent.observe(keyPaths: keyPaths, onlyKey: key) { block($0.carrying(section)) }
        }
    }

    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (SectionedResultsChange<ResultsSection>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in
            let key = QueueCarried(value: self.key)
            return try parent.observe(keyPaths: keyPaths, onlyKey: key.value, on: queue) { change, resolved in
                block(change.carrying(ResultsSection(parent: resolved, key: key.value)))
            }
        }
    }
}

/// Iterates over the sections of a `SectionedResults`.
public struct SectionedResultsIterator<Key: _Persistable & Hashable, Element: RealmCollectionValue>:
    IteratorProtocol
{
    private var keys: IndexingIterator<[Key]>
    private let section: (Key) -> ResultsSection<Key, Element>

    init(sections: [Key], _ section: @escaping (Key) -> ResultsSection<Key, Element>) {
        keys = sections.makeIterator()
        self.section = section
    }

    public mutating func next() -> ResultsSection<Key, Element>? { keys.next().map(section) }
}

/// Iterates over the elements of a `ResultsSection`.
public struct SectionIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private var elements: IndexingIterator<[Element]>

    init(elements: [Element]) { self.elements = elements.makeIterator() }

    public mutating func next() -> Element? { elements.next() }
}

/// The changes a sectioned results observer hears, as RealmSwift's `SectionedResultsChange`:
/// index paths name (section, item); deletions and modifications are in the previous
/// sections, insertions in the new; each array is ascending.
@frozen public enum SectionedResultsChange<Collection> {
    /// The sections when the observer was added.
    case initial(Collection)
    /// A commit changed the sections.
    case update(
        Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
        sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)

    func carrying<Other>(_ collection: Other) -> SectionedResultsChange<Other> {
        switch self {
        case .initial: return .initial(collection)
        case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            return .update(
                collection, deletions: deletions, insertions: insertions, modifications: modifications,
                sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
        }
    }
}

#if !canImport(Darwin)
    extension IndexPath {
        /// The index path of `item` in `section`, as Apple's Foundation spells it.
        public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
        /// The section: the first index.
        public var section: Int { self[0] }
        /// The item in the section: the second index.
        public var item: Int { self[1] }
    }
#endif

extension Realm.Error {
    static let linkSectionKey = misuse("Links are not supported as section keys.")
}
