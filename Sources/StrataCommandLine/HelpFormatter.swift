/// Renders the `--help` page of a command.
public enum HelpFormatter {
    /// The column at which help text is wrapped.
    public static let defaultWidth = 100

    /// Beyond this the left column would squeeze the help text, so long entries go on own lines.
    private static let maximumLeftColumn = 32

    /// The full help page for `spec`, reached through `commandPath` (tool name first).
    public static func render(
        _ spec: CommandSpec,
        commandPath: [String],
        width: Int = defaultWidth
    ) -> String {
        let path = commandPath.isEmpty ? [spec.name] : commandPath
        let command = path.joined(separator: " ")
        var blocks: [[String]] = [usageLines(spec, commandPath: path, width: width)]
        if !spec.summary.isEmpty {
            blocks.append(TextWrapper.wrap(spec.summary, width: width))
        }
        if let discussion = spec.discussion {
            blocks += paragraphs(discussion, width: width)
        }

        let arguments = spec.positionals.map { positional in
            (left: positional.name, right: positionalHelp(positional))
        }
        let options = (spec.options + [helpOption]).map { option in
            (left: optionLabel(option), right: optionHelp(option))
        }
        let commands = spec.listedSubcommands.map { (left: $0.name, right: $0.summary) }
        // One column for every section so the help texts line up down the whole page.
        let widest = (arguments + options + commands).map { 2 + $0.left.count }.max() ?? 0
        let column = min(widest, maximumLeftColumn) + 2

        if !arguments.isEmpty {
            blocks.append(["arguments:"] + table(arguments, column: column, width: width))
        }
        blocks.append(["options:"] + table(options, column: column, width: width))
        if !commands.isEmpty {
            blocks.append(["commands:"] + table(commands, column: column, width: width))
        }
        if !spec.examples.isEmpty {
            blocks.append(["examples:"] + spec.examples.map { "  " + $0 })
        }
        if !spec.subcommands.isEmpty {
            blocks.append(
                TextWrapper.wrap(
                    "Run '\(command) <command> --help' for help on a command.", width: width)
            )
        }
        return blocks.map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
    }

    /// The usage synopsis, e.g. `usage: strata-tool verify FILE [--json]`, wrapped to `width`.
    public static func usage(
        _ spec: CommandSpec,
        commandPath: [String],
        width: Int = defaultWidth
    ) -> String {
        let path = commandPath.isEmpty ? [spec.name] : commandPath
        return usageLines(spec, commandPath: path, width: width).joined(separator: "\n")
    }

    private static let helpOption = OptionSpec.flag(
        "help", short: "h", help: "Show this help and exit.")

    private static func usageLines(
        _ spec: CommandSpec,
        commandPath: [String],
        width: Int
    ) -> [String] {
        var tokens: [String] = []
        if !spec.subcommands.isEmpty {
            tokens.append(spec.positionals.isEmpty ? "<command>" : "[<command>]")
        }
        for positional in spec.positionals {
            tokens.append(positional.isOptional ? "[\(positional.name)]" : positional.name)
        }
        for option in spec.options {
            var token = "--" + option.long
            if let valueName = option.valueName { token += " " + valueName }
            if option.isRepeatable { token += " ..." }
            tokens.append("[\(token)]")
        }
        let lead = "usage: " + commandPath.joined(separator: " ")
        // Continuation lines line up under the first argument unless the path is very long.
        let indent = lead.count + 1 <= width / 2 ? lead.count + 1 : 8
        return TextWrapper.hanging(lead: lead + " ", words: tokens, indent: indent, width: width)
            .map { $0.hasSuffix(" ") ? String($0.dropLast()) : $0 }
    }

    private static func optionLabel(_ option: OptionSpec) -> String {
        var label = option.short.map { "-\($0), " } ?? "    "
        label += "--" + option.long
        if let valueName = option.valueName { label += " " + valueName }
        return label
    }

    private static func positionalHelp(_ positional: PositionalSpec) -> String {
        positional.isOptional ? positional.help + " (optional)" : positional.help
    }

    private static func optionHelp(_ option: OptionSpec) -> String {
        var help = option.help
        if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
        if option.isRepeatable { help += " (repeatable)" }
        return help
    }

    /// Lays out `(left, right)` pairs with every `right` starting at `column`.
    private static func table(
        _ rows: [(left: String, right: String)],
        column: Int,
        width: Int
    ) -> [String] {
        var lines: [String] = []
        let words = { (text: String) in text.split(separator: " ").map(String.init) }
        for row in rows {
            let label = "  " + row.left
            if label.count + 2 <= column {
                let lead = label + String(repeating: " ", count: column - label.count)
                lines += TextWrapper.hanging(
                    lead: lead, words: words(row.right), indent: column, width: width)
            } else {
                lines.append(label)
                let lead = String(repeating: " ", count: column)
                lines += TextWrapper.hanging(
                    lead: lead, words: words(row.right), indent: column, width: width)
            }
        }
        return trimmed(lines)
    }

    /// Removes the padding left behind when a row has no help text.
    private static func trimmed(_ lines: [String]) -> [String] {
        lines.map { line in
            var line = Substring(line)
            while line.last == " " { line = line.dropLast() }
            return String(line)
        }
    }

    /// Discussion paragraphs: prose is re-wrapped, indented blocks (code, tables) are kept as is.
    private static func paragraphs(_ text: String, width: Int) -> [[String]] {
        var result: [[String]] = []
        var current: [String] = []
        func flush() {
            guard !current.isEmpty else { return }
            if current.contains(where: { $0.hasPrefix(" ") }) {
                result.append(current)
            } else {
                result.append(TextWrapper.wrap(current.joined(separator: " "), width: width))
            }
            current = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                flush()
            } else {
                current.append(String(line))
            }
        }
        flush()
        return result
    }
}
