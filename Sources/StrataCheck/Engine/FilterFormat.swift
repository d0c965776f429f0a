import StrataModel

/// The predicate formats the engine side spells a query's filter in (generation 10, Spec V23):
/// each spelling of `value >= m` and of `value == e` is an equivalent NSPredicate form, so the
/// model's answer for the typed query is the answer for every one of them. Constants stand on
/// either side, as arguments or literals, so a parser that mirrors an operator wrongly, binds
/// an argument to the wrong place or reads a form differently diverges from the model.
struct FilterFormat: Equatable {
    /// An argument of the format: a number for `%@` / `%d`, or a property name for `%K`.
    enum Argument: Equatable {
        case int(Int)
        case ints([Int])
        case name(String)

        var value: Any {
            switch self {
            case .int(let value): return value
            case .ints(let values): return values
            case .name(let name): return name
            }
        }

        /// The argument as Swift source, for a rendered script.
        var literal: String {
            switch self {
            case .int(let value): return String(value)
            case .ints(let values): return "[" + values.map(String.init).joined(separator: ", ") + "]"
            case .name(let name): return "\"\(name)\""
            }
        }
    }

    var format: String
    var arguments: [Argument]

    /// How many spellings each condition has: `spelling % count` picks the minimum's and
    /// `spelling / count` the equality's.
    static let count = 8

    /// The format of `query`'s filter in its spelling; nil for a typed query or one without a
    /// filter.
    init?(_ query: Query) {
        guard let spelling = query.formatSpelling,
            query.minimumValue != nil || query.equalValue != nil || query.linkMinimumValue != nil
                || query.collectionMinimum != nil
        else { return nil }
        var parts: [String] = []
        var arguments: [Argument] = []
        if let minimum = query.minimumValue {
            let (part, bound) = FilterFormat.minimum(minimum, Int(spelling) % FilterFormat.count)
            parts.append(part)
            arguments += bound
        }
        if let equal = query.equalValue {
            let (part, bound) = FilterFormat.equality(equal, Int(spelling) / FilterFormat.count % FilterFormat.count)
            parts.append(part)
            arguments += bound
        }
        if let linkMinimum = query.linkMinimumValue {
            let (part, bound) = FilterFormat.linkMinimum(linkMinimum, Int(spelling) / 3 % 4)
            parts.append(part)
            arguments += bound
        }
        if let collection = query.collectionMinimum {
            // Spellings from 64 on (generation 15's draws) count through a SUBQUERY instead.
            let (part, bound) =
                spelling >= FilterFormat.count * FilterFormat.count
                ? FilterFormat.collectionSubquery(collection, Int(spelling) / 5 % 4)
                : FilterFormat.collectionMinimum(collection, Int(spelling) / 5 % 8)
            parts.append(part)
            arguments += bound
        }
        format = parts.joined(separator: spelling % 3 == 0 ? " AND " : " && ")
        self.arguments = arguments
    }

    /// `value >= m`: nulls never match, as the typed query's comparison with null never does.
    private static func minimum(_ m: Int, _ variant: Int) -> (String, [Argument]) {
        switch variant {
        case 0: return ("value >= \(m)", [])
        case 1: return ("\(m) <= value", [])
        case 2: return ("value >= %@", [.int(m)])
        case 3: return ("%K >= %d", [.name("value"), .int(m)])
        case 4: return ("(NOT value < \(m) AND value != nil)", [])
        case 5: return ("value BETWEEN {\(m), \(Int.max)}", [])
        case 6: return ("%@ < value", [.int(m - 1)])
        default: return ("value > \(m - 1)", [])
        }
    }

    /// `link.value >= m` (Spec V23: a null link reads as a null value, which fails it).
    private static func linkMinimum(_ m: Int, _ variant: Int) -> (String, [Argument]) {
        switch variant {
        case 0: return ("link.value >= \(m)", [])
        case 1: return ("\(m) <= link.value", [])
        case 2: return ("%K.%K >= %@", [.name("link"), .name("value"), .int(m)])
        default: return ("link.value BETWEEN {\(m), \(Int.max)}", [])
        }
    }

    /// `ANY <collection>.value >= m` (generation 13, Spec V23): ANY, SOME, NOT NONE and `@max`
    /// say the same (a maximum skips nulls, as ANY's comparison with a null never holds).
    /// Through LinkingObjects too (generation 14, Spec V26).
    private static func collectionMinimum(_ condition: CollectionMinimum, _ variant: Int) -> (String, [Argument]) {
        let name = condition.propertyName
        let m = condition.minimum
        switch variant {
        case 0: return ("ANY \(name).value >= \(m)", [])
        case 1: return ("SOME \(name).value >= %@", [.int(m)])
        case 2: return ("NOT (NONE \(name).value >= \(m))", [])
        case 3: return ("\(name).@max.value >= \(m)", [])
        case 4: return ("ANY %K.value >= %d", [.name(name), .int(m)])
        case 5: return ("ANY \(name).value > \(m - 1)", [])
        case 6: return ("\(name).@max.value > %@", [.int(m - 1)])
        default: return ("!(NONE \(name).value BETWEEN {\(m), \(Int.max)})", [])
        }
    }

    /// `ANY <collection>.value >= m` as a SUBQUERY's count (generation 15, Spec V23): some
    /// object meets it exactly when the count of those that do is not zero.
    private static func collectionSubquery(_ condition: CollectionMinimum, _ variant: Int) -> (String, [Argument]) {
        let name = condition.propertyName
        let m = condition.minimum
        switch variant {
        case 0: return ("SUBQUERY(\(name), $x, $x.value >= \(m)).@count > 0", [])
        case 1: return ("SUBQUERY(\(name), $item, $item.value >= %@).@count >= 1", [.int(m)])
        case 2: return ("SUBQUERY(%K, $x, $x.value > \(m - 1)).@count != 0", [.name(name)])
        default: return ("NOT (SUBQUERY(\(name), $x, $x.value >= %d).@count == 0)", [.int(m)])
        }
    }

    /// `value == e`.
    private static func equality(_ e: Int, _ variant: Int) -> (String, [Argument]) {
        switch variant {
        case 0: return ("value == \(e)", [])
        case 1: return ("\(e) = value", [])
        case 2: return ("value == %@", [.int(e)])
        case 3: return ("value IN {\(e)}", [])
        case 4: return ("value IN %@", [.ints([e])])
        case 5: return ("value BETWEEN {\(e), \(e)}", [])
        case 6: return ("(value >= %@) && (value <= %@)", [.int(e), .int(e)])
        default: return ("%K == %@", [.name("value"), .int(e)])
        }
    }
}
