import Foundation

// Key-value coding on a Map, as RealmSwift's Map has it (RLMDictionary's `valueForKey:` and
// `setValue:forKey:`): a key names an entry, setting nil removes it, and any other value (NSNull
// too) is converted and checked as `setValue(_:forKey:)` of an object converts a property's
// (Spec V25).
extension Map {
    /// The value for `key` as an object; nil when the map has no such key or its value is null.
    ///
    /// Confinement: a managed map's realm context (Spec C6).
    public func value(forKey key: String) -> AnyObject? {
        trapping { () throws(Realm.Error) -> AnyObject? in try _value(forKey: Key(_strataKey: key)).flatMap(Self.boxed)
        }
    }

    /// `value(forKey:)` of the first component of `keyPath`, then (for an object) the rest of
    /// the path read on that object.
    ///
    /// Confinement: a managed map's realm context (Spec C6).
    public func value(forKeyPath keyPath: String) -> AnyObject? {
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty else { return nil }
        var current: Any? = value(forKey: components.removeFirst())
        for name in components {
            guard let object = current as? Object else { return nil }
            current = object.value(forKey: name)
        }
        return current.flatMap(Self.boxed)
    }

    /// The value for `key` (a string) as an object; nil for another key type, a key the map
    /// lacks or a null value.
    ///
    /// Confinement: a managed map's realm context (Spec C6).
    public func object(forKey key: AnyObject) -> AnyObject? {
        guard let name = key as? String else { return nil }
        return value(forKey: name)
    }

    /// Sets the value for `key`, converted as a property of the map's value type is (`NSNull` is
    /// a null value, refused by a map of non-optional values); nil removes the key.
    ///
    /// Confinement: a managed map's realm context (Spec C6), in a write (Spec W9).
    public func setValue(_ value: Any?, forKey key: String) {
        trapping { () throws(Realm.Error) in try _setValue(value, forKey: key) }
    }

    package func _setValue(_ value: Any?, forKey key: String) throws(Realm.Error) {
        guard let value else {
            try _removeObject(for: Key(_strataKey: key))
            return
        }
        if let typed = value as? Value {
            try _updateValue(typed, forKey: Key(_strataKey: key))
        } else {
            try _updateValue(try Value._strataUnmanaged(value, elementPath), forKey: Key(_strataKey: key))
        }
    }

    /// The property a converted value is checked as: the map's, one value of it.
    private var elementPath: _PropertyPath {
        let kind = Value._strataKind
        return _PropertyPath(
            className: binding?.parent.info.className ?? "",
            property: PropertySchema(
                name: binding?.property.name ?? "value", type: kind.type, objectClassName: kind.objectClassName,
                isOptional: kind.isOptional, isList: false, isPrimaryKey: false, isIndexed: false))
    }

    /// `any` as an object; nil for a null optional.
    private static func boxed(_ any: Any) -> AnyObject? {
        let mirror = Mirror(reflecting: any)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return nil }
            return wrapped as AnyObject
        }
        return any as AnyObject
    }
}
