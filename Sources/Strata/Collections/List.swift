import StrataStorage

/// An ordered list of values or objects: a property of an object (`@Persisted var dogs:
/// List<Dog>`), or a standalone unmanaged list.
///
/// Unmanaged, it is a plain array. Managed, it reads and writes its owner's column: live
/// (Spec V1), confined to the realm's context (Spec C6), mutable only in a write (Spec W9).
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection,
    CustomStringConvertible
{
    enum Backing {
        case unmanaged([Element])
        case managed(ListBinding)
    }

    var backing: Backing

    /// An empty unmanaged list.
    public init() { backing = .unmanaged([]) }

    init(binding: ListBinding) { backing = .managed(binding) }

    var binding: ListBinding? {
        if case .managed(let binding) = backing { return binding }
        return nil
    }

    // MARK: reading

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public var count: Int { trapping { () throws(Realm.Error) -> Int in try _count() } }

    package func _count() throws(Realm.Error) -> Int {
        switch backing {
        case .unmanaged(let elements): return elements.count
        case .managed(let binding): return try binding.values().count
        }
    }

    public subscript(position: Int) -> Element {
        get { trapping { () throws(Realm.Error) -> Element in try _element(at: position) } }
        set { trapping { () throws(Realm.Error) in try _replace(index: position, with: newValue) } }
    }

    package func _element(at index: Int) throws(Realm.Error) -> Element {
        try Self.checkNotNegative(index)
        switch backing {
        case .unmanaged(let elements):
            guard index >= 0 && index < elements.count else {
                throw Realm.Error.outOfBounds(index: index, count: elements.count)
            }
            return elements[index]
        case .managed(let binding):
            let values = try binding.values()
            guard index >= 0 && index < values.count else {
                throw Realm.Error.outOfBounds(index: index, count: values.count)
            }
            return try Element._strataDecode(values[index], realm: Realm(core: binding.core))
        }
    }

    /// Every element now, decoded once.
    func elements() throws(Realm.Error) -> [Element] {
        switch backing {
        case .unmanaged(let elements): return elements
        case .managed(let binding):
            var decoded: [Element] = []
            let realm = Realm(core: binding.core)
            for value in try binding.values() { decoded.append(try Element._strataDecode(value, realm: realm)) }
            return decoded
        }
    }

    /// Iterates over the elements as they are when iteration begins (Spec V15).
    public func makeIterator() -> IndexingIterator<[Element]> {
        trapping { () throws(Realm.Error) -> IndexingIterator<[Element]> in try elements().makeIterator() }
    }

    // MARK: mutating (Spec W9: managed Lists only in a write)

    private func mutate(_ change: (inout [Value]) throws(Realm.Error) -> Void) throws(Realm.Error) {
        guard case .managed(let binding) = backing else { preconditionFailure("managed lists only") }
        try binding.checkMutable()
        var values = try binding.values()
        try change(&values)
        try binding.store(values)
    }

    func encode(_ element: Element, _ binding: ListBinding) throws(Realm.Error) -> Value {
        try element._strataEncode(realm: Realm(core: binding.core))
    }

    /// Appends `element`; an unmanaged object appended to a managed List is added to the realm.
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n) for a managed List (lists are stored inline, so its elements are
    ///   stored again); amortized O(1) for an unmanaged one.
    public func append(_ element: Element) { trapping { () throws(Realm.Error) in try _append(element) } }

    package func _append(_ element: Element) throws(Realm.Error) {
        switch backing {
        case .unmanaged(var elements):
            elements.append(element)
            backing = .unmanaged(elements)
        case .managed(let binding):
            try binding.checkMutable()
            let value = try encode(element, binding)
            try mutate { values throws(Realm.Error) in values.append(value) }
        }
    }

    /// Appends every element of `elements`, in order.
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n · m) for a managed List of n elements gaining m.
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        trapping { () throws(Realm.Error) in try _append(objectsIn: elements) }
    }

    package func _append<S: Sequence>(objectsIn elements: S) throws(Realm.Error) where S.Element == Element {
        if case .managed(let binding) = backing { try binding.checkMutable() }
        for element in elements { try _append(element) }
    }

    /// Inserts `element` at `index` (0...count); traps with Realm's out-of-bounds message for
    /// any other index.
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n).
    public func insert(_ element: Element, at index: Int) {
        trapping { () throws(Realm.Error) in try _insert(element, at: index) }
    }

    package func _insert(_ element: Element, at index: Int) throws(Realm.Error) {
        try Self.checkNotNegative(index)
        switch backing {
        case .unmanaged(var elements):
            guard index >= 0 && index <= elements.count else {
                throw Realm.Error.outOfBounds(index: index, count: elements.count + 1)
            }
            elements.insert(element, at: index)
            backing = .unmanaged(elements)
        case .managed(let binding):
            try binding.checkMutable()
            let count = try binding.values().count
            guard index >= 0 && index <= count else { throw Realm.Error.outOfBounds(index: index, count: count + 1) }
            let value = try encode(element, binding)
            try mutate { values throws(Realm.Error) in values.insert(value, at: index) }
        }
    }

    /// Removes and returns the element at `index` (the object itself stays in the realm);
    /// traps with Realm's out-of-bounds message for an index outside 0..<count.
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n).
    @discardableResult
    public func remove(at index: Int) -> Element {
        trapping { () throws(Realm.Error) -> Element in try _remove(at: index) }
    }

    @discardableResult
    package func _remove(at index: Int) throws(Realm.Error) -> Element {
        try Self.checkNotNegative(index)
        switch backing {
        case .unmanaged(var elements):
            guard index >= 0 && index < elements.count else {
                throw Realm.Error.outOfBounds(index: index, count: elements.count)
            }
            let removed = elements.remove(at: index)
            backing = .unmanaged(elements)
            return removed
        case .managed(let binding):
            try binding.checkMutable()
            let removed = try _element(at: index)
            try mutate { values throws(Realm.Error) in values.remove(at: index) }
            return removed
        }
    }

    /// Removes the last `number` elements (the objects stay in the realm).
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n) for a managed List (its elements are stored again).
    public func removeLast(_ number: Int = 1) {
        trapping { () throws(Realm.Error) in try _removeLast(number) }
    }

    /// `removeLast(_:)`, throwing: a negative `number`, or more than `count` ('It is not
    /// possible to remove more objects ...'), before the write checks (`ListTests.testRemoveLast`).
    package func _removeLast(_ number: Int = 1) throws(Realm.Error) {
        try edit(.removeLast(number))
    }

    /// Removes every element (the objects stay in the realm).
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n) for a managed List.
    public func removeAll() { trapping { () throws(Realm.Error) in try _removeAll() } }

    package func _removeAll() throws(Realm.Error) {
        switch backing {
        case .unmanaged: backing = .unmanaged([])
        case .managed: try mutate { values throws(Realm.Error) in values.removeAll() }
        }
    }

    /// Moves the element at `from` to `to`.
    public func move(from: Int, to: Int) { trapping { () throws(Realm.Error) in try _move(from: from, to: to) } }

    package func _move(from: Int, to: Int) throws(Realm.Error) {
        try Self.checkNotNegative(from)
        try Self.checkNotNegative(to)
        switch backing {
        case .unmanaged(var elements):
            guard elements.indices.contains(from), elements.indices.contains(to) else {
                throw Realm.Error.outOfBounds(index: Swift.max(from, to), count: elements.count)
            }
            elements.insert(elements.remove(at: from), at: to)
            backing = .unmanaged(elements)
        case .managed:
            try mutate { values throws(Realm.Error) in
                guard values.indices.contains(from), values.indices.contains(to) else {
                    throw Realm.Error.outOfBounds(index: Swift.max(from, to), count: values.count)
                }
                values.insert(values.remove(at: from), at: to)
            }
        }
    }

    public func swapAt(_ i: Int, _ j: Int) { trapping { () throws(Realm.Error) in try _swapAt(i, j) } }

    package func _swapAt(_ i: Int, _ j: Int) throws(Realm.Error) {
        try Self.checkNotNegative(i, parameter: "index1")
        try Self.checkNotNegative(j, parameter: "index2")
        switch backing {
        case .unmanaged(var elements):
            guard elements.indices.contains(i), elements.indices.contains(j) else {
                throw Realm.Error.outOfBounds(index: Swift.max(i, j), count: elements.count)
            }
            elements.swapAt(i, j)
            backing = .unmanaged(elements)
        case .managed:
            try mutate { values throws(Realm.Error) in
                guard values.indices.contains(i), values.indices.contains(j) else {
                    throw Realm.Error.outOfBounds(index: Swift.max(i, j), count: values.count)
                }
                values.swapAt(i, j)
            }
        }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) { self[index] = object }

    package func _replace(index: Int, with element: Element) throws(Realm.Error) {
        try Self.checkNotNegative(index)
        switch backing {
        case .unmanaged(var elements):
            guard elements.indices.contains(index) else {
                throw Realm.Error.outOfBounds(index: index, count: elements.count)
            }
            elements[index] = element
            backing = .unmanaged(elements)
        case .managed(let binding):
            try binding.checkMutable()
            let count = try binding.values().count
            guard index >= 0 && index < count else { throw Realm.Error.outOfBounds(index: index, count: count) }
            let value = try encode(element, binding)
            try mutate { values throws(Realm.Error) in values[index] = value }
        }
    }

    /// Replaces every element (assigning a List property).
    func replaceAll(with elements: [Element]) throws(Realm.Error) {
        switch backing {
        case .unmanaged: backing = .unmanaged(elements)
        case .managed(let binding):
            try binding.checkMutable()
            var encoded: [Value] = []
            for element in elements { encoded.append(try encode(element, binding)) }
            try binding.store(encoded)
        }
    }

    // MARK: state

    /// The realm of the owner; nil for an unmanaged List.
    public var realm: Realm? { binding.map { Realm(core: $0.core) } }

    /// Whether the owner was deleted or the realm invalidated (Spec V13).
    public var isInvalidated: Bool {
        guard let binding else { return false }
        return trapping { () throws(Realm.Error) -> Bool in try binding.isInvalidated() }
    }

    public var isFrozen: Bool { binding?.core.isFrozen ?? false }

    /// Realm's description: `List<string> <0x…> (` then each element, one a line.
    public var description: String {
        let kind = Element._strataKind
        let elementType = kind.objectType.map { ClassInfo.of($0).className } ?? kind.type.description
        let shown: [Any?] = ((try? elements()) ?? []).map { $0 }
        return ObjectDescription.describeCollection(
            "List", elementType: elementType, identity: self,
            elements: shown, type: kind.type)
    }

    /// A frozen copy at the realm's current version (Spec F1, F5, F11).
    public func freeze() -> List<Element> { trapping { () throws(Realm.Error) -> List<Element> in try _freeze() } }

    package func _freeze() throws(Realm.Error) -> List<Element> {
        guard let binding else { throw Realm.Error.unmanagedListOnly }
        let frozen = try binding.frozen()
        return frozen === binding ? self : List(binding: frozen)
    }

    /// The same List on the live realm of the calling thread, at that realm's version
    /// (Spec F8); nil when its owner does not exist there.
    public func thaw() -> List<Element>? { trapping { () throws(Realm.Error) -> List<Element>? in try _thaw() } }

    package func _thaw() throws(Realm.Error) -> List<Element>? {
        guard let binding else { throw Realm.Error.unmanagedListOnly }
        guard let live = try binding.thawed() else { return nil }
        return live === binding ? self : List(binding: live)
    }
}

extension List where Element: Object {
    /// The List's objects matching `isIncluded`, in list order.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in
            guard let binding else { throw Realm.Error.unmanagedListOnly }
            _ = try binding.values()
            let info = try binding.core.classInfo(Element.self)
            let predicate = isIncluded(Query<Element>(.root(info))).predicate
            return Results(core: binding.core, info: info, source: .list(binding), predicate: predicate)
        }
    }

    /// The same as `where`.
    public func filter(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> { self.where(isIncluded) }

    /// The index of `object` in the List.
    public func index(of object: Element) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in
            guard let binding else { return elementsIdentity(object) }
            guard let accessor = object._accessor, accessor.core === binding.core else { return nil }
            // Spec W12: an accessor of a deleted object is in no List (links to it are gone).
            guard try !accessor.isInvalidated() else { return nil }
            return try binding.linkKeys(orEmptyIfInvalid: false).firstIndex(of: accessor.key)
        }
    }

    private func elementsIdentity(_ object: Element) -> Int? {
        guard case .unmanaged(let elements) = backing else { return nil }
        return elements.firstIndex { $0 === object }
    }
}

extension List: RealmCollectionBase where Element: Object {
    /// An unmanaged List is deleted object by object, as any sequence (RLMRealm's
    /// `deleteObjects:` enumerates what has no `deleteObjectsFromRealm`).
    var isManagedCollection: Bool { binding != nil }

    /// Spec W11, W9: `-[RLMRealm deleteObjects:]`, then realm-core's `List::delete_all`.
    func checkDeletable(by core: RealmCore) throws(Realm.Error) {
        try core.checkThread()  // a write: W11, W9 decide, not F6
        guard let binding else { throw Realm.Error.deleteUnmanaged }
        guard binding.core === core else { throw Realm.Error.deleteCollectionFromOtherRealm }
        guard core.write != nil else { throw binding.outsideWriteError }
    }

    func targetKeys() throws(Realm.Error) -> [(TableInfo, ObjectKey)] {
        guard let binding else { return [] }
        let info = try binding.core.classInfo(Element.self)
        let view = try binding.core.view()
        guard let table = view.table(named: info.className) else { return [] }
        return try binding.linkKeys(orEmptyIfInvalid: false).map { (table, $0) }
    }
}

/// A collection an object holds in a wrapper, made managed in place when the object is added.
protocol ManagedAdoptable: AnyObject {
    func adopt(parent: _ObjectAccessor, column: Int)
}

extension List: ManagedAdoptable {
    func adopt(parent: _ObjectAccessor, column: Int) {
        backing = .managed(ListBinding(parent: parent, column: column))
    }
}

extension List: AnyListConvertible {
    func anyElements() throws(Realm.Error) -> [Any?] { try elements().map { $0 } }
}

// MARK: Lists as properties

extension List: _RealmValue, _Persistable {
    public static var _strataKind: _PropertyKind {
        var kind = Element._strataKind
        kind.isList = true
        return kind
    }

    public static func _strataDefault() -> List<Element> { List() }

    public static func _strataDecode(_ value: Value, realm: Realm?) throws(Realm.Error) -> List<Element> {
        guard case .list(let values) = value else { throw Realm.Error(.fail, "stored value \(value) is not a list") }
        let list = List()
        var elements: [Element] = []
        for value in values { elements.append(try Element._strataDecode(value, realm: realm)) }
        list.backing = .unmanaged(elements)
        return list
    }

    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> Value {
        var encoded: [Value] = []
        for element in try elements() { encoded.append(try element._strataEncode(realm: realm)) }
        return .list(encoded)
    }

    /// A managed object's List property: a live List over its column; the same instance on
    /// every read of a live object.
    public static func _strataGet(
        _ accessor: _ObjectAccessor, column: Int,
        cache: inout AnyObject?
    ) throws(Realm.Error) -> List<Element> {
        try accessor.core.checkAccess()
        if let cached = cache as? List<Element>, cached.binding?.parent === accessor { return cached }
        let list = List(binding: ListBinding(parent: accessor, column: column))
        if !accessor.isFrozen { cache = list }
        return list
    }

    /// Assigning a List property replaces its elements.
    public static func _strataSet(_ value: List<Element>, _ accessor: _ObjectAccessor, column: Int) throws(Realm.Error)
    {
        let target = List(binding: ListBinding(parent: accessor, column: column))
        try target.replaceAll(with: try value.elements())
    }
}
