#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `scan_memory`: how much the process's peak resident memory grows during one full scan,
/// in KiB and KiB per 1,000 records; a scan whose memory is flat in the record count shows
/// the same growth at every `--records` (run it with `--records 1000000` to see that).
///
/// Before each layer's measured scan, one unmeasured scan maps the file's pages in (they are
/// the database file, resident whatever the scan does); then `malloc_trim(0)` hands the
/// heap's free memory back to the system (else the scan could reuse pages that earlier
/// workloads freed without the peak moving), and writing "5" to /proc/self/clear_refs sets
/// VmHWM to the current resident set. VmHWM is read from /proc/self/status before and after
/// the scan (`measureScan`, the scan workload's loop, checked the same way), so the growth is
/// what the scan allocates (heap, and any file page still not resident), in 4 KiB pages.
/// Where clear_refs cannot be written (no /proc, or not permitted), the run says so in a
/// note and reports no figure.
enum ScanMemoryWorkload {
    static func run(
        databases: [any StrataLayerDatabase], configuration: BenchConfiguration, report: Report
    ) throws {
        let lastID = databases.first?.lastID ?? 0
        report.progress(
            "scan_memory: peak RSS growth over one scan of \(lastID) records"
                + configuration.layerProgressSuffix)
        for database in databases {
            // An unmeasured scan first maps the file's pages in: they are the file, resident
            // whether or not this scan runs, and would hide what the scan itself allocates.
            let (warmUp, _) = try database.measureScan()
            try check(warmUp, database)
            ProcessMemory.trimHeap()
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
            try check(totals, database)
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

extension ScanMemoryWorkload {
    /// The scan workload's check, reported as this workload's.
    fileprivate static func check(_ totals: ScanWorkload.Totals, _ database: any StrataLayerDatabase)
        throws
    {
        do {
            try ScanWorkload.check(totals, lastID: database.lastID, layer: database.layer)
        } catch {
            throw BenchError.wrongResult(workload: .scanMemory, detail: "\(error)")
        }
    }
}

/// The process's resident memory, from /proc (Linux).
enum ProcessMemory {
    /// Returns the heap's free memory to the system with glibc's `malloc_trim(0)`, looked up
    /// with dlsym (the Glibc module does not import malloc.h); nothing where there is none.
    static func trimHeap() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let process = dlopen(nil, RTLD_NOW) else { return }
        defer { dlclose(process) }
        guard let symbol = dlsym(process, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

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
