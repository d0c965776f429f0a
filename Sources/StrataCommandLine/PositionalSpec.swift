/// Declares one positional argument, such as the `FILE` of `strata-tool verify FILE`.
public struct PositionalSpec: Sendable, Equatable {
    /// The placeholder shown in usage and used for lookup, e.g. `"FILE"`.
    public var name: String
    /// One line of help text.
    public var help: String
    /// Whether the argument may be left out; optional positionals must follow required ones.
    public var isOptional: Bool

    /// Creates a positional specification from all of its parts.
    public init(name: String, help: String, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
    }

    /// Declares a positional argument that must be given.
    public static func required(_ name: String, help: String) -> PositionalSpec {
        PositionalSpec(name: name, help: help, isOptional: false)
    }

    /// Declares a positional argument that may be left out.
    public static func optional(_ name: String, help: String) -> PositionalSpec {
        PositionalSpec(name: name, help: help, isOptional: true)
    }
}
