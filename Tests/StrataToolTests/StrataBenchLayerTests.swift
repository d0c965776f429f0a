import Foundation
import Testing

/// `strata-bench --layer`: the workloads through the Realm API, alone and beside the engine,
/// run as a child process on tiny data sets (debug build).
@Suite("strata-bench --layer")
struct StrataBenchLayerTests {
    /// The workloads both layers run, and the metric each reports first.
    static let layeredMetrics = [
        "bulk_insert": "ns_per_record", "durable_commit": "latency_median_us",
        "scan": "ns_per_record", "lookup": "ns_per_lookup", "snapshot": "ns_per_snapshot",
    ]
    static let smallBothRun = [
        "--layer", "both", "--records", "2000", "--commits", "20", "--seconds", "1",
        "--only", "bulk_insert,durable_commit,scan,lookup,snapshot",
    ]

    /// Parses every stdout line as a JSON object with the bench's four keys and `layer`,
    /// checks each value is positive, and returns `"workload/layer/metric"` → value.
    private func parseLayeredMeasurements(_ outcome: StrataBenchProcess.Outcome) throws
        -> [String: Double]
    {
        var measurements: [String: Double] = [:]
        #expect(!outcome.outputLines.isEmpty)
        for line in outcome.outputLines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let fields = try #require(object as? [String: Any], "not an object: \(line)")
            #expect(
                Set(fields.keys) == ["workload", "layer", "metric", "value", "unit"], "\(line)")
            let workload = try #require(fields["workload"] as? String, "\(line)")
            let layer = try #require(fields["layer"] as? String, "\(line)")
            let metric = try #require(fields["metric"] as? String, "\(line)")
            let value = try #require((fields["value"] as? NSNumber)?.doubleValue, "\(line)")
            #expect(["engine", "object", "object/engine"].contains(layer), "\(line)")
            #expect(value > 0 && value.isFinite, "\(line)")
            let key = "\(workload)/\(layer)/\(metric)"
            #expect(measurements[key] == nil, "duplicate: \(line)")
            measurements[key] = value
        }
        return measurements
    }

    @Test func bothLayersTextRunNamesBothLayersAndExitsZero() throws {
        let outcome = try StrataBenchProcess.run(Self.smallBothRun)
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let lines = outcome.outputLines
        #expect(lines.contains { $0.hasPrefix("workload") && $0.contains("layer") })
        for (workload, metric) in Self.layeredMetrics {
            for layer in ["engine", "object", "object/engine"] {
                let found = lines.contains {
                    $0.hasPrefix(workload + " ") && $0.contains(" \(metric) ")
                        && $0.contains(" \(layer) ")
                }
                #expect(found, "no \(layer) row for \(workload) \(metric)")
            }
        }
    }

    @Test func bothLayersJSONReportsEachLayerAndTheirRatio() throws {
        let outcome = try StrataBenchProcess.run(Self.smallBothRun + ["--json"])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let measurements = try parseLayeredMeasurements(outcome)
        for (workload, metric) in Self.layeredMetrics {
            let engine = try #require(measurements["\(workload)/engine/\(metric)"], "\(workload)")
            let object = try #require(measurements["\(workload)/object/\(metric)"], "\(workload)")
            let ratio = try #require(
                measurements["\(workload)/object/engine/\(metric)"], "\(workload)")
            #expect(abs(ratio - object / engine) <= 1e-9 * ratio, "\(workload)")
        }
        // Both layers' commits were measured against the fsync floor.
        #expect(measurements["durable_commit/object/latency_over_fsync_floor"] != nil)
        #expect(!measurements.keys.contains { $0.hasPrefix("concurrent/") })
    }

    @Test func objectLayerSkipsTheEngineOnlyWorkloadsWithANote() throws {
        let outcome = try StrataBenchProcess.run([
            "--layer", "object", "--records", "300", "--only", "scan,concurrent,file_size",
            "--json",
        ])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let measurements = try parseLayeredMeasurements(outcome)
        #expect(Set(measurements.keys) == ["scan/object/ns_per_record"])
        #expect(outcome.standardError.contains("concurrent skipped"))
        #expect(outcome.standardError.contains("file_size skipped"))
    }

    // scan_parts splits the object scan into a loop reading nothing, one reading the two
    // integers and the full scan; the engine has no objects to leave out, so it is skipped there.
    @Test func scanPartsReportsEachPartOnTheObjectLayerOnly() throws {
        let outcome = try StrataBenchProcess.run([
            "--layer", "both", "--records", "300", "--only", "scan_parts", "--runs", "1", "--json",
        ])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let measurements = try parseLayeredMeasurements(outcome)
        #expect(
            Set(measurements.keys) == [
                "scan_parts/object/iterate_ns_per_record", "scan_parts/object/ints_ns_per_record",
                "scan_parts/object/full_ns_per_record",
            ])
        let engine = try StrataBenchProcess.run([
            "--layer", "engine", "--records", "300", "--only", "scan_parts", "--json",
        ])
        #expect(engine.exitCode == 0, "\(engine.standardError)")
        #expect(engine.standardError.contains("scan_parts skipped"))
        #expect(!engine.outputLines.contains { $0.contains("scan_parts") })
    }

    // aggregate_sum checks each layer's sum of the loaded ages (a wrong sum fails the run) and
    // reports both layers and their ratio.
    @Test func aggregateSumReportsBothLayersAndTheirRatio() throws {
        let outcome = try StrataBenchProcess.run([
            "--layer", "both", "--records", "300", "--only", "aggregate_sum", "--runs", "1", "--json",
        ])
        #expect(outcome.exitCode == 0, "\(outcome.standardError)")
        let measurements = try parseLayeredMeasurements(outcome)
        let engine = try #require(measurements["aggregate_sum/engine/ns_per_record"])
        let object = try #require(measurements["aggregate_sum/object/ns_per_record"])
        let ratio = try #require(measurements["aggregate_sum/object/engine/ns_per_record"])
        #expect(abs(ratio - object / engine) <= 1e-9 * ratio)
    }

    @Test func unknownLayerExitsTwoAndHelpNamesTheOption() throws {
        let outcome = try StrataBenchProcess.run(["--layer", "orm"])
        #expect(outcome.exitCode == 2)
        #expect(outcome.standardOutput.isEmpty)
        #expect(outcome.standardError.contains("unknown layer 'orm'"))
        let help = try StrataBenchProcess.run(["--help"])
        #expect(help.exitCode == 0)
        for text in ["--layer", "object/engine", "invalidate()"] {
            #expect(help.standardOutput.contains(text), "help does not mention \(text)")
        }
    }
}
