import Foundation

// The predicate format language of `filter(_ predicateFormat: String, _ args: Any...)`:
// NSPredicate's syntax, read by our own parser (Spec V23). Parsing binds the arguments, so the
// syntax tree holds only values; `PredicateFormat+Compile.swift` turns it into the `Predicate` a
// typed `where` builds, against one class's schema.

/// A constant of a predicate: a literal of the format or an argument bound to `%@`.
enum PredicateConstant: Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    /// `{1, 2}` or an array argument: the right side of IN and BETWEEN.
    case list([PredicateConstant])
    /// An argument of a type no property holds (an object, a dictionary, ...), by its type name.
    case unsupported(String)
}

/// One side of a comparison.
enum PredicateOperand: Equatable {
    /// A property name, or a dotted key path (`dog.name`, `list.@count`); `self` for the element.
    case keyPath(String)
    case constant(PredicateConstant)
}

/// A comparison's operator, as the format spells it.
enum PredicateOperator: String, Equatable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"
    case `in` = "IN"
    case between = "BETWEEN"

    /// The operator that means the same with its operands swapped (`3 < age` is `age > 3`); nil
    /// for the string and collection operators, which have no mirror image.
    var mirrored: PredicateOperator? {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return nil
        }
    }
}

/// `ANY`, `ALL`, `NONE` (and `SOME`, which is `ANY`) before a comparison.
enum PredicateQuantifier: Equatable { case any, all, noneOf }

/// A parsed comparison.
struct PredicateComparison: Equatable {
    var quantifier: PredicateQuantifier?
    var left: PredicateOperand
    var comparison: PredicateOperator
    var caseInsensitive: Bool
    var diacriticInsensitive: Bool
    var right: PredicateOperand
    /// Where the comparison begins in the format, for errors.
    var offset: Int
}

/// `SUBQUERY(collection, $variable, predicate).@count` compared with a number: how many
/// objects of the collection meet the predicate, whose key paths begin with the variable.
struct PredicateSubquery: Equatable {
    var collection: String
    var variable: String
    var predicate: PredicateSyntax
    var comparison: PredicateOperator
    var count: PredicateConstant
    var offset: Int
}

/// A parsed predicate.
indirect enum PredicateSyntax: Equatable {
    case always(Bool)
    case comparison(PredicateComparison)
    case subquery(PredicateSubquery)
    case and(PredicateSyntax, PredicateSyntax)
    case or(PredicateSyntax, PredicateSyntax)
    case not(PredicateSyntax)
}

/// Reads a predicate format with its arguments.
struct PredicateFormatParser {
    /// A parse failure: what was expected and where.
    struct Failure: Error, Equatable {
        var offset: Int
        var reason: String
        /// Realm's own message, for a format NSPredicate reads and Realm then refuses.
        var realmMessage: String?
    }

    private enum Token: Equatable {
        case word(String)
        case keyPath(String)
        case string(String)
        case number(PredicateConstant)
        case argument(Character)
        case symbol(String)
        case end
    }

    private let scalars: [Unicode.Scalar]
    private var arguments: [Any?]
    private var nextArgument = 0
    private var position = 0
    private var token: Token = .end
    private var tokenOffset = 0

    /// Parses `format`, binding `arguments` to its `%@`, `%K`, `%d` and `%f` in order (any left
    /// over are ignored).
    static func parse(_ format: String, arguments: [Any?]) throws(Failure) -> PredicateSyntax {
        var parser = PredicateFormatParser(format: format, arguments: arguments)
        try parser.advance()
        let syntax = try parser.disjunction()
        guard parser.token == .end else { throw parser.failure("unexpected \(parser.describe(parser.token))") }
        // Arguments the format does not use are ignored, as NSPredicate ignores them.
        return syntax
    }

    private init(format: String, arguments: [Any?]) {
        self.scalars = Array(format.unicodeScalars)
        self.arguments = arguments
    }

    // MARK: grammar

    private mutating func disjunction() throws(Failure) -> PredicateSyntax {
        var result = try conjunction()
        while isWord("OR") || token == .symbol("||") {
            try advance()
            result = .or(result, try conjunction())
        }
        return result
    }

    /// AND binds tighter than OR: a conjunction is a run of negations.
    private mutating func conjunction() throws(Failure) -> PredicateSyntax {
        var result = try negation()
        while isWord("AND") || token == .symbol("&&") {
            try advance()
            result = .and(result, try negation())
        }
        return result
    }

    private mutating func negation() throws(Failure) -> PredicateSyntax {
        if isWord("NOT") || token == .symbol("!") {
            try advance()
            return .not(try negation())
        }
        return try primary()
    }

    private mutating func primary() throws(Failure) -> PredicateSyntax {
        if token == .symbol("(") {
            try advance()
            let inner = try disjunction()
            try expect(")")
            return inner
        }
        if isWord("TRUEPREDICATE") || isWord("FALSEPREDICATE") {
            let value = isWord("TRUEPREDICATE")
            try advance()
            return .always(value)
        }
        if isWord("SUBQUERY") { return .subquery(try subquery()) }
        return .comparison(try comparison())
    }

    /// `SUBQUERY(collection, $x, predicate).@count`, then an operator and a number, with
    /// RLMQueryUtil's refusals of what Realm does not take.
    private mutating func subquery() throws(Failure) -> PredicateSubquery {
        let offset = tokenOffset
        try advance()
        try expect("(")
        var collection: String
        switch token {
        case .keyPath(let path): collection = path
        case .argument("K"):
            guard nextArgument < arguments.count, let name = arguments[nextArgument] as? String else {
                throw failure("%K needs a String argument")
            }
            nextArgument += 1
            collection = name
        default: throw failure("expected the collection of SUBQUERY, found \(describe(token))")
        }
        try extendKeyPath(&collection)
        try advance()
        try expect(",")
        guard case .keyPath(let variable) = token, variable.hasPrefix("$"), !variable.contains(".") else {
            throw failure("expected the variable of SUBQUERY (such as $x), found \(describe(token))")
        }
        try advance()
        try expect(",")
        let predicate = try disjunction()
        guard token == .symbol(")") else { throw failure("expected ')', found \(describe(token))") }
        // `.@count` follows the parenthesis directly, so the tokenizer never sees it.
        let countSuffix = Array(".@count".unicodeScalars)
        let followedByCount =
            position + countSuffix.count <= scalars.count
            && Array(scalars[position..<position + countSuffix.count]) == countSuffix
        if followedByCount { position += countSuffix.count }
        try advance()
        guard followedByCount else {
            var refusal = failure("SUBQUERY must be followed by .@count")
            refusal.realmMessage =
                "Invalid predicate: SUBQUERY is only supported when immediately followed by .@count that is compared "
                + "with a constant number."
            throw refusal
        }
        let comparison = try comparisonOperator()
        guard case .constant(let count) = try operand(), Self.isNumber(count) else {
            var refusal = failure("SUBQUERY(…).@count compares with a number")
            refusal.realmMessage =
                "Invalid predicate expression: SUBQUERY(…).@count is only supported when compared with a constant number."
            throw refusal
        }
        return PredicateSubquery(
            collection: collection, variable: variable, predicate: predicate, comparison: comparison, count: count,
            offset: offset)
    }

    private static func isNumber(_ constant: PredicateConstant) -> Bool {
        switch constant {
        case .int, .double, .bool: return true
        default: return false
        }
    }

    private mutating func comparison() throws(Failure) -> PredicateComparison {
        let offset = tokenOffset
        var quantifier: PredicateQuantifier?
        if isWord("ANY") || isWord("SOME") {
            quantifier = .any
        } else if isWord("ALL") {
            quantifier = .all
        } else if isWord("NONE") {
            quantifier = .noneOf
        }
        if quantifier != nil { try advance() }
        if isWord("SUBQUERY") {
            // `ANY SUBQUERY(…)`: a quantifier applies to a key path, not to a subquery's count.
            var refusal = failure("a quantifier cannot apply to SUBQUERY")
            refusal.realmMessage =
                "Invalid predicate: SUBQUERY is only supported when immediately followed by .@count that is compared "
                + "with a constant number."
            throw refusal
        }
        let left = try operand()
        let comparison = try comparisonOperator()
        var caseInsensitive = false
        var diacriticInsensitive = false
        if token == .symbol("[") {
            try advance()
            guard case .word(let letters) = token else { throw failure("expected comparison options such as [c]") }
            for letter in letters.lowercased() {
                switch letter {
                case "c": caseInsensitive = true
                case "d": diacriticInsensitive = true
                default: throw failure("unknown comparison option '\(letter)'")
                }
            }
            try advance()
            try expect("]")
        }
        let right = try operand()
        return PredicateComparison(
            quantifier: quantifier, left: left, comparison: comparison, caseInsensitive: caseInsensitive,
            diacriticInsensitive: diacriticInsensitive, right: right, offset: offset)
    }

    private mutating func comparisonOperator() throws(Failure) -> PredicateOperator {
        let found: PredicateOperator?
        switch token {
        case .symbol("=="), .symbol("="): found = .equal
        case .symbol("!="), .symbol("<>"): found = .notEqual
        case .symbol("<"): found = .less
        case .symbol("<="), .symbol("=<"): found = .lessOrEqual
        case .symbol(">"): found = .greater
        case .symbol(">="), .symbol("=>"): found = .greaterOrEqual
        case .word(let word):
            found = PredicateOperator(rawValue: word.uppercased()).flatMap {
                $0.rawValue.first?.isLetter == true ? $0 : nil
            }
        default: found = nil
        }
        guard let found else { throw failure("expected a comparison operator, found \(describe(token))") }
        try advance()
        return found
    }

    private mutating func operand() throws(Failure) -> PredicateOperand {
        switch token {
        case .keyPath(var path):
            try extendKeyPath(&path)
            try advance()
            return .keyPath(path)
        case .word(let word):
            let constant: PredicateConstant?
            switch word.uppercased() {
            case "NIL", "NULL": constant = .null
            case "TRUE", "YES": constant = .bool(true)
            case "FALSE", "NO": constant = .bool(false)
            case "SELF": constant = nil
            default: throw failure("unexpected \(describe(token))")
            }
            try advance()
            return constant.map(PredicateOperand.constant) ?? .keyPath("self")
        case .string(let text):
            try advance()
            return .constant(.string(text))
        case .number(let number):
            try advance()
            return .constant(number)
        case .argument(let specifier):
            guard nextArgument < arguments.count else { throw failure("too few arguments for the format") }
            let argument = arguments[nextArgument]
            nextArgument += 1
            let bound: PredicateOperand
            switch specifier {
            case "K":
                guard var name = argument as? String else { throw failure("%K needs a String argument") }
                try extendKeyPath(&name)
                bound = .keyPath(name)
            case "d", "i", "u":
                guard case .int = PredicateFormatParser.constant(argument) else {
                    throw failure("%\(specifier) needs an integer argument")
                }
                bound = .constant(PredicateFormatParser.constant(argument))
            case "f":
                switch PredicateFormatParser.constant(argument) {
                case .int(let value): bound = .constant(.double(Double(value)))
                case .double(let value): bound = .constant(.double(value))
                default: throw failure("%f needs a number argument")
                }
            default:
                bound = .constant(PredicateFormatParser.constant(argument))
            }
            try advance()
            return bound
        case .symbol("{"):
            try advance()
            var elements: [PredicateConstant] = []
            while token != .symbol("}") {
                if !elements.isEmpty { try expect(",") }
                guard case .constant(let element) = try operand() else {
                    var refusal = failure("an aggregate {…} holds only constants")
                    refusal.realmMessage =
                        "Invalid value: Expressions within predicate aggregates must be constant values"
                    throw refusal
                }
                elements.append(element)
            }
            try advance()
            return .constant(.list(elements))
        case .symbol("-"):
            try advance()
            switch token {
            case .number(.int(let value)):
                try advance()
                return .constant(.int(0 &- value))
            case .number(.double(let value)):
                try advance()
                return .constant(.double(-value))
            default:
                throw failure("expected a number after '-'")
            }
        default:
            throw failure("expected a key path or a value, found \(describe(token))")
        }
    }

    /// Reads the rest of a key path the current token began, from right after it: `.name` and
    /// `.%K` steps (`%K.%K`, `link.%K`, `%K.name`), before the next token is read.
    private mutating func extendKeyPath(_ path: inout String) throws(Failure) {
        while position + 1 < scalars.count, scalars[position] == "." {
            position += 1
            if scalars[position] == "%", position + 1 < scalars.count, scalars[position + 1] == "K" {
                guard nextArgument < arguments.count, let name = arguments[nextArgument] as? String else {
                    throw Failure(offset: position, reason: "%K needs a String argument")
                }
                nextArgument += 1
                position += 2
                path += "." + name
            } else if Self.startsWord(scalars[position]) {
                let start = position
                while position < scalars.count, Self.continuesWord(scalars[position]) { position += 1 }
                path += "." + String(String.UnicodeScalarView(scalars[start..<position]))
            } else {
                throw Failure(offset: position, reason: "expected a property name after '.'")
            }
        }
    }

    private func isWord(_ keyword: String) -> Bool {
        if case .word(let word) = token { return word.uppercased() == keyword }
        return false
    }

    private mutating func expect(_ symbol: String) throws(Failure) {
        guard token == .symbol(symbol) else { throw failure("expected '\(symbol)', found \(describe(token))") }
        try advance()
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: tokenOffset, reason: reason) }

    private func describe(_ token: Token) -> String {
        switch token {
        case .word(let word): return "'\(word)'"
        case .keyPath(let path): return "'\(path)'"
        case .string(let text): return "the string '\(text)'"
        case .number: return "a number"
        case .argument(let specifier): return "'%\(specifier)'"
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "the end of the format"
        }
    }

    // MARK: tokens

    /// Words that are operators or constants, not key paths (NSPredicate's reserved words;
    /// `#word` names a property that is spelled like one).
    private static let reserved: Set<String> = [
        "AND", "OR", "NOT", "TRUEPREDICATE", "FALSEPREDICATE", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
        "MATCHES", "IN", "BETWEEN", "ANY", "ALL", "NONE", "SOME", "NIL", "NULL", "TRUE", "FALSE", "YES", "NO",
        "SELF", "SUBQUERY",
    ]

    private mutating func advance() throws(Failure) {
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
        tokenOffset = position
        guard position < scalars.count else {
            token = .end
            return
        }
        let first = scalars[position]
        if first == "'" || first == "\"" {
            token = .string(try quoted(first))
        } else if ("0"..."9").contains(first) {
            token = .number(try number())
        } else if first == "%" {
            position += 1
            // %@, %K, %d, %i, %u, %f with the length modifiers l, ll, q that C formats allow.
            while position < scalars.count, ["l", "q", "h"].contains(scalars[position]) { position += 1 }
            guard position < scalars.count, "@Kdiuf".unicodeScalars.contains(scalars[position]) else {
                throw Failure(offset: tokenOffset, reason: "unknown format specifier")
            }
            token = .argument(Character(scalars[position]))
            position += 1
        } else if Self.startsWord(first) {
            token = try word()
        } else {
            let pairs = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"]
            let two =
                position + 1 < scalars.count ? String(String.UnicodeScalarView([first, scalars[position + 1]])) : ""
            if pairs.contains(two) {
                token = .symbol(two)
                position += 2
            } else if "=<>!(){}[],-".unicodeScalars.contains(first) {
                token = .symbol(String(first))
                position += 1
            } else {
                throw Failure(offset: tokenOffset, reason: "unexpected character '\(first)'")
            }
        }
    }

    private static func startsWord(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar == "_" || scalar == "$" || scalar == "@" || scalar == "#"
    }

    private static func continuesWord(_ scalar: Unicode.Scalar) -> Bool {
        startsWord(scalar) || ("0"..."9").contains(scalar)
    }

    /// A keyword, or a key path: names joined by dots (`dog.name`, `list.@count`).
    private mutating func word() throws(Failure) -> Token {
        var segments: [String] = []
        var escaped = false
        repeat {
            if !segments.isEmpty { position += 1 }  // the dot
            if position < scalars.count, scalars[position] == "#" {
                escaped = true
                position += 1
            }
            let start = position
            while position < scalars.count, Self.continuesWord(scalars[position]), scalars[position] != "#" {
                position += 1
            }
            guard position > start else { throw Failure(offset: position, reason: "expected a property name") }
            segments.append(String(String.UnicodeScalarView(scalars[start..<position])))
        } while position + 1 < scalars.count && scalars[position] == "." && Self.startsWord(scalars[position + 1])
        if segments.count == 1, !escaped, Self.reserved.contains(segments[0].uppercased()) {
            return .word(segments[0])
        }
        // "c" of "[c]" and "cd" of "[cd]" read as words too; `comparison` takes them as options.
        return segments.count == 1 && !escaped && position < scalars.count && scalars[position] == "]"
            ? .word(segments[0]) : .keyPath(segments.joined(separator: "."))
    }

    private mutating func quoted(_ quote: Unicode.Scalar) throws(Failure) -> String {
        let start = position
        position += 1
        var text = String.UnicodeScalarView()
        while position < scalars.count, scalars[position] != quote {
            var scalar = scalars[position]
            if scalar == "\\" {
                position += 1
                guard position < scalars.count else { break }
                switch scalars[position] {
                case "n": scalar = "\n"
                case "t": scalar = "\t"
                case "r": scalar = "\r"
                case "0": scalar = "\0"
                default: scalar = scalars[position]
                }
            }
            text.append(scalar)
            position += 1
        }
        guard position < scalars.count else { throw Failure(offset: start, reason: "unterminated string") }
        position += 1
        return String(text)
    }

    private mutating func number() throws(Failure) -> PredicateConstant {
        let start = position
        var text = ""
        if scalars[position] == "0", position + 1 < scalars.count, ["x", "X"].contains(scalars[position + 1]) {
            position += 2
            while position < scalars.count, scalars[position].properties.isASCIIHexDigit {
                text.unicodeScalars.append(scalars[position])
                position += 1
            }
            guard let value = UInt64(text, radix: 16) else { throw Failure(offset: start, reason: "invalid number") }
            return .int(Int64(bitPattern: value))
        }
        var isDouble = false
        while position < scalars.count {
            let scalar = scalars[position]
            if ("0"..."9").contains(scalar) {
                text.unicodeScalars.append(scalar)
            } else if scalar == ".", !isDouble, position + 1 < scalars.count,
                ("0"..."9").contains(scalars[position + 1])
            {
                isDouble = true
                text.unicodeScalars.append(scalar)
            } else if scalar == "e" || scalar == "E" {
                isDouble = true
                text.unicodeScalars.append(scalar)
                if position + 1 < scalars.count, scalars[position + 1] == "-" || scalars[position + 1] == "+" {
                    position += 1
                    text.unicodeScalars.append(scalars[position])
                }
            } else {
                break
            }
            position += 1
        }
        if !isDouble, let value = Int64(text) { return .int(value) }
        guard let value = Double(text) else { throw Failure(offset: start, reason: "invalid number '\(text)'") }
        return .double(value)
    }

    // MARK: arguments

    /// The constant an argument stands for: numbers, strings, dates, data, UUIDs, nil and
    /// `NSNull`, and sequences of them (for IN and BETWEEN).
    static func constant(_ argument: Any?) -> PredicateConstant {
        guard let argument else { return .null }
        let mirror = Mirror(reflecting: argument)
        if mirror.displayStyle == .optional {
            return mirror.children.first.map { constant($0.value) } ?? .null
        }
        if argument is NSNull { return .null }
        switch AnyValue.number(argument) {
        case .bool(let value)?: return .bool(value)
        case .integer(let value)?: return .int(value)
        case .float(let value)?: return .double(Double(value))
        case .double(let value)?: return .double(value)
        case nil: break
        }
        switch argument {
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Date: return .date(value)
        case let value as Data: return .data(value)
        case let value as UUID: return .uuid(value)
        default: break
        }
        if mirror.displayStyle == .collection || mirror.displayStyle == .set {
            return .list(mirror.children.map { constant($0.value) })
        }
        return .unsupported(String(describing: type(of: argument)))
    }
}
