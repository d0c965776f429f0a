import Foundation
@_spi(StrataCheck) import Strata
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
    @Test func D4_recoveryUsesTheNewestValidSlotOrFails() throws {
        let (configuration, path) = try Self.fileWithTwoCommits()
        #expect(try Self.read(configuration).get() == [1, 2, 3])
        let slots = try Self.slotVersions(path)
        let newest = try #require(slots[0].flatMap { v0 in slots[1].map { v1 in v0 > v1 ? 0 : 1 } },
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

    // Spec D8: one bit flipped in each committed page in turn. Opening, reading every object
    // and committing one more either fails as an invalid database naming a page, or (a free
    // page) succeeds with exactly the committed objects: damage never comes back as data.
    // Every page in use is caught.
    @Test func D8_aDamagedPageIsAnErrorNeverData() throws {
        let (configuration, path) = try Self.fileWithTwoCommits()
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))
        let statistics = try {
            let store = try Store.open(.file(path), options: StoreOptions(create: false))
            defer { store.close() }
            return try store.statistics()
        }()
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
}
