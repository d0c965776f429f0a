import Testing

@testable import StrataStorage

/// The lock file's ring of version records after a writer died inside a record's seqlock write
/// (found by `strata-fuzz run --mode process`: a SIGKILL between the two sequence stores).
@Suite struct VersionRingTests {
    private func record(_ version: UInt64) -> VersionRecord {
        VersionRecord(
            version: Version(version), catalogRoot: 2, freeListHead: 0, pageCount: 8,
            schemaVersion: 1, freeListEntryCount: 0)
    }

    @Test("Spec W8") func aRecordWrittenAfterAWriterDiedMidWriteReadsBack() {
        let byteCount = VersionTable.byteCount(slotCount: 8)
        let region = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        defer { region.deallocate() }
        let table = VersionTable(base: region, slotCount: 8)
        table.initialise(fileIdentity: 7, pageSizeBytes: 4096, record: record(5))
        #expect(table.record(of: Version(5)) == record(5))
        // The dead writer of v6 stored the odd "being written" sequence and nothing more.
        let slot = table.recordBase(Version(6))
        slot.storeBytes(of: slot.load(as: UInt64.self) + 1, as: UInt64.self)
        #expect(table.record(of: Version(6)) == nil)
        // The next writer publishes v6 into the same slot: it must read back.
        table.publish(record(6))
        #expect(table.newestVersion == Version(6))
        #expect(table.record(of: Version(6)) == record(6))
    }
}
