import Foundation
import StrataStorage

// The range and offset edits of a List (RealmSwift emulates RangeReplaceableCollection on List:
// `ListTests.testReplaceRange`, `testRemoveAtOffsets`, `testMoveFromOffsets`, and the
// `ListRRCMethodsTests`). Each edit stores a managed List once, after every check passed.

extension Realm.Error {
    /// RealmSwift's check of an index argument, made before anything is read.
    static func negativeIndex(parameter: String) -> Realm.Error {
        misuse("Cannot pass a negative value for '\(parameter)'.")
    }

    static func removingMoreThanCount(_ number: Int, count: Int) -> Realm.Error {
        misuse("It is not possible to remove more objects (\(number)) from a list than it already contains (\(count)).")
    }
}

/// One edit of a List's elements: the same steps on an unmanaged array and on stored values.
enum ListEdit {
    /// Replaces the range with the incoming elements.
    case replace(Range<Int>)
    /// Inserts the incoming elements at an index.
    case insert(at: Int)
    case removeFirst(Int)
    case removeLast(Int)
    /// Removes the elements at the offsets.
    case removeOffsets(IndexSet)
    /// RealmSwift's `move(fromOffsets:toOffset:)`: each offset, in ascending order, moves to
    /// the destination (one less when the destination is after it).
    case moveOffsets(IndexSet, to: Int)

    /// The checks of the arguments alone, made first (RealmSwift's `throwForNegativeIndex`).
    func checkArguments(incomingCount: Int) throws(Realm.Error) {
        switch self {
        case .replace(let range):
            if range.lowerBound < 0 && (!range.isEmpty || incomingCount > 0) {
                throw .negativeIndex(parameter: "index")
            }
        case .insert(let index):
            if index < 0 && incomingCount > 0 { throw .negativeIndex(parameter: "index") }
        case .removeFirst(let number), .removeLast(let number):
            if number < 0 { throw .negativeIndex(parameter: "index") }
        case .removeOffsets(let offsets):
            if let first = offsets.first, first < 0 { throw .negativeIndex(parameter: "index") }
        case .moveOffsets(let offsets, let destination):
            if let first = offsets.first, first < 0 || destination < 0 { throw .negativeIndex(parameter: "index") }
        }
    }

    /// Whether Realm checks the count before the write (removeFirst and removeLast do).
    var checksCountBeforeWrite: Bool {
        switch self {
        case .removeFirst, .removeLast: return true
        default: return false
        }
    }

    /// Whether the edit changes nothing whatever the List holds: RealmSwift then makes no
    /// further check (not even that of the write).
    func isNoOp(incomingCount: Int) -> Bool {
        switch self {
        case .replace(let range): return range.isEmpty && incomingCount == 0
        case .insert: return incomingCount == 0
        case .removeFirst(let number), .removeLast(let number): return number == 0
        case .removeOffsets(let offsets), .moveOffsets(let offsets, _): return offsets.isEmpty
        }
    }

    /// The checks against the List's current count.
    func checkBounds(count: Int, incomingCount: Int) throws(Realm.Error) {
        switch self {
        case .replace(let range):
            if range.isEmpty {
                guard range.lowerBound <= count else { throw .outOfBounds(index: range.lowerBound, count: count + 1) }
            } else {
                guard range.lowerBound < count else { throw .outOfBounds(index: range.lowerBound, count: count) }
                guard range.upperBound <= count else { throw .outOfBounds(index: range.upperBound - 1, count: count) }
            }
        case .insert(let index):
            guard index <= count else { throw .outOfBounds(index: index, count: count + 1) }
        case .removeFirst(let number), .removeLast(let number):
            guard number <= count else { throw .removingMoreThanCount(number, count: count) }
        case .removeOffsets(let offsets):
            if let last = offsets.last, last >= count { throw .outOfBounds(index: last, count: count) }
        case .moveOffsets(let offsets, let destination):
            for offset in offsets {
                let target = ListEdit.target(of: offset, destination)
                guard offset < count, target < count else {
                    throw .outOfBounds(index: Swift.max(offset, target), count: count)
                }
            }
        }
    }

    /// Applies the edit to `array`; the checks passed.
    func apply<T>(to array: inout [T], incoming: [T]) {
        switch self {
        case .replace(let range): array.replaceSubrange(range, with: incoming)
        case .insert(let index): array.insert(contentsOf: incoming, at: index)
        case .removeFirst(let number): array.removeFirst(number)
        case .removeLast(let number): array.removeLast(number)
        case .removeOffsets(let offsets):
            for offset in offsets.reversed() { array.remove(at: offset) }
        case .moveOffsets(let offsets, let destination):
            for offset in offsets {
                array.insert(array.remove(at: offset), at: ListEdit.target(of: offset, destination))
            }
        }
    }

    private static func target(of offset: Int, _ destination: Int) -> Int {
        destination > offset ? destination - 1 : destination
    }
}

extension List {
    /// Runs one edit: argument checks, then (for removeFirst / removeLast) the count, then the
    /// write checks of a managed List (Spec W9, F12), the bounds, and one store.
    func edit(_ edit: ListEdit, incoming: [Element] = []) throws(Realm.Error) {
        try edit.checkArguments(incomingCount: incoming.count)
        if edit.checksCountBeforeWrite {
            try edit.checkBounds(count: try _count(), incomingCount: incoming.count)
        }
        if edit.isNoOp(incomingCount: incoming.count) { return }
        switch backing {
        case .unmanaged(var elements):
            try edit.checkBounds(count: elements.count, incomingCount: incoming.count)
            edit.apply(to: &elements, incoming: incoming)
            backing = .unmanaged(elements)
        case .managed(let binding):
            try binding.checkMutable()
            var values = try binding.values()
            try edit.checkBounds(count: values.count, incomingCount: incoming.count)
            var encoded: [Value] = []
            for element in incoming { encoded.append(try encode(element, binding)) }
            edit.apply(to: &values, incoming: encoded)
            try binding.store(values)
        }
    }

    /// RealmSwift's check of an index argument: negative values are rejected before anything
    /// else, naming the parameter.
    static func checkNotNegative(_ index: Int, parameter: String = "index") throws(Realm.Error) {
        if index < 0 { throw .negativeIndex(parameter: parameter) }
    }

    // MARK: ranges

    /// The elements in `bounds` (get), or replaces them with a collection of any length (set).
    ///
    /// Confinement: a managed List's realm context (Spec C6); setting needs a write (Spec W9).
    /// - Complexity: get O(1) (the slice reads the List); set as `replaceSubrange(_:with:)`.
    public subscript(bounds: Range<Int>) -> Slice<List<Element>> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: newValue) }
    }

    /// Replaces the elements of `subrange` with `newElements` (the replaced objects stay in
    /// the realm).
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n + m), m the number of new elements.
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C)
    where C.Element == Element, R.Bound == Int {
        trapping { () throws(Realm.Error) in try _replaceSubrange(subrange, with: newElements) }
    }

    /// `replaceSubrange(_:with:)`, throwing: a negative bound, a range past the end, or the
    /// checks of a managed List's mutations.
    package func _replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C) throws(Realm
        .Error)
    where C.Element == Element, R.Bound == Int {
        let incoming = Array(newElements)  // before any change: the elements may be a slice of self
        let range = subrange.relative(to: 0..<(try _count()))
        try edit(.replace(range), incoming: incoming)
    }

    /// Removes the elements of `bounds` (the objects stay in the realm).
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n).
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        trapping { () throws(Realm.Error) in try _removeSubrange(bounds) }
    }

    /// `removeSubrange(_:)`, throwing.
    package func _removeSubrange<R: RangeExpression>(_ bounds: R) throws(Realm.Error) where R.Bound == Int {
        try _replaceSubrange(bounds, with: EmptyCollection<Element>())
    }

    /// Inserts `newElements` at `index`, in order. Inserting nothing checks nothing.
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n + m), m the number of new elements.
    public func insert<C: Collection>(contentsOf newElements: C, at index: Int) where C.Element == Element {
        trapping { () throws(Realm.Error) in try _insert(contentsOf: newElements, at: index) }
    }

    /// `insert(contentsOf:at:)`, throwing.
    package func _insert<C: Collection>(contentsOf newElements: C, at index: Int) throws(Realm.Error)
    where C.Element == Element {
        try edit(.insert(at: index), incoming: Array(newElements))
    }

    /// Removes the first `number` elements (the objects stay in the realm).
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n).
    public func removeFirst(_ number: Int = 1) {
        trapping { () throws(Realm.Error) in try _removeFirst(number) }
    }

    /// `removeFirst(_:)`, throwing: a negative `number`, or more than `count` ('It is not
    /// possible to remove more objects ...'), before the write checks.
    package func _removeFirst(_ number: Int = 1) throws(Realm.Error) {
        try edit(.removeFirst(number))
    }

    // MARK: offsets (SwiftUI's onDelete / onMove)

    /// Removes the elements at `offsets`. An empty set checks nothing.
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n).
    public func remove(atOffsets offsets: IndexSet) {
        trapping { () throws(Realm.Error) in try _remove(atOffsets: offsets) }
    }

    /// `remove(atOffsets:)`, throwing: an offset past the end.
    package func _remove(atOffsets offsets: IndexSet) throws(Realm.Error) {
        try edit(.removeOffsets(offsets))
    }

    /// Moves the elements at `offsets` to `destination`, as RealmSwift does: each offset, in
    /// ascending order, moves to `destination`, or to `destination - 1` when that is after it.
    ///
    /// Confinement: a managed List's realm context (Spec C6), in a write (Spec W9).
    /// - Complexity: O(n × offsets.count).
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        trapping { () throws(Realm.Error) in try _move(fromOffsets: offsets, toOffset: destination) }
    }

    /// `move(fromOffsets:toOffset:)`, throwing: an offset or destination past the end.
    package func _move(fromOffsets offsets: IndexSet, toOffset destination: Int) throws(Realm.Error) {
        try edit(.moveOffsets(offsets, to: destination))
    }
}
