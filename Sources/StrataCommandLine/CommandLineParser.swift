/// Turns an argument list into a `ParseResult` according to a `CommandSpec`.
///
/// Accepted forms: `--name value`, `--name=value`, `-n value`, `-nvalue`, clustered short flags
/// (`-vq`), `--` to end options, and subcommand names. A value may not look like an option
/// (`--commits --json` is a missing value), except negative numbers such as `-5`; use
/// `--name=-x` for other values that start with a dash. `--help` and `-h` are accepted by every
/// command and win over any other mistake on the same command line.
public enum CommandLineParser {
    /// Parses `arguments` (without the program name) against the root command `spec`.
    public static func parse(
        _ arguments: [String],
        spec: CommandSpec
    ) throws(UsageError) -> ParseResult {
        assert(
            spec.configurationProblems.isEmpty,
            "invalid command spec: \(spec.configurationProblems.joined(separator: "; "))"
        )
        var state = ParserState(arguments: arguments, root: spec)
        do {
            return try state.run()
        } catch {
            // Someone asking for help after a typo wants the help, not the typo report.
            if state.helpFollows() {
                return .helpRequested(state.command, commandPath: state.path)
            }
            throw error
        }
    }
}

/// The mutable walk over the argument list.
private struct ParserState {
    let arguments: [String]
    var index = 0
    var command: CommandSpec
    var path: [String]
    var optionsEnded = false
    var optionValues: [String: [String]] = [:]
    var optionCounts: [String: Int] = [:]
    var positionals: [String] = []
    var declaredOptions: Set<String>

    init(arguments: [String], root: CommandSpec) {
        self.arguments = arguments
        self.command = root
        self.path = [root.name]
        self.declaredOptions = Set(root.options.map(\.long))
    }

    mutating func run() throws(UsageError) -> ParseResult {
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded {
                if argument == "--" {
                    optionsEnded = true
                    continue
                }
                if argument == "--help" || argument == "-h" {
                    return .helpRequested(command, commandPath: path)
                }
                if argument.hasPrefix("--") {
                    try parseLong(argument.dropFirst(2))
                    continue
                }
                if Self.isShortCluster(argument) {
                    if try parseShortCluster(argument.dropFirst()) {
                        return .helpRequested(command, commandPath: path)
                    }
                    continue
                }
            }
            try parseOperand(argument)
        }
        try checkComplete()
        return .command(
            ParsedCommand(
                commandPath: path,
                spec: command,
                optionValues: optionValues,
                optionCounts: optionCounts,
                positionalArguments: positionals,
                declaredOptions: declaredOptions
            )
        )
    }

    /// Whether `--help` or `-h` appears before `--` in the arguments not yet consumed.
    func helpFollows() -> Bool {
        guard !optionsEnded else { return false }
        for argument in arguments[index...] {
            if argument == "--" { return false }
            if argument == "--help" || argument == "-h" { return true }
        }
        return false
    }

    private func error(_ message: String) -> UsageError {
        UsageError(message, commandPath: path)
    }

    private mutating func parseLong(_ body: Substring) throws(UsageError) {
        let name: Substring
        let inlineValue: Substring?
        if let equals = body.firstIndex(of: "=") {
            name = body[..<equals]
            inlineValue = body[body.index(after: equals)...]
        } else {
            name = body
            inlineValue = nil
        }
        guard let option = command.option(named: String(name)) else {
            let typed = "--" + name
            let candidates = command.options.map(\.long) + ["help"]
            if let hint = Suggestion.closest(to: String(name), among: candidates) {
                throw error("unknown option \(typed) (did you mean --\(hint)?)")
            }
            throw error("unknown option \(typed)")
        }
        if option.takesValue {
            if let inlineValue {
                try record(option, value: String(inlineValue))
            } else {
                try record(option, value: nextValue(for: option))
            }
        } else {
            if inlineValue != nil {
                throw error("--\(option.long) does not take a value")
            }
            try record(option, value: nil)
        }
    }

    /// Parses `-abc`; returns true when the cluster asks for help.
    private mutating func parseShortCluster(_ letters: Substring) throws(UsageError) -> Bool {
        var position = letters.startIndex
        while position < letters.endIndex {
            let letter = letters[position]
            position = letters.index(after: position)
            if letter == "h" { return true }
            guard let option = command.option(short: letter) else {
                throw error("unknown option -\(letter)")
            }
            guard option.takesValue else {
                try record(option, value: nil)
                continue
            }
            var attached = letters[position...]
            if attached.first == "=" { attached = attached.dropFirst() }
            let value = attached.isEmpty ? try nextValue(for: option) : String(attached)
            try record(option, value: value)
            return false
        }
        return false
    }

    private mutating func nextValue(for option: OptionSpec) throws(UsageError) -> String {
        guard index < arguments.count, !Self.looksLikeOption(arguments[index]) else {
            let valueName = option.valueName ?? "a value"
            throw error("missing value for --\(option.long) (expected \(valueName))")
        }
        let value = arguments[index]
        index += 1
        return value
    }

    private mutating func record(_ option: OptionSpec, value: String?) throws(UsageError) {
        let count = (optionCounts[option.long] ?? 0) + 1
        if count > 1, !option.isRepeatable {
            throw error("--\(option.long) may only be given once")
        }
        optionCounts[option.long] = count
        if let value {
            optionValues[option.long, default: []].append(value)
        }
    }

    private mutating func parseOperand(_ argument: String) throws(UsageError) {
        if !optionsEnded, positionals.isEmpty,
            let subcommand = command.subcommand(named: argument)
        {
            command = subcommand
            path.append(subcommand.name)
            declaredOptions.formUnion(subcommand.options.map(\.long))
            return
        }
        guard positionals.count < command.positionals.count else {
            if !optionsEnded, !command.subcommands.isEmpty, command.positionals.isEmpty {
                let names = command.listedSubcommands.map(\.name)
                if let hint = Suggestion.closest(to: argument, among: names) {
                    throw error("unknown command '\(argument)' (did you mean '\(hint)'?)")
                }
                throw error(
                    "unknown command '\(argument)' (expected one of: "
                        + names.joined(separator: ", ") + ")"
                )
            }
            throw error("unexpected argument '\(argument)'")
        }
        positionals.append(argument)
    }

    private func checkComplete() throws(UsageError) {
        if !command.subcommands.isEmpty, command.positionals.isEmpty {
            let names = command.listedSubcommands.map(\.name).joined(separator: ", ")
            throw error("missing command (expected one of: \(names))")
        }
        for positional in command.positionals.dropFirst(positionals.count)
        where !positional.isOptional {
            throw error("missing required argument \(positional.name)")
        }
    }

    /// Whether `argument` is a bundle of short options rather than an operand such as `-` or `-5`.
    private static func isShortCluster(_ argument: String) -> Bool {
        argument.hasPrefix("-") && argument.count > 1 && !isNegativeNumber(argument)
    }

    private static func looksLikeOption(_ argument: String) -> Bool {
        argument.hasPrefix("--") || isShortCluster(argument)
    }

    private static func isNegativeNumber(_ argument: String) -> Bool {
        let rest = argument.dropFirst()
        guard argument.hasPrefix("-"), let first = rest.first else { return false }
        if first.isASCII, first.isNumber { return true }
        return first == "." && rest.dropFirst().first.map { $0.isASCII && $0.isNumber } == true
    }
}
