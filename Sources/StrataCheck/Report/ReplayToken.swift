import Foundation

/// A one-line replay token: the settings and the whole choice stream, so a failure replays on
/// any machine from the token alone (`strata-fuzz replay TOKEN`).
///
/// Format: `sc<generation>.<mode>.<store>.<threads>.<operations>.<bugs>.<mutation>.<excluded>.<choices>`
/// where the excluded operation kinds are joined by `+` (`-` for none) and the choices are
/// LEB128 varints in base64url. The generation (`CheckSettings.generation`) says which
/// generator reads the stream: `sc1` tokens printed before bulk writes still replay as they did.
public enum ReplayToken {
    public struct Decoded: Sendable {
        public var settings: CheckSettings
        public var choices: [UInt32]
    }

    /// How every token of a run at the current generation starts: `sc<generation>.`.
    public static let currentPrefix = prefix(generation: CheckSettings.currentGeneration)

    /// How a token read by `generation`'s generator starts.
    public static func prefix(generation: Int) -> String { "sc\(generation)." }

    public static func encode(settings: CheckSettings, choices: [UInt32]) -> String {
        prefix(of: settings) + stream(choices)
    }

    /// A token's settings, up to and with the dot before its choices.
    static func prefix(of settings: CheckSettings) -> String {
        [
            prefix(generation: settings.generation) + settings.mode.rawValue, settings.store.rawValue,
            "\(settings.threads)",
            "\(settings.operations)", "\(settings.engineBugs.rawValue)",
            settings.modelMutation?.rawValue ?? "-",
            settings.excludedKinds.isEmpty ? "-" : settings.excludedKinds.sorted().joined(separator: "+"),
            "",
        ].joined(separator: ".")
    }

    /// A token's choices: LEB128 varints in base64url without padding.
    static func stream(_ choices: [UInt32]) -> String {
        var bytes: [UInt8] = []
        for choice in choices {
            var value = choice
            repeat {
                var byte = UInt8(value & 0x7F)
                value >>= 7
                if value != 0 { byte |= 0x80 }
                bytes.append(byte)
            } while value != 0
        }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// nil when `token` is not a token of this format.
    public static func decode(_ token: String, scratchDirectory: String = CheckSettings.defaultScratchDirectory)
        -> Decoded?
    {
        let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 9, parts[0].hasPrefix("sc"), let generation = Int(parts[0].dropFirst(2)),
            CheckSettings.generations.contains(generation),
            let mode = CheckMode(rawValue: String(parts[1])), let store = CheckStore(rawValue: String(parts[2])),
            let threads = Int(parts[3]), (1...16).contains(threads), let operations = Int(parts[4]), operations > 0,
            let bugs = UInt64(parts[5])
        else { return nil }
        let mutation: ModelMutation?
        if parts[6] == "-" {
            mutation = nil
        } else {
            guard let parsed = ModelMutation(rawValue: String(parts[6])) else { return nil }
            mutation = parsed
        }
        let excluded: Set<String> = parts[7] == "-" ? [] : Set(parts[7].split(separator: "+").map(String.init))
        let kindNames = Set(OperationKind.allCases.map { "\($0)" })
        guard excluded.isSubset(of: kindNames) else { return nil }
        var text = parts[8].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { return nil }
        var choices: [UInt32] = []
        var value: UInt64 = 0
        var shift: UInt64 = 0
        for byte in data {
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                guard value <= UInt64(UInt32.max) else { return nil }
                choices.append(UInt32(value))
                value = 0
                shift = 0
            } else {
                shift += 7
                guard shift < 35 else { return nil }
            }
        }
        guard shift == 0 else { return nil }
        var settings = CheckSettings(
            mode: mode, store: store, threads: threads, operations: operations,
            engineBugs: .init(rawValue: bugs), modelMutation: mutation,
            scratchDirectory: scratchDirectory)
        settings.excludedKinds = excluded
        settings.generation = generation
        return Decoded(settings: settings, choices: choices)
    }
}

/// Replays a token and returns the failure it still shows, if any. A free-mode token re-runs
/// the same thread programs under a new interleaving (`FreeArtifact.replayNote`).
public func replay(token: String) throws -> CheckFailure? {
    guard let decoded = ReplayToken.decode(token) else {
        throw CheckUsageError("not a StrataCheck replay token: \(token.prefix(40))")
    }
    return try replayRun(decoded).failure
}

/// Runs a decoded token's settings and choices once: a lockstep run, or a free run.
public func replayRun(_ decoded: ReplayToken.Decoded) throws -> RunResult {
    let stream = ChoiceStream(replaying: decoded.choices)
    if decoded.settings.mode == .free {
        return try FreeRun(settings: FreeSettings(decoded.settings), stream: stream).run().runResult
    }
    return try Runner(settings: decoded.settings, stream: stream).run()
}

/// A malformed token or artifact.
public struct CheckUsageError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
