import StrataStorage

/// A sort key of `Results.sorted(by:)`: the name of a property and a direction.
///
/// ```swift
/// let byAge: SortDescriptor = "age"                      // a string literal sorts ascending
/// realm.objects(Person.self).sorted(by: [byAge.reversed(), "name"])
/// ```
///
/// A plain value: Sendable, usable on any thread. Two descriptors are equal when they name the
/// same key path in the same direction (`SortDescriptorTests.testComparison`).
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name of the property the descriptor sorts by.
    public let keyPath: String
    /// Whether smaller values come first.
    public let ascending: Bool

    /// A descriptor sorting by `keyPath`, ascending unless told otherwise.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// A descriptor sorting by the property a Swift key path reads, through to-one links:
    /// `SortDescriptor(keyPath: \Person.dog?.age)` sorts by `"dog.age"`.
    public init<Root: Object, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        self.init(keyPath: QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Root.self)), ascending: ascending)
    }

    /// An ascending descriptor of the property a string literal names: `"age"`.
    public init(stringLiteral value: String) {
        self.init(keyPath: value)
    }

    /// The same key path in the other direction.
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }

    /// `SortDescriptor(keyPath: age, direction: ascending)`, as Realm prints it.
    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }
}

/// A checked sort key: the columns of the links to follow, then the column sorted by, and the
/// direction (`Results.sortColumns` makes it from a descriptor's key path).
struct SortPath: Sendable {
    let columns: [Int]
    let ascending: Bool

    /// The value `row` sorts by: the final column's value on the object the links reach; nil
    /// when a link on the way is null. realm-core's sorter puts such objects after all others
    /// ascending (even after a reached null), before them descending.
    func value(of row: RowView, in view: VersionView, tables: inout [TableID: TableInfo]?) throws -> Value? {
        guard let first = columns.first else { return .null }
        var value = first < row.columnCount ? try row.value(at: first) : .null
        for column in columns.dropFirst() {
            if tables == nil { tables = Dictionary(view.tables().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
            guard case .link(let link) = value, let table = tables?[link.table] else { return nil }
            guard
                let reached = try view.withRow(
                    table, key: link.key,
                    { target in
                        column < target.columnCount ? try target.value(at: column) : .null
                    })
            else { return nil }
            value = reached
        }
        return value
    }
}

/// One step of how Results order their objects, kept in the order the calls asked for them
/// (realm-core's `DescriptorOrdering`; Spec V22).
enum OrderingStep: Sendable {
    /// `sorted(by:)`: by these key paths, the first deciding first.
    case sort([SortPath])
    /// `distinct(by:)`: the first object of each combination of these key paths' values.
    case distinct([SortPath])

    var isDistinct: Bool {
        if case .distinct = self { return true }
        return false
    }

    /// The key paths whose values the step reads.
    var paths: [SortPath] {
        switch self {
        case .sort(let paths), .distinct(let paths): return paths
        }
    }
}

extension [OrderingStep] {
    /// The ordering with a sort by `paths` added, as realm-core's `DescriptorOrdering::append_sort`
    /// adds it: merged in front of a sort that was the last step (the new key paths decide
    /// first, the earlier ones break their ties), else a step of its own after a distinct.
    func sorting(by paths: [SortPath]) -> [OrderingStep] {
        guard !paths.isEmpty else { return self }
        var steps = self
        if case .sort(let earlier) = steps.last {
            steps[steps.count - 1] = .sort(paths + earlier)
        } else {
            steps.append(.sort(paths))
        }
        return steps
    }
}
