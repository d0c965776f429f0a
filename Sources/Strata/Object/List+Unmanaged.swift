// Lists as property values of unmanaged objects: built from dynamic values (`init(value:)`,
// `setValue(_:forKey:)`), and filled in place when the property is assigned.

extension List {
    /// A new unmanaged List holding the elements `any` gives (a List, Results or array; nil
    /// and NSNull give none), each converted as the element type takes dynamic values.
    public static func _strataUnmanaged(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error) -> List<Element> {
        var elements: [Element] = []
        for element in try AnyValue.listElements(any, path) {
            elements.append(try Element._strataUnmanaged(element, path))
        }
        let list = List()
        list.backing = .unmanaged(elements)
        return list
    }
}

extension List {
    /// A List property's value is the instance its wrapper keeps.
    public static var _strataKeepsInstance: Bool { true }

    /// Assigning an unmanaged List property fills the List the object holds
    /// (`assignContents(of:)`); a managed List there is replaced.
    public static func _strataAssign(_ newValue: List<Element>, to storage: inout List<Element>) {
        if storage.assignContents(of: newValue) { return }
        storage = newValue
    }
}

extension List: ContentsAssignable {
    /// An unmanaged List takes the elements of `other` (RealmSwift keeps the List instance an
    /// unmanaged object holds: ModernObjectAccessorTests.testUnmanagedAccessors). Assigning a
    /// List to itself keeps its elements. False, changing nothing, when this List is managed
    /// or `other` is no readable List of the same type.
    func assignContents(of other: Any) -> Bool {
        guard case .unmanaged = backing, let other = other as? List<Element> else { return false }
        if other === self { return true }
        guard let elements = try? other.elements() else { return false }
        backing = .unmanaged(elements)
        return true
    }
}
