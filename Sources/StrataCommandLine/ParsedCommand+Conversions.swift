/// Typed readers for option values; each failure names the option and the text it rejected.
extension ParsedCommand {
    /// The integer value of `--long`, or `nil` when not given.
    ///
    /// Accepts `100000`, `100_000`, `100k`, `1.5M`, `2G` (decimal multiples), `0xff` and a sign.
    public func int(_ long: String) throws(UsageError) -> Int? {
        guard let text = value(long) else { return nil }
        switch IntegerText.int(text) {
        case .value(let value):
            return value
        case .invalid:
            throw usageError("--\(long) expects an integer (got '\(text)')")
        case .outOfRange:
            throw usageError("--\(long) is out of range for an integer (got '\(text)')")
        }
    }

    /// The integer value of `--long`, or `defaultValue` when not given.
    public func int(_ long: String, default defaultValue: Int) throws(UsageError) -> Int {
        try int(long) ?? defaultValue
    }

    /// The integer value of `--long` (or `defaultValue`), which must lie in `range`.
    public func int(
        _ long: String,
        default defaultValue: Int,
        range: ClosedRange<Int>
    ) throws(UsageError) -> Int {
        let value = try int(long, default: defaultValue)
        return try checked(long, value, lower: range.lowerBound, upper: range.upperBound)
    }

    /// The integer value of `--long` (or `defaultValue`), which must be at least the bound.
    public func int(
        _ long: String,
        default defaultValue: Int,
        range: PartialRangeFrom<Int>
    ) throws(UsageError) -> Int {
        let value = try int(long, default: defaultValue)
        return try checked(long, value, lower: range.lowerBound, upper: nil)
    }

    /// The integer value of `--long` (or `defaultValue`), which must be at most the bound.
    public func int(
        _ long: String,
        default defaultValue: Int,
        range: PartialRangeThrough<Int>
    ) throws(UsageError) -> Int {
        let value = try int(long, default: defaultValue)
        return try checked(long, value, lower: nil, upper: range.upperBound)
    }

    /// The integer value of `--long`, which must lie in `range`; `nil` when not given.
    public func int(_ long: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let value = try int(long) else { return nil }
        return try checked(long, value, lower: range.lowerBound, upper: range.upperBound)
    }

    /// The integer value of `--long`, which must be at least the bound; `nil` when not given.
    public func int(_ long: String, range: PartialRangeFrom<Int>) throws(UsageError) -> Int? {
        guard let value = try int(long) else { return nil }
        return try checked(long, value, lower: range.lowerBound, upper: nil)
    }

    /// The integer value of `--long`, which must be at most the bound; `nil` when not given.
    public func int(_ long: String, range: PartialRangeThrough<Int>) throws(UsageError) -> Int? {
        guard let value = try int(long) else { return nil }
        return try checked(long, value, lower: nil, upper: range.upperBound)
    }

    /// The unsigned 64-bit value of `--long`, decimal (with suffixes) or `0x` hex; `nil` if absent.
    public func uint64(_ long: String) throws(UsageError) -> UInt64? {
        guard let text = value(long) else { return nil }
        switch IntegerText.uint64(text) {
        case .value(let value):
            return value
        case .invalid:
            throw usageError(
                "--\(long) expects a non-negative integer, decimal or 0x-hex (got '\(text)')"
            )
        case .outOfRange:
            throw usageError("--\(long) does not fit in 64 bits (got '\(text)')")
        }
    }

    /// The unsigned 64-bit value of `--long`, or `defaultValue` when not given.
    public func uint64(_ long: String, default defaultValue: UInt64) throws(UsageError) -> UInt64 {
        try uint64(long) ?? defaultValue
    }

    /// The finite floating-point value of `--long` (`1.5`, `2e-3`, `1_000.5`); `nil` if absent.
    public func double(_ long: String) throws(UsageError) -> Double? {
        guard let text = value(long) else { return nil }
        // Double(String) also takes "nan", "inf" and hex floats, none of which a tool wants.
        let allowed = text.allSatisfy { "0123456789.eE+-_".contains($0) }
        let cleaned = text.filter { $0 != "_" }
        guard allowed, !text.hasPrefix("_"), !text.hasSuffix("_"), let value = Double(cleaned),
            value.isFinite
        else {
            throw usageError("--\(long) expects a finite number (got '\(text)')")
        }
        return value
    }

    /// The finite floating-point value of `--long`, or `defaultValue` when not given.
    public func double(_ long: String, default defaultValue: Double) throws(UsageError) -> Double {
        try double(long) ?? defaultValue
    }

    /// The shard `I/N` given for `--long`, with `0 <= I < N`; `nil` when not given.
    public func shard(_ long: String) throws(UsageError) -> Shard? {
        guard let text = value(long) else { return nil }
        guard let shard = Shard(parsing: text) else {
            throw usageError("--\(long) expects I/N with 0 <= I < N (got '\(text)')")
        }
        return shard
    }

    /// The shard given for `--long`, or `defaultValue` (typically `.whole`) when not given.
    public func shard(_ long: String, default defaultValue: Shard) throws(UsageError) -> Shard {
        try shard(long) ?? defaultValue
    }

    private func checked(
        _ long: String,
        _ value: Int,
        lower: Int?,
        upper: Int?
    ) throws(UsageError) -> Int {
        switch (lower, upper) {
        case (let lower?, let upper?) where value < lower || value > upper:
            throw usageError("--\(long) must be between \(lower) and \(upper) (got \(value))")
        case (let lower?, nil) where value < lower:
            throw usageError("--\(long) must be at least \(lower) (got \(value))")
        case (nil, let upper?) where value > upper:
            throw usageError("--\(long) must be at most \(upper) (got \(value))")
        default:
            return value
        }
    }
}
