import Testing

@testable import StrataCommandLine

@Suite("TextTable")
struct TextTableTests {
    @Test func alignsTextLeftAndNumbersRight() {
        var table = TextTable(
            header: ["benchmark", "ops/s", "p99 µs", "note"], numericColumns: [1, 2])
        table.addRow(["commit", "120345", "81.5", "fsync"])
        table.addRow(["read-heavy", "9", "3.0", ""])
        table.addRow(["x", "1234567890", "12345.25", "long note here"])
        #expect(
            table.lines == [
                "benchmark        ops/s    p99 µs  note",
                "commit          120345      81.5  fsync",
                "read-heavy           9       3.0",
                "x           1234567890  12345.25  long note here",
            ])
    }

    @Test func columnsStartAtTheSameOffsetOnEveryLine() {
        var table = TextTable(header: ["name", "pages"], numericColumns: [1])
        table.addRow(["free-list", "3"])
        table.addRow(["a", "100000"])
        let lines = table.lines
        // Right-aligned: every line ends at the same column.
        #expect(Set(lines.map(\.count)).count == 1)
        #expect(lines.allSatisfy { $0.dropFirst(9).hasPrefix("  ") })
    }

    @Test func headerOnly() {
        let table = TextTable(header: ["a", "bb"])
        #expect(table.render() == "a  bb")
    }

    @Test func raggedRowsArePaddedOrWidened() {
        var table = TextTable(header: ["a", "b"], numericColumns: [2])
        table.addRow(["1"])
        table.addRow(["22", "333", "4"])
        table.addRow(["", "", "55"])
        #expect(
            table.render()
                == """
                a   b
                1
                22  333   4
                         55
                """)
    }

    @Test func customSeparator() {
        var table = TextTable(header: ["k", "v"], numericColumns: [1])
        table.columnSeparator = " | "
        table.addRow(["key", "1"])
        #expect(table.lines == ["k   | v", "key | 1"])
    }

    @Test func noTrailingWhitespace() {
        var table = TextTable(header: ["left", "right"])
        table.addRow(["a", "b"])
        table.addRow(["longer cell", ""])
        #expect(table.lines.allSatisfy { $0.last != " " })
        #expect(table.lines == ["left         right", "a            b", "longer cell"])
    }
}
