import Foundation
import StrataCheck
import StrataCommandLine

/// What `replay` and `shrink` take: an artifact directory (its `token.txt` is read) or, for
/// `replay`, the one-line token itself.
///
/// Anything wrong with the argument is a usage error (exit 2): a token that does not decode,
/// a path that is not there, a directory without a token. Only a token file that exists but
/// cannot be read is an I/O failure (exit 3).
struct ReplayInput {
    /// Every replay token starts with `sc<generation>.` (`ReplayToken`), `sc1.` up to
    /// `CheckSettings.currentGeneration`.
    static func isToken(_ argument: String) -> Bool {
        guard argument.hasPrefix("sc"), let dot = argument.firstIndex(of: ".") else { return false }
        let generation = argument[argument.index(argument.startIndex, offsetBy: 2)..<dot]
        return !generation.isEmpty && generation.allSatisfy(\.isASCII) && Int(generation) != nil
    }
    /// How much of a malformed token an error message repeats.
    static let tokenCharacterCountShown = 40

    /// The token, trimmed.
    var token: String
    /// The settings and choice stream the token holds.
    var decoded: ReplayToken.Decoded
    /// The artifact directory, when one was given rather than a bare token.
    var directory: String?
    /// The campaign seed the artifact's `failure.txt` names, when it names one.
    var seed: UInt64?

    /// Reads `argument` as a token (when it starts with `sc<generation>.` and `acceptsToken`) or as an
    /// artifact directory.
    /// - Throws: `UsageError` for a malformed token, a missing path or a directory without a
    ///   token; `FuzzFailure.artifactNotRead` when the token file cannot be read.
    static func resolve(
        _ argument: String,
        acceptsToken: Bool,
        command: ParsedCommand
    ) throws -> ReplayInput {
        if acceptsToken, Self.isToken(argument) {
            let token = argument.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let decoded = ReplayToken.decode(token) else {
                let cut = token.count > tokenCharacterCountShown ? "..." : ""
                let shown = token.prefix(tokenCharacterCountShown) + cut
                throw command.usageError("malformed replay token '\(shown)'")
            }
            return ReplayInput(token: token, decoded: decoded, directory: nil, seed: nil)
        }
        return try fromDirectory(argument, acceptsToken: acceptsToken, command: command)
    }

    private static func fromDirectory(
        _ directory: String,
        acceptsToken: Bool,
        command: ParsedCommand
    ) throws -> ReplayInput {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            let alternative =
                acceptsToken ? " and not a replay token (tokens start with \(ReplayCommand.tokenPrefix))" : ""
            throw command.usageError("no artifact directory at '\(directory)'\(alternative)")
        }
        guard isDirectory.boolValue else {
            throw command.usageError("'\(directory)' is not an artifact directory")
        }
        let tokenPath = (directory as NSString).appendingPathComponent(Artifact.tokenFile)
        guard FileManager.default.fileExists(atPath: tokenPath) else {
            if processRerun(directory) != nil {
                throw command.usageError(
                    "'\(directory)' is a process campaign's artifact: the OS chose its interleaving, so "
                        + "it has no token to \(command.commandPath.last ?? "replay"); "
                        + "'strata-fuzz replay \(directory)' re-runs its plan")
            }
            throw command.usageError(
                "'\(directory)' holds no \(Artifact.tokenFile)"
                    + (command.commandPath.last == ReplayCommand.spec.name
                        ? " and no process campaign's failure.txt" : "")
                    + ": not an artifact directory")
        }
        let text: String
        do {
            text = try String(contentsOfFile: tokenPath, encoding: .utf8)
        } catch {
            throw FuzzFailure.artifactNotRead(
                path: tokenPath, reason: error.localizedDescription)
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let decoded = ReplayToken.decode(token) else {
            throw command.usageError("'\(tokenPath)' does not hold a valid replay token")
        }
        return ReplayInput(
            token: token, decoded: decoded, directory: directory,
            seed: recordedSeed(in: directory))
    }

    /// The command that re-runs a process campaign's artifact (`ProcessArtifact`: no token, a
    /// `failure.txt` whose "rerun the plan:" line holds the command), without the program name;
    /// nil for any other argument.
    static func processRerun(_ argument: String) -> [String]? {
        let tokenPath = (argument as NSString).appendingPathComponent(Artifact.tokenFile)
        let failurePath = (argument as NSString).appendingPathComponent("failure.txt")
        guard !FileManager.default.fileExists(atPath: tokenPath),
            let text = try? String(contentsOfFile: failurePath, encoding: .utf8)
        else { return nil }
        let label = ProcessArtifact.rerunLabel + ": "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
        let words = line.dropFirst(label.count).split(separator: " ").map(String.init)
        guard words.first == "strata-fuzz" else { return nil }
        return Array(words.dropFirst())
    }

    /// The `seed: N` line `Artifact.write` puts in `failure.txt`, if there is one.
    private static func recordedSeed(in directory: String) -> UInt64? {
        let path = (directory as NSString).appendingPathComponent("failure.txt")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("seed: ") {
            return UInt64(line.dropFirst("seed: ".count))
        }
        return nil
    }

    /// Runs the token's choice stream once, as recorded, and returns what happened (a free
    /// run's stream fixes its programs, not its interleaving: `FreeArtifact.replayNote`).
    /// - Throws: `FuzzFailure.runDidNotStart` when the run's store or realm cannot be set up.
    func replay() throws -> RunResult {
        do {
            return try replayRun(decoded)
        } catch {
            throw FuzzFailure.runDidNotStart(reason: "\(error)")
        }
    }
}
