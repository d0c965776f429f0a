/// `PersonRecord`'s fields as the peers store them: the 16 name bytes written in place (no
/// `String` per record, as the notes' C benchmarks used `snprintf` into a buffer), and the
/// LMDB value layout.
enum PeerRecordBytes {
    /// LMDB's value: the 16 name bytes, then the age as a native 8-byte integer.
    static let lmdbValueByteCount = PersonRecord.nameByteCount + 8
    /// Where the age starts in an LMDB value.
    static let lmdbAgeOffset = PersonRecord.nameByteCount

    /// Writes `PersonRecord.name(id:)`'s 16 ASCII bytes ("name" and 12 digits) at `buffer`.
    @inline(__always)
    static func writeName(id: Int64, to buffer: UnsafeMutableRawPointer) {
        precondition(id >= 0 && id <= PersonRecord.idMax, "id outside the 12-digit name range")
        buffer.storeBytes(of: 0x6E, toByteOffset: 0, as: UInt8.self)  // n
        buffer.storeBytes(of: 0x61, toByteOffset: 1, as: UInt8.self)  // a
        buffer.storeBytes(of: 0x6D, toByteOffset: 2, as: UInt8.self)  // m
        buffer.storeBytes(of: 0x65, toByteOffset: 3, as: UInt8.self)  // e
        var rest = id
        for offset in stride(from: PersonRecord.nameByteCount - 1, through: 4, by: -1) {
            buffer.storeBytes(of: 0x30 + UInt8(rest % 10), toByteOffset: offset, as: UInt8.self)
            rest /= 10
        }
    }

    /// Whether `writeName` agrees with `PersonRecord.name(id:)` for `id` (checked at each load,
    /// so the peers hold exactly the records the layers hold).
    static func nameMatchesRecord(id: Int64) -> Bool {
        var bytes = [UInt8](repeating: 0, count: PersonRecord.nameByteCount)
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            writeName(id: id, to: base)
        }
        return bytes.elementsEqual(PersonRecord.name(id: id).utf8)
    }
}
