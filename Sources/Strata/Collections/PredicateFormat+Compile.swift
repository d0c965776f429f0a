import Foundation
import StrataStorage

// Turns a parsed predicate format into the `Predicate` a typed `where` builds (Spec V23): the
// same comparison of the same column with the same stored constant, so both spellings of a
// query find the same objects in the same order.

extension Predicate {
    /// The predicate `format` with `arguments` states over objects of `info`; throws Realm's
    /// message for a format it cannot parse or a comparison the class cannot make.
    /// `mirrorsWrongly` is the seeded bug `predicateMirrorsWrongly`: a constant on the left
    /// keeps its operator (`3 < age` read as `age < 3`).
    static func compiling(
        _ format: String, arguments: [Any?], info: ClassInfo, mirrorsWrongly: Bool = false, skipsLast: Bool = false
    ) throws(Realm.Error) -> Predicate {
        let syntax: PredicateSyntax
        do {
            syntax = try PredicateFormatParser.parse(format, arguments: arguments)
        } catch {
            if let message = error.realmMessage { throw Realm.Error.misuse(message) }
            throw Realm.Error.unparsablePredicate(format, offset: error.offset, reason: error.reason)
        }
        var compiler = PredicateCompiler(info: info, mirrorsWrongly: mirrorsWrongly, skipsLast: skipsLast)
        return try compiler.compile(syntax)
    }
}

struct PredicateCompiler {
    let info: ClassInfo
    let mirrorsWrongly: Bool
    /// The seeded bug `collectionQuerySkipsLast`.
    let skipsLast: Bool

    /// What a key path reaches: a stored property, the element count of a collection, or
    /// either on the object a to-one link (the column) reaches; through a collection of objects,
    /// what the rest of the path reaches on its objects (ANY); a collection operator's value.
    private indirect enum Target {
        case column(Int, PropertySchema)
        /// `@count` of a collection; `backlinks` names the origin class of a LinkingObjects
        /// property, whose column is the origin property's (Spec V26).
        case count(Int, isMap: Bool, backlinks: String?)
        case linked(Int, Target)
        case elements(Int, isMap: Bool, Target)
        /// Through a LinkingObjects property: the objects of the class `origin` whose property at
        /// the column links to the object (Spec V26).
        case backlinks(origin: String, Int, Target)
        /// `@sum`, `@avg`, `@min`, `@max` of the property at `valueColumn` of a collection's
        /// objects, or (nil) of a collection of values; `value` is the summed property.
        /// `backlinks` names the origin class of a LinkingObjects property, whose column is the
        /// origin property's (Spec V26).
        case aggregate(
            Int, isMap: Bool, AggregateFunction, valueColumn: Int?, value: PropertySchema, backlinks: String? = nil)
    }

    mutating func compile(_ syntax: PredicateSyntax) throws(Realm.Error) -> Predicate {
        switch syntax {
        case .always(let value): return .always(value)
        case .and(let left, let right): return .and(try compile(left), try compile(right))
        case .or(let left, let right): return .or(try compile(left), try compile(right))
        case .not(let inner): return .not(try compile(inner))
        case .comparison(let comparison): return try compile(comparison)
        case .subquery(let subquery): return try compile(subquery)
        }
    }

    private func compile(_ comparison: PredicateComparison) throws(Realm.Error) -> Predicate {
        switch comparison.quantifier {
        case nil:
            // RLMQueryUtil's rule: a key path through a collection says ANY or NONE.
            if throughCollection(comparison.left) || throughCollection(comparison.right) {
                throw Realm.Error.predicate(
                    "Invalid predicate", "Key paths that include a collection property must use aggregate operations")
            }
        case .all?: throw Realm.Error.predicate("Invalid predicate", "ALL modifier not supported")
        case .any?, .noneOf?:
            guard throughList(comparison.left) || throughList(comparison.right) else {
                throw Realm.Error.predicate(
                    "Invalid predicate",
                    "Aggregate operations can only be used on key paths that include an collection property")
            }
            // ANY (SOME) compiles as the key path through the collection reads; NONE is NOT ANY,
            // as NSPredicate reads it.
            let any = try compileOperands(comparison)
            return comparison.quantifier == .noneOf ? .not(any) : any
        }
        return try compileOperands(comparison)
    }

    /// The comparison of its two operands, its quantifier already dealt with.
    private func compileOperands(_ comparison: PredicateComparison) throws(Realm.Error) -> Predicate {
        switch (comparison.left, comparison.right) {
        case (.keyPath(let path), .constant(let constant)):
            return try compare(try target(path, leftOfConstant: true), comparison.comparison, constant, comparison)
        case (.constant(let constant), .keyPath(let path)):
            // `3 < age` is `age > 3`; the string and collection operators read left to right.
            guard let mirrored = comparison.comparison.mirrored else {
                throw Realm.Error.predicate(
                    "Unsupported predicate",
                    "Operator '\(comparison.comparison.rawValue)' requires a keypath on the left side.")
            }
            let spelled = mirrorsWrongly ? comparison.comparison : mirrored
            return try compare(try target(path, leftOfConstant: true), spelled, constant, comparison)
        case (.keyPath(let left), .keyPath(let right)):
            if comparison.caseInsensitive || comparison.diacriticInsensitive {
                throw Realm.Error.unsupportedPredicate(
                    "[c] and [d] between two properties are not supported by Strata's queries yet")
            }
            return try compareColumns(try target(left), comparison.comparison, try target(right))
        case (.constant, .constant):
            throw Realm.Error.predicate(
                "Invalid predicate expressions",
                "Predicate expressions must compare a keypath and another keypath or a constant value")
        }
    }

    /// Whether `operand` is a key path that goes on past a collection property other than by a
    /// collection operator (`array.intCol`, not `array.@sum.intCol`).
    private func throughCollection(_ operand: PredicateOperand) -> Bool {
        collectionStep(operand).map { !$0.byOperator } ?? false
    }

    /// Whether `operand` is a key path with a collection property on its way (ANY's domain).
    private func throughList(_ operand: PredicateOperand) -> Bool { collectionStep(operand) != nil }

    /// The first collection property on the way of `operand`'s key path (`SELF.` aside): whether
    /// a collection operator follows it; nil when the path meets no collection.
    private func collectionStep(_ operand: PredicateOperand) -> (step: Int, byOperator: Bool)? {
        guard case .keyPath(let path) = operand else { return nil }
        var names = path.split(separator: ".").map(String.init)
        if names.count > 1, names[0].lowercased() == "self" { names.removeFirst() }
        var current = info
        for (step, name) in names.enumerated() {
            if current.linkingObjects.contains(where: { $0.name == name }) {
                return (step, step + 1 < names.count && names[step + 1].hasPrefix("@"))
            }
            guard let column = current.schema.index(of: name) else { return nil }
            let property = current.schema.properties[column]
            if property.isList { return (step, step + 1 < names.count && names[step + 1].hasPrefix("@")) }
            guard let target = current.linkTarget(of: property) else { return nil }
            current = target
        }
        return nil
    }

    /// What `path` names, each step checked in the class the links before it reach (as
    /// RLMQueryUtil's key path parse checks it). `leftOfConstant` gives a name the class lacks
    /// RLMQueryUtil's message for a property compared with a constant, else its key path message.
    private func target(_ path: String, leftOfConstant: Bool = false) throws(Realm.Error) -> Target {
        var names = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // `SELF.name` is `name`, as NSPredicate reads it.
        if names.count > 1, names[0].lowercased() == "self" { names.removeFirst() }
        if names.first == "" { throw Realm.Error.invalidKeyPath(path, "no key name before '.'") }
        if names.last == "" { throw Realm.Error.invalidKeyPath(path, "no key name after last '.'") }
        if names.count == 1, names[0].lowercased() == "self" {
            throw Realm.Error.unsupportedPredicate(
                "comparing objects through 'self' is not supported by Strata's queries yet")
        }
        if names[0].hasPrefix("@") {
            throw Realm.Error.invalidKeyPath(path, "collection operation '\(names[0])' must be applied to a collection")
        }
        var current = info
        // The links and collections of objects followed so far, around what the path ends at:
        // each wraps what follows it.
        var steps: [(Target) -> Target] = []
        func reached(_ end: Target) -> Target { steps.reversed().reduce(end) { inner, step in step(inner) } }
        for (step, name) in names.enumerated() {
            let className = current.className
            if let linking = current.linkingObjects.first(where: { $0.name == name }) {
                // Spec V26: a LinkingObjects property is a collection of its origin's objects.
                let origin = ClassInfo.of(linking.originType)
                let column = try origin.originColumn(linking.originProperty, linkingTo: className, from: name)
                guard step < names.count - 1 else {
                    throw Realm.Error.predicate(
                        "Invalid predicate",
                        "Key paths that include a collection property must use aggregate operations")
                }
                let next = names[step + 1]
                if next == "@count" {
                    guard step + 2 == names.count else {
                        throw Realm.Error.invalidKeyPath(path, "@count must appear at the end of a keypath.")
                    }
                    return reached(.count(column, isMap: false, backlinks: origin.className))
                }
                if next.hasPrefix("@") {
                    return reached(try backlinkOperation(next, path, names, at: step, column, origin))
                }
                let originName = origin.className
                steps.append { .backlinks(origin: originName, column, $0) }
                current = origin
                continue
            }
            guard let column = current.schema.index(of: name) else {
                if names.count == 1 && leftOfConstant {
                    throw Realm.Error.predicate(
                        "Invalid property name", "Property '\(name)' not found in object of type '\(className)'")
                }
                throw Realm.Error.invalidKeyPath(path, "Property '\(name)' not found in object of type '\(className)'")
            }
            let property = current.schema.properties[column]
            if step == names.count - 1 {
                if property.isList {
                    throw Realm.Error.predicate(
                        "Invalid predicate",
                        "Key paths that include a collection property must use aggregate operations")
                }
                return reached(.column(column, property))
            }
            let next = names[step + 1]
            if property.isList {
                guard next.hasPrefix("@") else {
                    // Through a collection of objects: the rest of the path on its objects (ANY).
                    guard property.type == .object, let elements = current.linkTarget(of: property) else {
                        throw Realm.Error.invalidKeyPath(
                            path,
                            "\(property.typeName) property \(name) can only be followed by a collection operation.")
                    }
                    steps.append { .elements(column, isMap: property.isMap, $0) }
                    current = elements
                    continue
                }
                let functions: [String: AggregateFunction] = [
                    "@sum": .sum, "@avg": .average, "@min": .min, "@max": .max,
                ]
                guard next == "@count" || functions[next] != nil else {
                    throw Realm.Error.invalidKeyPath(path, "Unsupported collection operation '\(next)'")
                }
                guard let function = functions[next] else {
                    guard step + 2 == names.count else {
                        throw Realm.Error.invalidKeyPath(path, "@count must appear at the end of a keypath.")
                    }
                    return reached(.count(column, isMap: property.isMap, backlinks: nil))
                }
                return reached(
                    try collectionOperation(function, next, path, names, at: step, column, property, current))
            }
            guard property.type == .object else {
                throw Realm.Error.invalidKeyPath(
                    path,
                    "Property '\(className).\(name)' is not a link or collection and can only appear at the end of a "
                        + "keypath.")
            }
            if next.hasPrefix("@") {
                throw Realm.Error.invalidKeyPath(path, "collection operation '\(next)' must be applied to a collection")
            }
            guard let target = current.linkTarget(of: property) else {
                throw Realm.Error.invalidKeyPath(path, "Property '\(name)' not found in object of type '\(className)'")
            }
            steps.append { .linked(column, $0) }
            current = target
        }
        // Unreachable: the last name of the path returns or throws above.
        throw Realm.Error.invalidKeyPath(path, "the key path names no property")
    }

    /// `@sum`, `@avg`, `@min` or `@max` (`name`) applied to the collection `property` at
    /// `step` of `names`, checked as RLMQueryUtil's key path parse checks it: of a numeric
    /// property of its objects (the next and last name), or of a collection of numbers (last).
    private func collectionOperation(
        _ function: AggregateFunction, _ name: String, _ path: String, _ names: [String], at step: Int,
        _ column: Int, _ property: PropertySchema, _ owner: ClassInfo
    ) throws(Realm.Error) -> Target {
        // `@sum` and `@avg` of dates pass RLMQueryUtil's numeric check; realm-core cannot add them.
        func supported(_ type: PropertyType) throws(Realm.Error) {
            guard function.applies(to: type) else {
                throw Realm.Error.unsupportedPredicate("\(name) of a date property is not supported")
            }
        }
        guard property.type == .object else {
            guard step + 2 == names.count else {
                throw Realm.Error.invalidKeyPath(
                    path, "\(name) on a collection of values must appear at the end of a keypath.")
            }
            guard Self.isNumeric(property.type) else {
                throw Realm.Error.invalidKeyPath(
                    path, "\(name) can only be applied to a collection of numeric values.")
            }
            try supported(property.type)
            var value = property
            value.isList = false
            value.isSet = false
            value.isMap = false
            return .aggregate(column, isMap: property.isMap, function, valueColumn: nil, value: value, backlinks: nil)
        }
        guard let elements = owner.linkTarget(of: property) else {
            throw Realm.Error.invalidKeyPath(
                path, "Property '\(property.name)' not found in object of type '\(owner.className)'")
        }
        return try operationOnObjects(
            function, name, path, names, at: step, column, isMap: property.isMap, elements: elements, backlinks: nil)
    }

    /// `@sum`, `@avg`, `@min` or `@max` (`name`) of a numeric property of the objects a
    /// LinkingObjects property at `step` of `names` reaches (`owners.@max.age`, Spec V26),
    /// checked as for a List of objects.
    private func backlinkOperation(
        _ name: String, _ path: String, _ names: [String], at step: Int, _ column: Int, _ origin: ClassInfo
    ) throws(Realm.Error) -> Target {
        let functions: [String: AggregateFunction] = ["@sum": .sum, "@avg": .average, "@min": .min, "@max": .max]
        guard let function = functions[name] else {
            throw Realm.Error.invalidKeyPath(path, "Unsupported collection operation '\(name)'")
        }
        return try operationOnObjects(
            function, name, path, names, at: step, column, isMap: false, elements: origin,
            backlinks: origin.className)
    }

    /// The operator `name` at `step` of `names` over a collection of `elements` objects: of their
    /// numeric property, the next and last name (RLMQueryUtil's key path checks, in its words).
    private func operationOnObjects(
        _ function: AggregateFunction, _ name: String, _ path: String, _ names: [String], at step: Int, _ column: Int,
        isMap: Bool, elements: ClassInfo, backlinks: String?
    ) throws(Realm.Error) -> Target {
        guard step + 2 < names.count else {
            throw Realm.Error.invalidKeyPath(
                path, "\(name) on a collection of objects cannot appear at the end of a keypath.")
        }
        let valueName = names[step + 2]
        guard let valueColumn = elements.schema.index(of: valueName) else {
            throw Realm.Error.invalidKeyPath(
                path, "Property '\(valueName)' not found in object of type '\(elements.className)'")
        }
        let value = elements.schema.properties[valueColumn]
        guard Self.isNumeric(value.type), !value.isList else {
            throw Realm.Error.invalidKeyPath(path, "\(name) must be followed by a numeric property.")
        }
        guard step + 3 == names.count else {
            throw Realm.Error.invalidKeyPath(
                path,
                "Property '\(elements.className).\(valueName)' is not a link or collection and can only appear at the "
                    + "end of a keypath.")
        }
        // `@sum` and `@avg` of dates pass RLMQueryUtil's numeric check; realm-core cannot add them.
        guard function.applies(to: value.type) else {
            throw Realm.Error.unsupportedPredicate("\(name) of a date property is not supported")
        }
        return .aggregate(
            column, isMap: isMap, function, valueColumn: valueColumn, value: value, backlinks: backlinks)
    }

    /// `throughCollection`: the target is reached through a collection (a null link on the way
    /// then matches nothing).
    private func compare(
        _ target: Target, _ comparison: PredicateOperator, _ constant: PredicateConstant,
        _ syntax: PredicateComparison, throughCollection: Bool = false
    ) throws(Realm.Error) -> Predicate {
        let column: Int
        let property: PropertySchema
        switch target {
        case .column(let at, let reached):
            column = at
            property = reached
        case .count(let collection, let isMap, let origin):
            return try compareCount(collection, isMap: isMap, backlinks: origin, comparison, constant)
        case .linked(let link, let rest):
            let inner = try compare(rest, comparison, constant, syntax, throughCollection: throughCollection)
            // realm-core gives a null link met after a collection no value at all, where a
            // to-one chain alone reads it as an object of nulls.
            return throughCollection
                ? .and(.compare(column: link, .notEqual, .null), .follow(link: link, inner))
                : .follow(link: link, inner)
        case .elements(let collection, let isMap, let rest):
            return .anyElement(
                column: collection, isMap: isMap,
                try compare(rest, comparison, constant, syntax, throughCollection: true), skipsLast: skipsLast)
        case .backlinks(let origin, let column, let rest):
            return .anyBacklink(
                origin: origin, column: column, try compare(rest, comparison, constant, syntax, throughCollection: true)
            )
        case .aggregate(let collection, let isMap, let function, let valueColumn, let value, let origin):
            return try compareAggregate(
                collection, isMap: isMap, function, valueColumn: valueColumn, value: value, backlinks: origin,
                comparison, .constant(try aggregateOperand(function, value, constant)))
        }
        let folds = syntax.caseInsensitive || syntax.diacriticInsensitive
        switch comparison {
        case .between:
            try requireOrdered(property, comparison, between: true)
            guard case .list(let bounds) = constant else {
                throw Realm.Error.predicate("Invalid value", "object must be of type NSArray for BETWEEN operations")
            }
            guard bounds.count == 2 else {
                throw Realm.Error.predicate(
                    "Invalid value", "NSArray object must contain exactly two objects for BETWEEN operations")
            }
            var stored: [Value] = []
            for bound in bounds {
                // Realm checks the bounds' type: a null or another type's value is refused.
                let value = (try? self.stored(bound, for: property)) ?? .null
                if case .null = value {
                    throw Realm.Error.predicate(
                        "Invalid value", "NSArray objects must be of type \(property.typeName) for BETWEEN operations")
                }
                stored.append(value)
            }
            return .and(
                .compare(column: column, .greaterOrEqual, stored[0]), .compare(column: column, .lessOrEqual, stored[1]))
        case .in:
            guard case .list(let elements) = constant else {
                throw Realm.Error.predicate("Invalid value", "IN clause requires an array of items")
            }
            var values: [Value] = []
            for element in elements { values.append(try stored(element, for: property)) }
            if folds, property.type == .string {
                // One folded equality per element, joined as a balanced tree (a long list
                // never makes a deep one); none at all matches nothing.
                return Predicate.anyOf(
                    values.map { value in
                        guard case .string(let text) = value else { return .compare(column: column, .equal, .null) }
                        return .stringTest(column: column, .equal, text, folding: syntax.folding)
                    })
            }
            return .isIn(column: column, values)
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard property.type == .string, comparison != .matches else {
                throw Realm.Error.unsupportedOperator(comparison.rawValue, property)
            }
            if comparison == .like, syntax.diacriticInsensitive {
                throw Realm.Error.predicate(
                    "Invalid operator type", "Operator 'LIKE' not supported with diacritic-insensitive modifier.")
            }
            let value = try stored(constant, for: property)
            guard case .string(let text) = value else {
                // LIKE NULL finds the nulls; the substring tests of NULL find nothing, as NSPredicate's do.
                return comparison == .like ? .compare(column: column, .equal, .null) : .always(false)
            }
            let test: Predicate.StringTest
            switch comparison {
            case .beginsWith: test = .beginsWith
            case .endsWith: test = .endsWith
            case .contains: test = .contains
            default: test = .like
            }
            // The substring tests of an empty string find nothing either.
            if text.isEmpty && test != .like { return .always(false) }
            return .stringTest(column: column, test, text, folding: syntax.folding)
        case .equal, .notEqual:
            let value = try stored(constant, for: property)
            if folds, case .string(let text) = value {
                let equal = Predicate.stringTest(column: column, .equal, text, folding: syntax.folding)
                return comparison == .equal ? equal : .not(equal)
            }
            return .compare(column: column, comparison == .equal ? .equal : .notEqual, value)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            try requireOrdered(property, comparison, between: false)
            if folds {
                throw Realm.Error.predicate("Invalid predicate", "Lexicographical comparisons must be case-sensitive")
            }
            let value = try stored(constant, for: property)
            if case .null = value {
                // Nothing is less or greater than nil; `<=` and `>=` find the nulls.
                return comparison == .less || comparison == .greater
                    ? .always(false) : .compare(column: column, .equal, .null)
            }
            return .compare(column: column, comparison.ordering, value)
        }
    }

    /// A constant a collection operator's value may be compared with (RLMQueryUtil's
    /// `CollectionOperation::validate_comparison`): a value of the summed property's type, or
    /// null except for a sum (which is never null); an average is compared as a double.
    private func aggregateOperand(
        _ function: AggregateFunction, _ value: PropertySchema, _ constant: PredicateConstant
    ) throws(Realm.Error) -> Value {
        var property = value
        property.isOptional = function != .sum
        if function == .average { property.type = .double }
        do throws(Realm.Error) {
            return try stored(constant, for: property)
        } catch {
            throw Realm.Error.predicate(
                "Invalid operand",
                "\(Self.operatorName(function)) on a property of type \(value.typeName) cannot be compared with "
                    + "'\(constant.description)'")
        }
    }

    /// RLMQueryUtil's `CollectionOperation::validate_comparison` of a property compared with
    /// the collection operator `operation` (a `.count` or an `.aggregate`): a numeric one.
    private static func requireNumeric(_ property: PropertySchema, against operation: Target) throws(Realm.Error) {
        if isNumeric(property.type), !property.isList { return }
        guard case .aggregate(_, _, let function, _, let value, _) = operation else {
            throw Realm.Error.predicate("Invalid operand", "@count can only be compared with a numeric value.")
        }
        throw Realm.Error.predicate(
            "Invalid operand",
            "\(operatorName(function)) on a property of type \(value.typeName) cannot be compared with property of "
                + "type '\(property.typeName)'")
    }

    /// RLMQueryUtil's `propertyTypeIsNumeric` over Strata's types: numbers and dates.
    static func isNumeric(_ type: PropertyType) -> Bool {
        type == .int || type == .float || type == .double || type == .date
    }

    static func operatorName(_ function: AggregateFunction) -> String {
        switch function {
        case .min: return "@min"
        case .max: return "@max"
        case .sum: return "@sum"
        case .average: return "@avg"
        }
    }

    private func compareAggregate(
        _ collection: Int, isMap: Bool, _ function: AggregateFunction, valueColumn: Int?, value: PropertySchema,
        backlinks origin: String?, _ comparison: PredicateOperator, _ comparand: Predicate.Comparand
    ) throws(Realm.Error) -> Predicate {
        func aggregate(_ comparison: Predicate.Comparison) -> Predicate {
            if let origin, let valueColumn {
                return .backlinkAggregate(
                    origin: origin, column: collection, function, valueColumn: valueColumn, valueType: value.type,
                    comparison, comparand)
            }
            return .collectionAggregate(
                column: collection, isMap: isMap, function, valueColumn: valueColumn, valueType: value.type,
                comparison, comparand, skipsLast: skipsLast)
        }
        switch comparison {
        case .equal: return aggregate(.equal)
        case .notEqual: return aggregate(.notEqual)
        case .less, .lessOrEqual, .greater, .greaterOrEqual: return aggregate(comparison.ordering)
        default:
            throw Realm.Error.predicate(
                "Invalid operator type", "Operator '\(comparison.rawValue)' not supported for type '\(value.typeName)'")
        }
    }

    /// `list.@count` against a number.
    private func compareCount(
        _ column: Int, isMap: Bool, backlinks origin: String?, _ comparison: PredicateOperator,
        _ constant: PredicateConstant
    ) throws(Realm.Error) -> Predicate {
        let count: Value
        switch constant {
        case .int(let value): count = .int(value)
        case .double(let value): count = .double(value)
        default: throw Realm.Error.predicate("Invalid operand", "@count can only be compared with a numeric value.")
        }
        return try compareCount(column, isMap: isMap, backlinks: origin, comparison, .constant(count))
    }

    /// `list.@count` (or a LinkingObjects property's, `origin` naming its origin class) against
    /// a number or a property of the object.
    private func compareCount(
        _ column: Int, isMap: Bool, backlinks origin: String?, _ comparison: PredicateOperator,
        _ comparand: Predicate.Comparand
    ) throws(Realm.Error) -> Predicate {
        func counted(_ comparison: Predicate.Comparison) -> Predicate {
            guard let origin else { return .count(column: column, isMap: isMap, comparison, comparand) }
            return .backlinkCount(origin: origin, column: column, comparison, comparand)
        }
        switch comparison {
        case .equal: return counted(.equal)
        case .notEqual: return counted(.notEqual)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return counted(comparison.ordering)
        default:
            throw Realm.Error.predicate(
                "Invalid operator type", "Operator '\(comparison.rawValue)' not supported for type 'int'")
        }
    }

    private func compareColumns(
        _ left: Target, _ comparison: PredicateOperator, _ right: Target
    ) throws(Realm.Error) -> Predicate {
        if case .linked = left {
            throw Realm.Error.unsupportedPredicate("comparing two properties through a link is not supported yet")
        }
        if case .linked = right {
            throw Realm.Error.unsupportedPredicate("comparing two properties through a link is not supported yet")
        }
        for side in [left, right] {
            switch side {
            case .elements, .backlinks:
                throw Realm.Error.unsupportedPredicate(
                    "comparing two properties through a collection is not supported by Strata's queries yet")
            default: continue
            }
        }
        // A collection operator against a numeric property of the object (the operator's side
        // read as the left one: `number > array.@min.intCol` is `array.@min.intCol < number`).
        let operatorSide: Target
        let reads: PredicateOperator
        let other: Int
        switch (left, right) {
        case (.count, .column(let column, let property)), (.aggregate, .column(let column, let property)):
            try Self.requireNumeric(property, against: left)
            (operatorSide, reads, other) = (left, comparison, column)
        case (.column(let column, let property), .count), (.column(let column, let property), .aggregate):
            try Self.requireNumeric(property, against: right)
            guard let mirrored = comparison.mirrored else {
                throw Realm.Error.predicate(
                    "Unsupported predicate", "Operator '\(comparison.rawValue)' requires a keypath on the left side.")
            }
            (operatorSide, reads, other) = (right, mirrored, column)
        default:
            operatorSide = left
            reads = comparison
            other = -1
        }
        switch operatorSide {
        case .count(let collection, let isMap, let origin) where other >= 0:
            return try compareCount(collection, isMap: isMap, backlinks: origin, reads, .column(other))
        case .aggregate(let collection, let isMap, let function, let valueColumn, let value, let origin)
        where other >= 0:
            return try compareAggregate(
                collection, isMap: isMap, function, valueColumn: valueColumn, value: value, backlinks: origin, reads,
                .column(other))
        default: break
        }
        guard case .column(let leftColumn, let leftProperty) = left,
            case .column(let rightColumn, let rightProperty) = right
        else {
            throw Realm.Error.predicate(
                "Unsupported predicate",
                "Key paths including aggregate operations cannot be compared with other aggregate operations.")
        }
        guard leftProperty.type == rightProperty.type else {
            throw Realm.Error.misuse(
                "Property type mismatch between \(leftProperty.typeName) and \(rightProperty.typeName)")
        }
        switch comparison {
        case .equal, .notEqual:
            return .columns(leftColumn, comparison == .equal ? .equal : .notEqual, rightColumn)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            try requireOrdered(leftProperty, comparison, between: false)
            return .columns(leftColumn, comparison.ordering, rightColumn)
        default:
            throw Realm.Error.unsupportedPredicate(
                "\(comparison.rawValue) between two properties is not supported by Strata's queries yet")
        }
    }

    /// `<`, `>` need a property whose values have an order (numbers, dates, strings, data);
    /// BETWEEN only numbers and dates.
    private func requireOrdered(
        _ property: PropertySchema, _ comparison: PredicateOperator, between: Bool
    ) throws(Realm.Error) {
        switch property.type {
        case .int, .float, .double, .date: return
        case .string where !between, .data where !between: return
        default: throw Realm.Error.unsupportedOperator(comparison.rawValue, property)
        }
    }

    /// `constant` as `property` stores it, the form a typed query encodes the same value in;
    /// a constant of another type is refused as RLMQueryUtil refuses it (an integer property
    /// takes no fractional number, a bool only 0 and 1, a float only what fits).
    private func stored(_ constant: PredicateConstant, for property: PropertySchema) throws(Realm.Error) -> Value {
        switch (property.type, constant) {
        case (_, .null):
            guard property.isOptional || property.type == .object else { break }
            return .null
        case (.int, .int(let value)): return .int(value)
        case (.float, .int(let value)): return .double(Double(Float(value)))
        case (.float, .double(let value)):
            // RLMQueryUtil's `numberIsFloat`: what a float can hold, or NaN.
            guard value.isNaN || abs(value) <= Double(Float.greatestFiniteMagnitude) else { break }
            return .double(Double(Float(value)))
        case (.double, .int(let value)): return .double(Double(value))
        case (.double, .double(let value)): return .double(value)
        case (.bool, .bool(let value)): return .bool(value)
        case (.bool, .int(let value)) where value == 0 || value == 1: return .bool(value == 1)
        case (.string, .string(let value)): return .string(value)
        case (.data, .data(let value)): return try value._strataEncode(realm: nil)
        case (.date, .date(let value)): return try value._strataEncode(realm: nil)
        case (.uuid, .uuid(let value)): return try value._strataEncode(realm: nil)
        case (.object, .unsupported):
            throw Realm.Error.unsupportedPredicate(
                "comparing link '\(property.name)' with an object is not supported by Strata's queries yet")
        case (.uuid, .string(let text)):
            guard let value = UUID(uuidString: text) else { break }
            return try value._strataEncode(realm: nil)
        default: break
        }
        throw Realm.Error.predicate(
            "Invalid value",
            "Cannot compare value '\(constant.description)' of type '\(constant.typeName)' to property "
                + "'\(property.name)' of type '\(property.objectClassName ?? property.typeName)'")
    }
}

extension PredicateComparison {
    var folding: StringOptions {
        var folding: StringOptions = []
        if caseInsensitive { folding.insert(.caseInsensitive) }
        if diacriticInsensitive { folding.insert(.diacriticInsensitive) }
        return folding
    }
}

extension PredicateOperator {
    /// The stored comparison of an ordering operator.
    var ordering: Predicate.Comparison {
        switch self {
        case .less: return .less
        case .lessOrEqual: return .lessOrEqual
        case .greater: return .greater
        default: return .greaterOrEqual
        }
    }
}

extension PredicateConstant: CustomStringConvertible {
    var description: String {
        switch self {
        case .null: return "(null)"
        case .bool(let value): return value ? "1" : "0"
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return value
        case .date(let value): return value.description
        case .data(let value): return "<\(value.count) bytes>"
        case .uuid(let value): return value.uuidString
        case .list(let values): return "(" + values.map(\.description).joined(separator: ", ") + ")"
        case .unsupported(let type): return "<\(type)>"
        }
    }

    /// The Foundation class RLMQueryUtil names for a constant of this kind (a format's numbers
    /// are NSNumbers there).
    var typeName: String {
        switch self {
        case .null: return "(null)"
        case .bool: return "__NSCFBoolean"
        case .int, .double: return "__NSCFNumber"
        case .string: return "NSString"
        case .date: return "NSDate"
        case .data: return "NSData"
        case .uuid: return "NSUUID"
        case .list: return "NSArray"
        case .unsupported(let type): return type
        }
    }
}

extension PropertySchema {
    /// The type's name in Realm's predicate messages (`int`, `string`, `object`, ...).
    var typeName: String { type.description }
}

extension Realm.Error {
    /// NSPredicate's refusal of a format, with where and why it stopped.
    static func unparsablePredicate(_ format: String, offset: Int, reason: String) -> Realm.Error {
        misuse("Unable to parse the format string \"\(format)\": \(reason) at offset \(offset)")
    }
    /// An exception of RLMQueryUtil: its name, then its reason, as one message.
    static func predicate(_ name: String, _ reason: String) -> Realm.Error { misuse("\(name): \(reason)") }
    /// A key path the class cannot follow.
    static func invalidKeyPath(_ path: String, _ why: String) -> Realm.Error {
        predicate("Invalid predicate", "Invalid keypath '\(path)': \(why)")
    }
    /// An operator the property's type does not have.
    static func unsupportedOperator(_ spelled: String, _ property: PropertySchema) -> Realm.Error {
        predicate("Invalid operator type", "Operator '\(spelled)' not supported for type '\(property.typeName)'")
    }
    /// A predicate Realm accepts that Strata's queries cannot state yet (`Spec/differences.md`).
    static func unsupportedPredicate(_ why: String) -> Realm.Error {
        predicate("Unsupported predicate", why)
    }
}
