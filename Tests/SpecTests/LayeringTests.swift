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
        let root = repository.appendingPathComponent("Sources").appendingPathComponent(module)
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
                    if characters[index] == "/" && at(1) == "*" { depth += 1; index += 2; continue }
                    if characters[index] == "*" && at(1) == "/" { depth -= 1; index += 2; continue }
                    index += 1
                } while depth > 0 && index < characters.count
                output.append(" ")
                continue
            }
            if character == "\"" {
                let triple = at(1) == "\"" && at(2) == "\""
                index += triple ? 3 : 1
                while index < characters.count {
                    if characters[index] == "\\" { index += 2; continue }
                    if triple {
                        if characters[index] == "\"" && at(1) == "\"" && at(2) == "\"" { index += 3; break }
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
            for name in matches(#"\b(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)"#,
                                in: file.code, group: 1) {
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
                      let other = layers.firstIndex(of: folder), other > level else { continue }
                found.insert("\(file.name) → \(name)")
            }
        }
        return found
    }

    @Test("StrataStorage's folders call only down: no file names a type of a higher folder")
    func storageFoldersAreLayers() throws {
        let found = try Self.violations(module: "StrataStorage", layers: Self.storageLayers).sorted()
        #expect(found.isEmpty, "a file names a type of a higher folder: \(found.joined(separator: "; "))")
    }

    @Test("The check sees a crossing: a lower file naming a higher folder's type, not one in a comment or a string")
    func theCheckSeesACrossing() {
        let code = Self.strip("""
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
