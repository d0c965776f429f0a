import Strata

/// `scan_parts`: where an object scan's time goes, object layer only (the engine's scan has no
/// objects to leave out). Three loops over `realm.objects(BenchPerson.self)`, each the median
/// of `--runs` (5), alternating loop by loop: `iterate` reads nothing (each element is counted:
/// the cost of the objects), `ints` reads `id` and `age`, `full` also reads the name as `scan`
/// does (a `String` per element: a 16-byte name is longer than Swift's 15-byte inline strings,
/// so each is allocated and freed). Each loop checks what it read: the count, and the id and
/// age sums where it reads them.
enum ScanPartsWorkload {
    /// The parts, in the order each round runs them.
    enum Part: String, CaseIterable {
        case iterate, ints, full
    }

    static func run(database: BenchRealm, configuration: BenchConfiguration, report: Report) throws {
        let runCount = configuration.runCount(.scanParts)
        let lastID = database.lastID
        report.progress(
            "scan_parts: \(runCount) scans of \(lastID) records per part (iterate, ints, full), alternating (object layer)"
        )
        var nanosPerRecord: [Part: Samples] = [:]
        for _ in 0..<runCount {
            for part in Part.allCases {
                let (totals, nanos) = measureNanos { scan(database.realm, part) }
                try check(totals, part: part, lastID: lastID)
                nanosPerRecord[part, default: Samples()].append(nanos / Double(totals.recordCount))
            }
        }
        for part in Part.allCases {
            guard let samples = nanosPerRecord[part] else { preconditionFailure("every part ran") }
            report.record(
                .scanParts, layer: .object, "\(part.rawValue)_ns_per_record", samples.median, unit: "ns",
                kind: .duration)
        }
    }

    /// One scan reading what `part` reads. Never inlined, as the other timed loops.
    @inline(never)
    static func scan(_ realm: Realm, _ part: Part) -> ScanWorkload.Totals {
        switch part {
        case .iterate:
            var totals = ScanWorkload.Totals()
            for _ in realm.objects(BenchPerson.self) { totals.recordCount += 1 }
            return totals
        case .ints:
            var totals = ScanWorkload.Totals()
            for person in realm.objects(BenchPerson.self) {
                totals.idSum &+= Int64(person.id)
                totals.ageSum &+= Int64(person.age)
                totals.recordCount += 1
            }
            return totals
        case .full:
            return BenchRealm.scanAll(realm)
        }
    }

    /// The checks of `ScanWorkload.check` that apply to what `part` read.
    private static func check(_ totals: ScanWorkload.Totals, part: Part, lastID: Int64) throws(BenchError) {
        switch part {
        case .full:
            try ScanWorkload.check(totals, lastID: lastID, layer: .object)
        case .iterate, .ints:
            let idSum = part == .ints ? lastID * (lastID + 1) / 2 : 0
            let ageSum = part == .ints ? PersonRecord.ageSum(throughID: lastID) : 0
            guard totals.recordCount == Int(lastID), totals.idSum == idSum, totals.ageSum == ageSum else {
                throw BenchError.wrongResult(
                    workload: .scanParts,
                    detail: "\(part.rawValue): read \(totals.recordCount) records, id sum \(totals.idSum), age sum"
                        + " \(totals.ageSum); expected \(lastID), \(idSum), \(ageSum)")
            }
        }
    }
}
