import Foundation
import StrataTestSupport
import Testing

/// `strata-fuzz damage` as a child process: a small campaign over every class but stale pages
/// ends with no failure; a planted crash and a planted hang in a checking child are each
/// counted, kept as an artifact that reproduces, and the campaign goes on (Spec D8, X31).
@Suite(.serialized) struct StrataFuzzDamageTests {
    static func count(_ outcome: String, in output: ChildOutput) -> Int? {
        guard let line = output.lines.first(where: { $0.hasPrefix("damage: ") && $0.contains(" variants in ") }),
            let range = line.range(of: "\(outcome) ")
        else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    @Test(
        "Spec D8, X31: 120 variants of every class but stale pages: detected or harmless, none undetected, crashed or hung"
    )
    func smallCampaignHasNoFailure() throws {
        let directory = TemporaryDirectory()
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "damage", "--generate", "--variants", "120", "--seed", "5",
                "--no-stale", "--batch", "50", "--out", directory.path,
            ])
        #expect(output.exitCode == 0, "\(output)")
        #expect(Self.count("undetected", in: output) == 0, "\(output)")
        #expect(Self.count("crash", in: output) == 0, "\(output)")
        #expect(Self.count("hang", in: output) == 0, "\(output)")
        let detected = try #require(Self.count("detected", in: output), "\(output)")
        #expect(detected > 0)
        // Every special file (FIFO, directory, loop, empty, /dev/zero, zeros) is detected.
        let special = try #require(output.lines.first { $0.hasPrefix("special ") }, "\(output)")
        let cells = special.split(separator: " ").map(String.init)
        #expect(cells.count == 8 && Int(cells[1]) ?? 0 > 0 && cells.dropFirst(2).allSatisfy { $0 == "0" }, "\(special)")
    }

    @Test(
        "A crash and a hang planted in checking children are counted, kept and reproducible; the campaign goes on",
        arguments: ["crash", "hang"])
    func plantedFailuresAreCountedAndTheCampaignGoesOn(kind: String) throws {
        let directory = TemporaryDirectory()
        // The watchdog's 100 polls (10 s) are far above what one variant takes on a loaded
        // machine, so only the planted hang trips it.
        let output = try ChildProcess.run(
            "strata-fuzz",
            [
                "damage", "--generate", "--variants", "30", "--seed", "9",
                "--no-stale", "--no-api", "--batch", "10", "--jobs", "1",
                "--stall-polls", "100", "--plant", "\(kind):13",
                "--out", directory.path,
            ])
        #expect(output.exitCode == 1, "\(output)")
        #expect(Self.count(kind, in: output) == 1, "\(output)")
        // The other 29 variants were checked: by the child before it, and by the one after.
        let total = ["detected", "harmless", "fallback"].compactMap { Self.count($0, in: output) }.reduce(0, +)
        #expect(total == 29, "\(output)")
        let readme = try String(contentsOfFile: directory.file("damage-9-13/README"), encoding: .utf8)
        #expect(readme.contains("outcome: \(kind)"), "\(readme)")
        #expect(FileManager.default.fileExists(atPath: directory.file("damage-9-13/prepared/original.strata")))
        // The reproduction command, without the plant, checks the same variant cleanly.
        let line = try #require(readme.split(separator: "\n").first { $0.hasPrefix("reproduce: strata-fuzz ") })
        let arguments = line.dropFirst("reproduce: strata-fuzz ".count).split(separator: " ").map(String.init)
        let again = try ChildProcess.run("strata-fuzz", arguments + ["--out", directory.file("again")])
        #expect(again.exitCode == 0, "\(again)")
        #expect(again.standardOutput.contains("damage: 1 variants in"), "\(again)")
    }
}
