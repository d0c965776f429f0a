import StrataCommandLine
import StrataStorage

/// Text spellings shared by the subcommands' output.
enum OutputFormat {
    /// Strings longer than this are cut in `dump` output (the full length is shown).
    static let stringCharacterCountShown = 48

    /// A content digest as exactly 16 lowercase hex digits, the form `writer` and `digest` print.
    static func digest(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `value` for `dump`: like `Value.description`, with long strings cut, links named by
    /// `link` and lists expanded the same way.
    static func value(
        _ value: Value, link: (Link) throws -> String = { "-> table \($0.table.rawValue)[\($0.key.rawValue)]" }
    ) rethrows -> String {
        switch value {
        case .string(let string) where string.count > stringCharacterCountShown:
            let shown = string.prefix(stringCharacterCountShown)
            return "\"\(escaped(String(shown)))...\" (\(string.count) characters)"
        case .string(let string):
            return "\"\(escaped(string))\""
        case .link(let target):
            return try link(target)
        case .list(let elements):
            return "[" + (try elements.map { try Self.value($0, link: link) }).joined(separator: ", ") + "]"
        default:
            return value.description
        }
    }

    /// Tables as JSON `[name, rowCount]` pairs (`JSONLine` has no nested objects).
    /// Spec D15's fallback as JSON: [damaged slot, version it names, version recovered].
    static func slotFallbackJSON(_ fallback: SlotFallback) -> JSONValue {
        JSONValue.array([
            .int(fallback.damagedSlot), .uint64(fallback.claimedVersion), .uint64(fallback.recoveredVersion.rawValue),
        ])
    }

    static func tablesJSON(_ tables: [VerificationReport.TableSummary]) -> JSONValue {
        .array(tables.map { table -> JSONValue in [.string(table.name), .int(table.rowCount)] })
    }

    /// A row for `dump`: `name=value` for each column, comma-separated (`ColumnNames`).
    static func row(_ values: [Value], names: ColumnNames, link: (Link) throws -> String) rethrows -> String {
        try values.indices.map { "\(names[$0])=\(try value(values[$0], link: link))" }.joined(separator: ", ")
    }

    /// `string` with quotes, backslashes and control characters escaped, so one row stays one
    /// line whatever the data holds.
    static func escaped(_ string: String) -> String {
        var result = ""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\u{00}"..."\u{1F}", "\u{7F}":
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
