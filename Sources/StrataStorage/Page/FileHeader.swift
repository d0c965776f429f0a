/// Page 0: the file header sector and the two commit slots, each in its own 512-byte sector so
/// that writing a slot never touches the other one or the header (a torn sector write can only
/// damage the slot being written, which its checksum then rejects).
///
/// Sector 0, the file header (written once, at creation):
///
/// | offset | size | meaning                                           |
/// |-------:|-----:|---------------------------------------------------|
/// |      0 |    8 | magic "STRATADB"                                  |
/// |      8 |    4 | format version (`FileHeader.formatVersion`)       |
/// |     12 |    4 | page size in bytes                                |
/// |     16 |    8 | file identity (random, fixed at creation)         |
/// |     24 |  484 | zero                                              |
/// |    508 |    4 | CRC32C of bytes [0, 508)                          |
///
/// Sectors 1 and 2: commit slots 0 and 1 (`CommitSlot`).
struct FileHeader: Equatable, Sendable {
    static let magic: [UInt8] = Array("STRATADB".utf8)
    /// 2: every page reference carries the expected version and checksum of the page it names
    /// (Spec D19); format 1 files are refused with `unsupportedFormatVersion`.
    static let formatVersion: UInt32 = 2
    static let sectorByteCount = 512
    static let checksumOffset = 508
    static let slotOffsets = [512, 1024]
    /// Bytes needed to read the header and both slots.
    static let byteCountMin = 1536

    let pageSizeBytes: Int
    let fileIdentity: UInt64

    func encode() -> [UInt8] {
        var sector = [UInt8](repeating: 0, count: Self.sectorByteCount)
        sector.replaceSubrange(0..<8, with: Self.magic)
        sector.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            storeUInt32(base, 8, Self.formatVersion)
            storeUInt32(base, 12, UInt32(pageSizeBytes))
            storeUInt64(base, 16, fileIdentity)
            let crc = CRC32C.checksum(UnsafeRawPointer(base), count: Self.checksumOffset)
            storeUInt32(base, Self.checksumOffset, crc)
        }
        return sector
    }

    /// Decodes sector 0, or names what is wrong with it.
    static func decode(_ base: UnsafeRawPointer, fileByteCount: Int, path: String) throws(StorageError) -> FileHeader {
        guard fileByteCount >= 8 else {
            if fileByteCount == 0 { throw StorageError.truncated(expectedBytes: byteCountMin, foundBytes: 0) }
            throw StorageError.notAStrataFile(path: path)
        }
        let magicMatches = (0..<8).allSatisfy { base.load(fromByteOffset: $0, as: UInt8.self) == magic[$0] }
        guard magicMatches else { throw StorageError.notAStrataFile(path: path) }
        guard fileByteCount >= byteCountMin else {
            throw StorageError.truncated(expectedBytes: byteCountMin, foundBytes: fileByteCount)
        }
        let stored = loadUInt32(base, checksumOffset)
        let computed = CRC32C.checksum(base, count: checksumOffset)
        guard stored == computed else {
            throw StorageError.corruptHeader(reason: "header checksum mismatch")
        }
        let version = loadUInt32(base, 8)
        guard version == formatVersion else {
            throw StorageError.unsupportedFormatVersion(found: version, supported: formatVersion)
        }
        let pageSize = Int(loadUInt32(base, 12))
        guard PageLayout.isSupported(pageSizeBytes: pageSize) else {
            throw StorageError.unsupportedPageSize(pageSize)
        }
        return FileHeader(pageSizeBytes: pageSize, fileIdentity: loadUInt64(base, 16))
    }
}
