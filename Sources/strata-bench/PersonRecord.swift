import StrataStorage

/// The record every workload uses, defined in notes/peer-baselines.md ("Workload definitions"):
/// `{id int64 primary key, name 16 bytes "name%012lld", age = 18 + id % 80}`.
///
/// Ids run from 1; the bulk load holds `1...recordCount`, each durable commit adds the next id.
/// The table is clustered on `id` (`PrimaryKey.int`), so the object key is the id, as SQLite's
/// INTEGER PRIMARY KEY and LMDB's integer key are.
enum PersonRecord {
    static let tableName = "person"
    static let idColumn = 0
    static let nameColumn = 1
    static let ageColumn = 2
    static let nameByteCount = 16
    /// The `indexedColumns` of indexed_lookup's tables: a secondary index on the name (Spec
    /// W26). The shared `person` table has none, so the other workloads keep their figures.
    static let nameIndexedColumns: UInt64 = 1 << UInt64(nameColumn)
    /// The largest id whose name still fits 12 digits.
    static let idMax: Int64 = 999_999_999_999

    static func age(id: Int64) -> Int64 {
        18 + id % 80
    }

    /// `"name"` and the id in 12 zero-padded digits: always 16 ASCII bytes.
    static func name(id: Int64) -> String {
        precondition(id >= 0 && id <= idMax, "id outside the 12-digit name range")
        return String(unsafeUninitializedCapacity: nameByteCount) { buffer in
            let prefix: [UInt8] = [0x6E, 0x61, 0x6D, 0x65]  // "name"
            for index in 0..<prefix.count { buffer[index] = prefix[index] }
            var rest = id
            for index in stride(from: nameByteCount - 1, through: prefix.count, by: -1) {
                buffer[index] = 0x30 + UInt8(rest % 10)
                rest /= 10
            }
            return nameByteCount
        }
    }

    /// The column values of record `id`, with its age shifted by `ageShift` (the concurrent
    /// writer's updates change the age and nothing else).
    static func values(id: Int64, ageShift: Int64 = 0) -> [Value] {
        [.int(id), .string(name(id: id)), .int(18 + (id + ageShift) % 80)]
    }

    /// The sum of the ages of records `1...lastID` as written by the loaders (no updates).
    static func ageSum(throughID lastID: Int64) -> Int64 {
        precondition(lastID >= 0, "negative id")
        let fullCycles = lastID / 80
        let remainder = lastID % 80
        // Every block of 80 consecutive ids holds each of 18 ... 97 once: 80 × 57.5 = 4,600.
        var sum = fullCycles * 4_600
        var id = fullCycles * 80 + 1
        while id <= lastID {
            sum += age(id: id)
            id += 1
        }
        precondition(id == fullCycles * 80 + remainder + 1, "age sum walked the wrong range")
        return sum
    }
}

/// Marsaglia's xorshift64 (shifts 13, 7, 17) from a fixed seed: the peers draw lookup keys from
/// a fixed-seed xorshift generator too, so every run probes the same key sequence.
struct XorShift64: Sendable {
    static let defaultSeed: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var state: UInt64

    init(seed: UInt64 = defaultSeed) {
        precondition(seed != 0, "xorshift needs a non-zero seed")
        state = seed
    }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    /// A value in `1...upperBound` (an id), by multiply-high range reduction.
    mutating func nextID(upTo upperBound: Int64) -> Int64 {
        precondition(upperBound >= 1, "no ids to draw from")
        let reduced = next().multipliedFullWidth(by: UInt64(upperBound)).high
        return Int64(reduced) + 1
    }
}
