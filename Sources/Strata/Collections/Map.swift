import StrataStorage

/// A key a `Map` can use: `String`, as in Realm.
public protocol _MapKey: Hashable, Sendable {
    /// The key as stored.
    var _strataKey: String { get }
    /// The key a stored key names.
    init(_strataKey: String)
}

extension String: _MapKey {
    public var _strataKey: String { self }
    public init(_strataKey: String) { self = _strataKey }
}

/// One entry of a `Map`, as iterating it gives them.
public struct SingleMapEntry<Key: _MapKey, Value: _RealmValue & SendableMetatype> {
    /// The entry's key.
    public var key: Key
    /// The entry's value.
    public var value: Value
}

/// A dictionary from string keys to values or optional objects: a property of an object
/// (`@Persisted var scores: Map<String, Int>`), or a standalone unmanaged map.
///
/// Its entries are kept in key order (Spec V25), managed or not. Managed, it is its owner's
/// column: live (V1), confined to the realm's context (C6), mutable only in a write (W9);
/// deleting an object a value names makes that value nil and keeps the key (W13).
public final class Map<Key: _MapKey, Value: _RealmValue & SendableMetatype>: Sequence, CustomStringConvertible {
    enum Backing {
        /// The entries in key order.
        case unmanaged([(key: String, value: Value)])
        case managed(ListBinding)
    }

    var backing: Backing

    /// An empty unmanaged map.
    public init() { backing = .unmanaged([]) }

    init(binding: ListBinding) { backing = .managed(binding) }

    var binding: ListBinding? {
        if case .managed(let binding) = backing { return binding }
        return nil
    }

    // MARK: reading

    /// The number of entries.
    ///
    /// Confinement: a managed map's realm context (Spec C6).
    public var count: Int { trapping { () throws(Realm.Error) -> Int in try _count() } }

    package func _count() throws(Realm.Error) -> Int {
        switch backing {
        case .unmanaged(let entries): return entries.count
        case .managed(let binding): return try binding.values().count / 2
        }
    }

    /// Whether the map has no entry.
    public var isEmpty: Bool { count == 0 }

    /// The keys, in key order.
    public var keys: [Key] {
        trapping { () throws(Realm.Error) -> [Key] in try entries().map { Key(_strataKey: $0.key) } }
    }

    /// The values, in key order.
    public var values: [Value] { trapping { () throws(Realm.Error) -> [Value] in try entries().map(\.value) } }

    /// The value for `key`, or nil when the map has none; setting nil removes the key
    /// (`updateValue(_:forKey:)` stores a nil value in a map of optionals).
    ///
    /// Confinement: a managed map's realm context (Spec C6); setting, in a write (Spec W9).
    public subscript(key: Key) -> Value? {
        get { trapping { () throws(Realm.Error) -> Value? in try _value(forKey: key) } }
        set {
            trapping { () throws(Realm.Error) in
                if let newValue { try _updateValue(newValue, forKey: key) } else { try _removeObject(for: key) }
            }
        }
    }

    package func _value(forKey key: Key) throws(Realm.Error) -> Value? {
        switch backing {
        case .unmanaged(let entries):
            return MapEntries.position(of: key._strataKey, in: entries).found.map { entries[$0].value }
        case .managed(let binding):
            let stored = try binding.values()
            guard let index = MapEntries.index(of: key._strataKey, in: stored) else { return nil }
            return try Value._strataDecode(stored[2 * index + 1], realm: Realm(core: binding.core))
        }
    }

    /// Every entry now, decoded once, in key order.
    package func entries() throws(Realm.Error) -> [(key: String, value: Value)] {
        switch backing {
        case .unmanaged(let entries): return entries
        case .managed(let binding):
            let stored = try binding.values()
            let realm = Realm(core: binding.core)
            var decoded: [(key: String, value: Value)] = []
            decoded.reserveCapacity(stored.count / 2)
            for index in 0..<(stored.count / 2) {
                guard case .string(let key) = stored[2 * index] else { continue }
                decoded.append((key, try Value._strataDecode(stored[2 * index + 1], realm: realm)))
            }
            return decoded
        }
    }

    /// Iterates over the entries as they are when iteration begins (Spec V15), in key order.
    public func makeIterator() -> IndexingIterator<[SingleMapEntry<Key, Value>]> {
        trapping { () throws(Realm.Error) -> IndexingIterator<[SingleMapEntry<Key, Value>]> in
            try entries().map { SingleMapEntry(key: Key(_strataKey: $0.key), value: $0.value) }.makeIterator()
        }
    }

    /// The entries as `(key, value)` tuples.
    public func asKeyValueSequence() -> [(key: Key, value: Value)] {
        trapping { () throws(Realm.Error) -> [(key: Key, value: Value)] in
            try entries().map { (Key(_strataKey: $0.key), $0.value) }
        }
    }

    /// Whether an entry satisfies `predicate`.
    public func contains(where predicate: (_ key: Key, _ value: Value) -> Bool) -> Bool {
        asKeyValueSequence().contains { predicate($0.key, $0.value) }
    }

    // MARK: mutating (Spec W9: managed maps only in a write)

    /// Sets the value for `key`, adding the key if the map lacks it; an unmanaged object
    /// stored in a managed map is added to the realm.
    ///
    /// Confinement: a managed map's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n) for a managed map (its entries are stored again).
    public func updateValue(_ value: Value, forKey key: Key) {
        trapping { () throws(Realm.Error) in try _updateValue(value, forKey: key) }
    }

    package func _updateValue(_ value: Value, forKey key: Key) throws(Realm.Error) {
        let name = key._strataKey
        switch backing {
        case .unmanaged(var entries):
            let place = MapEntries.position(of: name, in: entries)
            if let found = place.found {
                entries[found].value = value
            } else {
                entries.insert((name, value), at: place.index)
            }
            backing = .unmanaged(entries)
        case .managed(let binding):
            try binding.checkMutable()
            try MapEntries.checkKey(name)
            let encoded = try value._strataEncode(realm: Realm(core: binding.core))
            var stored = try binding.values()
            let place = MapEntries.position(of: name, in: stored)
            if let found = place.found {
                guard stored[2 * found + 1] != encoded else { return }
                stored[2 * found + 1] = encoded
            } else {
                stored.insert(contentsOf: [.string(name), encoded], at: 2 * place.index)
            }
            try binding.store(stored)
        }
    }

    /// Removes `key` and its value, if the map has it (an object stays in the realm).
    ///
    /// Confinement: a managed map's realm context (Spec C6), in a write (Spec W9).
    public func removeObject(for key: Key) { trapping { () throws(Realm.Error) in try _removeObject(for: key) } }

    package func _removeObject(for key: Key) throws(Realm.Error) {
        let name = key._strataKey
        switch backing {
        case .unmanaged(var entries):
            guard let found = MapEntries.position(of: name, in: entries).found else { return }
            entries.remove(at: found)
            backing = .unmanaged(entries)
        case .managed(let binding):
            try binding.checkMutable()
            var stored = try binding.values()
            guard let found = MapEntries.index(of: name, in: stored) else { return }
            if binding.core.file.bugs.contains(.mapRemoveKeepsKey) {
                stored[2 * found + 1] = .null
            } else {
                stored.removeSubrange((2 * found)...(2 * found + 1))
            }
            try binding.store(stored)
        }
    }

    /// Removes every entry (the objects stay in the realm).
    ///
    /// Confinement: a managed map's realm context (Spec C6), in a write (Spec W9).
    public func removeAll() { trapping { () throws(Realm.Error) in try _removeAll() } }

    package func _removeAll() throws(Realm.Error) {
        switch backing {
        case .unmanaged: backing = .unmanaged([])
        case .managed(let binding):
            try binding.checkMutable()
            guard try !binding.values().isEmpty else { return }
            try binding.store([])
        }
    }

    /// Merges the key-value pairs of `sequence`, `combine` deciding for a key the map has.
    public func merge<S: Sequence>(
        _ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value
    ) rethrows where S.Element == (key: Key, value: Value) {
        for (key, value) in sequence {
            if let existing = self[key] {
                self[key] = try combine(existing, value)
            } else {
                self[key] = value
            }
        }
    }

    /// Merges a Swift dictionary, `combine` deciding for a key the map has.
    public func merge(_ other: [Key: Value], uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.map { (key: $0.key, value: $0.value) }, uniquingKeysWith: combine)
    }

    /// Merges another map, `combine` deciding for a key this map has.
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.asKeyValueSequence(), uniquingKeysWith: combine)
    }

    /// Replaces every entry (assigning a map property).
    func replaceAll(with entries: [(key: String, value: Value)]) throws(Realm.Error) {
        switch backing {
        case .unmanaged:
            backing = .unmanaged([])
            for (key, value) in entries { try _updateValue(value, forKey: Key(_strataKey: key)) }
        case .managed(let binding):
            try binding.checkMutable()
            var flat: [StrataStorage.Value] = []
            for (key, value) in entries {
                try MapEntries.checkKey(key)
                flat.append(.string(key))
                flat.append(try value._strataEncode(realm: Realm(core: binding.core)))
            }
            try binding.store(MapEntries.normalized(flat))
        }
    }

    // MARK: state

    /// The realm of the owner; nil for an unmanaged map.
    public var realm: Realm? { binding.map { Realm(core: $0.core) } }

    /// Whether the owner was deleted or the realm invalidated (Spec V13).
    public var isInvalidated: Bool {
        guard let binding else { return false }
        return trapping { () throws(Realm.Error) -> Bool in try binding.isInvalidated() }
    }

    public var isFrozen: Bool { binding?.core.isFrozen ?? false }

    /// Realm's description: `Map<string, int> <0x…> (` then each entry, `[key]: value`.
    public var description: String {
        let kind = Value._strataKind
        let valueType = kind.objectType.map { ClassInfo.of($0).className } ?? kind.type.description
        let shown = ((try? entries()) ?? []).map { ($0.key, Optional<Any>.some($0.value)) }
        return ObjectDescription.describeMap(
            keyType: "string", valueType: valueType, identity: self, entries: shown, type: kind.type)
    }

    /// A frozen copy at the realm's current version (Spec F1, F5, F11).
    public func freeze() -> Map<Key, Value> { trapping { () throws(Realm.Error) -> Map<Key, Value> in try _freeze() } }

    package func _freeze() throws(Realm.Error) -> Map<Key, Value> {
        guard let binding else { throw Realm.Error.unmanagedMapOnly }
        let frozen = try binding.frozen()
        return frozen === binding ? self : Map(binding: frozen)
    }

    /// The same map on the live realm of the calling thread (Spec F8); nil when its owner does
    /// not exist there.
    public func thaw() -> Map<Key, Value>? { trapping { () throws(Realm.Error) -> Map<Key, Value>? in try _thaw() } }

    package func _thaw() throws(Realm.Error) -> Map<Key, Value>? {
        guard let binding else { throw Realm.Error.unmanagedMapOnly }
        guard let live = try binding.thawed() else { return nil }
        return live === binding ? self : Map(binding: live)
    }
}

/// The stored form of a managed map: `[key0, value0, key1, value1, …]`, keys distinct strings
/// in realm-core's string order (`SetOrder`), so a key is found by binary search.
enum MapEntries {
    /// Where `key` is among an unmanaged map's entries (ascending keys): its index if there, and
    /// the insertion point. A binary search that copies nothing.
    static func position<V>(of key: String, in entries: [(key: String, value: V)]) -> (index: Int, found: Int?) {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = low + (high - low) / 2
            if SetOrder.signedBytesPrecede(entries[middle].key.utf8, key.utf8) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return (low, low < entries.count && entries[low].key.utf8.elementsEqual(key.utf8) ? low : nil)
    }

    /// Where `key` is in the flat stored entries: its entry index if there, and the insertion
    /// point (in entries).
    static func position(of key: String, in stored: [Value]) -> (index: Int, found: Int?) {
        var low = 0
        var high = stored.count / 2
        while low < high {
            let middle = low + (high - low) / 2
            if SetOrder.sortsBefore(stored[2 * middle], .string(key)) { low = middle + 1 } else { high = middle }
        }
        let found = low < stored.count / 2 && stored[2 * low] == .string(key)
        return (low, found ? low : nil)
    }

    static func index(of key: String, in stored: [Value]) -> Int? { position(of: key, in: stored).found }

    /// Flat entries in key order, the last value of a repeated key kept.
    static func normalized(_ flat: [Value]) -> [Value] {
        var byKey: [String: Value] = [:]
        var order: [String] = []
        for index in 0..<(flat.count / 2) {
            guard case .string(let key) = flat[2 * index] else { continue }
            if byKey[key] == nil { order.append(key) }
            byKey[key] = flat[2 * index + 1]
        }
        let sorted = order.sorted { SetOrder.sortsBefore(.string($0), .string($1)) }
        var result: [Value] = []
        result.reserveCapacity(2 * sorted.count)
        for key in sorted {
            result.append(.string(key))
            result.append(byKey[key] ?? .null)
        }
        return result
    }

    /// realm-core's rule for dictionary keys (`Dictionary::insert`): none may start with '$' or
    /// contain '.'.
    static func checkKey(_ key: String) throws(Realm.Error) {
        if key.hasPrefix("$") { throw Realm.Error.misuse("Dictionary::insert: key must not start with '$'") }
        if key.contains(".") { throw Realm.Error.misuse("Dictionary::insert: key must not contain '.'") }
    }
}
