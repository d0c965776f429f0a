import Foundation
import Strata
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// What a damaged variant came to (Spec D8, X31).
public enum DamageOutcome: String, CaseIterable, Sendable {
    /// A typed error (StorageError, Realm.Error) or a verify finding, and no path read wrong data.
    case detected
    /// Every path read exactly the original's data (the damage hit unused space).
    case harmless
    /// The newest commit slot was damaged, every path read the older slot's version, intact
    /// (Spec D4's recovery of a torn slot), and `verify` reported the fallback (Spec D15). A
    /// fallback `verify` does not report is `undetected`.
    case fallback
    /// A path read data that differs from the original without an error: a failure.
    case undetected
    /// The checking process died (not by a trap that names the damage): a failure.
    case crash
    /// The checking process made no progress for the watchdog's count of polls: a failure.
    case hang
    /// The checking process stopped at a trap whose message says the file is corrupt (the API's
    /// answer where it cannot throw): damage reported.
    case trapped

    public var isFailure: Bool { self == .undetected || self == .crash || self == .hang }
}

/// What an undamaged original holds, as every checked path computes it.
public struct DamageExpectation: Sendable {
    public var newestVersion: UInt64
    /// Logical pages of the newest version (0: unknown).
    public var pageCount = 0
    /// `ReadTransaction.contentDigest()` of the newest version.
    public var digest: UInt64
    /// The version and digest in the other commit slot (what a fallback may legally read).
    public var olderVersion: UInt64?
    public var olderDigest: UInt64?
    /// The API's digest of every Item and Other (nil: the API part is off).
    public var apiDigest: UInt64?
    public var olderAPIDigest: UInt64?

    var lines: [String] {
        var lines = ["newest-version \(newestVersion)", "digest \(digest)", "page-count \(pageCount)"]
        if let olderVersion, let olderDigest {
            lines += ["older-version \(olderVersion)", "older-digest \(olderDigest)"]
        }
        if let apiDigest { lines.append("api-digest \(apiDigest)") }
        if let olderAPIDigest { lines.append("older-api-digest \(olderAPIDigest)") }
        return lines
    }

    init(newestVersion: UInt64, digest: UInt64) {
        self.newestVersion = newestVersion
        self.digest = digest
    }

    init(lines: [String]) throws {
        var values: [String: UInt64] = [:]
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = UInt64(parts[1]) else { continue }
            values[String(parts[0])] = value
        }
        guard let newest = values["newest-version"], let digest = values["digest"] else {
            throw DamageCampaignError("the expectation file lacks newest-version or digest")
        }
        newestVersion = newest
        self.digest = digest
        pageCount = Int(clamping: values["page-count"] ?? 0)
        olderVersion = values["older-version"]
        olderDigest = values["older-digest"]
        apiDigest = values["api-digest"]
        olderAPIDigest = values["older-api-digest"]
    }
}

/// Runs one variant through strata-tool's code paths (the library calls `verify`, `digest`,
/// `stat` and `dump` make, in process) and through the Realm API (open, read every object,
/// write), and classifies what happened.
public enum DamageCheck {
    /// What the storage paths saw: an error or finding, or the version and digest they read.
    struct StorageView {
        var finding: String?
        var version: UInt64?
        var digest: UInt64?
        var pageCount = 0
        /// `verify`'s report of a fallback to the older commit slot (Spec D15).
        var fallbackNote: String?
    }

    static func storage(_ path: String) -> StorageView {
        var view = StorageView()
        do {
            let store = try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true))
            defer { store.close() }
            // verify
            let report = try store.verify()
            if let problem = report.problems.first(where: \.isDamage) { view.finding = "verify: \(problem)" }
            if let fallback = report.slotFallback { view.fallbackNote = "verify: \(fallback)" }
            // stat
            view.pageCount = try store.statistics().pageCount
            // digest and dump: every row of every table
            let read = try store.beginRead(.frozen)
            defer { read.end() }
            let digest = try read.contentDigest()
            for table in read.tables() {
                try read.forEachRow(table) { _, row in
                    _ = try row.values()
                    return true
                }
            }
            view.version = read.version.rawValue
            view.digest = digest
        } catch let error as StorageError {
            view.finding = view.finding ?? "\(error)"
        } catch {
            view.finding = view.finding ?? "error: \(error)"
        }
        return view
    }

    /// The harness's classes with their contents folded into one number (FNV-1a).
    static func apiDigest(_ realm: Realm) throws(Realm.Error) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: Int) {
            var bits = UInt64(bitPattern: Int64(value))
            for _ in 0..<8 {
                hash = (hash ^ (bits & 0xff)) &* 0x100_0000_01b3
                bits >>= 8
            }
        }
        func fold<T: CheckObject>(_ type: T.Type) throws(Realm.Error) {
            let results = try realm._objects(type)
            let count = try results._count()
            mix(count)
            for index in 0..<count {
                let object = try results._element(at: index)
                mix(try object._value(forKey: "primaryKey") as? Int ?? -1)
                mix(try object._value(forKey: "value") as? Int ?? -2)
                guard let list = try object._value(forKey: "list") as? List<Item> else {
                    mix(-3)
                    continue
                }
                let length = try list._count()
                mix(length)
                for position in 0..<length {
                    mix(try list._element(at: position)._value(forKey: "primaryKey") as? Int ?? -4)
                }
            }
        }
        try fold(Item.self)
        try fold(Other.self)
        return hash
    }

    static func configuration(_ path: String) -> Realm.Configuration {
        ChildWriter.configuration(path: path, engineBugs: [])
    }

    /// Opens the variant through the Realm API, reads every object, then writes one.
    static func api(_ path: String, index: Int) -> (finding: String?, digest: UInt64?) {
        do {
            let realm = try Realm._open(configuration: configuration(path), queue: nil)
            let digest = try apiDigest(realm)
            try realm._beginWrite()
            _ = try realm._create(
                Item.self, value: ["primaryKey": 1_000_000 + index, "value": index], update: .modified)
            try realm._commitWrite()
            return (nil, digest)
        } catch {
            return ("\(error)", nil)
        }
    }

    /// Checks the variant at `path` and returns its outcome and a one-line detail.
    public static func check(
        _ path: String, index: Int, expectation: DamageExpectation,
        api useAPI: Bool
    ) -> (outcome: DamageOutcome, detail: String) {
        let storage = storage(path)
        var wrong: [String] = []
        var fellBack = false
        if let digest = storage.digest, let version = storage.version {
            if digest == expectation.digest && version == expectation.newestVersion {
                // the original's data
            } else if version == expectation.olderVersion && digest == expectation.olderDigest {
                fellBack = true
            } else {
                wrong.append(
                    "storage read version \(version) digest \(String(digest, radix: 16)), the original is version "
                        + "\(expectation.newestVersion) digest \(String(expectation.digest, radix: 16))")
            }
        }
        var apiFinding: String?
        if useAPI, expectation.apiDigest != nil {
            let (finding, digest) = api(path, index: index)
            apiFinding = finding
            if let digest, digest != expectation.apiDigest {
                if digest == expectation.olderAPIDigest {
                    fellBack = true
                } else {
                    wrong.append("the API read objects that differ from the original's")
                }
            }
        }
        if !wrong.isEmpty {
            let findings = [storage.finding, apiFinding].compactMap { $0 }
            return (
                .undetected,
                wrong.joined(separator: "; ")
                    + (findings.isEmpty ? "" : " (other paths found: \(findings.joined(separator: "; ")))")
            )
        }
        if let finding = storage.finding ?? apiFinding { return (.detected, finding) }
        if fellBack {
            guard let note = storage.fallbackNote else {
                return (
                    .undetected,
                    "read the older slot's version \(expectation.olderVersion ?? 0) and verify did not "
                        + "report the fallback (Spec D15)"
                )
            }
            return (.fallback, "read the older slot's version \(expectation.olderVersion ?? 0), intact; \(note)")
        }
        return (.harmless, "every path read the original's data")
    }
}
