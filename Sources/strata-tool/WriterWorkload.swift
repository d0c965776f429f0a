import StrataStorage

/// The changes `strata-tool writer` makes in one commit: a deterministic function of the seed
/// and of the contents the write transaction starts from.
///
/// Every choice comes from one `SplitMix64` seeded by `seed ^ baseVersion`, and every branch
/// depends only on that stream and on the base contents. So two runs with the same seed on
/// fresh files make identical commits, and a run restarted after a crash continues exactly as
/// an uninterrupted run would from whatever version is durable.
///
/// Tables (created by the first commit that finds them missing):
///
/// | table   | key               | columns                                              |
/// |---------|-------------------|------------------------------------------------------|
/// | `items` | `.int(column: 0)` | id int, name string, count int, payload binary,      |
/// |         |                   | timestamp, score double or null                      |
/// | `blobs` | none (assigned)   | writing version int, data binary of 1 byte to 3 pages |
///
/// Sizes are mixed so that commits touch inline values, overflow values and whole-row
/// overflow: a name is now and then longer than a page, a payload or blob several pages.
struct WriterWorkload {
    static let itemsTableName = "items"
    static let blobsTableName = "blobs"
    /// `blobs` never holds more rows than this; beyond it, blob operations delete.
    static let blobCountMax = 40
    /// Characters names are drawn from: ASCII plus some two-, three- and four-byte UTF-8.
    static let nameAlphabet: [Character] = Array(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_éßøπ字🙂")

    /// `items` never holds more rows than this after a commit.
    let itemCountMax: Int
    /// The database's page size, which scales the "larger than a page" values.
    let pageSizeBytes: Int

    init(itemCountMax: Int, pageSizeBytes: Int) {
        precondition(itemCountMax >= 1, "the workload needs room for one item")
        precondition(pageSizeBytes >= 512, "page size below any the engine supports")
        self.itemCountMax = itemCountMax
        self.pageSizeBytes = pageSizeBytes
    }

    /// Item ids are drawn from `0..<itemKeySpace`, twice the row limit, so inserts sometimes
    /// hit an existing id (and update it) and deletes leave gaps.
    var itemKeySpace: Int { max(16, itemCountMax * 2) }

    /// Applies one commit's operations to `write`, creating the tables first if missing.
    /// - Throws: whatever the engine throws (`StorageError`).
    func apply(to write: WriteTransaction, seed: UInt64) throws {
        var random = SplitMix64(seed: seed ^ write.baseVersion.rawValue)
        let items =
            try write.table(named: Self.itemsTableName)
            ?? write.createTable(Self.itemsTableName, primaryKey: .int(column: 0))
        let blobs =
            try write.table(named: Self.blobsTableName)
            ?? write.createTable(Self.blobsTableName, primaryKey: .none)
        let step = WorkloadStep(workload: self, write: write, items: items, blobs: blobs)
        let operationCount = Self.operationCount(&random)
        for _ in 0..<operationCount {
            try step.applyOne(&random)
        }
        // A file written earlier with a larger limit may start above this one.
        try step.trimItems(toCountMax: itemCountMax, &random)
    }

    /// Operations in one commit: often one, usually a handful, sometimes hundreds.
    static func operationCount(_ random: inout SplitMix64) -> Int {
        switch random.below(10) {
        case 0..<3: return 1
        case 3..<8: return random.int(in: 2...20)
        default: return random.int(in: 50...300)
        }
    }

    /// A name of varied length: mostly short, sometimes long, now and then over a page.
    func name(_ random: inout SplitMix64) -> String {
        let characterCount: Int
        switch random.below(100) {
        case 0..<90: characterCount = random.int(in: 0...40)
        case 90..<97: characterCount = random.int(in: 100...1500)
        default: characterCount = random.int(in: (pageSizeBytes + 1)...(2 * pageSizeBytes + 512))
        }
        var name = ""
        for _ in 0..<characterCount {
            name.append(Self.nameAlphabet[random.below(Self.nameAlphabet.count)])
        }
        return name
    }

    /// A payload of varied size: empty to a few kilobytes, now and then over a page.
    func payload(_ random: inout SplitMix64) -> [UInt8] {
        let byteCount: Int
        switch random.below(100) {
        case 0..<40: byteCount = random.int(in: 0...64)
        case 40..<85: byteCount = random.int(in: 65...1000)
        case 85..<97: byteCount = random.int(in: 1001...3000)
        default: byteCount = random.int(in: (pageSizeBytes + 1)...(2 * pageSizeBytes))
        }
        return random.bytes(count: byteCount)
    }

    /// The values of item `id`.
    func itemValues(id: Int64, _ random: inout SplitMix64) -> [Value] {
        let name = name(&random)
        let count = Int64(random.below(1_000_000))
        let payload = payload(&random)
        let seconds = Int64(1_500_000_000 + random.below(200_000_000))
        let timestamp = Timestamp(seconds: seconds, nanoseconds: Int32(random.below(1_000_000_000)))
        let score: Value =
            random.chance(percent: 50) ? .null : .double(Double(random.below(1 << 30)) / 64)
        return [
            .int(id), .string(name), .int(count), .binary(payload), .timestamp(timestamp), score,
        ]
    }

    /// The values of a new blob written by `version`: up to three pages of data.
    func blobValues(version: Version, _ random: inout SplitMix64) -> [Value] {
        let byteCount = random.int(in: 1...(3 * pageSizeBytes))
        return [.int(Int64(version.rawValue)), .binary(random.bytes(count: byteCount))]
    }
}
