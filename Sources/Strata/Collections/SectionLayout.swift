/// How one content of a sorted collection divides into sections (Spec V27): a section for
/// each distinct key, in the order its first element comes, holding its elements' positions
/// in collection order. A key that comes back after another (a key block that does not follow
/// the sort) joins its first section, as realm-core's sectioned results do.
struct SectionLayout<Key: Hashable> {
    /// Each section's key, in section order.
    private(set) var keys: [Key] = []
    /// Each section's elements: their positions in the sorted collection.
    private(set) var positions: [[Int]] = []
    /// The section of each key.
    private(set) var sectionOfKey: [Key: Int] = [:]
    /// Where each element of the collection is: its section and its place in it.
    private(set) var paths: [(section: Int, item: Int)] = []

    init() {}

    /// The sections of elements whose keys, in collection order, are `elementKeys`.
    /// `sectionPerRun` is the seeded bug `sectionPerKeyRun` (Spec V27 broken): a key that
    /// comes back after another starts a section of its own.
    init(elementKeys: [Key], sectionPerRun: Bool = false) {
        paths.reserveCapacity(elementKeys.count)
        for (position, key) in elementKeys.enumerated() {
            let joins = !sectionPerRun || keys.last == key
            if joins, let section = sectionOfKey[key] {
                positions[section].append(position)
                paths.append((section, positions[section].count - 1))
            } else {
                sectionOfKey[key] = keys.count
                paths.append((keys.count, 0))
                keys.append(key)
                positions.append([position])
            }
        }
    }
}
