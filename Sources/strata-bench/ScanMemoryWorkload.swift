#if canImport(Glibc)
    import Glibc
#endif

/// `scan_memory`: how much the process's peak resident memory grows during one full scan,
/// in KiB and KiB per 1,000 records; a scan whose memory is flat in the record count shows
/// the same growth at every `--records` (run it with `--records 1000000` to see that).
///
/// Before each layer's scan the peak is reset by writing "5" to /proc/self/clear_refs, which
/// sets VmHWM to the current resident set; VmHWM is read from /proc/self/status before and
/// after the scan (`measureScan`, the scan workload's loop, checked the same way). The
/// growth includes pages of the database file the scan maps in for the first time (most are
/// resident after the load), and every heap page it allocates. Where clear_refs cannot be
/// written (no /proc, or not permitted), the run says so in a note and reports no figure.
enum ScanMemoryWorkload {
    static func run(
        databases: [any StrataLayerDatabase], configuration: BenchConfiguration, report: Report
    ) throws {
        let lastID = databases.first?.lastID ?? 0
        report.progress(
            "scan_memory: peak RSS growth over one scan of \(lastID) records"
                + configuration.layerProgressSuffix)
        for database in databases {
            if let problem = ProcessMemory.resetPeak() {
                report.note(
                    "scan_memory: no figure: cannot reset the peak RSS (\(problem)); it needs a"
                        + " writable /proc/self/clear_refs (Linux)")
                return
            }
            guard let before = ProcessMemory.peakKiB() else {
                report.note("scan_memory: no figure: /proc/self/status has no VmHWM line")
                return
            }
            let (totals, _) = try database.measureScan()
            guard let after = ProcessMemory.peakKiB() else {
                report.note("scan_memory: no figure: /proc/self/status has no VmHWM line")
                return
            }
            do {
                try ScanWorkload.check(totals, lastID: database.lastID, layer: database.layer)
            } catch {
                throw BenchError.wrongResult(
                    workload: .scanMemory, detail: "\(error)")
            }
            let growth = Double(max(0, after - before))
            report.record(
                .scanMemory, layer: database.layer, "peak_growth_kib", growth, unit: "KiB",
                kind: .size)
            report.record(
                .scanMemory, layer: database.layer, "kib_per_1k_records",
                growth / Double(database.lastID) * 1_000, unit: "KiB", kind: .size)
        }
        report.recordLayerRatios(.scanMemory)
    }
}

/// The process's resident memory, from /proc (Linux).
enum ProcessMemory {
    /// Resets VmHWM to the current resident set (`echo 5 > /proc/self/clear_refs`); nil when
    /// that worked, else what failed.
    static func resetPeak() -> String? {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else {
            return "open /proc/self/clear_refs: " + String(cString: strerror(errno))
        }
        defer { close(descriptor) }
        let written = write(descriptor, "5", 1)
        guard written == 1 else {
            return "write to /proc/self/clear_refs: " + String(cString: strerror(errno))
        }
        return nil
    }

    /// The `VmHWM:` line of /proc/self/status, in KiB; nil when there is none.
    static func peakKiB() -> Int? {
        guard let stream = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(stream) }
        var buffer = [CChar](repeating: 0, count: 256)
        while fgets(&buffer, Int32(buffer.count), stream) != nil {
            let line = String(
                decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard line.hasPrefix("VmHWM:") else { continue }
            let digits = line.dropFirst("VmHWM:".count).filter { $0.isNumber }
            return Int(digits)
        }
        return nil
    }
}
