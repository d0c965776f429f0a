/// Greedy word wrapping for help text, measured in characters (the tools print plain text).
enum TextWrapper {
    /// Splits `text` into lines no wider than `width`; a word wider than that gets its own line
    /// rather than being broken, because broken paths and option names cannot be copied.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Wraps `text` to `width` with every line after the first indented by `indent` spaces;
    /// the first line is `lead`, which the caller has already laid out.
    static func hanging(lead: String, words: [String], indent: Int, width: Int) -> [String] {
        var lines: [String] = []
        var line = lead
        var lineHasWord = false
        let padding = String(repeating: " ", count: indent)
        for word in words {
            let separator = lineHasWord ? " " : ""
            if !lineHasWord || line.count + 1 + word.count <= width {
                line += separator + word
            } else {
                lines.append(line)
                line = padding + word
            }
            lineHasWord = true
        }
        lines.append(line)
        return lines
    }
}
