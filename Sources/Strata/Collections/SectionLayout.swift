import StrataStorage

/// How one content of a sorted collection divides into sections (Spec V27): a section for
/// each distinct key, in the order its first element comes, holding its elements' positions
/// in collection order. A key that comes back after another (a key block that does not follow
/// the sort) joins its first section, as realm-core's sectioned results do.
struct SectionLayout<Key: _RealmValue> {
    /// Each section's key, in section order.
    private(set) var keys: [Key] = []
    /// Each section's elements: their positions in the sorted collection.
    private(set) var positions: [[Int]] = []
    /// The section of each key.
    private var sectionOfIdentity: [SectionKeyIdentity: Int] = [:]
    /// Where each element of the collection is: its section and its place in it.
    private(set) var paths: [(section: Int, item: Int)] = []

    init() {}

    /// The sections of elements whose keys, in collection order, are `elementKeys`.
    /// `sectionPerRun` is the seeded bug `sectionPerKeyRun` (Spec V27 broken): a key that
    /// comes back after another starts a section of its own.
    init(elementKeys: [Key], sectionPerRun: Bool = false) {
        paths.reserveCapacity(elementKeys.count)
        var lastIdentity: SectionKeyIdentity?
        for (position, key) in elementKeys.enumerated() {
            let identity = SectionKeyIdentity(key)
            defer { lastIdentity = identity }
            let joins = !sectionPerRun || lastIdentity == identity
            if joins, let section = sectionOfIdentity[identity] {
                positions[section].append(position)
                paths.append((section, positions[section].count - 1))
            } else {
                sectionOfIdentity[identity] = keys.count
                paths.append((keys.count, 0))
                keys.append(key)
                positions.append([position])
            }
        }
    }

    /// The section of `key`, if an element has it.
    func section(of key: Key) -> Int? { sectionOfIdentity[SectionKeyIdentity(key)] }
}

/// A section key as realm-core tells keys apart: by stored value, strings by their bytes (where
/// Swift's `==` would merge canonically equivalent spellings), every NaN one key (where `==`
/// would give each NaN a section of its own).
struct SectionKeyIdentity: Hashable {
    private let value: Value

    init<Key: _RealmValue>(_ key: Key) {
        let stored = (try? key._strataEncode(realm: nil)) ?? .null
        switch stored {
        case .double(let number) where number.isNaN: value = .binary([0xFF, 0xF8])  // one NaN
        case .string(let text): value = .binary(Array(text.utf8))
        default: value = stored
        }
    }
}
