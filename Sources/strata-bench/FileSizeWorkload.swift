/// `file_size`: the database file's size at three points of the run, in KiB.
///
/// Peer rows g. (after a, after b) and "size after f" of notes/peer-baselines.md. The file
/// grows in chunks (a thirty-second of its size, 64 KiB to 1 MiB), so each point also reports the
/// bytes of the pages the newest version uses, which is what the chunking rounds up. Engine
/// layer only, for now (with `--layer object` it is skipped).
enum FileSizeWorkload {
    /// The moments the sizes are taken.
    enum Point: String {
        case afterBulkInsert = "after_bulk_insert"
        case afterDurableCommit = "after_durable_commit"
        case afterConcurrent = "after_concurrent"
    }

    static func record(_ point: Point, database: BenchDatabase, report: Report) throws {
        let fileByteCount = try database.fileByteCount()
        let usedByteCount = try database.usedByteCount()
        guard usedByteCount > 0, usedByteCount <= fileByteCount else {
            throw BenchError.wrongResult(
                workload: .fileSize,
                detail: "\(usedByteCount) bytes used in a file of \(fileByteCount)")
        }
        report.record(
            .fileSize, layer: .engine, point.rawValue + "_kib", Double(fileByteCount) / 1_024,
            unit: "KiB", kind: .size)
        report.record(
            .fileSize, layer: .engine, point.rawValue + "_used_kib",
            Double(usedByteCount) / 1_024, unit: "KiB", kind: .size)
    }
}
