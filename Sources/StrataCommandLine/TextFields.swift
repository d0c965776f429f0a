/// Small text forms the tools' human-readable reports share.
public enum TextFields {
    /// `label: value` lines with the values lined up.
    public static func fields(_ pairs: [(label: String, value: String)]) -> [String] {
        let width = pairs.map(\.label.count).max() ?? 0
        return pairs.map { pair in
            pair.label + ":" + String(repeating: " ", count: width - pair.label.count + 1)
                + pair.value
        }
    }

    /// `count` followed by `noun`, pluralised with an "s" unless `count` is 1.
    public static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
