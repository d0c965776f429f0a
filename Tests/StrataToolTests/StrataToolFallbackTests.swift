import Foundation
import StrataTestSupport
import Testing

@testable import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `verify` and `stat` on a file whose newest commit slot is damaged (Spec D15), and on slots
/// with forged out-of-range fields (Spec D16), run as a user runs the tool.
@Suite struct StrataToolFallbackTests {
    /// The sample database's slots: index of the newest (version 2) and of the older (1).
    static func slots(_ path: String) throws -> (newest: Int, older: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let versions = FileHeader.slotOffsets.map { offset in
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + 8 + $1]) << (8 * UInt64($1)) }
        }
        return versions[0] > versions[1] ? (0, 1) : (1, 0)
    }

    /// Writes `version` into slot `index` of `path` with a good checksum (a forged slot).
    static func forgeVersion(_ path: String, slot index: Int, _ version: UInt64) throws {
        let descriptor = open(path, O_RDWR)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var sector = [UInt8](repeating: 0, count: FileHeader.sectorByteCount)
        let offset = off_t(FileHeader.slotOffsets[index])
        #expect(sector.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) } == sector.count)
        for byte in 0..<8 { sector[8 + byte] = UInt8(truncatingIfNeeded: version >> (8 * UInt64(byte))) }
        sector.withUnsafeMutableBytes { CommitSlot.seal($0.baseAddress!) }
        #expect(sector.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, offset) } == sector.count)
    }

    @Test(
        "Spec D15: verify exits 1 with a note naming the damaged slot, the version recovered and the one lost; --allow-fallback exits 0"
    )
    func verifyReportsAFallbackToTheOlderSlot() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let (newest, older) = try Self.slots(sample.path)
        // A flipped byte in the padding of the newest slot: its checksum fails.
        try flipBytes(path: sample.path, offset: FileHeader.slotOffsets[newest] + 300, byteCount: 1)
        let note =
            "note: commit slot \(newest) is damaged (checksum mismatch) and names version 2; "
            + "the file fell back to version 1 in slot \(older)"

        let output = try strataTool("verify", sample.path)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.lines.first == "\(sample.path): pages clean, but the newest commit slot is damaged", "\(output)")
        #expect(output.lines.contains { $0.hasPrefix(note) }, "\(output)")
        #expect(output.standardOutput.contains("versions checked: 1 (v1)"), "\(output)")

        let allowed = try strataTool("verify", sample.path, "--allow-fallback")
        #expect(allowed.exitCode == 0, "\(allowed)")
        #expect(allowed.lines.contains { $0.hasPrefix(note) }, "\(allowed)")

        let json = try strataTool("verify", sample.path, "--json")
        #expect(json.exitCode == 1, "\(json)")
        let object = try jsonObject(json.lines[0])
        #expect(object["clean"] as? Bool == false, "a fallback is not clean: \(object)")
        #expect(object["pagesClean"] as? Bool == true, "\(object)")
        #expect(object["slotFallback"] as? [Int] == [newest, 2, 1])
        #expect((object["notes"] as? [String])?.contains { ("note: " + $0).hasPrefix(note) } == true, "\(object)")

        let stat = try strataTool("stat", sample.path)
        #expect(stat.exitCode == 0, "\(stat)")
        #expect(stat.lines.contains { $0.hasPrefix(note) }, "\(stat)")
        let statJSON = try jsonObject(try strataTool("stat", sample.path, "--json").lines[0])
        #expect(statJSON["slotFallback"] as? [Int] == [newest, 2, 1])
    }

    @Test("Spec D15: verify --help documents --allow-fallback")
    func verifyHelpDocumentsAllowFallback() throws {
        let output = try strataTool("verify", "--help")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.contains("--allow-fallback"), "\(output)")
        #expect(output.standardOutput.contains("older commit slot"), "\(output)")
    }

    @Test("verify counts the versions it checked and names them")
    func verifyCountsVersions() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let output = try strataTool("verify", sample.path)
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.contains("versions checked: 1 (v\(sample.version.rawValue))"), "\(output)")
        let object = try jsonObject(try strataTool("verify", sample.path, "--json").lines[0])
        #expect(object["versionCount"] as? Int == 1)
    }

    @Test("Spec D16: a slot forged to version 2^64-1 is damage to verify, and writer and verify never trap")
    func forgedMaximumVersion() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let (newest, older) = try Self.slots(sample.path)
        try Self.forgeVersion(sample.path, slot: newest, UInt64.max)
        let verify = try strataTool("verify", sample.path)
        #expect(verify.exitCode == 1, "\(verify)")
        #expect(
            verify.standardOutput.contains(
                "commit slot \(newest) is damaged (impossible values: version 18446744073709551615 above the largest, "
                    + "9223372036854775807) and names version 18446744073709551615; the file fell back to version 1 in slot \(older)"
            ),
            "\(verify)")
        // The writer continues from the recovered version 1 and overwrites the forged slot.
        let writer = try strataTool("writer", sample.path, "--commits", "2", "--seed", "7")
        #expect(writer.exitCode == 0, "\(writer)")
        #expect(writer.lines.last?.hasPrefix("committed 3 ") == true, "\(writer)")
        let after = try strataTool("verify", sample.path)
        #expect(after.exitCode == 0, "\(after)")

        // Both slots forged: no version can be recovered; a typed error, exit 1, no trap.
        try Self.forgeVersion(sample.path, slot: 0, UInt64.max)
        try Self.forgeVersion(sample.path, slot: 1, UInt64.max)
        for arguments in [["verify"], ["writer", "--commits", "1", "--seed", "7"], ["stat"], ["digest"]] {
            let output = try ChildProcess.run("strata-tool", [arguments[0], sample.path] + arguments.dropFirst())
            #expect(output.exitCode == 1, "\(arguments): \(output)")
            #expect(
                (output.standardOutput + output.standardError).contains("no valid commit slot"),
                "\(arguments): \(output)")
        }
    }
}
