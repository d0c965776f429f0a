import Foundation
import Testing

/// The engine's folders are layers: a file may name the types of its own folder and of the
/// folders below it, never of one above (Docs/architecture.md, "Layers"). The check reads the
/// sources: the types each folder declares, and the capitalized names each file uses once its
/// comments and string literals are gone. A name declared in more than one folder says nothing
/// about direction and is left out. The engine keeps the rule everywhere: any crossing fails.
@Suite struct LayeringTests {
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// StrataStorage's folders, lowest first (Docs/architecture.md, "Layers"). No file lives
    /// directly in the module's folder: the identifiers, errors, invariants and lock every layer
    /// uses are `Base`.
    static let storageLayers = [
        "Base", "Hooks", "Raw", "IO", "Page", "BTree", "Records", "Pager", "Versions", "Tables", "File",
        "Transactions", "Store",
    ]

    /// A source file: its path under the module, its folder, and its code without comments
    /// and string literals.
    struct SourceFile {
        let name: String
        let folder: String
        let code: String
    }

    static func sources(module: String) throws -> [SourceFile] {
        try sources(at: "Sources/\(module)")
    }

    /// The Swift files of the target in `folder` (a path under the repository).
    static func sources(at folder: String) throws -> [SourceFile] {
        let root = repository.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var files: [SourceFile] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let parts = relative.split(separator: "/")
            let folder = parts.count > 1 ? String(parts[0]) : ""
            let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
            files.append(SourceFile(name: relative, folder: folder, code: strip(text)))
        }
        return files.sorted { $0.name < $1.name }
    }

    /// `text` with its comments and string literals blanked out (single-line, multi-line and
    /// raw strings; interpolations go with their string, which only hides names).
    static func strip(_ text: String) -> String {
        let characters = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        func at(_ offset: Int) -> Unicode.Scalar? {
            index + offset < characters.count ? characters[index + offset] : nil
        }
        while index < characters.count {
            let character = characters[index]
            if character == "/" && at(1) == "/" {
                while index < characters.count && characters[index] != "\n" { index += 1 }
                continue
            }
            if character == "/" && at(1) == "*" {
                var depth = 0
                repeat {
                    if characters[index] == "/" && at(1) == "*" {
                        depth += 1
                        index += 2
                        continue
                    }
                    if characters[index] == "*" && at(1) == "/" {
                        depth -= 1
                        index += 2
                        continue
                    }
                    index += 1
                } while depth > 0 && index < characters.count
                output.append(" ")
                continue
            }
            if character == "\"" {
                let triple = at(1) == "\"" && at(2) == "\""
                index += triple ? 3 : 1
                while index < characters.count {
                    if characters[index] == "\\" {
                        index += 2
                        continue
                    }
                    if triple {
                        if characters[index] == "\"" && at(1) == "\"" && at(2) == "\"" {
                            index += 3
                            break
                        }
                    } else if characters[index] == "\"" || characters[index] == "\n" {
                        index += 1
                        break
                    }
                    index += 1
                }
                output.append(" ")
                continue
            }
            output.append(character)
            index += 1
        }
        return String(output)
    }

    static func matches(_ pattern: String, in text: String, group: Int) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    /// Type name → the folders declaring it.
    static func declarations(_ files: [SourceFile]) -> [String: Set<String>] {
        var declared: [String: Set<String>] = [:]
        for file in files {
            for name in matches(
                #"\b(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)"#,
                in: file.code, group: 1)
            {
                declared[name, default: []].insert(file.folder)
            }
        }
        return declared
    }

    /// Every "File.swift → Type" where a file names a type of a folder above its own.
    static func violations(module: String, layers: [String]) throws -> Set<String> {
        let files = try sources(module: module)
        let declared = declarations(files)
        var found: Set<String> = []
        for file in files {
            guard let level = layers.firstIndex(of: file.folder) else {
                found.insert("\(file.name) → (a folder that is no layer)")
                continue
            }
            for name in Set(matches(#"\b([A-Z][A-Za-z0-9_]*)\b"#, in: file.code, group: 1)) {
                guard let folders = declared[name], folders.count == 1, let folder = folders.first,
                    let other = layers.firstIndex(of: folder), other > level
                else { continue }
                found.insert("\(file.name) → \(name)")
            }
        }
        return found
    }

    /// The production targets, by folder: what users build and run. strata-fuzz is not one: it
    /// is the harness's driver, built on StrataCheck by design.
    static let productionTargets = [
        "Sources/StrataStorage", "Sources/Strata", "Sources/StrataModel", "Sources/StrataCommandLine",
        "Sources/strata-tool", "Sources/strata-bench",
    ]

    /// The targets that exist only to test: the simulated disk, the tests' shared helpers, the
    /// harness.
    static let testOnlyTargets = ["Sources/StrataSimulation", "Tests/StrataTestSupport", "Sources/StrataCheck"]

    /// The generic parameters a file declares (`func f<R, Failure: Error>`): names of its own
    /// that may match a type elsewhere.
    static func genericParameters(_ code: String) -> Set<String> {
        let declaration = #"\b(?:(?:func|struct|class|enum|actor|typealias)\s+[A-Za-z0-9_]+|init|subscript)"#
        let clauses = matches(declaration + #"\s*<([^<>]*)>"#, in: code, group: 1)
        return Set(
            clauses.flatMap { clause in
                clause.split(separator: ",").compactMap { parameter in
                    parameter.split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                }
            })
    }

    /// Every "target/File.swift → Type" where a production file names a type declared in a
    /// test-only target. A name a production target declares too (a nested `State`, `Kind`),
    /// or the file's own generic parameter, says nothing and is left out, as in `violations`.
    static func testOnlyNames(production: [String: [SourceFile]], testOnly: [String: [SourceFile]]) -> Set<String> {
        let testOnlyDeclared = Set(declarations(testOnly.values.flatMap { $0 }).keys)
        let productionDeclared = Set(declarations(production.values.flatMap { $0 }).keys)
        let suspect = testOnlyDeclared.subtracting(productionDeclared)
        var found: Set<String> = []
        for (target, files) in production {
            for file in files {
                let own = genericParameters(file.code)
                for name in Set(matches(#"\b([A-Z][A-Za-z0-9_]*)\b"#, in: file.code, group: 1))
                where suspect.contains(name) && !own.contains(name) {
                    found.insert("\(target)/\(file.name) → \(name)")
                }
            }
        }
        return found
    }

    @Test("No production target names a type of a test-only one (StrataSimulation, StrataTestSupport, StrataCheck)")
    func productionNamesNoTestOnlyType() throws {
        var production: [String: [SourceFile]] = [:]
        for target in Self.productionTargets { production[target] = try Self.sources(at: target) }
        var testOnly: [String: [SourceFile]] = [:]
        for target in Self.testOnlyTargets { testOnly[target] = try Self.sources(at: target) }
        #expect(testOnly.values.allSatisfy { !$0.isEmpty }, "a test-only target's folder is empty or gone")
        let found = Self.testOnlyNames(production: production, testOnly: testOnly).sorted()
        #expect(found.isEmpty, "a production file names a test-only type: \(found.joined(separator: "; "))")
    }

    @Test("The check sees a production file naming a test-only type, not one in a comment")
    func theCheckSeesATestOnlyName() {
        let simulation = SourceFile(
            name: "SimStore.swift", folder: "",
            code: Self.strip("public final class SimStore {}"))
        let named = SourceFile(name: "Configuration.swift", folder: "", code: Self.strip("var disk: SimStore?"))
        let commented = SourceFile(name: "Realm.swift", folder: "", code: Self.strip("let a = 1 // a SimStore"))
        let generic = SourceFile(
            name: "Timing.swift", folder: "",
            code: Self.strip("func f<SimStore: Error>(_ x: SimStore) {}"))
        let found = Self.testOnlyNames(
            production: ["Sources/Strata": [named, commented, generic]],
            testOnly: ["Sources/StrataSimulation": [simulation]])
        #expect(found == ["Sources/Strata/Configuration.swift → SimStore"])
    }

    @Test("StrataStorage's folders call only down: no file names a type of a higher folder")
    func storageFoldersAreLayers() throws {
        let found = try Self.violations(module: "StrataStorage", layers: Self.storageLayers).sorted()
        #expect(found.isEmpty, "a file names a type of a higher folder: \(found.joined(separator: "; "))")
    }

    @Test("The check sees a crossing: a lower file naming a higher folder's type, not one in a comment or a string")
    func theCheckSeesACrossing() {
        let code = Self.strip(
            """
            let a = Committer.commit() // Store
            let b = "Store" /* Store */
            let c = \"\"\"
                Store
                \"\"\"
            """)
        #expect(code.contains("Committer"))
        #expect(!code.contains("Store"), "\(code)")
    }
}
