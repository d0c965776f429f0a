import StrataStorage

/// The order a managed `MutableSet` keeps its stored elements in, and when two are one element
/// (Spec V24), as realm-core's sets order theirs: null first; numbers by value; strings and data
/// by their bytes compared as C `char`s, which are signed on the platforms Realm ships on (so a
/// byte from 0x80 sorts before ASCII, and canonically equivalent spellings are two elements);
/// dates by time; false before true; links by table, then object key. NaN, which realm-core's
/// plain `<` leaves unordered, is Strata's choice: before every other number, and one NaN only.
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
        case (.string(let x), .string(let y)):
            return signedBytesPrecede(x.utf8, y.utf8)
        case (.binary(let x), .binary(let y)):
            return signedBytesPrecede(x, y)
        default:
            return StoredOrder.sortsBefore(StoredOrder.distinctKey(a), StoredOrder.distinctKey(b))
        }
    }

    /// `std::lexicographical_compare` of two `const char` ranges where `char` is signed.
    static func signedBytesPrecede<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> Bool {
        a.lexicographicallyPrecedes(b) { Int8(bitPattern: $0) < Int8(bitPattern: $1) }
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
