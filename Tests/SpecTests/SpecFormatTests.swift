import Foundation
import Testing

/// The rule files of `Spec/` are parsed by the traceability checks, so their format is a
/// contract: every rule is `### <prefix><n>. <title>`, a statement, optionally one mark line
/// (`Model-only: <reason>` or `API-only: <reason>`), and a `Source:` line; IDs are unique and
/// numbered from 1 without gaps in each area file; `coverage.md` only names rules that exist.
@Suite struct SpecFormatTests {
    /// Area file → rule prefix.
    static let areas: [String: String] = [
        "versions.md": "V", "confinement.md": "C", "writes.md": "W", "durability.md": "D", "freeze.md": "F",
        "references.md": "T", "notifications.md": "N", "async-writes.md": "A", "limits.md": "L", "files.md": "X",
    ]

    static var specDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Spec")
    }

    struct Rule {
        let id: String
        let number: Int
        let body: [String]

        /// The line that marks a rule no engine or API test can check yet, with its reason
        /// (`TraceabilityTests`): after the statement, right before `Source:`.
        static let modelOnlyPrefix = "Model-only: "

        /// The line that marks a rule about the API's surface, which the model does not
        /// implement, with its reason (`TraceabilityTests`): in the same place.
        static let apiOnlyPrefix = "API-only: "

        /// Both marks; a rule has at most one.
        static let markPrefixes = [modelOnlyPrefix, apiOnlyPrefix]

        /// The reason of the rule's `Model-only:` line, when it has one in its place.
        var modelOnlyReason: String? { markReason(Self.modelOnlyPrefix) }

        /// The reason of the rule's `API-only:` line, when it has one in its place.
        var apiOnlyReason: String? { markReason(Self.apiOnlyPrefix) }

        private func markReason(_ prefix: String) -> String? {
            guard body.count >= 3, body[body.count - 2].hasPrefix(prefix) else { return nil }
            return body[body.count - 2].dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        }
    }

    static func rules(in file: String, prefix: String) throws -> [Rule] {
        let text = try String(contentsOf: specDirectory.appendingPathComponent(file), encoding: .utf8)
        var rules: [Rule] = []
        var current: (id: String, number: Int, body: [String])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("### ") {
                if let current { rules.append(Rule(id: current.id, number: current.number, body: current.body)) }
                let heading = line.dropFirst(4)
                let id = String(heading.prefix { $0 != "." })
                let number = Int(id.dropFirst(prefix.count)) ?? -1
                #expect(id.hasPrefix(prefix) && number > 0, "\(file): bad rule heading '\(line)'")
                current = (id, number, [])
            } else if line.hasPrefix("#") {
                if let current { rules.append(Rule(id: current.id, number: current.number, body: current.body)) }
                current = nil
            } else if current != nil, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                current?.body.append(line)
            }
        }
        if let current { rules.append(Rule(id: current.id, number: current.number, body: current.body)) }
        return rules
    }

    @Test(arguments: areas.keys.sorted())
    func rulesAreNumberedWithoutGapsAndHaveASource(file: String) throws {
        let prefix = try #require(Self.areas[file])
        let rules = try Self.rules(in: file, prefix: prefix)
        #expect(!rules.isEmpty, "\(file) has no rules")
        #expect(rules.map(\.number) == Array(1...max(1, rules.count)), "\(file): numbers \(rules.map(\.number))")
        for rule in rules {
            #expect(rule.body.count >= 2, "\(rule.id) needs a statement and a source")
            #expect(rule.body.last?.hasPrefix("Source: ") == true, "\(rule.id): the last line must be 'Source: ...'")
            // A mark (`Model-only:` or `API-only:`): at most one of either kind, right before
            // `Source:`, after a statement, with a reason.
            let marks = rule.body.indices.filter { index in
                Rule.markPrefixes.contains { rule.body[index].hasPrefix($0) }
            }
            #expect(marks.count <= 1, "\(rule.id): more than one 'Model-only:' or 'API-only:' line")
            if let mark = marks.first {
                let name = rule.body[mark].hasPrefix(Rule.modelOnlyPrefix) ? "Model-only:" : "API-only:"
                #expect(
                    mark == rule.body.count - 2 && mark >= 1,
                    "\(rule.id): '\(name)' goes after the statement, right before 'Source:'")
                let reason = name == "Model-only:" ? rule.modelOnlyReason : rule.apiOnlyReason
                #expect(reason?.isEmpty == false, "\(rule.id): '\(name)' needs a reason")
            }
        }
    }

    /// The parser sees a `Model-only:` mark only in its place and with its reason.
    @Test func theModelOnlyMarkIsReadInItsPlace() {
        let marked = Rule(id: "X1", number: 1, body: ["Statement.", "Model-only: no API yet.", "Source: X"])
        #expect(marked.modelOnlyReason == "no API yet.")
        #expect(marked.apiOnlyReason == nil)
        let misplaced = Rule(id: "X1", number: 1, body: ["Model-only: no API yet.", "Statement.", "Source: X"])
        #expect(misplaced.modelOnlyReason == nil)
        let unmarked = Rule(id: "X1", number: 1, body: ["Statement.", "Source: X"])
        #expect(unmarked.modelOnlyReason == nil)
    }

    /// The same for an `API-only:` mark, which is not a `Model-only:` one.
    @Test func theAPIOnlyMarkIsReadInItsPlace() {
        let marked = Rule(id: "W1", number: 1, body: ["Statement.", "API-only: no model operation.", "Source: X"])
        #expect(marked.apiOnlyReason == "no model operation.")
        #expect(marked.modelOnlyReason == nil)
        let misplaced = Rule(id: "W1", number: 1, body: ["API-only: no model operation.", "Statement.", "Source: X"])
        #expect(misplaced.apiOnlyReason == nil)
        let unmarked = Rule(id: "W1", number: 1, body: ["Statement.", "Source: X"])
        #expect(unmarked.apiOnlyReason == nil)
    }

    @Test func coverageNamesOnlyExistingRules() throws {
        var known = Set<String>()
        for (file, prefix) in Self.areas {
            for rule in try Self.rules(in: file, prefix: prefix) { known.insert(rule.id) }
        }
        let coverage = try String(contentsOf: Self.specDirectory.appendingPathComponent("coverage.md"), encoding: .utf8)
        let cited = try Regex(#"\b[VCWDFTNALX][0-9]+\b"#)
        var unknown = Set<String>()
        for match in coverage.matches(of: cited) {
            let id = String(coverage[match.range])
            if !known.contains(id) { unknown.insert(id) }
        }
        #expect(unknown.isEmpty, "coverage.md cites rules that do not exist: \(unknown.sorted())")
        #expect(known.count >= 100)
    }
}
