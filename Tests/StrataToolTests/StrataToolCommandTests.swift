import Foundation
import StrataStorage
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `strata-tool` as a user meets it: help, usage errors, and the inspection commands on files
/// made here through StrataStorage.
@Suite struct StrataToolHelpTests {
    static let subcommands = ["stat", "verify", "dump", "digest", "writer"]

    @Test func topLevelHelpListsEverySubcommand() throws {
        let output = try strataTool("--help")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.hasPrefix("usage: strata-tool <command>"))
        for name in Self.subcommands {
            #expect(
                output.lines.contains { $0.hasPrefix("  \(name) ") }, "\(name) missing: \(output)")
        }
        #expect(output.standardError.isEmpty)
    }

    @Test(arguments: subcommands)
    func subcommandHelpExitsZero(_ name: String) throws {
        let output = try strataTool(name, "--help")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.standardOutput.hasPrefix("usage: strata-tool \(name) FILE"), "\(output)")
        #expect(output.standardOutput.contains("-h, --help"))
    }

    @Test func helpWinsOverOtherMistakes() throws {
        let output = try strataTool("dump", "--limit", "many", "-h")
        #expect(output.exitCode == 0, "\(output)")
    }
}

@Suite struct StrataToolUsageTests {
    /// Runs the tool and checks exit 2 with `message` on stderr and nothing on stdout.
    private func expectUsageError(
        _ arguments: [String],
        _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let output = try ChildProcess.run("strata-tool", arguments)
        #expect(output.exitCode == 2, "\(output)", sourceLocation: sourceLocation)
        #expect(output.standardError.contains(message), "\(output)", sourceLocation: sourceLocation)
        #expect(output.standardOutput.isEmpty, "\(output)", sourceLocation: sourceLocation)
    }

    @Test func unknownSubcommandSuggestsTheClosest() throws {
        try expectUsageError(
            ["verfy", "x.strata"], "unknown command 'verfy' (did you mean 'verify'?)")
    }

    @Test func missingSubcommand() throws {
        try expectUsageError(
            [], "missing command (expected one of: stat, verify, dump, digest, writer)")
    }

    @Test func missingFile() throws {
        try expectUsageError(["stat"], "missing required argument FILE")
    }

    @Test func unknownOption() throws {
        try expectUsageError(
            ["verify", "x.strata", "--jsn"], "unknown option --jsn (did you mean --json?)")
    }

    @Test func badOptionValues() throws {
        try expectUsageError(["dump", "x.strata", "--limit", "many"], "--limit expects an integer")
        try expectUsageError(["dump", "x.strata", "--limit", "-1"], "--limit must be at least 0")
        try expectUsageError(
            ["writer", "x.strata", "--seed", "1"], "missing required option --commits")
        try expectUsageError(
            ["writer", "x.strata", "--commits", "1"], "missing required option --seed")
        try expectUsageError(
            ["writer", "x.strata", "--commits", "1", "--seed", "1", "--rows-max", "0"],
            "--rows-max must be between 1 and")
    }

    @Test func usageErrorsTouchNoFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("never.strata")
        try expectUsageError(
            ["writer", path, "--commits", "x", "--seed", "1"], "--commits expects")
        #expect(!Store.fileExists(path: path))
    }
}

@Suite struct StrataToolInspectionTests {
    @Test func statPrintsVersionsPagesAndTables() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let output = try strataTool("stat", sample.path)
        #expect(output.exitCode == 0, "\(output)")
        let text = output.standardOutput
        #expect(text.contains("newest version:    \(sample.version.rawValue)"), "\(text)")
        #expect(text.contains("page size:         4096 bytes"), "\(text)")
        #expect(
            text.contains("commit slots:      1, 2") || text.contains("commit slots:      2, 1"),
            "\(text)")
        #expect(
            output.lines.contains { $0.hasPrefix("  people") && $0.hasSuffix(" 200") }, "\(text)")
        #expect(output.lines.contains { $0.hasPrefix("  notes") && $0.hasSuffix(" 2") }, "\(text)")
        #expect(text.contains("pinned versions:"))
    }

    // stat counts the processes that pin a version, itself never: none while nobody reads,
    // one while this test process holds a read.
    @Test func statCountsReaderProcessesWithoutItself() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let idle = try strataTool("stat", sample.path)
        #expect(idle.lines.contains("reader processes:  0 (stat itself not counted)"), "\(idle)")
        let store = try Store.open(.file(sample.path), options: StoreOptions(create: false))
        defer { store.close() }
        let read = try store.beginRead()
        defer { read.end() }
        let reading = try strataTool("stat", sample.path)
        #expect(reading.lines.contains("reader processes:  1 (stat itself not counted)"), "\(reading)")
        let json = try jsonObject(try strataTool("stat", sample.path, "--json").lines[0])
        #expect(json["readerProcessCount"] as? Int == 1)
        #expect(!reading.standardOutput.contains("this one included"))
    }

    @Test func statJSONMatchesTheEngine() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let output = try strataTool("stat", sample.path, "--json")
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.lines.count == 1)
        let object = try jsonObject(output.lines[0])
        #expect(object["newestVersion"] as? Int == Int(sample.version.rawValue))
        #expect(object["pageSizeBytes"] as? Int == 4096)
        #expect(object["pageCount"] as? Int == sample.pageCount)
        let used = try #require(object["usedPageCount"] as? Int)
        let reusable = try #require(object["reusablePageCount"] as? Int)
        let pinnedFree = try #require(object["pinnedFreePageCount"] as? Int)
        #expect(used + reusable + pinnedFree == sample.pageCount)
        let tables = try #require(object["tables"] as? [[Any]])
        #expect(tables.map { $0[0] as? String } == ["notes", "people"])
        #expect(tables.map { $0[1] as? Int } == [2, SampleDatabase.peopleCount])
        let slots = try #require(object["slotVersions"] as? [Any])
        #expect(slots.compactMap { $0 as? Int }.sorted() == [1, 2])
        // No reader is open: stat's own pin is not counted.
        let pinned = try #require(object["pinnedVersions"] as? [[Int]])
        #expect(pinned.isEmpty)
        #expect(object["readerProcessCount"] as? Int == 0)
    }

    @Test func verifyCleanFile() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let output = try strataTool("verify", sample.path)
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.lines.first == "\(sample.path): clean")
        #expect(
            output.standardOutput.contains("tables:           notes (2 rows), people (200 rows)"))
        #expect(!output.standardOutput.contains("problem"))

        let json = try strataTool("verify", sample.path, "--json")
        #expect(json.exitCode == 0, "\(json)")
        let object = try jsonObject(json.lines[0])
        #expect(object["clean"] as? Bool == true)
        #expect(object["problemCount"] as? Int == 0)
        #expect((object["problems"] as? [Any])?.isEmpty == true)
        #expect(object["pageCount"] as? Int == sample.pageCount)
        #expect(object["versionsChecked"] as? [Int] == [Int(sample.version.rawValue)])
    }

    @Test func dumpPrintsEveryTableReadably() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let output = try strataTool("dump", sample.path)
        #expect(output.exitCode == 0, "\(output)")
        let lines = output.lines
        // Tables made through the engine alone store no schema: columns are named by position.
        #expect(lines.first == "table notes (2 rows)")
        #expect(lines[1].hasPrefix("  0: #0=\"long note long note "))
        #expect(lines[1].hasSuffix("...\" (10000 characters)"))
        #expect(lines[2] == "  1: #0=\"short\\nnote\", #1=<3 bytes>")
        #expect(lines[3] == "table people (200 rows)")
        #expect(lines[4] == "  0: #0=0, #1=\"person 0\", #2=20")
        #expect(lines.count == 4 + SampleDatabase.peopleCount)
        #expect(lines.last == "  199: #0=199, #1=\"person 199\", #2=69")
    }

    /// A file whose tables store schemas as the Realm API writes them (`strata-schema 1`, one
    /// `name<TAB>type<TAB>target<TAB>flags` line per column): Person (string primary key),
    /// Tag (integer primary key), Dog (no primary key, links and a list of links).
    static func makeLinkedDatabase(at path: String) throws {
        func schema(_ columns: [String]) -> [UInt8] {
            Array(("strata-schema 1\n" + columns.map { $0 + "\n" }.joined()).utf8)
        }
        let store = try Store.open(.file(path))
        defer { store.close() }
        let write = try store.beginWrite()
        let person = try write.createTable(
            "Person", primaryKey: .string(column: 0), schema: schema(["name\t4\t\tp", "age\t0\t\t"]))
        let tag = try write.createTable(
            "Tag", primaryKey: .int(column: 0), schema: schema(["id\t0\t\tp", "label\t4\t\t"]))
        let dog = try write.createTable(
            "Dog",
            schema: schema(["dogName\t4\t\t", "owner\t8\tPerson\to", "tag\t8\tTag\to", "friends\t8\tDog\tl"]))
        let ann = try write.insert(person.id, values: [.string("Ann"), .int(30)])
        let tagKey = try write.insert(tag.id, values: [.int(5), .string("good")])
        let rex = try write.insert(
            dog.id,
            values: [
                .string("Rex"), .link(Link(table: person.id, key: ann)), .link(Link(table: tag.id, key: tagKey)),
                .list([]),
            ])
        _ = try write.insert(
            dog.id,
            values: [
                .string("Fido"), .link(Link(table: person.id, key: ObjectKey(99))), .null,
                .list([.link(Link(table: dog.id, key: rex))]),
            ])
        _ = try write.commit()
    }

    // dump names every column (from the stored schema) and shows links by their target's
    // table and primary key, or object key, never as table-id:key pairs.
    @Test func dumpNamesColumnsAndShowsLinksReadably() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("linked.strata")
        try Self.makeLinkedDatabase(at: path)
        let output = try strataTool("dump", path)
        #expect(output.exitCode == 0, "\(output)")
        #expect(
            output.lines == [
                "table Dog (2 rows)",
                "  columns: dogName, owner, tag, friends",
                "  0: dogName=\"Rex\", owner=-> Person[name=\"Ann\"], tag=-> Tag[id=5], friends=[]",
                "  1: dogName=\"Fido\", owner=-> Person[99] (missing), tag=null, friends=[-> Dog[0]]",
                "table Person (1 row)",
                "  columns: name, age",
                "  0: name=\"Ann\", age=30",
                "table Tag (1 row)",
                "  columns: id, label",
                "  5: id=5, label=\"good\"",
            ], "\(output)")
        #expect(!output.standardOutput.contains("->1:") && !output.standardOutput.contains("->2:"))
    }

    @Test func dumpOneTableWithALimit() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let output = try strataTool("dump", sample.path, "--table", "people", "--limit", "2")
        #expect(output.exitCode == 0, "\(output)")
        #expect(
            output.lines == [
                "table people (200 rows)",
                "  0: #0=0, #1=\"person 0\", #2=20",
                "  1: #0=1, #1=\"person 1\", #2=21",
                "  ... 198 more rows",
            ])
    }

    @Test func dumpUnknownTableListsTheTables() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let output = try strataTool("dump", sample.path, "--table", "persons")
        #expect(output.exitCode == 2, "\(output)")
        #expect(output.standardError.contains("no table named 'persons'"), "\(output)")
        #expect(output.standardError.contains("(tables: notes, people)"), "\(output)")
        #expect(output.standardOutput.isEmpty)
    }

    @Test func digestMatchesTheEngine() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        let output = try strataTool("digest", sample.path)
        #expect(output.exitCode == 0, "\(output)")
        #expect(output.lines == ["\(sample.version.rawValue) \(digestText(sample.digest))"])
    }
}

/// Damaged, foreign and missing files: exit 1 for damage (a file that is not a Strata file
/// counts as damage, as `verify` reports it), 3 for I/O errors.
@Suite struct StrataToolBadFileTests {
    @Test func verifyNamesADamagedDataPage() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        // One commit into a fresh file: every page but the header is reachable, and the
        // middle ones hold rows of `people`.
        let page = sample.pageCount / 2
        #expect(page >= 2)
        try flipBytes(path: sample.path, offset: page * 4096 + 100, byteCount: 8)
        let output = try strataTool("verify", sample.path)
        #expect(output.exitCode == 1, "\(output)")
        #expect(
            output.lines.first?.hasSuffix("problem") == true
                || output.lines.first?.hasSuffix("problems") == true)
        #expect(output.standardOutput.contains("checksum mismatch on page \(page)"), "\(output)")
        let json = try strataTool("verify", sample.path, "--json")
        #expect(json.exitCode == 1, "\(json)")
        let object = try jsonObject(json.lines[0])
        #expect(object["clean"] as? Bool == false)
        let problems = try #require(object["problems"] as? [String])
        #expect(
            problems.contains { $0.contains("checksum mismatch on page \(page)") }, "\(problems)")
    }

    @Test func verifyReportsADamagedHeader() throws {
        let directory = TemporaryDirectory()
        let sample = try SampleDatabase.make(at: directory.file("sample.strata"))
        try flipBytes(path: sample.path, offset: 0, byteCount: 4)
        let output = try strataTool("verify", sample.path)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.lines.first == "\(sample.path): 1 problem")
        #expect(output.lines.last?.hasPrefix("problem: cannot open: ") == true, "\(output)")
    }

    @Test func notAStrataFileIsCorruption() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("random.bin")
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<3 * 4096).map { _ in UInt8.random(in: 0...255, using: &random) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let verify = try strataTool("verify", path)
        #expect(verify.exitCode == 1, "\(verify)")
        #expect(
            verify.standardOutput.contains("problem: cannot open: not a Strata file: \(path)"),
            "\(verify)")
        let json = try strataTool("verify", path, "--json")
        #expect(json.exitCode == 1, "\(json)")
        let problems = try #require(try jsonObject(json.lines[0])["problems"] as? [String])
        #expect(problems == ["cannot open: not a Strata file: \(path)"])
        for command in ["stat", "dump", "digest"] {
            let output = try ChildProcess.run("strata-tool", [command, path])
            #expect(output.exitCode == 1, "\(command): \(output)")
            #expect(
                output.standardError.contains("\(command): corrupt: not a Strata file: \(path)\n"), "\(output)")
        }
    }

    @Test func emptyFileIsCorruption() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("empty.strata")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let output = try strataTool("verify", path)
        #expect(output.exitCode == 1, "\(output)")
        #expect(output.standardOutput.contains("problem: cannot open: "), "\(output)")
    }

    @Test(arguments: ["stat", "verify", "dump", "digest"])
    func missingFileIsAnIOError(_ command: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("absent.strata")
        let output = try ChildProcess.run("strata-tool", [command, path])
        #expect(output.exitCode == 3, "\(output)")
        // The path is named once.
        #expect(
            output.standardError.contains("\(command): I/O error: no such file: \(path)\n"), "\(output)")
        #expect(output.standardError.components(separatedBy: path).count == 2, "\(output)")
        #expect(!Store.fileExists(path: path), "inspection must not create the file")
    }
}
