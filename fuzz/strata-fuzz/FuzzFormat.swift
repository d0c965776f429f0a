import Foundation
import StrataCheck
import StrataCommandLine

/// Text spellings shared by the subcommands' output.
enum FuzzFormat {
    /// A digest as exactly 16 lowercase hex digits, the form `strata-tool` prints digests in.
    static func digest(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `count` per second over `seconds`; 0 before any time has passed.
    static func perSecond(_ count: Int, seconds: Double) -> Double {
        seconds > 0 ? Double(count) / seconds : 0
    }

    /// A rate for people: whole numbers from 10 up, one decimal below.
    static func rate(_ count: Int, seconds: Double) -> String {
        let value = perSecond(count, seconds: seconds)
        return value >= 10 ? String(format: "%.0f/s", value) : String(format: "%.1f/s", value)
    }

    /// Seconds with one decimal, e.g. `12.3 s`.
    static func seconds(_ value: Double) -> String {
        String(format: "%.1f s", value)
    }

    /// The settings of one run, e.g. `mode crash, store sim, threads 3, 200 ops per run`.
    static func settings(_ settings: CheckSettings) -> String {
        "mode \(settings.mode.rawValue), store \(settings.store.rawValue), "
            + "threads \(settings.threads), \(settings.operations) ops per run"
    }

    /// Prints `lines` to stdout, one at a time.
    static func write(_ lines: [String]) {
        for line in lines { StandardStreams.writeLine(line) }
    }
}
