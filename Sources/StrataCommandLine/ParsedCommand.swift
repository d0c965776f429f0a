/// The validated arguments of one invocation, with lookup by option and positional name.
///
/// Options given before a subcommand name belong to the parent command, options after it to the
/// subcommand; both are looked up here by long name.
public struct ParsedCommand: Sendable, Equatable {
    /// The tool name followed by the chosen subcommands, e.g. `["strata-tool", "verify"]`.
    public let commandPath: [String]
    /// The specification of the command that was selected (the last element of the path).
    public let spec: CommandSpec
    /// Every value given for each value option, in command-line order, keyed by long name.
    let optionValues: [String: [String]]
    /// How many times each option was given, keyed by long name.
    let optionCounts: [String: Int]
    /// The positional arguments in order.
    public let positionalArguments: [String]
    /// Long names of every option declared along the command path, for catching lookup typos.
    let declaredOptions: Set<String>
    /// Positional names declared by the selected command.
    let declaredPositionals: [String]

    init(
        commandPath: [String],
        spec: CommandSpec,
        optionValues: [String: [String]],
        optionCounts: [String: Int],
        positionalArguments: [String],
        declaredOptions: Set<String>
    ) {
        self.commandPath = commandPath
        self.spec = spec
        self.optionValues = optionValues
        self.optionCounts = optionCounts
        self.positionalArguments = positionalArguments
        self.declaredOptions = declaredOptions
        self.declaredPositionals = spec.positionals.map(\.name)
    }

    /// The subcommand names chosen below the tool, e.g. `["stat"]`; empty for the root command.
    public var subcommandPath: [String] {
        Array(commandPath.dropFirst())
    }

    /// Whether the flag (or option) `long` was given at least once.
    public func flag(_ long: String) -> Bool {
        count(long) > 0
    }

    /// How many times the option `long` was given, e.g. 2 for `-v -v`.
    public func count(_ long: String) -> Int {
        checkDeclared(long)
        return optionCounts[long] ?? 0
    }

    /// The value of option `long`, the last one if it was repeated; `nil` when not given.
    public func value(_ long: String) -> String? {
        values(long).last
    }

    /// Every value given for option `long`, in command-line order.
    public func values(_ long: String) -> [String] {
        checkDeclared(long)
        return optionValues[long] ?? []
    }

    /// The positional argument declared as `name`; `nil` when an optional one was left out.
    public func positional(_ name: String) -> String? {
        guard let index = declaredPositionals.firstIndex(of: name) else {
            assertionFailure("positional \(name) is not declared by \(commandPath)")
            return nil
        }
        return index < positionalArguments.count ? positionalArguments[index] : nil
    }

    /// A usage error attributed to this command, for tools that validate arguments themselves.
    public func usageError(_ message: String) -> UsageError {
        UsageError(message, commandPath: commandPath)
    }

    /// Catches a misspelt name in the tool's own code, which would otherwise read as "absent".
    private func checkDeclared(_ long: String) {
        assert(declaredOptions.contains(long), "option --\(long) is not declared by \(commandPath)")
    }
}
