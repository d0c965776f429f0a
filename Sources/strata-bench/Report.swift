import StrataCommandLine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a metric measures, which fixes whether less is better and how to word a comparison.
enum MetricKind: Sendable {
    /// A duration: lower is better ("slower" / "faster").
    case duration
    /// Operations per second: higher is better.
    case rate
    /// Bytes on disk: lower is better ("larger" / "smaller").
    case size
    /// A dimensionless ratio where lower is better (latency over the fsync floor).
    case ratioLowerIsBetter
    /// A dimensionless ratio where higher is better (throughput kept under contention).
    case ratioHigherIsBetter

    var lowerIsBetter: Bool {
        switch self {
        case .duration, .size, .ratioLowerIsBetter: return true
        case .rate, .ratioHigherIsBetter: return false
        }
    }

    /// The words for "Strata is worse" and "Strata is better" than a peer.
    var comparisonWords: (worse: String, better: String) {
        switch self {
        case .duration, .rate: return ("slower", "faster")
        case .size: return ("larger", "smaller")
        case .ratioLowerIsBetter, .ratioHigherIsBetter: return ("worse", "better")
        }
    }
}

/// Which layer a figure describes: one of the two, or the ratio of the object layer's figure
/// to the engine's for the same metric, measured in the same run.
enum ReportedLayer: Sendable, Comparable {
    case engine
    case object
    case objectOverEngine
    // `--peers` (Report+Peers.swift): the peers' figures, and Strata's over theirs.
    case lmdb
    case sqlite
    case engineOverLMDB
    case engineOverSQLite
    case objectOverLMDB
    case objectOverSQLite

    init(_ layer: BenchLayer) {
        switch layer {
        case .engine: self = .engine
        case .object: self = .object
        case .lmdb: self = .lmdb
        case .sqlite: self = .sqlite
        }
    }

    /// The `layer` field of the JSON lines and the table's layer column.
    var name: String {
        switch self {
        case .engine: return "engine"
        case .object: return "object"
        case .objectOverEngine: return "object/engine"
        case .lmdb: return "lmdb"
        case .sqlite: return "sqlite"
        case .engineOverLMDB: return "engine/lmdb"
        case .engineOverSQLite: return "engine/sqlite"
        case .objectOverLMDB: return "object/lmdb"
        case .objectOverSQLite: return "object/sqlite"
        }
    }
}

/// One figure of one workload: a line of JSON or a row of the table.
struct Measurement: Sendable {
    let workload: Workload
    let layer: ReportedLayer
    /// The metric name with its unit qualifier last, e.g. `latency_median_us`.
    let metric: String
    let value: Double
    /// The unit as printed: `ms`, `us`, `ns`, `KiB`, `x`, `commits/s`, ...
    let unit: String
    let kind: MetricKind

    /// The JSON line `{"workload":…,"metric":…,"value":…,"unit":…}`, with
    /// `"layer":…` after the workload when `includesLayer` (runs that measure the object layer).
    func jsonLine(includesLayer: Bool) -> JSONLine {
        var line = JSONLine()
        line.add("workload", workload.name)
        if includesLayer { line.add("layer", layer.name) }
        line.add("metric", metric)
        line.add("value", value)
        line.add("unit", unit)
        return line
    }
}

/// Collects measurements and prints them: each JSON line as soon as it is measured (so a reader
/// sees progress), or one text table at the end with the peers' figures beside ours.
final class Report {
    let configuration: BenchConfiguration
    private(set) var measurements: [Measurement] = []
    /// What `note` said, for the footnotes.
    private var notes: [String] = []
    /// The 1-minute load average when the run began: above the core count, the figures share
    /// the CPUs with other work.
    private let loadAverageAtStart = SystemLoad.oneMinuteAverage()

    /// A fsync floor this many times the notes' own makes the disk's minute a throttled one.
    static let throttledFloorFactor = 3.0

    init(configuration: BenchConfiguration) {
        self.configuration = configuration
    }

    /// Records one figure of one layer.
    func record(
        _ workload: Workload, layer: BenchLayer, _ metric: String, _ value: Double, unit: String,
        kind: MetricKind
    ) {
        precondition(configuration.layers.contains(layer), "\(layer.name) layer did not run")
        append(
            Measurement(
                workload: workload, layer: ReportedLayer(layer), metric: metric, value: value,
                unit: unit, kind: kind))
    }

    /// Records object/engine for every metric of `workload` both layers reported (but the
    /// fsync floors): the object figure over the engine figure, so above 1 means the Realm API
    /// costs that factor for a duration, and keeps that fraction for a rate below 1. Nothing
    /// in a one-layer run. With `--peers`, first Strata's figures over the peers'
    /// (`recordPeerRatios`, Report+Peers.swift).
    func recordLayerRatios(_ workload: Workload) {
        recordPeerRatios(workload)
        guard configuration.strataLayers.count == 2 else { return }
        let ofWorkload = measurements.filter { $0.workload == workload }
        // The fsync floors measure the disk beside both layers' commits, not a layer.
        for engine in ofWorkload where engine.layer == .engine {
            guard !engine.metric.hasPrefix("fsync_floor") else { continue }
            let object = ofWorkload.first { $0.layer == .object && $0.metric == engine.metric }
            guard let object, engine.value > 0 else { continue }
            precondition(object.unit == engine.unit, "\(engine.metric): the layers' units differ")
            append(
                Measurement(
                    workload: workload, layer: .objectOverEngine, metric: engine.metric,
                    value: object.value / engine.value, unit: "x",
                    kind: engine.kind.lowerIsBetter ? .ratioLowerIsBetter : .ratioHigherIsBetter))
        }
    }

    func append(_ measurement: Measurement) {
        precondition(
            measurement.value.isFinite,
            "\(measurement.workload.name) \(measurement.metric) is not finite")
        measurements.append(measurement)
        if configuration.emitsJSON {
            let line = measurement.jsonLine(includesLayer: configuration.reportsLayers)
            StandardStreams.writeLine(line.render())
        }
    }

    /// A progress note on stderr in text mode (a full run takes most of a minute).
    func progress(_ text: String) {
        guard !configuration.emitsJSON else { return }
        StandardStreams.writeErrorLine("strata-bench: " + text)
    }

    /// A note on stderr in every mode (JSON readers parse stdout only), for what the run
    /// leaves out; text mode repeats it under the table.
    func note(_ text: String) {
        notes.append(text)
        StandardStreams.writeErrorLine("strata-bench: note: " + text)
    }

    /// Prints the table (text mode only; JSON lines went out as they were recorded).
    func finish(directory: BenchDirectory, buildConfiguration: String) {
        guard !configuration.emitsJSON else { return }
        for line in preamble(directory: directory, buildConfiguration: buildConfiguration) {
            StandardStreams.writeLine(line)
        }
        StandardStreams.writeLine((configuration.measuresPeers ? peerTable() : table()).render())
        for line in footnotes() {
            StandardStreams.writeLine(line)
        }
    }

    private func preamble(directory: BenchDirectory, buildConfiguration: String) -> [String] {
        let seconds = NumberText.trimmed(configuration.concurrentPhaseSeconds)
        var lines = [
            "strata-bench (\(buildConfiguration) build): \(configuration.recordCount) records, "
                + "\(configuration.commitCount) commits, \(seconds) s per concurrent phase, "
                + "in \(directory.path)\(directory.isTemporary ? " (removed)" : "")"
        ]
        if let summary = configuration.runCountSummary {
            lines.append("Micro-workloads report the median of their runs: \(summary).")
        }
        if configuration.strataLayers != [.engine] {
            lines.append(
                "Layers: " + configuration.strataLayers.map(\.name).joined(separator: " and ")
                    + " (object = the Realm API on the engine, class BenchPerson)"
                    + (configuration.strataLayers.count == 2 ? ", alternating run by run." : "."))
        }
        lines += peerPreamble()
        if let load = loadAverageAtStart {
            lines.append(
                "Load average at start: \(NumberText.fixed(load, fractionDigits: 2)) on"
                    + " \(SystemLoad.onlineCoreCount()) cores.")
        }
        if buildConfiguration != "release" {
            lines.append("warning: not a release build; the figures are not comparable.")
        }
        lines.append("")
        return lines
    }

    /// The table; with layers, a layer column follows the metric and each metric's rows go
    /// engine, object, object/engine (the ratio rows have no peer figures).
    private func table() -> TextTable {
        let layered = configuration.reportsLayers
        var header = [
            "workload", "metric", "Strata", "unit", "LMDB", "SQLite FULL", "Realm", "vs LMDB",
        ]
        var numericColumns: Set<Int> = [2, 4, 5, 6, 7]
        if layered {
            header.insert("layer", at: 2)
            numericColumns = [3, 5, 6, 7, 8]
        }
        var table = TextTable(header: header, numericColumns: numericColumns)
        let showsPeers = configuration.matchesPeerShape
        for measurement in tableOrder() {
            let isRatio = measurement.layer == .objectOverEngine
            let peers = showsPeers && !isRatio ? PeerBaselines.figures(measurement) : nil
            var row = [
                measurement.workload.name,
                measurement.metric,
                NumberText.compact(measurement.value),
                measurement.unit,
                peers?.lmdb.map(NumberText.compact) ?? "",
                peers?.sqliteFull.map(NumberText.compact) ?? "",
                peers?.realm.map(NumberText.compact) ?? "",
                peers?.lmdb.map { Self.comparison(measurement, lmdb: $0) } ?? "",
            ]
            if layered { row.insert(measurement.layer.name, at: 2) }
            table.addRow(row)
        }
        return table
    }

    /// Workload order first, then each metric where it was first recorded, then the layer:
    /// in a one-layer run, the order of recording within each workload.
    func tableOrder() -> [Measurement] {
        var firstIndex: [String: Int] = [:]
        for (index, measurement) in measurements.enumerated() {
            let key = measurement.workload.name + "/" + measurement.metric
            if firstIndex[key] == nil { firstIndex[key] = index }
        }
        func rank(_ measurement: Measurement) -> Int {
            firstIndex[measurement.workload.name + "/" + measurement.metric] ?? 0
        }
        return measurements.sorted { lhs, rhs in
            if lhs.workload != rhs.workload { return lhs.workload < rhs.workload }
            if rank(lhs) != rank(rhs) { return rank(lhs) < rank(rhs) }
            return lhs.layer < rhs.layer
        }
    }

    /// "2.1x slower", "1.3x faster", "same": always a factor of at least 1 and a direction.
    static func comparison(_ measurement: Measurement, lmdb: Double) -> String {
        guard lmdb > 0, measurement.value > 0 else { return "" }
        let ratio = measurement.value / lmdb
        let worse = measurement.kind.lowerIsBetter ? ratio > 1 : ratio < 1
        let factor = ratio >= 1 ? ratio : 1 / ratio
        if factor < 1.005 { return "same" }
        let words = measurement.kind.comparisonWords
        return NumberText.fixed(factor, fractionDigits: 2) + "x "
            + (worse ? words.worse : words.better)
    }

    private func footnotes() -> [String] {
        var lines = [""]
        if configuration.measuresPeers {
            lines += peerFootnotes()
        } else if configuration.matchesPeerShape {
            lines += PeerBaselines.citation
        } else {
            lines.append(
                "Peer columns are blank: the peers were measured with 100000 records and 1000"
                    + " commits.")
        }
        if configuration.strataLayers != [.engine] {
            lines += Self.layerFootnotes
        }
        lines += notes.map { "note: " + $0 }
        let floor = measurements.first {
            $0.workload == .durableCommit && $0.metric == "fsync_floor_us"
        }
        if let floor, floor.value > Self.throttledFloorFactor * PeerBaselines.fsyncFloorMicros {
            lines.append(
                "warning: the fsync floor (\(NumberText.compact(floor.value)) us) is over "
                    + "\(NumberText.trimmed(Self.throttledFloorFactor))x the notes' "
                    + "\(NumberText.trimmed(PeerBaselines.fsyncFloorMicros)) us: the disk is in a"
                    + " throttled phase, and durable figures (ratios included) are not comparable.")
        }
        return lines
    }
}

extension Report {
    /// Printed under the table when the object layer ran.
    static let layerFootnotes = [
        "Layers: engine = the engine's transactions; object = the same workloads through the",
        "  Realm API (Realm.write/add, objects(_:), object(ofType:forPrimaryKey:); snapshot ends",
        "  each read with invalidate()). object/engine = the object figure over the engine's,",
        "  measured alternating in this run: for times, the API's cost factor (compare it rather",
        "  than figures of different runs). Peer columns are the same for both layers.",
    ]
}

/// Number spelling for the text table (JSON prints full precision).
enum NumberText {
    /// About three significant digits, thousands grouped: 4,200 · 308 · 16.5 · 2.41.
    static func compact(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 1_000 { return grouped(Int(value.rounded())) }
        if magnitude >= 100 { return fixed(value, fractionDigits: 0) }
        if magnitude >= 10 { return fixed(value, fractionDigits: 1) }
        return fixed(value, fractionDigits: 2)
    }

    /// `value` rounded to `fractionDigits` decimals (at most 6).
    static func fixed(_ value: Double, fractionDigits: Int) -> String {
        precondition(fractionDigits >= 0 && fractionDigits <= 6, "fraction digits out of range")
        var scale = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let scaled = Int((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = String(scaled / scale)
        guard fractionDigits > 0 else { return sign + whole }
        let fraction = String(scaled % scale)
        let padding = String(repeating: "0", count: fractionDigits - fraction.count)
        return sign + whole + "." + padding + fraction
    }

    /// Up to 3 decimals without trailing zeros: 5 · 0.25 · 1.5.
    static func trimmed(_ value: Double) -> String {
        var text = fixed(value, fractionDigits: 3)
        while text.contains("."), text.last == "0" { text.removeLast() }
        if text.last == "." { text.removeLast() }
        return text
    }

    /// An integer with commas every three digits.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }
}

/// What else the machine is doing, for reading the figures (the peers' notes warn that the
/// machine is shared).
enum SystemLoad {
    /// The first field of `/proc/loadavg`; nil where there is none.
    static func oneMinuteAverage() -> Double? {
        guard let stream = fopen("/proc/loadavg", "r") else { return nil }
        defer { fclose(stream) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), stream) != nil else { return nil }
        let text = String(
            decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
            as: UTF8.self)
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    static func onlineCoreCount() -> Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
