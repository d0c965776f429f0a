import StrataStorage

// SUBQUERY in predicate formats (Spec V23): `SUBQUERY(employees, $e, $e.age > 30 AND
// $e.hired == false).@count > 0` counts the objects of a collection of objects (a List, set or
// Map of links, or LinkingObjects, possibly after to-one links) that meet a predicate over the
// variable, and compares the count with a number. The predicate is compiled against the
// collection's class, its key paths read from the variable; a nested SUBQUERY may take a
// collection of the variable (`SUBQUERY($p.parents, $q, …)`).

extension PredicateCompiler {
    func compile(_ subquery: PredicateSubquery) throws(Realm.Error) -> Predicate {
        let (links, collection, elementInfo) = try subqueryCollection(subquery.collection)
        let inner = try Self.relative(subquery.predicate, to: subquery.variable)
        var compiler = PredicateCompiler(info: elementInfo, mirrorsWrongly: mirrorsWrongly, skipsLast: skipsLast)
        let predicate = try compiler.compile(inner)
        // RLMQueryUtil reads the number as an integer (`integerValue`): a fraction truncates
        // toward zero, a Boolean is 0 or 1.
        let count: Value
        switch subquery.count {
        case .int(let value): count = .int(value)
        case .double(let value): count = .int(Self.truncated(value))
        case .bool(let value): count = .int(value ? 1 : 0)
        default:
            throw Realm.Error.predicate(
                "Invalid predicate expression",
                "SUBQUERY(…).@count is only supported when compared with a constant number.")
        }
        let comparison: Predicate.Comparison
        switch subquery.comparison {
        case .equal: comparison = .equal
        case .notEqual: comparison = .notEqual
        case .less, .lessOrEqual, .greater, .greaterOrEqual: comparison = subquery.comparison.ordering
        default:
            throw Realm.Error.predicate(
                "Invalid operator type", "Operator '\(subquery.comparison.rawValue)' not supported for type 'int'")
        }
        return Predicate.through(links, .subqueryCount(collection, predicate, comparison, count))
    }

    /// `value` toward zero, within Int64 (NaN is zero).
    private static func truncated(_ value: Double) -> Int64 {
        if value.isNaN { return 0 }
        if value >= 9_223_372_036_854_775_808.0 { return .max }
        if value <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(value)
    }

    /// The to-one links `path` follows, the collection of objects it ends at, and the class of
    /// that collection's objects.
    private func subqueryCollection(_ path: String) throws(Realm.Error) -> (
        [Int], Predicate.SubqueryCollection, ClassInfo
    ) {
        let names = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = info
        var links: [Int] = []
        for (step, name) in names.enumerated() {
            let isLast = step == names.count - 1
            if isLast, let linking = current.linkingObjects.first(where: { $0.name == name }) {
                let origin = ClassInfo.of(linking.originType)
                let column = try origin.originColumn(linking.originProperty, linkingTo: current.className, from: name)
                return (links, .backlinks(origin: origin.className, column: column), origin)
            }
            guard let column = current.schema.index(of: name) else {
                throw Realm.Error.invalidKeyPath(
                    path, "Property '\(name)' not found in object of type '\(current.className)'")
            }
            let property = current.schema.properties[column]
            guard property.type == .object, let target = current.linkTarget(of: property) else {
                throw Realm.Error.invalidKeyPath(path, "SUBQUERY needs a collection of objects; '\(name)' is not one")
            }
            if isLast {
                guard property.isList else {
                    throw Realm.Error.invalidKeyPath(
                        path, "SUBQUERY needs a collection of objects; '\(name)' is a link")
                }
                return (links, .elements(column: column, isMap: property.isMap, skipsLast: skipsLast), target)
            }
            guard !property.isList else {
                throw Realm.Error.invalidKeyPath(
                    path, "SUBQUERY's collection may follow links only; '\(name)' is a collection")
            }
            links.append(column)
            current = target
        }
        throw Realm.Error.invalidKeyPath(path, "the key path names no collection")
    }

    /// `syntax` with its key paths read from `variable` made relative to the variable's object
    /// (`$e.age` is `age`); a key path of anything else is refused.
    private static func relative(_ syntax: PredicateSyntax, to variable: String) throws(Realm.Error)
        -> PredicateSyntax
    {
        func strip(_ path: String) throws(Realm.Error) -> String {
            guard path.hasPrefix(variable + ".") else {
                throw Realm.Error.unsupportedPredicate(
                    "a SUBQUERY predicate reads only properties of its variable '\(variable)' in Strata's queries"
                        + " ('\(path)')")
            }
            return String(path.dropFirst(variable.count + 1))
        }
        func operand(_ operand: PredicateOperand) throws(Realm.Error) -> PredicateOperand {
            guard case .keyPath(let path) = operand else { return operand }
            return .keyPath(try strip(path))
        }
        switch syntax {
        case .always: return syntax
        case .and(let left, let right): return .and(try relative(left, to: variable), try relative(right, to: variable))
        case .or(let left, let right): return .or(try relative(left, to: variable), try relative(right, to: variable))
        case .not(let inner): return .not(try relative(inner, to: variable))
        case .comparison(var comparison):
            comparison.left = try operand(comparison.left)
            comparison.right = try operand(comparison.right)
            return .comparison(comparison)
        case .subquery(var nested):
            // A nested subquery's own predicate reads its own variable; only its collection
            // is read from this one.
            nested.collection = try strip(nested.collection)
            return .subquery(nested)
        }
    }
}
