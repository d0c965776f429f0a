import Foundation
import Testing

/// Spec traceability (Docs/style.md rule 11): every rule of `Spec/` is cited in `Sources/StrataModel`
/// (the code that implements it) unless the rule is marked `API-only: <reason>`, in at least
/// one test, and in at least one test of the engine or the API (any test outside
/// `Tests/StrataModelTests`) unless the rule is marked `Model-only: <reason>`; a marked rule
/// whose mark has gone stale fails; every rule cited anywhere in `Sources/` or `Tests/` exists. A
/// citation is the word `Spec` followed by one or more rule IDs separated by ", ", " and " or
/// "/": `// Spec W7:`, `@Test("Spec V3, V11: ...")`.
@Suite struct TraceabilityTests {
    static var packageDirectory: URL { SpecFormatTests.specDirectory.deletingLastPathComponent() }

    /// The tests of the model alone: a citation there shows the model follows the rule, not
    /// that the engine or the API does.
    static let modelTestsDirectory = "Tests/StrataModelTests"

    static func allRules() throws -> Set<String> {
        Set(try rulesByID().keys)
    }

    static func rulesByID() throws -> [String: SpecFormatTests.Rule] {
        var rules: [String: SpecFormatTests.Rule] = [:]
        for (file, prefix) in SpecFormatTests.areas {
            for rule in try SpecFormatTests.rules(in: file, prefix: prefix) { rules[rule.id] = rule }
        }
        return rules
    }

    /// Rule IDs cited in the Swift files under `directory` (but not under `excluded`), with the
    /// files citing each.
    static func citations(under directory: String, excluding excluded: String? = nil) throws -> [String: Set<String>] {
        let root = packageDirectory.appendingPathComponent(directory)
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        else { return [:] }
        let skipped = excluded.map { packageDirectory.appendingPathComponent($0).standardizedFileURL.path + "/" }
        let citation = try Regex(#"Spec ((?:[VCWDFTNALX][0-9]+)(?:(?:, | and |/)[VCWDFTNALX][0-9]+)*)"#)
        let id = try Regex(#"[VCWDFTNALX][0-9]+"#)
        var found: [String: Set<String>] = [:]
        for case let url as URL in files where url.pathExtension == "swift" {
            if let skipped, url.standardizedFileURL.path.hasPrefix(skipped) { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: citation) {
                let list = String(text[match.range])
                for idMatch in list.matches(of: id) {
                    found[String(list[idMatch.range]), default: []].insert(url.lastPathComponent)
                }
            }
        }
        return found
    }

    /// The model implements every rule but those about the API's surface alone, which Spec
    /// marks `API-only: <reason>`; a marked rule that StrataModel cites has outgrown its mark.
    @Test func everyRuleIsImplementedInTheModelUnlessMarkedAPIOnly() throws {
        let rules = try Self.rulesByID()
        let cited = try Self.citations(under: "Sources/StrataModel")
        let marked = Set(rules.values.filter { $0.apiOnlyReason != nil }.map(\.id))
        let missing = Set(rules.keys).subtracting(cited.keys).subtracting(marked)
        #expect(
            missing.isEmpty,
            "rules no StrataModel code cites (implement them in the model, or mark them 'API-only: <reason>'): \(missing.sorted())"
        )
        let outgrown = marked.filter { cited[$0] != nil }
        let citedWhere = outgrown.sorted().map { "\($0) in \(cited[$0]?.sorted() ?? [])" }
        #expect(outgrown.isEmpty, "rules marked API-only that StrataModel cites (drop the mark): \(citedWhere)")
        #expect(rules.count >= 100)
    }

    @Test func everyRuleIsCitedByATest() throws {
        let rules = try Self.allRules()
        let cited = try Self.citations(under: "Tests")
        let missing = rules.subtracting(cited.keys)
        #expect(missing.isEmpty, "rules no test cites: \(missing.sorted())")
    }

    /// A model test shows only that the model follows a rule. Every rule needs a test of the
    /// engine or the API too, unless Spec marks it `Model-only: <reason>`; a marked rule that
    /// such a test cites has outgrown its mark.
    @Test func everyRuleIsCitedByAnEngineOrAPITestUnlessMarkedModelOnly() throws {
        let rules = try Self.rulesByID()
        let cited = try Self.citations(under: "Tests", excluding: Self.modelTestsDirectory)
        let marked = Set(rules.values.filter { $0.modelOnlyReason != nil }.map(\.id))
        let missing = Set(rules.keys).subtracting(cited.keys).subtracting(marked)
        #expect(
            missing.isEmpty,
            "rules only model tests cite (test the engine or the API, or mark them 'Model-only: <reason>'): \(missing.sorted())"
        )
        let outgrown = marked.filter { cited[$0] != nil }
        let citedWhere = outgrown.sorted().map { "\($0) in \(cited[$0]?.sorted() ?? [])" }
        #expect(
            outgrown.isEmpty, "rules marked Model-only that an engine or API test cites (drop the mark): \(citedWhere)")
    }

    @Test func everyCitedRuleExists() throws {
        let rules = try Self.allRules()
        for directory in ["Sources", "Tests"] {
            let cited = try Self.citations(under: directory)
            let unknown = Set(cited.keys).subtracting(rules)
            let citedWhere = unknown.sorted().map { "\($0) in \(cited[$0]?.sorted() ?? [])" }
            #expect(unknown.isEmpty, "\(directory) cites rules that do not exist: \(citedWhere)")
        }
    }

    /// The citation parser must see what it is meant to see: a self-check on a known file.
    @Test func theParserFindsKnownCitations() throws {
        let cited = try Self.citations(under: "Sources/StrataModel")
        #expect(cited["W1"]?.contains("ModelState+Writes.swift") == true)
        #expect(cited["N13"]?.contains("ChangeSet.swift") == true)
        // The model tests' directory is left out when asked, and only it.
        let tests = try Self.citations(under: "Tests", excluding: Self.modelTestsDirectory)
        #expect(!tests.values.contains { $0.contains("ExplorationTests.swift") })
        #expect(tests["W12"]?.contains("IncarnationTests.swift") == true)
        let all = try Self.citations(under: "Tests")
        #expect(all["D5"]?.contains("ExplorationTests.swift") == true)
    }
}
