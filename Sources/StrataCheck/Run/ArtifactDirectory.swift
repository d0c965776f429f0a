import Foundation

/// A failure's artifact directory as every mode writes it (Docs/architecture.md §5 "Reports"):
/// created with its parents under the artifact root, then filled file by file, each written
/// whole (atomically, UTF-8). What goes in it is the mode's (`Artifact`, `FreeArtifact`,
/// `ProcessArtifact`); where and how it is written is shared.
struct ArtifactDirectory {
    let path: String

    /// Creates `name` under `root` (and `root` itself if need be).
    init(_ name: String, under root: String) throws {
        path = (root as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A folder inside this one, created.
    func subdirectory(_ name: String) throws -> ArtifactDirectory {
        try ArtifactDirectory(name, under: path)
    }

    /// Writes `text` as the file `name` (replacing one that is there).
    func put(_ name: String, _ text: String) throws {
        try text.write(toFile: (path as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
}
