import Foundation
import Testing

/// Spec traceability (STYLE rule 11): every rule of `Spec/` is cited in `Sources/StrataModel`
/// (the code that implements it) and in at least one test; every rule cited anywhere in
/// `Sources/` or `Tests/` exists. A citation is the word `Spec` followed by one or more rule IDs
/// separated by ", ", " and " or "/": `// Spec W7:`, `@Test("Spec V3, V11: ...")`.
@Suite struct TraceabilityTests {
    static var packageDirectory: URL { SpecFormatTests.specDirectory.deletingLastPathComponent() }

    static func allRules() throws -> Set<String> {
        var known = Set<String>()
        for (file, prefix) in SpecFormatTests.areas {
            for rule in try SpecFormatTests.rules(in: file, prefix: prefix) { known.insert(rule.id) }
        }
        return known
    }

    /// Rule IDs cited in the Swift files under `directory`, with the files citing each.
    static func citations(under directory: String) throws -> [String: Set<String>] {
        let root = packageDirectory.appendingPathComponent(directory)
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        else { return [:] }
        let citation = try Regex(#"Spec ((?:[VCWDFTNALX][0-9]+)(?:(?:, | and |/)[VCWDFTNALX][0-9]+)*)"#)
        let id = try Regex(#"[VCWDFTNALX][0-9]+"#)
        var found: [String: Set<String>] = [:]
        for case let url as URL in files where url.pathExtension == "swift" {
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

    @Test func everyRuleIsImplementedInTheModel() throws {
        let rules = try Self.allRules()
        let cited = try Self.citations(under: "Sources/StrataModel")
        let missing = rules.subtracting(cited.keys)
        #expect(missing.isEmpty, "rules no StrataModel code cites: \(missing.sorted())")
        #expect(rules.count >= 100)
    }

    @Test func everyRuleIsCitedByATest() throws {
        let rules = try Self.allRules()
        let cited = try Self.citations(under: "Tests")
        let missing = rules.subtracting(cited.keys)
        #expect(missing.isEmpty, "rules no test cites: \(missing.sorted())")
    }

    @Test func everyCitedRuleExists() throws {
        let rules = try Self.allRules()
        for directory in ["Sources", "Tests"] {
            let cited = try Self.citations(under: directory)
            let unknown = Set(cited.keys).subtracting(rules)
            let where_ = unknown.sorted().map { "\($0) in \(cited[$0]?.sorted() ?? [])" }
            #expect(unknown.isEmpty, "\(directory) cites rules that do not exist: \(where_)")
        }
    }

    /// The citation parser must see what it is meant to see: a self-check on a known file.
    @Test func theParserFindsKnownCitations() throws {
        let cited = try Self.citations(under: "Sources/StrataModel")
        #expect(cited["W1"]?.contains("ModelState+Writes.swift") == true)
        #expect(cited["N13"]?.contains("ChangeSet.swift") == true)
    }
}
