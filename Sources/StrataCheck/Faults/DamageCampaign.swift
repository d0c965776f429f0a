import Foundation
import Strata
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `strata-fuzz damage`: damaged variants of a database run through the tools' code paths and
/// the Realm API, in child processes supervised by the parent, so that a crash or a hang is
/// counted (and its variant kept) instead of ending the campaign (Docs/testing.md "Damage
/// campaign").
///
/// The prepared original lives in a directory: `original.strata`, `older-N.strata` (the file
/// after earlier commits, for stale pages) and `expectation` (what every path must read).
public enum DamageCampaign {
    public static let originalName = "original.strata"
    static let expectationName = "expectation"

    // MARK: preparing the original

    /// Writes a generated original through the Realm API (the harness's classes, several
    /// commits of inserts, lists, updates and deletes), keeping the file's image after each
    /// commit. Returns the number of older images.
    public static func generate(into directory: String) throws -> Int {
        let path = directory + "/generated.strata"
        let configuration = DamageCheck.configuration(path)
        var images: [[UInt8]] = []
        do {
            let realm = try Realm._open(configuration: configuration, queue: nil)
            func commit(_ body: () throws -> Void) throws {
                try realm._beginWrite()
                try body()
                try realm._commitWrite()
                images.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            }
            try commit {
                for key in 0..<1200 {
                    let value: [String: Any] =
                        key % 7 == 0 ? ["primaryKey": key] : ["primaryKey": key, "value": key * 3]
                    _ = try realm._create(Item.self, value: value, update: .error)
                }
            }
            try commit {
                let items = try realm._objects(Item.self)
                var all: [Item] = []
                for index in 0..<(try items._count()) { all.append(try items._element(at: index)) }
                for key in 0..<200 {
                    let other = try realm._create(Other.self, value: ["primaryKey": key, "value": key], update: .error)
                    for position in 0..<(key % 30) {
                        try other.list._append(all[(key * 5 + position) % all.count])
                    }
                }
            }
            for round in 0..<4 {
                try commit {
                    let items = try realm._objects(Item.self)
                    for index in stride(from: round, to: try items._count(), by: 9) {
                        try items._element(at: index)._setValue(round * 1000 + index, forKey: "value")
                    }
                }
            }
            try commit {
                for key in stride(from: 1, to: 1200, by: 11) {
                    _ = try realm._create(Item.self, value: ["primaryKey": 2000 + key, "value": key], update: .error)
                }
                let others = try realm._objects(Other.self)
                var doomed: [Other] = []
                for index in stride(from: 0, to: try others._count(), by: 5) {
                    doomed.append(try others._element(at: index))
                }
                for other in doomed { try realm._delete(other) }
            }
            try commit {
                for key in 0..<400 {
                    _ = try realm._create(Item.self, value: ["primaryKey": 5000 + key, "value": key], update: .error)
                }
            }
        }
        guard let final = images.popLast() else { throw DamageCampaignError("no commit was made") }
        try Data(final).write(to: URL(fileURLWithPath: directory + "/" + originalName))
        for (index, image) in images.enumerated() {
            try Data(image).write(to: URL(fileURLWithPath: directory + "/older-\(index).strata"))
        }
        _ = try? Store.deleteFiles(path: path)
        return images.count
    }

    /// Copies a user's file as the original (no older images: no stale pages).
    public static func adopt(_ file: String, into directory: String) throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw DamageCampaignError("cannot read \(file)")
        }
        try data.write(to: URL(fileURLWithPath: directory + "/" + originalName))
    }

    /// Computes what every path must read of the original (and of its older slot), and
    /// whether the Realm API can read it (its classes must be the harness's). Writes it to the
    /// directory. Returns it with a note when the API part is off.
    public static func expect(in directory: String, api: Bool) throws -> (DamageExpectation, note: String?) {
        let original = directory + "/" + originalName
        // A new path for each probe: the API keeps a realm's file open by path for a while.
        var probeCount = 0
        func probe() -> String {
            probeCount += 1
            return directory + "/probe-\(probeCount).strata"
        }
        var probes: [String] = []
        defer { probes.forEach(DamageVariant.remove) }
        var path = probe()
        probes.append(path)
        try copy(original, to: path)
        let view = DamageCheck.storage(path)
        guard let version = view.version, let digest = view.digest, view.finding == nil else {
            throw DamageCampaignError("the original does not verify: \(view.finding ?? "unreadable")")
        }
        var expectation = DamageExpectation(newestVersion: version, digest: digest)
        expectation.pageCount = view.pageCount
        var note: String?
        if api {
            path = probe()
            probes.append(path)
            try copy(original, to: path)
            let (finding, apiDigest) = DamageCheck.api(path, index: -1)
            if let apiDigest {
                expectation.apiDigest = apiDigest
            } else {
                note = "the Realm API part is off: \(finding ?? "")"
            }
        }
        // The older slot: the original with the newest slot zeroed.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        for slot in DamageGenerator.slotRanges.indices {
            var damaged = bytes
            for offset in DamageGenerator.slotRanges[slot] where offset < damaged.count { damaged[offset] = 0 }
            path = probe()
            probes.append(path)
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let older = DamageCheck.storage(path)
            guard let olderVersion = older.version, olderVersion < version, let olderDigest = older.digest else {
                continue
            }
            expectation.olderVersion = olderVersion
            expectation.olderDigest = olderDigest
            if expectation.apiDigest != nil {
                path = probe()
                probes.append(path)
                try Data(damaged).write(to: URL(fileURLWithPath: path))
                expectation.olderAPIDigest = DamageCheck.api(path, index: -1).digest
            }
        }
        try expectation.lines.joined(separator: "\n").write(
            toFile: directory + "/" + expectationName, atomically: true,
            encoding: .utf8)
        return (expectation, note)
    }

    static func copy(_ from: String, to path: String) throws {
        DamageVariant.remove(path)
        try FileManager.default.copyItem(atPath: from, toPath: path)
    }

    /// The generator and expectation of a prepared directory.
    public static func load(_ directory: String, seed: UInt64, classes: [DamageClass]) throws
        -> (DamageGenerator, DamageExpectation)
    {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + originalName)))
        var older: [[UInt8]] = []
        while let data = FileManager.default.contents(atPath: directory + "/older-\(older.count).strata") {
            older.append([UInt8](data))
        }
        guard original.count >= 4096 else { throw DamageCampaignError("the original is shorter than a page") }
        // The page size is the header's (Docs/file-format.md "Page 0"); every supported size is a
        // power of two from 4 KiB, and a whole number of pages fills the file.
        let pageSizeBytes = pageSize(of: original)
        let text = try String(contentsOfFile: directory + "/" + expectationName, encoding: .utf8)
        let expectation = try DamageExpectation(lines: text.split(separator: "\n").map(String.init))
        return (
            DamageGenerator(
                original: original, olderImages: older, pageSizeBytes: pageSizeBytes, seed: seed,
                classes: classes, usedPageCount: expectation.pageCount), expectation
        )
    }

    static func pageSize(of bytes: [UInt8]) -> Int {
        var size = 32 << 10
        while size > 4096 && bytes.count % size != 0 { size >>= 1 }
        return size
    }

    // MARK: the child

    /// Checks variants `range` of a prepared directory in this process, printing
    /// `begin I` before and `result I OUTCOME CLASS DETAIL` after each (one write each).
    public static func runChild(
        directory: String, seed: UInt64, classes: [DamageClass], range: Range<Int>, api: Bool,
        plant: DamagePlant? = nil, emit: (String) -> Void
    ) throws {
        let (generator, expectation) = try load(directory, seed: seed, classes: classes)
        let work = directory + "/work-\(getpid())"
        mkdir(work, 0o755)
        defer { rmdir(work) }
        for index in range {
            let variant = generator.variant(index)
            let path = work + "/v\(index).strata"
            emit("begin \(index)")
            if let plant, plant.index == index { plant.strike() }
            try variant.materialize(at: path)
            let (outcome, detail) = DamageCheck.check(path, index: index, expectation: expectation, api: api)
            DamageVariant.remove(path)
            emit("result \(index) \(outcome.rawValue) \(variant.kind.rawValue) \(variant.detail): \(oneLine(detail))")
        }
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" ? " " : $0 }.prefix(400))
    }
}

/// A defect planted in a checking child to test the campaign itself: at variant `index` the
/// child dies of SIGSEGV, or stops writing forever. The parent must count a crash or a hang,
/// keep the variant, and go on with the next.
public struct DamagePlant: Sendable, Equatable {
    public enum Kind: String, Sendable { case crash, hang }
    public let kind: Kind
    public let index: Int

    /// `crash:I` or `hang:I`.
    public init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])), let index = Int(parts[1]) else {
            return nil
        }
        self.kind = kind
        self.index = index
    }

    public var text: String { "\(kind.rawValue):\(index)" }

    func strike() {
        switch kind {
        case .crash:
            // The default action, as a stray pointer gets it (the runtime's backtracer handler
            // would otherwise catch a raised signal and return).
            signal(SIGSEGV, SIG_DFL)
            raise(SIGSEGV)
        case .hang: while true { pause() }
        }
    }
}

// MARK: the supervising parent

/// One variant's outcome as the parent recorded it.
public struct DamageRecord: Sendable {
    public let index: Int
    public let outcome: DamageOutcome
    public let kind: String
    public let detail: String
}

/// Counts of a damage campaign, by outcome and by class.
public struct DamageTally: Sendable {
    public var byOutcome: [DamageOutcome: Int] = [:]
    public var byClass: [String: [DamageOutcome: Int]] = [:]
    public var failures: [DamageRecord] = []
    public init() {}
    public var total: Int { byOutcome.values.reduce(0, +) }
    public var failureCount: Int { byOutcome.filter { $0.key.isFailure }.values.reduce(0, +) }

    public mutating func add(_ record: DamageRecord) {
        byOutcome[record.outcome, default: 0] += 1
        byClass[record.kind, default: [:]][record.outcome, default: 0] += 1
        if record.outcome.isFailure { failures.append(record) }
    }
}

public struct DamageSupervisor: Sendable {
    public var executable: String
    public var directory: String
    public var seed: UInt64
    public var classes: [DamageClass]
    public var api: Bool
    public var batch: Int
    /// The watchdog: a child that writes nothing for this many polls of `pollMilliseconds`
    /// is hung.
    public var stallPolls: Int
    public var pollMilliseconds: Int32 = 100
    public var plant: DamagePlant?

    public init(
        executable: String, directory: String, seed: UInt64, classes: [DamageClass], api: Bool, batch: Int,
        stallPolls: Int
    ) {
        self.executable = executable
        self.directory = directory
        self.seed = seed
        self.classes = classes
        self.api = api
        self.batch = batch
        self.stallPolls = stallPolls
    }

    func arguments(_ range: Range<Int>) -> [String] {
        [
            "child-damage", "--dir", directory, "--seed", String(seed), "--first", String(range.lowerBound),
            "--variants", String(range.count), "--classes", classes.map(\.rawValue).joined(separator: ","),
        ]
            + (api ? [] : ["--no-api"]) + (plant.map { ["--plant", $0.text] } ?? [])
    }

    /// Runs variants `range` in children, `batch` at a time; a child that dies or stalls loses
    /// the variant it was on (recorded as crash, trapped or hang) and the next child goes on
    /// after it. `record` is called once per variant, in order.
    public func run(_ range: Range<Int>, record: (DamageRecord) -> Void) throws {
        var next = range.lowerBound
        var spawnCount = 0
        while next < range.upperBound {
            let end = min(range.upperBound, next + batch)
            let errorPath = directory + "/child-\(next).stderr"
            spawnCount += 1
            let child = try SpawnedChild(
                child: 0, incarnation: spawnCount, executable: executable,
                arguments: arguments(next..<end), errorPath: errorPath)
            var current: Int?
            var quietPolls = 0
            var hung = false
            func take(_ lines: [String]) {
                for line in lines {
                    let parts = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
                    if parts.first == "begin", parts.count == 2, let index = Int(parts[1]) {
                        current = index
                    } else if parts.first == "result", parts.count == 5, let index = Int(parts[1]),
                        let outcome = DamageOutcome(rawValue: String(parts[2]))
                    {
                        record(
                            DamageRecord(
                                index: index, outcome: outcome, kind: String(parts[3]), detail: String(parts[4])))
                        current = nil
                        next = index + 1
                    }
                }
            }
            while child.isReadable {
                var descriptor = pollfd(fd: child.pollDescriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, pollMilliseconds)
                if ready > 0 {
                    quietPolls = 0
                    take(child.readAvailable())
                } else if ready == 0 {
                    quietPolls += 1
                    if quietPolls >= stallPolls {
                        hung = true
                        kill(child.pid, SIGKILL)
                        take(child.drain())
                        break
                    }
                }
            }
            take(child.drain())
            let status = child.reap(blocking: true) ?? 0
            unlink(errorPath)
            guard let lost = current else {
                if status != 0 && next < end {
                    throw DamageCampaignError(
                        "a checking child ended (\(SpawnedChild.describe(status: status))) "
                            + "before its first variant: \(child.errorTail())")
                }
                continue
            }
            let generator = try DamageCampaign.load(directory, seed: seed, classes: classes).0
            let kind = generator.variant(lost).kind.rawValue
            let tail = DamageCampaign.oneLine(child.errorTail(byteCountMax: 600))
            let outcome: DamageOutcome
            if hung {
                outcome = .hang
            } else if tail.contains("Fatal error") && tail.lowercased().contains("corrupt") {
                outcome = .trapped
            } else {
                outcome = .crash
            }
            record(
                DamageRecord(
                    index: lost, outcome: outcome, kind: kind,
                    detail: "\(generator.variant(lost).detail): \(SpawnedChild.describe(status: status)) \(tail)"))
            next = lost + 1
        }
    }

    /// Writes variant `index` (and the original) under `out`, with how to reproduce it.
    public func keep(_ record: DamageRecord, under out: String) throws -> String {
        let generator = try DamageCampaign.load(directory, seed: seed, classes: classes).0
        let artifact = out + "/damage-\(seed)-\(record.index)"
        try FileManager.default.createDirectory(atPath: artifact, withIntermediateDirectories: true)
        let prepared = artifact + "/prepared"
        try? FileManager.default.removeItem(atPath: prepared)
        try FileManager.default.createDirectory(atPath: prepared, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory)
        where name == DamageCampaign.originalName || name == DamageCampaign.expectationName
            || (name.hasPrefix("older-") && name.hasSuffix(".strata"))
        {
            try FileManager.default.copyItem(atPath: directory + "/" + name, toPath: prepared + "/" + name)
        }
        try generator.variant(record.index).materialize(at: artifact + "/variant.strata")
        let classList = classes.map(\.rawValue).joined(separator: ",")
        let text = """
            outcome: \(record.outcome.rawValue)
            class: \(record.kind)
            detail: \(record.detail)
            reproduce: strata-fuzz damage --prepared \(artifact)/prepared --seed \(seed) --first \(record.index) \
            --variants 1 --classes \(classList)\(api ? "" : " --no-api")

            """
        try text.write(toFile: artifact + "/README", atomically: true, encoding: .utf8)
        return artifact
    }
}
