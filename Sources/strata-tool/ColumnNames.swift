import StrataStorage

/// The column names `dump` prints, read from the schema a table stores.
///
/// The engine keeps a table's schema as opaque bytes; the Realm API (Strata) stores its object
/// schema there as text: a `strata-schema 1` line, then one line per column, in column order,
/// `name<TAB>type<TAB>target class<TAB>flags` (`ObjectSchema.encoded()` in
/// Sources/Strata/Schema/ObjectSchema.swift). A table made through the engine alone stores
/// none: its columns are named by position, `#0`, `#1`, ...
struct ColumnNames {
    /// The names the schema gives, in column order (empty when it gives none).
    let names: [String]

    init(_ table: TableInfo) {
        let lines = String(decoding: table.schema, as: UTF8.self).split(separator: "\n")
        guard lines.first == "strata-schema 1" else {
            names = []
            return
        }
        names = lines.dropFirst().map { line in
            String(line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)[0])
        }
    }

    /// The name of column `index`: the schema's, else `#index`.
    subscript(index: Int) -> String {
        index < names.count && !names[index].isEmpty ? names[index] : "#\(index)"
    }
}
