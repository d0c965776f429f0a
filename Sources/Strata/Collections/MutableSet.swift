import StrataStorage

/// A set of distinct values or objects: a property of an object (`@Persisted var tags:
/// MutableSet<String>`), or a standalone unmanaged set.
///
/// Unmanaged, it holds its elements in the order they were first inserted. Managed, it is its
/// owner's column, kept distinct and in realm-core's set order (Spec V24): live (V1), confined
/// to the realm's context (C6), mutable only in a write (W9); a deleted object leaves every set
/// that held it (W13).
public final class MutableSet<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    /// The elements: an unmanaged List holding each once, or the managed List binding of the
    /// owner's column (the same storage and reads as a List's; only the writes differ).
    let storage: List<Element>

    /// An empty unmanaged set.
    public init() { storage = List() }

    init(storage: List<Element>) { self.storage = storage }

    var binding: ListBinding? { storage.binding }

    // MARK: reading

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of elements.
    ///
    /// Confinement: a managed set's realm context (Spec C6).
    public var count: Int { storage.count }

    package func _count() throws(Realm.Error) -> Int { try storage._count() }

    package func _element(at index: Int) throws(Realm.Error) -> Element { try storage._element(at: index) }

    /// The element at `position` in the set's order (Spec V24 for a managed set).
    public subscript(position: Int) -> Element { storage[position] }

    /// Iterates over the elements as they are when iteration begins (Spec V15).
    public func makeIterator() -> IndexingIterator<[Element]> { storage.makeIterator() }

    /// Every element now, decoded once.
    func elements() throws(Realm.Error) -> [Element] { try storage.elements() }

    /// Whether the set holds `element`: an equal value, or the very object (a managed object of
    /// the set's realm; an unmanaged object only in an unmanaged set that holds that instance).
    ///
    /// Confinement: a managed set's realm context (Spec C6).
    /// - Complexity: O(log n) for a managed set, O(n) for an unmanaged one.
    public func contains(_ element: Element) -> Bool {
        trapping { () throws(Realm.Error) -> Bool in try _contains(element) }
    }

    package func _contains(_ element: Element) throws(Realm.Error) -> Bool {
        switch storage.backing {
        case .unmanaged(let elements):
            return try Self.firstPosition(of: element, in: elements) != nil
        case .managed(let binding):
            let values = try binding.values()
            guard let value = try storedForm(of: element, in: binding) else { return false }
            return SetOrder.position(of: value, in: values).found
        }
    }

    /// Whether every element of this set is in `other`.
    ///
    /// Confinement: both sets' realm context (Spec C6).
    public func isSubset(of other: MutableSet<Element>) -> Bool {
        trapping { () throws(Realm.Error) -> Bool in try _isSubset(of: other) }
    }

    package func _isSubset(of other: MutableSet<Element>) throws(Realm.Error) -> Bool {
        let theirs = try operand(other)
        for mine in try elements() where try !theirs.holds(mine) { return false }
        return true
    }

    /// Whether this set and `other` have an element in common.
    ///
    /// Confinement: both sets' realm context (Spec C6).
    public func intersects(_ other: MutableSet<Element>) -> Bool {
        trapping { () throws(Realm.Error) -> Bool in try _intersects(other) }
    }

    package func _intersects(_ other: MutableSet<Element>) throws(Realm.Error) -> Bool {
        let theirs = try operand(other)
        for mine in try elements() where try theirs.holds(mine) { return true }
        return false
    }

    // MARK: mutating (Spec W9: managed sets only in a write)

    /// Inserts `element` unless the set holds it; an unmanaged object inserted into a managed
    /// set is added to the realm.
    ///
    /// Confinement: a managed set's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n) for a managed set (its elements are stored again when one is new).
    public func insert(_ element: Element) { trapping { () throws(Realm.Error) in try _insert(element) } }

    package func _insert(_ element: Element) throws(Realm.Error) {
        switch storage.backing {
        case .unmanaged(var elements):
            guard try !_contains(element) else { return }
            elements.append(element)
            storage.backing = .unmanaged(elements)
        case .managed(let binding):
            try binding.checkMutable()
            let value = try storage.encode(element, binding)
            var values = try binding.values()
            let place = SetOrder.position(of: value, in: values)
            guard !place.found || binding.core.file.bugs.contains(.setKeepsDuplicates) else { return }
            values.insert(value, at: place.index)
            try binding.store(values)
        }
    }

    /// Inserts each element of `elements` the set does not hold.
    ///
    /// Confinement: a managed set's realm context (Spec C6), in a write (Spec W9).
    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        trapping { () throws(Realm.Error) in try _insert(objectsIn: elements) }
    }

    /// Each element inserted in turn, as RealmSwift's loop of `add` (nothing is checked for an
    /// empty sequence).
    package func _insert<S: Sequence>(objectsIn elements: S) throws(Realm.Error) where S.Element == Element {
        for element in elements { try _insert(element) }
    }

    /// Removes `element` if the set holds it (an object stays in the realm).
    ///
    /// Confinement: a managed set's realm context (Spec C6), in a write (Spec W9).
    public func remove(_ element: Element) { trapping { () throws(Realm.Error) in try _remove(element) } }

    package func _remove(_ element: Element) throws(Realm.Error) {
        switch storage.backing {
        case .unmanaged(var elements):
            guard let index = try Self.firstPosition(of: element, in: elements) else { return }
            elements.remove(at: index)
            storage.backing = .unmanaged(elements)
        case .managed(let binding):
            try binding.checkMutable()
            var values = try binding.values()
            guard let value = try storedForm(of: element, in: binding) else { return }
            let place = SetOrder.position(of: value, in: values)
            guard place.found else { return }
            values.remove(at: place.index)
            try binding.store(values)
        }
    }

    /// Removes every element (the objects stay in the realm).
    ///
    /// Confinement: a managed set's realm context (Spec C6), in a write (Spec W9).
    public func removeAll() { trapping { () throws(Realm.Error) in try _removeAll() } }

    package func _removeAll() throws(Realm.Error) {
        switch storage.backing {
        case .unmanaged: storage.backing = .unmanaged([])
        case .managed(let binding):
            try binding.checkMutable()
            guard try !binding.values().isEmpty else { return }
            try binding.store([])
        }
    }

    /// Keeps only the elements `other` holds too.
    ///
    /// Confinement: both sets' realm context (Spec C6); a managed set in a write (Spec W9).
    public func formIntersection(_ other: MutableSet<Element>) {
        trapping { () throws(Realm.Error) in try _formIntersection(other) }
    }

    package func _formIntersection(_ other: MutableSet<Element>) throws(Realm.Error) {
        let theirs = try operand(other, mutating: "intersectSet")
        try replace { mine throws(Realm.Error) in try theirs.split(mine).held }
    }

    /// Inserts every element of `other` this set does not hold.
    ///
    /// Confinement: both sets' realm context (Spec C6); a managed set in a write (Spec W9).
    public func formUnion(_ other: MutableSet<Element>) {
        trapping { () throws(Realm.Error) in try _formUnion(other) }
    }

    package func _formUnion(_ other: MutableSet<Element>) throws(Realm.Error) {
        _ = try operand(other, mutating: "unionSet")
        let added = try other.elements()
        if binding != nil {
            try replace { mine throws(Realm.Error) in mine + added }
        } else {
            for element in added { try _insert(element) }
        }
    }

    /// Removes every element `other` holds.
    ///
    /// Confinement: both sets' realm context (Spec C6); a managed set in a write (Spec W9).
    public func subtract(_ other: MutableSet<Element>) {
        trapping { () throws(Realm.Error) in try _subtract(other) }
    }

    package func _subtract(_ other: MutableSet<Element>) throws(Realm.Error) {
        let theirs = try operand(other, mutating: "minusSet")
        try replace { mine throws(Realm.Error) in try theirs.split(mine).notHeld }
    }

    /// Replaces every element (assigning a set property); repeated elements are kept once.
    func replaceAll(with elements: [Element]) throws(Realm.Error) {
        switch storage.backing {
        case .unmanaged:
            storage.backing = .unmanaged([])
            for element in elements { try _insert(element) }
        case .managed(let binding):
            try binding.checkMutable()
            var encoded: [Value] = []
            encoded.reserveCapacity(elements.count)
            for element in elements { encoded.append(try storage.encode(element, binding)) }
            try binding.store(SetOrder.normalized(encoded))
        }
    }

    // MARK: state

    /// The realm of the owner; nil for an unmanaged set.
    public var realm: Realm? { storage.realm }

    /// Whether the owner was deleted or the realm invalidated (Spec V13).
    public var isInvalidated: Bool { storage.isInvalidated }

    public var isFrozen: Bool { storage.isFrozen }

    /// Realm's description: `MutableSet<string> <0x…> (` then each element, one a line.
    public var description: String {
        let kind = Element._strataKind
        let elementType = kind.objectType.map { ClassInfo.of($0).className } ?? kind.type.description
        let shown: [Any?] = ((try? elements()) ?? []).map { $0 }
        return ObjectDescription.describeCollection(
            "MutableSet", elementType: elementType, identity: self,
            elements: shown, type: kind.type)
    }

    /// A frozen copy at the realm's current version (Spec F1, F5, F11).
    public func freeze() -> MutableSet<Element> {
        trapping { () throws(Realm.Error) -> MutableSet<Element> in try _freeze() }
    }

    package func _freeze() throws(Realm.Error) -> MutableSet<Element> {
        guard binding != nil else { throw Realm.Error.unmanagedSetOnly }
        let frozen = try storage._freeze()
        return frozen === storage ? self : MutableSet(storage: frozen)
    }

    /// The same set on the live realm of the calling thread, at that realm's version (Spec F8);
    /// nil when its owner does not exist there.
    public func thaw() -> MutableSet<Element>? {
        trapping { () throws(Realm.Error) -> MutableSet<Element>? in try _thaw() }
    }

    package func _thaw() throws(Realm.Error) -> MutableSet<Element>? {
        guard binding != nil else { throw Realm.Error.unmanagedSetOnly }
        guard let live = try storage._thaw() else { return nil }
        return live === storage ? self : MutableSet(storage: live)
    }

    // MARK: helpers

    /// Whether two elements are one element of a set: the same object (`isSameObject(as:)`), or
    /// values with one stored form (Spec V24's equality).
    static func same(_ a: Element, _ b: Element) throws(Realm.Error) -> Bool {
        if let left = a as? Object { return try left._isSameObject(as: b as? Object) }
        let x = try a._strataEncode(realm: nil)
        let y = try b._strataEncode(realm: nil)
        return !SetOrder.sortsBefore(x, y) && !SetOrder.sortsBefore(y, x)
    }

    /// The position of the first of `elements` that is one element with `element`.
    static func firstPosition(of element: Element, in elements: [Element]) throws(Realm.Error) -> Int? {
        for (index, existing) in elements.enumerated() where try same(existing, element) { return index }
        return nil
    }

    /// How `element` is stored in the managed set `binding` names, without adding anything to
    /// the realm; nil when no element of that set can be it (an unmanaged object, or one of
    /// another realm instance). A deleted or invalidated object of the set's realm is refused,
    /// as RLMAccessorContext refuses it ("Object has been deleted or invalidated.").
    private func storedForm(of element: Element, in binding: ListBinding) throws(Realm.Error) -> Value? {
        guard let object = element as? Object else { return try element._strataEncode(realm: nil) }
        guard let accessor = object._accessor, accessor.core === binding.core else { return nil }
        if try accessor.isInvalidated() { throw Realm.Error.objectInvalidated }
        return .link(Link(table: accessor.table.id, key: accessor.key))
    }

    /// The other side of a set operation, checked as RLMManagedSet checks it: a managed set's
    /// operand must be a managed set of the same realm instance, and a mutating operation needs
    /// the realm in a write (RLMManagedSet's message names its Objective-C method). A set is
    /// always a valid operand of itself.
    private func operand(_ other: MutableSet<Element>, mutating method: String? = nil) throws(Realm.Error)
        -> SetOperand<Element>
    {
        guard let binding else { return try SetOperand(other) }
        guard let theirs = other.binding else { throw Realm.Error.setOperandUnmanaged }
        guard theirs.core === binding.core else { throw Realm.Error.setsOfDifferentRealms }
        if let method {
            try binding.core.checkThread()
            guard binding.core.write != nil else { throw Realm.Error.setOperationOutsideWrite("[RLMSet \(method):]") }
        }
        return try SetOperand(other)
    }

    /// Stores what `change` makes of the current elements, as the set's elements; a managed
    /// set whose elements stay the same is not written (so no change is notified).
    private func replace(_ change: ([Element]) throws(Realm.Error) -> [Element]) throws(Realm.Error) {
        guard let binding else {
            try replaceAll(with: try change(try elements()))
            return
        }
        try binding.checkMutable()
        let after = try change(try elements())
        var encoded: [Value] = []
        encoded.reserveCapacity(after.count)
        for element in after { encoded.append(try storage.encode(element, binding)) }
        let normalized = SetOrder.normalized(encoded)
        if normalized == (try binding.values()) { return }
        try binding.store(normalized)
    }
}

/// The other set of a set operation: membership by the set's own `contains` when it is managed
/// (a binary search, Spec V24), else against its elements read once.
struct SetOperand<Element: RealmCollectionValue> {
    let set: MutableSet<Element>
    let unmanagedElements: [Element]?

    init(_ set: MutableSet<Element>) throws(Realm.Error) {
        self.set = set
        unmanagedElements = set.binding == nil ? try set.elements() : nil
    }

    /// Whether the operand holds `element`.
    func holds(_ element: Element) throws(Realm.Error) -> Bool {
        guard let unmanagedElements else { return try set._contains(element) }
        return try MutableSet.firstPosition(of: element, in: unmanagedElements) != nil
    }

    /// `elements` parted into those the operand holds and the others, each in its order.
    func split(_ elements: [Element]) throws(Realm.Error) -> (held: [Element], notHeld: [Element]) {
        var held: [Element] = []
        var notHeld: [Element] = []
        for element in elements {
            if try holds(element) { held.append(element) } else { notHeld.append(element) }
        }
        return (held, notHeld)
    }
}

extension Realm.Error {
    /// A mutating set operation of a managed set outside a write (RLMManagedSet's
    /// `ensureInWriteTransaction`).
    static func setOperationOutsideWrite(_ method: String) -> Realm.Error {
        misuse(
            "Can only perform \(method) in a Realm in a write transaction - call beginWriteTransaction on an RLMRealm instance first."
        )
    }
}
