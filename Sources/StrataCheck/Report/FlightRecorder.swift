import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The run in flight, kept where a process that dies leaves it: the run's settings (as the
/// start of its replay token) and every draw of its choice stream, stored into a shared
/// mapping of a file as they are drawn. A trap (an engine invariant, a failed runtime check)
/// kills the process before the harness can report anything; its parent then reads the file
/// (`inFlight(path:)`) and has the token of the run that trapped (`strata-fuzz bugs --check`
/// runs each bug in such a child).
///
/// Writing is a store into mapped memory per draw (no system call), so a recorded campaign
/// runs at the speed of an unrecorded one; the kernel keeps the pages when the process dies.
/// One run at a time: the recorder installed for the process (`install`) is taken by each
/// run when it starts (`Runner`, `FreeRun`), and a run that ends marks the file idle.
public final class FlightRecorder: @unchecked Sendable {
    /// "SCFLIGHT", little-endian.
    static let magic: UInt64 = 0x5448_4749_4C46_4353
    /// Header: magic, state (0 idle, 1 a run in flight), draws, prefix length, then the prefix;
    /// its last 24 bytes note the campaign run in flight (`noteCampaignRun`).
    static let headerByteCount = 4096
    static let prefixOffset = 32
    /// "SCRUNSEE", little-endian: the campaign-run note below is set.
    static let runNoteMagic: UInt64 = 0x4545_534E_5552_4353
    static let runNoteOffset = headerByteCount - 24
    static let prefixByteCountMax = runNoteOffset - prefixOffset
    /// Draws kept per run; a run that draws more is not recorded (its state says overflowed).
    static let capacity = 1 << 22
    static let byteCount = headerByteCount + capacity * MemoryLayout<UInt32>.size

    private enum State: UInt64 {
        case idle = 0
        case running = 1
        case overflowed = 2
    }

    private let base: UnsafeMutableRawPointer
    public let path: String

    /// Creates (or empties) the file at `path` and maps it.
    /// - Throws: `CocoaError(.fileWriteUnknown)` when the file cannot be made or mapped.
    public init(path: String) throws {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["errno": errno]) }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(Self.byteCount)) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: ["errno": errno])
        }
        let mapped = mmap(nil, Self.byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let mapped, mapped != MAP_FAILED else { throw CocoaError(.fileWriteUnknown, userInfo: ["errno": errno]) }
        base = mapped
        base.storeBytes(of: Self.magic, toByteOffset: 0, as: UInt64.self)
        base.storeBytes(of: UInt64(0), toByteOffset: Self.runNoteOffset, as: UInt64.self)
        setState(.idle)
    }

    /// A campaign starts its run number `index`, from `seed` (`Campaign.run`): a parent that
    /// finds the process dead reports the run by its seed as well as its token.
    func noteCampaignRun(seed: UInt64, index: Int) {
        base.storeBytes(of: UInt64(0), toByteOffset: Self.runNoteOffset, as: UInt64.self)
        base.storeBytes(of: seed, toByteOffset: Self.runNoteOffset + 8, as: UInt64.self)
        base.storeBytes(of: UInt64(max(0, index)), toByteOffset: Self.runNoteOffset + 16, as: UInt64.self)
        base.storeBytes(of: Self.runNoteMagic, toByteOffset: Self.runNoteOffset, as: UInt64.self)
    }

    deinit { munmap(base, Self.byteCount) }

    private func setState(_ state: State) { base.storeBytes(of: state.rawValue, toByteOffset: 8, as: UInt64.self) }

    /// A run with `settings` starts: its draws follow.
    func begin(settings: CheckSettings) {
        setState(.idle)  // a half-written prefix is never read as a run
        let prefix = Array(ReplayToken.prefix(of: settings).utf8.prefix(Self.prefixByteCountMax))
        for (offset, byte) in prefix.enumerated() {
            base.storeBytes(of: byte, toByteOffset: Self.prefixOffset + offset, as: UInt8.self)
        }
        base.storeBytes(of: UInt64(prefix.count), toByteOffset: 24, as: UInt64.self)
        base.storeBytes(of: UInt64(0), toByteOffset: 16, as: UInt64.self)
        setState(.running)
    }

    /// Draw number `index` of the run in flight was `value`.
    func record(index: Int, value: UInt32) {
        guard index < Self.capacity else { return setState(.overflowed) }
        base.storeBytes(of: value, toByteOffset: Self.headerByteCount + index * 4, as: UInt32.self)
        base.storeBytes(of: UInt64(index + 1), toByteOffset: 16, as: UInt64.self)
    }

    /// The run in flight ended (its outcome is the harness's to report).
    func end() { setState(.idle) }

    // MARK: the process's recorder

    private static let installed = Mutex<FlightRecorder?>(nil)

    /// Makes every run this process starts from now on record into `recorder` (nil: none).
    public static func install(_ recorder: FlightRecorder?) { installed.withLock { $0 = recorder } }

    /// The recorder runs take when they start.
    static var current: FlightRecorder? { installed.withLock { $0 } }

    // MARK: reading what a dead process left

    /// A run that was in flight when its process died.
    public struct InFlight: Sendable {
        /// Replays the run: its settings and every draw it made before it died.
        public var token: String
        public var draws: Int
        public var mode: CheckMode
        /// The campaign seed of the run and its number in the campaign, when a campaign ran it
        /// (nil for a replay or a shrink's candidate outside any campaign).
        public var seed: UInt64?
        public var campaignRun: Int?
    }

    /// The run in flight recorded at `path`, or nil when none was (the process died between
    /// runs, before its first, or in a run too long to record) or the file is not a recorder's.
    public static func inFlight(path: String) -> InFlight? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: headerByteCount), header.count == headerByteCount else {
            return nil
        }
        func word(_ offset: Int) -> UInt64 {
            header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        }
        guard word(0) == magic, word(8) == State.running.rawValue else { return nil }
        let draws = Int(word(16))
        let prefixCount = Int(word(24))
        guard draws <= capacity, prefixCount > 0, prefixCount <= prefixByteCountMax else { return nil }
        let prefix = String(decoding: header[prefixOffset..<(prefixOffset + prefixCount)], as: UTF8.self)
        guard let body = try? handle.read(upToCount: draws * 4) ?? Data(), body.count == draws * 4 else { return nil }
        let choices = body.withUnsafeBytes { bytes in
            (0..<draws).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
        }
        let token = prefix + ReplayToken.stream(choices)
        guard let decoded = ReplayToken.decode(token) else { return nil }
        var inFlight = InFlight(token: token, draws: draws, mode: decoded.settings.mode)
        if word(runNoteOffset) == runNoteMagic {
            inFlight.seed = word(runNoteOffset + 8)
            inFlight.campaignRun = Int(truncatingIfNeeded: word(runNoteOffset + 16))
        }
        return inFlight
    }
}
