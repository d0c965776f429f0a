import StrataStorage

// min, max, sum and average of a Map's values (Spec V21 as for a List of values;
// `MapTests.testPrimitive`).

extension Map where Value: _HasPersistedType, Value.PersistedType: MinMaxType {
    /// The smallest value; nil when the map holds none (nulls are skipped).
    ///
    /// Confinement: a managed map's realm context (Spec C6).
    public func min() -> Value? { trapping { () throws(Realm.Error) -> Value? in try _valueAggregate(.min) } }

    /// The largest value; nil when the map holds none.
    public func max() -> Value? { trapping { () throws(Realm.Error) -> Value? in try _valueAggregate(.max) } }
}

extension Map where Value: _HasPersistedType, Value.PersistedType: AddableType {
    /// The sum of the values (nulls skipped); zero for none.
    public func sum() -> Value {
        trapping { () throws(Realm.Error) -> Value in try aggregateAnswer(try valueAggregate(.sum) ?? .int(0), .sum) }
    }

    /// The average of the values, in the type the caller names; nil when the map holds none.
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        trapping { () throws(Realm.Error) -> T? in
            guard let value = try valueAggregate(.average) else { return nil }
            return try aggregateAnswer(value, .average) as T
        }
    }
}

extension Map where Value: _HasPersistedType {
    package func _valueAggregate(_ function: AggregateFunction) throws(Realm.Error) -> Value? {
        guard let value = try valueAggregate(function) else { return nil }
        return try aggregateAnswer(value, function) as Value
    }

    /// The aggregate of the stored values (a managed map's, after its checks) or of the values
    /// as they would be stored (an unmanaged one's).
    func valueAggregate(_ function: AggregateFunction) throws(Realm.Error) -> _AggregateValue? {
        var aggregator = StoredAggregator(function, type: Value._strataKind.type)
        switch backing {
        case .managed(let binding):
            let flat = try binding.values()
            for index in stride(from: 1, to: flat.count, by: 2) { aggregator.add(flat[index]) }
        case .unmanaged(let entries):
            for (_, value) in entries { aggregator.add(try value._strataEncode(realm: nil)) }
        }
        return aggregator.result
    }
}

extension Map {
    /// Whether `object` is a map equal to this one (RealmSwift's `isEqual(_:)`): two unmanaged
    /// maps are equal when they hold the same keys with equal values (objects: the same
    /// object); a managed map only to the map of the same property of the same object in the
    /// same realm instance; a managed map never equals an unmanaged one.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Map<Key, Value> else { return false }
        if other === self { return true }
        switch (binding, other.binding) {
        case (nil, nil):
            guard let mine = try? entries(), let theirs = try? other.entries(), mine.count == theirs.count else {
                return false
            }
            for (left, right) in zip(mine, theirs) {
                guard left.key == right.key, (try? Self.sameValue(left.value, right.value)) == true else {
                    return false
                }
            }
            return true
        case (let mine?, let theirs?):
            return mine.core === theirs.core && mine.column == theirs.column
                && mine.parent.table.id == theirs.parent.table.id && mine.parent.identity == theirs.parent.identity
        default:
            return false
        }
    }

    /// Two values are one: the same object, or values stored the same.
    private static func sameValue(_ a: Value, _ b: Value) throws(Realm.Error) -> Bool {
        let left = AnyValue.flatten(a) as? Object
        let right = AnyValue.flatten(b) as? Object
        if left != nil || right != nil { return try left?._isSameObject(as: right) ?? false }
        return try a._strataEncode(realm: nil) == b._strataEncode(realm: nil)
    }
}

extension Map: Equatable {
    /// `lhs.isEqual(rhs)`.
    public static func == (lhs: Map<Key, Value>, rhs: Map<Key, Value>) -> Bool { lhs.isEqual(rhs) }
}

/// An optional object type: the values of a Map of objects.
public protocol _OptionalObject: _RealmValue {
    associatedtype Wrapped: Object
}

extension Optional: _OptionalObject where Wrapped: Object {}

// min, max, sum and average of a property of a Map's objects (`MapTests.testKeyedAggregatable`):
// nil values are skipped, an object under two keys counts twice.
extension Map where Value: _OptionalObject {
    /// The smallest value of `property` among the map's objects (Spec V21).
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        trapping { () throws(Realm.Error) -> T? in
            try aggregateValue(.min, property).map { v throws(Realm.Error) in try aggregateAnswer(v, .min) }
        }
    }

    /// The largest value of `property` among the map's objects (Spec V21).
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        trapping { () throws(Realm.Error) -> T? in
            try aggregateValue(.max, property).map { v throws(Realm.Error) in try aggregateAnswer(v, .max) }
        }
    }

    /// The sum of `property` over the map's objects (Spec V21).
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        trapping { () throws(Realm.Error) -> T in
            try aggregateAnswer(try aggregateValue(.sum, property) ?? .int(0), .sum)
        }
    }

    /// The average of `property` over the map's objects that have a value (Spec V21).
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        trapping { () throws(Realm.Error) -> T? in
            try aggregateValue(.average, property).map { v throws(Realm.Error) in try aggregateAnswer(v, .average) }
        }
    }

    /// A managed map: its checks, then the rows of the objects its values link to; an unmanaged
    /// one: each object's property as it would be stored.
    func aggregateValue(_ function: AggregateFunction, _ property: String) throws(Realm.Error) -> _AggregateValue? {
        switch backing {
        case .managed(let binding):
            _ = try binding.values()
            let info = try binding.core.classInfo(Value.Wrapped.self)
            return try Results<Value.Wrapped>(core: binding.core, info: info, source: .list(binding))
                .aggregateValue(function, property)
        case .unmanaged(let entries):
            let info = ClassInfo.of(Value.Wrapped.self)
            let column = try info.schema.aggregateColumn(property, function)
            let path = _PropertyPath(className: info.className, property: info.schema.properties[column])
            var aggregator = StoredAggregator(function, type: path.property.type)
            for (_, value) in entries {
                guard let object = AnyValue.flatten(value) as? Object else { continue }
                aggregator.add(try AnyValue.encodeScalar(try object._value(forKey: property), path))
            }
            return aggregator.result
        }
    }
}
