import Foundation
import StrataStorage
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The engine across real processes: a `strata-tool writer` child writes while this process
/// reads, a second writer process waits for the first, and writers killed with SIGKILL at
/// random moments leave a file that verifies clean and holds exactly what they acknowledged.
///
/// Serialized: the tests spawn several children each and measure the order of their output;
/// running them side by side on a 2-core machine would only blur that.
@Suite(.serialized) struct StrataToolProcessTests {
    /// What a writer child printed, by version.
    struct Printed {
        var prepared: [UInt64: String] = [:]
        var committed: [UInt64: String] = [:]

        init(_ lines: [WriterLine]) {
            for line in lines {
                switch line.kind {
                case .prepared: prepared[line.version] = line.digest
                case .committed: committed[line.version] = line.digest
                }
            }
        }

        /// The highest version the child acknowledged as committed.
        var committedMax: UInt64? { committed.keys.max() }
        /// The digest printed for `version`, committed or only prepared.
        func digest(_ version: UInt64) -> String? { committed[version] ?? prepared[version] }
    }

    // MARK: 1. a reader beside a writer process

    @Test func readerSeesOnlyConsistentVersionsWhileAChildWrites() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("shared.strata")
        let store = try Store.open(.file(path))  // made first, so reads can start at once
        defer { store.close() }
        let child = try ChildProcess(
            product: "strata-tool",
            arguments: [
                "writer", path, "--commits", "40", "--seed", "11", "--rows-max", "400",
                "--pause-before-commit-ms", "10",
            ])
        var observed: [(version: UInt64, digest: String)] = []
        let deadline = ContinuousClock.now + .seconds(hangGuardSeconds)
        var childEnded = false
        // One more read after the child ends, so the last version is seen too.
        while !childEnded && ContinuousClock.now < deadline {
            childEnded = child.waitForExit(timeout: .zero) != nil
            let read = try store.beginRead()
            let version = read.version.rawValue
            let digest = digestText(try read.contentDigest())
            read.end()
            if let previous = observed.last {
                #expect(version >= previous.version, "versions went backwards")
            }
            observed.append((version, digest))
            guard version >= 2 else { continue }  // version 1: the empty file made above
            // The child printed `prepared` before committing, hence before this version was
            // visible; its line may still be on its way through the pipe.
            let printed = child.waitForLine(timeout: .seconds(hangGuardSeconds)) {
                $0.hasPrefix("prepared \(version) ")
            }
            #expect(
                printed?.text == "prepared \(version) \(digest)", "v\(version) read as \(digest)")
        }
        let output = try #require(child.output(timeout: .seconds(hangGuardSeconds)))
        #expect(output.exitCode == 0, "\(output)")
        let printed = Printed(WriterLine.parse(output.lines))
        #expect(printed.committedMax == 41)
        for (version, digest) in observed where version >= 2 {
            #expect(printed.committed[version] == digest, "v\(version)")
        }
        #expect(observed.last?.version == 41)
        let distinctVersions = Set(observed.map(\.version))
        #expect(
            distinctVersions.count >= 3, "reads never overlapped the writer: \(distinctVersions)")
        print(
            "reader beside writer: \(observed.count) reads saw \(distinctVersions.count) versions")
    }

    // MARK: 2. one writer across processes

    @Test func aSecondWriterProcessWaitsForTheFirst() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("shared.strata")
        // A first commit grows the file to its first growth chunk before the two writers
        // start, so that neither of their small commits grows it again: a writer process that
        // opened the file before another process grew it cannot begin a write (the engine bug
        // `writeAfterAnotherProcessGrewTheFile` reproduces).
        let setup = try ChildProcess.run(
            "strata-tool", ["writer", path, "--commits", "1", "--seed", "3", "--rows-max", "50"])
        #expect(setup.exitCode == 0, "\(setup)")
        let fileByteCount = try fileSize(path)
        let store = try Store.open(.file(path), options: StoreOptions(create: false))
        defer { store.close() }
        let first = try ChildProcess(
            product: "strata-tool",
            arguments: [
                "writer", path, "--commits", "1", "--seed", "1", "--rows-max", "50",
                "--pause-before-commit-ms", "1500",
            ])
        let firstPrepared = try #require(
            first.waitForLine(timeout: .seconds(hangGuardSeconds)) { $0.hasPrefix("prepared ") },
            "\(first.standardError)")
        // The first child holds the write lock from before `prepared` until its commit returns.
        #expect(try store.tryBeginWrite() == nil, "this process took the lock a child holds")
        let second = try ChildProcess(
            product: "strata-tool",
            arguments: ["writer", path, "--commits", "1", "--seed", "2", "--rows-max", "50"])
        let early = second.waitForLine(timeout: .milliseconds(700)) { _ in true }
        #expect(
            early == nil,
            "the second writer ran while the first held the lock: \(early?.text ?? "")")
        #expect(try store.tryBeginWrite() == nil)

        let firstOutput = try #require(first.output(timeout: .seconds(hangGuardSeconds)))
        let secondOutput = try #require(second.output(timeout: .seconds(hangGuardSeconds)))
        #expect(firstOutput.exitCode == 0, "\(firstOutput)")
        #expect(secondOutput.exitCode == 0, "\(secondOutput)")
        #expect(
            try fileSize(path) == fileByteCount,
            "the file grew: the second writer met the known bug")
        let firstCommitted = try #require(first.lines.first { $0.text.hasPrefix("committed ") })
        let secondPrepared = try #require(second.lines.first { $0.text.hasPrefix("prepared ") })
        let secondCommitted = try #require(second.lines.first { $0.text.hasPrefix("committed ") })
        #expect(
            secondCommitted.sequence > firstCommitted.sequence, "second committed before the first")
        // The second could not even begin before the first's pause ended.
        #expect(secondPrepared.arrival - firstPrepared.arrival >= .milliseconds(1400))
        let firstVersion = try #require(WriterLine(firstCommitted.text)).version
        #expect(WriterLine(secondPrepared.text)?.version == firstVersion + 1)
        #expect(WriterLine(secondCommitted.text)?.version == firstVersion + 1)
        // What the second printed is what the file holds.
        let digest = try strataTool("digest", path)
        #expect(
            digest.lines == [secondCommitted.text.replacingOccurrences(of: "committed ", with: "")])
    }

    /// A write in a process whose map predates another process's growth of the file must see
    /// the new slot (regression: it used to reject it as pointing past the end).
    @Test func writeAfterAnotherProcessGrewTheFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("grown.strata")
        let store = try Store.open(.file(path))  // maps the one-page file
        defer { store.close() }
        let child = try ChildProcess.run(
            "strata-tool", ["writer", path, "--commits", "1", "--seed", "1"])
        #expect(child.exitCode == 0, "\(child)")
        #expect(store.newestVersion == Version(2))
        // The write begins at once: it extends its map before reading the slots.
        let write = try store.beginWrite()
        #expect(write.baseVersion == Version(2))
        write.rollback()
        let read = try store.beginRead()
        #expect(read.version == Version(2))
        read.end()
    }

    private func fileSize(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.size] as? Int)
    }

    // MARK: 3. writers killed with SIGKILL

    /// What the kill loop saw, for its summary line.
    struct KillTally {
        var kills = 0
        var versionsChecked = 0
        var committedSurvived = 0
        var preparedSurvived = 0
        var preparedLost = 0
        var killedBeforeFirstCommit = 0
        var durableUnpublished = 0
        var deadPinsReclaimed = 0
    }

    @Test func writersKilledAtRandomLeaveAVerifiableFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("killed.strata")
        let iterations = 24
        var random = SplitMix64(seed: 0x5EED_0F_C0FFEE)
        var tally = KillTally()
        var newestBefore: UInt64 = 0  // no file yet
        let start = ContinuousClock.now
        for iteration in 0..<iterations {
            // Odd rounds keep the file open here across the kill: then the lock file outlives
            // the child, its reader slot must be reclaimed, and its last durable commit may be
            // unpublished. Even rounds reopen alone, which rebuilds the lock file from disk.
            let keeper =
                iteration % 2 == 1 && Store.fileExists(path: path)
                ? try Store.open(.file(path), options: StoreOptions(create: false)) : nil
            let runTime = Duration.milliseconds(random.int(in: 20...300))
            let printed = try runAndKill(path: path, seed: UInt64(iteration), runTime: runTime)
            tally.kills += 1
            newestBefore = try checkAfterKill(
                path: path, printed: printed, newestBefore: newestBefore, keeper: keeper,
                tally: &tally)
            newestBefore = try writeAfterKill(
                path: path, seed: UInt64(iteration), newestBefore: newestBefore,
                mayAdopt: keeper != nil)
        }
        let seconds = (ContinuousClock.now - start).components.seconds
        print(
            "SIGKILL loop: \(tally.kills) kills in \(seconds) s, \(tally.versionsChecked) newest "
                + "versions checked against printed digests (\(tally.committedSurvived) committed, "
                + "\(tally.preparedSurvived) prepared-only survived, "
                + "\(tally.preparedLost) prepared-only lost), "
                + "\(tally.killedBeforeFirstCommit) killed before a commit, "
                + "\(tally.durableUnpublished) durable-but-unpublished, "
                + "\(tally.deadPinsReclaimed) dead reader slots reclaimed")
        #expect(tally.versionsChecked >= iterations / 2)
    }

    /// Starts a writer, lets it run for `runTime`, kills it, and returns what it printed.
    private func runAndKill(path: String, seed: UInt64, runTime: Duration) throws -> Printed {
        let child = try ChildProcess(
            product: "strata-tool",
            arguments: [
                "writer", path, "--commits", "1000", "--seed", String(seed), "--rows-max", "400",
                "--hold-read-pin",
            ])
        let early = child.waitForExit(timeout: runTime)
        #expect(early == nil, "the writer ended before it was killed: \(child.standardError)")
        child.signal(SIGKILL)
        let termination = child.waitForExit(timeout: .seconds(hangGuardSeconds))
        #expect(termination == .signaled(SIGKILL))
        // Only complete lines count: a line cut by the kill was never acknowledged.
        return Printed(WriterLine.parse(child.lines.map(\.text)))
    }

    /// Checks the file a killed writer left; returns its newest version.
    private func checkAfterKill(
        path: String,
        printed: Printed,
        newestBefore: UInt64,
        keeper: Store?,
        tally: inout KillTally
    ) throws -> UInt64 {
        guard Store.fileExists(path: path) else {
            // Killed while creating the file (creation is atomic: no file, or a whole one).
            #expect(printed.committed.isEmpty && printed.prepared.isEmpty)
            tally.killedBeforeFirstCommit += 1
            return 0
        }
        let store = try keeper ?? Store.open(.file(path), options: StoreOptions(create: false))
        defer { if keeper == nil { store.close() } }
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems)")
        let read = try store.beginRead()
        let newest = read.version.rawValue
        let digest = digestText(try read.contentDigest())
        read.end()
        // Everything acknowledged survived, and nothing newer than what was prepared exists.
        #expect(newest >= printed.committedMax ?? 0)
        #expect(newest >= newestBefore)
        #expect(
            newest == max(newestBefore, 1) || printed.prepared[newest] != nil,
            "v\(newest) came from nowhere")
        if let expected = printed.digest(newest) {
            #expect(expected == digest, "v\(newest) holds other contents than the writer printed")
            tally.versionsChecked += 1
            if printed.committed[newest] != nil {
                tally.committedSurvived += 1
            } else {
                tally.preparedSurvived += 1
            }
        } else {
            tally.killedBeforeFirstCommit += 1
        }
        if let preparedMax = printed.prepared.keys.max(), preparedMax > newest,
            printed.committed[preparedMax] == nil
        {
            tally.preparedLost += 1
        }
        try checkSlotsAndPins(
            store, newest: newest, printed: printed, keptOpen: keeper != nil, tally: &tally)
        return newest
    }

    /// The commit slots hold the newest version (or, when this process kept the file open, one
    /// the dead writer made durable without publishing), and no dead reader's pin stays.
    private func checkSlotsAndPins(
        _ store: Store,
        newest: UInt64,
        printed: Printed,
        keptOpen: Bool,
        tally: inout KillTally
    ) throws {
        let durable = try #require(
            try store.statistics().slotVersions.compactMap { $0?.rawValue }.max())
        if durable == newest + 1 && keptOpen {
            // Durable but never published: only a writer adopting it makes it visible here.
            #expect(printed.prepared[durable] != nil)
            tally.durableUnpublished += 1
        } else {
            #expect(durable == newest, "slots hold v\(durable), readers see v\(newest)")
        }
        if keptOpen {
            if !store.pinnedVersions().isEmpty { tally.deadPinsReclaimed += 1 }
            store.reclaimDeadReaders()
        }
        // This process holds no pin now, and the killed writer's slot is gone.
        #expect(store.pinnedVersions().isEmpty, "\(store.pinnedVersions())")
    }

    /// Runs a short writer to show the file still takes commits; returns the new newest version.
    /// `mayAdopt`: this process kept the file open, so the killed writer's last commit may be
    /// durable without being visible here, and the new writer starts after it.
    private func writeAfterKill(
        path: String,
        seed: UInt64,
        newestBefore: UInt64,
        mayAdopt: Bool
    ) throws -> UInt64 {
        let output = try ChildProcess.run(
            "strata-tool",
            ["writer", path, "--commits", "3", "--seed", String(seed + 1000), "--rows-max", "400"])
        #expect(output.exitCode == 0, "\(output)")
        let printed = Printed(WriterLine.parse(output.lines))
        let last = try #require(printed.committedMax)
        // One more than what this process saw (a missing file is created at version 1), or
        // two when the writer adopted a durable commit the killed writer had not published.
        let base = max(newestBefore, 1)
        let first = try #require(printed.committed.keys.min())
        #expect(
            first == base + 1 || (mayAdopt && first == base + 2),
            "first v\(first) after v\(newestBefore)")
        #expect(last == first + 2)
        let store = try Store.open(.file(path), options: StoreOptions(create: false))
        defer { store.close() }
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems)")
        let read = try store.beginRead()
        defer { read.end() }
        #expect(read.version.rawValue == last)
        #expect(digestText(try read.contentDigest()) == printed.committed[last])
        return last
    }
}
