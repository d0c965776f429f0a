/// One slice of work split N ways: shard `index` of `count`, written `I/N` on the command line.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// Which slice, in `0..<count`.
    public let index: Int
    /// How many slices the work is split into; at least 1.
    public let count: Int

    /// The whole of the work as a single shard, `0/1`.
    public static let whole = Shard(validIndex: 0, count: 1)

    /// Creates a shard, or `nil` unless `0 <= index < count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        self.init(validIndex: index, count: count)
    }

    private init(validIndex: Int, count: Int) {
        self.index = validIndex
        self.count = count
    }

    /// Reads `I/N` (plain decimal digits), or `nil` when malformed or out of range.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let index = Self.plainInt(parts[0]),
            let count = Self.plainInt(parts[1])
        else { return nil }
        self.init(index: index, count: count)
    }

    /// Whether item number `ordinal` belongs to this shard (round-robin assignment).
    public func includes(_ ordinal: Int) -> Bool {
        // Euclidean remainder so that negative ordinals are still assigned to exactly one shard.
        let remainder = ordinal % count
        return (remainder < 0 ? remainder + count : remainder) == index
    }

    /// The command-line spelling, `I/N`.
    public var description: String {
        "\(index)/\(count)"
    }

    private static func plainInt(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
