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
