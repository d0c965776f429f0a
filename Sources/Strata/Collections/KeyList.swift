import StrataStorage

/// The keys of evaluated Results (`ResultsEvaluation`), in order: a range while they are
/// consecutive ascending keys, an array once they are not.
///
/// A table's keys are usually consecutive (objects inserted in key order, none deleted), so the
/// Results of a whole table, or of a query matching a run of objects, cost no memory per object:
/// a scan of a million objects holds two numbers, not eight megabytes of keys.
struct KeyList: RandomAccessCollection {
    private var first: Int64 = 0
    /// The number of keys while they are `first`, `first + 1`, ...; nil once `explicit` holds them.
    private var rangeCount: Int? = 0
    private var explicit: [ObjectKey] = []

    init() {}

    /// The keys of `range`.
    init(_ range: ClosedRange<ObjectKey>) {
        first = range.lowerBound.rawValue
        // The caller's range holds a table's objects: its size fits an Int.
        rangeCount = Int(clamping: range.upperBound.rawValue &- range.lowerBound.rawValue) &+ 1
    }

    /// The keys of `keys`, in that order.
    init(_ keys: [ObjectKey]) {
        rangeCount = nil
        explicit = keys
    }

    var startIndex: Int { 0 }
    var endIndex: Int { rangeCount ?? explicit.count }
    /// Said here: the collection default measures the distance between the indices, a call
    /// per iteration step.
    var count: Int { endIndex }

    @inline(__always)
    subscript(position: Int) -> ObjectKey {
        guard let rangeCount else { return explicit[position] }
        precondition(position >= 0 && position < rangeCount, "key index \(position) out of 0..<\(rangeCount)")
        return ObjectKey(first &+ Int64(position))
    }

    /// Appends `key`, keeping the range form while the keys stay consecutive.
    mutating func append(_ key: ObjectKey) {
        if let count = rangeCount {
            if count == 0 {
                first = key.rawValue
                rangeCount = 1
                return
            }
            if first.addingReportingOverflow(Int64(count)) == (key.rawValue, false) {
                rangeCount = count + 1
                return
            }
            explicit = (0..<count).map { ObjectKey(first &+ Int64($0)) }
            rangeCount = nil
        }
        explicit.append(key)
    }
}
