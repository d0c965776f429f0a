import Foundation
import Strata
import StrataStorage
import Testing

/// Damaged files through the API (Spec D4, D8): what the engine's checks find
/// (`Tests/StrataStorageTests/FaultInjectionTests.swift` holds them at the engine's level)
/// reaches a realm as `Realm.Error` code `.invalidDatabase`, never as data.
@Suite struct DamagedFileTests {
    /// A realm file with two commits, one object (intCol 1) then two more (2 and 3), and no
    /// handle left open on it.
    static func fileWithTwoCommits() throws -> (configuration: Realm.Configuration, path: String) {
        let configuration = testConfiguration()
        let path = try #require(configuration.fileURL).path
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
            try realm.write {
                realm.create(IntObj.self, value: ["intCol": 2])
                realm.create(IntObj.self, value: ["intCol": 3])
            }
        }
        try #require(waitUntilClosed(path), "a handle of \(path) stayed open")
        return (configuration, path)
    }

    /// The values a fresh realm of `configuration` reads (sorted), or the error it met
    /// opening or reading (on a thread of its own, so nothing stays open here). With
    /// `thenWrite`, it then commits one more object (which reads the free-space pages too).
    static func read(_ configuration: Realm.Configuration, thenWrite: Bool = false) -> Result<[Int], Realm.Error> {
        let outcome = onOtherThreadWithin(seconds: hangGuardSeconds) { () -> Result<[Int], Realm.Error> in
            do throws(Realm.Error) {
                let realm = try Realm._open(configuration: configuration, queue: nil)
                let results = try realm._objects(IntObj.self)
                _ = try results._count()
                let values = results.map(\.intCol).sorted()
                if thenWrite {
                    try realm._beginWrite()
                    _ = try realm._create(IntObj.self, value: ["intCol": 4], update: .error)
                    try realm._commitWrite()
                }
                return .success(values)
            } catch {
                return .failure(error)
            }
        }
        guard waitUntilClosed(configuration.fileURL?.path ?? "") else {
            return .failure(Realm.Error(.fail, "the reader's handle stayed open"))
        }
        switch outcome {
        case .success(let result)?: return result
        case .failure(let error)?: return .failure(Realm.Error(.fail, "the reader threw \(error)"))
        case nil: return .failure(Realm.Error(.fail, "the reader did not finish"))
        }
    }

    /// Changes the file's bytes in place (same inode, as a disk or a stray writer would).
    static func rewrite(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        change(&bytes)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: bytes)
    }

    /// The commit slots' versions (slot 0, slot 1), read by the engine.
    static func slotVersions(_ path: String) throws -> [Version?] {
        let store = try Store.open(.file(path), options: StoreOptions(create: false))
        defer { store.close() }
        return try store.statistics().slotVersions
    }

    /// The byte offset of a byte inside commit slot `slot` (each slot is one 512-byte sector
    /// after the header's).
    static func insideSlot(_ slot: Int) -> Int { 512 * (slot + 1) + 40 }

    // Spec D4: both slots damaged: the open fails as an invalid database and returns nothing;
    // only the newer slot damaged: the older one is used, so the realm reads the first commit.
    @Test func recoveryUsesTheNewestValidSlotOrFails() throws {
        let (configuration, path) = try Self.fileWithTwoCommits()
        #expect(try Self.read(configuration).get() == [1, 2, 3])
        let slots = try Self.slotVersions(path)
        let newest = try #require(
            slots[0].flatMap { v0 in slots[1].map { v1 in v0 > v1 ? 0 : 1 } },
            "both slots hold a version: \(slots)")
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))

        try Self.rewrite(path) { $0[Self.insideSlot(newest)] ^= 0x01 }
        #expect(try Self.read(configuration).get() == [1], "the older slot's version was not the one opened")

        try pristine.write(to: URL(fileURLWithPath: path))
        try Self.rewrite(path) { bytes in
            bytes[Self.insideSlot(0)] ^= 0xFF
            bytes[Self.insideSlot(1)] ^= 0xFF
        }
        switch Self.read(configuration) {
        case .success(let values): Issue.record("a file with no valid slot read \(values)")
        case .failure(let error):
            #expect(error.code == .invalidDatabase, "\(error)")
            #expect(error.message.contains("no valid commit slot"), "\(error)")
        }
    }

    /// The engine's statistics of the undamaged file at `path`.
    static func statistics(_ path: String) throws -> StoreStatistics {
        let store = try Store.open(.file(path), options: StoreOptions(create: false))
        defer { store.close() }
        return try store.statistics()
    }

    // Spec D8: one bit flipped in each committed page in turn. Opening, reading every object
    // and committing one more either fails as an invalid database naming a page, or (a free
    // page) succeeds with exactly the committed objects: damage never comes back as data.
    // Every page in use is caught.
    @Test func aDamagedPageIsAnErrorNeverData() throws {
        let (configuration, path) = try Self.fileWithTwoCommits()
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))
        let statistics = try Self.statistics(path)
        let pageSize = statistics.pageSizeBytes
        let pageCount = statistics.pageCount  // the committed pages; the rest of the file is unused
        // Pages in use by the newest version, the header page (never flipped here) left out.
        let inUse = statistics.usedPageCount - 1
        try #require(inUse >= 3, "\(statistics)")
        var detected = 0
        for page in 1..<pageCount {
            try pristine.write(to: URL(fileURLWithPath: path))
            try Self.rewrite(path) { $0[page * pageSize + 100 + page % 3000] ^= UInt8(1 << (page % 8)) }
            switch Self.read(configuration, thenWrite: true) {
            case .success(let values):
                #expect(values == [1, 2, 3], "page \(page): the damage was read as \(values)")
            case .failure(let error):
                detected += 1
                #expect(error.code == .invalidDatabase, "page \(page): \(error)")
                #expect(error.message.contains("page"), "page \(page): \(error)")
            }
        }
        // Opening, reading and writing reaches every page in use (catalog, schema, the
        // objects, free space): each flip there is caught; the others are free pages.
        #expect(detected == inUse, "\(detected) of \(pageCount - 1) flips detected, \(inUse) pages in use")
        try pristine.write(to: URL(fileURLWithPath: path))
        #expect(try Self.read(configuration).get() == [1, 2, 3])
    }

    // MARK: Spec D17: what damage says

    /// A realm file whose first StrObj holds a string longer than a page (an overflow chain,
    /// read only when the property is read) and two short ones; no handle left open on it.
    static let longString = String(repeating: "strata overflow ", count: 1500)
    static let strings = [longString, "a", "b"]

    static func fileWithALongString() throws -> (configuration: Realm.Configuration, path: String) {
        let configuration = testConfiguration()
        let path = try #require(configuration.fileURL).path
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { for string in strings { realm.create(StrObj.self, value: ["stringCol": string]) } }
        }
        try #require(waitUntilClosed(path), "a handle of \(path) stayed open")
        return (configuration, path)
    }

    /// How far a fresh realm of a damaged file got: open, read every string through the
    /// throwing getter (`_value(forKey:)`, what the trapping getter runs), commit one object,
    /// write a copy to `copy`; the first stage that threw and its error.
    enum Outcome {
        case clean(strings: [String])
        case failed(stage: String, error: Realm.Error)
    }

    static func readStrings(_ configuration: Realm.Configuration, copy: URL) -> Outcome {
        let outcome = Result { () throws -> Outcome in
            try onOtherThread { () -> Outcome in
                let realm: Realm
                do throws(Realm.Error) {
                    realm = try Realm._open(configuration: configuration, queue: nil)
                } catch {
                    return .failed(stage: "open", error: error)
                }
                var strings: [String] = []
                do throws(Realm.Error) {
                    let results = try realm._objects(StrObj.self)
                    _ = try results._count()
                    for object in results { strings.append(try object._value(forKey: "stringCol") as? String ?? "?") }
                } catch {
                    return .failed(stage: "read", error: error)
                }
                do throws(Realm.Error) {
                    try realm._beginWrite()
                    _ = try realm._create(StrObj.self, value: ["stringCol": "c"], update: .error)
                    try realm._commitWrite()
                } catch {
                    return .failed(stage: "write", error: error)
                }
                do throws(Realm.Error) {
                    try realm._writeCopy(toFile: copy, encryptionKey: nil)
                } catch {
                    return .failed(stage: "copy", error: error)
                }
                return .clean(strings: strings.sorted())
            }
        }
        guard waitUntilClosed(configuration.fileURL?.path ?? "") else {
            return .failed(stage: "thread", error: Realm.Error(.fail, "the reader's handle stayed open"))
        }
        switch outcome {
        case .success(let outcome): return outcome
        case .failure(let error): return .failed(stage: "thread", error: Realm.Error(.fail, "\(error)"))
        }
    }

    // Spec D17, D8: one bit flipped in each committed page in turn. Damage is never data, never
    // "Failed to open" once the file is open, never a deleted object: a damaged page met by
    // Realm(), a read, a write or writeCopy is `.invalidDatabase` "Realm file at path '<p>' is
    // corrupted: page <n>: ..." naming the realm's own file. The overflow chain is read only by
    // the getter: the message a getter traps with is checked here through its throwing form.
    @Test func aDamagedPageReadsAsACorruptFileNamingThePage() throws {
        let (configuration, path) = try Self.fileWithALongString()
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))
        let statistics = try Self.statistics(path)
        let pageSize = statistics.pageSizeBytes
        var stages: [String: Int] = [:]
        for page in 1..<statistics.pageCount {
            let copy = temporaryDirectory().appendingPathComponent("copy-\(page).realm")
            try pristine.write(to: URL(fileURLWithPath: path))
            try Self.rewrite(path) { $0[page * pageSize + 200 + page % 2000] ^= 0x10 }
            switch Self.readStrings(configuration, copy: copy) {
            case .clean(let strings):
                #expect(strings == Self.strings.sorted(), "page \(page): the damage was read as data")
            case .failed(let stage, let error):
                stages[stage, default: 0] += 1
                let message = error.message
                #expect(error.code == .invalidDatabase, "page \(page), \(stage): \(error)")
                #expect(
                    message.hasPrefix("Realm file at path '\(path)' is corrupted: page \(page): "),
                    "page \(page), \(stage): \(message)")
                #expect(error.fileURL?.path == path, "page \(page), \(stage): \(error)")
                #expect(
                    !message.contains("Failed to open") && !message.contains("deleted or invalidated"),
                    "page \(page), \(stage): \(message)")
                #expect(!FileManager.default.fileExists(atPath: copy.path) || stage != "copy")
            }
            try? FileManager.default.removeItem(at: copy)
        }
        // The getter is what finds a damaged overflow page: the message it traps with is the one
        // checked above.
        #expect((stages["read"] ?? 0) >= 1, "\(stages)")
        print(
            "D17: \(statistics.pageCount - 1) pages flipped one at a time; detected by stage: \(stages.sorted { $0.key < $1.key })"
        )
    }

    // Spec D17: a realm that refreshes to a newer version whose pages are damaged meets the
    // damage as the corrupt-file error, at the refresh or at the reads after it (the refresh
    // reads only what it needs to move). A realm stays open at the first commit while another
    // thread commits a second; each page the second commit wrote is damaged in turn.
    @Test func damageOfANewerVersionReadsAsACorruptFileAfterRefresh() throws {
        let (configuration, path) = try Self.fileWithALongString()
        let before = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var failures = 0
        for page in 1... {
            let outcome = try onOtherThread { () -> (pages: Int, error: Realm.Error?, atRefresh: Bool)? in
                let realm = try Realm(configuration: configuration)
                realm.autorefresh = false
                try onOtherThread {
                    let writer = try Realm(configuration: configuration)
                    try writer.write { writer.create(StrObj.self, value: ["stringCol": Self.longString + "2"]) }
                }
                var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                let pages = bytes.count / 4096
                let range = page * 4096..<(page + 1) * 4096
                guard page < pages else { return nil }
                // Only pages the second commit wrote: the open realm has read the others.
                if range.upperBound <= before.count && Array(before[range]) == Array(bytes[range]) {
                    return (pages, nil, false)
                }
                bytes[page * 4096 + 300] ^= 0x04
                try Self.rewrite(path) { $0 = bytes }
                if let error = rejection({ _ = try realm._refresh() }) { return (pages, error, true) }
                let error = rejection {
                    let results = try realm._objects(StrObj.self)
                    _ = try results._count()
                    for object in results { _ = try object._value(forKey: "stringCol") }
                }
                return (pages, error, false)
            }
            try #require(waitUntilClosed(path), "page \(page): a handle stayed open")
            guard let outcome else { break }
            if let error = outcome.error {
                failures += 1
                #expect(error.code == .invalidDatabase, "page \(page): \(error)")
                #expect(
                    error.message.hasPrefix("Realm file at path '\(path)' is corrupted: "), "page \(page): \(error)")
            }
            try Data(before).write(to: URL(fileURLWithPath: path))
        }
        #expect(failures >= 1)
    }

    /// The child of `aGetterTrapsNamingTheCorruptFile`: damages the first page of the long
    /// string's overflow chain (the first page whose damage only its getter finds), then reads
    /// the property through the trapping getter.
    static func readDamagedStringThroughTheGetter() throws {
        let (configuration, path) = try fileWithALongString()
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = 4096
        for page in 1..<(pristine.count / pageSize) {
            try pristine.write(to: URL(fileURLWithPath: path))
            try rewrite(path) { $0[page * pageSize + 200] ^= 0x10 }
            let found = try onOtherThread { () -> Bool in
                let realm = try Realm._open(configuration: configuration, queue: nil)
                let results = try realm._objects(StrObj.self)
                _ = try results._count()
                for object in results {
                    do throws(Realm.Error) {
                        _ = try object._value(forKey: "stringCol")
                    } catch {
                        return true
                    }
                }
                return false
            }
            guard waitUntilClosed(path) else { throw CancellationError() }
            if !found { continue }
            try onOtherThread {
                let realm = try Realm(configuration: configuration)
                FileHandle.standardError.write(Data("reading \(path)\n".utf8))
                for object in realm.objects(StrObj.self) { _ = object.stringCol.count }
                FileHandle.standardError.write(Data("every string read\n".utf8))
            }
            return
        }
        FileHandle.standardError.write(Data("no page found whose damage only the getter meets\n".utf8))
    }

    // Spec D17: a getter cannot throw; meeting a damaged page, it traps with the message that
    // names the file as corrupt and the page (run in a child process: the trap ends it).
    @Test func aGetterTrapsNamingTheCorruptFile() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try DamagedFileTests.readDamagedStringThroughTheGetter()
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let path = stderr.split(separator: "\n").first { $0.hasPrefix("reading ") }.map {
            $0.dropFirst("reading ".count)
        }
        let readPath = try #require(path, "\(stderr)")
        #expect(stderr.contains("Realm file at path '\(readPath)' is corrupted: page "), "\(stderr)")
        #expect(!stderr.contains("every string read"), "\(stderr)")
        #expect(!stderr.contains("Failed to open") && !stderr.contains("deleted or invalidated"), "\(stderr)")
    }

    // Spec D17, W13: deleting an object removes the links to it, so a link that names no object
    // is damage (an older copy of a page read back, a lost write), never "deleted or
    // invalidated". The damage is made here by deleting the targets' rows through the engine,
    // which leaves the links in place.
    @Test func aLinkToAMissingObjectReadsAsACorruptFile() throws {
        let configuration = testConfiguration()
        let path = try #require(configuration.fileURL).path
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                let company = realm.create(Company.self, value: ["name": "c"])
                company.employees.append(realm.create(Employee.self, value: ["name": "e", "age": 1, "hired": true]))
                realm.create(Owner.self, value: ["name": "o", "dog": ["dogName": "d", "age": 2]])
            }
        }
        do {
            let store = try Store.open(.file(path), options: StoreOptions(create: false))
            defer { store.close() }
            let write = try store.beginWrite()
            for name in ["Employee", "Dog"] {
                _ = try write.deleteAll(try #require(write.table(named: name)).id)
            }
            _ = try write.commit()
        }
        let messages = try onOtherThread { () -> [String] in
            let realm = try Realm._open(configuration: configuration, queue: nil)
            var messages: [String] = []
            let company = try #require(try realm._objects(Company.self).first)
            let employees = try #require(try company._value(forKey: "employees") as? List<Employee>)
            messages.append(rejection { _ = try employees._element(at: 0)._value(forKey: "name") }?.message ?? "read")
            let owner = try #require(try realm._objects(Owner.self).first)
            messages.append(
                rejection { _ = try (owner._value(forKey: "dog") as? Dog)?._value(forKey: "dogName") }?.message
                    ?? "read")
            return messages
        }
        #expect(
            messages == [
                "Realm file at path '\(path)' is corrupted: a link names object 0 of 'Employee', which does not exist",
                "Realm file at path '\(path)' is corrupted: a link names object 0 of 'Dog', which does not exist",
            ])
    }

    // Spec D17, X6: damage of the header or of both commit slots, met when the file is opened,
    // keeps Realm's open message.
    @Test func damagedSlotsKeepRealmsOpenMessage() throws {
        let (configuration, path) = try Self.fileWithTwoCommits()
        try Self.rewrite(path) { bytes in
            bytes[Self.insideSlot(0)] ^= 0xFF
            bytes[Self.insideSlot(1)] ^= 0xFF
        }
        let error = try #require(Self.read(configuration).failureValue)
        #expect(error.code == .invalidDatabase)
        #expect(
            error.message.hasPrefix("Failed to open Realm file at path '\(path)': no valid commit slot"), "\(error)")
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
