/// Declares one `--long` option (with an optional `-s` short form) that a command accepts.
public struct OptionSpec: Sendable, Equatable {
    /// Whether an option is a bare switch or carries a value.
    public enum Kind: Sendable, Equatable {
        /// A switch: present or absent, never followed by a value.
        case flag
        /// An option followed by a value; `valueName` is the placeholder shown in help ("N").
        case value(valueName: String)
    }

    /// The long name without dashes, e.g. `"commits"` for `--commits`.
    public var long: String
    /// The single-letter short name without the dash, e.g. `"c"` for `-c`.
    public var short: Character?
    /// One line of help text.
    public var help: String
    /// Whether this is a flag or a value option.
    public var kind: Kind
    /// The default shown in help; display only, the parser does not substitute it.
    public var defaultValue: String?
    /// Whether the option may be given more than once.
    public var isRepeatable: Bool

    /// Creates an option specification from all of its parts.
    public init(
        long: String,
        short: Character? = nil,
        help: String,
        kind: Kind,
        defaultValue: String? = nil,
        isRepeatable: Bool = false
    ) {
        self.long = long
        self.short = short
        self.help = help
        self.kind = kind
        self.defaultValue = defaultValue
        self.isRepeatable = isRepeatable
    }

    /// Declares a Boolean switch such as `--json`.
    public static func flag(
        _ long: String,
        short: Character? = nil,
        help: String,
        repeatable: Bool = false
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, help: help, kind: .flag, isRepeatable: repeatable)
    }

    /// Declares an option that takes a value, such as `--commits N`.
    public static func value(
        _ long: String,
        short: Character? = nil,
        valueName: String,
        help: String,
        default defaultValue: String? = nil,
        repeatable: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            long: long,
            short: short,
            help: help,
            kind: .value(valueName: valueName),
            defaultValue: defaultValue,
            isRepeatable: repeatable
        )
    }

    /// Whether the option consumes a value.
    public var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }

    /// The value placeholder for value options, `nil` for flags.
    public var valueName: String? {
        if case .value(let name) = kind { return name }
        return nil
    }
}
