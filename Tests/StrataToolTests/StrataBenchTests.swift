import Foundation
import StrataTestSupport
import Testing

/// The `strata-bench` command line, run as a child process on tiny data sets (debug build).
@Suite("strata-bench")
struct StrataBenchTests {
    static let workloadNames = [
        "bulk_insert", "durable_commit", "scan", "lookup", "snapshot", "concurrent", "file_size",
    ]

    /// Parses every stdout line as a JSON object with exactly the bench's four keys, checks
    /// each value is positive, and returns `"workload/metric"` → value.
    private func parseMeasurements(_ outcome: StrataBenchProcess.Outcome) throws
        -> [String: Double]
    {
        var measurements: [String: Double] = [:]
        #expect(!outcome.outputLines.isEmpty)
        for line in outcome.outputLines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let fields = try #require(object as? [String: Any], "not an object: \(line)")
            #expect(Set(fields.keys) == ["workload", "metric", "value", "unit"], "\(line)")
            let workload = try #require(fields["workload"] as? String, "\(line)")
            let metric = try #require(fields["metric"] as? String, "\(line)")
            let value = try #require((fields["value"] as? NSNumber)?.doubleValue, "\(line)")
            let unit = try #require(fields["unit"] as? String, "\(line)")
            #expect(Self.workloadNames.contains(workload), "\(line)")
            #expect(!unit.isEmpty, "\(line)")
            #expect(value > 0 && value.isFinite, "\(line)")
            #expect(measurements["\(workload)/\(metric)"] == nil, "duplicate: \(line)")
            measurements["\(workload)/\(metric)"] = value
        }
        return measurements
    }

    @Test func helpExitsZeroAndNamesEveryWorkload() throws {
        let outcome = try StrataBenchProcess.run(["--help"])
        #expect(outcome.exitCode == 0)
        #expect(outcome.standardOutput.hasPrefix("usage: strata-bench"))
        for name in Self.workloadNames {
            #expect(outcome.standardOutput.contains(name), "help does not name \(name)")
        }
        for option in ["--records", "--commits", "--seconds", "--only", "--dir", "--json"] {
            #expect(outcome.standardOutput.contains(option), "help does not name \(option)")
        }
        #expect(outcome.standardOutput.contains("median"))
    }

    @Test func unknownWorkloadExitsTwoListingTheValidOnes() throws {
        let outcome = try StrataBenchProcess.run(["--only", "scan,nonsense"])
        #expect(outcome.exitCode == 2)
        #expect(outcome.standardOutput.isEmpty)
        #expect(outcome.standardError.contains("unknown workload 'nonsense'"))
        for name in Self.workloadNames {
            #expect(outcome.standardError.contains(name), "error does not list \(name)")
        }
    }

    @Test(arguments: [
        ["--records", "0"], ["--commits", "0"], ["--seconds", "0"], ["--seconds", "-1"],
        ["--records", "many"], ["--dir"],
    ])
    func badNumbersExitTwo(arguments: [String]) throws {
        let outcome = try StrataBenchProcess.run(arguments)
        #expect(outcome.exitCode == 2, "\(arguments) → \(outcome.exitCode)")
        #expect(outcome.standardOutput.isEmpty)
        #expect(!outcome.standardError.isEmpty)
    }

    @Test func tinyReadRunPrintsPositiveJSONLines() throws {
        let outcome = try StrataBenchProcess.run([
            "--records", "2000", "--only", "bulk_insert,scan,lookup,snapshot,file_size", "--json",
            "--seconds", "1",
        ])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let measurements = try parseMeasurements(outcome)
        for key in [
            "bulk_insert/total_ms", "bulk_insert/ns_per_record", "bulk_insert/commit_ms",
            "scan/ns_per_record", "lookup/ns_per_lookup", "snapshot/ns_per_snapshot",
            "file_size/after_bulk_insert_kib",
        ] {
            #expect(measurements[key] != nil, "missing \(key)")
        }
        // Only the selected workloads ran.
        #expect(!measurements.keys.contains { $0.hasPrefix("durable_commit/") })
        #expect(!measurements.keys.contains { $0.hasPrefix("concurrent/") })
    }

    @Test func durableCommitReportsLatencyOverFsyncFloor() throws {
        let outcome = try StrataBenchProcess.run([
            "--records", "500", "--commits", "30", "--only", "durable_commit, file_size",
            "--json",
        ])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let measurements = try parseMeasurements(outcome)
        let median = try #require(measurements["durable_commit/latency_median_us"])
        let floor = try #require(measurements["durable_commit/fsync_floor_us"])
        let ratio = try #require(measurements["durable_commit/latency_over_fsync_floor"])
        #expect(abs(ratio - median / floor) <= 1e-9 * ratio)
        #expect(try #require(measurements["durable_commit/latency_p99_us"]) >= median)
        // The commits grew the data: the file is at least as large as before them.
        let before = try #require(measurements["file_size/after_bulk_insert_kib"])
        let after = try #require(measurements["file_size/after_durable_commit_kib"])
        #expect(after >= before)
    }

    @Test func concurrentReportsRatesAndRatios() throws {
        let outcome = try StrataBenchProcess.run([
            "--records", "300", "--only", "concurrent", "--seconds", "0.3", "--json",
        ])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let measurements = try parseMeasurements(outcome)
        for metric in [
            "writer_alone_commits_per_s", "reader_alone_scans_per_s",
            "writer_concurrent_commits_per_s", "reader_concurrent_scans_per_s",
            "writer_concurrent_over_alone", "reader_concurrent_over_alone",
        ] {
            #expect(measurements["concurrent/\(metric)"] != nil, "missing \(metric)")
        }
        let alone = try #require(measurements["concurrent/reader_alone_scans_per_s"])
        let both = try #require(measurements["concurrent/reader_concurrent_scans_per_s"])
        let ratio = try #require(measurements["concurrent/reader_concurrent_over_alone"])
        #expect(abs(ratio - both / alone) <= 1e-9 * ratio)
    }

    @Test func textTableRemovesItsTemporaryDirectory() throws {
        let outcome = try StrataBenchProcess.run(["--records", "300", "--only", "scan,lookup"])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let lines = outcome.outputLines
        #expect(lines.contains { $0.hasPrefix("workload") && $0.contains("vs LMDB") })
        #expect(lines.contains { $0.hasPrefix("scan") && $0.contains("ns_per_record") })
        #expect(lines.contains { $0.contains("Peer columns are blank") })
        // The preamble names the directory: "... in /tmp/strata-bench-XXXXXX (removed)".
        let preamble = try #require(lines.first)
        let path = try #require(
            preamble.components(separatedBy: " in ").last?
                .replacingOccurrences(of: " (removed)", with: ""))
        #expect(path.contains("strata-bench-"))
        #expect(!FileManager.default.fileExists(atPath: path), "left behind: \(path)")
    }

    @Test func givenDirectoryKeepsTheDatabase() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-bench-dir-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try StrataBenchProcess.run([
            "--records", "300", "--only", "lookup", "--json", "--dir", directory.path,
        ])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains("bench.strata"), "\(names)")
        #expect(!names.contains("fsync-probe"), "\(names)")
    }
}
