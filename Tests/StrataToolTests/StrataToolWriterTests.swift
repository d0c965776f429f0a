import Foundation
import StrataStorage
import StrataTestSupport
import Testing

/// `strata-tool writer`: its output protocol and its determinism, which the process tests
/// rely on to check what survives a crash.
@Suite struct StrataToolWriterTests {
    /// Runs the writer to completion and returns its parsed lines.
    private func runWriter(
        _ path: String,
        commits: Int,
        seed: String,
        rowsMax: Int = 300,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [WriterLine] {
        let output = try ChildProcess.run(
            "strata-tool",
            [
                "writer", path, "--commits", String(commits), "--seed", seed, "--rows-max",
                String(rowsMax),
            ])
        #expect(output.exitCode == 0, "\(output)", sourceLocation: sourceLocation)
        #expect(output.standardError.isEmpty, "\(output)", sourceLocation: sourceLocation)
        return WriterLine.parse(output.lines, sourceLocation: sourceLocation)
    }

    /// Checks the protocol: `prepared V d` then `committed V d`, versions consecutive from
    /// `firstVersion`.
    private func expectWellFormed(
        _ lines: [WriterLine],
        commits: Int,
        firstVersion: UInt64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(lines.count == 2 * commits, sourceLocation: sourceLocation)
        for (index, pair) in stride(from: 0, to: lines.count - 1, by: 2).map({
            (lines[$0], lines[$0 + 1])
        })
        .enumerated() {
            let version = firstVersion + UInt64(index)
            #expect(pair.0.kind == .prepared, "\(pair.0)", sourceLocation: sourceLocation)
            #expect(pair.1.kind == .committed, "\(pair.1)", sourceLocation: sourceLocation)
            #expect(pair.0.version == version, "\(pair.0)", sourceLocation: sourceLocation)
            #expect(pair.1.version == version, "\(pair.1)", sourceLocation: sourceLocation)
            // The digest computed inside the transaction is the digest of what was committed.
            #expect(pair.0.digest == pair.1.digest, "v\(version)", sourceLocation: sourceLocation)
        }
    }

    @Test func sameSeedSameCommitsAndDigests() throws {
        let directory = TemporaryDirectory()
        let first = try runWriter(directory.file("a.strata"), commits: 25, seed: "42")
        let second = try runWriter(directory.file("b.strata"), commits: 25, seed: "42")
        expectWellFormed(first, commits: 25, firstVersion: 2)
        #expect(first == second)
        let other = try runWriter(directory.file("c.strata"), commits: 25, seed: "43")
        #expect(other.last?.digest != first.last?.digest)
        // Distinct versions have distinct contents (every commit changes something).
        let committed = first.filter { $0.kind == .committed }
        #expect(Set(committed.map(\.digest)).count == committed.count)
    }

    @Test func digestCommandEqualsTheLastCommittedDigest() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("w.strata")
        let lines = try runWriter(path, commits: 12, seed: "0x5eed")
        let last = try #require(lines.last)
        #expect(last.kind == .committed)
        let digest = try strataTool("digest", path)
        #expect(digest.exitCode == 0, "\(digest)")
        #expect(digest.lines == ["\(last.version) \(last.digest)"])
        // The digest another process computes from the file agrees too.
        let store = try Store.open(
            .file(path), options: StoreOptions(create: false, readOnly: true))
        defer { store.close() }
        let read = try store.beginRead()
        defer { read.end() }
        #expect(read.version.rawValue == last.version)
        #expect(digestText(try read.contentDigest()) == last.digest)
        let verify = try strataTool("verify", path)
        #expect(verify.exitCode == 0, "\(verify)")
    }

    @Test func aRestartedRunContinuesAsAnUninterruptedOne() throws {
        let directory = TemporaryDirectory()
        let whole = try runWriter(directory.file("whole.strata"), commits: 20, seed: "9")
        let pieces = directory.file("pieces.strata")
        let head = try runWriter(pieces, commits: 8, seed: "9")
        let tail = try runWriter(pieces, commits: 12, seed: "9")
        expectWellFormed(tail, commits: 12, firstVersion: 10)
        #expect(head + tail == whole)
    }

    @Test func workloadReachesOverflowSizesAndKeepsTheRowLimit() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("w.strata")
        _ = try runWriter(path, commits: 40, seed: "7", rowsMax: 150)
        let store = try Store.open(
            .file(path), options: StoreOptions(create: false, readOnly: true))
        defer { store.close() }
        let read = try store.beginRead()
        defer { read.end() }
        let items = try #require(read.table(named: "items"))
        let blobs = try #require(read.table(named: "blobs"))
        #expect(items.rowCount <= 150)
        #expect(items.rowCount > 50)
        #expect(blobs.rowCount > 0 && blobs.rowCount <= 40)
        var nameCharacterCountMax = 0
        var payloadByteCountMax = 0
        var nullScores = 0
        try read.forEachRow(items) { key, row in
            let values = try row.values()
            #expect(values.count == 6)
            #expect(values[0] == .int(key.rawValue))
            if case .string(let name) = values[1] {
                nameCharacterCountMax = max(nameCharacterCountMax, name.utf8.count)
            }
            if case .binary(let payload) = values[3] {
                payloadByteCountMax = max(payloadByteCountMax, payload.count)
            }
            if values[5] == .null { nullScores += 1 }
            return true
        }
        #expect(nameCharacterCountMax > store.pageSizeBytes, "no name over a page")
        #expect(payloadByteCountMax > store.pageSizeBytes, "no payload over a page")
        #expect(nullScores > 0 && nullScores < items.rowCount)
        var blobByteCountMax = 0
        try read.forEachRow(blobs) { _, row in
            if case .binary(let data) = try row.value(at: 1) {
                blobByteCountMax = max(blobByteCountMax, data.count)
            }
            return true
        }
        #expect(blobByteCountMax > 2 * store.pageSizeBytes)
        #expect(blobByteCountMax <= 3 * store.pageSizeBytes)
    }

    @Test func pauseHoldsTheCommitBack() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("w.strata")
        let child = try ChildProcess(
            product: "strata-tool",
            arguments: [
                "writer", path, "--commits", "1", "--seed", "1", "--pause-before-commit-ms", "300",
            ])
        let prepared = try #require(
            child.waitForLine(timeout: .seconds(hangGuardSeconds)) { $0.hasPrefix("prepared ") })
        let output = try #require(child.output(timeout: .seconds(hangGuardSeconds)))
        #expect(output.exitCode == 0, "\(output)")
        let committed = try #require(child.lines.first { $0.text.hasPrefix("committed ") })
        #expect(committed.arrival - prepared.arrival >= .milliseconds(290))
        #expect(committed.sequence > prepared.sequence)
    }
}
