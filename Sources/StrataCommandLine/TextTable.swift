/// Plain-text table with a header row and columns padded to line up.
///
/// Numeric columns are right-aligned so digits of equal weight stack; everything else is
/// left-aligned. Widths are counted in characters, which is right for the ASCII the tools print.
public struct TextTable: Sendable, Equatable {
    /// The column titles.
    public var header: [String]
    /// Indices of the columns to right-align.
    public var numericColumns: Set<Int>
    /// The body rows added so far.
    public private(set) var rows: [[String]] = []
    /// The text between columns.
    public var columnSeparator = "  "

    /// Creates a table with `header` and right-aligned `numericColumns` (zero-based indices).
    public init(header: [String], numericColumns: Set<Int> = []) {
        self.header = header
        self.numericColumns = numericColumns
    }

    /// Appends a row; short rows are padded with empty cells, long rows widen the table.
    public mutating func addRow(_ cells: [String]) {
        rows.append(cells)
    }

    /// The table as lines, header first, with no trailing spaces.
    public var lines: [String] {
        let all = [header] + rows
        let columnCount = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columnCount)
        for row in all {
            for (column, cell) in row.enumerated() {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return all.map { row in
            var line = ""
            for column in 0..<columnCount {
                let cell = column < row.count ? row[column] : ""
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column > 0 { line += columnSeparator }
                line += numericColumns.contains(column) ? padding + cell : cell + padding
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The table as text, lines joined by newlines, without a trailing newline.
    public func render() -> String {
        lines.joined(separator: "\n")
    }
}
