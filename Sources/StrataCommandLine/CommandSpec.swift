/// Declares a command (or subcommand): what it is called, what it accepts, and how to explain it.
public struct CommandSpec: Sendable, Equatable {
    /// The name typed on the command line; for the root command, the tool name.
    public var name: String
    /// A one-line summary, shown under the usage line and in the parent's command list.
    public var summary: String
    /// Longer explanation shown in this command's help; paragraphs are separated by blank lines.
    public var discussion: String?
    /// Options accepted by this command (not by its subcommands).
    public var options: [OptionSpec]
    /// Positional arguments, in order.
    public var positionals: [PositionalSpec]
    /// Nested commands selected by name, e.g. `verify` in `strata-tool verify FILE`.
    public var subcommands: [CommandSpec]
    /// Example invocations, shown verbatim in help.
    public var examples: [String]
    /// Left out of the parent's command list, usage errors and suggestions, but parsed and with
    /// its own `--help`: for commands a tool runs on itself (a child process it spawns), which
    /// a user has no reason to type.
    public var isHidden: Bool

    /// Creates a command specification.
    public init(
        name: String,
        summary: String,
        discussion: String? = nil,
        options: [OptionSpec] = [],
        positionals: [PositionalSpec] = [],
        subcommands: [CommandSpec] = [],
        examples: [String] = [],
        isHidden: Bool = false
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.examples = examples
        self.isHidden = isHidden
    }

    /// The subcommands a user is told about (every one but the hidden).
    public var listedSubcommands: [CommandSpec] {
        subcommands.filter { !$0.isHidden }
    }

    /// The option declared with long name `long`, if any.
    public func option(named long: String) -> OptionSpec? {
        options.first { $0.long == long }
    }

    /// The option declared with short name `short`, if any.
    public func option(short: Character) -> OptionSpec? {
        options.first { $0.short == short }
    }

    /// The direct subcommand called `name`, if any.
    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// Mistakes in this specification and its subcommands; empty when the spec is well formed.
    ///
    /// The parser cannot report these to the user (they are the tool author's bugs), so tools
    /// should assert this is empty in a unit test.
    public var configurationProblems: [String] {
        configurationProblems(path: name)
    }

    private func configurationProblems(path: String) -> [String] {
        var problems: [String] = []
        var longs: Set<String> = []
        var shorts: Set<Character> = []
        for option in options {
            if option.long.isEmpty || option.long.hasPrefix("-") || option.long.contains("=") {
                problems.append("\(path): invalid long option name '\(option.long)'")
            }
            if option.long == "help" || option.short == "h" {
                problems.append("\(path): --help and -h are reserved (option --\(option.long))")
            }
            if !longs.insert(option.long).inserted {
                problems.append("\(path): duplicate option --\(option.long)")
            }
            if let short = option.short {
                if short == "-" || short.isNumber || short.isWhitespace {
                    problems.append("\(path): invalid short option name '\(short)'")
                }
                if !shorts.insert(short).inserted {
                    problems.append("\(path): duplicate short option -\(short)")
                }
            }
        }
        var sawOptional = false
        var positionalNames: Set<String> = []
        for positional in positionals {
            if positional.isOptional {
                sawOptional = true
            } else if sawOptional {
                problems.append(
                    "\(path): required positional \(positional.name) follows an optional one"
                )
            }
            if !positionalNames.insert(positional.name).inserted {
                problems.append("\(path): duplicate positional \(positional.name)")
            }
        }
        var subcommandNames: Set<String> = []
        for subcommand in subcommands {
            if !subcommandNames.insert(subcommand.name).inserted {
                problems.append("\(path): duplicate subcommand \(subcommand.name)")
            }
            if subcommand.name.isEmpty || subcommand.name.hasPrefix("-") {
                problems.append("\(path): invalid subcommand name '\(subcommand.name)'")
            }
            problems += subcommand.configurationProblems(path: path + " " + subcommand.name)
        }
        return problems
    }
}
