import CStrataSupport

/// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every page and
/// commit slot.
///
/// The hardware path uses the SSE4.2 `crc32` instruction (through `CStrataSupport`) when the
/// CPU has it; the software path is a slicing-by-8 table implementation. Both compute the same
/// function: a test checks them against each other and against the standard check value
/// (`crc32c("123456789") == 0xE3069283`).
enum CRC32C {
    static let hardwareAvailable: Bool = strata_crc32c_hardware_available() != 0

    /// CRC32C of `count` bytes at `bytes`.
    @inline(__always)
    static func checksum(_ bytes: UnsafeRawPointer, count: Int) -> UInt32 {
        if hardwareAvailable {
            return ~strata_crc32c_hardware_update(~0, bytes, count)
        }
        return ~softwareUpdate(~0, bytes, count: count)
    }

    static func checksum(_ buffer: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = buffer.baseAddress else { return 0 }
        return checksum(base, count: buffer.count)
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// The table-driven implementation; public to the module so tests can compare paths.
    static func softwareChecksum(_ bytes: UnsafeRawPointer, count: Int) -> UInt32 {
        ~softwareUpdate(~0, bytes, count: count)
    }

    private static let polynomial: UInt32 = 0x82F6_3B78

    /// Eight 256-entry tables: table[k][b] is the CRC of byte b followed by k zero bytes.
    private static let tables: [[UInt32]] = {
        var tables = Array(repeating: Array(repeating: UInt32(0), count: 256), count: 8)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1 }
            tables[0][byte] = crc
        }
        for byte in 0..<256 {
            for k in 1..<8 {
                let previous = tables[k - 1][byte]
                tables[k][byte] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    private static func softwareUpdate(_ start: UInt32, _ bytes: UnsafeRawPointer, count: Int) -> UInt32 {
        var crc = start
        var offset = 0
        let t = tables
        while count - offset >= 8 {
            let low = loadUInt32(bytes, offset) ^ crc
            let high = loadUInt32(bytes, offset + 4)
            crc =
                t[7][Int(low & 0xFF)] ^ t[6][Int((low >> 8) & 0xFF)]
                ^ t[5][Int((low >> 16) & 0xFF)] ^ t[4][Int(low >> 24)]
                ^ t[3][Int(high & 0xFF)] ^ t[2][Int((high >> 8) & 0xFF)]
                ^ t[1][Int((high >> 16) & 0xFF)] ^ t[0][Int(high >> 24)]
            offset += 8
        }
        while offset < count {
            let byte = bytes.load(fromByteOffset: offset, as: UInt8.self)
            crc = (crc >> 8) ^ t[0][Int((crc ^ UInt32(byte)) & 0xFF)]
            offset += 1
        }
        return crc
    }
}
