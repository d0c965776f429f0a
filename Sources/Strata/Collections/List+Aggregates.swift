import StrataStorage

// min, max, sum and average over a List (Spec V21): of a property of its objects
// (`ListTests`, `RealmCollectionTypeTests.testMin` on Lists), or of its values
// (`PrimitiveListTests.testMin`, `testSum`, `testAverage`).

extension List where Element: Object {
    /// The smallest value of `property` among the List's objects; nil when they have none.
    ///
    /// Confinement: a managed List's realm context (Spec C6).
    /// - Precondition: `property` names an integer, float, double or date property.
    /// - Complexity: O(n); a managed List reads each object's row, making no object.
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        trapping { () throws(Realm.Error) -> T? in try _aggregate(.min, property) }
    }

    /// The largest value of `property` among the List's objects; nil when they have none.
    /// - Precondition: `property` names an integer, float, double or date property.
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        trapping { () throws(Realm.Error) -> T? in try _aggregate(.max, property) }
    }

    /// The sum of `property` over the List's objects (an object listed twice counts twice).
    /// - Precondition: `property` names an integer, float or double property.
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        trapping { () throws(Realm.Error) -> T in
            let value = try aggregateValue(.sum, property) ?? .int(0)
            return try aggregateAnswer(value, .sum)
        }
    }

    /// The average of `property` over the List's objects that have a value; nil when none has.
    /// - Precondition: `property` names an integer, float or double property.
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        trapping { () throws(Realm.Error) -> T? in try _aggregate(.average, property) }
    }

    package func _aggregate<T: _HasPersistedType>(
        _ function: AggregateFunction, _ property: String
    ) throws(Realm.Error) -> T? {
        guard let value = try aggregateValue(function, property) else { return nil }
        return try aggregateAnswer(value, function) as T
    }

    /// A managed List: its own checks (Spec C6, T5: a List whose owner is gone is invalid),
    /// then the Results of its objects aggregate their rows. An unmanaged one: each object's
    /// property as it would be stored.
    func aggregateValue(_ function: AggregateFunction, _ property: String) throws(Realm.Error) -> _AggregateValue? {
        switch backing {
        case .managed(let binding):
            _ = try binding.values()
            let info = try binding.core.classInfo(Element.self)
            return try Results<Element>(core: binding.core, info: info, source: .list(binding))
                .aggregateValue(function, property)
        case .unmanaged(let objects):
            let info = ClassInfo.of(Element.self)
            let column = try info.schema.aggregateColumn(property, function)
            let path = _PropertyPath(className: info.className, property: info.schema.properties[column])
            var aggregator = StoredAggregator(function, type: path.property.type)
            for object in objects {
                aggregator.add(try AnyValue.encodeScalar(try object._value(forKey: property), path))
            }
            return aggregator.result
        }
    }
}

extension List where Element: _HasPersistedType, Element.PersistedType: MinMaxType {
    /// The smallest value in the List; nil when it holds none (nulls are skipped).
    ///
    /// Confinement: a managed List's realm context (Spec C6).
    /// - Complexity: O(n).
    public func min() -> Element? {
        trapping { () throws(Realm.Error) -> Element? in try _valueAggregate(.min) }
    }

    /// The largest value in the List; nil when it holds none.
    public func max() -> Element? {
        trapping { () throws(Realm.Error) -> Element? in try _valueAggregate(.max) }
    }
}

extension List where Element: _HasPersistedType, Element.PersistedType: AddableType {
    /// The sum of the List's values (nulls skipped); zero for none.
    ///
    /// Confinement: a managed List's realm context (Spec C6).
    /// - Complexity: O(n).
    public func sum() -> Element {
        trapping { () throws(Realm.Error) -> Element in
            let value = try valueAggregate(.sum) ?? .int(0)
            return try aggregateAnswer(value, .sum)
        }
    }

    /// The average of the List's values, in the type the caller names; nil when it holds none.
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        trapping { () throws(Realm.Error) -> T? in
            guard let value = try valueAggregate(.average) else { return nil }
            return try aggregateAnswer(value, .average) as T
        }
    }
}

extension List where Element: _HasPersistedType {
    package func _valueAggregate(_ function: AggregateFunction) throws(Realm.Error) -> Element? {
        guard let value = try valueAggregate(function) else { return nil }
        return try aggregateAnswer(value, function) as Element
    }

    /// The aggregate of the stored values (a managed List's, after its checks) or of the
    /// values as they would be stored (an unmanaged one's).
    func valueAggregate(_ function: AggregateFunction) throws(Realm.Error) -> _AggregateValue? {
        var aggregator = StoredAggregator(function, type: Element._strataKind.type)
        switch backing {
        case .managed(let binding):
            for value in try binding.values() { aggregator.add(value) }
        case .unmanaged(let elements):
            for element in elements { aggregator.add(try element._strataEncode(realm: nil)) }
        }
        return aggregator.result
    }
}
