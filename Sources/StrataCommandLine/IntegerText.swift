/// Reads the integer spellings the tools accept: `100000`, `100_000`, `100k`, `1.5M`, `2G`,
/// `0xff_ff`, with an optional sign for signed results.
///
/// Suffixes are decimal (k = 1_000) because they count records and operations, not bytes.
enum IntegerText {
    /// The result of reading one integer.
    enum Outcome<Value: Equatable>: Equatable {
        case value(Value)
        /// Not an integer spelling at all (or a fraction that does not come out whole).
        case invalid
        /// A well-formed integer that does not fit the result type.
        case outOfRange
    }

    /// Reads a signed integer.
    static func int(_ text: String) -> Outcome<Int> {
        var body = Substring(text)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        switch magnitude(body) {
        case .invalid:
            return .invalid
        case .outOfRange:
            return .outOfRange
        case .value(let magnitude):
            if negative {
                // Int.min's magnitude is one more than Int.max, so compare before negating.
                if magnitude == UInt64(Int.max) + 1 { return .value(Int.min) }
                guard magnitude <= UInt64(Int.max) else { return .outOfRange }
                return .value(-Int(magnitude))
            }
            guard magnitude <= UInt64(Int.max) else { return .outOfRange }
            return .value(Int(magnitude))
        }
    }

    /// Reads an unsigned 64-bit integer; no sign is accepted.
    static func uint64(_ text: String) -> Outcome<UInt64> {
        magnitude(Substring(text))
    }

    /// Reads an unsigned magnitude in decimal (with suffix) or `0x` hexadecimal.
    static func magnitude(_ text: Substring) -> Outcome<UInt64> {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            guard isGrouped(digits, digit: \.isHexDigit) else { return .invalid }
            return accumulate(digits, radix: 16)
        }
        var body = text
        var exponent = 0
        switch body.last {
        case "k", "K": exponent = 3
        case "M": exponent = 6
        case "G": exponent = 9
        default: break
        }
        if exponent > 0 { body = body.dropLast() }
        var whole = body
        var fraction: Substring = ""
        if let dot = body.firstIndex(of: ".") {
            whole = body[..<dot]
            fraction = body[body.index(after: dot)...]
            guard exponent > 0, isGrouped(fraction, digit: isDecimalDigit) else { return .invalid }
        }
        guard isGrouped(whole, digit: isDecimalDigit) else { return .invalid }
        // Trailing fraction zeros do not make a value fractional: 1.50k is 1500.
        var fractionDigits = Substring(fraction.filter { $0 != "_" })
        while fractionDigits.last == "0" { fractionDigits = fractionDigits.dropLast() }
        guard fractionDigits.count <= exponent else { return .invalid }
        guard case .value(let wholeValue) = accumulate(whole, radix: 10) else { return .outOfRange }
        var fractionValue: UInt64 = 0
        if !fractionDigits.isEmpty {
            guard case .value(let value) = accumulate(fractionDigits, radix: 10) else {
                return .invalid
            }
            fractionValue = value
        }
        let (scaledWhole, overflowWhole) = wholeValue.multipliedReportingOverflow(
            by: power10(exponent)
        )
        let fractionScale = power10(exponent - fractionDigits.count)
        let (scaledFraction, overflowFraction) = fractionValue.multipliedReportingOverflow(
            by: fractionScale
        )
        let (sum, overflowSum) = scaledWhole.addingReportingOverflow(scaledFraction)
        guard !overflowWhole, !overflowFraction, !overflowSum else { return .outOfRange }
        return .value(sum)
    }

    /// Whether `digits` is non-empty digits with single underscores only between digits.
    private static func isGrouped(_ digits: Substring, digit: (Character) -> Bool) -> Bool {
        guard let first = digits.first, let last = digits.last, digit(first), digit(last) else {
            return false
        }
        var previousWasUnderscore = false
        for character in digits {
            if character == "_" {
                if previousWasUnderscore { return false }
                previousWasUnderscore = true
            } else if digit(character) {
                previousWasUnderscore = false
            } else {
                return false
            }
        }
        return true
    }

    private static func isDecimalDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }

    /// Folds validated digits (underscores skipped) into a value, detecting overflow.
    private static func accumulate(_ digits: Substring, radix: UInt64) -> Outcome<UInt64> {
        var result: UInt64 = 0
        for character in digits where character != "_" {
            guard let digit = character.hexDigitValue, UInt64(digit) < radix else {
                return .invalid
            }
            let (shifted, overflowShift) = result.multipliedReportingOverflow(by: radix)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflowShift, !overflowAdd else { return .outOfRange }
            result = sum
        }
        return .value(result)
    }

    private static func power10(_ exponent: Int) -> UInt64 {
        var result: UInt64 = 1
        for _ in 0..<exponent { result *= 10 }
        return result
    }
}
