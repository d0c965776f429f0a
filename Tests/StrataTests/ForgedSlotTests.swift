import Foundation
import Strata
import Testing

@testable import StrataStorage

/// Forged commit slots through the API (Spec D16): a slot with a good checksum naming version
/// 2^64-1 is damage, so `Realm()` opens the older slot's version (Spec D4) and writes go on,
/// or, with both slots forged, fails as an invalid database; never an overflow trap.
@Suite struct ForgedSlotTests {
    static func forgeVersion(_ path: String, slot: Int, _ version: UInt64) throws {
        try DamagedFileTests.rewrite(path) { bytes in
            let offset = FileHeader.slotOffsets[slot]
            for byte in 0..<8 { bytes[offset + 8 + byte] = UInt8(truncatingIfNeeded: version >> (8 * UInt64(byte))) }
            bytes.withUnsafeMutableBytes { CommitSlot.seal($0.baseAddress! + offset) }
        }
    }

    @Test("Spec D16: Realm() on a slot forged to version 2^64-1 opens the older version and writes on")
    func forgedMaximumVersionFallsBackThroughTheAPI() throws {
        let (configuration, path) = try DamagedFileTests.fileWithTwoCommits()
        let slots = try DamagedFileTests.slotVersions(path)
        let newest = try #require(slots[0].flatMap { v0 in slots[1].map { v1 in v0 > v1 ? 0 : 1 } })
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))

        try Self.forgeVersion(path, slot: newest, UInt64.max)
        #expect(try DamagedFileTests.read(configuration, thenWrite: true).get() == [1])
        #expect(try DamagedFileTests.read(configuration).get() == [1, 4])

        try pristine.write(to: URL(fileURLWithPath: path))
        try Self.forgeVersion(path, slot: 0, UInt64.max)
        try Self.forgeVersion(path, slot: 1, UInt64.max)
        switch DamagedFileTests.read(configuration, thenWrite: true) {
        case .success(let values): Issue.record("a file with two forged slots read \(values)")
        case .failure(let error):
            #expect(error.code == .invalidDatabase, "\(error)")
            #expect(error.message.contains("no valid commit slot"), "\(error)")
            #expect(error.message.contains("version 18446744073709551615 above the largest"), "\(error)")
        }
    }
}
