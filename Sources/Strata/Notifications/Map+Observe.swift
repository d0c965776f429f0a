import Foundation
import StrataStorage

/// A collection addressed by keys: `Map`.
public protocol RealmKeyedCollection: AnyObject {
    /// The type of the keys.
    associatedtype Key: _MapKey
    /// The type of the values.
    associatedtype Value: _RealmValue & SendableMetatype
}

extension Map: RealmKeyedCollection {}

/// A change of a Map, by keys (RealmSwift's `RealmMapChange`).
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The first callback, with the map as it is.
    case initial(Collection)
    /// After a commit that changed the map: the keys removed, the keys added, and the keys whose
    /// value changed (or, for objects, whose object changed) (Spec V25, N6 to N13).
    case update(
        Collection, deletions: [Collection.Key], insertions: [Collection.Key],
        modifications: [Collection.Key])
    /// The observation failed; no callback follows.
    case error(Error)
}

extension Map {
    /// Calls `block` on the realm's scheduler: `.initial` on a later turn, then `.update` with
    /// the keys a commit removed, added and changed, until the token is invalidated (Spec V25,
    /// N6 to N13). `keyPaths` limits which properties of its objects count as modifications.
    /// - Precondition: a managed map (Spec N18).
    public func observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil,
        _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        guard let binding else { throw Realm.Error.unmanagedObservation }  // Spec N18
        let core = binding.core
        try core.checkObservable()
        if try binding.isInvalidated() { throw Realm.Error.mapInvalidated }
        let targetInfo = binding.property.objectClassName.flatMap { core.knownClass(named: $0) }
        let paths =
            try targetInfo.map { info throws(Realm.Error) in try WatchedPaths.parse(keyPaths, info: info, core: core) }
            ?? .everything
        let token = core.makeNotifierToken()
        let map = self
        // The entries of the last two reads of the notifier (each delivery and each skip reads
        // once): an update compares the two, so a skipped commit is never reported twice.
        let reads = MapReads()
        let notifier = CollectionNotifier(
            subscription: token.subscription, schema: targetInfo?.schema, paths: paths,
            contents: { () throws(Realm.Error) -> CollectionContents in
                // An owner that is gone holds nothing: every key reads as removed.
                let flat = try binding.isInvalidated() ? [] : try binding.values()
                reads.rotate(to: flat)
                return try Self.elements(of: flat, targetInfo: targetInfo, core: core)
            },
            send: { change in
                switch change {
                case .initial:
                    block(.initial(map))
                case .update(_, _, _, let modifications):
                    let (removed, added, changed) = reads.keyChanges(objectModifications: modifications)
                    block(
                        .update(
                            map, deletions: Self.keys(removed), insertions: Self.keys(added),
                            modifications: Self.keys(changed)))
                case .error(let error):
                    block(.error(error))
                }
            })
        core.addNotifier(notifier)
        return token
    }

    /// Spec N18: like `observe(keyPaths:_:)`, with every callback on `queue` (a serial queue)
    /// carrying this map in the realm confined to that queue.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmMapChange<Map<Key, Value>>) -> Void
    ) -> NotificationToken {
        trapping { () throws(Realm.Error) -> NotificationToken in try _observe(keyPaths: keyPaths, on: queue, block) }
    }

    package func _observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmMapChange<Map<Key, Value>>) -> Void
    ) throws(Realm.Error) -> NotificationToken {
        guard let binding else { throw Realm.Error.unmanagedObservation }  // Spec N18
        let core = binding.core
        return try Strata.observe(
            self, on: queue, core: core,
            onError: { block(.error($0)) },
            register: { map throws(Realm.Error) in try map._observe(keyPaths: keyPaths, block) })
    }

    private static func keys(_ names: Set<String>) -> [Key] {
        names.sorted { SetOrder.sortsBefore(.string($0), .string($1)) }.map { Key(_strataKey: $0) }
    }

    /// The map's entries as the notifier compares them: each key, then its value (for objects,
    /// the object, so that a change to it is a modification at that odd index). The key-level
    /// change set is `MapReads.keyChanges`; this only has to change whenever an entry does.
    private static func elements(
        of flat: [StrataStorage.Value], targetInfo: ClassInfo?, core: RealmCore
    ) throws(Realm.Error) -> CollectionContents {
        var elements: [CollectionElement] = []
        elements.reserveCapacity(flat.count)
        let view = try targetInfo.map { _ throws(Realm.Error) in try core.view() }
        let table = targetInfo.flatMap { info in view?.table(named: info.className) }
        for index in 0..<(flat.count / 2) {
            elements.append(.value(flat[2 * index]))
            let stored = flat[2 * index + 1]
            guard case .link(let link) = stored, let view, let table else {
                elements.append(.value(stored))
                continue
            }
            let incarnation = try engine(core.path) { try view.incarnation(table, key: link.key) }
            elements.append(.object(ObjectIdentity(key: link.key, incarnation: incarnation ?? .keyIsIdentity)))
        }
        return CollectionContents(table: table, elements: elements)
    }
}

/// The stored entries of a map observer's last two reads (its notifier reads on its realm's
/// scheduler only).
final class MapReads {
    private var previous: [StrataStorage.Value] = []
    private var latest: [StrataStorage.Value] = []

    func rotate(to flat: [StrataStorage.Value]) {
        previous = latest
        latest = flat
    }

    /// The keys the last read removed, added, and changed: a value replaced, or (by the
    /// notifier's modifications, indices into the previous read's elements) an object changed.
    func keyChanges(objectModifications: [Int]) -> (removed: Set<String>, added: Set<String>, changed: Set<String>) {
        let old = Self.entries(previous)
        let new = Self.entries(latest)
        let oldKeys = Self.keys(previous)
        var removed = Set<String>()
        var changed = Set<String>()
        for (key, value) in old {
            guard let now = new[key] else {
                removed.insert(key)
                continue
            }
            if now != value { changed.insert(key) }
        }
        let added = Set(new.keys.filter { old[$0] == nil })
        for index in objectModifications where index / 2 < oldKeys.count {
            let key = oldKeys[index / 2]
            if new[key] != nil { changed.insert(key) }
        }
        return (removed, added, changed)
    }

    private static func entries(_ flat: [StrataStorage.Value]) -> [String: StrataStorage.Value] {
        var entries: [String: StrataStorage.Value] = [:]
        for index in 0..<(flat.count / 2) {
            if case .string(let key) = flat[2 * index] { entries[key] = flat[2 * index + 1] }
        }
        return entries
    }

    private static func keys(_ flat: [StrataStorage.Value]) -> [String] {
        (0..<(flat.count / 2)).compactMap { index in
            if case .string(let key) = flat[2 * index] { return key }
            return nil
        }
    }
}
