import StrataStorage

/// The order a managed `MutableSet` keeps its stored elements in, and when two are one element
/// (Spec V24), as realm-core's sets order theirs: null first; numbers by value (NaN before every
/// other number, and one NaN only); strings and data by their bytes (so canonically equivalent
/// spellings are two elements, as realm-core keeps them); dates by time; false before true;
/// links by table, then object key.
enum SetOrder {
    /// Whether `a` sorts before `b`.
    static func sortsBefore(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.link(let x), .link(let y)):
            if x.table != y.table { return x.table.rawValue < y.table.rawValue }
            return x.key.rawValue < y.key.rawValue
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return x.isNaN && !y.isNaN }
            return x < y
        default:
            return StoredOrder.sortsBefore(StoredOrder.distinctKey(a), StoredOrder.distinctKey(b))
        }
    }

    /// Where `value` is in `elements` (held in this order): its index and true when it is there,
    /// else the index it would be inserted at and false. A binary search: O(log n).
    static func position(of value: Value, in elements: [Value]) -> (index: Int, found: Bool) {
        var low = 0
        var high = elements.count
        while low < high {
            let middle = low + (high - low) / 2
            if sortsBefore(elements[middle], value) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        let found = low < elements.count && !sortsBefore(value, elements[low])
        return (low, found)
    }

    /// `elements` in this order, each once (the first of equal ones kept).
    static func normalized(_ elements: [Value]) -> [Value] {
        let sorted = elements.enumerated().sorted { lhs, rhs in
            if sortsBefore(lhs.element, rhs.element) { return true }
            if sortsBefore(rhs.element, lhs.element) { return false }
            return lhs.offset < rhs.offset
        }
        var unique: [Value] = []
        unique.reserveCapacity(sorted.count)
        for (_, element) in sorted {
            if let last = unique.last, !sortsBefore(last, element) { continue }
            unique.append(element)
        }
        return unique
    }
}
