import StrataStorage

// min, max, sum and average of a property over Results (Spec V21), by name or by key path
// (`RealmCollectionTypeTests.testMin`, `testSum`, `testAverage` and their key-path forms).

extension Results {
    /// The smallest value of `property` among the objects, nil when they have none (no
    /// objects, or only nulls).
    ///
    /// Confinement: the realm's context (Spec C6); reads at the realm's version (Spec V1).
    /// - Precondition: `property` names an integer, float, double or date property.
    /// - Complexity: O(n), reading each object's row once; no object is made.
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        trapping { () throws(Realm.Error) -> T? in try _aggregate(.min, property) }
    }

    /// The largest value of `property` among the objects, nil when they have none.
    ///
    /// Confinement: the realm's context (Spec C6).
    /// - Precondition: `property` names an integer, float, double or date property.
    /// - Complexity: O(n); no object is made.
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        trapping { () throws(Realm.Error) -> T? in try _aggregate(.max, property) }
    }

    /// The sum of `property` over the objects (nulls skipped); zero when there is none.
    ///
    /// Confinement: the realm's context (Spec C6).
    /// - Precondition: `property` names an integer, float or double property.
    /// - Complexity: O(n); no object is made.
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        trapping { () throws(Realm.Error) -> T in try _sum(property) }
    }

    /// The average of `property` over the objects that have a value; nil when none has.
    ///
    /// Confinement: the realm's context (Spec C6).
    /// - Precondition: `property` names an integer, float or double property.
    /// - Complexity: O(n); no object is made.
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        trapping { () throws(Realm.Error) -> T? in try _aggregate(.average, property) }
    }

    /// `min(ofProperty:)` of the property `keyPath` names.
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        min(ofProperty: QueryColumns.keyPathName(of: keyPath, info: storage.info))
    }

    /// `max(ofProperty:)` of the property `keyPath` names.
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        max(ofProperty: QueryColumns.keyPathName(of: keyPath, info: storage.info))
    }

    /// `sum(ofProperty:)` of the property `keyPath` names.
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        sum(ofProperty: QueryColumns.keyPathName(of: keyPath, info: storage.info))
    }

    /// `average(ofProperty:)` of the property `keyPath` names.
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T?
    where T.PersistedType: AddableType {
        average(ofProperty: QueryColumns.keyPathName(of: keyPath, info: storage.info))
    }

    /// An aggregate in the caller's type, throwing: the checks every member makes (Spec C6,
    /// V13), then the property's (`aggregateColumn`), then the walk over the rows at the
    /// realm's view (Spec V1, V10: it begins a read as any read does).
    package func _aggregate<T: _HasPersistedType>(
        _ function: AggregateFunction, _ property: String
    ) throws(Realm.Error) -> T? {
        guard let value = try aggregateValue(function, property) else { return nil }
        return try aggregateAnswer(value, function) as T
    }

    package func _sum<T: _HasPersistedType>(_ property: String) throws(Realm.Error) -> T {
        // A sum always has a value (zero for none).
        let value = try aggregateValue(.sum, property) ?? .int(0)
        return try aggregateAnswer(value, .sum)
    }

    func aggregateValue(_ function: AggregateFunction, _ property: String) throws(Realm.Error) -> _AggregateValue? {
        let core = storage.core
        try core.checkAccess()
        guard storage.epoch == core.epoch else { throw Realm.Error.resultsInvalidated }  // Spec V13
        let schema = storage.info.schema
        let column = try schema.aggregateColumn(property, function)
        var aggregator = StoredAggregator(
            function, type: schema.properties[column].type,
            countsNulls: core.file.bugs.contains(.averageCountsNulls))
        let view = try core.view()
        guard let table = view.table(named: storage.info.className)?.withoutSchema else { return aggregator.result }
        // Spec V22: a distinct's objects are those its evaluation kept; otherwise every match.
        if storage.ordering.contains(where: \.isDistinct) {
            let keys = try evaluate().keys
            for index in 0..<keys.count {
                _ = try engine(core.path) {
                    try view.withRow(table, key: keys[index]) { row in aggregator.add(try row.value(at: column)) }
                }
            }
        } else if aggregator.type == .int {
            try forEachMatchingRow(in: table, at: view) { _, row in
                aggregator.add(integer: try row.int(at: column))
                return true
            }
        } else {
            try forEachMatchingRow(in: table, at: view) { _, row in
                aggregator.add(try row.value(at: column))
                return true
            }
        }
        return aggregator.result
    }
}
