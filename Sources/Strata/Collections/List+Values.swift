import StrataStorage

// Lists of values: equality and search (`ListTests.testPrimitive`,
// `ListTests.testUnmanagedListComparison`).

extension List where Element: Equatable {
    /// The index of the first element equal to `value`; nil when there is none. (Lists of
    /// objects use the `Object` overload: the same stored object, not an equal one.)
    ///
    /// Confinement: a managed List's realm context (Spec C6).
    /// - Complexity: O(n).
    public func index(of value: Element) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in try elements().firstIndex(of: value) }
    }

    /// Whether `object` is a List equal to this one (RealmSwift's `isEqual(_:)`): two unmanaged
    /// Lists are equal when they hold equal elements in the same order; a managed List is equal
    /// only to a List of the same property of the same object, read through the same realm
    /// instance. A managed List never equals an unmanaged one.
    ///
    /// Confinement: an unmanaged List's elements are compared on any thread; managed Lists
    /// compare what they belong to and read nothing.
    /// - Complexity: O(n) for two unmanaged Lists, else O(1).
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? List<Element> else { return false }
        switch (backing, other.backing) {
        case (.unmanaged(let mine), .unmanaged(let theirs)):
            return mine == theirs
        case (.managed(let mine), .managed(let theirs)):
            return mine.core === theirs.core && mine.column == theirs.column
                && mine.parent.table.id == theirs.parent.table.id && mine.parent.identity == theirs.parent.identity
        default:
            return false
        }
    }
}

extension List: Equatable where Element: Equatable {
    /// `lhs.isEqual(rhs)`: equal elements for unmanaged Lists, the same property of the same
    /// object and realm instance for managed ones.
    ///
    /// - Complexity: O(n) for two unmanaged Lists, else O(1).
    public static func == (lhs: List<Element>, rhs: List<Element>) -> Bool { lhs.isEqual(rhs) }
}
